"""Datasets over captured shards, plus an in-process adapter for live batches."""
from __future__ import annotations

import glob
import json
from dataclasses import dataclass
from typing import Iterator, List

import torch
from torch.utils.data import IterableDataset

from sglang.srt.speculative.dflash_info import DFlashDraftInput
from sglang.srt.speculative.dflash_utils import build_target_layer_ids, parse_dflash_draft_config


@dataclass
class DFlashDraftInputBuffer:
    """Our own CPU-side record of a draft step (not sglang's class)."""

    bonus_tokens: torch.Tensor
    target_hidden: torch.Tensor
    ctx_lens: torch.Tensor

    @classmethod
    def from_live(cls, spec_info: DFlashDraftInput) -> "DFlashDraftInputBuffer":
        return cls(
            bonus_tokens=spec_info.bonus_tokens.cpu(),
            target_hidden=spec_info.target_hidden.float().cpu(),
            ctx_lens=spec_info.ctx_lens.cpu(),
        )


class ShardDataset(IterableDataset):
    def __init__(self, pattern: str, block_size: int = 16, version: str = "v2"):
        self.files = sorted(glob.glob(pattern))
        self.block_size = block_size
        # "v1" shards were captured before we stored ctx_lens per request.
        self.version = version

    def __iter__(self) -> Iterator[dict]:
        for path in self.files:
            blob = torch.load(path, map_location="cpu")
            if self.version == "v1":
                blob["lens"] = torch.full((blob["hidden"].shape[0],), self.block_size)
            yield blob


def capture_layers(target_num_layers: int, draft_num_layers: int) -> List[int]:
    return build_target_layer_ids(target_num_layers, draft_num_layers)


def read_draft_config(hf_config) -> dict:
    cfg = parse_dflash_draft_config(draft_hf_config=hf_config)
    return {"block_size": cfg.resolve_block_size(default=16), "layers": cfg.require_num_layers()}


def load_manifest(path: str) -> dict:
    with open(path) as f:
        return json.load(f)
