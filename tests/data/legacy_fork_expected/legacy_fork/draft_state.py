"""Helpers that build, filter and merge DFLASH draft state between scheduler steps."""

from __future__ import annotations

from sglang.srt.speculative.dflash_utils import compute_dflash_correct_drafts_and_bonus
from sglang.srt.managers.scheduler import validate_dflash_request
from sglang.srt.speculative.dflash_info_v2 import DFlashDraftInputV2


def empty_draft_input(device) -> "DFlashDraftInputV2":
    import torch

    # TODO(dflash-migrate): DFM109 `target_hidden=`: this `DFlashDraftInput` field does
    #   not exist on `DFlashDraftInputV2`; also `ctx_lens=`, `draft_seq_lens=`
    #   (MIGRATION.md#dfm109)
    return DFlashDraftInputV2(
        bonus_tokens=torch.empty((0,), dtype=torch.int64, device=device),
        target_hidden=torch.empty((0, 0), device=device),
        ctx_lens=torch.empty((0,), dtype=torch.int32, device=device),
        draft_seq_lens=torch.empty((0,), dtype=torch.int32, device=device),
    )


def keep_requests(draft_input: DFlashDraftInputV2, keep_indices) -> DFlashDraftInputV2:
    draft_input.filter_batch(keep_indices, has_been_filtered=False)
    return draft_input


def last_tokens(draft_input: DFlashDraftInputV2):
    return draft_input.bonus_tokens


def accept(candidates, target_predict):
    return compute_dflash_correct_drafts_and_bonus(candidates=candidates, target_predict=target_predict)


def check_request(req) -> None:
    # TODO(dflash-migrate): DFM307 `validate_dflash_request(req)` needs `enable_overlap`
    #   from 0.5.14 (MIGRATION.md#dfm307)
    error = validate_dflash_request(req)
    if error:
        raise ValueError(error)


def worker_supports_overlap(spec_algorithm) -> bool:
    return not spec_algorithm.is_none()
