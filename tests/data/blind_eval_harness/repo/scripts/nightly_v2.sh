#!/usr/bin/env bash
# Nightly: same sweep against the newest sglang, overlap scheduler on and off.
set -euo pipefail
pip install -U "sglang>=0.5.14"

python -m sglang.launch_server --model-path "$TARGET" --port 32000 \
  --speculative-algorithm DFLASH --speculative-draft-model-path "$DRAFT" \
  --speculative-draft-window-size 512 &
sleep 120 && python -m specbench.eval --port 32000 --out nightly_overlap.jsonl

python -m sglang.launch_server --model-path "$TARGET" --port 32001 \
  --speculative-algorithm DFLASH --speculative-draft-model-path "$DRAFT" \
  --disable-overlap-schedule &
sleep 120 && python -m specbench.eval --port 32001 --out nightly_sync.jsonl
