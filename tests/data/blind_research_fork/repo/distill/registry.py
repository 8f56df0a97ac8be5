"""Names that experiment configs use to pick a worker implementation.

Configs say ``worker: capture`` or ``worker: sglang-dflash``; we resolve those
lazily so that ``train_draft`` never imports the serving stack.
"""
from __future__ import annotations

import importlib
from typing import Callable, Dict

WORKER_FACTORIES: Dict[str, str] = {
    "sglang-dflash": "sglang.srt.speculative.dflash_worker:DFlashWorker",
    "sglang-dflash-v2": "sglang.srt.speculative.dflash_worker_v2:DFlashWorkerV2",
    "capture": "distill.capture_worker:CapturingDFlashWorker",
    "eagle3": "sglang.srt.speculative.eagle_worker_v2:EAGLEWorkerV2",
}

DRAFT_INPUT_CLASSES = {
    "dflash": ("sglang.srt.speculative.dflash_info", "DFlashDraftInput"),
    "dflash-verify": ("sglang.srt.speculative.dflash_info", "DFlashVerifyInput"),
}

DFLASH_V1_MODULE = "sglang.srt.speculative.dflash_worker"


def resolve(spec: str) -> Callable:
    module_name, _, attr = spec.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attr)


def worker_class(name: str):
    return resolve(WORKER_FACTORIES[name])


def draft_input_class(kind: str):
    module_name, attr = DRAFT_INPUT_CLASSES[kind]
    return getattr(importlib.import_module(module_name), attr)


def v1_worker_module():
    return importlib.import_module("sglang.srt.speculative.dflash_worker")


def has_v1_worker() -> bool:
    try:
        importlib.import_module(DFLASH_V1_MODULE)
    except ImportError:
        return False
    return True


LAZY: Dict[str, Callable[[], type]] = {
    "greedy_head": lambda: getattr(v1_worker_module().DFlashWorker, "_greedy_sample_from_vocab_parallel_head"),
}
