"""Worker names the deployment configs use (``ACME_DFLASH_WORKER``, see ``plugin.py``)."""

from __future__ import annotations

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
