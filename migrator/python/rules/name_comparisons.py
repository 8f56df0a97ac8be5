"""Removed names compared with strings or spelled as file paths, as in code that inspects
sglang's source or modules by name.

* equality and membership tests against removed names (``node.name == "DFlashWorker"``,
  ``name in ("DFlashDraftInput", "_compute_paged_keep_slots")``, as in code inspecting
  sglang's source with ``ast``): removed classes and functions always; a removed member
  only in a file that also names its class (``forward_batch_generation`` is also the V2
  and NGRAM workers' method);
* path strings naming the removed module's file (``sglang/srt/speculative/dflash_worker.py``),
  with the text scanner's spelling (another package's file of that name does not match).

All are TODOs: the string may be compared with something else.
"""

from __future__ import annotations

import ast
from functools import cache

from migrator import catalog
from migrator.base.model import Fix, InsertComment
from migrator.catalog import names
from migrator.python.rules.context import Examples, Rule, RuleContext, outer_literal, removed_members, span_in_literal

_COMPARISONS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)


@cache
def _named_entries() -> dict[str, catalog.Entry]:
    """Last name of a removed class or function -> its entry: the first entry with that name,
    the class's own home (DFM103's ``dflash_info.DFlashDraftInput``, not DFM314's re-export)."""
    return {spelling: entries[0] for spelling, entries in names.bare_entries("class", "function").items()}


def check(ctx: RuleContext) -> None:
    members = removed_members()
    named = _named_entries()
    for node in ctx.analysis.strings:
        if node.value in named or node.value in members:
            _check_comparison(ctx, node, named, members)
        if _PATH_HINT in node.value:
            _check_path(ctx, node)


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
    from migrator.catalog.mentions import module_path_offsets

    entry = ctx.entry("DFM101")
    literal = outer_literal(ctx, node)
    if entry is None or ctx.analysis.is_guarded(literal):
        return
    for start, end in module_path_offsets(ctx.analysis.segment(literal)):
        span = span_in_literal(ctx, literal, start, end)
        fix = Fix("manual", (InsertComment(ctx.analysis.anchor_line(literal), catalog.todo_comment(entry)),))
        ctx.report(span, entry, fix, f"path of the removed module's file: {entry.message}")


RULE = Rule(
    "name_comparisons", 515, check,
    shares=catalog.codes_of_kind("module", "class", "function", "method", "attribute"),
    why="removed names compared with strings and the removed module's file path; each name's own code, "
    "as the rule that finds it in code uses",
    examples=Examples(
        invalid=(
            (
                "def is_v1(node):\n"
                '    return node.name == "DFlashWorker"\n'
            ),
        ),
        valid=(
            (
                "def is_v2(node):\n"
                '    return node.name == "DFlashWorkerV2"\n'
            ),
        ),
    ),
)
