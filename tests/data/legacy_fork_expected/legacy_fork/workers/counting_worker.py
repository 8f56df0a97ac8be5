"""A DFLASH worker that counts decode steps and accepted draft tokens.

Written for sglang 0.5.13, where SGLang built the V1 ``DFlashWorker``. It only wraps the
worker's entry point, so once the base class is renamed it runs unchanged on V2.
"""

from __future__ import annotations

import logging

from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2

logger = logging.getLogger(__name__)


class CountingDFlashWorker(DFlashWorkerV2):
    """Counts forward calls; everything else is the stock worker."""

    forward_calls = 0

    # TODO(dflash-migrate): DFM108 override of `forward_batch_generation`: the V1
    #   `forward_batch_generation(batch, **kwargs)` contract changed in V2
    #   (MIGRATION.md#dfm108)
    def forward_batch_generation(self, batch, *args, **kwargs):
        type(self).forward_calls += 1
        result = super().forward_batch_generation(batch, *args, **kwargs)
        if type(self).forward_calls % 1000 == 0:
            logger.info("CountingDFlashWorker: %d forward calls", type(self).forward_calls)
        return result
