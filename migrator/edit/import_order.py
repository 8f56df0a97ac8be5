"""Where an import the fix adds goes (issue 48): in its sorted place where the module's
imports are sorted, so that ruff's isort rules (``ruff check --select I``) and isort's
default profile accept the fixed file as they accepted it before; nowhere here where they
are not (libcst's ``AddImportsVisitor`` then appends it after the last import, and the
user's order is never changed).

Sorted means, for the module's leading import block (after the docstring): each run of
imports between blank lines (a section) holds its ``import x`` statements before its
``from x import y`` ones, each kind ordered by module name (case-insensitively, digits
by value; relative imports furthest first), the defaults of both tools; a top-level
package's imports stand in one run, and relative imports in none before an absolute one.
The new import's section is the run that already imports from its top-level package (or,
relative, the run of relative imports): which section a package belongs to depends on
the tools' settings, so where no run shows it the import is appended as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import libcst as cst

from migrator.base.model import AddImport

Key = tuple[int, int, tuple, str]


def _natural(text: str) -> tuple:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text.lower()))


def _dotted(node: cst.BaseExpression | None) -> str:
    if node is None:
        return ""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _key(statement: cst.BaseSmallStatement) -> Key | None:
    """(straight 0 / from 1, furthest relative first, module name) of an import; None else."""
    if isinstance(statement, cst.Import):
        module = _dotted(statement.names[0].name)
        return 0, 0, _natural(module), module
    if isinstance(statement, cst.ImportFrom):
        module = _dotted(statement.module)
        return 1, -len(statement.relative), _natural(module), "." * len(statement.relative) + module
    return None


def _import_block(module: cst.Module) -> list[tuple[int, Key, bool]]:
    """(index in ``module.body``, key, starts a run) of each leading import statement."""
    body, start, block = module.body, 0, []
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr):
        start = 1  # the docstring
    for index in range(start, len(body)):
        line = body[index]
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or _key(line.body[0]) is None:
            break
        opens = any(isinstance(empty, cst.EmptyLine) and empty.comment is None for empty in line.leading_lines)
        block.append((index, _key(line.body[0]), opens or not block))
    return block


def _runs(block: list[tuple[int, Key, bool]]) -> list[list[tuple[int, Key, bool]]]:
    runs: list[list[tuple[int, Key, bool]]] = []
    for item in block:
        if item[2]:
            runs.append([])
        runs[-1].append(item)
    return runs


def _group(key: Key) -> str:
    """What puts an import in a section here: its top-level package, or "." (relative)."""
    name = key[3]
    return "." if name.startswith(".") else name.split(".")[0]


def _sorted(runs: list[list[tuple[int, Key, bool]]]) -> bool:
    seen: dict[str, int] = {}
    for number, run in enumerate(runs):
        keys = [key[:3] for _, key, _ in run]
        if keys != sorted(keys):
            return False
        for _, key, _ in run:
            if seen.setdefault(_group(key), number) != number:
                return False
    relative = [number for number, run in enumerate(runs) if any(_group(key) == "." for _, key, _ in run)]
    return all(number == len(runs) - 1 for number in relative)


def sorted_position(module: cst.Module, item: AddImport) -> int | None:
    """The index in ``module.body`` where ``item`` keeps a sorted import block sorted, or
    None (not sorted, no run shows its section, or the module already imports from it)."""
    block = _import_block(module)
    if any(isinstance(s, cst.ImportFrom) and key[3] == "." * item.relative + item.module
           for index, key, _ in block for s in module.body[index].body):
        return None  # libcst adds the name to that statement
    new = (1, -item.relative, _natural(item.module), "." * item.relative + item.module)
    runs = _runs(block)
    run = next((r for r in runs if any(_group(key) == _group(new) for _, key, _ in r)), None)
    if run is None or not _sorted(runs):
        return None
    after = [index for index, key, _ in run if key[:3] <= new[:3]]
    return after[-1] + 1 if after else run[0][0]


def place(module: cst.Module, items: Sequence[AddImport]) -> tuple[cst.Module, list[AddImport]]:
    """``module`` with each of ``items`` that has a sorted place inserted there, and the
    items left for libcst's ``AddImportsVisitor``."""
    left: list[AddImport] = []
    for item in items:
        index = sorted_position(module, item)
        if index is None:
            left.append(item)
            continue
        text = f"from {'.' * item.relative}{item.module} import {item.name}{module.default_newline}"
        statement = cst.parse_statement(text, config=module.config_for_parsing)
        body = list(module.body)
        if index < len(body) and index == _run_start(module, index):
            blanks, rest = _split_leading(body[index].leading_lines)
            statement = statement.with_changes(leading_lines=blanks)
            body[index] = body[index].with_changes(leading_lines=rest)
        body.insert(index, statement)
        module = module.with_changes(body=body)
    return module, left


def _run_start(module: cst.Module, index: int) -> int | None:
    """``index`` if the statement there opens its run, else None."""
    return next((i for i, _, opens in _import_block(module) if i == index and opens), None)


def _split_leading(lines: Sequence[cst.EmptyLine]) -> tuple[list[cst.EmptyLine], list[cst.EmptyLine]]:
    """(the blank lines before the first comment, the rest): the blank lines open the run,
    a comment stays with the statement it stands above."""
    count = next((n for n, line in enumerate(lines) if line.comment is not None), len(lines))
    return list(lines[:count]), list(lines[count:])
