"""Issue 46: a tree that vendors its own ``sglang/`` gets one run-level finding
(``catalog.VENDORED_CODE``) naming the V1-era definitions the promoted safe fixes assume the
released sglang replaces; the use-site fixes stay safe (upstream's merge replaces those
definitions). A fork without a vendored sglang gets no such finding."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from codemod_helpers import write_tree

from migrator import catalog
from migrator.run import engine

CODE = catalog.VENDORED_CODE

VENDORED = {
    "sglang/__init__.py": "",
    "sglang/srt/__init__.py": "",
    "sglang/srt/managers/__init__.py": "",
    "sglang/srt/managers/schedule_batch.py": """
        class ScheduleBatch:
            @property
            def is_spec_v2(self):
                return self.spec_algorithm.supports_spec_v2()

            def filter_batch(self, chunked_req_to_exclude=None, v1_spec_info_filtered=False):
                return self
        """,
    "sglang/srt/managers/scheduler.py": """
        def step(batch):
            if batch.is_spec_v2:
                batch.filter_batch(v1_spec_info_filtered=True)
        """,
}


def lint(root: Path, **options: object) -> list:
    outcome = engine.run([root], engine.Options(mode="lint", target_version="0.5.14", jobs=1, **options))
    assert not any(r.error for r in outcome.results)
    return [f for r in outcome.results for f in r.findings]


def test_a_vendored_schedule_batch_gets_one_informational_finding_naming_its_definitions(tmp_path: Path) -> None:
    write_tree(tmp_path, VENDORED)
    findings = lint(tmp_path)
    [vendored] = [f for f in findings if f.code == CODE]
    assert Path(vendored.path) == tmp_path / "sglang" / "__init__.py"
    assert vendored.line == 1
    assert vendored.informational and vendored.fix is None
    assert "`ScheduleBatch.is_spec_v2` (" in vendored.message
    assert "`filter_batch(v1_spec_info_filtered=...)` (" in vendored.message
    assert "merge upstream" in vendored.message
    schedule_batch = str(tmp_path / "sglang" / "srt" / "managers" / "schedule_batch.py")
    related = {(os.path.abspath(path), line) for path, line in vendored.related}
    assert related == {(schedule_batch, 4), (schedule_batch, 7)}  # the `def` lines
    # the use sites are still fixed as upstream did: vendored definitions do not demote them
    uses = [f for f in findings if f.path.endswith("scheduler.py")]
    assert {f.code for f in uses} == {"DFM206", "DFM112"}
    assert all(f.fix is not None and f.fix.applicability == "safe" for f in uses)


def test_one_finding_per_tree_however_many_modules_define_them(tmp_path: Path) -> None:
    write_tree(tmp_path, {**VENDORED, "sglang/srt/speculative/__init__.py": "",
                          "sglang/srt/speculative/spec_info.py": """
                              class SpeculativeAlgorithm:
                                  def supports_spec_v2(self):
                                      return False
                              """})
    [vendored] = [f for f in lint(tmp_path) if f.code == CODE]
    assert "`SpeculativeAlgorithm.supports_spec_v2` (" in vendored.message
    assert len(vendored.related) == 3


def test_it_is_shown_in_json_and_sarif_and_honours_ignore(tmp_path: Path) -> None:
    write_tree(tmp_path, VENDORED)
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "migrator", "lint", ".", "--target-version", "0.5.14", *args],
                              cwd=tmp_path, capture_output=True, text=True, env=environment, timeout=120, check=False)

    report = json.loads(cli("--format", "json").stdout)
    assert [(f["path"], f["line"], f["severity"]) for f in report["findings"] if f["code"] == CODE] == [
        ("./sglang/__init__.py", 1, "info")]
    sarif = json.loads(cli("--format", "sarif").stdout)
    [result] = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == CODE]
    assert result["level"] == "note" and len(result["relatedLocations"]) == 2
    assert CODE not in cli("--ignore", CODE).stdout


def test_a_named_file_gets_it_on_its_own_definition_never_on_a_file_not_scanned(tmp_path: Path) -> None:
    """``lint sglang/srt/managers/schedule_batch.py`` (pre-commit's way): the finding stays in the
    files the run scanned; a named file that defines nothing of the kind gets none."""
    write_tree(tmp_path, VENDORED)
    managers = tmp_path / "sglang" / "srt" / "managers"
    outcome = engine.run([managers / "schedule_batch.py"], engine.Options(mode="lint", target_version="0.5.14", jobs=1))
    [vendored] = [f for r in outcome.results for f in r.findings if f.code == CODE]
    assert (Path(vendored.path).resolve(), vendored.line) == ((managers / "schedule_batch.py").resolve(), 4)
    outcome = engine.run([managers / "scheduler.py"], engine.Options(mode="lint", target_version="0.5.14", jobs=1))
    assert CODE not in {f.code for r in outcome.results for f in r.findings}


def test_it_survives_the_second_analysis_of_the_file_it_is_on(tmp_path: Path) -> None:
    """The fork's own ``is_spec_v2`` sends the files reading it through the analysis again;
    the finding on such a file is not lost with its first result."""
    write_tree(tmp_path, {**VENDORED, "sglang/srt/managers/schedule_batch.py": """
        import plug.batch


        class ScheduleBatch:
            @property
            def is_spec_v2(self):
                return plug.batch.MyBatch().is_spec_v2
        """, "plug/__init__.py": "", "plug/batch.py": """
        import sglang


        class MyBatch:
            @property
            def is_spec_v2(self):
                return True
        """})
    named = tmp_path / "sglang" / "srt" / "managers" / "schedule_batch.py"
    outcome = engine.run([named], engine.Options(mode="lint", target_version="0.5.14", jobs=1))
    findings = [f for r in outcome.results for f in r.findings]
    assert "DFM206" in {f.code for f in findings}  # read again with the index: the fork's own definition named
    assert [Path(f.path).resolve() for f in findings if f.code == CODE] == [named.resolve()]


def test_a_fork_without_a_vendored_sglang_gets_none(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "plug/__init__.py": "",
        "plug/batch.py": """
            import sglang


            class MyBatch:
                @property
                def is_spec_v2(self):
                    return True
            """,
        "plug/use.py": """
            import sglang


            def step(batch):
                return batch.is_spec_v2
            """,
    })
    findings = lint(tmp_path)
    assert CODE not in {f.code for f in findings}
    assert "DFM206" in {f.code for f in findings}  # the fork's own definition is a use-site matter


def test_a_vendored_v2_era_sglang_gets_none(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "sglang/__init__.py": "",
        "sglang/srt/__init__.py": "",
        "sglang/srt/managers/__init__.py": "",
        "sglang/srt/managers/schedule_batch.py": """
            class ScheduleBatch:
                def filter_batch(self, chunked_req_to_exclude=None):
                    return self.spec_algorithm.is_none()
            """,
        "app/__init__.py": "",
        "app/use.py": """
            from sglang.srt.managers.schedule_batch import ScheduleBatch


            def step(batch: ScheduleBatch):
                return batch.is_spec_v2
            """,
    })
    findings = lint(tmp_path)
    assert CODE not in {f.code for f in findings}
    assert "DFM206" in {f.code for f in findings}


def test_a_suppression_comment_where_it_lands_hides_it_and_counts_as_used(tmp_path: Path) -> None:
    """Issue 46: the finding is made after the files' own pass, yet a comment in the file it
    lands on hides it as it hides any other finding, and is not reported as unused."""
    write_tree(tmp_path, {**VENDORED, "sglang/__init__.py": "# dflash-migrate: ignore[DFM503]\n"})
    outcome = engine.run([tmp_path], engine.Options(mode="lint", target_version="0.5.14", jobs=1))
    assert CODE not in {f.code for r in outcome.results for f in r.findings}
    assert sum(r.suppressed for r in outcome.results) == 1
    assert not [u for r in outcome.results for u in r.unused_suppressions]


def test_a_named_file_hides_it_on_its_definition_with_any_spelling(tmp_path: Path) -> None:
    """On the first definition (a named file): the comment above it, ruff's ``noqa`` on its
    line, or ``ignore-file``; a stale one elsewhere in the file is still reported."""
    stale = "x = 1  # dflash-migrate: ignore[DFM101]\n\n\nclass ScheduleBatch:\n"
    body = "        return self.spec_algorithm.supports_spec_v2()\n"
    spellings = [  # the finding is on the `def` line
        stale + "    @property\n    # dflash-migrate: ignore[DFM503]\n    def is_spec_v2(self):\n" + body,
        stale + "    @property\n    def is_spec_v2(self):  # noqa: DFM503\n" + body,
        stale + "    @property\n    def is_spec_v2(self):\n" + body + "# dflash-migrate: ignore-file[DFM503]\n",
    ]
    named = tmp_path / "sglang" / "srt" / "managers" / "schedule_batch.py"
    for text in spellings:
        write_tree(tmp_path, VENDORED)
        named.write_text(text)
        outcome = engine.run([named], engine.Options(mode="lint", target_version="0.5.14", jobs=1))
        assert CODE not in {f.code for r in outcome.results for f in r.findings}, text
        assert sum(r.suppressed for r in outcome.results) == 1
        assert [u for r in outcome.results for u in r.unused_suppressions] == [(1, ("DFM101",))]
