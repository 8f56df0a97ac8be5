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

import bisect
import difflib
import os
from collections import Counter
from itertools import accumulate

from migrator.report.escape import holds_log_command, visible

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
    before, after = _lines(old), _lines(new)
    name = os.fsencode(shown_path(path))
    yield b"--- " + git_quoted(b"a/" + name) + b"\n", False
    yield b"+++ " + git_quoted(b"b/" + name) + b"\n", False
    for group in _Matcher(before, after).get_grouped_opcodes(CONTEXT):
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


#: Inner-loop steps of difflib's search that one file's diff may take (about a second):
#: difflib compares each line with every equal line of the other side, so a file of
#: 40,000 blank lines is 1.6 * 10^9 steps (minutes) for one edit at each end.
BUDGET = 5_000_000


class _Matcher(difflib.SequenceMatcher):
    """difflib's matcher (its output, line for line, while the work stays under
    :data:`BUDGET`), with a linear way through the regions left when it would not.

    difflib's ``get_matching_blocks`` splits at the longest match of each region; the
    same loop runs here, and a region whose search would cost more than what is left is
    split instead by its common first and last lines and by the lines found once on
    each side (patience diff's anchors, in order). A region with none of these is one
    replacement: a correct, coarser hunk, only in files built of repeated lines.
    """

    def __init__(self, before: list[bytes], after: list[bytes]) -> None:
        super().__init__(None, before, after, autojunk=False)
        self.left = BUDGET

    def get_matching_blocks(self) -> list[difflib.Match]:
        if self.matching_blocks is not None:
            return self.matching_blocks
        a, b, occurrences = self.a, self.b, self.b2j
        # a region's search cost (its lines, and each line's equal lines on the other side)
        # from prefix sums: one pass over ``a``, not one per region
        steps = [0, *accumulate(1 + len(occurrences.get(line, ())) for line in a)]
        queue = [(0, len(a), 0, len(b))]
        found: list[tuple[int, int, int]] = []
        while queue:
            alo, ahi, blo, bhi = queue.pop()
            cost = ahi - alo
            if self.left > cost:
                cost = steps[ahi] - steps[alo]
            self.left -= cost
            if self.left < 0:
                blocks, gaps = _anchors(a, b, alo, ahi, blo, bhi)
                found += blocks
                queue += gaps
                continue
            i, j, k = match = self.find_longest_match(alo, ahi, blo, bhi)
            if k:
                found.append(match)
                if alo < i and blo < j:
                    queue.append((alo, i, blo, j))
                if i + k < ahi and j + k < bhi:
                    queue.append((i + k, ahi, j + k, bhi))
        found.sort()
        merged: list[tuple[int, int, int]] = []
        for i, j, k in found:  # adjacent blocks become one, as difflib's
            if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
                merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + k)
            elif k:
                merged.append((i, j, k))
        merged.append((len(a), len(b), 0))
        self.matching_blocks = [difflib.Match._make(block) for block in merged]
        return self.matching_blocks


def _anchors(a: list[bytes], b: list[bytes], alo: int, ahi: int, blo: int,
             bhi: int) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int, int]]]:
    """The matches of a region found in linear time (its common first and last lines,
    then lines found once on each side, the longest run of them in the same order), and
    the regions between them still to match."""
    head = 0
    while alo + head < ahi and blo + head < bhi and a[alo + head] == b[blo + head]:
        head += 1
    tail = 0
    while alo + head < ahi - tail and blo + head < bhi - tail and a[ahi - tail - 1] == b[bhi - tail - 1]:
        tail += 1
    blocks = [(alo, blo, head)] if head else []
    if tail:
        blocks.append((ahi - tail, bhi - tail, tail))
    alo, blo, ahi, bhi = alo + head, blo + head, ahi - tail, bhi - tail
    if alo == ahi or blo == bhi:
        return blocks, []
    in_a, in_b = Counter(a[alo:ahi]), Counter(b[blo:bhi])
    where_b = {line: j for j, line in enumerate(b[blo:bhi], blo) if in_b[line] == 1 and in_a[line] == 1}
    pairs = [(i, where_b[line]) for i, line in enumerate(a[alo:ahi], alo) if line in where_b]
    chain = _longest_increasing(pairs)
    if not chain:
        return blocks, []
    gaps = []
    for i, j in chain:
        if alo < i and blo < j:
            gaps.append((alo, i, blo, j))
        blocks.append((i, j, 1))
        alo, blo = i + 1, j + 1
    if alo < ahi and blo < bhi:
        gaps.append((alo, ahi, blo, bhi))
    return blocks, gaps


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (increasing in their first item) increasing in
    the second too (patience sorting)."""
    tops: list[int] = []
    ends: list[int] = []
    before: list[int] = []
    for index, (_, j) in enumerate(pairs):
        pile = bisect.bisect_left(tops, j)
        before.append(ends[pile - 1] if pile else -1)
        if pile == len(tops):
            tops.append(j)
            ends.append(index)
        else:
            tops[pile] = j
            ends[pile] = index
    chain = []
    index = ends[-1] if ends else -1
    while index >= 0:
        chain.append(pairs[index])
        index = before[index]
    return chain[::-1]


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
        token = os.urandom(16).hex().encode()  # what secrets.token_hex(16) returns, without its imports
        stream.write(b"::stop-commands::" + token + b"\n")

    for old, new, path in diffs:
        for line, from_file in unified(old, new, path):
            if terminal and from_file:
                line = visible(line[:-1].decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape") + b"\n"
            stream.write(line)
    if token is not None:
        stream.write(b"::" + token + b"::\n")
    stream.flush()
