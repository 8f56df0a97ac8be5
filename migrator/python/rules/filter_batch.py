"""``filter_batch(v1_spec_info_filtered=...)`` (DFM112): the parameter was removed in 0.5.14.

In 0.5.13 ``ScheduleBatch.filter_batch`` computed ``has_been_filtered = v1_spec_info_filtered
and not self.is_spec_v2`` and passed it to ``spec_info.filter_batch``: a V1 worker's verify
step had filtered the draft state already. 0.5.14 has no V1 worker, always passes
``has_been_filtered=False`` and rejects the keyword (``TypeError``); upstream dropped it at
each call site. The keyword is distinctive to sglang, so any call passing it is reported,
whatever the receiver's type.

The fix drops the keyword: *safe* when its value is the constant ``False`` (the behaviour
0.5.13 had for it), *unsafe* otherwise (a fork whose own worker filters ``spec_info`` before
the batch would now filter it twice). A value that could have side effects (anything but a
constant, a name or an attribute), a call written with comments inside, or the parameter
passed positionally (through ``*args``) stays a TODO.
"""

from __future__ import annotations

import ast

from migrator.python.rules.context import Rule, RuleContext

KEYWORD = "v1_spec_info_filtered"


def _pure(node: ast.expr) -> bool:
    """Dropping the expression cannot drop a side effect."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, (ast.Constant, ast.Name))


def check(ctx: RuleContext) -> None:
    entry = ctx.entry("DFM112")
    if entry is None or KEYWORD not in ctx.analysis.source:
        return
    analysis = ctx.analysis
    for call in analysis.calls:
        if not (isinstance(call.func, ast.Attribute) and call.func.attr == entry.member):
            continue
        keyword = next((k for k in call.keywords if k.arg == KEYWORD), None)
        if keyword is None:
            continue
        text = analysis.segment(call)
        if not _pure(keyword.value) or "#" in text or any(isinstance(a, ast.Starred) for a in call.args):
            ctx.todo(call, entry)
            continue
        kept = [analysis.segment(a) for a in call.args]
        kept += [analysis.segment(k) for k in call.keywords if k is not keyword]
        replacement = f"{analysis.segment(call.func)}({', '.join(kept)})"
        same = isinstance(keyword.value, ast.Constant) and keyword.value.value is False
        ctx.replace(call, replacement, entry, applicability="safe" if same else "unsafe")


RULE = Rule("filter_batch", 365, check, owns=("DFM112",))
