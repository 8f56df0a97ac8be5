"""Reading and decoding source files, and the one write path for everything the tool writes.

Every file the tool writes (fixed sources and notebooks, ``--add-noqa`` comments, reports
from ``--output``, baselines, MIGRATION.md) goes through one of two modes:
:func:`write_atomic` for sources (replace-if-unchanged: the file must still hold the bytes
the run read) or :func:`create_or_replace` for reports and baselines. Both write a
temporary file created exclusively in the target's folder, flush it to disk and rename it
over the target in one ``os.replace``: never a half-written file, never a write through a
name someone else prepared. A symbolic link at the target or in a folder of its path below
the repository top is refused (:func:`refuse_links`): the scanned tree may come from a
stranger. ``tests/test_hostile_round3_writes.py`` fails when code elsewhere in
``migrator/`` writes a file directly.
"""
from __future__ import annotations

import errno
import io
import os
import stat
from contextlib import contextmanager
from pathlib import Path

from migrator.base.repository import repo_root, root_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

TEMP_SUFFIX = ".dflash-migrate.tmp"
#: No file larger than this is read at all: its size is asked (``fstat``) before the first
#: byte, and a file that grows meanwhile is cut off one byte past the limit. The analysis
#: has lower limits of its own (``migrator.run.engine``); this one bounds the prefilter, which
#: reads (and lower-cases) every byte: one sparse 1 GiB ``.py`` in an archive must cost
#: nothing, not gigabytes.
MAX_READ_BYTES = 64 * 1024 * 1024


class SourceError(Exception):
    """A file that cannot be decoded or written; ``line`` where the problem has one."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def declared_encoding(data: bytes) -> str:
    """The encoding the interpreter decodes ``data`` with: a BOM or a PEP 263 coding cookie
    on the first two lines, else UTF-8 (:class:`SourceError` for an invalid declaration)."""
    first_end = data.find(b"\n")
    second_end = data.find(b"\n", first_end + 1) if first_end >= 0 else -1
    head = data if second_end < 0 else data[:second_end]  # the two lines a cookie may be on
    if data.startswith(b"\xef\xbb\xbf") or b"coding" in head:
        return _declared_encoding(data)
    return "utf-8"  # no BOM, no cookie: what tokenize.detect_encoding says, without its import


def decode_python(data: bytes) -> str:
    """Decode like the interpreter: BOM, then a PEP 263 coding cookie, else UTF-8."""
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise SourceError(f"binary file (NUL byte at offset {nul}): not Python source", line)
    encoding = declared_encoding(data)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1)
        raise SourceError(f"cannot decode as {encoding}: byte 0x{data[error.start]:02x} is invalid", line, column) from error
    except LookupError as error:
        raise SourceError(f"unknown encoding {encoding!r}", 1) from error


def _declared_encoding(data: bytes) -> str:
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        if "invalid or missing encoding declaration" not in str(error):
            line = error.lineno or next((n for n, text in enumerate(data.split(b"\n", 2)[:2], 1) if b"coding" in text), 1)
            raise SourceError(f"invalid encoding declaration: {error.msg}", line) from error
        encoding = "utf-8"  # no cookie and a first line that is not UTF-8: say which byte
    return encoding


@contextmanager
def _reading_errors() -> Iterator[None]:
    """OS errors while opening or reading a file, as the messages users see."""
    try:
        yield
    except PermissionError as error:
        raise SourceError("cannot read file: permission denied") from error
    except IsADirectoryError as error:
        raise SourceError("is a directory") from error
    except OSError as error:
        raise SourceError(f"cannot read file: {error.strerror or error}") from error


def read_bytes(path: Path | str, limit: int = MAX_READ_BYTES) -> bytes:
    """The file's bytes; refuses FIFOs, sockets and devices (a FIFO would block forever)
    and files over ``limit`` bytes, never reading more than ``limit + 1`` of them."""
    with _reading_errors():
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        with _reading_errors():
            info = os.fstat(descriptor)
            mode = info.st_mode
            if stat.S_ISDIR(mode):
                raise SourceError("is a directory")
            if not stat.S_ISREG(mode):
                raise SourceError("not a regular file (FIFO, socket or device): never read")
            if info.st_size > limit:
                raise SourceError(too_large_to_read(info.st_size, limit))
            with os.fdopen(descriptor, "rb", closefd=False) as stream:
                # the size fstat gave, plus one byte to see whether it grew since (then
                # the rest, up to one byte past the limit): one buffer of the file's size
                data = stream.read(info.st_size + 1)
                if len(data) > info.st_size:
                    data += stream.read(limit + 1 - len(data))
            if len(data) > limit:
                raise SourceError(too_large_to_read(len(data), limit))
            return data
    finally:
        os.close(descriptor)


def too_large_to_read(size: int, limit: int) -> str:
    return f"file too large to read ({size / 2**20:.1f} MiB > limit of {limit // 2**20} MiB): not read"


def write_atomic(path: Path, data: bytes, expected_old: bytes, *, write_read_only: bool = False) -> None:
    """Sources (replace-if-unchanged): replace ``path``'s content by ``data`` if it still
    holds ``expected_old``.

    A file without any write bit is refused unless ``write_read_only`` (root could write
    it anyway: the mode is the owner's word). The new file keeps the old one's mode,
    owner and group, and extended attributes (ACLs, SELinux labels) where the OS allows;
    if the owner cannot be kept, nothing is written. A symbolic link at ``path`` or in its
    folders is refused (:func:`refuse_links`).
    """
    refuse_links(path)
    try:
        info = os.stat(path)
    except OSError as error:
        raise SourceError(f"cannot write: {error.strerror or error}") from error
    if not info.st_mode & 0o222 and not write_read_only:
        raise SourceError(f"cannot write: file is read-only (mode {stat.S_IMODE(info.st_mode):04o}); "
                          "pass --write-read-only to write it anyway")
    if not os.access(path, os.W_OK):
        raise SourceError("cannot write: file is read-only")
    try:
        current = read_bytes(path)  # never blocks on a FIFO put in the file's place since
    except SourceError as error:
        raise SourceError(f"cannot re-read before writing: {error.message}") from error
    if current != expected_old:
        raise SourceError("file changed on disk while it was being migrated; not written (run again)")
    _write_then_replace(path, data, lambda temporary: _copy_metadata(path, temporary, info))


def create_or_replace(path: Path, data: bytes) -> None:
    """Reports, baselines, generated documents: ``path`` holds ``data`` afterwards, created
    or replaced whole. An existing file keeps its permission bits; a new one gets
    ``0666`` less the umask, as ``open(path, "w")`` would give it. A symbolic link at
    ``path`` or in its folders is refused (:func:`refuse_links`), as is a target that is
    not a regular file (a folder, a FIFO, a device).
    """
    refuse_links(path)
    try:
        info: os.stat_result | None = os.lstat(path)
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise SourceError(f"cannot write: {error.strerror or error}") from error
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise SourceError("cannot write: not a regular file (a folder, FIFO, socket or device): never replaced")
    if info is not None:
        mode = stat.S_IMODE(info.st_mode)
    else:
        umask = os.umask(0o022)
        os.umask(umask)
        mode = 0o666 & ~umask
    _write_then_replace(path, data, lambda temporary: os.chmod(temporary, mode))


def refuse_links(path: Path | str) -> None:
    """Raise :class:`SourceError` when ``path`` or a folder of its path below the repository
    top is a symbolic link: a scanned repository may commit ``report.xml -> /etc/...`` or
    ``reports -> /usr/lib/python3/site-packages``, and the tool may run as root in CI.

    The top is that of the current folder's repository (:func:`migrator.base.repository.repo_root`,
    the current folder outside any) when ``path`` is below it, else the repository holding
    ``path``; folders above the top are the user's own (a checkout may live under a linked
    ``/tmp``). Nothing but ``lstat`` is asked of the file system: no link is followed.
    Inputs the user names that a repository may commit (``--baseline``) are checked too.
    """
    absolute = os.path.abspath(path)
    top = repo_root()
    if not absolute.startswith(top.rstrip(os.sep) + os.sep):
        top = root_of(os.path.dirname(absolute))
    current = absolute
    while current != top:
        if os.path.islink(current):
            if current == absolute:
                raise SourceError("is a symbolic link: never read or written through (remove the link, or use another path)")
            raise SourceError(f"a folder of its path is a symbolic link ({current}): never read or written through")
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent


def _write_then_replace(path: Path, data: bytes, finish: Callable[[str], None]) -> None:
    """The one place a file is written: a temporary file created exclusively (``mkstemp``:
    ``O_CREAT | O_EXCL``, a random name, so no committed link can stand in for it) in
    ``path``'s folder, flushed to disk, ``finish``ed (mode, owner) and renamed over
    ``path`` in one ``os.replace`` (which replaces a name, never writes through one)."""
    import tempfile

    try:
        # A short prefix: the file's own name may already be near the 255-byte limit.
        handle, temporary = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),
                                             prefix=f".{os.path.basename(path)[:40]}.", suffix=TEMP_SUFFIX)
    except OSError as error:
        if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise SourceError(f"cannot write: folder is not writable ({error.strerror or error})") from error
        raise SourceError(f"cannot write: {error.strerror or error}") from error
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        finish(temporary)
        os.replace(temporary, path)
    except BaseException as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if isinstance(error, OSError):
            raise SourceError(f"cannot write: {error.strerror or error}") from error
        raise


def _copy_metadata(original: Path, temporary: str, info: os.stat_result) -> None:
    """Mode, owner, group and extended attributes of ``original`` onto ``temporary``."""
    os.chmod(temporary, stat.S_IMODE(info.st_mode))
    if hasattr(os, "chown"):
        new = os.stat(temporary)
        if (new.st_uid, new.st_gid) != (info.st_uid, info.st_gid):
            try:
                os.chown(temporary, info.st_uid, info.st_gid)
            except OSError as error:
                try:  # the group alone may still be settable
                    os.chown(temporary, -1, info.st_gid)
                except OSError:
                    pass
                if new.st_uid != info.st_uid:
                    raise SourceError(f"cannot write: the file's owner (uid {info.st_uid}) could not be kept "
                                      f"({error.strerror or error}); not written") from error
        os.chmod(temporary, stat.S_IMODE(info.st_mode))  # chown clears setuid/setgid bits
    if hasattr(os, "listxattr"):
        try:
            names = os.listxattr(original)
        except OSError:
            return
        for name in names:
            try:
                os.setxattr(temporary, name, os.getxattr(original, name))
            except OSError:
                pass  # not supported here, or not ours to set (security.*): best effort


def remove_folder_aside(folder: str, aside: str) -> bool:
    """Remove ``folder`` (a cache folder this tool made) by renaming it to ``aside`` in the
    same parent first, then removing that: of runs doing it at once, one wins the rename and
    the others find it gone; a run still reading or writing there meets a missing file.
    False where the rename failed (gone already, or not ours to move)."""
    import shutil

    try:
        os.rename(folder, aside)
    except OSError:
        return False
    shutil.rmtree(aside, ignore_errors=True)
    return True
