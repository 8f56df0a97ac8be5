"""Our patch on top of SGLang's speculative package (vendored, relative imports)."""

from .dflash_worker_v2 import DFlashWorkerV2
from ..managers.schedule_batch import ScheduleBatch
from .dflash_info_v2 import DFlashDraftInputV2


def is_dflash_worker(worker) -> bool:
    return isinstance(worker, DFlashWorkerV2)


def draft_input_type() -> type:
    return DFlashDraftInputV2


def uses_v2(batch: ScheduleBatch) -> bool:
    return not batch.spec_algorithm.is_none()
