from types import SimpleNamespace
from unittest import mock

from specbench import acceptance
from specbench.acceptance import StepRecord, acceptance_histogram, mean_acceptance


def _fake_result(correct, per_req):
    return SimpleNamespace(
        num_correct_drafts=correct,
        num_correct_drafts_per_req_cpu=per_req,
        next_token_ids=None,
        logits_output=None,
    )


def test_record_from_result_counts_bonus_tokens():
    record = acceptance.record_from_result(_fake_result(6, [4, 2]), batch_size=2)
    assert record.correct_drafts == 6
    assert record.per_request == [4, 2]
    assert record.tokens_per_step == 4.0


def test_step_calls_worker_once():
    worker = mock.Mock()
    worker.forward_batch_generation.return_value = _fake_result(0, [0])
    acceptance.step(worker, batch=object(), batch_size=1)
    worker.forward_batch_generation.assert_called_once()


@mock.patch("sglang.srt.speculative.dflash_worker.DFlashWorker.forward_batch_generation")
def test_step_with_patched_worker(patched_forward):
    from sglang.srt.speculative.dflash_worker import DFlashWorker

    patched_forward.return_value = _fake_result(3, [3])
    worker = DFlashWorker.__new__(DFlashWorker)
    record = acceptance.step(worker, batch=object(), batch_size=1)
    assert record.correct_drafts == 3


def test_histogram_clamps_to_block_size():
    records = [StepRecord(batch_size=1, correct_drafts=20, per_request=[20])]
    assert acceptance_histogram(records, block_size=16)[-1] == 1


def test_mean_acceptance_empty():
    assert mean_acceptance([]) == 0.0
