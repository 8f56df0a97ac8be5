"""``--diff``: unified diffs that ``git apply`` and ``patch -p1`` accept, safe on a terminal
and in a CI log.

* Headers are ``--- a/PATH`` / ``+++ b/PATH`` with PATH relative to the current folder
  when it lies below it, without ``./``; a path holding a double quote, a backslash, a
  control character or a non-ASCII byte is quoted as git quotes it (``"a/x\\ny"``, C
  escapes and octal bytes), which both tools read back; so is a path holding ``##[`` or
  ``##vso[`` (its ``[`` in octal), which a CI runner would obey anywhere in a line.
* Lines are split at LF only (a CR stays part of its line), and a side whose last line
  has no LF gets ``\\ No newline at end of file``.
* Changed lines are the file's bytes, exact, when standard output is not a terminal (a
  pipe or a file: what ``git apply`` reads); on a terminal they pass through
  :func:`migrator.report.escape.visible`, so file content cannot move the cursor or
  retitle the window. Under GitHub Actions (``GITHUB_ACTIONS``) the diff is wrapped in
  ``::stop-commands::TOKEN`` ... ``::TOKEN::`` (a random token), so a line of the diff
  cannot run a workflow command.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO, Iterable, Iterator

CONTEXT = 3
NO_NEWLINE = b"\\ No newline at end of file\n"
#: git's C-style escapes (quote.c's sq_lookup: the rest of the bytes below 0x20, 0x7f and
#: every byte above it are written as three octal digits).
_C_ESCAPES = {0x07: b"\\a", 0x08: b"\\b", 0x09: b"\\t", 0x0A: b"\\n", 0x0B: b"\\v", 0x0C: b"\\f", 0x0D: b"\\r",
              0x22: b'\\"', 0x5C: b"\\\\"}


def shown_path(path: str) -> str:
    """``path`` as the diff names it: relative to the current folder where it lies below
    it, never with a leading ``./``."""
    if os.path.isabs(path):
        relative = os.path.relpath(path)
        if not relative.startswith(os.pardir):
            path = relative
    return os.path.normpath(path).replace(os.sep, "/")


def git_quoted(name: bytes) -> bytes:
    """``name`` as git writes a path in a patch header: unchanged when it is plain, else in
    double quotes with C escapes (as ``core.quotePath``, git's default, does). A name holding
    a CI log command (``##[``, ``##vso[``: a runner obeys it anywhere in a line) is quoted too,
    its ``[`` written as the octal escape ``\\133``, which ``git apply`` reads back."""
    from migrator.report.escape import holds_log_command

    command = holds_log_command(name)
    if not command and not any(byte < 0x20 or byte >= 0x7F or byte in (0x22, 0x5C) for byte in name):
        return name
    octal = (lambda byte: byte < 0x20 or byte >= 0x7F or byte == 0x5B) if command else (lambda byte: byte < 0x20 or byte >= 0x7F)
    return b'"' + b"".join(_C_ESCAPES.get(byte) or (b"\\%03o" % byte if octal(byte) else bytes([byte]))
                           for byte in name) + b'"'


def _lines(data: bytes) -> list[bytes]:
    """Lines split at LF only, each with its LF (the last may have none)."""
    lines = data.split(b"\n")
    last = lines.pop()
    return [line + b"\n" for line in lines] + ([last] if last else [])


def _range(start: int, count: int) -> bytes:
    first = start + 1 if count else start
    return b"%d" % first if count == 1 else b"%d,%d" % (first, count)


def unified(old: bytes, new: bytes, path: str) -> Iterator[tuple[bytes, bool]]:
    """The diff of one file as (line, from the file) pairs: headers and hunk ranges are the
    tool's own text, lines from the file are its bytes (each ends in LF)."""
    import difflib

    before, after = _lines(old), _lines(new)
    name = os.fsencode(shown_path(path))
    yield b"--- " + git_quoted(b"a/" + name) + b"\n", False
    yield b"+++ " + git_quoted(b"b/" + name) + b"\n", False
    for group in difflib.SequenceMatcher(None, before, after, autojunk=False).get_grouped_opcodes(CONTEXT):
        first, last = group[0], group[-1]
        yield (b"@@ -" + _range(first[1], last[2] - first[1]) + b" +" + _range(first[3], last[4] - first[3])
               + b" @@\n"), False
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from _marked(b" ", before[i1:i2])
                continue
            if tag in ("replace", "delete"):
                yield from _marked(b"-", before[i1:i2])
            if tag in ("replace", "insert"):
                yield from _marked(b"+", after[j1:j2])


def _marked(mark: bytes, lines: Iterable[bytes]) -> Iterator[tuple[bytes, bool]]:
    for line in lines:
        if line.endswith(b"\n"):
            yield mark + line, True
        else:
            yield mark + line + b"\n", True
            yield NO_NEWLINE, False


def write(diffs: Iterable[tuple[bytes, bytes, str]], stream: BinaryIO, terminal: bool,
          environ: dict[str, str] | None = None) -> None:
    """Write the diffs of (old, new, path) to ``stream``: bytes exact unless ``terminal``
    (then every line from a file is escaped); wrapped against workflow commands under
    GitHub Actions."""
    environ = os.environ if environ is None else environ
    token = None
    if environ.get("GITHUB_ACTIONS") == "true":
        import secrets

        token = secrets.token_hex(16).encode()
        stream.write(b"::stop-commands::" + token + b"\n")
    from migrator.report.escape import visible

    for old, new, path in diffs:
        for line, from_file in unified(old, new, path):
            if terminal and from_file:
                line = visible(line[:-1].decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape") + b"\n"
            stream.write(line)
    if token is not None:
        stream.write(b"::" + token + b"::\n")
    stream.flush()
