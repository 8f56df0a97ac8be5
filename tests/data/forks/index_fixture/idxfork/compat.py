"""The one place that imports SGLang's DFLASH internals; everything else imports from here."""

try:
    from sglang.srt.speculative.dflash_info import DFlashDraftInput
    from sglang.srt.speculative.dflash_worker import DFlashWorker

    HAS_DFLASH = True
except ImportError:
    DFlashDraftInput = None
    DFlashWorker = None
    HAS_DFLASH = False
