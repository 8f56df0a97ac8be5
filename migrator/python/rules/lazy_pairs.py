"""Lazy registries: ``(module, name)`` string pairs that a loader imports later
(``("sglang.srt.speculative.dflash_worker_v2", "DFlashWorker")`` then
``getattr(import_module(module), name)``).

``string_refs`` renames the module string where it is a removed module, but the name beside it
is a plain word no other rule reads, so a pair that named the V1 class, or a pair whose module a
person already moved to V2, does not resolve on the target: the loader raises at run time. Each
pair is checked against the catalog:

* the module is the V1 module and the catalog's rename of it is where the replacement lives, or
  the module already is that home: the name is renamed too (safe: the pair then names the
  replacement, which exists on the target, in the module the pair imports);
* otherwise (no replacement, or it lives in another module than the pair's): a TODO saying
  what the pair names on the target.
"""

from __future__ import annotations

import ast

from migrator import catalog
from migrator.catalog import names
from migrator.python.analysis import rename_qualname
from migrator.python.rules.context import Examples, Rule, RuleContext, literal_with


def _by_last_name() -> dict[str, tuple[catalog.Entry, ...]]:
    """Last part of each removed class or function -> the entries naming it (the name table's
    bare rows)."""
    return names.bare_entries("class", "function")


def check(ctx: RuleContext) -> None:
    table = _by_last_name()
    parents = ctx.analysis.parents
    for node in ctx.analysis.strings:
        if node.value not in table:
            continue
        pair = parents.get(node)
        if not (isinstance(pair, ast.Tuple) and len(pair.elts) == 2 and pair.elts[1] is node):
            continue
        module = pair.elts[0]
        if isinstance(module, ast.Constant) and isinstance(module.value, str):
            _check_pair(ctx, module.value, node, table[node.value])


def _check_pair(ctx: RuleContext, module: str, node: ast.Constant, entries: tuple[catalog.Entry, ...]) -> None:
    for found in entries:
        old_module = next(n for n in found.names if n.rpartition(".")[2] == node.value).rpartition(".")[0]
        entry = ctx.entry(found.code)
        if entry is None:
            continue
        new = entry.replacement_for(ctx.target)
        new_module, _, new_name = (new or "").rpartition(".")
        if module == new_module and new_name == node.value:
            return  # a pair already naming the replacement
        if module not in (old_module, new_module):
            continue
        shown = f"`({module!r}, {node.value!r})`"
        if new is not None and new_module in (module, rename_qualname(module, ctx.target)):
            literal = literal_with(ctx.analysis.segment(node), node.value, new_name)
            if literal is not None:
                ctx.replace(node, literal, entry, detail=f"the lazy pair {shown} names `{node.value}`: {entry.message}")
                return
        target = f"`{new}`" if new is not None else "nothing"
        ctx.todo(node, entry, f"the lazy pair {shown} does not resolve on {ctx.target} (it is {target} there): "
                 f"{entry.message}")
        return


RULE = Rule(
    "lazy_pairs", 220, check,
    shares=catalog.codes_of_kind("class", "function"),
    why="removed classes and functions named by a lazy registry's (module, name) string pair, each "
    "with its own code, as the rules finding them in code use",
    examples=Examples(
        invalid=(
            'LAZY = [("sglang.srt.speculative.dflash_worker_v2", "DFlashWorker")]\n',
        ),
        valid=(
            'LAZY = {"mine": ("mypkg.workers", "DFlashWorker")}\n',
        ),
    ),
)
