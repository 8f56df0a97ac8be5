"""Offset ranges of a text: the overlap check and the one-pass splice that every applier of
:mod:`migrator.edit` ends with."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from migrator.base.model import RewriteError


def check_overlaps(pieces: Sequence[tuple[int, int]], line_at: Callable[[int], int]) -> None:
    """Raise where two of the (start, end) offset ranges, sorted and distinct, overlap;
    ``line_at(offset)`` names the line of the second."""
    for (_, end), (start, _) in zip(pieces, pieces[1:]):
        if end > start:
            raise RewriteError(f"overlapping edits at line {line_at(start)}")


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
