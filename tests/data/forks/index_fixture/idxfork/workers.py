"""The fork's worker: a subclass of the worker compat exports."""

from .compat import DFlashWorker


class BaselineWorker(DFlashWorker):
    """Counts draft stages."""

    stages = 0

    def _prepare_for_speculative_decoding(self, batch, draft_input):
        type(self).stages += 1
        return super()._prepare_for_speculative_decoding(batch, draft_input)

    def forward_batch_generation(self, batch, *args, **kwargs):
        return super().forward_batch_generation(batch, *args, **kwargs)
