"""Integration: migrate a copy of examples/legacy_fork and compare with the checked-in
expected tree (tests/data/legacy_fork_expected). A second run must change nothing.

Regenerate the expected tree after changing the example or a rule on purpose:
``python tests/test_legacy_fork.py --regen`` (then review the diff before committing).
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "legacy_fork"
EXPECTED = ROOT / "tests" / "data" / "legacy_fork_expected"
#: ``path:line:column code`` of every lint finding on the example (1-based columns, as the
#: JSON report and editors show them), in report order.
EXPECTED_LINT = ROOT / "tests" / "data" / "legacy_fork_lint.txt"
TARGET = "0.5.17"


def migrate_copy(destination: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    if destination.exists():
        shutil.rmtree(destination)
    shutil.copytree(EXAMPLE, destination)
    return run_cli(destination, *extra)


def run_cli(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "migrator", str(path), "--target-version", TARGET, *extra],
                          capture_output=True, text=True, cwd=path.parent)


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_migrated_example_matches_expected_tree(tmp_path: Path) -> None:
    work = tmp_path / "legacy_fork"
    first = migrate_copy(work)
    assert first.returncode == 1, first.stderr  # manual TODOs remain by design
    assert "0 files with errors" in first.stderr
    got, want = tree(work), tree(EXPECTED)
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name] == want[name], f"{name} differs from the expected migration"
    for name in got:
        if name.endswith(".py"):
            ast.parse(got[name])


def test_second_run_changes_nothing(tmp_path: Path) -> None:
    work = tmp_path / "legacy_fork"
    migrate_copy(work)
    before = tree(work)
    second = run_cli(work)
    assert tree(work) == before
    assert " 0 changed," in second.stderr
    check = run_cli(work, "--check")
    assert " 0 would change," in check.stderr


def test_diff_mode_writes_nothing(tmp_path: Path) -> None:
    work = tmp_path / "legacy_fork"
    shutil.copytree(EXAMPLE, work)
    before = tree(work)
    result = run_cli(work, "--diff")
    assert result.returncode == 1
    assert "+from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2" in result.stdout
    assert tree(work) == before


def lint_positions() -> str:
    import json

    proc = subprocess.run([sys.executable, "-m", "migrator", "lint", ".", "--target-version", TARGET, "--format", "json"],
                          capture_output=True, text=True, cwd=EXAMPLE)
    report = json.loads(proc.stdout)
    rows = [f"{f['path']}:{f['line']}:{f['column']} {f['code']}" for f in report["findings"]]
    return "\n".join(rows) + "\n"


def test_lint_report_positions_of_the_example() -> None:
    # Every finding of every file type in the example (Python, shell, Markdown prose and
    # code blocks, TSX, notebook Markdown and code cells) at its line and column.
    assert lint_positions() == EXPECTED_LINT.read_text()


if __name__ == "__main__" and "--regen" in sys.argv:
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch) / "legacy_fork"
        migrate_copy(work)
        if EXPECTED.exists():
            shutil.rmtree(EXPECTED)
        shutil.copytree(work, EXPECTED)
    EXPECTED_LINT.write_text(lint_positions())
    print(f"wrote {EXPECTED} and {EXPECTED_LINT}")
