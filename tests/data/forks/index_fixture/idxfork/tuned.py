"""Reached only through a renamed re-export: no V1 name is spelled here."""

from idxfork.chain import EngineWorker


class TunedWorker(EngineWorker):
    def _prepare_for_speculative_decoding(self, batch, draft_input):
        return None
