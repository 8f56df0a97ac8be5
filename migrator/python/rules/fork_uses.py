"""Every use of a V1 object that reaches a file through another module of the fork
(``from .compat import DFlashDraftInput``), not only the import ``fork_names`` reports.

The fork's compat module binds the V1 names in a ``try`` whose ``except ImportError`` binds
``None`` (or a stub) on V2 releases, so each use breaks on its own line, and each is its own
finding with its own fix or TODO:

* ``isinstance(x, DFlashDraftInput)`` / ``issubclass``: ``isinstance(x, None)`` raises
  ``TypeError`` (DFM500, fixed where the name is bound when the catalog replaces it);
* ``class Mine(DFlashWorker)`` and registry values (``{"dflash": DFlashWorker}``), where the
  class line is not the import line (DFM500, likewise);
* any use of a name with no replacement (``_compute_paged_keep_slots(...)``): that name's
  own TODO (DFM104), since no fix of the re-export can make the call work;
* a removed member reached through the name (``DFlashVerifyInput.verify``): its TODO.

Attribute chains through a module alias (``c.DFlashWorker``) are ``fork_names``'s (DFM500);
removed fields of values typed by these names are the member rules' (``draft_input``...).
"""

from __future__ import annotations

import ast

from migrator import catalog
from migrator.base.model import Fix
from migrator.python.rules.context import Examples, Rule, RuleContext, replaceable
from migrator.report.locations import report_path

_CHECKS = frozenset({"isinstance", "issubclass"})
_MEMBER_KINDS = ("method", "attribute")


def check(ctx: RuleContext) -> None:
    analysis = ctx.analysis
    if analysis.fork is None:
        return
    for node, qualname, binding in analysis.references:
        if binding.kind != "fork" or id(node) in ctx.claimed:
            continue
        parent = analysis.parents.get(node)
        if isinstance(parent, ast.Attribute) and parent.value is node:
            continue  # an inner link of a longer chain: handled from the outermost node
        if isinstance(node, ast.Attribute):
            _member(ctx, node, qualname, binding.via)
        elif isinstance(node, ast.Name):
            _name(ctx, node, qualname, binding.via)


def _member(ctx: RuleContext, node: ast.Attribute, qualname: str, via: tuple[tuple[str, int], ...]) -> None:
    """``DFlashVerifyInput.verify`` (the class from the fork): the removed member's TODO."""
    member = catalog.by_name().get(qualname)
    if member is not None and member.kind in _MEMBER_KINDS:
        entry = ctx.entry(member.code)
        if entry is not None and entry.fix == "manual":
            ctx.todo(node, entry, f"`{ctx.analysis.segment(node)}`: {entry.message}", via)


def _name(ctx: RuleContext, node: ast.Name, qualname: str, via: tuple[tuple[str, int], ...]) -> None:
    entry = ctx.entry_named(qualname)
    if entry is None:
        return
    short = qualname.rpartition(".")[2]
    if entry.replacement_for(ctx.target) is None:
        ctx.todo(node, entry, f"`{node.id}` is the fork's re-export of `{short}`: {entry.message}", via)
        return
    use = _breaking_use(ctx, node)
    fork_entry = ctx.entry("DFM500")
    if use is None or fork_entry is None:
        return
    message = f"{use} `{node.id}`, V1 `{short}` re-exported by the fork"
    fallback = _fallback(ctx, node.id)
    if fallback is not None:
        message += (f"; on {ctx.target} its `except ImportError` branch binds another "
                    f"({report_path(fallback[0])}:{fallback[1]})")
    fix = Fix("safe", (), replacement=f"fixed where it is bound: {report_path(via[-1][0])}") \
        if replaceable(qualname, ctx.target) else None
    ctx.report(node, fork_entry, fix, message, via)


def _breaking_use(ctx: RuleContext, node: ast.Name) -> str | None:
    """How the statement uses the class where the V2 fallback breaks it, or None."""
    parents = ctx.analysis.parents
    parent = parents.get(node)
    if isinstance(parent, ast.Tuple):  # isinstance(x, (A, B))
        outer = parents.get(parent)
        if _is_check(outer, parent):
            return f"`{outer.func.id}` against"  # type: ignore[union-attr]
    if _is_check(parent, node):
        return f"`{parent.func.id}` against"  # type: ignore[union-attr]
    if isinstance(parent, ast.ClassDef) and node in parent.bases:
        return f"class `{parent.name}` derives from"
    if isinstance(parent, ast.Dict) and node in parent.values:
        return "a registry holds"
    if isinstance(parent, (ast.List, ast.Tuple, ast.Set)) and isinstance(node.ctx, ast.Load):
        return "a registry holds"
    return None


def _is_check(call: ast.AST | None, argument: ast.AST) -> bool:
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in _CHECKS
            and len(call.args) == 2 and call.args[1] is argument)


def _fallback(ctx: RuleContext, local: str) -> tuple[str, int] | None:
    binding = ctx.analysis.module_scope.names.get(local)
    if binding is None or binding.qualname is None or ctx.analysis.fork is None:
        return None
    resolved = ctx.analysis.fork.resolve(binding.qualname)
    return resolved.fallback if resolved is not None else None


RULE = Rule(
    "fork_uses", 420, check,
    shares=("DFM500", *(e.code for e in catalog.entries_of_kind("function", "method", "attribute", "class", "module"))),
    why="each use of a fork's re-export of a V1 object: DFM500 (``fork_names``') where the fix is made where "
    "the name is bound, the name's own code where nothing replaces it",
    examples=Examples(
        invalid=(
            (
                "# file: pkg/__init__.py\n"
                "# file: pkg/compat.py\n"
                "try:\n"
                "    from sglang.srt.speculative.dflash_info import DFlashDraftInput\n"
                "except ImportError:\n"
                "    DFlashDraftInput = None\n"
                "# file: pkg/use.py\n"
                "from .compat import DFlashDraftInput\n"
                "\n"
                "\n"
                "def is_dflash(info):\n"
                "    return isinstance(info, DFlashDraftInput)\n"
            ),
        ),
        valid=(
            (
                "# file: pkg/__init__.py\n"
                "# file: pkg/compat.py\n"
                "class DFlashDraftInput:\n"
                "    pass\n"
                "# file: pkg/use.py\n"
                "from .compat import DFlashDraftInput\n"
                "\n"
                "\n"
                "def is_dflash(info):\n"
                "    return isinstance(info, DFlashDraftInput)\n"
            ),
        ),
    ),
)
