"""For the imports rule (``migrator.python.rules.imports``): a module-level import of a removed
name that has no replacement (``_compute_paged_keep_slots``), used only inside functions:
as an unsafe fix, the import moves into each function that uses it. Not a rule of its own:
how the statement's other names are split or renamed must agree with it, so the imports
rule decides both (``imports._split``).

Why: ``from sglang.srt.speculative.dflash_info import _compute_paged_keep_slots`` fails on
0.5.14+, so the module, and every module that imports it, cannot be imported, although
the helper is often called only on a V1-only path (a hook V2 never calls). Moved to the
top of each function that uses it, the module imports and only a call of such a function
fails, with the same ImportError the module-level import raised. The TODO stays above the
moved import and at each use (the references rule), so nothing looks resolved; a second
run sees a function-level import of the removed name and changes nothing.

Unsafe, not safe: on the target release a module that failed to import now imports, and
the failure moves to the first call of such a function, which may come much later or never.
The module's other top-level code now runs (registrations, side effects), and code that
tests for the module by catching that ImportError (``try: import pkg.kv`` / ``except
ImportError:``, possibly in a package the tool never sees) takes the other branch. A loud
failure at start-up becomes a latent one; only the user can say that the path is V1-only.
Without ``--unsafe-fixes`` the TODO above the module-level import is all that changes.

Never offered (the TODO above the module-level import is the only change) unless every
use is proven to move with it: the import is a statement of the module body (not in an
``if``/``try``/``with``) standing on lines of its own, its module is not renamed and no other
removed name shares it; the name is not in ``__all__``, no other fork module imports it from
this one (``migrator.python.forkindex``) and no fallback binds it; every other occurrence of the
name is a read inside a function body (not a decorator, default, annotation, class body or
module-level code), nothing else binds it, no attribute and no string of the module spells
it, and the module reads no namespace dynamically (``globals()``, ``vars()``, ``eval``,
``exec``); each such function's first statement (after its docstring) starts a line of its
own. Neighbours in the same statement that other fixes rename or split out are fine: the
cuts hold with and without ``--unsafe-fixes`` (``imports._split``).
"""

from __future__ import annotations

import ast

from migrator import catalog
from migrator.base.model import Fix, InsertComment, InsertStatementBefore, RemoveImportName, RemoveStatement, Span
from migrator.python.analysis import ImportedName, ImportFromInfo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from migrator.python.rules.context import RuleContext

DYNAMIC_NAMESPACE = frozenset({"globals", "vars", "locals", "eval", "exec", "__import__"})
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def movable(ctx: RuleContext, info: ImportFromInfo, imported: ImportedName,
            removed_in_statement: int) -> list[ast.FunctionDef | ast.AsyncFunctionDef] | None:
    """The functions using ``imported`` (a name without replacement) where its import can
    move into them (see the module docstring), else None."""
    analysis = ctx.analysis
    statement = info.statement
    local = imported.local
    if (info.guarded or removed_in_statement > 1 or not any(s is statement for s in analysis.tree.body)
            or local in analysis.shared_locals or local in analysis.alternative_names or analysis.is_exported(local)
            or not _stands_alone(ctx, statement) or (info.module and ctx.entry_named(info.module) is not None)):
        return None
    users: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    try:
        if not _reads_only_in_functions(analysis.tree, local, statement, None, users) or not users:
            return None
    except RecursionError:  # a hostile nesting depth: nothing is proven
        return None
    if not all(_starts_its_line(ctx, function, _first_statement(function)) for function in users):
        return None
    return users


def move_into_functions(ctx: RuleContext, info: ImportFromInfo, imported: ImportedName, entry: catalog.Entry,
                        users: list[ast.FunctionDef | ast.AsyncFunctionDef], remaining: list[int]) -> None:
    """Report ``imported`` with the unsafe fix that moves its import to the top of each of
    ``users``; ``remaining``: indexes of the names that stay in the statement after every fix."""
    analysis = ctx.analysis
    statement = info.statement
    todo = catalog.todo_comment(entry)
    name = imported.qualname.rpartition(".")[2]
    moved = f"from {'.' * info.level}{statement.module or ''} import {name}" + (
        f" as {imported.local}" if imported.has_asname else "")
    if remaining:
        index = next(i for i, other in enumerate(info.names) if other is imported)
        removal: RemoveStatement | RemoveImportName = RemoveImportName(
            Span.of(*imported.name_span), name_cut(analysis.lines, statement, index, remaining[-1], analysis.char_col))
    else:
        removal = RemoveStatement(ctx.span_of(statement))
    inserts = tuple(InsertStatementBefore(analysis.anchor_line(_first_statement(f)), f"{todo}\n{moved}") for f in users)
    where = ", ".join(f"`{function.name}`" for function in users)
    detail = (f"{entry.message}; only {where} {'uses' if len(users) == 1 else 'use'} it: the import can move there, "
              "so that the module imports and only a call fails (unsafe fix)")
    fallback = (InsertComment(analysis.anchor_line(statement), todo),)
    ctx.report(Span.of(*imported.name_span), entry, Fix("unsafe", (removal, *inserts), replacement=moved, fallback=fallback),
               detail)


def name_cut(lines: list[str], statement: ast.ImportFrom, index: int, last_kept: int, char_col) -> Span:  # noqa: ANN001
    """The text that leaves a ``from`` import with its ``index``-th name: its own lines where
    it stands on them, else the name and the comma before the next name (the comma before
    it when it comes after the last name that stays)."""
    names = statement.names
    starts = [(a.lineno, char_col(a.lineno, a.col_offset)) for a in names]
    ends = [(a.end_lineno, char_col(a.end_lineno, a.end_col_offset)) for a in names]
    own_line = _own_line(lines, starts[index], ends[index])
    if own_line is not None:
        return own_line
    if index < last_kept:
        return Span.of(*starts[index], *starts[index + 1])
    return Span.of(*ends[index - 1], *ends[index])


def _own_line(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> Span | None:
    """The whole lines of an imported name written on lines of its own (``    A,  # why``)."""
    rest = lines[end[0] - 1][end[1]:].strip()
    if lines[start[0] - 1][: start[1]].strip() or not rest.startswith(",") or (rest[1:].strip() and not rest[1:].strip().startswith("#")):
        return None
    return Span.of(start[0], 0, end[0] + 1, 0) if end[0] < len(lines) else None


def _stands_alone(ctx: RuleContext, statement: ast.stmt) -> bool:
    """Nothing but the statement (and a comment) on its lines, every name imported by name."""
    analysis = ctx.analysis
    line, col, end_line, end_col = analysis.span(statement)
    after = analysis.lines[end_line - 1][end_col:].strip()
    names = getattr(statement, "names", ())
    return (not analysis.lines[line - 1][:col].strip() and (not after or after.startswith("#"))
            and all(alias.name != "*" for alias in names))


def _reads_only_in_functions(node: ast.AST, name: str, skipped: ast.stmt, function: ast.AST | None,
                             users: list) -> bool:
    """Is every occurrence of ``name`` in ``node`` a read inside a function body? The
    innermost function of each read goes to ``users`` (once, in source order)."""
    if node is skipped or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                           and isinstance(node.value.value, str)):
        return True  # the import itself; a docstring
    if isinstance(node, FUNCTIONS):
        if node.name == name:
            return False
        header = [*node.decorator_list, node.args, *([node.returns] if node.returns else [])]
        return (all(_reads_only_in_functions(part, name, skipped, function, users) for part in header)  # run where defined
                and all(_reads_only_in_functions(statement, name, skipped, node, users) for statement in node.body))
    if not _allowed(node, name, function, users):
        return False
    return all(_reads_only_in_functions(child, name, skipped, function, users) for child in ast.iter_child_nodes(node))


def _allowed(node: ast.AST, name: str, function: ast.AST | None, users: list) -> bool:
    """Does this one node (not its children) keep the move correct?"""
    if isinstance(node, ast.Name):
        if node.id in DYNAMIC_NAMESPACE:
            return False
        if node.id == name:
            if not isinstance(node.ctx, ast.Load) or function is None:
                return False
            if not any(user is function for user in users):
                users.append(function)
        return True
    if isinstance(node, ast.Constant):
        return not (isinstance(node.value, str) and name in node.value)
    if isinstance(node, ast.Attribute):
        return node.attr != name
    if isinstance(node, ast.arg):
        return node.arg != name
    if isinstance(node, ast.alias):
        return (node.asname or node.name).partition(".")[0] != name and node.name != name
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return name not in node.names
    if isinstance(node, (ast.ClassDef, ast.ExceptHandler)):
        return node.name != name
    for field in ("name", "rest"):  # match captures: MatchAs, MatchStar, MatchMapping
        if type(node).__name__.startswith("Match") and getattr(node, field, None) == name:
            return False
    return True


def _first_statement(function: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.stmt:
    body = function.body
    docstring = (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                 and isinstance(body[0].value.value, str))
    return body[1] if docstring and len(body) > 1 else body[0]


def _starts_its_line(ctx: RuleContext, function: ast.AST, statement: ast.stmt) -> bool:
    """The statement (its first decorator) begins its line, below the ``def`` line, after
    nothing but spaces and tabs (the indentation the moved import copies)."""
    analysis = ctx.analysis
    first = min([statement, *getattr(statement, "decorator_list", ())], key=lambda node: (node.lineno, node.col_offset))
    line = first.lineno
    return line > function.lineno and not analysis.lines[line - 1][: analysis.char_col(line, first.col_offset)].strip(" \t")
