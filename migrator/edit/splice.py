"""Splice the edits chosen by the rules into a Python module (the entry: :func:`migrator.edit.apply`).

Span replacements of atom-like expressions and TODO comment lines -- nearly every edit a
migration makes -- are spliced at the exact spans found by the ``ast`` analysis, which
gives the same bytes libcst would (``tests/test_rewrite_paths.py``) without importing or
running libcst. Structural edits (keywords added to calls, list items, removed statements
and dict entries, new imports) go through libcst (``migrator.edit.structural``), matched to
nodes by position. Either way, an edit that cannot be applied aborts the rewrite of that
file (:class:`RewriteError`): it is left untouched and reported, never half-edited.
"""

from __future__ import annotations

import re
from collections import defaultdict

from migrator.base.fileio import declared_encoding
from migrator.base.lines import line_ending, split_lines
from migrator.base.model import (
    Edit,
    InsertComment,
    InsertStatementAfter,
    InsertStatementBefore,
    RemoveImportName,
    RemoveStatement,
    Replace,
    RewriteError,
)
from migrator.edit.ranges import check_overlaps, line_starts, splice_ranges
from migrator.edit.removal import removal_pieces

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence


def splice(data: bytes, source: str, edits: Sequence[Edit], removals: Sequence[tuple[int, int, str]] = ()) -> bytes:
    """Apply span replacements and TODO comment lines by splicing the exact spans.

    Used when every edit is a ``Replace`` of an atom-like expression (a name, a dotted
    name, a string literal, ``True``) at a span found by the analysis, or a comment line:
    splicing those spans gives the same bytes libcst would (``tests/test_rewrite_paths.py``
    checks that on every case) without parsing the whole module with libcst, which costs
    seconds on a 5,000-line file. ``removals``: the (start, end, text) offset ranges of
    statement deletions (``migrator.edit.removal``). Everything else structural goes
    through libcst.
    """
    lines = split_lines(source)
    starts = line_starts(lines)

    def offset(line: int, column: int) -> int:
        if not 1 <= line <= len(lines):
            raise RewriteError(f"edit outside the file (line {line})")
        return starts[line - 1] + column

    pieces: set[tuple[int, float, int, str]] = {(start, 1, end, text) for start, end, text in removals}
    above: dict[int, list[str]] = defaultdict(list)  # InsertStatementBefore texts by line, in edit order
    for edit in edits:
        if isinstance(edit, (Replace, RemoveImportName)):
            span = edit.span if isinstance(edit, Replace) else edit.cut
            start = offset(span.start.line, span.start.column)
            end = offset(span.end.line, span.end.column)
            pieces.add((start, 1, end, edit.text if isinstance(edit, Replace) else ""))
        elif isinstance(edit, InsertStatementAfter):
            offset(edit.span.end.line, 0)
            last = edit.span.end.line
            indent = lines[edit.span.start.line - 1][: edit.span.start.column]
            if indent.strip():
                raise RewriteError(f"statement at line {edit.span.start.line} does not start its line")
            ending = line_ending(lines[last - 1], "\n")
            at = starts[last]
            newline = "" if lines[last - 1].endswith(("\n", "\r")) else ending
            pieces.add((at, -1, at, f"{newline}{indent}{edit.text}{ending}"))  # above a TODO of the next line
        elif isinstance(edit, InsertStatementBefore) and edit.text not in above[edit.line]:
            offset(edit.line, 0)
            above[edit.line].append(edit.text)
    for line_number, texts in above.items():
        anchor = lines[line_number - 1]
        indent = anchor[: len(anchor) - len(anchor.lstrip(" \t"))]
        ending = line_ending(anchor, "\n")
        written = [line for text in texts for line in text.split("\n")]
        block = "".join(f"{indent}{line}{ending}" for line in written)
        if _IMPORT.match(written[-1]) and not _IMPORT.match(anchor.lstrip(" \t")):
            block += ending  # black's blank line below the imports
        at = starts[line_number - 1]
        pieces.add((at, -0.5, at, block))  # below what goes after the previous statement, above this one's TODOs
    ordered = sorted(pieces)
    check_overlaps([(start, end) for start, _, end, _ in ordered], starts)
    comments: dict[int, list[str]] = defaultdict(list)
    for edit in edits:
        if isinstance(edit, InsertComment) and edit.text not in comments[edit.line]:
            comments[edit.line].append(edit.text)
    for line_number, texts in comments.items():
        anchor = lines[line_number - 1] if 1 <= line_number <= len(lines) else None
        if anchor is None:
            raise RewriteError(f"comment anchor outside the file (line {line_number})")
        indent = anchor[: len(anchor) - len(anchor.lstrip(" \t"))]
        ending = line_ending(anchor, line_ending(lines[line_number - 2]) if line_number > 1 else "\n")
        block = "".join(f"{indent}{line}{ending}" for text in texts for line in text.split("\n"))
        ordered.append((starts[line_number - 1], 0, starts[line_number - 1], block))
    text = splice_ranges(source, [(start, end, replacement) for start, _, end, replacement in sorted(ordered)])
    return text.encode(declared_encoding(data))


_IMPORT = re.compile(r"(?:import|from)\s")


def spliced_removals(data: bytes, source: str, edits: Sequence[Edit], width: int) -> bytes | None:
    """The bytes of ``edits`` where they are statement deletions beside splice edits in a
    layout :mod:`migrator.edit.removal` splices as libcst would; else None (libcst's turn; the
    caller asks :func:`migrator.edit.always_libcst` first)."""
    if not any(isinstance(e, RemoveStatement) for e in edits):
        return None
    pieces = removal_pieces(source, split_lines(source), edits, width)
    if pieces is None:
        return None
    return splice(data, source, [e for e in edits if not isinstance(e, RemoveStatement)], pieces)
