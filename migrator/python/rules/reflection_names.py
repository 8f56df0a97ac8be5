"""Removed members named by strings where code reaches sglang's V1 objects by name.

``getattr``/``hasattr``/``setattr``/``delattr``/``mock.patch.object`` on the V1 worker class (or
``DFlashVerifyInput``, or an instance of either) with a removed member's name, written directly
or as data that reaches the call: a ``for`` loop over a tuple/list of names, a tuple of tuples it
unpacks, a dict (its keys or ``.items()``), or a lookup ``TABLE[key]``, the display in the loop or
assigned once in the module or the function: the member's code (DFM105-DFM108), a TODO at the
name's string (it may be looked up on something else). On a receiver of unknown type only names
that say V1 by themselves count: a distinctive member (``getattr(batch, "is_spec_v2", False)``)
or a private V1 method of a class the file reaches (``_prepare_for_speculative_decoding`` beside
``DFlashWorker``). Instances with a literal name are ``worker_subclass``'s; names compared with
strings and file paths ``name_comparisons``'.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from functools import cache

from migrator import catalog
from migrator.python.rules.context import Examples, Rule, RuleContext, enclosing_function, removed_members


def check(ctx: RuleContext) -> None:
    resolved = {id(node): qualname for node, qualname, _ in ctx.analysis.references} if ctx.analysis.reflection else {}
    reported: set[tuple[int, str]] = set()
    reached = cache(lambda: _reached(ctx, resolved))  # once per file, only where a receiver is unknown
    for call, types in ctx.analysis.reflection:
        if len(call.args) >= 2:
            _check_reflection(ctx, call, types, resolved, reported, reached)


def _check_reflection(ctx: RuleContext, call: ast.Call, types: frozenset[str], resolved: dict[int, str],
                      reported: set[tuple[int, str]], reached: Callable[[], frozenset[str]]) -> None:
    qualname = resolved.get(id(call.args[0]))
    owners = types | (ctx.analysis.ancestors(qualname) if qualname else frozenset())
    known = bool(owners)  # else a receiver of unknown type may be a class the file reaches by name
    name = call.args[1]
    if isinstance(name, ast.Constant) and isinstance(name.value, str):
        if not types:  # on instances: worker_subclass
            _report_member(ctx, name, owners or reached(), call, reported, known)
    else:
        for constant in _data_names(ctx, call, name):
            _report_member(ctx, constant, owners or reached(), call, reported, known)


def _reached(ctx: RuleContext, resolved: dict[int, str]) -> frozenset[str]:
    """The classes (with their bases) the file imports or names."""
    analysis = ctx.analysis
    named = {*resolved.values(), *(n.qualname for n in analysis.imports),
             *(n.qualname for info in analysis.import_froms for n in info.names)}
    return frozenset().union(*(analysis.ancestors(q) for q in named))


def _report_member(ctx: RuleContext, constant: ast.Constant, owners: frozenset[str], call: ast.Call,
                   reported: set[tuple[int, str]], known: bool) -> None:
    """``known``: the receiver's type is known; else only names no other class has (a
    distinctive member needing no cue, or a private V1 method of a class the file reaches) count."""
    for entry in removed_members().get(constant.value, ()):
        matches = entry.owner_class in owners and (known or constant.value.startswith("_"))
        if (matches or (not known and entry.distinctive and not entry.cues)) and ctx.entry(entry.code) is not None \
                and (id(constant), entry.code) not in reported:
            reported.add((id(constant), entry.code))
            ctx.todo(constant, entry, f"`{ctx.analysis.segment(call.func)}(..., {constant.value!r})`: {entry.message}")
            return


def _data_names(ctx: RuleContext, call: ast.Call, name: ast.expr) -> list[ast.Constant]:
    """String constants that reach ``call``'s name argument as data: a ``for`` variable over a
    literal (a tuple of names, a tuple of tuples, a dict or its ``.items()``), or a lookup in
    a dict literal (``getattr(cls, TABLE[key])``), in the same function or module."""
    if isinstance(name, ast.Subscript):
        table = _literal(ctx, call, name.value)
        return [v for v in table.values if _is_text(v)] if isinstance(table, ast.Dict) else []
    if isinstance(name, ast.Name):
        return _loop_names(ctx, call, name.id)
    return []


def _loop_names(ctx: RuleContext, call: ast.Call, variable: str) -> list[ast.Constant]:
    """String constants a ``for`` around ``call`` binds ``variable`` to (alone or unpacked)."""
    parents = ctx.analysis.parents
    node: ast.AST | None = call
    index = None
    while node is not None:
        if isinstance(node, (ast.For, ast.AsyncFor)):
            index = _position(node.target, variable)
            if index is not None:
                break
        node = parents.get(node)
    if node is None or index is None:
        return []
    iterated = node.iter  # type: ignore[attr-defined]
    items = isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Attribute) and iterated.func.attr == "items"
    literal = _literal(ctx, node, iterated.func.value if items else iterated)  # type: ignore[union-attr]
    if isinstance(literal, ast.Dict):  # keys; with .items() (key, value) pairs
        rows = [ast.Tuple(elts=[k, v]) for k, v in zip(literal.keys, literal.values) if k is not None] if items \
            else [k for k in literal.keys if k is not None]
    elif isinstance(literal, (ast.Tuple, ast.List, ast.Set)):
        rows = list(literal.elts)
    else:
        return []
    if index < 0:
        return [row for row in rows if _is_text(row)]
    return [row.elts[index] for row in rows
            if isinstance(row, (ast.Tuple, ast.List)) and index < len(row.elts) and _is_text(row.elts[index])]


def _position(target: ast.expr, variable: str) -> int | None:
    """-1 where ``target`` is the variable, its index where a flat tuple holds it, else None."""
    if isinstance(target, ast.Name):
        return -1 if target.id == variable else None
    if isinstance(target, (ast.Tuple, ast.List)):
        return next((i for i, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == variable), None)
    return None


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _literal(ctx: RuleContext, loop: ast.AST, node: ast.expr) -> ast.expr | None:
    """``node`` itself, or for a name the one value assigned to it in the module or the function."""
    if not isinstance(node, ast.Name):
        return node
    name = node.id
    bodies = [ctx.analysis.tree.body]
    function = enclosing_function(ctx, loop)
    if function is not None:
        bodies.append(function.body)
    values = [statement.value for body in bodies for statement in body
              if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None
              and any(isinstance(t, ast.Name) and t.id == name
                      for t in (statement.targets if isinstance(statement, ast.Assign) else [statement.target]))]
    return values[0] if len(values) == 1 else None


RULE = Rule(
    "reflection_names", 510, check,
    shares=catalog.codes_of_kind("method", "attribute"),
    why="removed members named by strings where code reaches the V1 objects by name (``getattr``, "
    "``mock.patch.object``, tables fed to them); each member's own code, as the rule that finds it in code uses",
    # a removed member's name as data (a table a loop feeds to ``setattr``): the call that
    # reaches it by name spells no such word itself. The rule reads names from string
    # literals only, so the precondition is the name in quotes (a bare ``verify``, a method
    # call or a comment, makes no reflection call relevant).
    words=((tuple(f"{quote}{member}{quote}" for member in sorted(
        {name.rpartition(".")[2] for entry in catalog.entries_of_kind("method", "attribute") if entry.owner_class
         for name in entry.names}) for quote in "\"'"), catalog.REFLECTION_CALLS),),
    examples=Examples(
        invalid=(
            (
                "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
                "\n"
                'hook = getattr(DFlashWorker, "_prepare_for_speculative_decoding")\n'
            ),
        ),
        valid=(
            'hook = getattr(worker, "forward_batch_generation")\n',
        ),
    ),
)
