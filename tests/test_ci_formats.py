"""Issue 17: reports that CI systems take as they are (GitHub annotations and code
scanning, GitLab Code Quality and JUnit, ruff-style concise and json-lines), and issue
13's notebook SARIF fix region."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from migrator import catalog, report
from migrator.base.model import FileResult, Finding, RunSummary, Span
from migrator.cli.runs.lint import run as lint
from migrator.report import sarif

V1_IMPORT = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"


def run_lint(fmt: str, *paths: str) -> tuple[int, str]:
    out = io.StringIO()
    code = lint([Path(p) for p in (paths or (".",))], fmt=fmt, jobs=1, stdout=out, stderr=io.StringIO())
    return code, out.getvalue()


def findings(n: int, path: str = "pkg/a.py", code: str = "DFM109", first_line: int = 1) -> list[Finding]:
    return [Finding(path, Span.of(first_line + i, 0, first_line + i, 3), code, "field `x` was removed")
            for i in range(n)]


def render(fmt: str, found: list[Finding]) -> str:
    return report.render(fmt, [FileResult(found[0].path, findings=found)] if found else [],
                         RunSummary(files_scanned=1, findings=len(found)))


class TestGithubAnnotations:
    def test_paths_from_the_repository_top_without_dot_slash(self, repo: Path) -> None:
        (repo / "sub").mkdir()
        (repo / "sub" / ".env").write_text("SGLANG_ENABLE_SPEC_V2=1\n")
        _, out = run_lint("github", ".")
        assert "file=sub/.env," in out and "./" not in out
        _, from_sub = run_lint("github", "sub")
        assert "file=sub/.env," in from_sub

    def test_running_in_a_subfolder_still_gives_repository_paths(self, repo: Path, monkeypatch) -> None:
        (repo / "sub").mkdir()
        (repo / "sub" / "a.py").write_text(V1_IMPORT)
        monkeypatch.chdir(repo / "sub")
        _, out = run_lint("github", ".")
        assert "file=sub/a.py," in out

    def test_columns_only_on_single_line_spans(self, repo: Path) -> None:
        one = Finding("a.py", Span.of(3, 4, 3, 9), "DFM109", "m")
        many = Finding("a.py", Span.of(5, 4, 7, 1), "DFM109", "m")
        lines = render("github", [one, many]).splitlines()
        assert "line=3,col=5,endLine=3,endColumn=10," in lines[0]
        assert "line=5,endLine=7,title=" in lines[1] and "col=" not in lines[1]

    def test_summary_notice_past_ten_findings(self, repo: Path) -> None:
        assert "::notice" not in render("github", findings(10))
        lines = render("github", findings(47)).splitlines()
        assert len(lines) == 48
        assert lines[-1].startswith("::notice title=dflash-migrate summary::47 DFLASH V1 references in 1 file")


class TestJunitNames:
    def test_no_collisions_and_stable_when_lines_move(self, repo: Path) -> None:
        same_line_twice = findings(2) + [Finding("pkg/a.py", Span.of(1, 10, 1, 13), "DFM109", "field `x` was removed")]
        root = ET.fromstring(render("junit", same_line_twice))
        keys = [(c.get("classname"), c.get("name")) for c in root.iter("testcase")]
        assert len(set(keys)) == 3
        moved = ET.fromstring(render("junit", findings(2, first_line=40)))
        assert [c.get("name") for c in moved.iter("testcase")] == [
            c.get("name") for c in ET.fromstring(render("junit", findings(2))).iter("testcase")]

    def test_line_is_in_the_message_not_the_name(self, repo: Path) -> None:
        case = next(ET.fromstring(render("junit", findings(1, first_line=13))).iter("testcase"))
        assert case.get("name") == next(ET.fromstring(render("junit", findings(1))).iter("testcase")).get("name")
        assert case.find("failure").get("message").startswith("pkg/a.py:13:1: DFM109")


class TestGitlab:
    def test_code_quality_fields(self, repo: Path) -> None:
        (repo / "sub").mkdir()
        (repo / "sub" / "a.py").write_text(V1_IMPORT * 2)
        (repo / "bad.py").write_text("from sglang.srt.speculative.dflash_worker import (\n")
        code, out = run_lint("gitlab")
        assert code == 2
        issues = json.loads(out)
        for issue in issues:
            assert set(issue) >= {"description", "check_name", "fingerprint", "severity", "location"}
            assert issue["severity"] in {"info", "minor", "major", "critical", "blocker"}
            assert not issue["location"]["path"].startswith("./")
            assert issue["location"]["lines"]["begin"] >= 1
        assert len({i["fingerprint"] for i in issues}) == len(issues)
        assert {i["location"]["path"] for i in issues} == {"sub/a.py", "bad.py"}

    def test_fingerprints_survive_line_moves(self, repo: Path) -> None:
        (repo / "a.py").write_text(V1_IMPORT)
        before = {i["fingerprint"] for i in json.loads(run_lint("gitlab")[1])}
        (repo / "a.py").write_text("import os\n\n\n" + V1_IMPORT)
        after = {i["fingerprint"] for i in json.loads(run_lint("gitlab")[1])}
        assert before == after


class TestConciseAndJsonLines:
    def test_concise_is_ruff_shaped(self, repo: Path) -> None:
        (repo / "a.py").write_text(V1_IMPORT)
        _, out = run_lint("concise")
        first = out.splitlines()[0]
        assert first.startswith("a.py:1:") or first.startswith("./a.py:1:")
        assert " DFM101 [*] " in first

    def test_json_lines_one_object_per_line(self, repo: Path) -> None:
        (repo / "a.py").write_text(V1_IMPORT)
        (repo / "bad.py").write_text("from sglang.srt.speculative.dflash_worker import (\n")
        _, out = run_lint("json-lines")
        rows = [json.loads(line) for line in out.splitlines()]
        assert {r["type"] for r in rows} == {"finding", "error"}
        assert all(len(r["fingerprint"]) == 64 for r in rows if r["type"] == "finding")
        full = json.loads(run_lint("json")[1])
        assert [r for r in rows if r["type"] == "finding"] == [{"type": "finding", **f} for f in full["findings"]]


class TestSarif:
    def test_code_scanning_fields(self, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        (repo / "sub").mkdir()
        (repo / "sub" / "a.py").write_text(V1_IMPORT)
        monkeypatch.chdir(repo / "sub")
        run = json.loads(run_lint("sarif", ".")[1])["runs"][0]
        assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.as_uri() + "/"
        assert run["automationDetails"]["id"] == "dflash-migrate/"
        assert "informationUri" not in run["tool"]["driver"]  # no page to point at (not on PyPI)
        for result in run["results"]:
            location = result["locations"][0]["physicalLocation"]["artifactLocation"]
            assert location == {"uri": "sub/a.py", "uriBaseId": "%SRCROOT%"}
            assert len(result["partialFingerprints"]["dflashMigrate/v1"]) == 64
        rule = run["tool"]["driver"]["rules"][0]
        assert rule["properties"]["precision"] == "very-high"
        assert rule["properties"]["problem.severity"] == "error"
        assert "dflash-migrate" in rule["properties"]["tags"]
        assert "helpUri" not in rule

    def test_help_uri_points_at_the_rules_migration_section(self, repo: Path, monkeypatch) -> None:
        monkeypatch.setenv("DFLASH_MIGRATE_DOCS_URL", "https://example.org/o/r/blob/v1/MIGRATION.md")
        rules = json.loads(render("sarif", findings(1)))["runs"][0]["tool"]["driver"]["rules"]
        entry = catalog.ENTRIES[0]
        assert rules[0]["helpUri"] == f"https://example.org/o/r/blob/v1/MIGRATION.md#{entry.anchor}"
        migration = (Path(__file__).parents[1] / "MIGRATION.md").read_text()
        assert all(f'<a id="{e.anchor}"' in migration or f"#{e.anchor}" in migration or
                   e.anchor in migration.lower() for e in catalog.ENTRIES)

    def test_cap_near_githubs_limit(self, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(sarif, "MAX_RESULTS", 5)
        run = json.loads(render("sarif", findings(8)))["runs"][0]
        assert len(run["results"]) == 5 and run["properties"]["omitted_results"] == 3
        assert "3 results omitted" in run["invocations"][0]["toolExecutionNotifications"][-1]["message"]["text"]
        monkeypatch.undo()
        assert sarif.MAX_RESULTS == 25_000

    def test_config_in_run_properties(self, repo: Path) -> None:
        doc = json.loads(report.render("sarif", [], RunSummary(), config="pyproject.toml"))
        assert doc["runs"][0]["properties"]["config"] == "pyproject.toml"
        assert json.loads(report.render("json", [], RunSummary(), config="pyproject.toml"))["config"] == "pyproject.toml"


def test_notebook_sarif_fix_region_is_the_files_line(repo: Path) -> None:
    """Issue 13: the fix region of a notebook finding is where the text is in the .ipynb."""
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# title\n", "text\n"]},
             {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": ["import os\n", "from sglang.srt.speculative.dflash_worker import DFlashWorker\n",
                         "w = DFlashWorker"]}]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"
    (repo / "n.ipynb").write_text(text)
    results = json.loads(run_lint("sarif")[1])["runs"][0]["results"]
    lines = text.splitlines()
    fixed = 0
    for result in results:
        region = result["locations"][0]["physicalLocation"]["region"]
        for fix in result.get("fixes", []):
            for replacement in fix["artifactChanges"][0]["replacements"]:
                deleted = replacement["deletedRegion"]
                assert deleted["startLine"] == region["startLine"] > 10  # the file's line, not the cell's (2 or 3)
                line = lines[deleted["startLine"] - 1]
                new = (line[:deleted["startColumn"] - 1] + replacement["insertedContent"]["text"]
                       + line[deleted["endColumn"] - 1:])
                lines[deleted["startLine"] - 1] = new
                fixed += 1
    assert fixed >= 1
    patched = json.loads("\n".join(lines))  # still a notebook
    assert "dflash_worker_v2" in "".join(patched["cells"][1]["source"]) or "V2" in "".join(patched["cells"][1]["source"])
