#!/usr/bin/env bash
# Launch sglang with a kdraft DFLASH draft. Usage:
#   scripts/launch_server.sh TARGET DRAFT [extra sglang args...]
set -euo pipefail

TARGET="${1:-meta-llama/Llama-3.1-8B-Instruct}"
DRAFT="${2:-kestrel/kdraft-v2-llama31-8b}"
shift 2 || true

BLOCK_SIZE="${BLOCK_SIZE:-16}"
WINDOW="${WINDOW:-2048}"
PORT="${PORT:-30000}"

# DFLASH in 0.5.13 only runs the V1 worker; keep spec v2 off so the capture hooks see V1.
export SGLANG_ENABLE_SPEC_V2=0
export KESTREL_ENABLE_SPEC_V2=0

SPEC_ARGS=(
  --speculative-algorithm DFLASH
  --speculative-draft-model-path "$DRAFT"
  --speculative-dflash-block-size "$BLOCK_SIZE"
  --speculative-num-draft-tokens "$BLOCK_SIZE"
  --speculative-dflash-draft-window-size "$WINDOW"
  --speculative-draft-attention-backend fa3
)

SERVER_ARGS=(
  --model-path "$TARGET"
  --port "$PORT"
  --mem-fraction-static 0.82
  --max-running-requests 48
  --disable-overlap-schedule
)

if [[ "${CAPTURE:-0}" == "1" ]]; then
  python -c "import distill.hooks as h; h.install()" || exit 1
  SERVER_ARGS+=(--speculative-draft-load-format auto)
fi

python - <<PY
import importlib, sys
try:
    importlib.import_module("sglang.srt.speculative.dflash_worker")
except ImportError:
    sys.exit("this image has no DFLASH V1 worker; use scripts/launch_server_v2.sh")
PY

exec python -m sglang.launch_server "${SERVER_ARGS[@]}" "${SPEC_ARGS[@]}" "$@"
