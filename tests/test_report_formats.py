"""Every ``--format``: shape, escaping, and validation against the schemas they promise."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from migrator import report
from migrator.base.model import (
    AddKeyword,
    FileError,
    FileResult,
    Finding,
    Fix,
    InsertComment,
    RemoveStatement,
    Replace,
    RunSummary,
    Span,
)

DATA = Path(__file__).parent / "data" / "report"
LINT_SCHEMA = Path(report.__file__).parent / "schema" / "lint-v1.schema.json"


def sample() -> tuple[list[FileResult], RunSummary]:
    safe = Finding("pkg/a.py", Span.of(1, 5, 1, 46), "DFM101", "module `dflash_worker` was removed",
                   Fix("safe", (Replace(Span.of(1, 5, 1, 46), "sglang.srt.speculative.dflash_worker_v2"),),
                       "sglang.srt.speculative.dflash_worker_v2"))
    manual = Finding("pkg/a.py", Span.of(7, 4, 7, 30), "DFM105", "`verify()` was removed",
                     Fix("manual", (InsertComment(7, "# TODO(dflash-migrate): DFM105 x"),)))
    kw = Finding("pkg/b.py", Span.of(3, 0, 4, 1), "DFM201", "env, with, comma: and\nnewline 100%",
                 Fix("safe", (AddKeyword(Span.of(3, 0, 4, 1), "disable_overlap_schedule", "True"),),
                     "disable_overlap_schedule=True"))
    shell = Finding("dir with space/run.sh", Span.of(2, 7, 2, 28), "DFM201", "env var",
                    Fix("safe", (RemoveStatement(Span.of(2, 0, 2, 30)),), ""))
    nofix = Finding("pkg/b.py", Span.of(1, 0, 1, 3), "DFM109", "field <gone> & \"quoted\"", None)
    results = [
        FileResult("pkg/a.py", findings=[manual, safe], suppressed=1),
        FileResult("pkg/b.py", findings=[kw, nofix], unused_suppressions=[(9, ("DFM101",))]),
        FileResult("dir with space/run.sh", findings=[shell]),
        FileResult("bad.py", error=FileError("bad.py", "cannot parse: invalid syntax", 3, 4)),
        FileResult("clean.py"),
    ]
    return results, RunSummary(files_scanned=5, findings=5, files_with_errors=1, suppressed=1)


def clean() -> tuple[list[FileResult], RunSummary]:
    return [FileResult("ok.py")], RunSummary(files_scanned=1)


def test_unknown_format_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown format"):
        report.render("xml", *clean())


@pytest.mark.parametrize("fmt", report.FORMATS)
def test_every_format_renders_clean_and_dirty_runs(fmt: str) -> None:
    assert report.render(fmt, *sample()).endswith("\n")
    assert report.render(fmt, *clean()) or fmt in ("github", "json-lines")  # nothing to stream for a clean run


class TestText:
    def test_clickable_lines_sorted_with_one_based_columns(self) -> None:
        out = report.render("text", *sample()).splitlines()
        assert out[0] == "dir with space/run.sh:2:8: DFM201 env var [*]"
        assert out[1] == "pkg/a.py:1:6: DFM101 module `dflash_worker` was removed [*]"
        assert out[2] == "pkg/a.py:7:5: DFM105 `verify()` was removed"
        assert "bad.py:3:5: error: cannot parse: invalid syntax" in out
        assert "pkg/b.py:9:1: warning: unused suppression `ignore[DFM101]`" in out
        assert out[-1].startswith("Found 5 V1 references in 3 of 5 files (3 fixable")
        assert "1 file could not be processed" in out[-1]

    def test_clean_run_says_so(self) -> None:
        assert report.render("text", *clean()) == "Found 0 V1 references in 0 of 1 file.\n"


class TestJson:
    def test_output_matches_checked_in_schema(self) -> None:
        schema = json.loads(LINT_SCHEMA.read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        for run in (sample(), clean()):
            jsonschema.validate(json.loads(report.render("json", *run)), schema,
                                cls=jsonschema.Draft202012Validator)

    def test_schema_rejects_drift(self) -> None:
        schema = json.loads(LINT_SCHEMA.read_text())
        doc = json.loads(report.render("json", *sample()))
        doc["findings"][0]["col"] = 1
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(doc, schema)

    def test_fields(self) -> None:
        doc = json.loads(report.render("json", *sample()))
        assert doc["version"] == 1
        first = doc["findings"][1]
        assert len(first.pop("fingerprint")) == 64
        assert first == {
            "path": "pkg/a.py", "line": 1, "column": 6, "end_line": 1, "end_column": 47, "code": "DFM101",
            "message": "module `dflash_worker` was removed", "severity": "error",
            "fix": {"applicability": "safe", "replacement": "sglang.srt.speculative.dflash_worker_v2"},
        }
        assert [f["fix"] for f in doc["findings"] if f["code"] == "DFM109"] == [None]
        assert doc["errors"] == [{"path": "bad.py", "message": "cannot parse: invalid syntax", "line": 3, "column": 5}]
        assert doc["unused_suppressions"] == [{"path": "pkg/b.py", "line": 9, "codes": ["DFM101"]}]
        assert doc["summary"]["by_code"] == {"DFM101": 1, "DFM105": 1, "DFM109": 1, "DFM201": 2}
        assert doc["summary"]["fixable"] == 3 and doc["summary"]["suppressed"] == 1


class TestSarif:
    def test_valid_against_official_schema(self) -> None:
        schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
        for run in (sample(), clean()):
            doc = json.loads(report.render("sarif", *run))
            jsonschema.validate(doc, schema, cls=jsonschema.Draft4Validator,
                                format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)

    def test_results_rules_and_fixes(self) -> None:
        doc = json.loads(report.render("sarif", *sample()))
        run = doc["runs"][0]
        assert doc["version"] == "2.1.0"
        rules = run["tool"]["driver"]["rules"]
        results = run["results"]
        assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)
        by_code = {r["ruleId"]: r for r in results}
        region = by_code["DFM101"]["locations"][0]["physicalLocation"]["region"]
        assert region == {"startLine": 1, "startColumn": 6, "endLine": 1, "endColumn": 47}
        change = by_code["DFM101"]["fixes"][0]["artifactChanges"][0]
        assert change["replacements"][0]["insertedContent"]["text"] == "sglang.srt.speculative.dflash_worker_v2"
        shell = [r for r in results if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                 == "dir%20with%20space/run.sh"]
        assert shell[0]["fixes"][0]["artifactChanges"][0]["replacements"][0]["deletedRegion"]["endLine"] == 3
        # An AST-level edit cannot be spelled as text: no SARIF fix, but the replacement is kept.
        kw = [r for r in results if r["ruleId"] == "DFM201" and "fixes" not in r][0]
        assert kw["properties"]["fix"]["replacement"] == "disable_overlap_schedule=True"
        assert "fixes" not in by_code["DFM109"]

    def test_unprocessable_file_is_a_failed_execution(self) -> None:
        inv = json.loads(report.render("sarif", *sample()))["runs"][0]["invocations"][0]
        assert inv["executionSuccessful"] is False
        assert any("bad.py" in n["message"]["text"] for n in inv["toolExecutionNotifications"])
        clean_inv = json.loads(report.render("sarif", *clean()))["runs"][0]["invocations"][0]
        assert clean_inv["executionSuccessful"] is True


class TestGithub:
    def test_annotations(self) -> None:
        out = report.render("github", *sample()).splitlines()
        assert out[1] == (
            "::error file=pkg/a.py,line=1,col=6,endLine=1,endColumn=47,title=dflash-migrate DFM101::"
            "DFM101 module `dflash_worker` was removed (fix: safe)"
        )
        assert any(line.startswith("::error file=bad.py,line=3,") for line in out)
        assert any(line.startswith("::warning file=pkg/b.py,line=9,") for line in out)

    def test_escaping(self) -> None:
        out = report.render("github", *sample())
        assert "env, with, comma: and%0Anewline 100%25" in out
        assert "\nnewline" not in out


class TestJunit:
    def test_structure(self) -> None:
        root = ET.fromstring(report.render("junit", *sample()))
        assert root.tag == "testsuites"
        assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("6", "5", "1")
        suites = {s.get("name"): s for s in root.iter("testsuite")}
        assert set(suites) == {"bad.py", "dir with space/run.sh", "pkg/a.py", "pkg/b.py"}
        failure = suites["pkg/b.py"].find("testcase/failure")
        assert failure is not None and failure.get("type") in {"DFM109", "DFM201"}
        assert suites["bad.py"].find("testcase/error") is not None

    def test_clean_run_has_one_passing_case(self) -> None:
        root = ET.fromstring(report.render("junit", *clean()))
        cases = list(root.iter("testcase"))
        assert len(cases) == 1 and not list(cases[0])


def test_fix_prints_the_text_reports_lines_with_a_status_column(tmp_path: Path) -> None:
    """``fix`` has no line printer of its own: each of its lines is the text report's
    ``format_finding`` with the status (``fix_status``) where lint puts its fix marker."""
    import subprocess
    import sys

    from migrator.report.text import fix_status, format_finding
    from migrator.run import engine

    source = ("from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
              "from sglang.srt.speculative.dflash_info import _compute_paged_keep_slots\n")
    (tmp_path / "m.py").write_text(source)
    options = engine.Options(mode="check", target_version="0.5.17", jobs=1)
    done = subprocess.run([sys.executable, "-m", "migrator", "fix", "--check", "--allow-dirty", "--target-version", "0.5.17",
                           "m.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    printed = [line for line in done.stdout.splitlines() if line.startswith("m.py:")]
    outcome = engine.run([tmp_path / "m.py"], options)
    findings = [f._replace(path="m.py") for r in outcome.results for f in r.findings]
    assert printed == [format_finding(f, fix_status(f, "check", False, False)) for f in findings], done.stdout
    assert {line.rsplit(" [", 1)[1] for line in printed} == {"fixable]", "manual]"}
    assert format_finding(findings[0]).endswith(" [*]") and not format_finding(findings[0]).endswith("[fixable]")
