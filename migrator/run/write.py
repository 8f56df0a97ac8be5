"""The write of a run's results: a fix mode's new bytes, atomically, only where the file
is unchanged since the worker read it and holds no uncommitted work."""

from __future__ import annotations

from pathlib import Path

from migrator.base.fileio import SourceError, read_bytes, write_atomic
from migrator.base.model import FileError, FileResult
from migrator.base.options import Options

TYPE_CHECKING = False
if TYPE_CHECKING:

    from migrator.run.uncommitted import Uncommitted


def write_result(result: FileResult, options: Options, dirty: Uncommitted | None = None) -> None:
    """In fix mode, write a result's new bytes atomically, unless the file changed since it
    was read or holds uncommitted work (``dirty``: which files do; None: no check)."""
    if not (options.writes and result.new_bytes is not None and result.error is None):
        return
    shown = result.path
    # The bytes the worker read and fixed: the uncommitted-work check hashes them, and the
    # atomic write replaces the file only if it still holds them (one read before writing).
    data = result.original
    if data is None:  # a result made without them (a library caller's): read them now
        try:
            data = read_bytes(shown)
        except SourceError as error:
            result.error = FileError(shown, error.message)
            return
    refusal = None if options.allow_dirty or dirty is None else dirty.reason(shown, data)
    if refusal is not None:
        result.error = FileError(shown, refusal)
        return
    try:
        write_atomic(Path(shown), result.new_bytes, data, write_read_only=options.write_read_only)
        result.original = None
        result.written = True
    except SourceError as error:
        result.error = FileError(shown, error.message)
