#!/usr/bin/env bash
# Print what a node will run before we schedule a capture job on it.
set -u

python -c "import sglang, sys; print('sglang', sglang.__version__)"
python -c "from sglang.srt.speculative.dflash_worker import DFlashWorker; print('dflash v1 ok')" || echo "no dflash v1"
python -c "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2; print('dflash v2 ok')" || echo "no dflash v2"
python -c 'from sglang.srt.environ import envs; print("spec v2:", envs.SGLANG_ENABLE_SPEC_V2.get())'
echo "SGLANG_ENABLE_SPEC_V2=${SGLANG_ENABLE_SPEC_V2:-<unset>}"
echo "TLS verify: ${KESTREL_TLS_VERIFY:-1}"

python3 <<'PY'
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
algo = SpeculativeAlgorithm.DFLASH
print("dflash supports spec v2:", algo.supports_spec_v2())
print("is dflash:", algo.is_dflash())
PY

nvidia-smi --query-gpu=name,memory.total --format=csv
curl -fsS http://localhost:30000/v1/models || true
