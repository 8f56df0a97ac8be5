"""``filter_batch(v1_spec_info_filtered=...)`` (DFM112): the parameter was removed in 0.5.14.

In 0.5.13 ``ScheduleBatch.filter_batch`` computed ``has_been_filtered = v1_spec_info_filtered
and not self.is_spec_v2`` and passed it to ``spec_info.filter_batch``: a V1 worker's verify
step had filtered the draft state already. 0.5.14 has no V1 worker, always passes
``has_been_filtered=False`` and rejects the keyword (``TypeError``); upstream dropped it at
each call site. The keyword is distinctive to sglang, so any call passing it is reported,
whatever the receiver's type.

The fix drops the keyword: *safe* when its value is a constant (``True`` at every site
upstream rewrote, issue 46), *unsafe* for a name or attribute (a flag a fork computes may
stand for its own worker's filtering, which the tool cannot see). The proof of the safe fix,
re-checked on every wheel 0.5.14 to the newest by ``tests/test_upstream_rewrite_proofs.py``
(slow):

1. ``ScheduleBatch.filter_batch`` has no ``v1_spec_info_filtered`` parameter and no
   ``**kwargs`` on any of them: the original raises ``TypeError`` on every target.
2. No other ``filter_batch`` of those wheels takes it either (0.5.17's
   ``DFlashDraftInputV2.filter_batch(has_been_filtered)`` is another method, with another
   parameter): whatever the receiver, the call raised.
3. No module mentions the keyword, and ``ScheduleBatch.filter_batch`` passes the draft input
   no ``has_been_filtered`` but the constant ``False``: the value is read nowhere, so
   dropping it is what the target does with any value.

Where the fork itself (outside ``sglang.*``: this file, or another module through the fork
index) defines a function taking ``v1_spec_info_filtered``, the call may be bound to it: the
fix is only unsafe, its message naming the definition. A value that could have side effects
(anything but a constant, a name or an attribute), a call written with comments inside, or
the parameter passed positionally (through ``*args``) stays a TODO.
"""

from __future__ import annotations

import ast

from migrator.python.rules.context import Examples, Rule, RuleContext

KEYWORD = "v1_spec_info_filtered"


def _pure(node: ast.expr) -> bool:
    """Dropping the expression cannot drop a side effect."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, (ast.Constant, ast.Name))


def _own_definitions(ctx: RuleContext) -> list[str]:
    """The fork's own functions taking the keyword, outside ``sglang.*``, by name (no line: the
    text goes into a TODO, and lines move as files are fixed)."""
    analysis = ctx.analysis
    found = []
    if not (analysis.module_name == "sglang" or analysis.module_name.startswith("sglang.")):
        found += [f"`{node.name}` in this file" for node in ast.walk(analysis.tree)
                  if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                  and KEYWORD in [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]]
    if analysis.fork is not None:
        found += [f"`{owner}`" for owner, path, _ in
                  analysis.fork.index.own_definitions.get(KEYWORD, ()) if path != ctx.path]
    return found


def check(ctx: RuleContext) -> None:
    entry = ctx.entry("DFM112")
    if entry is None or KEYWORD not in ctx.analysis.source:
        return
    analysis = ctx.analysis
    own = _own_definitions(ctx)
    detail = (f"{entry.message}; the fork defines its own {', '.join(own)} taking `{KEYWORD}`: the call may be "
              "bound to it") if own else None
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
        safe = isinstance(keyword.value, ast.Constant) and not own
        ctx.replace(call, replacement, entry, applicability="safe" if safe else "unsafe", detail=detail)


RULE = Rule("filter_batch", 365, check, owns=("DFM112",),
    examples=Examples(
        invalid=(
            (
                "def keep(batch, keep_indices):\n"
                "    batch.filter_batch(keep_indices=keep_indices, v1_spec_info_filtered=True)\n"
            ),
        ),
        valid=(
            (
                "def keep(batch, keep_indices):\n"
                "    batch.filter_batch(keep_indices=keep_indices)\n"
            ),
        ),
    ),
)
