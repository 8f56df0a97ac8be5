#!/usr/bin/env bash
# ON THE H200 MACHINE, from the project root, with `.gpu` carried (see docs/gpu-validation.md):
#   bash scripts/gpu/device_run.sh smoke   # matrix without project code (reference, DFLASH, env var, HTTP, A/B)
#   bash scripts/gpu/device_run.sh full    # pytest -m gpu tests/gpu: every configuration + doctor
# Leaves in $OUT: run.log, results.json, logs.tar.xz (per-engine logs, probe files), cache.tar.xz (JIT caches).
set -u -o pipefail
MODE="${1:-full}"; OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
T0=$(date +%s)
source .gpu/device_env.sh || exit 1
bash scripts/gpu/device_setup.sh || echo "device_setup failed (rc=$?)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
W=/tmp/dflash-gpu; rm -rf "$W"; mkdir -p "$W"
export DFLASH_GPU_WORKDIR="$W" DFLASH_GPU_RESULTS="$OUT/results.json"
LIMIT="${LIMIT:-500}"; export DFLASH_GPU_AB_REPS="${AB_REPS:-15}"
if [ "$MODE" = smoke ]; then
  timeout -k 10 "$LIMIT" python3 tests/gpu/dflash_gpu_matrix.py --workdir "$W" --smoke --ab-reps "${AB_REPS:-7}"
  rc=$?; cp "$W/results.json" "$OUT/results.json" 2>/dev/null
else
  timeout -k 10 "$LIMIT" python3 -m pytest -m gpu tests/gpu -p no:cacheprovider -rA --no-header -q \
    -o addopts="" --junitxml="$OUT/junit.xml"
  rc=$?
fi
echo "== exit $rc after $(( $(date +%s) - T0 )) s"
tar -C "$W" -cJf "$OUT/logs.tar.xz" logs probe specs 2>/dev/null
save_gpu_cache
exit $rc
