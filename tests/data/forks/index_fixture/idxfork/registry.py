"""Worker names for the deployment configs."""

import idxfork.compat as c

from .workers import BaselineWorker

WORKERS = {
    "stock": c.DFlashWorker,
    "baseline": BaselineWorker,
}


def resolve(name):
    return WORKERS[name]
