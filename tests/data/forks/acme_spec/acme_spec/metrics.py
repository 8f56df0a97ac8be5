"""Process-wide counters for the draft stage, exported by the team's Prometheus sidecar."""

from __future__ import annotations

import threading
from collections import Counter

_lock = threading.Lock()
_counts: Counter[str] = Counter()


def record(name: str, amount: int = 1) -> None:
    with _lock:
        _counts[name] += amount


def snapshot() -> dict[str, int]:
    with _lock:
        return dict(_counts)


def reset() -> None:
    with _lock:
        _counts.clear()
