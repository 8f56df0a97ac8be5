"""A subclass of the fork's worker, in another module."""

from .workers import BaselineWorker


class DeepWorker(BaselineWorker):
    def _append_target_hidden_to_draft_kv(self, batch, draft_input):
        return None
