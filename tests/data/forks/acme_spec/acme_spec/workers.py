"""DFLASH workers with draft-stage metrics and debug snapshots."""

from __future__ import annotations

import logging

from . import debug, metrics
from .compat import DFlashWorker
from .kv import keep_slots

logger = logging.getLogger(__name__)


class MetricsDFlashWorker(DFlashWorker):
    """The stock worker plus a metric per draft stage and a forward-call counter."""

    forward_calls = 0
    draft_stage_calls = 0

    def _prepare_for_speculative_decoding(self, batch, draft_input):
        type(self).draft_stage_calls += 1
        metrics.record("draft_stage")
        metrics.record("kept_slots", int(sum(keep_slots(draft_input, self.page_size))))
        return super()._prepare_for_speculative_decoding(batch, draft_input)

    def _append_target_hidden_to_draft_kv(self, batch, draft_input):
        metrics.record("draft_kv_appends")
        if debug.enabled():
            debug.snapshot("append_target_hidden", ctx_lens=draft_input.ctx_lens)
        return super()._append_target_hidden_to_draft_kv(batch, draft_input)

    def forward_batch_generation(self, batch, *args, **kwargs):
        type(self).forward_calls += 1
        metrics.record("forward")
        return super().forward_batch_generation(batch, *args, **kwargs)


class SnapshotDFlashWorker(MetricsDFlashWorker):
    """Also snapshots every KV append (used when chasing acceptance regressions)."""

    def _append_target_hidden_to_draft_kv(self, batch, draft_input):
        debug.snapshot("append_target_hidden_full", draft_input=draft_input)
        return super()._append_target_hidden_to_draft_kv(batch, draft_input)
