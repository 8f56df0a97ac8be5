"""Valid/invalid cases for migrator/rules/spec_v2_flags.py (DFM205, DFM206)."""

from __future__ import annotations

from codemod_helpers import codes, migrate

SOURCE = """
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

def overlap(algo: SpeculativeAlgorithm, batch) -> bool:
    return algo.supports_spec_v2() and batch.is_spec_v2
"""


def test_unsafe_fix_only_with_flag() -> None:
    safe_only, findings = migrate(SOURCE)
    assert sorted(codes(findings)) == ["DFM205", "DFM206"]
    assert "algo.supports_spec_v2() and batch.is_spec_v2" in safe_only
    assert safe_only.count("TODO(dflash-migrate)") == 2
    unsafe, _ = migrate(SOURCE, unsafe=True)
    assert "return True and True" in unsafe


def test_files_without_sglang_are_not_flagged() -> None:
    source = "def f(batch):\n    return batch.is_spec_v2\n"
    assert migrate(source) == (source, [])
