"""gitignore-style globs (``exclude``, ``per-file-ignores``, ``.gitignore`` files) compiled by
pathspec, with its git semantics, into patterns whose matching takes linear time whatever
a hostile tree writes (:func:`linear_spec`, through ``migrator.base.options.compile_ignore``).

pathspec turns each ``*`` into ``[^/]*``: ``****...x`` or ``*a*a*a...b`` in a scanned tree's
``.gitignore`` (or in ``exclude``) then backtracks for minutes on one 30-character name.
Here runs of ``*`` count as one, and every ``*`` but a segment's last is matched as "skip to
the leftmost place the next piece fits", with no way back (an atomic group): right for
globs, whose pieces between stars each match a fixed number of characters, so the leftmost
fit never loses a match. ``**`` likewise (:func:`_leftmost_folders`).

Imported where a glob is compiled: pathspec costs a run that compiles none.
"""

from __future__ import annotations

import itertools
import re
import sys

import pathspec

try:
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern as _Base
except ImportError:  # pathspec < 1.0
    from pathspec.patterns.gitwildmatch import GitWildMatchPattern as _Base

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence


def linear_spec(lines: Sequence[str]) -> pathspec.GitIgnoreSpec:
    """A ``pathspec.GitIgnoreSpec`` of ``lines`` made of :class:`LinearPattern`."""
    return pathspec.GitIgnoreSpec.from_lines(lines, LinearPattern)


def _split_stars(glob: str) -> list[str]:
    """``glob`` split at each run of unescaped ``*`` outside a bracket expression."""
    pieces, current, i = [], [], 0
    while i < len(glob):
        char = glob[i]
        if char == "\\":
            current.append(glob[i:i + 2])
            i += 2
            continue
        if char == "[":
            j = i + 1
            if j < len(glob) and glob[j] in "!^":
                j += 1
            if j < len(glob) and glob[j] == "]":
                j += 1
            close = glob.find("]", j)
            if close >= 0:
                current.append(glob[i:close + 1])
                i = close + 1
                continue
        if char == "*":
            pieces.append("".join(current))
            current = []
            while i < len(glob) and glob[i] == "*":
                i += 1
            continue
        current.append(char)
        i += 1
    pieces.append("".join(current))
    return pieces


#: How pathspec spells ``**`` inside a pattern (a leading ``**/``, an inner ``/**/``): any
#: number of whole folders, by ``.+``, so that several of them backtrack into each other.
_ANY_FOLDERS = r"(\(\?:\.\+/\)\?|\(\?:/\.\+\)\?)"  # compiled on first use (``re``'s cache)


def _leftmost_folders(regex: str) -> str:
    """pathspec's ``regex`` with every ``**`` but the last matched without a way back.

    Each ``**`` is ``.+``, so ``**/a/**/a/**/a/**/b`` against a 60-folder path tries every
    way to split the folders (n^4 here, minutes for a walk). Between two ``**`` stand
    whole-folder globs, each matching exactly one folder, so the leftmost place where
    that piece fits (ending before a ``/``) never loses a match: the next ``**`` takes
    up any folders in between. The last ``**`` stays pathspec's (greedy, one scan), so the
    match, and its directory mark, are pathspec's.
    """
    parts = re.split(_ANY_FOLDERS, regex)
    if len(parts) <= 3:
        return regex
    out = [parts[0]]
    for token, piece in zip(parts[1:-2:2], parts[2:-2:2]):
        folders = "(?:[^/]+/)*?" if token == "(?:.+/)?" else "(?:/[^/]+)*?"
        out.append(_atomic(f"{folders}{piece}(?=/)"))
    out += parts[-2:]
    return "".join(out)


_NAMES = itertools.count()


def _atomic(body: str) -> str:
    """``body`` matched with no way back: an atomic group, or before 3.11 a lookahead and a
    backreference (the same)."""
    if sys.version_info >= (3, 11):
        return f"(?>{body})"
    name = f"dfm{next(_NAMES)}"
    return f"(?=(?P<{name}>{body}))(?P={name})"


def _skip_to(piece: str) -> str:
    return _atomic(f"[^/]*?{piece}")


class LinearPattern(_Base):  # type: ignore[misc, valid-type]
    """pathspec's git pattern, its stars and ``**`` matched in linear time."""

    __slots__ = ()

    @classmethod
    def pattern_to_regex(cls, pattern: str) -> tuple[str | None, bool | None]:
        regex, include = super().pattern_to_regex(pattern)
        if isinstance(regex, str):
            regex = _leftmost_folders(regex)
        return regex, include

    @staticmethod
    def _translate_segment_glob(pattern: str, *args: object) -> str:
        pieces = [_Base._translate_segment_glob(piece, *args) for piece in _split_stars(pattern)]
        if len(pieces) == 1:
            return pieces[0]
        middle = "".join(_skip_to(piece) for piece in pieces[1:-1] if piece)
        return pieces[0] + middle + "[^/]*" + pieces[-1]
