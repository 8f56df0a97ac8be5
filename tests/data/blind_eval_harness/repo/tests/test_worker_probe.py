from types import SimpleNamespace

import pytest

sglang = pytest.importorskip("sglang", reason="needs the sglang wheel (GPU image)")

from sglang.srt.speculative.dflash_worker import DFlashWorker  # noqa: E402
from sglang.srt.speculative.dflash_info import DFlashDraftInput, DFlashVerifyInput  # noqa: E402

from specbench import worker_probe  # noqa: E402


def test_find_draft_worker_ignores_other_workers():
    scheduler = SimpleNamespace(draft_worker=object())
    assert worker_probe.find_draft_worker(scheduler) is None


def test_find_draft_worker_finds_dflash():
    worker = DFlashWorker.__new__(DFlashWorker)
    assert worker_probe.find_draft_worker(SimpleNamespace(draft_worker=worker)) is worker


def test_dflash_is_not_spec_v2():
    assert worker_probe.spec_v2_enabled("DFLASH") is False
    assert worker_probe.is_dflash("dflash")


def test_verify_input_has_no_draft_fields():
    assert not hasattr(DFlashVerifyInput, "ctx_lens")
    assert "target_hidden" in DFlashDraftInput.__dataclass_fields__


def test_attach_target_stub():
    worker = DFlashWorker.__new__(DFlashWorker)
    proxy = object()
    worker_probe.attach_target_stub(worker, proxy)
    assert worker.target_worker is proxy
