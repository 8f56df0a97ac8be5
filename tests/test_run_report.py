"""``dflash-migrate --report FILE`` (issue 48): a record of the run, JSON or Markdown by the
suffix. On every fast corpus of ``scripts/snapshot_findings.py`` the JSON validates against
its schema and its counts equal the run's summary line; CODEOWNERS groups the files; the
Markdown of the bundled example is committed (docs/examples/legacy_fork_report.md) and
stays what the tool writes. None of this existed at 8ed1b04."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "migrator" / "report" / "schema" / "run-report-v1.schema.json").read_text())
EXAMPLE_REPORT = ROOT / "docs" / "examples" / "legacy_fork_report.md"
SUMMARY = re.compile(r"(\d+) files? scanned, (\d+) changed, (\d+) fix(?:es)? applied, (\d+) manual TODOs? left, "
                     r"(\d+) files? with errors")


def _snapshot_module():  # noqa: ANN202 - the script as a module, for its corpora
    spec = importlib.util.spec_from_file_location("snapshot_findings_for_reports", ROOT / "scripts" / "snapshot_findings.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SNAPSHOT = _snapshot_module()


def _fix(root: Path, report: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "migrator", ".", "--target-version", SNAPSHOT.TARGET, "--report",
                           str(report), *extra], cwd=root, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, check=False)


@pytest.mark.parametrize("corpus", sorted(name for name in SNAPSHOT.corpora() if name not in SNAPSHOT.SLOW))
def test_the_json_report_validates_and_its_counts_are_the_summarys(corpus: str, tmp_path: Path) -> None:
    root = tmp_path / corpus
    root.mkdir()
    SNAPSHOT.corpora()[corpus](root)
    report_path = tmp_path / "report.json"
    done = _fix(root, report_path)
    report = json.loads(report_path.read_text())
    jsonschema.validate(report, SCHEMA)
    scanned, changed, fixed, todos, errors = map(int, SUMMARY.search(done.stderr).groups())
    summary = report["summary"]
    assert (summary["files_scanned"], summary["files_changed"], summary["fixes_applied"], summary["todos_left"],
            summary["files_with_errors"]) == (scanned, changed, fixed, todos, errors)
    files = report["files"]
    assert sum(len(f["fixes_applied"]) for f in files) == fixed
    assert sum(len(f["todos_left"]) for f in files) == todos
    assert sum(f["changed"] for f in files) == changed
    assert sum(f["error"] is not None for f in files) == errors
    assert sum(f["fixes_refused"] for f in files) == summary["fixes_refused"]


def test_codeowners_groups_the_files_and_the_run_writing_the_report_does_not_scan_it(tmp_path: Path) -> None:
    root = tmp_path / "fork"
    shutil.copytree(ROOT / "examples" / "legacy_fork", root)
    (root / ".github").mkdir()
    (root / ".github" / "CODEOWNERS").write_text("* @platform\n/legacy_fork/workers/ @spec-team @kv\n*.md @docs\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    report_path = root / "migration-report.md"
    done = _fix(root, root / "report.json", "--allow-dirty")
    report = json.loads((root / "report.json").read_text())
    owners = {f["path"]: f["owners"] for f in report["files"]}
    assert owners["legacy_fork/workers/paged_worker.py"] == ["@spec-team", "@kv"]
    assert owners["README.md"] == ["@docs"] and owners["deploy/serve.sh"] == ["@platform"]
    assert report["owners"]["@spec-team"]["files"] == 2
    _fix(root, report_path, "--allow-dirty")
    again = _fix(root, report_path, "--allow-dirty")  # the run writing the report never scans it
    assert report_path.is_file() and "migration-report.md" not in done.stdout + again.stdout


def test_the_committed_markdown_report_of_the_bundled_example_is_current(tmp_path: Path) -> None:
    root = tmp_path / "legacy_fork"
    shutil.copytree(ROOT / "examples" / "legacy_fork", root)
    _fix(root, tmp_path / "report.md")
    assert (tmp_path / "report.md").read_text() == EXAMPLE_REPORT.read_text(), (
        "regenerate: python -m migrator <copy of examples/legacy_fork> --target-version 0.5.17 "
        "--report docs/examples/legacy_fork_report.md")


def test_lint_writes_the_same_record_without_fixing(tmp_path: Path) -> None:
    root = tmp_path / "legacy_fork"
    shutil.copytree(ROOT / "examples" / "legacy_fork", root)
    before = {path: path.read_bytes() for path in root.rglob("*") if path.is_file()}
    done = subprocess.run([sys.executable, "-m", "migrator", "lint", ".", "--format", "json", "--target-version",
                           SNAPSHOT.TARGET, "--report", str(tmp_path / "report.json")], cwd=root, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    report = json.loads((tmp_path / "report.json").read_text())
    jsonschema.validate(report, SCHEMA)
    assert report["mode"] == "lint" and report["summary"]["files_changed"] == 0
    assert report["summary"]["findings"] == json.loads(done.stdout)["summary"]["findings"] > 0
    assert sum(len(f["fixes_applied"]) for f in report["files"]) == 0
    assert {path: path.read_bytes() for path in root.rglob("*") if path.is_file()} == before


def test_the_release_matrix_follows_the_catalogs_release_facts(tmp_path: Path) -> None:
    root = tmp_path / "legacy_fork"
    shutil.copytree(ROOT / "examples" / "legacy_fork", root)
    subprocess.run([sys.executable, "-m", "migrator", ".", "--target-version", "0.5.14..0.5.23", "--report",
                    str(tmp_path / "report.json")], cwd=root, env={**os.environ, "PYTHONPATH": str(ROOT)},
                   capture_output=True, check=False)
    report = json.loads((tmp_path / "report.json").read_text())
    jsonschema.validate(report, SCHEMA)
    by_path = {entry["path"]: entry["releases"] for entry in report["files"]}
    paged = by_path["legacy_fork/workers/paged_worker.py"]
    assert list(paged) == [f"0.5.{minor}" for minor in range(14, 24)]
    # `num_tokens_per_batch` exists up to 0.5.15 (DFM302), the rank arguments change in 0.5.16 (DFM111)
    assert "DFM302" not in paged["0.5.15"] and "DFM302" in paged["0.5.16"]
    assert "DFM111" not in paged["0.5.15"] and "DFM111" in paged["0.5.16"]
    assert by_path["web/LaunchCommand.tsx"] == {release: [] for release in paged}  # names in text break nothing
    assert report["releases_safe_now"] == []


def test_each_file_says_which_releases_it_was_judged_for_and_counts_its_informational_findings(tmp_path: Path) -> None:
    root = tmp_path / "legacy_fork"
    shutil.copytree(ROOT / "examples" / "legacy_fork", root)
    # a V1-era folder: --target-version wins over a V2 file's own release, never over a V1-era one
    (root / "recipes" / "v0.5.12").mkdir(parents=True)
    shutil.copy(root / "deploy" / "serve.sh", root / "recipes" / "v0.5.12" / "serve.sh")
    lint = subprocess.run([sys.executable, "-m", "migrator", "lint", ".", "--format", "json", "--target-version",
                           SNAPSHOT.TARGET, "--report", str(tmp_path / "report.json")], cwd=root, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    report = json.loads((tmp_path / "report.json").read_text())
    jsonschema.validate(report, SCHEMA)
    by_path = {entry["path"]: entry for entry in report["files"]}
    own = by_path["recipes/v0.5.12/serve.sh"]["target"]
    assert own["own"] and own["releases"] == ["0.5.12"] and "v0.5.12" in own["source"]
    run = by_path["deploy/serve.sh"]["target"]
    assert run == {"releases": [SNAPSHOT.TARGET], "source": report["target"]["source"], "own": False}
    info = {}
    for finding in json.loads(lint.stdout)["findings"]:
        info[finding["path"].removeprefix("./")] = info.get(finding["path"].removeprefix("./"), 0) + (
            finding["severity"] == "info")
    assert {path: entry["informational"] for path, entry in by_path.items()} == info
    assert report["summary"]["informational"] == sum(info.values()) > 0
    _fix(root, tmp_path / "report.md")
    markdown = (tmp_path / "report.md").read_text()
    assert "- Releases: sglang 0.5.12 (its own:" in markdown and f"informational: {sum(info.values())};" in markdown
