#!/usr/bin/env bash
# Sweep block size x draft window for one target/draft pair.
set -euo pipefail

TARGET=${TARGET:-meta-llama/Llama-3.1-8B-Instruct}
DRAFT=${DRAFT:-z-lab/LLaMA3.1-8B-Instruct-DFlash-UltraChat}

for bs in 8 16; do
  for window in 0 512 2048; do
    args=(--model-path "$TARGET" --speculative-algorithm DFLASH
          --speculative-draft-model-path "$DRAFT"
          --speculative-dflash-block-size "$bs" --port 31000)
    if [ "$window" -gt 0 ]; then
      args+=(--speculative-draft-window-size "$window")
    fi
    SGLANG_ENABLE_SPEC_V2=false python -m sglang.launch_server "${args[@]}" &
    pid=$!
    python -m sglang.bench_serving --backend sglang --port 31000 \
      --dataset-name random --num-prompts 200 --random-input-len 512 \
      --output-file "sweep_bs${bs}_w${window}.jsonl" || true
    kill "$pid"; wait "$pid" || true
  done
done
