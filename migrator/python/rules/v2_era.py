"""Changes inside the V2 era that break V1-era code again on the way to a newer release
(each fires only when the target reaches the release that made it):

* DFM308: ``x.get_spec_adjust_token_coefficient()`` (gone from every speculative input in
  0.5.16), on any receiver but an instance of a class of this file that defines it;
* DFM309: ``<runner>.dflash_target_layer_ids`` and the other ``ModelRunner.dflash_*`` (moved
  to ``spec_aux_config`` in 0.5.16) on a receiver typed ``ModelRunner`` or spelled ``...runner``:
  safely rewritten to ``<runner>.spec_aux_config.dflash_*``;
* DFM315: assignment to ``target_worker``/``draft_worker`` of a DFLASH worker (V1 or V2,
  ``self`` in a subclass included; not the V1 class's own definition): read-only properties on V2;
* DFM316: ``num_correct_drafts_per_req_cpu`` read from the result of a DFLASH worker's
  ``forward_batch_generation`` (directly, or through a local the function assigned it): V2 never
  sets it there, while EAGLE and NGRAM still do, so no other result is reported.
"""

from __future__ import annotations

import ast

from migrator import catalog
from migrator.python.rules.context import Examples, Rule, RuleContext, assigned_values

WORKERS = frozenset({catalog.V1_WORKER_CLASS, catalog.V2_WORKER_CLASS})
_CODES = ("DFM308", "DFM309", "DFM315", "DFM316")


def _member(code: str) -> str:
    return catalog.get(code).member


def check(ctx: RuleContext) -> None:
    analysis = ctx.analysis
    by_name = analysis.attributes_by_name
    if not any(name.rpartition(".")[2] in by_name for code in _CODES for name in catalog.get(code).names):
        return
    typed = {id(node): types for node, types in analysis.typed_attributes}
    entry = ctx.entry("DFM308")
    if entry is not None:
        own = {q for q, info in analysis.classes.items()
               if any(getattr(s, "name", None) == entry.member for s in info.node.body)}
        for node in by_name.get(entry.member, ()):
            if not typed.get(id(node), frozenset()) & own:
                ctx.todo(node, entry)
    entry = ctx.entry("DFM309")
    if entry is not None:
        for name in entry.names:
            for node in by_name.get(name.rpartition(".")[2], ()):
                if _is_runner(ctx, node.value, typed.get(id(node), frozenset())):
                    receiver = analysis.segment(node.value)
                    ctx.replace(node, f"{receiver}.spec_aux_config.{node.attr}", entry)
    entry = ctx.entry("DFM315")
    if entry is not None:
        defined = analysis.classes.get(catalog.V1_WORKER_CLASS)  # sglang 0.5.13's own module: its definition
        inside = range(defined.node.lineno, (defined.node.end_lineno or 0) + 1) if defined is not None else range(0)
        for name in entry.names:
            for node in by_name.get(name.rpartition(".")[2], ()):
                if (not isinstance(node.ctx, ast.Load) and typed.get(id(node), frozenset()) & WORKERS
                        and node.lineno not in inside):
                    ctx.todo(node, entry, f"assigns `{analysis.segment(node)}`: {entry.message}")
    entry = ctx.entry("DFM316")
    if entry is not None:
        for node in by_name.get(entry.member, ()):
            if isinstance(node.ctx, ast.Load) and _is_dflash_result(ctx, node.value, typed):
                ctx.todo(node, entry)


def _is_runner(ctx: RuleContext, receiver: ast.expr, types: frozenset[str]) -> bool:
    if catalog.MODEL_RUNNER in types:
        return True
    last = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
    return last != "spec_aux_config" and last.lower().endswith("runner")


def _is_dflash_result(ctx: RuleContext, value: ast.expr, typed: dict[int, frozenset[str]]) -> bool:
    """Is ``value`` (or what the local ``value`` was assigned) a DFLASH worker's
    ``forward_batch_generation(...)`` call?"""
    candidates = assigned_values(ctx, value) if isinstance(value, ast.Name) else [value]
    return any(isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
               and call.func.attr == "forward_batch_generation" and typed.get(id(call.func), frozenset()) & WORKERS
               for call in candidates)


RULE = Rule("v2_era", 380, check, owns=_CODES,
    examples=Examples(
        invalid=(
            (
                "from sglang.srt.model_executor.model_runner import ModelRunner\n"
                "\n"
                "\n"
                "def layers(runner: ModelRunner):\n"
                "    return runner.dflash_target_layer_ids\n"
            ),
        ),
        valid=(
            (
                "from sglang.srt.model_executor.model_runner import ModelRunner\n"
                "\n"
                "\n"
                "def layers(runner: ModelRunner):\n"
                "    return runner.spec_aux_config.dflash_target_layer_ids\n"
            ),
        ),
    ),
)
