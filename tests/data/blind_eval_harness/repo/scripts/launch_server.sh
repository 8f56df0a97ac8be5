#!/usr/bin/env bash
# Launch one sglang server with DFLASH speculative decoding.
# Usage: scripts/launch_server.sh TARGET_MODEL DRAFT_MODEL [PORT]
set -euo pipefail

TARGET=${1:?target model}
DRAFT=${2:?draft model}
PORT=${3:-30000}
BLOCK_SIZE=${BLOCK_SIZE:-16}
WINDOW=${DRAFT_WINDOW:-0}

# DFLASH only works with the V1 worker in sglang 0.5.13.
export SGLANG_ENABLE_SPEC_V2=0
export SGLANG_DISABLE_REQUEST_LOGGING=1

EXTRA=()
if [[ "${WINDOW}" != "0" ]]; then
  EXTRA+=(--speculative-dflash-draft-window-size "${WINDOW}")
fi

exec python -m sglang.launch_server \
  --model-path "${TARGET}" \
  --port "${PORT}" \
  --speculative-algorithm DFLASH \
  --speculative-draft-model-path "${DRAFT}" \
  --speculative-dflash-block-size "${BLOCK_SIZE}" \
  --speculative-num-draft-tokens "${BLOCK_SIZE}" \
  --mem-fraction-static 0.8 \
  "${EXTRA[@]}"
