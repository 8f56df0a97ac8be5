"""``supports_spec_v2()`` (DFM205) and ``ScheduleBatch.is_spec_v2`` (DFM206), both removed
in 0.5.14 because every algorithm runs the V2 worker.

The member names are distinctive to SGLang, so any access in a file that imports SGLang
(or lives inside an SGLang fork) is reported; the receiver's type is rarely known
(``self.spec_algorithm.supports_spec_v2()``). The fix (``True``) is *unsafe*: it is what
0.5.14+ behaves like, but the V1 branch it guarded deserves a human look. Without
``--unsafe-fixes`` a TODO is left instead. Overrides (``def supports_spec_v2``) get a TODO.
"""

from __future__ import annotations

import ast

from . import RuleContext


def _in_sglang_context(ctx: RuleContext) -> bool:
    return ctx.analysis.imports_sglang or ctx.analysis.module_name.startswith("sglang")


def check(ctx: RuleContext) -> None:
    if not _in_sglang_context(ctx):
        return
    analysis = ctx.analysis
    supports = ctx.entry("DFM205")
    if supports is not None:
        for node in analysis.attributes_by_name.get(supports.member, []):
            parent = analysis.parents.get(node)
            if isinstance(parent, ast.Call) and parent.func is node and not parent.args and not parent.keywords:
                ctx.replace(parent, "True", supports, applicability="unsafe")
            else:
                ctx.todo(node, supports)
        for info in analysis.classes.values():
            for statement in info.node.body:
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == supports.member:
                    ctx.todo(statement, supports, f"override of `{statement.name}`: {supports.message}")
    is_v2 = ctx.entry("DFM206")
    if is_v2 is not None:
        for node in analysis.attributes_by_name.get(is_v2.member, []):
            if isinstance(node.ctx, ast.Load):
                ctx.replace(node, "True", is_v2, applicability="unsafe")
            else:
                ctx.todo(node, is_v2)
