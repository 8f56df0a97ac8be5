"""``DFlashVerifyInput`` members that changed: ``verify()`` removed (DFM105), the V1 call
form ``prepare_for_verify(batch, page_size)`` (DFM110) and ``num_tokens_per_batch`` renamed
``num_tokens_per_req`` (DFM302).

Values known to be ``DFlashVerifyInput`` are considered (constructed here, annotated,
or ``self`` in a subclass), so ``DDTreeVerifyInput.verify`` or EAGLE's inputs are never
flagged; on a receiver of unknown type (``verify_input = batch.spec_info``) only V1's own
keyword-only call form ``verify(batch=..., logits_output=..., page_size=...)`` is
(EAGLE and NGRAM call their ``verify`` positionally); where that receiver is an attribute or
a call result of a class or function of another module, the engine has the fork index read
that module and its types decide (``Analysis.want_types_of``). ``prepare_for_verify(batch, target_worker)`` is the V2 form and is left alone:
the V1 form is recognised by a ``page_size``/``build_custom_mask`` keyword, an integer
literal, or an argument spelled ``...page_size``; on a receiver known to be a
``DFlashVerifyInput`` (annotated, constructed, narrowed by ``isinstance``) also by a second
positional argument that is not a worker (``(batch, ps)``).
"""

from __future__ import annotations

import ast

from migrator import catalog
from migrator.python.rules.context import Examples, Rule, RuleContext, entry_for_member, rename_attribute, rename_keyword

V1_ONLY_KEYWORDS = ("page_size", "build_custom_mask")


def is_v1_prepare_call(call: ast.Call, segment_of) -> bool:
    if any(k.arg in V1_ONLY_KEYWORDS for k in call.keywords):
        return True
    if len(call.args) >= 2:
        second = call.args[1]
        if isinstance(second, ast.Constant) and isinstance(second.value, int):
            return True
        return segment_of(second).rstrip().endswith("page_size")
    return False


def _second_is_no_worker(call: ast.Call, segment_of) -> bool:
    """On a receiver known to be a ``DFlashVerifyInput``: ``(batch, x)`` where ``x`` is not the
    target worker V2 takes (sglang's own V2 callers pass ``self.target_worker``)."""
    return (len(call.args) == 2 and not call.keywords and not isinstance(call.args[1], ast.Starred)
            and "worker" not in segment_of(call.args[1]).lower())


def _check_untyped_verify(ctx: RuleContext) -> None:
    """``x.verify(batch=..., logits_output=..., page_size=...)`` on a receiver of unknown type:
    V1 ``DFlashVerifyInput.verify`` is keyword-only, while EAGLE's and NGRAM's ``verify``
    (still there in 0.5.14) are called positionally, so the all-keyword form is DFLASH V1's."""
    entry = ctx.entry("DFM105")
    if entry is None:
        return
    analysis = ctx.analysis
    # a receiver typed only as a base class of DFlashVerifyInput (``SpecInput``, known through
    # the fork index) may still be one: only other concrete types decide
    supertypes = analysis.ancestors(catalog.VERIFY_INPUT) - {catalog.VERIFY_INPUT}
    typed = {id(node) for node, types in analysis.typed_attributes if not types & supertypes}
    for node in analysis.attributes_by_name.get(entry.member, []):
        call = analysis.parents.get(node)
        if not (isinstance(call, ast.Call) and call.func is node) or call.args or id(node) in typed:
            continue
        if set(catalog.V1_VERIFY_KEYWORDS) <= {k.arg for k in call.keywords}:
            # the fork index decides where another module types the receiver (NGRAM's verify)
            analysis.want_types_of(node.value)
            ctx.todo(call, entry, "the keyword-only call `verify(batch=..., logits_output=..., page_size=...)` is "
                     f"V1 `DFlashVerifyInput.verify`: {entry.message}")


def _check_untyped_field(ctx: RuleContext, entry: catalog.Entry) -> None:
    """``x.num_tokens_per_batch`` on a receiver of unknown type (an untyped parameter): only
    ``DFlashVerifyInput`` had the name, so in a file naming that class (the rule's trigger) it is a TODO."""
    analysis = ctx.analysis
    typed = {id(node) for node, _ in analysis.typed_attributes}
    for node in analysis.attributes_by_name.get(entry.member, []):
        if id(node) not in typed:
            ctx.todo(node, entry, f"`{analysis.segment(node)}` on a value of unknown type: {entry.message}")


def check(ctx: RuleContext) -> None:
    analysis = ctx.analysis
    verify_input = catalog.VERIFY_INPUT
    for node, types in analysis.typed_attributes:
        if verify_input not in types:
            continue
        parent = analysis.parents.get(node)
        if node.attr == "prepare_for_verify":
            entry = ctx.entry("DFM110")
            if entry and isinstance(parent, ast.Call) and parent.func is node and (
                    is_v1_prepare_call(parent, analysis.segment) or _second_is_no_worker(parent, analysis.segment)):
                ctx.todo(parent, entry)
            continue
        entry = entry_for_member(types, node.attr, ("DFM105", "DFM302"), ctx)
        if entry is None:
            continue
        if entry.fix == "manual":
            ctx.todo(node, entry)
        else:
            rename_attribute(ctx, node, entry)
    _check_untyped_verify(ctx)
    for qualname, info in analysis.classes.items():
        if qualname != verify_input and verify_input in analysis.ancestors(qualname):
            for statement in info.node.body:
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    entry = entry_for_member(frozenset({verify_input}), statement.name, ("DFM105",), ctx)
                    if entry is not None:
                        ctx.todo(statement, entry, f"override of `{statement.name}`: {entry.message}")
    entry = ctx.entry("DFM302")
    if entry is not None:
        _check_untyped_field(ctx, entry)
        for call in analysis.calls:
            if verify_input in analysis.instance_types(call):
                for keyword in call.keywords:
                    if keyword.arg == entry.member:
                        rename_keyword(ctx, keyword, entry)


# ``verify`` is looked at where one of its V1 keywords is written (``page_size=``, ...)
RULE = Rule("verify_input", 310, check, owns=("DFM105", "DFM110", "DFM302"),
            words=((tuple(f"{keyword}=" for keyword in catalog.V1_VERIFY_KEYWORDS[1:]),
                    (f"{catalog.VERIFY_INPUT}.verify".rpartition(".")[2],)),),
    examples=Examples(
        invalid=(
            (
                "from sglang.srt.speculative.dflash_info import DFlashVerifyInput\n"
                "\n"
                "\n"
                "def per_request(verify_input: DFlashVerifyInput):\n"
                "    return verify_input.num_tokens_per_batch\n"
            ),
        ),
        valid=(
            (
                "def step(batch, logits_output, page_size):\n"
                "    return batch.spec_info.verify(batch, logits_output, page_size)\n"
            ),
        ),
    ),
)
