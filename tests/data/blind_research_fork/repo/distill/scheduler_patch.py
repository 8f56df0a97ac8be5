"""Scheduler-side patches: request validation and batch filtering.

We reject requests whose sampling params the DFLASH verifier can't honour
before they reach the worker, and we keep the spec info of filtered batches
in sync after our early-exit logic drops finished requests.
"""
from __future__ import annotations

import logging
from typing import List

from sglang.srt.managers.schedule_batch import Req, ScheduleBatch
from sglang.srt.managers.scheduler import Scheduler
from sglang.srt.speculative.dflash_utils import validate_dflash_request

logger = logging.getLogger(__name__)


def reject_unsupported(reqs: List[Req]) -> List[Req]:
    kept = []
    for req in reqs:
        error = validate_dflash_request(req)
        if error is not None:
            logger.warning("rejecting %s: %s", req.rid, error)
            req.set_finish_with_abort(error)
            continue
        kept.append(req)
    return kept


def drop_finished(batch: ScheduleBatch, finished: List[int]) -> None:
    keep = [i for i in range(len(batch.reqs)) if i not in set(finished)]
    if batch.is_spec_v2:
        batch.filter_batch(keep_indices=keep)
    else:
        batch.filter_batch(keep_indices=keep, v1_spec_info_filtered=True)


def patch_scheduler() -> None:
    orig = Scheduler.get_next_batch_to_run

    def get_next_batch_to_run(self):
        batch = orig(self)
        if batch is not None and batch.spec_algorithm.is_dflash() and not batch.spec_algorithm.supports_spec_v2():
            batch.reqs = reject_unsupported(batch.reqs)
        return batch

    Scheduler.get_next_batch_to_run = get_next_batch_to_run
