"""``DFlashDraftInput`` fields that do not exist on ``DFlashDraftInputV2`` (DFM109) and the
``verified_id`` -> ``bonus_tokens`` rename (DFM301).

The class rename itself (DFM103) is safe and done by the import/reference rules; this
rule adds the TODO the issue asks for "where the surrounding code uses members that do
not exist on the new class": attribute access on values known to be a DFlash draft
input (also after ``isinstance`` narrows a name to one), and keyword arguments of its
constructor, each reported on the line that holds it. EAGLE's ``verified_id`` is untouched
because the receiver's type must be a DFlash draft input.
"""

from __future__ import annotations

from migrator import catalog
from migrator.python.rules.context import Examples, Rule, RuleContext, entry_for_member, rename_attribute, rename_keyword

DRAFT_INPUTS = frozenset({catalog.V1_DRAFT_INPUT, catalog.V2_DRAFT_INPUT})


CODES = ("DFM109", "DFM301")


def check(ctx: RuleContext) -> None:
    analysis = ctx.analysis
    for node, types in analysis.typed_attributes:
        if types & DRAFT_INPUTS:
            _member(ctx, types, node.attr, node, f"`{node.attr}`",
                    lambda entry, node=node: rename_attribute(ctx, node, entry))
    for call in analysis.calls:
        types = analysis.instance_types(call)
        if not types & DRAFT_INPUTS:
            continue
        for keyword in call.keywords:
            if keyword.arg is not None:
                _member(ctx, types, keyword.arg, keyword, f"`{keyword.arg}=`",  # on its own line
                        lambda entry, keyword=keyword: rename_keyword(ctx, keyword, entry))


def _member(ctx: RuleContext, types: frozenset[str], member: str, anchor, label: str, rename) -> None:  # noqa: ANN001
    """One use of ``member`` (an attribute or a constructor keyword) on a draft input: a
    TODO at ``anchor`` where the field is gone, ``rename(entry)`` where it was renamed."""
    entry = entry_for_member(types, member, CODES, ctx)
    if entry is None:
        return
    if entry.fix == "manual":
        ctx.todo(anchor, entry, f"{label}: {entry.message}")
    else:
        rename(entry)


RULE = Rule("draft_input", 320, check, owns=CODES, follows=(catalog.V2_DRAFT_INPUT,),
    examples=Examples(
        invalid=(
            (
                "from sglang.srt.speculative.dflash_info import DFlashDraftInput\n"
                "\n"
                "\n"
                "def bonus(info: DFlashDraftInput):\n"
                "    return info.verified_id\n"
            ),
        ),
        valid=(
            (
                "from sglang.srt.speculative.eagle_info import EagleDraftInput\n"
                "\n"
                "\n"
                "def bonus(info: EagleDraftInput):\n"
                "    return info.verified_id\n"
            ),
        ),
    ),
)
