"""Helpers that build, filter and merge DFLASH draft state between scheduler steps."""

from __future__ import annotations

from sglang.srt.speculative import dflash_info as di
from sglang.srt.speculative.dflash_utils import compute_dflash_accept_len_and_bonus
from sglang.srt.managers.scheduler import validate_dflash_request


def empty_draft_input(device) -> "di.DFlashDraftInput":
    import torch

    return di.DFlashDraftInput(
        verified_id=torch.empty((0,), dtype=torch.int64, device=device),
        target_hidden=torch.empty((0, 0), device=device),
        ctx_lens=torch.empty((0,), dtype=torch.int32, device=device),
        draft_seq_lens=torch.empty((0,), dtype=torch.int32, device=device),
    )


def keep_requests(draft_input: di.DFlashDraftInput, keep_indices) -> di.DFlashDraftInput:
    draft_input.filter_batch(keep_indices, has_been_filtered=False)
    return draft_input


def last_tokens(draft_input: di.DFlashDraftInput):
    return draft_input.verified_id


def accept(candidates, target_predict):
    return compute_dflash_accept_len_and_bonus(candidates=candidates, target_predict=target_predict)


def check_request(req) -> None:
    error = validate_dflash_request(req)
    if error:
        raise ValueError(error)


def worker_supports_overlap(spec_algorithm) -> bool:
    return spec_algorithm.supports_spec_v2()
