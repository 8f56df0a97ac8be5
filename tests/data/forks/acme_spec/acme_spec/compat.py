"""The one place that imports SGLang's speculative-decoding internals.

Everything else in acme_spec imports the SGLang classes from here, so that an SGLang
upgrade touches one file.
"""

from sglang.srt.speculative.dflash_info import DFlashDraftInput, DFlashVerifyInput
from sglang.srt.speculative.dflash_worker import DFlashWorker

__all__ = ["DFlashDraftInput", "DFlashVerifyInput", "DFlashWorker"]
