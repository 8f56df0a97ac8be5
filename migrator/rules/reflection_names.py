"""Removed names spelled as strings where code reaches sglang's V1 objects by name.

* ``getattr``/``hasattr``/``setattr``/``delattr`` on the V1 worker class (or
  ``DFlashVerifyInput``, or an instance of either) with a removed member's name, written
  directly or in a tuple/list of names that a ``for`` loop feeds into the call (the
  tuple in the loop, or a name assigned one literal tuple/list in the module or the
  function): the member's code (DFM105-DFM108), reported at the name's string;
* equality and membership tests against removed names (``node.name == "DFlashWorker"``,
  ``name in ("DFlashDraftInput", "_compute_paged_keep_slots")``, as in code inspecting
  sglang's source with ``ast``): removed classes and functions always; a removed member
  only in a file that also names its class (``forward_batch_generation`` is also the V2
  and NGRAM workers' method);
* path strings naming the removed module's file (``sglang/srt/speculative/dflash_worker.py``),
  with the text scanner's spelling (another package's file of that name does not match).

All are TODOs: the string may be compared with or looked up on something else.
Instances with a literal name are ``worker_subclass``'s.
"""

from __future__ import annotations

import ast
from functools import cache

from .. import catalog
from ..model import Fix, InsertComment
from .context import Rule, RuleContext, outer_literal, span_in_literal

REFLECTION = frozenset({"getattr", "hasattr", "setattr", "delattr"})
_COMPARISONS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)


@cache
def _member_entries() -> dict[str, list[catalog.Entry]]:
    """Removed member name -> the entries naming it (on their owner class)."""
    table: dict[str, list[catalog.Entry]] = {}
    for entry in catalog.entries_of_kind("method", "attribute"):
        if entry.owner_class and entry.replacement_for(catalog.NEWEST_RELEASE) != entry.old:
            for name in entry.names:
                table.setdefault(name.rpartition(".")[2], []).append(entry)
    return table


@cache
def _named_entries() -> dict[str, catalog.Entry]:
    """Last name of a removed class or function -> its entry: the first entry with that name,
    the class's own home (DFM103's ``dflash_info.DFlashDraftInput``, not DFM314's re-export)."""
    table: dict[str, catalog.Entry] = {}
    for entry in catalog.entries_of_kind("class", "function"):
        table.setdefault(entry.old.rpartition(".")[2], entry)
    return table


def check(ctx: RuleContext) -> None:
    members = _member_entries()
    resolved = {id(node): qualname for node, qualname, _ in ctx.analysis.references} if ctx.analysis.reflection else {}
    reported: set[tuple[int, str]] = set()
    for call, types in ctx.analysis.reflection:
        if len(call.args) >= 2:
            _check_reflection(ctx, call, types, resolved, members, reported)
    named = _named_entries()
    for node in ctx.analysis.strings:
        if node.value in named or node.value in members:
            _check_comparison(ctx, node, named, members)
        if _PATH_HINT in node.value:
            _check_path(ctx, node)


def _receiver_types(ctx: RuleContext, receiver: ast.expr, types: frozenset[str], resolved: dict[int, str]) -> frozenset[str]:
    qualname = resolved.get(id(receiver))
    return types | (ctx.analysis.ancestors(qualname) if qualname else frozenset())


def _check_reflection(ctx: RuleContext, call: ast.Call, types: frozenset[str], resolved: dict[int, str],
                      members: dict[str, list[catalog.Entry]], reported: set[tuple[int, str]]) -> None:
    owners = _receiver_types(ctx, call.args[0], types, resolved)
    if not owners:
        return
    name = call.args[1]
    if isinstance(name, ast.Constant) and isinstance(name.value, str):
        if not types:  # on instances: worker_subclass
            _report_member(ctx, name, owners, members, call, reported)
    elif isinstance(name, ast.Name):
        for constant in _loop_names(ctx, call, name.id):
            _report_member(ctx, constant, owners, members, call, reported)


def _report_member(ctx: RuleContext, constant: ast.Constant, owners: frozenset[str],
                   members: dict[str, list[catalog.Entry]], call: ast.Call, reported: set[tuple[int, str]]) -> None:
    for entry in members.get(constant.value, ()):
        if entry.owner_class in owners and ctx.entry(entry.code) is not None and (id(constant), entry.code) not in reported:
            reported.add((id(constant), entry.code))
            function = call.func.id  # type: ignore[attr-defined]
            ctx.todo(constant, entry, f"`{function}(..., {constant.value!r})`: {entry.message}")
            return


def _loop_names(ctx: RuleContext, call: ast.Call, variable: str) -> list[ast.Constant]:
    """String constants a ``for variable in ...`` around ``call`` iterates over."""
    parents = ctx.analysis.parents
    node: ast.AST | None = call
    while node is not None and not (isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.target, ast.Name)
                                    and node.target.id == variable):
        node = parents.get(node)
    if node is None:
        return []
    iterated = node.iter  # type: ignore[attr-defined]
    if isinstance(iterated, ast.Name):
        iterated = _single_literal(ctx, node, iterated.id)
    if not isinstance(iterated, (ast.Tuple, ast.List, ast.Set)):
        return []
    return [e for e in iterated.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]


def _single_literal(ctx: RuleContext, loop: ast.AST, name: str) -> ast.expr | None:
    """The one tuple/list/set literal assigned to ``name`` in the module or the loop's function."""
    bodies = [ctx.analysis.tree.body]
    node: ast.AST | None = loop
    while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        node = ctx.analysis.parents.get(node)
    if node is not None:
        bodies.append(node.body)  # type: ignore[attr-defined]
    values = [statement.value for body in bodies for statement in body
              if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None
              and any(isinstance(t, ast.Name) and t.id == name
                      for t in (statement.targets if isinstance(statement, ast.Assign) else [statement.target]))]
    return values[0] if len(values) == 1 else None


def _check_comparison(ctx: RuleContext, node: ast.Constant, named: dict[str, catalog.Entry],
                      members: dict[str, list[catalog.Entry]]) -> None:
    parent = ctx.analysis.parents.get(node)
    if isinstance(parent, (ast.Tuple, ast.List, ast.Set)):
        parent = ctx.analysis.parents.get(parent)
    if not (isinstance(parent, ast.Compare) and all(isinstance(op, _COMPARISONS) for op in parent.ops)):
        return
    entry = named.get(node.value)
    if entry is None:
        entry = next((e for e in members[node.value]
                      if e.owner_class.rpartition(".")[2] in ctx.analysis.source.replace(node.value, "")), None)
    if entry is not None and ctx.entry(entry.code) is not None:
        ctx.todo(node, entry, f"compares a name with {node.value!r}: {entry.message}")


_PATH_HINT = "/" + catalog.DFLASH_WORKER.rpartition(".")[2] + ".py"


def _check_path(ctx: RuleContext, node: ast.Constant) -> None:
    from ..textrules.mentions import module_path_offsets

    entry = ctx.entry("DFM101")
    literal = outer_literal(ctx, node)
    if entry is None or ctx.analysis.is_guarded(literal):
        return
    for start, end in module_path_offsets(ctx.analysis.segment(literal)):
        span = span_in_literal(ctx, literal, start, end)
        fix = Fix("manual", (InsertComment(ctx.analysis.anchor_line(literal), catalog.todo_comment(entry)),))
        ctx.report(span, entry, fix, f"path of the removed module's file: {entry.message}")


RULE = Rule(
    "reflection_names", 510, check,
    shares=catalog.codes_of_kind("module", "class", "function", "method", "attribute"),
    why="removed names spelled as strings where code reaches the V1 objects by name (``getattr``, "
    "name comparisons, file paths); each name's own code, as the rule that finds it in code uses",
)
