#!/usr/bin/env bash
set -euo pipefail

MODEL="${MODEL:-Qwen/Qwen3-8B}"
export SGLANG_ENABLE_SPEC_V2=0
if [[ "${OVERLAP:-0}" == "1" ]]; then
  export SGLANG_ENABLE_SPEC_V2=1
fi

SGLANG_ENABLE_SPEC_V2="${SGLANG_ENABLE_SPEC_V2}" python3 -m sglang.launch_server \
  --model-path "$MODEL" --speculative-algorithm DFLASH --port 30000
