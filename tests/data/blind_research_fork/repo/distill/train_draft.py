"""Train a DFLASH block-draft model from captured target hidden states.

No sglang import here on purpose: training must run on boxes without the serving stack.
"""
from __future__ import annotations

import argparse
import math
import os

import torch
import torch.nn.functional as F

from distill.dataset import ShardDataset

MODEL_VERSIONS = {
    "v1": "kestrel/kdraft-v1-llama31-8b",
    "v2": "kestrel/kdraft-v2-llama31-8b",
}


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--shards", required=True)
    p.add_argument("--init-from", choices=sorted(MODEL_VERSIONS), default="v2")
    p.add_argument("--block-size", type=int, default=16)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--steps", type=int, default=20000)
    p.add_argument("--out", default="checkpoints/kdraft-v2")
    return p.parse_args()


def cosine_lr(step: int, total: int, base: float) -> float:
    return 0.5 * base * (1 + math.cos(math.pi * min(step, total) / total))


def block_loss(logits: torch.Tensor, labels: torch.Tensor, block_size: int) -> torch.Tensor:
    # position-weighted CE: early positions in a block matter more for acceptance
    weights = torch.exp(-torch.arange(block_size, device=logits.device) / 4.0)
    ce = F.cross_entropy(logits.flatten(0, 1), labels.flatten(), reduction="none").view(-1, block_size)
    return (ce * weights).mean()


def main() -> None:
    args = parse_args()
    ds = ShardDataset(args.shards, block_size=args.block_size, version="v2")
    os.makedirs(args.out, exist_ok=True)
    print(f"training from {MODEL_VERSIONS[args.init_from]} on {len(ds.files)} shards")


if __name__ == "__main__":
    main()
