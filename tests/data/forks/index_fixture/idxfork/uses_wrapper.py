"""Reads the draft input through the wrapper of another module."""

from .wrappers import DraftBatch


def total(batch: DraftBatch) -> int:
    return sum(batch.inner.draft_seq_lens) + batch.size
