"""Debug snapshots of the draft state, written when ACME_DEBUG_DIR is set."""

from __future__ import annotations

import json
import os
import time


def enabled() -> bool:
    return bool(os.environ.get("ACME_DEBUG_DIR"))


def snapshot(stage: str, **fields: object) -> None:
    folder = os.environ.get("ACME_DEBUG_DIR")
    if not folder:
        return
    os.makedirs(folder, exist_ok=True)
    name = f"{stage}-{os.getpid()}-{time.monotonic_ns()}.json"
    with open(os.path.join(folder, name), "w") as handle:
        json.dump({"stage": stage, **{k: repr(v) for k, v in fields.items()}}, handle)
