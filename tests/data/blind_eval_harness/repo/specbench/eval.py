"""Acceptance-length eval over HTTP (default) or in-process (--engine)."""

from __future__ import annotations

import argparse
import json
import pathlib
import time
from typing import Any, Dict, Iterable, List

import httpx
import yaml

from specbench.metrics import SpecMetrics

PROMPTS = [
    "Explain speculative decoding in two sentences.",
    "Write a haiku about GPUs.",
    "What is 17 * 23? Show your work.",
]


def load_profile(path: str) -> Dict[str, Any]:
    with open(path) as fh:
        return yaml.safe_load(fh)


def run_http(port: int, prompts: Iterable[str], max_new_tokens: int = 256) -> List[Dict[str, Any]]:
    rows = []
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=600) as client:
        for prompt in prompts:
            start = time.perf_counter()
            resp = client.post(
                "/generate",
                json={"text": prompt, "sampling_params": {"max_new_tokens": max_new_tokens, "temperature": 0}},
            )
            resp.raise_for_status()
            out = resp.json()
            out["latency_s"] = time.perf_counter() - start
            rows.append(out)
    return rows


def run_engine(profile: Dict[str, Any]) -> Dict[str, Any]:
    import sglang as sgl

    engine = sgl.Engine(
        model_path=profile["target_model"],
        speculative_algorithm=profile.get("algorithm", "DFLASH"),
        speculative_draft_model_path=profile["draft_model"],
        speculative_dflash_block_size=profile.get("block_size", 16),
        speculative_draft_window_size=profile.get("draft_window_size"),
        disable_overlap_schedule=True,
    )
    try:
        runner = engine.tokenizer_manager  # noqa: F841  (keeps the engine alive in notebooks)
        model_runner = engine.scheduler.tp_worker.model_runner
        capture = {
            "target_layer_ids": list(model_runner.dflash_target_layer_ids or []),
            "draft_num_layers": model_runner.dflash_draft_num_layers,
        }
        outputs = engine.generate(PROMPTS, {"max_new_tokens": 256, "temperature": 0})
    finally:
        engine.shutdown()
    return {"capture": capture, "outputs": outputs}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--profile")
    parser.add_argument("--port", type=int, default=30000)
    parser.add_argument("--out", required=True)
    parser.add_argument("--engine", action="store_true")
    args = parser.parse_args()

    metrics = SpecMetrics()
    if args.engine:
        result = run_engine(load_profile(args.profile))
        rows = result["outputs"]
    else:
        rows = run_http(args.port, PROMPTS)
    for row in rows:
        metrics.observe(row.get("meta_info") or {})
    path = pathlib.Path(args.out)
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    print(json.dumps(metrics.summary()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
