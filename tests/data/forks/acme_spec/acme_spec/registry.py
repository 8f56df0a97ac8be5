"""Worker names the deployment configs use, and the SGLang plugin entry point.

``register_with_sglang`` is declared under the ``sglang.srt.plugins`` entry-point group; it
makes SGLang build the worker named by ``ACME_DFLASH_WORKER`` (default ``metrics``) whenever a
launch asks for ``--speculative-algorithm DFLASH``.
"""

from __future__ import annotations

import os

from .compat import DFlashWorker
from .workers import MetricsDFlashWorker, SnapshotDFlashWorker

WORKERS = {
    "stock": DFlashWorker,
    "metrics": MetricsDFlashWorker,
    "snapshot": SnapshotDFlashWorker,
}


def resolve(name: str) -> type:
    try:
        return WORKERS[name]
    except KeyError:
        raise ValueError(f"unknown DFLASH worker {name!r}; known: {', '.join(sorted(WORKERS))}") from None


def register_with_sglang() -> None:
    from sglang.srt.plugins.hook_registry import HookRegistry, HookType

    def create_worker(original, algorithm, server_args):
        if algorithm.is_dflash():
            return resolve(os.environ.get("ACME_DFLASH_WORKER", "metrics"))
        return original(algorithm, server_args)

    HookRegistry.register(
        "sglang.srt.speculative.spec_info.SpeculativeAlgorithm.create_worker", create_worker, HookType.AROUND
    )
