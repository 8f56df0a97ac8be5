"""Valid/invalid cases for migrator/python/rules/spec_v2_flags.py (DFM205, DFM206)."""

from __future__ import annotations

import pytest
from codemod_helpers import codes, migrate

SOURCE = """
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

def overlap(algo: SpeculativeAlgorithm, batch) -> bool:
    return algo.supports_spec_v2() and batch.is_spec_v2
"""


def test_the_fix_is_safe() -> None:
    """Issue 46: the rewrite keeps the meaning on every target (proof in the rule's docstring,
    re-checked on the wheels by tests/test_upstream_rewrite_proofs.py)."""
    fixed, findings = migrate(SOURCE)
    assert sorted(codes(findings)) == ["DFM205", "DFM206"]
    assert "return not algo.is_none() and not batch.spec_algorithm.is_none()" in fixed
    assert "TODO(dflash-migrate)" not in fixed
    assert "True" not in fixed  # 0.5.14 tests "speculative at all": never a constant
    assert migrate(SOURCE, unsafe=True)[0] == fixed


@pytest.mark.parametrize(
    ("expression", "fixed"),
    [
        ("batch.is_spec_v2", "not batch.spec_algorithm.is_none()"),
        ("not batch.is_spec_v2", "batch.spec_algorithm.is_none()"),
        ("batch.is_spec_v2 == flag", "(not batch.spec_algorithm.is_none()) == flag"),
        ("self.spec_algorithm.supports_spec_v2()", "not self.spec_algorithm.is_none()"),
        ("not algo.supports_spec_v2()", "algo.is_none()"),
        ("[b for b in bs if b.spec_algorithm.supports_spec_v2()]", "[b for b in bs if not b.spec_algorithm.is_none()]"),
    ],
)
def test_the_fix_is_what_0_5_14_wrote(expression: str, fixed: str) -> None:
    source = f"import sglang\n\ndef f(self, batch, algo, bs, flag):\n    return {expression}\n"
    new, _ = migrate(source)
    assert f"    return {fixed}\n" in new


def test_a_plugins_own_supports_spec_v2_stays_a_todo() -> None:
    source = """
    from sglang.srt.speculative.spec_registry import CustomSpecAlgo

    class MyAlgo(CustomSpecAlgo):
        def supports_spec_v2(self):
            return self.supports_overlap

        def runs_overlapped(self):
            return self.supports_spec_v2()
    """
    new, findings = migrate(source, unsafe=True)
    assert "return self.supports_spec_v2()" in new and "self.is_none()" not in new
    assert codes(findings) == ["DFM205", "DFM205"]


def test_files_without_sglang_are_not_flagged() -> None:
    source = "def f(batch):\n    return batch.is_spec_v2\n"
    assert migrate(source) == (source, [])
