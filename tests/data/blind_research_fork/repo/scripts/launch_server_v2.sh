#!/usr/bin/env bash
# sglang >= 0.5.14: DFLASH always runs the unified V2 worker (overlap on by default).
set -euo pipefail

TARGET="${1:-meta-llama/Llama-3.1-8B-Instruct}"
DRAFT="${2:-kestrel/kdraft-v2-llama31-8b}"

ARGS=(
  --model-path "$TARGET"
  --speculative-algorithm DFLASH
  --speculative-draft-model-path "$DRAFT"
  --speculative-dflash-block-size 16
  --speculative-draft-window-size 2048
)
if [[ "${SYNC:-0}" == "1" ]]; then
  ARGS+=(--disable-overlap-schedule)
fi
python -c "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2; print(DFlashWorkerV2.__name__)"
exec python -m sglang.launch_server "${ARGS[@]}"
