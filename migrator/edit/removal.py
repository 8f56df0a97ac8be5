"""Whole-line statement deletions (``RemoveStatement``) spliced as text, without libcst.

A deleted statement, or ``if`` block, that stands on lines of its own becomes its tombstone
comment lines (an import goes without a word), and the blank line it leaves beside another
is folded as ``migrator.edit.structural`` folds it: the same bytes, which
``tests/test_rewrite_paths.py`` compares on every layout it knows. Importing and running
libcst costs more than the rest of a fix of a small file (BENCHMARKS.md), and sglang's own
tree needs nothing else of it.

Only layouts whose libcst result is certain are spliced: every line between the deleted
statements and their neighbours is empty or a comment no deeper than the statement (so no
comment changes owner), no block is left empty (libcst writes a ``pass``), no other edit
touches those lines, and the file has LF line endings and space indentation there.
Anything else returns None, and the caller takes the libcst path.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from migrator import catalog
from migrator.base.model import (
    Edit,
    InsertComment,
    RemoveImportName,
    RemoveStatement,
    Replace,
)
from migrator.catalog.guide import DOC, pointer
from migrator.edit.comments import wrap

#: The edits that may stand beside a spliced deletion (the splice path's own kinds; a
#: statement inserted before or after another moves leading lines as libcst does: not here).
SPLICED_BESIDE = (Replace, InsertComment, RemoveImportName)
_GAP = re.compile(r"(?:[ ]*#[^\r\n]*)?\n")  # an empty line, or one holding only a comment
_LINE_END = re.compile(r"[ \t]*(?:#[^\r\n]*)?\n")  # after a statement that ends its line
_BRACKET_SPACE = re.compile(r"([(\[{]) | ([)\]}])")
_BODIES = ("body", "orelse", "finalbody")


def named(codes: Sequence[str]) -> str:
    """`` (DFM201)``, or with a published guide (``migrator.catalog.guide``) `` (DFM201; URL#dfm201)``:
    the relative MIGRATION.md is not named, the fork does not have it."""
    if not codes:
        return ""
    address = pointer()
    if address == DOC:
        return f" ({', '.join(codes)})"
    return f" ({', '.join(codes)}; {address}#{catalog.get(codes[0]).anchor})"


def removal_pieces(source: str, lines: Sequence[str], edits: Sequence[Edit],
                   width: int) -> list[tuple[int, int, str]] | None:
    """The (start, end, new text) offset ranges of ``source`` (split into ``lines``, endings
    kept) that delete ``edits``' ``RemoveStatement``s as libcst would, or None where this
    layout is left to libcst (the module docstring says which)."""
    removals = [edit for edit in edits if isinstance(edit, RemoveStatement)]
    if "\r" in source or not removals or not all(isinstance(e, (RemoveStatement, *SPLICED_BESIDE)) for e in edits):
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    wanted: dict[tuple[int, int, int, int], str] = {}
    for removal in removals:
        wanted.setdefault((removal.span.start.line, removal.span.start.column, removal.span.end.line,
                           removal.span.end.column), removal.code)
    spans = sorted((first, last) for first, _, last, _ in wanted)
    if any(start <= end for (_, end), (start, _) in zip(spans, spans[1:])):
        return None  # one inside another (a statement of a deleted block): libcst deletes the outer one
    found = _located(tree, lines, wanted)
    if found is None:
        return None
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    pieces: list[tuple[int, int, str]] = []
    touched: set[int] = set()
    for body, indices in found:
        if len(indices) == len(body):
            return None  # an emptied block gets a ``pass`` from libcst
        for run in _runs(sorted(indices)):
            made = _run_pieces(body, run, lines, starts, wanted, width, touched)
            if made is None:
                return None
            pieces.extend(made)
    if any(line in touched for edit in edits if not isinstance(edit, RemoveStatement) for line in _lines_of(edit)):
        return None
    return pieces


def _located(tree: ast.Module, lines: Sequence[str],
             wanted: dict[tuple[int, int, int, int], str]) -> list[tuple[list[ast.stmt], list[int]]] | None:
    """Each statement list holding a statement ``wanted`` names, with the indices of those
    statements in it; None unless every one is found, and is a deletion libcst makes
    (an assignment, an expression, an import, an ``if`` without ``else``)."""
    by_body: dict[int, tuple[list[ast.stmt], list[int]]] = {}
    left = set(wanted)
    for node in ast.walk(tree):
        for body in _bodies(node):
            for index, statement in enumerate(body):
                key = _key(statement, lines)
                if key in left:
                    if not _deletable(statement, lines):
                        return None
                    left.discard(key)
                    by_body.setdefault(id(body), (body, []))[1].append(index)
    return None if left else list(by_body.values())


def _bodies(node: ast.AST) -> list[list[ast.stmt]]:
    found = [getattr(node, field) for field in _BODIES if isinstance(getattr(node, field, None), list)]
    found += [handler.body for handler in getattr(node, "handlers", ())]
    found += [case.body for case in getattr(node, "cases", ())]
    return [body for body in found if body and isinstance(body[0], ast.stmt)]


def _key(node: ast.stmt, lines: Sequence[str]) -> tuple[int, int, int, int]:
    end = lines[node.end_lineno - 1] if node.end_lineno and node.end_lineno <= len(lines) else ""  # type: ignore[operator]
    end_column = node.end_col_offset if end.isascii() else len(end.encode("utf-8")[:node.end_col_offset].decode(
        "utf-8", errors="replace"))
    return (node.lineno, node.col_offset, node.end_lineno or 0, end_column or 0)


def _deletable(node: ast.stmt, lines: Sequence[str]) -> bool:
    """A statement libcst's applier deletes, alone on its lines, indented with spaces."""
    first, last = lines[node.lineno - 1], lines[node.end_lineno - 1]  # type: ignore[index]
    if first[:node.col_offset].strip(" ") or not last.endswith("\n"):
        return False
    if isinstance(node, ast.If):  # an ``elif`` or a block with ``else``: libcst's
        return not node.orelse and first.startswith("if", node.col_offset) and not isinstance(
            node.test, (ast.Tuple, ast.GeneratorExp))  # its parentheses are the test's own in ast, not in libcst
    if not isinstance(node, (ast.Assign, ast.Expr, ast.Import, ast.ImportFrom)):
        return False
    after = last.encode("utf-8")[node.end_col_offset:].decode("utf-8", errors="replace")
    return _LINE_END.fullmatch(after) is not None


def _runs(indices: list[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for index in indices:
        if runs and runs[-1][-1] == index - 1:
            runs[-1].append(index)
        else:
            runs.append([index])
    return runs


def _run_pieces(body: list[ast.stmt], run: list[int], lines: Sequence[str], starts: list[int],
                wanted: dict[tuple[int, int, int, int], str], width: int, touched: set[int]) -> list[tuple[int, int, str]] | None:
    """The pieces deleting the consecutive statements ``body[run]``: each becomes its
    tombstone lines; the lines libcst carries to the next statement (each one's leading
    lines and tombstone) lose their trailing empty lines where the next statement's own
    leading lines start with one (``structural._without_dropped``). ``touched``: every line
    the pieces may change, filled here."""
    indent = body[run[0]].col_offset
    previous_end = body[run[0] - 1].end_lineno if run[0] > 0 else None
    if previous_end is None:
        previous_end = _header_line(body[run[0]], lines)
        if previous_end is None:
            return None
    pieces: list[tuple[int, int, str]] = []
    carry: list[int | None] = []  # line numbers of carried empty lines; None: a comment line
    for index in run:
        node = body[index]
        gap = range(previous_end + 1, node.lineno)  # libcst's leading lines of this statement
        if not all(_gap_line(lines[number - 1], indent) for number in gap):
            return None
        carry.extend(number if not lines[number - 1].strip() else None for number in gap)
        notes = _tombstone(node, lines, wanted[_key(node, lines)], width)
        text = "".join(" " * indent + note + "\n" for note in notes)
        pieces.append((starts[node.lineno - 1], starts[node.end_lineno], text))  # type: ignore[index]
        carry.extend(None for _ in notes)
        touched.update(range(previous_end + 1, node.end_lineno + 1))  # type: ignore[operator]
        previous_end = node.end_lineno  # type: ignore[assignment]
    after = previous_end + 1
    following = after
    while following <= len(lines) and _GAP.fullmatch(lines[following - 1].lstrip(" ")):
        if not _gap_line(lines[following - 1], indent):
            return None  # a comment deeper than the statement: an ``if`` block's footer, perhaps
        following += 1
    if following <= len(lines) and (not lines[following - 1].strip() or lines[following - 1].lstrip().startswith("#")):
        return None  # a line of other blanks (tab, form feed) or a comment so indented: not judged here
    touched.update(range(after, following))
    # a next statement starts at ``following`` (its first decorator, for a definition): the
    # lines before it are its leading lines, and the first of them may fold with the carry
    if run[-1] + 1 < len(body) and following > after and not lines[after - 1].strip():
        while carry and carry[-1] is not None:
            number = carry.pop()
            pieces.append((starts[number - 1], starts[number], ""))  # type: ignore[index]
    return pieces


def _gap_line(line: str, indent: int) -> bool:
    """An empty line (no spaces: a line of spaces may be a block's footer), or a comment no
    deeper than ``indent``."""
    if line == "\n":
        return True
    stripped = line.lstrip(" ")
    return stripped.startswith("#") and len(line) - len(stripped) <= indent and _GAP.fullmatch(stripped) is not None


def _header_line(first: ast.stmt, lines: Sequence[str]) -> int | None:
    """The line before the first statement of a block where no line between holds code:
    the block's header line (``if x:``); None at the top of a module (libcst's module header
    takes those lines) or where the header's colon is not the end of its line."""
    number = first.lineno - 1
    while number >= 1 and _GAP.fullmatch(lines[number - 1].lstrip(" ")):
        number -= 1
    if number < 1:
        return None
    return number if lines[number - 1].split("#", 1)[0].rstrip().endswith(":") else None


def _tombstone(node: ast.stmt, lines: Sequence[str], code: str, width: int) -> list[str]:
    """The comment lines a deleted statement leaves (``structural._settled``,
    ``structural._removed_block``): none for an import."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return []
    if isinstance(node, ast.If):
        test = " ".join(_text(node.test, lines).split())
        return wrap(f"# dflash-migrate: removed the `if {test}:` block" + (f" ({code})" if code else ""),
                    node.col_offset, width)
    first = lines[node.lineno - 1]
    removed = (first[node.col_offset:] + "".join(lines[node.lineno:node.end_lineno])).strip()  # type: ignore[misc]
    if "\n" in removed:  # a statement over several lines: one comment line
        removed = _BRACKET_SPACE.sub(r"\1\2", " ".join(removed.split()))
    return wrap(f"# dflash-migrate: removed `{removed}`" + named(sorted({code} - {""})), node.col_offset, width)


def _text(node: ast.expr, lines: Sequence[str]) -> str:
    """The source of ``node`` (ast's columns are UTF-8 byte offsets)."""
    first, last = node.lineno, node.end_lineno or node.lineno
    encoded = [line.encode("utf-8") for line in lines[first - 1:last]]
    if len(encoded) == 1:
        return encoded[0][node.col_offset:node.end_col_offset].decode("utf-8", errors="replace")
    return b"".join([encoded[0][node.col_offset:], *encoded[1:-1], encoded[-1][:node.end_col_offset]]).decode(
        "utf-8", errors="replace")


def _lines_of(edit: Edit) -> range:
    if isinstance(edit, InsertComment):
        return range(edit.line, edit.line + 1)
    span = edit.span if isinstance(edit, Replace) else edit.cut  # type: ignore[union-attr]
    return range(span.start.line, span.end.line + 1)
