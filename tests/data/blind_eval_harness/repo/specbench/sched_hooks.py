"""Scheduler hooks: wrap sglang internals to time each speculative step.

Installed by `specbench run --trace-steps`. Everything here is best effort:
if sglang's internals move, the hooks log once and stay out of the way.
"""

from __future__ import annotations

import functools
import importlib
import logging
import time
from typing import Any, Callable, List

logger = logging.getLogger(__name__)

STEP_TIMES: List[float] = []

DFLASH_WORKER_PATH = "sglang.srt.speculative.dflash_worker"
DFLASH_FORWARD_TARGET = "sglang.srt.speculative.dflash_worker.DFlashWorker.forward_batch_generation"


def _timed(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            STEP_TIMES.append(time.perf_counter() - start)

    return wrapper


def install() -> bool:
    try:
        module = importlib.import_module(DFLASH_WORKER_PATH)
    except ImportError:
        logger.warning("DFLASH worker module not found; step timing disabled")
        return False
    cls = module.DFlashWorker
    cls.forward_batch_generation = _timed(cls.forward_batch_generation)
    return True


def batch_kind(batch) -> str:
    if batch.forward_mode.is_extend():
        return "prefill"
    return "decode-v2" if batch.is_spec_v2 else "decode-v1"


def drop_finished(batch, keep_indices) -> None:
    batch.filter_batch(keep_indices=keep_indices, v1_spec_info_filtered=True)


def reset() -> None:
    STEP_TIMES.clear()
