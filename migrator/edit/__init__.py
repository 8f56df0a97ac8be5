"""The one entry that applies edits, for Python and text files alike: :func:`apply` (a
Python module's bytes) and :func:`apply_text` (a text file's decoded text).

One contract for both:

* identical edits count once;
* two different edits that overlap raise :class:`RewriteError` naming the line of the
  second: the file is left unchanged and reported (a silently skipped edit could leave a
  statement half migrated);
* an edit outside the file raises;
* a TODO comment is already present when the same text stands in the comment block
  directly above its line (:func:`already_present`), and is then not written again.

Python edits are spliced where they are atom-like (``migrator.edit.splice``) or whole-line
statement deletions in a plain layout (``migrator.edit.removal``), and go through libcst
where they are structural (``migrator.edit.structural``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence

from migrator.base.fileio import declared_encoding
from migrator.base.lines import split_lines
from migrator.base.model import (
    Edit,
    Finding,
    Fix,
    InsertComment,
    InsertStatementAfter,
    InsertStatementBefore,
    RemoveImportName,
    RemoveStatement,
    Replace,
    RewriteError,
)
from migrator.base.patterns import on_first_use
from migrator.edit.comments import DEFAULT_LINE_LENGTH, logical, same_todo, wrap
from migrator.edit.ranges import check_overlaps, line_starts, splice_ranges


def chosen_edits(findings: Iterable[Finding], unsafe: bool) -> list[Edit]:
    """The edits a fix run writes for ``findings``: each fix's edits (a manual one's are its
    TODO), an unsafe fix's fallback (its TODO) unless unsafe fixes are on."""
    edits: list[Edit] = []
    for finding in findings:
        fix = finding.fix
        if fix is not None:
            edits.extend(edit._replace(code=finding.code) if isinstance(edit, RemoveStatement) and not edit.code else edit
                         for edit in (fix.fallback if fix.applicability == "unsafe" and not unsafe else fix.edits))
    return edits


def applied(fix: Fix | None, unsafe: bool) -> bool:
    """Is this fix applied by a fix run (not only its TODO added)? Counted as a fix even
    where its edits stand in another finding's fix (one edit serves both)."""
    return fix is not None and (fix.applicability == "safe" or (fix.applicability == "unsafe" and unsafe))


def already_present(lines: Sequence[str], line: int, text: str) -> bool:
    """Is the comment ``text`` among the comment lines directly above ``line`` (1-based)?
    The block is every line just above that starts with the comment's own marker (``#``,
    ``<!--``), so a TODO two comment lines up is found, and one below a blank line is not;
    a comment wrapped over several lines (``migrator.edit.comments``) is found at any width."""
    wanted = same_todo(text)
    marker = wanted.split(None, 1)[0] if wanted else ""
    top = line - 1
    while marker and 0 < top <= len(lines) and lines[top - 1].lstrip().startswith(marker):
        top -= 1
    index = top
    while index < line - 1:
        found, last = logical(lines, index)
        if same_todo(found) == wanted:
            return True
        index = last + 1
    return False


def wrapped(lines: Sequence[str], edits: Iterable[Edit], width: int) -> list[Edit]:
    """``edits`` with each comment, and each comment line of a statement put above another,
    wrapped to ``width`` at the indentation of the line it goes above (its text then holds
    one line per written line, joined by newlines)."""
    result: list[Edit] = []
    for edit in edits:
        if isinstance(edit, (InsertComment, InsertStatementBefore)) and 1 <= edit.line <= len(lines):
            anchor = lines[edit.line - 1]
            indent = len(anchor) - len(anchor.lstrip(" \t"))
            # a statement put above another (a moved import) may carry its own TODO line
            edit = edit._replace(text="\n".join(part for line in edit.text.split("\n") for part in wrap(line, indent, width)))
        result.append(edit)
    return result


def new_comments(lines: Sequence[str], edits: Iterable[Edit]) -> list[InsertComment]:
    """The comment insertions of ``edits`` that write a line: each (line, text) once, none
    already present."""
    seen: set[tuple[int, str]] = set()
    kept = []
    for edit in edits:
        if isinstance(edit, InsertComment) and (edit.line, edit.text) not in seen:
            seen.add((edit.line, edit.text))
            if not already_present(lines, edit.line, edit.text):
                kept.append(edit)
    return kept


def needs_libcst(edits: Sequence[Edit]) -> bool:
    """Structural edits (or ``DFLASH_MIGRATE_ALWAYS_LIBCST=1``) need the libcst path (a
    statement deletion may be spliced all the same: ``migrator.edit.splice.spliced_removals``)."""
    return always_libcst() or not all(
        isinstance(e, (Replace, InsertComment, RemoveImportName, InsertStatementAfter, InsertStatementBefore)) for e in edits)


def always_libcst() -> bool:
    return bool(os.environ.get("DFLASH_MIGRATE_ALWAYS_LIBCST"))


def apply(data: bytes, edits: Sequence[Edit], source: str | None = None, width: int = DEFAULT_LINE_LENGTH) -> bytes:
    """A Python module's bytes after ``edits``; raises :class:`RewriteError` if any edit does
    not apply. ``source``: the decoded text of ``data`` when the caller already has it;
    ``width``: the project's line length, which comments are wrapped to."""
    from migrator.edit.splice import splice, spliced_removals

    if source is None:
        source = data.decode(declared_encoding(data))
    lines = [line.rstrip("\r\n") for line in split_lines(source)]
    comments = set(new_comments(lines, edits))
    edits = wrapped(lines, [e for e in edits if not isinstance(e, InsertComment) or e in comments], width)
    if not edits:
        return data
    if not needs_libcst(edits):
        new = splice(data, source, edits)
    else:
        spliced = None if always_libcst() else spliced_removals(data, source, edits, width)
        if spliced is None:
            from migrator.edit.structural import apply_with_libcst

            spliced = apply_with_libcst(data, edits, width)
        new = spliced
    # a file whose imports keep within the line length (black's, isort's layout) keeps them
    # within it; one that writes longer imports keeps its style
    if any(isinstance(e, Replace) for e in edits) and not any(
            len(line) > width for line in lines if _ONE_LINE_FROM().match(line)):
        return imports_laid_out(new, set(lines), width, declared_encoding(data))
    return new


_ONE_LINE_FROM = on_first_use(r"^([ \t]*)(from[ \t]+[\w.]+[ \t]+import)[ \t]+([\w., \t]+?)[ \t]*(\r?\n|\r|$)", re.M)


def imports_laid_out(data: bytes, kept: set[str], width: int, encoding: str) -> bytes:
    """``data`` with each one-line ``from M import a as b`` the edits wrote (a line not among
    ``kept``, the original's lines) that is longer than ``width`` laid out as black and ruff
    format lay it out: one name a line in parentheses, with a trailing comma."""
    text = data.decode(encoding)

    def laid_out(match: re.Match[str]) -> str:
        indent, head, names, ending = match.groups()
        whole = match.group(0).rstrip("\r\n")
        if len(whole) <= width or whole in kept:
            return match.group(0)
        ending = ending or "\n"
        inner = "".join(f"{indent}    {name.strip()},{ending}" for name in names.split(",") if name.strip())
        return f"{indent}{head} ({ending}{inner}{indent}){match.group(4)}"

    new = _ONE_LINE_FROM().sub(laid_out, text)
    return data if new == text else new.encode(encoding)


def apply_text(text: str, edits: Iterable[Edit], reader: str = "python", width: int = DEFAULT_LINE_LENGTH) -> str:
    """``text`` after ``Replace``, ``RemoveStatement`` and ``InsertComment`` edits; lines are
    counted as the file type's reader counts them (``migrator.base.lines.split_lines``);
    comments are wrapped to ``width``."""
    lines = split_lines(text, reader)
    starts = line_starts(lines)
    newline = "\r\n" if "\r\n" in text else "\n"

    def offset(line: int, column: int) -> int:
        # the end of the last line is line len + 1, column 0
        if not 1 <= line <= len(lines) + 1 or (line == len(lines) + 1 and column):
            raise RewriteError(f"edit outside the file (line {line})")
        return starts[line - 1] + column

    edits = list(edits)
    ops: dict[tuple[int, int, str], None] = {}  # identical edits once, in the order given
    for edit in edits:
        if isinstance(edit, Replace):
            ops[(offset(edit.span.start.line, edit.span.start.column), offset(edit.span.end.line, edit.span.end.column),
                 edit.text)] = None
        elif isinstance(edit, RemoveStatement):
            first, last = edit.span.start.line, edit.span.end.line
            # A line removed from between two blank lines takes one of them along, so the
            # file does not gain a double blank line where the setting was.
            if 1 < first and last < len(lines) and not lines[first - 2].strip() and not lines[last].strip():
                last += 1
            ops[(offset(first, 0), offset(last + 1, 0), "")] = None
    bare = [line.rstrip("\r\n") for line in lines]
    for edit in new_comments(bare, edits):
        target = lines[edit.line - 1] if edit.line <= len(lines) else ""
        indent = target[: len(target) - len(target.lstrip(" \t"))]
        at = offset(edit.line, 0)
        ops[(at, at, "".join(indent + line + newline for line in wrap(edit.text, len(indent), width)))] = None
    ordered = sorted(ops, key=lambda op: (op[0], op[1]))
    check_overlaps([(start, end) for start, end, _ in ordered], starts)
    return splice_ranges(text, ordered)
