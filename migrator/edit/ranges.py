"""Offset ranges of a text: the overlap check and the one-pass splice that every applier of
:mod:`migrator.edit` ends with."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from migrator.base.model import RewriteError


def line_starts(lines: Sequence[str]) -> list[int]:
    """The offset where each of ``lines`` starts, and the text's end last."""
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    return starts


def check_overlaps(pieces: Sequence[tuple[int, int]], starts: Sequence[int]) -> None:
    """Raise where two of the (start, end) offset ranges, sorted and distinct, overlap,
    naming the line (of ``starts``, :func:`line_starts`) where the second begins."""
    for (_, end), (start, _) in zip(pieces, pieces[1:]):
        if end > start:
            raise RewriteError(f"overlapping edits at line {bisect_right(starts, start)}")


def splice_ranges(text: str, replacements: Sequence[tuple[int, int, str]]) -> str:
    """``text`` with each ``(start, end, new)`` offset range replaced, in one pass (a
    string rebuilt per edit is quadratic: minutes for a few MB of fixable lines).
    ``replacements`` are sorted by start and do not overlap."""
    pieces: list[str] = []
    position = 0
    for start, end, new in replacements:
        pieces.append(text[position:start])
        pieces.append(new)
        position = max(position, end)
    pieces.append(text[position:])
    return "".join(pieces)
