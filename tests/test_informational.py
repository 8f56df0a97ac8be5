"""Informational findings (issue 44): an entry whose old spelling still resolves on every
release of the target is reported with its own severity in every format, never fixed, never
given a TODO, never written to a baseline, and does not make the exit code 1 on its own.

DFM306 is the case the catalog has: ``managers.scheduler`` imports ``validate_dflash_request``
by name on every release from 0.5.13 to 0.5.23 (``exists`` in the catalog, checked on the
wheels by ``tests/test_catalog_truth.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from migrator import catalog
from migrator.catalog.target import v2_releases

REPO = Path(__file__).resolve().parent.parent
STILL_RESOLVES = "from sglang.srt.managers.scheduler import validate_dflash_request\n"
REMOVED = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "migrator", *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=300)


@pytest.fixture()
def project(repo: Path) -> Path:
    (repo / "a.py").write_text(STILL_RESOLVES)
    return repo


def test_the_catalog_says_which_spellings_still_resolve() -> None:
    every_v2 = v2_releases()
    assert catalog.get("DFM306").still_resolves_on(every_v2)
    assert not catalog.get("DFM305").still_resolves_on(("0.5.23",))  # gone from `dflash_utils` in 0.5.23
    assert not catalog.get("DFM316").still_resolves_on(every_v2)  # resolves, but means something else now
    assert not catalog.get("DFM102").still_resolves_on(every_v2)


def test_every_format_gives_it_its_own_severity_and_the_exit_code_stays_0(project: Path) -> None:
    document = json.loads(cli(project, "lint", "--format", "json", "a.py").stdout)
    assert [(f["code"], f["severity"], f["fix"]) for f in document["findings"]] == [("DFM306", "info", None)]
    sarif = json.loads(cli(project, "lint", "--format", "sarif", "a.py").stdout)
    assert [(r["ruleId"], r["level"]) for r in sarif["runs"][0]["results"]] == [("DFM306", "note")]
    assert "fixes" not in sarif["runs"][0]["results"][0]
    gitlab = json.loads(cli(project, "lint", "--format", "gitlab", "a.py").stdout)
    assert [(i["check_name"], i["severity"]) for i in gitlab] == [("DFM306", "info")]
    assert cli(project, "lint", "--format", "github", "a.py").stdout.startswith("::notice ")
    junit = ET.fromstring(cli(project, "lint", "--format", "junit", "a.py").stdout)
    assert junit.find(".//skipped") is not None and junit.find(".//failure") is None
    for fmt in ("text", "concise"):
        proc = cli(project, "lint", "--format", fmt, "a.py")
        assert proc.returncode == 0 and "DFM306 [info] " in proc.stdout, proc.stdout + proc.stderr


def test_no_fix_no_todo_no_baseline(project: Path) -> None:
    fixed = cli(project, "fix", "--allow-dirty", "a.py")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert (project / "a.py").read_text() == STILL_RESOLVES
    assert cli(project, "fix", "--check", "a.py").returncode == 0
    assert cli(project, "lint", "--add-noqa", "--allow-dirty", "a.py").returncode == 0
    assert (project / "a.py").read_text() == STILL_RESOLVES
    cli(project, "lint", "--write-baseline", "baseline.json", "a.py")
    assert json.loads((project / "baseline.json").read_text())["findings"] == []


def test_a_real_finding_beside_it_still_fails_the_run(project: Path) -> None:
    (project / "b.py").write_text(REMOVED)
    proc = cli(project, "lint", "--format", "json", ".")
    assert proc.returncode == 1
    severities = {f["code"]: f["severity"] for f in json.loads(proc.stdout)["findings"]}
    assert severities["DFM306"] == "info" and severities["DFM101"] == "error"
