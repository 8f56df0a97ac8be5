"""Valid/invalid cases for migrator/python/rules/worker_subclass.py."""

from __future__ import annotations

from codemod_helpers import codes, migrate, todo_lines

SUBCLASS = """
from sglang.srt.speculative.dflash_worker import DFlashWorker

class Base(DFlashWorker):
    pass

class Mine(Base):  # through an intermediate class of the same file
    def __init__(self, *args):
        super().__init__(*args)

    def _prepare_for_speculative_decoding(self, batch, draft_input):
        return super()._prepare_for_speculative_decoding(batch, draft_input)

    def forward_batch_generation(self, batch, **kwargs):
        self._append_target_hidden_to_draft_kv(batch, None)
        if hasattr(self, "_prepare_for_speculative_decoding"):
            pass
        return super().forward_batch_generation(batch, **kwargs)

    def _greedy_sample_from_vocab_parallel_head(self, *, hidden_states, lm_head, chunk_size=256):
        return super()._greedy_sample_from_vocab_parallel_head(hidden_states=hidden_states, lm_head=lm_head)
"""


def test_overrides_calls_and_reflection_get_todos() -> None:
    new, findings = migrate(SUBCLASS, target="0.5.17")
    manual = [f.code for f in findings if f.fix and f.fix.applicability == "manual"]
    # override + its super() call + hasattr (DFM106: V2's base class has no such method),
    # self._append... (DFM107), the forward override (DFM108), super().__init__ (DFM111)
    assert sorted(manual) == ["DFM106", "DFM106", "DFM106", "DFM107", "DFM108", "DFM111"]
    assert "class Base(DFlashWorkerV2):" in new
    # the surviving method and the super() call inside the flagged override are not flagged
    assert not any("_greedy_sample" in line for line in todo_lines(new))


def test_constructor_todo_only_from_0_5_16() -> None:
    _, early = migrate(SUBCLASS, target="0.5.15")
    _, late = migrate(SUBCLASS, target="0.5.16")
    assert "DFM111" not in codes(early)
    assert "DFM111" in codes(late)


def test_unrelated_workers_are_not_flagged() -> None:
    source = """
    from sglang.srt.speculative.ngram_worker import NGRAMWorker

    class MyNgram(NGRAMWorker):
        def forward_batch_generation(self, batch, **kwargs):
            return self.target_worker.forward_batch_generation(batch, **kwargs)

        def _prepare_for_speculative_decoding(self, batch):
            return getattr(self, "_prepare_for_speculative_decoding")
    """
    new, findings = migrate(source)
    assert findings == []


def test_target_worker_call_inside_dflash_subclass_is_not_flagged() -> None:
    source = """
    from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2

    class W(DFlashWorkerV2):
        def step(self, batch):
            return self.target_worker.forward_batch_generation(batch)
    """
    assert migrate(source)[1] == []


def test_known_instance_outside_class() -> None:
    source = """
    from sglang.srt.speculative.dflash_worker import DFlashWorker

    def drive(worker: DFlashWorker, batch):
        worker._append_target_hidden_to_draft_kv(batch, None)
    """
    _, findings = migrate(source)
    assert "DFM107" in codes(findings)
