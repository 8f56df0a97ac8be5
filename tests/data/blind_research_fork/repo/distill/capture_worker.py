"""Capture target hidden states while serving, to build distillation data.

We subclass the DFLASH worker so that every verify step dumps the committed
target hidden states (the tensors the draft KV is built from) to a shard on
disk. Written against sglang 0.5.13 (see requirements-serve.txt).
"""
from __future__ import annotations

import logging
import os
from typing import Optional

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.speculative.dflash_info import DFlashDraftInput
from sglang.srt.speculative.dflash_worker import DFlashWorker
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

from distill.shards import ShardWriter

logger = logging.getLogger(__name__)


class CapturingDFlashWorker(DFlashWorker):
    """DFlashWorker that also writes (hidden, ctx_len) pairs for the distiller."""

    def __init__(self, *args, capture_dir: Optional[str] = None, **kwargs):
        super().__init__(*args, **kwargs)
        self._writer = ShardWriter(capture_dir or os.environ.get("KESTREL_CAPTURE_DIR", "/data/capture"))
        self._steps = 0
        assert self.server_args.speculative_algorithm == "DFLASH"

    def _append_target_hidden_to_draft_kv(self, batch: ScheduleBatch, draft_input: DFlashDraftInput) -> None:
        hidden = draft_input.target_hidden
        ctx = draft_input.ctx_lens
        if hidden is not None:
            self._writer.write(hidden.detach().cpu(), ctx.detach().cpu())
        super()._append_target_hidden_to_draft_kv(batch, draft_input)

    def forward_batch_generation(self, batch: ScheduleBatch, **kwargs):
        result = super().forward_batch_generation(batch, **kwargs)
        self._steps += 1
        if result.num_correct_drafts_per_req_cpu is not None:
            self._writer.note_accepts(result.num_correct_drafts_per_req_cpu)
        if self._steps % 1000 == 0:
            logger.info("capture: %d steps, draft seq lens %s", self._steps, batch.spec_info.draft_seq_lens)
        return result


def is_dflash(server_args) -> bool:
    return SpeculativeAlgorithm.from_string(server_args.speculative_algorithm).is_dflash()
