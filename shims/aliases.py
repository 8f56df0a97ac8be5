"""Old DFLASH V1 names on a V2-only sglang (0.5.14+): aliases and explicit removal errors.

- ``import <catalog.DFLASH_WORKER>`` gives an alias module (warns DFM101); its
  ``DFlashWorker`` is the real ``DFlashWorkerV2`` (warns DFM102); every other name is
  forwarded to the real V2 worker module.
- ``<catalog.DFLASH_INFO>.DFlashDraftInput`` is the real ``DFlashDraftInputV2`` (DFM103);
  ``_compute_paged_keep_slots`` raises :class:`~shims.errors.RemovedNameError` (DFM104)
  where it is imported, naming that place, and warns as it raises (once per importing module
  and name: a compat module's ``except ImportError`` may swallow the error); with
  ``DFLASH_MIGRATE_SHIM_DEFER_REMOVED=1`` it imports as a stand-in that raises the same error
  when called.
- Handing out the V1 worker name also makes the shim check each later subclass of the real
  V2 worker for dead V1 overrides (:mod:`shims.overrides`).
- ``DFlashVerifyInput.verify`` raises :class:`~shims.errors.RemovedAttributeError` (DFM105);
  with ``DFLASH_MIGRATE_SHIM_STRICT=1`` the V1 call form ``prepare_for_verify(batch,
  page_size)`` raises :class:`~shims.errors.RemovedCallFormError` (DFM110); the V2 form
  runs unchanged. Without strict mode ``prepare_for_verify`` is left untouched, because
  SGLang's own worker calls it on every decode step (the codemod and lint flag DFM110).

Every name is read from :mod:`migrator.catalog`. Nothing here imports sglang until
Python imports the SGLang module concerned.
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import importlib.machinery
import inspect
import os
import sys
import types
from typing import Any

from migrator import catalog
from shims import _switches
from shims._patching import PatchLog
from shims.errors import RemovedAttributeError, RemovedCallFormError, RemovedNameError


def _split(dotted: str) -> tuple[str, str]:
    module, _, name = dotted.rpartition(".")
    return module, name


# (module, name) pairs, all derived from the catalog.
V1_WORKER_MODULE = catalog.DFLASH_WORKER
_, V1_WORKER_NAME = _split(catalog.V1_WORKER_CLASS)
V2_WORKER_MODULE, V2_WORKER_NAME = _split(catalog.V2_WORKER_CLASS)
INFO_MODULE, V1_DRAFT_NAME = _split(catalog.V1_DRAFT_INPUT)
V2_DRAFT_MODULE, V2_DRAFT_NAME = _split(catalog.V2_DRAFT_INPUT)
_, VERIFY_CLASS_NAME = _split(catalog.VERIFY_INPUT)
MODULE_RENAMES = {catalog.get("DFM101").old: "DFM101"}
#: removed module-level names of the info module -> rule code
INFO_REMOVED = {_split(catalog.get("DFM104").old)[1]: "DFM104"}
#: names the info module's ``__getattr__`` maps to V2 classes -> (rule code, module, name)
INFO_RENAMED = {V1_DRAFT_NAME: ("DFM103", V2_DRAFT_MODULE, V2_DRAFT_NAME)}
VERIFY_REMOVED_MEMBER = catalog.get("DFM105").member
PREPARE_MEMBER = catalog.get("DFM110").member


def _new_name_hint(new: str) -> str:
    return f"use `{new}` (the shim maps the old name to it for now)"


def _resolve(module_name: str, attr: str) -> Any:
    return getattr(importlib.import_module(module_name), attr)


_LOG_KEY = "__dflash_migrate_log__"


class AliasModule(types.ModuleType):
    """Stands in for the removed V1 worker module; forwards to the real V2 module."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        real = importlib.import_module(V2_WORKER_MODULE)
        if name == V1_WORKER_NAME:
            entry = catalog.get("DFM102")
            _switches.notify(
                f"{entry.code}:{name}",
                _switches.migration_message(entry, _new_name_hint(catalog.V2_WORKER_CLASS)),
            )
            worker = getattr(real, V2_WORKER_NAME)
            log = self.__dict__.get(_LOG_KEY)
            if log is not None:
                from shims.overrides import watch_subclasses

                watch_subclasses(worker, log)
            return worker
        try:
            return getattr(real, name)
        except AttributeError:
            raise AttributeError(
                f"module {self.__name__!r} (dflash-migrate alias of {V2_WORKER_MODULE!r}) has no attribute {name!r}"
            ) from None

    def __dir__(self) -> list[str]:
        real = importlib.import_module(V2_WORKER_MODULE)
        return sorted({*dir(real), V1_WORKER_NAME})


class AliasModuleLoader(importlib.abc.Loader):
    """Creates :class:`AliasModule` for the removed V1 worker module name."""

    def __init__(self, log: PatchLog | None = None) -> None:
        self.log = log

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = AliasModule(spec.name)
        module.__dict__[_LOG_KEY] = self.log
        module.__doc__ = f"dflash-migrate alias: {spec.name} -> {V2_WORKER_MODULE} (removed in sglang {catalog.FIRST_V2_RELEASE})"
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        entry = catalog.get(MODULE_RENAMES[module.__name__])
        _switches.notify(
            f"{entry.code}:{module.__name__}",
            _switches.migration_message(entry, _new_name_hint(V2_WORKER_MODULE)),
        )
        importlib.import_module(V2_WORKER_MODULE)  # fail at import time, like the real module would
        module.__all__ = [V1_WORKER_NAME]
        module.__dflash_migrate_alias_of__ = V2_WORKER_MODULE


_SHIM_DIR = os.path.dirname(os.path.abspath(__file__))


def _user_frame() -> tuple[str, int] | None:
    """(file, line) of the nearest frame outside the shim and the import machinery."""
    frame = _user_frame_object()
    return (frame.f_code.co_filename, frame.f_lineno) if frame is not None else None


def _user_frame_object() -> types.FrameType | None:
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith("<frozen") and os.path.dirname(os.path.abspath(filename)) != _SHIM_DIR:
            return frame
        frame = frame.f_back  # type: ignore[assignment]
    return None


def _user_site() -> str:
    found = _user_frame()
    return f"{found[0]}:{found[1]}" if found else "an unknown place"


_stand_ins: dict[str, Any] = {}


def _stand_in(name: str, code: str) -> Any:
    """A function that raises :class:`RemovedNameError` when called (the deferred switch)."""
    existing = _stand_ins.get(name)
    if existing is not None:
        return existing

    def removed(*args: Any, **kwargs: Any) -> Any:
        raise RemovedNameError(code, f"called at {_user_site()}, imported as a stand-in because "
                                     f"{_switches.ENV_DEFER_REMOVED}=1", on_call=True)

    removed.__name__ = removed.__qualname__ = name
    removed.__module__ = INFO_MODULE
    removed.__dflash_migrate_shim__ = True  # type: ignore[attr-defined]
    _stand_ins[name] = removed
    return removed


def _removed_name(name: str) -> Any:
    code = INFO_REMOVED[name]
    frame = _user_frame_object()
    found = (frame.f_code.co_filename, frame.f_lineno) if frame is not None else None
    where = f"{found[0]}:{found[1]}" if found else ""
    if not _switches.defer_removed():
        _warn_raised(name, code, frame, found)
        raise RemovedNameError(code, f"imported at {where}" if where else "")
    entry = catalog.get(code)
    _switches.notify(f"{code}:stand-in:{name}", _switches.migration_message(
        entry, f"imported as a stand-in that raises {RemovedNameError.__name__} when called "
               f"({_switches.ENV_DEFER_REMOVED}=1)"), location=found)
    return _stand_in(name, code)


def _warn_raised(name: str, code: str, frame: types.FrameType | None, found: tuple[str, int] | None) -> None:
    """Say at raise time, once per importing module and name, that the import fails: a
    fork's ``except ImportError`` (a compat module's ``try``) may swallow the error and, with
    it, the aliases the same ``try`` imports, leaving no word. Strict mode raises the error
    itself instead."""
    if _switches.strict():
        return
    module = frame.f_globals.get("__name__", "?") if frame is not None else "?"
    place = f" at {found[0]}:{found[1]}" if found else ""
    _switches.notify(f"{code}:raised:{module}:{name}", _switches.migration_message(
        catalog.get(code), f"`{module}` imports `{name}`{place} and gets {RemovedNameError.__name__} (an "
                           f"ImportError): an `except ImportError` there hides it and every name its `try` "
                           f"imports; {_switches.ENV_DEFER_REMOVED}=1 makes `{name}` import as a stand-in that "
                           "raises when called"), location=found)


def _info_getattr(previous: Any) -> Any:
    """A PEP 562 ``__getattr__`` for the info module, chaining to an existing one."""

    def __getattr__(name: str) -> Any:
        if name in INFO_RENAMED:
            code, module_name, new_name = INFO_RENAMED[name]
            entry = catalog.get(code)
            _switches.notify(
                f"{code}:{name}",
                _switches.migration_message(entry, _new_name_hint(f"{module_name}.{new_name}")),
            )
            return _resolve(module_name, new_name)
        if name in INFO_REMOVED:
            return _removed_name(name)
        if previous is not None:
            return previous(name)
        raise AttributeError(f"module {INFO_MODULE!r} has no attribute {name!r}")

    __getattr__.__dflash_migrate_shim__ = True  # type: ignore[attr-defined]
    return __getattr__


class _RemovedMember:
    """Class attribute that raises :class:`RemovedAttributeError` when read (``hasattr`` -> False)."""

    def __init__(self, code: str) -> None:
        self.code = code

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        raise RemovedAttributeError(self.code)


def _is_v1_prepare_call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """V1: ``prepare_for_verify(batch, page_size: int, *, build_custom_mask=...)``.

    V2: ``prepare_for_verify(batch, target_worker[, defer_metadata_init=...])``.
    """
    if "page_size" in kwargs or "build_custom_mask" in kwargs:
        return True
    second = args[1] if len(args) > 1 else kwargs.get("target_worker")
    return isinstance(second, int) and not isinstance(second, bool)


def _wrap_prepare_for_verify(original: Any) -> Any:
    @functools.wraps(original)
    def prepare_for_verify(self: Any, *args: Any, **kwargs: Any) -> Any:
        if _is_v1_prepare_call(args, kwargs):
            raise RemovedCallFormError("DFM110")
        return original(self, *args, **kwargs)

    prepare_for_verify.__dflash_migrate_shim__ = True  # type: ignore[attr-defined]
    return prepare_for_verify


def patch_info_module(module: types.ModuleType, log: PatchLog) -> bool:
    """Add the V1 names to a V2 info module; returns False (no change) on a V1 module."""
    if V1_DRAFT_NAME in module.__dict__:
        return False  # sglang <= 0.5.13: the real V1 class is there
    previous = module.__dict__.get("__getattr__")
    log.set(module, "__getattr__", _info_getattr(previous))
    verify_cls = module.__dict__.get(VERIFY_CLASS_NAME)
    if isinstance(verify_cls, type):
        if VERIFY_REMOVED_MEMBER not in verify_cls.__dict__:
            member = _RemovedMember("DFM105")
            member.__set_name__(verify_cls, VERIFY_REMOVED_MEMBER)
            log.set(verify_cls, VERIFY_REMOVED_MEMBER, member)
        original = verify_cls.__dict__.get(PREPARE_MEMBER)
        # The V2 worker itself calls prepare_for_verify on every verify step, so checking the
        # call form would put shim code on the decode hot path (measured on the H200,
        # docs/gpu-validation.md). The check is installed only in strict mode (CI); the
        # codemod and the lint catch the V1 form statically (DFM110) in every mode.
        if _switches.strict() and inspect.isfunction(original) and not getattr(original, "__dflash_migrate_shim__", False):
            log.set(verify_cls, PREPARE_MEMBER, _wrap_prepare_for_verify(original))
    return True
