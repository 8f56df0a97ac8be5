"""Valid/invalid cases for migrator/python/rules/reflection_names.py: removed member names that reach
``getattr``/``setattr``/``hasattr``/``delattr``/``mock.patch.object`` as data."""

from __future__ import annotations

from codemod_helpers import migrate

WORKER = "from sglang.srt.speculative.dflash_worker import DFlashWorker as Base\n"


def found(source: str) -> list[tuple[int, str]]:
    _, findings = migrate(source, target="0.5.17", mode="lint")
    return sorted((f.line, f.code) for f in findings if f.code in ("DFM105", "DFM106", "DFM107", "DFM108", "DFM206"))


def test_patch_object_on_the_v1_class() -> None:
    assert found(WORKER + """
from unittest import mock


def test_prepare():
    with mock.patch.object(Base, "_prepare_for_speculative_decoding") as prepared:
        assert prepared
""") == [(7, "DFM106")]


def test_tuple_of_tuples_dict_and_lookup_fed_to_setattr_on_an_unknown_receiver() -> None:
    assert found(WORKER + """
_HOOKS = (
    ("_prepare_for_speculative_decoding", "prepare"),
    ("_append_target_hidden_to_draft_kv", "append"),
    ("forward_batch_generation", "forward"),
)
_BY_KEY = {"prepare": "_prepare_for_speculative_decoding", "mine": "my_method"}


def instrument(cls, wrap):
    for method, label in _HOOKS:
        setattr(cls, method, wrap(getattr(cls, method), label))
    for name, _ in {"_append_target_hidden_to_draft_kv": 1}.items():
        delattr(cls, name)
    return getattr(cls, _BY_KEY["prepare"])
""") == [(4, "DFM106"), (5, "DFM107"), (8, "DFM106"), (14, "DFM107")]


def test_distinctive_member_on_any_receiver() -> None:
    assert found("""
def is_v2(batch):
    return getattr(batch, "is_spec_v2", False) or hasattr(batch, "supports_spec_v2")
""") == [(3, "DFM206")]


def test_own_methods_and_other_receivers_are_left_alone() -> None:
    assert found("""
from sglang.srt.speculative.ngram_worker import NGRAMWorker

_HOOKS = (("_prepare_for_speculative_decoding", "prepare"), ("verify", "verify"))


class Mine:
    def _prepare_for_speculative_decoding(self):
        return None


def instrument(cls, worker: NGRAMWorker):
    for method, label in _HOOKS:
        setattr(cls, method, label)
        getattr(worker, method)
    getattr(Mine(), "_prepare_for_speculative_decoding")
    return getattr(cls, "is_spec_v2", None)
""") == [(17, "DFM206")]  # only the distinctive name
