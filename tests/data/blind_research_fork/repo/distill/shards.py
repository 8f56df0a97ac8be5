"""Append-only tensor shards for captured hidden states."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import List

import torch


class ShardWriter:
    def __init__(self, root: str, shard_size: int = 4096):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.shard_size = shard_size
        self._buf: List[torch.Tensor] = []
        self._lens: List[torch.Tensor] = []
        self._accepts: List[int] = []
        self._index = 0

    def write(self, hidden: torch.Tensor, lens: torch.Tensor) -> None:
        self._buf.append(hidden)
        self._lens.append(lens)
        if sum(t.shape[0] for t in self._buf) >= self.shard_size:
            self.flush()

    def note_accepts(self, per_req: List[int]) -> None:
        self._accepts.extend(int(x) for x in per_req)

    def flush(self) -> None:
        if not self._buf:
            return
        path = self.root / f"shard-{os.getpid()}-{self._index:05d}.pt"
        torch.save({"hidden": torch.cat(self._buf), "lens": torch.cat(self._lens)}, path)
        (path.with_suffix(".json")).write_text(json.dumps({"accepts": self._accepts}))
        self._buf, self._lens, self._accepts = [], [], []
        self._index += 1
