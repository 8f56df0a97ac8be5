"""Registers the fork's worker with SGLang's plugin API as algorithm ``COUNTING_DFLASH``."""

from __future__ import annotations


def register() -> None:
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    from .workers.counting_worker import CountingDFlashWorker

    SpeculativeAlgorithm.register("COUNTING_DFLASH", base="DFLASH", worker_cls=CountingDFlashWorker)
