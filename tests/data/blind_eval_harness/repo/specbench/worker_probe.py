"""Introspection helpers for the in-process speculative worker.

The eval harness runs sglang in-process (Engine) and pokes at the scheduler's
draft worker to collect per-step statistics that the HTTP API does not expose.
"""

from __future__ import annotations

import logging
from typing import Any, Optional

from sglang.srt.speculative.dflash_worker import DFlashWorker
from sglang.srt.speculative.dflash_info import DFlashVerifyInput
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

logger = logging.getLogger(__name__)


def find_draft_worker(scheduler: Any) -> Optional[DFlashWorker]:
    """Return the scheduler's DFLASH draft worker, or None for other algorithms."""
    worker = getattr(scheduler, "draft_worker", None)
    if isinstance(worker, DFlashWorker):
        return worker
    return None


def describe_worker(worker: DFlashWorker) -> dict[str, Any]:
    """Static facts about the draft worker, written next to every eval report."""
    return {
        "class": type(worker).__name__,
        "block_size": worker.block_size,
        "draft_window_size": worker.draft_window_size,
        "compact_draft_cache": worker.use_compact_draft_cache,
        "tp_rank": worker.tp_rank,
        "page_size": worker.page_size,
    }


def spec_v2_enabled(algorithm: str) -> bool:
    """Whether sglang will drive this algorithm through the overlap (V2) worker."""
    algo = SpeculativeAlgorithm.from_string(algorithm)
    return algo.supports_spec_v2()


def is_dflash(algorithm: str) -> bool:
    return SpeculativeAlgorithm.from_string(algorithm).is_dflash()


def attach_target_stub(worker: DFlashWorker, target: Any) -> None:
    """Swap the target worker for a recording proxy (used by the replay tool)."""
    worker.target_worker = target
    logger.info("attached recording proxy to %s", type(worker).__name__)


def greedy_probe(worker: DFlashWorker, hidden_states, lm_head):
    """Greedy token ids from the target head; used to sanity-check draft logits."""
    return worker._greedy_sample_from_vocab_parallel_head(
        hidden_states=hidden_states, lm_head=lm_head, chunk_size=128
    )


def verify_input_type() -> type:
    return DFlashVerifyInput
