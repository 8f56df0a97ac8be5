"""Runtime shim: keep code written for SGLang's removed DFLASH V1 path running on the V2 worker.

``shims.install()`` (or ``import shims.auto``, or ``DFLASH_MIGRATE_SHIM=1`` for every
process through the package's ``.pth`` hook) registers a ``sys.meta_path`` finder. It
imports nothing from sglang or torch itself; when Python later imports the SGLang
modules concerned, it

- serves the removed V1 worker module as an alias of the V2 one and maps the removed
  class names to the real V2 classes, each warning once (:class:`DFlashMigrationWarning`);
- raises :class:`ShimRemovedAPIError` (with the rule code and what to do instead) for
  removed things that have no V2 equivalent;
- gives a falsy ``SGLANG_ENABLE_SPEC_V2`` its old meaning by setting
  ``disable_overlap_schedule=True`` on speculative runs (see :mod:`shims.server_args`).

On sglang <= 0.5.13 the V1 path is real, and without sglang there is nothing to bridge: in
both cases the shim registers nothing and says so in one line.
Every removed name, rule code and message comes from :mod:`migrator.catalog`.
"""

from __future__ import annotations

import logging
import sys
import threading
import types
import warnings
from dataclasses import dataclass, field

try:
    from migrator import catalog
except Exception as error:  # another distribution's `migrator` over ours (a Python 2 one: SyntaxError)?
    from shims._owner import diagnose

    message = diagnose(error)
    if message is None:
        raise
    raise ImportError(f"dflash-migrate shim: {message}") from None
from shims import _switches
from shims._patching import PatchLog, ShimFinder
from shims._switches import ENV_ACTIVATE, ENV_DEFER_REMOVED, ENV_SILENT, ENV_STRICT, DFlashMigrationWarning
from shims.errors import RemovedAttributeError, RemovedCallFormError, RemovedNameError, ShimRemovedAPIError

#: dflash-migrate's own package, not another distribution's `shims` (shims/_pth.py: MARKER)
__dflash_migrate__ = True

__all__ = [
    "DFlashMigrationWarning",
    "ENV_ACTIVATE",
    "ENV_DEFER_REMOVED",
    "ENV_SILENT",
    "ENV_STRICT",
    "RemovedAttributeError",
    "RemovedCallFormError",
    "RemovedNameError",
    "ShimRemovedAPIError",
    "ShimStatus",
    "install",
    "is_active",
    "status",
    "uninstall",
]

logger = logging.getLogger("dflash_migrate.shim")
#: ``ShimStatus.reason`` before ``install()`` in this process
OFF = f"off in this process ({ENV_ACTIVATE} is not on and shims.install() was not called)"


@dataclass(frozen=True)
class ShimStatus:
    """Where the shim stands in this process."""

    active: bool
    sglang_version: str | None
    reason: str
    patched_modules: tuple[str, ...] = field(default=())


class _State:
    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.finder: ShimFinder | None = None
        self.log = PatchLog()
        self.patched: list[str] = []
        self.reason = OFF
        self.version: str | None = None
        self.warning_filter: tuple[object, ...] | None = None


_state = _State()


def _installed_sglang() -> str | None:
    """The installed sglang release from its metadata; sglang itself is never imported."""
    from importlib import metadata

    try:
        return metadata.version("sglang")
    except metadata.PackageNotFoundError:
        return None


def _sglang_missing(version: str | None) -> bool:
    import importlib.util

    return version is None and importlib.util.find_spec("sglang") is None


def _ships_v1(version: str | None) -> bool:
    if version is None:
        return False
    try:
        return catalog.parse_version(version) < catalog.parse_version(catalog.FIRST_V2_RELEASE)
    except ValueError:
        return False


def _patch_info(module: types.ModuleType) -> None:
    from shims.aliases import patch_info_module

    if patch_info_module(module, _state.log):
        _state.patched.append(module.__name__)


def _patch_server_args(module: types.ModuleType) -> None:
    from shims.server_args import patch_server_args_module

    if patch_server_args_module(module, _state.log):
        _state.patched.append(module.__name__)


def _make_finder() -> ShimFinder:
    from shims.aliases import MODULE_RENAMES, AliasModuleLoader
    from shims.server_args import SERVER_ARGS_MODULE

    loader = AliasModuleLoader(_state.log)
    return ShimFinder(
        aliases={name: loader for name in MODULE_RENAMES},
        patches={catalog.DFLASH_INFO: _patch_info, SERVER_ARGS_MODULE: _patch_server_args},
    )


def _add_warning_filter() -> None:
    # DeprecationWarning subclasses are hidden outside __main__ by default; the shim's
    # purpose is to be seen, and it shows each message once by itself.
    warnings.filterwarnings("always", category=DFlashMigrationWarning)
    _state.warning_filter = warnings.filters[0]


def _remove_warning_filter() -> None:
    if _state.warning_filter is not None:
        try:
            warnings.filters.remove(_state.warning_filter)  # type: ignore[arg-type]
        except ValueError:
            pass
        warnings._filters_mutated()  # type: ignore[attr-defined]
        _state.warning_filter = None


def install() -> ShimStatus:
    """Activate the shim in this process (idempotent); returns :func:`status`.

    Cheap: reads sglang's version from its metadata and registers a finder. The SGLang
    modules are patched when Python imports them, or right away if already imported.
    """
    with _state.lock:
        if _state.finder is not None or _state.reason.startswith("inactive"):
            return status()
        version = _installed_sglang()
        _state.version = version
        if _sglang_missing(version):
            _state.reason = (f"inactive: sglang is not installed in this environment, so there is nothing to "
                             f"bridge; the shim acts on sglang {catalog.FIRST_V2_RELEASE}+")
        elif _ships_v1(version):
            _state.reason = (f"inactive: sglang {version} still ships the DFLASH V1 path, so the shim changes "
                             f"nothing; it acts on sglang {catalog.FIRST_V2_RELEASE}+")
        if _state.reason.startswith("inactive"):
            if not _switches.silent():
                logger.warning("dflash-migrate shim %s", _state.reason)
            return status()
        finder = _make_finder()
        sys.meta_path.insert(0, finder)
        _state.finder = finder
        _state.reason = "active"
        _add_warning_filter()
        for name, patch in finder.patches.items():
            module = sys.modules.get(name)
            if module is not None and name not in _state.patched:
                patch(module)
        return status()


def uninstall() -> ShimStatus:
    """Undo :func:`install` (idempotent): remove the finder, the alias modules and every patch."""
    with _state.lock:
        finder = _state.finder
        if finder is not None:
            try:
                sys.meta_path.remove(finder)
            except ValueError:
                pass
            for name in finder.aliases:
                module = sys.modules.get(name)
                if module is not None and getattr(module, "__dflash_migrate_alias_of__", None):
                    del sys.modules[name]
        _state.log.undo_all()
        _state.patched.clear()
        _state.finder = None
        _state.reason = OFF
        _remove_warning_filter()
        _switches.reset_emitted()
        return status()


def is_active() -> bool:
    return _state.finder is not None


def status() -> ShimStatus:
    return ShimStatus(
        active=_state.finder is not None,
        sglang_version=_state.version if _state.finder is not None or _state.reason != OFF
        else _installed_sglang(),
        reason=_state.reason,
        patched_modules=tuple(_state.patched),
    )
