"""Paged-KV bookkeeping the draft stage reports alongside its metrics."""

from __future__ import annotations

from sglang.srt.speculative.dflash_info import _compute_paged_keep_slots

from .compat import DFlashDraftInput


def keep_slots(draft_input: DFlashDraftInput, page_size: int):
    """How many KV slots each request keeps after verify (SGLang's own computation)."""
    return _compute_paged_keep_slots(
        prefix_lens=draft_input.draft_seq_lens,
        commit_lens=draft_input.ctx_lens,
        draft_token_num=draft_input.draft_token_num,
        page_size=page_size,
    )
