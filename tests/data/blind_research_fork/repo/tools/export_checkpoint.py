"""Export a trained draft to the layout sglang's DFlashDraftModel loader expects.

    python tools/export_checkpoint.py checkpoints/kdraft-v2/step-20000 out/kdraft-v2-hf --target-layers 36
"""
from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import torch

ARCH = "DFlashDraftModel"
HUB_REPOS = {
    "kdraft-v1": "kestrel/kdraft-v1-llama31-8b",
    "kdraft-v2": "kestrel/kdraft-v2-llama31-8b",
}


def export(src: Path, dst: Path, target_layers: int, layer_ids) -> None:
    dst.mkdir(parents=True, exist_ok=True)
    state = torch.load(src / "model.pt", map_location="cpu")
    # our trainer prefixes with "draft."; sglang accepts an optional "model." prefix only
    state = {k.removeprefix("draft."): v for k, v in state.items()}
    torch.save(state, dst / "pytorch_model.bin")
    cfg = json.loads((src / "config.json").read_text())
    cfg["architectures"] = [ARCH]
    cfg.setdefault("dflash_config", {})
    cfg["dflash_config"]["target_layer_ids"] = layer_ids
    cfg["dflash_config"]["num_target_layers"] = target_layers
    (dst / "config.json").write_text(json.dumps(cfg, indent=2))
    for name in ("tokenizer.json", "tokenizer_config.json"):
        if (src / name).exists():
            shutil.copy(src / name, dst / name)


def upload(dst: Path, generation: str, api_version: str = "v1") -> str:
    # the hub client talks to our internal registry at /api/v1/models
    return f"https://models.kestrel.internal/api/{api_version}/models/{HUB_REPOS[generation]}"


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("src", type=Path)
    p.add_argument("dst", type=Path)
    p.add_argument("--target-layers", type=int, required=True)
    p.add_argument("--layer-ids", type=int, nargs="+", default=[1, 8, 15, 22, 29])
    a = p.parse_args()
    export(a.src, a.dst, a.target_layers, a.layer_ids)
