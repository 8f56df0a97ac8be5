"""Acceptance-length accounting for speculative decoding runs.

One `StepRecord` per decode step of the draft worker. The numbers feed the
"accepted tokens per step" column of the eval report.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Iterable, List, Sequence

from sglang.srt.speculative.dflash_utils import compute_dflash_correct_drafts_and_bonus


@dataclass
class StepRecord:
    batch_size: int
    correct_drafts: int
    per_request: List[int] = field(default_factory=list)

    @property
    def tokens_per_step(self) -> float:
        # every request also commits one bonus token per step
        return (self.correct_drafts + self.batch_size) / max(self.batch_size, 1)


def record_from_result(result, batch_size: int) -> StepRecord:
    """Turn a DFlashWorker.forward_batch_generation result into a StepRecord."""
    per_request = list(result.num_correct_drafts_per_req_cpu or [])
    return StepRecord(
        batch_size=batch_size,
        correct_drafts=int(result.num_correct_drafts),
        per_request=per_request,
    )


def step(worker, batch, batch_size: int) -> StepRecord:
    result = worker.forward_batch_generation(batch)
    return record_from_result(result, batch_size)


def mean_acceptance(records: Iterable[StepRecord]) -> float:
    values = [r.tokens_per_step for r in records]
    return statistics.fmean(values) if values else 0.0


def acceptance_histogram(records: Sequence[StepRecord], block_size: int) -> List[int]:
    hist = [0] * (block_size + 1)
    for record in records:
        for accepted in record.per_request:
            hist[min(accepted, block_size)] += 1
    return hist


def reference_accept(candidates, target_predict):
    """Offline recomputation of the acceptance rule, for cross-checking a run."""
    return compute_dflash_correct_drafts_and_bonus(
        candidates=candidates, target_predict=target_predict
    )
