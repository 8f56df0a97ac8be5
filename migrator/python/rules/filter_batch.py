"""``filter_batch(v1_spec_info_filtered=...)`` (DFM112): the parameter was removed in 0.5.14;
``filter_batch(chunked_req_to_exclude=...)`` (DFM319): renamed ``reqs_to_exclude`` in 0.5.22.

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

DFM319: 0.5.22 renamed the first parameter of ``ScheduleBatch.filter_batch``; the body is the
same with the new name. A keyword call with the old name raises ``TypeError`` on 0.5.22+, a
positional one works everywhere. Where every release of the target is 0.5.22 or newer the fix
writes upstream's ``reqs_to_exclude=``; where the target also holds 0.5.21 or older (no keyword
spelling serves both) it passes the value positionally, where that keeps the order in which the
arguments are evaluated. Proof, re-checked on the wheels by ``tests/test_upstream_rewrite_proofs.py``:
up to 0.5.21 the first parameter is ``chunked_req_to_exclude``, from 0.5.22 ``reqs_to_exclude``,
never with ``**kwargs``, and no other ``filter_batch`` of 0.5.22+ takes the old name. A fork's own
function taking the old keyword makes the fix unsafe (named); ``*args``/``**kwargs``, comments
inside the call or a positional first argument already there: a TODO.
"""

from __future__ import annotations

import ast

from migrator import catalog
from migrator.base.model import Fix, InsertComment, Replace
from migrator.python.names import function_definitions, parameter_names
from migrator.python.rules.context import Examples, Rule, RuleContext

KEYWORD = "v1_spec_info_filtered"
#: DFM319: 0.5.22's rename of ScheduleBatch.filter_batch's first parameter
RENAMED, RENAMED_TO, RENAMED_IN = "chunked_req_to_exclude", "reqs_to_exclude", "0.5.22"


def _pure(node: ast.expr) -> bool:
    """Dropping the expression cannot drop a side effect."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, (ast.Constant, ast.Name))


def _own_definitions(ctx: RuleContext, keyword: str = KEYWORD) -> list[str]:
    """The fork's own functions taking the keyword, outside ``sglang.*``, by name (no line: the
    text goes into a TODO, and lines move as files are fixed)."""
    analysis = ctx.analysis
    found = []
    if not (analysis.module_name == "sglang" or analysis.module_name.startswith("sglang.")):
        found += [f"`{node.name}` in this file" for node in function_definitions(analysis.tree)
                  if keyword in parameter_names(node.args)]
    if analysis.fork is not None:
        found += [f"`{owner}`" for owner, path, _ in
                  analysis.fork.index.own_definitions.get(keyword, ()) if path != ctx.path]
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


def check_rename(ctx: RuleContext) -> None:
    """DFM319 (see the module docstring)."""
    entry = ctx.entry("DFM319")
    if entry is None or RENAMED not in ctx.analysis.source:
        return
    analysis = ctx.analysis
    own = _own_definitions(ctx, RENAMED)
    detail = (f"{entry.message}; the fork defines its own {', '.join(own)} taking `{RENAMED}`: the call may be "
              "bound to it") if own else None
    mixed = any(catalog.parse_version(r) < catalog.parse_version(RENAMED_IN) for r in ctx.releases)
    for call in analysis.calls:
        if not (isinstance(call.func, ast.Attribute) and call.func.attr == entry.member):
            continue
        at = next((i for i, k in enumerate(call.keywords) if k.arg == RENAMED), None)
        if at is None:
            continue
        keyword, text = call.keywords[at], analysis.segment(call)
        if ("#" in text or call.args or any(k.arg is None for k in call.keywords)
                or (mixed and not all(_pure(k.value) for k in call.keywords[:at]))):
            ctx.todo(call, entry)
            continue
        value = analysis.segment(keyword.value)
        others = [analysis.segment(k) for k in call.keywords if k is not keyword]
        if mixed:
            arguments = [value, *others]
        else:
            arguments = [analysis.segment(k) if k is not keyword else f"{RENAMED_TO}={value}" for k in call.keywords]
        replacement = f"{analysis.segment(call.func)}({', '.join(arguments)})"
        if not mixed:
            ctx.replace(call, replacement, entry, applicability="unsafe" if own else "safe", detail=detail)
            continue
        ctx.claimed.add(id(call))  # positional: the one spelling every release of the target takes
        fallback = (InsertComment(analysis.anchor_line(call), catalog.todo_comment(entry, detail)),) if own else ()
        ctx.report(call, entry, Fix("unsafe" if own else "safe", (Replace(ctx.span_of(call), replacement),),
                                    replacement=replacement, fallback=fallback, adaptive=True), detail)


def _check_both(ctx: RuleContext) -> None:
    check(ctx)
    check_rename(ctx)


RULE = Rule("filter_batch", 365, _check_both, owns=("DFM112", "DFM319"),
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
