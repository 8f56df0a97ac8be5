"""Forks that subclass the V1 ``DFlashWorker`` or call its removed methods.

V2 never calls ``_prepare_for_speculative_decoding`` or ``_append_target_hidden_to_draft_kv``
and has another ``forward_batch_generation`` contract, so an override silently stops
running (DFM106-DFM108). Caught: overrides in subclasses (also through intermediate
classes of the same file, and through other modules of the fork: ``migrator.python.forkindex``), calls on ``self``/``super()``/values known to be a DFlash
worker, ``getattr``/``hasattr``/``setattr(worker, "<removed method>")``, and the
constructor's rank arguments (DFM111, from 0.5.16; also ``DFlashWorkerV2(...)`` still called
with V1's ``tp_rank``... form, valid only until 0.5.15). The same method names on unrelated
classes (NGRAM's worker, ``target_worker.forward_batch_generation``) are not touched,
because the receiver's type must be known to be a DFlash V1 worker.
"""

from __future__ import annotations

import ast

from migrator import catalog
from migrator.python.rules.context import Examples, Rule, RuleContext, base_origins, entry_for_member

REMOVED_METHOD_CODES = ("DFM106", "DFM107", "DFM108")


def check(ctx: RuleContext) -> None:
    analysis = ctx.analysis
    worker = catalog.V1_WORKER_CLASS
    for qualname, info in analysis.classes.items():
        if qualname == worker or worker not in analysis.ancestors(qualname):
            continue
        related = base_origins(ctx, info.node)
        for statement in info.node.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                entry = entry_for_member(frozenset({worker}), statement.name, REMOVED_METHOD_CODES, ctx)
                if entry is not None:
                    ctx.todo(statement, entry, f"override of `{statement.name}`: {entry.message}", related)
                if statement.name == "__init__":
                    _check_super_init(ctx, statement)
    for node, types in analysis.typed_attributes:
        if worker in types:
            entry = entry_for_member(types, node.attr, REMOVED_METHOD_CODES, ctx)
            if entry is None or (entry.code == "DFM108" and _is_super_call(node)):
                continue  # V2 still has forward_batch_generation: delegating to it is fine
            ctx.todo(node, entry)  # super() calls of removed methods too: V2's base lacks them
    for call, types in analysis.reflection:
        _check_reflection(ctx, call, types, worker)
    entry = ctx.entry("DFM111")
    if entry is not None:
        for call in analysis.calls:
            callee = analysis.callee(call)
            if callee == worker or (callee == catalog.V2_WORKER_CLASS and _v1_rank_form(call)):
                ctx.todo(call, entry)


#: V1's constructor (and V2's until 0.5.15): server_args, gpu_id, 5 ranks, nccl_port, target_worker
_V1_POSITIONAL = 9


def _v1_rank_form(call: ast.Call) -> bool:
    """``DFlashWorkerV2(...)`` still called with the V1 rank arguments (valid until 0.5.15)."""
    return any(k.arg == "tp_rank" for k in call.keywords) or len(call.args) >= _V1_POSITIONAL


def _check_super_init(ctx: RuleContext, function: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    """``super().__init__(...)`` / ``DFlashWorker.__init__(self, ...)`` in a subclass."""
    entry = ctx.entry("DFM111")
    if entry is None:
        return
    for node in ast.walk(function):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__"):
            continue
        receiver = node.func.value
        is_super = isinstance(receiver, ast.Call) and getattr(receiver.func, "id", None) == "super"
        resolved = ctx.analysis.qualname(receiver)
        if is_super or (resolved is not None and resolved[0] == catalog.V1_WORKER_CLASS):
            ctx.todo(node, entry)


def _is_super_call(node: ast.Attribute) -> bool:
    return isinstance(node.value, ast.Call) and getattr(node.value.func, "id", None) == "super"


def _check_reflection(ctx: RuleContext, call: ast.Call, types: frozenset[str], worker: str) -> None:
    if len(call.args) < 2 or worker not in types:
        return
    name = call.args[1]
    if isinstance(name, ast.Constant) and isinstance(name.value, str):
        entry = entry_for_member(types, name.value, REMOVED_METHOD_CODES, ctx)
        if entry is not None:
            ctx.todo(call, entry, f"`{ctx.analysis.segment(call.func)}(..., {name.value!r})`: {entry.message}")


# (``super().__init__(...)``: the catalog's DFM111 entry names the constructor already, where
# the V1 worker is named)
RULE = Rule("worker_subclass", 300, check, owns=(*REMOVED_METHOD_CODES, "DFM111"), follows=(catalog.V1_WORKER_CLASS,),
    examples=Examples(
        invalid=(
            (
                "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
                "\n"
                "\n"
                "class MyWorker(DFlashWorker):\n"
                "    def _prepare_for_speculative_decoding(self, batch):\n"
                "        pass\n"
            ),
        ),
        valid=(
            (
                "class NGRAMWorker:\n"
                "    def forward_batch_generation(self, batch):\n"
                "        return self.target_worker.forward_batch_generation(batch)\n"
            ),
        ),
    ),
)
