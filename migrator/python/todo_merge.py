"""One TODO per statement and rule, and one per fact in a function: what a reviewer reads.

The rules give each finding its own TODO comment above its statement. Where several
findings of one rule stand in one statement (three removed fields in one constructor call),
their TODOs become one: the first finding's words, then the names the others are about
("...; also `ctx_lens=`, `draft_seq_lens=`"), or, where their words differ beyond the name,
every finding's words joined. Where the same TODO would stand above several statements of
one function (the same removed attribute read five times), it is written once, above the
first, saying how many more follow. Every finding keeps a fix whose comment is the one
written, so the leftover-TODO check of a later run (``migrator.run.python_file``) still
finds each of them explained, and a second run writes nothing. Where one of the TODOs to
merge already stands above its statement (written by an older release, or carried by a
moved import), nothing is merged: the file keeps what it has.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Sequence

from migrator import catalog
from migrator.base.model import Finding, InsertComment
from migrator.edit import already_present, chosen_edits
from migrator.python.names import function_definitions

_FIRST_NAME = re.compile(r"`[^`]+`")


def merged(findings: list[Finding], tree: ast.Module, lines: Sequence[str], unsafe: bool) -> list[Finding]:
    """``findings`` with the TODO comments a fix run writes (``unsafe``: with unsafe fixes
    on, whose fallback TODOs are not written) merged as the module docstring says; ``lines``:
    the source's lines."""
    comments = [(edit.line, edit.text, finding.code) for finding in findings if finding.fix is not None
                for edit in chosen_edits([finding], unsafe)
                if isinstance(edit, InsertComment) and edit.text.startswith("# " + catalog.TODO_MARKER)]
    if len(comments) < 2:
        return findings
    by_statement: dict[tuple[int, str], list[str]] = defaultdict(list)
    for line, text, code in comments:
        if text not in by_statement[(line, code)]:
            by_statement[(line, code)].append(text)
    statement: dict[tuple[int, str], tuple[int, str]] = {}  # one TODO per statement and rule
    for (line, code), texts in by_statement.items():
        if len(texts) > 1 and not any(already_present(lines, line, text) for text in texts):
            joined = _joined(catalog.get(code), texts)
            statement.update({(line, text): (line, joined) for text in texts})
    lines_of: dict[str, set[int]] = defaultdict(set)
    for line, text, _ in comments:
        line, text = statement.get((line, text), (line, text))
        lines_of[text].add(line)
    repeated = {text for text, at in lines_of.items() if len(at) > 1}
    function_of = _functions(tree) if repeated else None  # the walk only where a TODO repeats
    by_fact: dict[tuple[int, str], list[int]] = defaultdict(list)  # one TODO per fact in a function
    for line, text, _ in sorted(comments):
        line, text = statement.get((line, text), (line, text))
        if text not in repeated:
            continue
        function = function_of(line)  # type: ignore[misc]
        if function is not None and line not in by_fact[(function, text)]:
            by_fact[(function, text)].append(line)
    fact: dict[tuple[int, str], tuple[int, str]] = {}
    for (_, text), anchors in by_fact.items():
        if len(anchors) > 1 and not any(already_present(lines, anchor, text) for anchor in anchors):
            said = _said_once(text, len(anchors) - 1)
            fact.update({(line, text): (anchors[0], said) for line in anchors})
    moved = {}
    for line, text, _ in comments:
        first = statement.get((line, text), (line, text))
        final = fact.get(first, first)
        if final != (line, text):
            moved[(line, text)] = final
    if not moved:
        return findings
    return [_moved(finding, moved) for finding in findings]


def _joined(entry: catalog.Entry, texts: list[str]) -> str:
    details = [catalog.todo_detail(entry, text) for text in texts]
    if any(detail is None for detail in details):
        return texts[0]
    first, *others = details
    names = [_FIRST_NAME.search(detail) for detail in details]
    if all(names) and len({_without(detail, name) for detail, name in zip(details, names)}) == 1:
        return catalog.todo_comment(entry, f"{first}; also {', '.join(name.group() for name in names[1:])}")
    return catalog.todo_comment(entry, "; ".join(details))


def _without(detail: str, name: re.Match[str] | None) -> str:
    return detail[:name.start()] + detail[name.end():] if name else detail


def _said_once(text: str, more: int) -> str:
    for entry in (catalog.get(code) for code in re.findall(r"DFM\d{3}", text)[:1]):
        detail = catalog.todo_detail(entry, text)
        if detail is not None:
            return catalog.todo_comment(entry, f"{detail}; the same in {more} more statement{'s' if more > 1 else ''} below in this function")
    return text


def _functions(tree: ast.Module):  # noqa: ANN202 - a closure: line -> innermost function's line, or None
    """Line -> the first line of the innermost function holding it (None: module level or
    a class body); a definition's own line (its TODO is about it) belongs to the outer one."""
    spans = sorted(_function_spans(tree))
    starts = [start for start, _ in spans]

    def function_of(line: int) -> int | None:
        index = bisect_right(starts, line - 1)  # functions starting above the line
        inner = None
        for start, end in spans[:index]:
            if start < line <= end and (inner is None or start > inner):
                inner = start
        return inner

    return function_of


def _function_spans(tree: ast.Module) -> list[tuple[int, int]]:
    """(first, last) line of every function."""
    return [(node.lineno, node.end_lineno or node.lineno) for node in function_definitions(tree)]


def _moved(finding: Finding, moved: dict[tuple[int, str], tuple[int, str]]) -> Finding:
    fix = finding.fix
    if fix is None:
        return finding

    def settled(edits: tuple) -> tuple:
        return tuple(InsertComment(*moved[(e.line, e.text)]) if isinstance(e, InsertComment) and (e.line, e.text) in moved
                     else e for e in edits)

    new = fix._replace(edits=settled(fix.edits), fallback=settled(fix.fallback))
    return finding if new == fix else finding._replace(fix=new)

