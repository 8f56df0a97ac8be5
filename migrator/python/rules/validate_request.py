"""``validate_dflash_request(req)`` called without ``enable_overlap`` (DFM307).

From 0.5.14 the function takes ``(req, enable_overlap: bool)``; a one-argument call raises
``TypeError`` at runtime. The callee is resolved by qualified name in both its old home
(``managers.scheduler``) and its new one (``speculative.dflash_utils``); the import move
itself is DFM306.
"""

from __future__ import annotations

from migrator import catalog
from migrator.python.rules.context import Rule, RuleContext

CALLEES = frozenset({catalog.get("DFM306").old, catalog.get("DFM307").old})


def check(ctx: RuleContext) -> None:
    entry = ctx.entry("DFM307")
    if entry is None:
        return
    for call in ctx.analysis.calls:
        if ctx.analysis.callee(call) not in CALLEES:
            continue
        passed = len(call.args) + len(call.keywords)
        has_star = any(k.arg is None for k in call.keywords) or any(a.__class__.__name__ == "Starred" for a in call.args)
        if passed < 2 and not has_star:
            ctx.todo(call, entry)


RULE = Rule("validate_request", 360, check, owns=("DFM307",), reads=("DFM306",))
