from __future__ import annotations

import os
from unittest import mock

import pytest

from distill import compat, hooks, registry


def test_install_is_idempotent():
    with mock.patch("sglang.srt.speculative.dflash_worker.DFlashWorker._prepare_for_speculative_decoding") as prep, \
         mock.patch("sglang.srt.speculative.dflash_info.DFlashVerifyInput.verify") as verify:
        hooks.install()
        hooks.install()
        assert prep is not None and verify is not None


@mock.patch("sglang.srt.speculative.dflash_worker.DFlashWorker.forward_batch_generation", autospec=True)
def test_capture_counts_steps(fwd):
    from distill.capture_worker import CapturingDFlashWorker

    fwd.return_value = mock.Mock(num_correct_drafts_per_req_cpu=[3, 4])
    worker = CapturingDFlashWorker.__new__(CapturingDFlashWorker)
    worker._steps = 0
    worker._writer = mock.Mock()
    worker.forward_batch_generation(mock.Mock())
    worker._writer.note_accepts.assert_called_once_with([3, 4])


@mock.patch("sglang.srt.speculative.dflash_worker_v2.DFlashWorkerV2.forward_batch_generation")
def test_v2_port_forwards(fwd):
    fwd.return_value = mock.Mock(next_draft_input=None)
    assert fwd.return_value.next_draft_input is None


@mock.patch.dict(os.environ, {"SGLANG_ENABLE_SPEC_V2": "0"})
def test_env_disables_v2():
    assert compat.spec_v2_from_environ() is False


def test_env_helper(monkeypatch):
    monkeypatch.setenv("SGLANG_ENABLE_SPEC_V2", "1")
    monkeypatch.setenv("KESTREL_ENABLE_SPEC_V2", "1")
    assert compat.spec_v2_via_helper()


def test_registry_names():
    assert registry.WORKER_FACTORIES["sglang-dflash"].endswith(":DFlashWorker")
    assert "dflash_worker_v2" in registry.WORKER_FACTORIES["sglang-dflash-v2"]


@pytest.mark.parametrize("algo", ["DFLASH", "EAGLE3", "NGRAM"])
def test_algo_names(algo):
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    assert SpeculativeAlgorithm.from_string(algo).name == algo


def test_keep_slots_patched(monkeypatch):
    monkeypatch.setattr("sglang.srt.speculative.dflash_info._compute_paged_keep_slots", lambda **kw: kw)
    monkeypatch.setattr("sglang.srt.speculative.dflash_worker.DFlashWorker.clear_cache_pool", lambda self: None)
