"""Valid/invalid cases for migrator/python/rules/spec_v2_flags.py (DFM205, DFM206)."""

from __future__ import annotations

from pathlib import Path

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


def test_the_files_own_is_spec_v2_makes_the_fix_unsafe_and_is_named() -> None:
    """Issue 46: a fork class outside sglang.* that defines its own `is_spec_v2` breaks the
    premise of the safe fix; the uses get it only as unsafe, the message naming the definition."""
    source = """
    import sglang


    class MyBatch:
        @property
        def is_spec_v2(self):
            return self.overlapped


    def publish(batch):
        return batch.is_spec_v2
    """
    new, findings = migrate(source)
    assert "return batch.is_spec_v2" in new and "spec_algorithm.is_none()\n" not in new
    [finding] = [f for f in findings if f.code == "DFM206"]
    assert finding.fix is not None and finding.fix.applicability == "unsafe"
    assert "`MyBatch.is_spec_v2` in this file" in finding.message
    assert "return not batch.spec_algorithm.is_none()" in migrate(source, unsafe=True)[0]


def test_a_vendored_sglang_modules_own_definition_keeps_the_fix_safe() -> None:
    """sglang's own V1-era definition in a vendored tree is replaced by merging upstream."""
    source = """
    class ScheduleBatch:
        @property
        def is_spec_v2(self):
            return self.spec_algorithm.supports_spec_v2()

        def publish(self):
            return self.is_spec_v2
    """
    new, findings = migrate(source, path="sglang/srt/managers/schedule_batch.py",
                            module_name="sglang.srt.managers.schedule_batch")
    assert "return not self.spec_algorithm.is_none()\n" in new
    assert all(f.fix is None or f.fix.applicability != "unsafe" for f in findings if f.code == "DFM206")


def test_a_fork_modules_own_algorithm_makes_uses_in_other_modules_unsafe(tmp_path: Path) -> None:
    """Through the fork index: the plugin's own `supports_spec_v2` (it reports False) lives in
    another module than the call; the call is not fixed by default and the finding names it."""
    from codemod_helpers import write_tree

    from migrator.run import engine

    write_tree(tmp_path, {
        "plug/__init__.py": "",
        "plug/algo.py": """
            from sglang.srt.speculative.spec_registry import CustomSpecAlgo


            class MyAlgo(CustomSpecAlgo):
                def supports_spec_v2(self):
                    return False
            """,
        "plug/use.py": """
            import sglang


            def overlapped(algo):
                return algo.supports_spec_v2()
            """,
    })
    outcome = engine.run([tmp_path], engine.Options(mode="fix", target_version="0.5.17", jobs=1))
    assert not any(r.error for r in outcome.results)
    assert "return algo.supports_spec_v2()" in (tmp_path / "plug" / "use.py").read_text()
    [finding] = [f for r in outcome.results for f in r.findings if f.path.endswith("use.py") and f.code == "DFM205"]
    assert "`plug.algo.MyAlgo.supports_spec_v2`" in finding.message
    unsafe = engine.run([tmp_path], engine.Options(mode="fix", target_version="0.5.17", jobs=1, unsafe_fixes=True))
    assert not any(r.error for r in unsafe.results)
    assert "return not algo.is_none()" in (tmp_path / "plug" / "use.py").read_text()
