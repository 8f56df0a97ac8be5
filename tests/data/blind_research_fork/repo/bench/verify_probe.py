"""Replay a dumped verify step to debug acceptance regressions.

Dumps come from `kestrel-serve --dump-verify DIR` (see distill/hooks.py); each
holds the verify input and target logits of one decode step.
"""
from __future__ import annotations

import sys

import torch

from sglang.srt.speculative.dflash_info import (
    DFlashDraftInput,
    DFlashVerifyInput,
    _compute_paged_keep_slots,
)
from sglang.srt.speculative.spec_info import SpecInputType


def load_dump(path: str):
    blob = torch.load(path, map_location="cuda")
    verify_input = DFlashVerifyInput(
        draft_token=blob["draft_token"],
        positions=blob["positions"],
        draft_token_num=blob["block_size"],
        num_tokens_per_batch=blob["block_size"],
    )
    draft_input = DFlashDraftInput(
        bonus_tokens=blob["bonus_tokens"],
        target_hidden=blob["target_hidden"],
        ctx_lens=blob["ctx_lens"],
        draft_seq_lens=blob["draft_seq_lens"],
    )
    return blob, verify_input, draft_input


def replay(batch, logits_output, verify_input: DFlashVerifyInput, page_size: int = 1):
    verify_input.prepare_for_verify(batch, page_size, build_custom_mask=False)
    new_bonus, commit_lens, next_hidden, accepted = verify_input.verify(
        batch=batch, logits_output=logits_output, page_size=page_size
    )
    keep = _compute_paged_keep_slots(
        prefix_lens=batch.seq_lens - commit_lens,
        commit_lens=commit_lens,
        draft_token_num=verify_input.draft_token_num,
        page_size=page_size,
    )
    return accepted, keep


def coefficient(verify_input: DFlashVerifyInput):
    return verify_input.get_spec_adjust_token_coefficient()


def is_verify_input(spec_info) -> bool:
    return spec_info is not None and spec_info.spec_input_type == SpecInputType.DFLASH_VERIFY


if __name__ == "__main__":
    blob, vi, di = load_dump(sys.argv[1])
    print(vi.draft_token.shape, di.ctx_lens.tolist(), coefficient(vi))
