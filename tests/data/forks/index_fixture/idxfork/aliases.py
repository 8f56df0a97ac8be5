"""Shorter names for the worker and the draft input."""

from sglang.srt.speculative.dflash_worker import DFlashWorker as BaseWorker

from .compat import DFlashDraftInput as DraftIn

__all__ = ["BaseWorker", "DraftIn"]
