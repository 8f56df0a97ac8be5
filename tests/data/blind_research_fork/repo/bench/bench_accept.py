"""Acceptance-length benchmark for a draft checkpoint.

    python bench/bench_accept.py --draft checkpoints/kdraft-v2 --target meta-llama/Llama-3.1-8B-Instruct

Runs an in-process Engine with DFLASH, installs distill.hooks to collect the
per-request accept histogram, and prints mean accepted length per block.
"""
from __future__ import annotations

import argparse
import json
import os
import time

import sglang as sgl
from sglang.srt.speculative.dflash_worker import DFlashWorker
from sglang.test.test_utils import DEFAULT_DRAFT_MODEL_DFLASH, DEFAULT_TARGET_MODEL_DFLASH

from distill import hooks


def build_engine(args) -> "sgl.Engine":
    os.environ.setdefault("SGLANG_ENABLE_SPEC_V2", "false")
    return sgl.Engine(
        model_path=args.target,
        speculative_algorithm="DFLASH",
        speculative_draft_model_path=args.draft,
        speculative_dflash_block_size=args.block_size,
        speculative_num_draft_tokens=args.block_size,
        speculative_draft_window_size=args.window,
        disable_overlap_schedule=True,
        mem_fraction_static=0.8,
    )


def micro_bench_worker(server_args, target_worker, batch, iters: int = 50):
    """Drive the draft worker directly, bypassing the scheduler (V1 only)."""
    worker = DFlashWorker(
        server_args=server_args,
        gpu_id=0,
        tp_rank=0,
        dp_rank=None,
        moe_ep_rank=0,
        attn_cp_rank=0,
        moe_dp_rank=0,
        nccl_port=server_args.nccl_port,
        target_worker=target_worker,
    )
    worker.target_worker = target_worker
    t0 = time.perf_counter()
    accepted = 0
    for _ in range(iters):
        out = worker.forward_batch_generation(batch)
        accepted += out.num_correct_drafts
        new_tokens = out.next_token_ids.tolist()
        for req, tok in zip(batch.reqs, new_tokens):
            req.output_ids.append(tok)
    dt = time.perf_counter() - t0
    return {"iters": iters, "sec": dt, "accepted": accepted, "spec_info": type(batch.spec_info).__name__}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--target", default=DEFAULT_TARGET_MODEL_DFLASH)
    p.add_argument("--draft", default=DEFAULT_DRAFT_MODEL_DFLASH)
    p.add_argument("--block-size", type=int, default=16)
    p.add_argument("--window", type=int, default=None)
    p.add_argument("--prompts", default="data/mtbench.jsonl")
    args = p.parse_args()

    hooks.install()
    engine = build_engine(args)
    prompts = [json.loads(l)["prompt"] for l in open(args.prompts)]
    t0 = time.perf_counter()
    engine.generate(prompts, {"max_new_tokens": 256, "temperature": 0})
    dt = time.perf_counter() - t0
    hist = hooks.ACCEPT_HISTOGRAM
    mean = float((hist * hist.new_tensor(range(len(hist)))).sum() / hist.sum().clamp(min=1))
    print(json.dumps({"sec": dt, "mean_accept": mean, "histogram": hist.tolist()}))
    engine.shutdown()


if __name__ == "__main__":
    main()
