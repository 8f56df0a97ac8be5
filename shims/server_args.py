"""``SGLANG_ENABLE_SPEC_V2`` keeps its 0.5.13 meaning on sglang 0.5.14+ (rule DFM201).

On sglang 0.5.13 a falsy ``SGLANG_ENABLE_SPEC_V2`` made the EAGLE family run without
overlap scheduling (and DFLASH was always non-overlap, V1). From 0.5.14 the variable
only logs a warning and from 0.5.21 it is silently ignored, so ``=0`` deployments
quietly switch to overlap scheduling. The shim restores the intent: with a falsy value
and a speculative run (DFLASH, EAGLE, EAGLE3, NEXTN, STANDALONE) the server arguments get
``disable_overlap_schedule=True`` unless the user set that field explicitly.

Where it hooks (read from the 0.5.14, 0.5.17, 0.5.20 and 0.5.23 wheels):

- 0.5.14-0.5.19: ``ServerArgs`` is a dataclass whose ``__post_init__`` runs the
  speculative handler. ``sglang.Engine(**kw)`` calls ``ServerArgs(**kw)``;
  ``launch_server``/``sglang serve`` call ``prepare_server_args`` ->
  ``ServerArgs.from_cli_args`` -> ``ServerArgs(**every_field)``. The shim wraps
  ``__init__`` (to see whether the keyword was passed), ``from_cli_args`` (where every
  field is passed, so only a ``True`` from ``--disable-overlap-schedule`` is explicit)
  and ``__post_init__`` (to write the field before SGLang's handlers read it).
- 0.5.19: ``ServerArgs`` is still a dataclass, but ``__post_init__`` does nothing and
  ``resolve_once()`` runs the handlers (as on 0.5.20+). The ``__init__`` wrapper records
  whether the field was passed on the record (``_dflash_migrate_explicit``, not a field)
  and the ``resolve_once`` hook reads it, so an explicit ``False`` is kept there too.
- 0.5.20+: ``ServerArgs`` is a ``msgspec`` Struct whose ``__post_init__`` does nothing;
  msgspec binds ``__init__``/``__post_init__`` at class creation, so they cannot be
  wrapped. Every entry point calls ``ServerArgs.resolve_once()`` before reading the
  record (Engine, launch_server, serve), which is an ordinary method: the shim writes
  the raw field there, before SGLang seals the record. Whether the user passed the field
  is read from ``_launch_command`` (the Engine call or command line SGLang records).
"""

from __future__ import annotations

import dataclasses
import functools
import threading
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from migrator import catalog
from shims import _switches
from shims._patching import PatchLog

#: Algorithms whose overlap setting ``SGLANG_ENABLE_SPEC_V2`` governed in 0.5.13:
#: DFLASH (always non-overlap) and the EAGLE family (``_handle_eagle_family``; NEXTN is
#: an alias SGLang resolves to EAGLE).
SPECULATIVE_ALGORITHMS = frozenset({"DFLASH", "EAGLE", "EAGLE3", "NEXTN", "STANDALONE"})
ENV = catalog.ENV_SPEC_V2
FIELD = catalog.DISABLE_OVERLAP_ARG
FLAG = catalog.DISABLE_OVERLAP_FLAG
SERVER_ARGS_MODULE, SERVER_ARGS_CLASS = catalog.SERVER_ARGS.rpartition(".")[::2]
_BOOKKEEPING = "_dflash_migrate_env_applied"


@dataclass(frozen=True)
class EnvDecision:
    """What the shim does for one ``ServerArgs``: set the field or not, and what to say."""

    set_disable_overlap: bool
    message: str | None
    key: str


def _sglang_release() -> str | None:
    from importlib import metadata

    try:
        return metadata.version("sglang")
    except metadata.PackageNotFoundError:
        return None


def _new_meaning(release: str | None) -> str:
    if release is None:
        return catalog.env_meaning(catalog.NEWEST_RELEASE)
    try:
        base = ".".join(str(p) for p in catalog.parse_version(release)[:3])
    except ValueError:
        base = catalog.NEWEST_RELEASE
    return f"sglang {release}: {catalog.env_meaning(base)}"


def decide(env_value: str | None, algorithm: str | None, current: bool, explicit: bool,
           release: str | None = None, is_covered: Callable[[str], bool] | None = None) -> EnvDecision:
    """Pure decision (no sglang needed): the 0.5.13 meaning of ``env_value`` for this run.

    ``is_covered`` answers for algorithm names that are not built in (plugins registered
    through ``SpeculativeAlgorithm.register``): does SGLang treat them as DFLASH or EAGLE?
    """
    entry = catalog.get("DFM201")
    if env_value is None or not algorithm:
        return EnvDecision(False, None, "")
    name = algorithm.strip().upper()
    if name not in SPECULATIVE_ALGORITHMS and not (is_covered is not None and is_covered(algorithm.strip())):
        return EnvDecision(False, None, "")
    parsed = catalog.sglang_bool(env_value)
    meaning = _new_meaning(release)
    if parsed is False:
        if explicit and not current:
            detail = (f"`{ENV}={env_value}` asked for the non-overlap path, but `{FIELD}=False` was "
                      f"passed explicitly, so the shim keeps overlap scheduling. Remove `{ENV}`. [{meaning}]")
            return EnvDecision(False, _switches.migration_message(entry, detail), f"{entry.code}:falsy-explicit")
        action = ("the shim set" if not current else "already")
        detail = (f"`{ENV}={env_value}` now means: the V2 worker with non-overlap (synchronous) scheduling; "
                  f"{action} `{FIELD}=True` for this {algorithm.strip().upper()} run. "
                  f"Replace the variable with `{FLAG}` (CLI) or `{FIELD}=True` (Engine/ServerArgs). [{meaning}]")
        return EnvDecision(not current, _switches.migration_message(entry, detail), f"{entry.code}:falsy")
    spelled = "truthy" if parsed else "unrecognised (SGLang read it as its default, True)"
    detail = (f"`{ENV}={env_value}` is {spelled}: V2 with overlap scheduling is already the default, nothing "
              f"changes; delete the variable. [{meaning}]")
    return EnvDecision(False, _switches.migration_message(entry, detail), f"{entry.code}:truthy")


def apply(server_args: Any, explicit: bool, environ: dict[str, str] | None = None) -> EnvDecision:
    """Apply :func:`decide` to a (not yet resolved) ``ServerArgs`` record."""
    import os

    env = (environ if environ is not None else os.environ).get(ENV)
    decision = decide(env, getattr(server_args, "speculative_algorithm", None),
                      bool(getattr(server_args, FIELD, False)), explicit, _sglang_release(),
                      is_covered=_registered_as_dflash_or_eagle)
    if decision.message:
        _switches.notify(decision.key, decision.message, stacklevel=4)
    if decision.set_disable_overlap:
        setattr(server_args, FIELD, True)
    return decision


def _registered_as_dflash_or_eagle(name: str) -> bool:
    """A plugin algorithm SGLang resolves to the DFLASH or EAGLE family (asked only when the
    variable is set and the name is not built in, so normal runs never import this)."""
    try:
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

        algorithm = SpeculativeAlgorithm.from_string(name)
    except Exception:  # noqa: BLE001 - unknown name or a release without the registry
        return False
    for question in ("is_dflash", "is_eagle", "is_standalone"):
        method = getattr(algorithm, question, None)
        try:
            if callable(method) and method():
                return True
        except Exception:  # noqa: BLE001 - a plugin's own answer may fail; not covered then
            continue
    return False


def v1_present_beside(server_args_file: str | None) -> bool:
    """Does the sglang tree holding ``server_args.py`` still ship the V1 worker (<= 0.5.13)?"""
    if not server_args_file:
        return False
    rel = catalog.DFLASH_WORKER.split(".")[2:]  # sglang.srt.<...> relative to srt/
    return (Path(server_args_file).parent.joinpath(*rel[:-1]) / f"{rel[-1]}.py").exists()


_local = threading.local()


def _stack() -> list[bool]:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def _explicit_in_call(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    if getattr(_local, "from_cli", False):
        # from_cli_args passes every field; the store_true flag can only make it True.
        return bool(kwargs.get(FIELD, False))
    if FIELD in kwargs:
        return True
    if args and dataclasses.is_dataclass(cls):
        names = [f.name for f in dataclasses.fields(cls) if f.init]
        return FIELD in names and names.index(FIELD) < len(args)
    return False


_EXPLICIT = "_dflash_migrate_explicit"  # not a field: how the record was asked for


def _patch_init(cls: type, log: PatchLog) -> None:
    """Wrap a dataclass ``ServerArgs.__init__`` (and ``from_cli_args``) to learn whether the
    caller passed the field; the answer is on the stack during ``__init__`` and recorded on
    the record afterwards (for 0.5.19, which resolves later, in ``resolve_once``)."""
    original_init = cls.__dict__["__init__"]
    original_from_cli = cls.__dict__.get("from_cli_args")

    @functools.wraps(original_init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        explicit = _explicit_in_call(type(self), args, kwargs)
        _stack().append(explicit)
        try:
            original_init(self, *args, **kwargs)
        finally:
            _stack().pop()
        try:
            object.__setattr__(self, _EXPLICIT, explicit)
        except AttributeError:  # a slotted record: only the stack answers (0.5.14-0.5.18 need no more)
            pass

    log.set(cls, "__init__", __init__)
    if isinstance(original_from_cli, classmethod):
        func = original_from_cli.__func__

        @functools.wraps(func)
        def from_cli_args(klass: type, cli_args: Any) -> Any:
            previous = getattr(_local, "from_cli", False)
            _local.from_cli = True
            try:
                return func(klass, cli_args)
            finally:
                _local.from_cli = previous

        log.set(cls, "from_cli_args", classmethod(from_cli_args))


def _patch_post_init(cls: type, log: PatchLog) -> None:
    """0.5.14-0.5.18: ``__post_init__`` runs the handlers; write the field just before."""
    original_post_init = cls.__dict__.get("__post_init__")

    def __post_init__(self: Any) -> None:
        stack = _stack()
        explicit = stack[-1] if stack else bool(getattr(self, FIELD, False))
        apply(self, explicit)
        if original_post_init is not None:
            original_post_init(self)

    if original_post_init is not None:
        functools.update_wrapper(__post_init__, original_post_init)
    log.set(cls, "__post_init__", __post_init__)


def _explicit_from_launch_command(server_args: Any) -> bool:
    command = getattr(server_args, "_launch_command", None) or ""
    return FLAG in command or f"{FIELD}=" in command


def _patch_resolve_once(cls: type, log: PatchLog) -> None:
    original = cls.__dict__["resolve_once"]

    @functools.wraps(original)
    def resolve_once(self: Any) -> None:
        fresh = not any(getattr(self, name, False) for name in
                        ("_resolution_finished", "_resolution_failed", "_input_frozen", _BOOKKEEPING))
        if fresh:
            recorded = getattr(self, _EXPLICIT, None)  # 0.5.19: a dataclass, its __init__ saw the call
            explicit = recorded if recorded is not None else (
                _explicit_from_launch_command(self) or bool(getattr(self, FIELD, False)))
            apply(self, explicit)
            setattr(self, _BOOKKEEPING, True)  # bookkeeping name: allowed, and pickled to children
        return original(self)

    log.set(cls, "resolve_once", resolve_once)


def patch_server_args_module(module: types.ModuleType, log: PatchLog) -> bool:
    """Hook ``ServerArgs`` in a freshly imported ``sglang.srt.server_args``; False if not applicable."""
    if v1_present_beside(getattr(module, "__file__", None)):
        return False  # sglang <= 0.5.13: the variable still has its own meaning
    cls = module.__dict__.get(SERVER_ARGS_CLASS)
    if not isinstance(cls, type):
        return False
    is_dataclass = dataclasses.is_dataclass(cls) and "__init__" in cls.__dict__
    if "resolve_once" in cls.__dict__:
        if is_dataclass:
            _patch_init(cls, log)
        _patch_resolve_once(cls, log)
        return True
    if is_dataclass:
        _patch_init(cls, log)
        _patch_post_init(cls, log)
        return True
    return False
