"""A research worker that customised the V1 verify path for paged KV caches."""

from __future__ import annotations

from typing import Optional

import torch

from sglang.srt.speculative import dflash_worker_v2 as v1
# TODO(dflash-migrate): DFM104 `_compute_paged_keep_slots` was removed with no
#   replacement (MIGRATION.md#dfm104)
from sglang.srt.speculative.dflash_info import DFlashVerifyInput, _compute_paged_keep_slots
from sglang.srt.speculative.dflash_info_v2 import DFlashDraftInputV2 as DraftInput


class PagedDFlashWorker(v1.DFlashWorkerV2):
    def __init__(self, server_args, gpu_id, tp_rank, dp_rank, moe_ep_rank, attn_cp_rank, moe_dp_rank, nccl_port, target_worker):
        # TODO(dflash-migrate): DFM111 the worker constructor's rank arguments changed
        #   (`ps: ParallelState` in 0.5.16-0.5.20, none from 0.5.21)
        #   (MIGRATION.md#dfm111)
        super().__init__(server_args, gpu_id, tp_rank, dp_rank, moe_ep_rank, attn_cp_rank, moe_dp_rank, nccl_port, target_worker)
        self.last_verify: Optional[DFlashVerifyInput] = None

    # TODO(dflash-migrate): DFM106 override of `_prepare_for_speculative_decoding`:
    #   `DFlashWorker._prepare_for_speculative_decoding` was removed; V2 never calls it
    #   (MIGRATION.md#dfm106)
    def _prepare_for_speculative_decoding(self, batch, draft_input: DraftInput):
        verify_input = DFlashVerifyInput(
            draft_token=draft_input.bonus_tokens,
            positions=batch.seq_lens,
            draft_token_num=self.block_size,
        )
        # TODO(dflash-migrate): DFM110 V1 call form
        #   `prepare_for_verify(batch, page_size)`; V2 takes `(batch, target_worker)`
        #   and returns `(ForwardBatch, bool)` (MIGRATION.md#dfm110)
        verify_input.prepare_for_verify(batch, self.page_size, build_custom_mask=False)
        self.last_verify = verify_input
        return verify_input

    # TODO(dflash-migrate): DFM107 override of `_append_target_hidden_to_draft_kv`:
    #   `_append_target_hidden_to_draft_kv` was removed; use
    #   `_append_target_hidden_to_draft_kv_by_loc` (MIGRATION.md#dfm107)
    def _append_target_hidden_to_draft_kv(self, batch, draft_input: DraftInput) -> None:
        # TODO(dflash-migrate): DFM104 `_compute_paged_keep_slots` was removed with no
        #   replacement (MIGRATION.md#dfm104)
        # TODO(dflash-migrate): DFM109 `draft_seq_lens`: this `DFlashDraftInput` field
        #   does not exist on `DFlashDraftInputV2`; also `ctx_lens`
        #   (MIGRATION.md#dfm109)
        keep = _compute_paged_keep_slots(
            prefix_lens=draft_input.draft_seq_lens,
            commit_lens=draft_input.ctx_lens,
            draft_token_num=self.block_size,
            page_size=self.page_size,
        )
        # TODO(dflash-migrate): DFM109 `target_hidden`: this `DFlashDraftInput` field
        #   does not exist on `DFlashDraftInputV2` (MIGRATION.md#dfm109)
        draft_input.target_hidden = draft_input.target_hidden[keep]
        # TODO(dflash-migrate): DFM107 `_append_target_hidden_to_draft_kv` was removed;
        #   use `_append_target_hidden_to_draft_kv_by_loc` (MIGRATION.md#dfm107)
        super()._append_target_hidden_to_draft_kv(batch, draft_input)

    def accept(self, batch, logits_output):
        verify_input = self.last_verify
        # TODO(dflash-migrate): DFM105 `DFlashVerifyInput.verify()` was removed;
        #   acceptance now happens inside the V2 worker (MIGRATION.md#dfm105)
        bonus, commit_lens, hidden, per_req = verify_input.verify(
            batch=batch, logits_output=logits_output, page_size=self.page_size
        )
        tokens_per_req = verify_input.num_tokens_per_req
        return bonus, commit_lens, torch.as_tensor(per_req), tokens_per_req
