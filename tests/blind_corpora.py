"""The blind corpora (``tests/data/blind_*``): repositories written with their own answer
keys by sessions that never read the rules, scored only by ``scripts/score_blind.py``. No
test reads them, so that no rule comes to depend on what it finds there."""

from __future__ import annotations

from pathlib import Path

PREFIX = "blind_"


def is_blind(path: Path) -> bool:
    """Is ``path`` inside (or itself) a blind corpus of ``tests/data``?"""
    parts = path.parts
    return any(part.startswith(PREFIX) and parts[i - 1] == "data" for i, part in enumerate(parts) if i)
