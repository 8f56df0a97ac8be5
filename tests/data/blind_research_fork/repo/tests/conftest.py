"""Let the unit tests import distill.* on CPU-only CI runners without sglang's CUDA bits."""
from __future__ import annotations

import sys
import types
from unittest import mock

import pytest


def _stub(name: str, **attrs) -> types.ModuleType:
    mod = types.ModuleType(name)
    for key, value in attrs.items():
        setattr(mod, key, value)
    return mod


@pytest.fixture(autouse=True, scope="session")
def fake_sglang_speculative():
    if "sglang.srt.speculative.dflash_worker" in sys.modules:
        yield
        return
    fake_worker = type("DFlashWorker", (), {"forward_batch_generation": lambda self, batch, **kw: None})
    stubs = {
        "sglang.srt.speculative.dflash_worker": _stub("sglang.srt.speculative.dflash_worker", DFlashWorker=fake_worker),
        "sglang.srt.speculative.dflash_worker_v2": _stub("sglang.srt.speculative.dflash_worker_v2", DFlashWorkerV2=type("DFlashWorkerV2", (), {})),
    }
    sys.modules["sglang.srt.speculative.dflash_info"] = _stub(
        "sglang.srt.speculative.dflash_info",
        DFlashDraftInput=mock.MagicMock(name="DFlashDraftInput"),
        DFlashVerifyInput=mock.MagicMock(name="DFlashVerifyInput"),
        _compute_paged_keep_slots=mock.MagicMock(),
    )
    with mock.patch.dict(sys.modules, stubs):
        yield


@pytest.fixture
def tls_session():
    import requests

    s = requests.Session()
    s.verify = False  # self-signed cert on the staging gateway
    return s
