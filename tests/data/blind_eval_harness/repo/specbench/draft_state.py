"""Snapshots of the DFLASH draft state between decode steps.

The replay tool (`specbench replay`) dumps the draft-side state after every
step so a regression in acceptance can be bisected offline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional

import torch

from sglang.srt.speculative.dflash_info import DFlashDraftInput, _compute_paged_keep_slots
from sglang.srt.speculative.spec_info import SpecInputType


@dataclass
class DraftSnapshot:
    step: int
    bonus_tokens: list
    ctx_lens: list
    draft_seq_lens: list
    hidden_dim: Optional[int]


def snapshot(step: int, spec_info: Any) -> Optional[DraftSnapshot]:
    if not isinstance(spec_info, DFlashDraftInput):
        return None
    assert spec_info.spec_input_type == SpecInputType.DFLASH_DRAFT
    hidden = spec_info.target_hidden
    return DraftSnapshot(
        step=step,
        bonus_tokens=spec_info.bonus_tokens.tolist(),
        ctx_lens=spec_info.ctx_lens.tolist(),
        draft_seq_lens=spec_info.draft_seq_lens.tolist(),
        hidden_dim=None if hidden is None else int(hidden.shape[-1]),
    )


def empty_draft_input(device: str = "cpu") -> DFlashDraftInput:
    """An empty draft input, used to seed replay batches."""
    return DFlashDraftInput(
        bonus_tokens=torch.empty(0, dtype=torch.int64, device=device),
        target_hidden=torch.empty(0, 0, device=device),
        ctx_lens=torch.empty(0, dtype=torch.int32, device=device),
        draft_seq_lens=torch.empty(0, dtype=torch.int32, device=device),
    )


def keep_only(spec_info: DFlashDraftInput, keep: torch.Tensor) -> DFlashDraftInput:
    spec_info.filter_batch(keep, has_been_filtered=False)
    return spec_info


def concat(a: DFlashDraftInput, b: DFlashDraftInput) -> DFlashDraftInput:
    a.merge_batch(b)
    return a


def token_coefficient(spec_info: DFlashDraftInput) -> tuple:
    return spec_info.get_spec_adjust_token_coefficient()


def paged_keep_slots(prefix_lens, commit_lens, block_size: int, page_size: int):
    """Which KV slots survive a verify step; mirrors what sglang frees."""
    return _compute_paged_keep_slots(
        prefix_lens=prefix_lens,
        commit_lens=commit_lens,
        draft_token_num=block_size,
        page_size=page_size,
    )


def to_json(snap: DraftSnapshot) -> Dict[str, Any]:
    return {
        "step": snap.step,
        "bonus_tokens": snap.bonus_tokens,
        "ctx_lens": snap.ctx_lens,
        "draft_seq_lens": snap.draft_seq_lens,
        "hidden_dim": snap.hidden_dim,
    }
