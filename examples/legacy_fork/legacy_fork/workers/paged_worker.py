"""A research worker that customised the V1 verify path for paged KV caches."""

from __future__ import annotations

from typing import Optional

import torch

from sglang.srt.speculative import dflash_worker as v1
from sglang.srt.speculative.dflash_info import DFlashVerifyInput, _compute_paged_keep_slots
from sglang.srt.speculative.dflash_info import DFlashDraftInput as DraftInput


class PagedDFlashWorker(v1.DFlashWorker):
    def __init__(self, server_args, gpu_id, tp_rank, dp_rank, moe_ep_rank, attn_cp_rank, moe_dp_rank, nccl_port, target_worker):
        super().__init__(server_args, gpu_id, tp_rank, dp_rank, moe_ep_rank, attn_cp_rank, moe_dp_rank, nccl_port, target_worker)
        self.last_verify: Optional[DFlashVerifyInput] = None

    def _prepare_for_speculative_decoding(self, batch, draft_input: DraftInput):
        verify_input = DFlashVerifyInput(
            draft_token=draft_input.bonus_tokens,
            positions=batch.seq_lens,
            draft_token_num=self.block_size,
        )
        verify_input.prepare_for_verify(batch, self.page_size, build_custom_mask=False)
        self.last_verify = verify_input
        return verify_input

    def _append_target_hidden_to_draft_kv(self, batch, draft_input: DraftInput) -> None:
        keep = _compute_paged_keep_slots(
            prefix_lens=draft_input.draft_seq_lens,
            commit_lens=draft_input.ctx_lens,
            draft_token_num=self.block_size,
            page_size=self.page_size,
        )
        draft_input.target_hidden = draft_input.target_hidden[keep]
        super()._append_target_hidden_to_draft_kv(batch, draft_input)

    def accept(self, batch, logits_output):
        verify_input = self.last_verify
        bonus, commit_lens, hidden, per_req = verify_input.verify(
            batch=batch, logits_output=logits_output, page_size=self.page_size
        )
        tokens_per_req = verify_input.num_tokens_per_batch
        return bonus, commit_lens, torch.as_tensor(per_req), tokens_per_req
