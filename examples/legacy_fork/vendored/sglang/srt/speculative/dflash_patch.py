"""Our patch on top of SGLang's speculative package (vendored, relative imports)."""

from .dflash_worker import DFlashWorker
from . import dflash_info
from ..managers.schedule_batch import ScheduleBatch


def is_dflash_worker(worker) -> bool:
    return isinstance(worker, DFlashWorker)


def draft_input_type() -> type:
    return dflash_info.DFlashDraftInput


def uses_v2(batch: ScheduleBatch) -> bool:
    return batch.is_spec_v2
