"""Reading, decoding and atomically writing source files.

Writes never leave a half-written file: the new bytes go to a temporary file in the same
folder, are flushed to disk, get the original file's permission bits, and replace the
original in one ``os.replace``. The original is re-read just before the replace; if
someone else changed it since it was read, nothing is written.
"""

from __future__ import annotations

from contextlib import contextmanager
import errno
import os
import stat
from pathlib import Path
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterator

TEMP_SUFFIX = ".dflash-migrate.tmp"
#: No file larger than this is read at all: its size is asked (``fstat``) before the first
#: byte, and a file that grows meanwhile is cut off one byte past the limit. The analysis
#: has lower limits of its own (``migrator.engine``); this one bounds the prefilter, which
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


def decode_python(data: bytes) -> str:
    """Decode like the interpreter: BOM, then a PEP 263 coding cookie, else UTF-8."""
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise SourceError(f"binary file (NUL byte at offset {nul}): not Python source", line)
    first_end = data.find(b"\n")
    second_end = data.find(b"\n", first_end + 1) if first_end >= 0 else -1
    head = data if second_end < 0 else data[:second_end]  # the two lines a cookie may be on
    if data.startswith(b"\xef\xbb\xbf") or b"coding" in head:
        encoding = _declared_encoding(data)
    else:
        encoding = "utf-8"  # no BOM, no cookie: what tokenize.detect_encoding says, without its import
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1)
        raise SourceError(f"cannot decode as {encoding}: byte 0x{data[error.start]:02x} is invalid", line, column) from error
    except LookupError as error:
        raise SourceError(f"unknown encoding {encoding!r}", 1) from error


def _declared_encoding(data: bytes) -> str:
    import io
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
    """Replace ``path``'s content by ``data`` if it still holds ``expected_old``.

    A file without any write bit is refused unless ``write_read_only`` (root could write
    it anyway: the mode is the owner's word). The new file keeps the old one's mode,
    owner and group, and extended attributes (ACLs, SELinux labels) where the OS allows;
    if the owner cannot be kept, nothing is written.
    """
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
        current = path.read_bytes()
    except OSError as error:
        raise SourceError(f"cannot re-read before writing: {error.strerror or error}") from error
    if current != expected_old:
        raise SourceError("file changed on disk while it was being migrated; not written (run again)")
    import tempfile

    try:
        # A short prefix: the file's own name may already be near the 255-byte limit.
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:40]}.", suffix=TEMP_SUFFIX)
    except OSError as error:
        if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise SourceError(f"cannot write: folder is not writable ({error.strerror or error})") from error
        raise SourceError(f"cannot write: {error.strerror or error}") from error
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        _copy_metadata(path, temporary, info)
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
