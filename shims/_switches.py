"""Environment switches of the runtime shim and the one place that emits its messages.

Why a module of its own: the ``.pth`` hook, ``install()``, the alias finder and the
``ServerArgs`` hook all need the same three switches and the same warn-once policy,
and none of them may import sglang or torch to get them.

- ``DFLASH_MIGRATE_SHIM=1``: opt every Python process in (read by the ``.pth`` hook).
- ``DFLASH_MIGRATE_SHIM_STRICT=1``: every shim warning is raised as an error instead
  (CI proof that nothing legacy is left).
- ``DFLASH_MIGRATE_SHIM_SILENT=1``: no shim warnings at all (strict wins if both are set).
- ``DFLASH_MIGRATE_SHIM_DEFER_REMOVED=1``: a removed name without a V2 replacement imports as
  a stand-in that raises the removal error when called, instead of failing the import.

Values use SGLang's own boolean spelling (``migrator.catalog.sglang_bool``).
"""

from __future__ import annotations

import os
import sys
import threading
import warnings

from migrator import catalog

ENV_ACTIVATE = "DFLASH_MIGRATE_SHIM"
ENV_STRICT = "DFLASH_MIGRATE_SHIM_STRICT"
ENV_SILENT = "DFLASH_MIGRATE_SHIM_SILENT"
ENV_DEFER_REMOVED = "DFLASH_MIGRATE_SHIM_DEFER_REMOVED"


class DFlashMigrationWarning(DeprecationWarning):
    """A V1 name or setting was used and the shim kept it working; the message says what to change."""


#: the "on" spellings, exactly as the ``.pth`` line and ``shims/_pth.py`` spell them (they may
#: import nothing); ``tests/test_shim.py`` checks the three agree with ``catalog.sglang_bool``
ON_VALUES = ("1", "true", "yes", "y")


def switched_on(name: str, environ: "os._Environ[str] | dict[str, str] | None" = None) -> bool:
    """Is ``name`` one of the "on" values in ``environ`` (default ``os.environ``)?"""
    value = (os.environ if environ is None else environ).get(name, "")
    return value.strip().lower() in ON_VALUES


def env_flag(name: str) -> bool:
    """True when ``name`` is set to a truthy SGLang boolean (``1/true/yes/y``, any case)."""
    value = os.environ.get(name)
    return bool(value) and catalog.sglang_bool(value) is True


def strict() -> bool:
    return env_flag(ENV_STRICT)


def silent() -> bool:
    return env_flag(ENV_SILENT) and not strict()


def defer_removed() -> bool:
    return env_flag(ENV_DEFER_REMOVED)


_emitted: set[str] = set()
_lock = threading.Lock()


def docs_link(entry: catalog.Entry) -> str:
    return f"{catalog.DOC}#{entry.anchor}"


def migration_message(entry: catalog.Entry, detail: str) -> str:
    """``DFM102: <catalog message>; <detail> (see MIGRATION.md#dfm102)``."""
    return f"{entry.code}: {entry.message}; {detail} (see {docs_link(entry)})"


#: the function SGLang runs each scheduler rank in (one process per rank); its ``tp_rank``
#: argument is what a warning names, so a tensor-parallel engine's log says which rank spoke
SCHEDULER_ENTRY = "run_scheduler_process"
_rank_of_process: list[int] = []


def scheduler_rank() -> int | None:
    """The tensor-parallel rank of this SGLang scheduler process, or None outside one.

    Read from the ``tp_rank`` argument of :data:`SCHEDULER_ENTRY` on the calling thread's
    stack (the fork's classes are created while that function runs: plugin loading, then
    the worker's construction), and remembered for later calls from other threads. Only
    called when a warning is about to be shown, so nothing runs per step.
    """
    if _rank_of_process:
        return _rank_of_process[0]
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == SCHEDULER_ENTRY:
            rank = frame.f_locals.get("tp_rank")
            if isinstance(rank, int):
                _rank_of_process.append(rank)
                return rank
        frame = frame.f_back
    return None


def _rank_suffix() -> str:
    rank = scheduler_rank()
    return "" if rank is None else f" [scheduler TP rank {rank}]"


def notify(key: str, message: str, *, stacklevel: int = 3, location: tuple[str, int] | None = None) -> None:
    """Warn once per ``key`` with :class:`DFlashMigrationWarning`, honouring the switches.

    ``location`` (file, line) points the warning at a definition instead of a caller.
    Each process warns once: under tensor parallelism every scheduler rank imports the
    fork in its own process, so each rank warns once and the message names the rank
    (``[scheduler TP rank 1]``), which tells a rank that warned from one that did not.

    Strict raises the warning as an exception every time (not only the first), so a
    CI run cannot pass because an earlier import already used up the warning.
    """
    if strict():
        raise DFlashMigrationWarning(f"{message}{_rank_suffix()} [{ENV_STRICT}=1 turns shim warnings into errors]")
    if silent():
        return
    with _lock:
        if key in _emitted:
            return
        _emitted.add(key)
    message += _rank_suffix()
    if location is not None:
        warnings.warn_explicit(message, DFlashMigrationWarning, location[0], location[1])
    else:
        warnings.warn(message, DFlashMigrationWarning, stacklevel=stacklevel)


def reset_emitted() -> None:
    """Forget which warnings were shown (``uninstall()`` and tests use it)."""
    with _lock:
        _emitted.clear()
