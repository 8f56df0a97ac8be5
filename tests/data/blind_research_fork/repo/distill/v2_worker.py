"""Port of the capture worker to sglang's unified V2 DFLASH worker.

Started on the 0.5.14 branch (`feat/sglang-0514`); not yet the default because the
capture path still relies on V1 behaviour. See docs/architecture.md.
"""
from __future__ import annotations

import logging
from typing import Optional

from sglang.srt.speculative.dflash_info import DFlashVerifyInput
from sglang.srt.speculative.dflash_info_v2 import DFlashDraftInputV2
from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2

from distill.shards import ShardWriter

logger = logging.getLogger(__name__)


class CapturingDFlashWorkerV2(DFlashWorkerV2):
    def __init__(self, server_args, gpu_id, tp_rank, dp_rank, moe_ep_rank, attn_cp_rank, moe_dp_rank, nccl_port, target_worker, capture_dir: Optional[str] = None):
        super().__init__(server_args, gpu_id, tp_rank, dp_rank, moe_ep_rank, attn_cp_rank, moe_dp_rank, nccl_port, target_worker)
        self._writer = ShardWriter(capture_dir or "/data/capture-v2")
        self._layers = self.target_worker.model_runner.dflash_target_layer_ids

    def forward_batch_generation(self, model_worker_batch, on_publish=None):
        result = super().forward_batch_generation(model_worker_batch, on_publish=on_publish)
        nxt: Optional[DFlashDraftInputV2] = result.next_draft_input
        if nxt is not None and self.tp_rank == 0:
            self._writer.note_accepts(result.accept_lens.tolist() if result.accept_lens is not None else [])
            logger.debug("next verified ids: %s", nxt.verified_id.shape)
        return result


def verify_tokens_per_req(verify_input: DFlashVerifyInput) -> int:
    return verify_input.num_tokens_per_batch


def idle_input(device) -> DFlashDraftInputV2:
    return DFlashDraftInputV2.create_idle_input(device)


def sample_head(worker: DFlashWorkerV2, hidden_states, lm_head):
    # same signature in V1 and V2
    return worker._greedy_sample_from_vocab_parallel_head(hidden_states=hidden_states, lm_head=lm_head)
