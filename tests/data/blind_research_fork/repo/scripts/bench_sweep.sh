#!/usr/bin/env bash
# Sweep block size x draft window for one draft checkpoint; results go to results/sweep-*.jsonl
set -euo pipefail

DRAFT=${DRAFT:-checkpoints/kdraft-v2}
OUT=results/sweep-$(date +%Y%m%d-%H%M).jsonl
mkdir -p results

for bs in 8 16; do
  for win in 1024 2048 4096; do
    SGLANG_ENABLE_SPEC_V2=false python bench/bench_accept.py --draft "$DRAFT" --block-size "$bs" --window "$win" >> "$OUT"
  done
done

# the n-gram baseline needs no draft model
python -m sglang.bench_offline_throughput --model-path meta-llama/Llama-3.1-8B-Instruct \
  --speculative-algorithm NGRAM --speculative-num-draft-tokens 8 >> "$OUT"

python -m sglang.bench_offline_throughput --model-path meta-llama/Llama-3.1-8B-Instruct \
  --speculative-algorithm DFLASH --speculative-draft-model-path "$DRAFT" \
  --speculative-dflash-draft-window-size 2048 >> "$OUT"

env SGLANG_ENABLE_SPEC_V2=0 python -m sglang.bench_one_batch --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm DFLASH --speculative-draft-model-path "$DRAFT" --batch-size 1 8 32
