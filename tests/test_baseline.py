"""Issue 17 item 9: a baseline makes CI fail only on new V1 references."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from migrator.report import baseline
from migrator.run.engine import Options, run

V1 = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"


def lint_results(*paths: str):
    return run([Path(p) for p in (paths or (".",))], Options(mode="lint", jobs=1)).results


def test_line_moves_keep_the_baseline_and_new_findings_show(repo: Path) -> None:
    (repo / "a.py").write_text(V1)
    (repo / "b.py").write_text(V1)
    count = baseline.write(repo / "baseline.json", lint_results())
    assert count == 4 and json.loads((repo / "baseline.json").read_text())["version"] == 1
    (repo / "a.py").write_text("import os\n\n\n" + V1)  # lines move
    results = lint_results()
    applied = baseline.load(repo / "baseline.json").apply(results)
    assert (applied.matched, applied.fixed) == (4, 0)
    assert not any(r.findings for r in results)
    (repo / "c.py").write_text(V1)  # a new reference
    results = lint_results()
    baseline.load(repo / "baseline.json").apply(results)
    assert {r.path for r in results if r.findings} == {"./c.py"}


def test_fixed_entries_are_counted_only_for_scanned_files(repo: Path) -> None:
    (repo / "a.py").write_text(V1)
    (repo / "b.py").write_text(V1)
    baseline.write(repo / "baseline.json", lint_results())
    (repo / "a.py").write_text("x = 1  # dflash\n")
    applied = baseline.load(repo / "baseline.json").apply(lint_results())
    assert applied.fixed == 2
    applied = baseline.load(repo / "baseline.json").apply(lint_results("b.py"))
    assert applied.fixed == 0  # a.py's entries are not judged when a.py is not scanned


def test_a_second_identical_reference_is_new(repo: Path) -> None:
    (repo / "a.py").write_text("import sglang.srt.speculative.dflash_worker\n")
    baseline.write(repo / "baseline.json", lint_results())
    (repo / "a.py").write_text("import sglang.srt.speculative.dflash_worker\n" * 2)
    results = lint_results()
    applied = baseline.load(repo / "baseline.json").apply(results)
    remaining = [f for r in results for f in r.findings]
    assert applied.matched >= 1 and len(remaining) == applied.matched  # one copy known, one new
    assert all(f.line == 2 for f in remaining)


@pytest.mark.parametrize("content", ["{", "[]", '{"version": 2, "findings": []}', '{"version": 1, "findings": [1]}'])
def test_bad_baseline_is_a_clear_error(repo: Path, content: str) -> None:
    (repo / "b.json").write_text(content)
    with pytest.raises(baseline.BaselineError, match="b.json"):
        baseline.load(repo / "b.json")
