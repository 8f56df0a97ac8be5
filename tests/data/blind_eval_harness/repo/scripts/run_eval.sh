#!/usr/bin/env bash
# Run the acceptance-length eval against a running server, then in-process.
set -euo pipefail

PROFILE=${1:-configs/eval_dflash.yaml}
OUT=${OUT:-results/$(date +%Y%m%d-%H%M%S)}
mkdir -p "${OUT}"

echo "[run_eval] profile=${PROFILE} out=${OUT}"
python -m specbench.eval --profile "${PROFILE}" --out "${OUT}/http.jsonl"

# In-process run needs the V1 worker so the step hooks can attach.
SGLANG_ENABLE_SPEC_V2=0 python -m specbench.cli run --profile "${PROFILE}" --trace-steps \
  > "${OUT}/inprocess.log" 2>&1

python - "${OUT}" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
rows = [json.loads(l) for l in (out / "http.jsonl").read_text().splitlines()]
print("requests:", len(rows))
PY
