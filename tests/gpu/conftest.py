"""GPU tests: skipped with a reason unless sglang and a CUDA device are both present.

CI never has a GPU, so there every test under ``tests/gpu`` is reported as skipped after a
cheap ``importlib.util.find_spec`` check (torch is imported only when sglang is installed).
On the H200 machine (see docs/gpu-validation.md) the session fixture ``gpu_matrix`` runs every
configuration once, each sglang Engine in its own process, and the tests assert on the result.

Environment:
  DFLASH_GPU_WORKDIR   where models, logs, probe files and results.json go (default: a pytest tmp dir)
  DFLASH_GPU_RESULTS   if set, results.json is also copied there (e.g. "$OUT/results.json")
  DFLASH_GPU_PARALLEL  engines started at once in wave 1 (default 8)
  DFLASH_GPU_AB_REPS   interleaved repetitions per side in the throughput A/B (default 8, at least 7)
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

_REASON: list = []


def gpu_skip_reason() -> str | None:
    if _REASON:
        return _REASON[0]
    reason = None
    if importlib.util.find_spec("sglang") is None:
        reason = "sglang is not installed: GPU tests run only on the H200 machine (docs/gpu-validation.md)"
    elif importlib.util.find_spec("torch") is None:
        reason = "torch is not installed: GPU tests need torch with CUDA"
    else:
        import torch

        if not torch.cuda.is_available():
            reason = "no CUDA device: GPU tests run only on the H200 machine (docs/gpu-validation.md)"
    _REASON.append(reason)
    return reason


def pytest_collection_modifyitems(config, items):
    mine = [i for i in items if str(i.path).startswith(HERE + os.sep)]
    if not mine:
        return
    reason = gpu_skip_reason()
    for item in mine:
        item.add_marker(pytest.mark.gpu)
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def gpu_matrix(tmp_path_factory):
    import dflash_gpu_matrix as matrix

    workdir = os.environ.get("DFLASH_GPU_WORKDIR") or str(tmp_path_factory.mktemp("dflash-gpu"))
    reps = max(7, int(os.environ.get("DFLASH_GPU_AB_REPS", "8")))
    result = matrix.run_matrix(workdir, parallel=int(os.environ.get("DFLASH_GPU_PARALLEL", "8")), ab_reps=reps)
    dest = os.environ.get("DFLASH_GPU_RESULTS")
    if dest:
        os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
        shutil.copy(os.path.join(workdir, "results.json"), dest)
    print(json.dumps({k: v.get("ok") for k, v in result["verdicts"].items()}))
    return result
