"""The record of a run a team lead reads and a reviewer checks (``dflash-migrate --report
FILE``): JSON or Markdown by the file's suffix, written through the one write path for
reports (:func:`migrator.base.fileio.create_or_replace`).

Per file: the releases it was migrated for and where they came from (its own release where
the repository names one for it, :mod:`migrator.run.own_release`; else the run's target and
its source), the fixes applied (rule, line), the fixes the write guard refused (rule, line, why), the TODOs
left for a human (rule, line, what), how many findings are informational only (a name that
still resolves, a mention in a history file: no work left), and the file's owners from the repository's
``CODEOWNERS`` (GitHub's places: the top, ``.github/``, ``docs/``; the last matching line
wins). The counts are those of the run's summary (:func:`migrator.run.result.summarize`):
``tests/test_run_report.py`` checks them on every corpus and validates the JSON against
``migrator/report/schema/run-report-v1.schema.json``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from migrator import catalog
from migrator.base.fileio import create_or_replace
from migrator.base.model import FileResult, Finding, InsertComment
from migrator.base.options import compile_ignore
from migrator.edit import applied
from migrator.report.escape import visible
from migrator.run.result import left_for_humans

SCHEMA = "https://dflash-migrate/run-report-v1"
#: Where GitHub looks for the owners file, first found wins.
CODEOWNERS = ("CODEOWNERS", ".github/CODEOWNERS", "docs/CODEOWNERS")
UNOWNED = "(no owner)"


def owners_rules(top: str) -> list[tuple[object, tuple[str, ...]]]:
    """(compiled pattern, owners) of each line of the repository's CODEOWNERS, in order."""
    for name in CODEOWNERS:
        try:
            text = Path(top, name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        rules = []
        for line in text.splitlines():
            words = line.split("#", 1)[0].split()
            if len(words) >= 1:
                rules.append((compile_ignore((words[0],)), tuple(words[1:])))
        return rules
    return []


def owners_of(relative: str, rules: Sequence[tuple[object, tuple[str, ...]]]) -> tuple[str, ...]:
    found: tuple[str, ...] = ()
    for spec, owners in rules:
        if spec.match_file(relative):  # type: ignore[attr-defined]
            found = owners
    return found


def _refused(finding: Finding) -> bool:
    fix = finding.fix
    return fix is not None and fix.applicability == "manual" and any(
        isinstance(edit, InsertComment) and "not fixed automatically:" in edit.text for edit in fix.edits)


def _breaking(findings: Sequence[Finding], release: str, unsafe_fixes: bool) -> list[str]:
    """The codes of the findings left in a file that still break or change behaviour on
    ``release`` (the catalog's release facts, ``Entry.fires_for``, as the rules use them);
    names in prose and docs (the text codes) break nothing."""
    codes = set()
    for finding in findings:
        entry = catalog.get(finding.code) if left_for_humans(finding, unsafe_fixes) else None
        if entry is not None and entry.kind != catalog.TEXT_KIND and entry.fires_for(release):
            codes.add(finding.code)
    return sorted(codes)


def _file_target(result: FileResult, releases: Sequence[str], source: str) -> dict:
    """The releases a file was judged for and where they came from: its own release where it
    narrowed the run's target, else the run's."""
    if result.narrowed is not None:
        own, why = result.narrowed
        return {"releases": list(own), "source": why, "own": True}
    return {"releases": list(releases), "source": source, "own": False}


def _span(releases: Sequence[str]) -> str:
    return f"{releases[0]}..{releases[-1]}" if len(releases) > 1 else (releases[0] if releases else "the installed sglang")


def build(results: Sequence[FileResult], summary: object, mode: str, unsafe_fixes: bool,
          target: tuple[tuple[str, ...], str] | None, top: str) -> dict:
    """The report of a run (its ``results`` and ``summary``, ``mode``, the ``target``
    releases and their source), paths relative to ``top``, the repository's top."""
    rules = owners_rules(top)
    writes = mode == "fix"
    releases, source = target if target is not None else ((), "")
    files = []
    for result in sorted(results, key=lambda r: r.path):
        if not (result.findings or result.error or result.new_bytes is not None):
            continue
        changed = result.written if writes else result.changed
        relative = os.path.relpath(os.path.abspath(result.path), top).replace(os.sep, "/")
        files.append({
            "path": relative,
            "owners": list(owners_of(relative, rules)),
            "changed": bool(changed),
            "fixes_applied": [{"code": f.code, "line": f.line} for f in result.findings
                              if changed and applied(f.fix, unsafe_fixes)],
            "fixes_refused": result.refused,
            "refused": [{"code": f.code, "line": f.line, "why": f.message} for f in result.findings if _refused(f)],
            "todos_left": [{"code": f.code, "line": f.line, "what": f.message} for f in result.findings
                           if left_for_humans(f, unsafe_fixes)],
            "informational": sum(f.informational for f in result.findings),
            "error": str(result.error.message) if result.error is not None else None,
            "target": _file_target(result, releases, source),
        })
    for entry, result in zip(files, [r for r in sorted(results, key=lambda r: r.path)
                                     if r.findings or r.error or r.new_bytes is not None]):
        entry["releases"] = {release: _breaking(result.findings, release, unsafe_fixes) for release in releases}
    owners: dict[str, dict[str, int]] = {}
    for entry in files:
        for owner in entry["owners"] or [UNOWNED]:
            counts = owners.setdefault(owner, {"files": 0, "changed": 0, "todos_left": 0})
            counts["files"] += 1
            counts["changed"] += entry["changed"]
            counts["todos_left"] += len(entry["todos_left"])
    return {
        "$schema": SCHEMA,
        "mode": mode,
        "target": {"releases": list(releases), "source": source},
        "summary": {**{key: getattr(summary, key) for key in ("files_scanned", "files_changed", "fixes_applied",
                                                              "todos_left", "fixes_refused", "files_with_errors",
                                                              "findings")},
                    "informational": sum(entry["informational"] for entry in files)},
        "files_left": sum(1 for entry in files if entry["todos_left"] or entry["error"]),
        "releases_safe_now": [release for release in releases if not any(entry["releases"][release] for entry in files)],
        "owners": owners,
        "files": files,
    }


def markdown(report: dict) -> str:
    """The report as Markdown: a one-screen summary first, then by owner, then per file."""
    summary, target = report["summary"], report["target"]
    releases = target["releases"]
    lines = [
        "# dflash-migrate run report",
        "",
        f"- Target: sglang {_span(releases)} ({visible(target['source'])})",
        f"- Files scanned: {summary['files_scanned']}; changed: {summary['files_changed']}; "
        f"with work left: {report['files_left']}",
        f"- Fixes applied: {summary['fixes_applied']}; refused by the write guard: {summary['fixes_refused']}; "
        f"TODOs left: {summary['todos_left']}; informational: {summary['informational']}; "
        f"files with errors: {summary['files_with_errors']}",
        "- Releases safe now (no code left that breaks on them): "
        + (", ".join(report["releases_safe_now"]) or "none"),
        "",
        "## By owner",
        "",
        "| Owner | Files | Changed | TODOs left |",
        "|---|---:|---:|---:|",
    ]
    lines += [f"| {visible(owner)} | {c['files']} | {c['changed']} | {c['todos_left']} |"
              for owner, c in sorted(report["owners"].items())]
    blocked = [entry for entry in report["files"] if any(entry["releases"].values())]
    if releases and blocked:
        lines += ["", "## Release x file", "", "| File | " + " | ".join(releases) + " |",
                  "|---|" + "---|" * len(releases)]
        lines += [f"| `{visible(entry['path'])}` | " + " | ".join(", ".join(entry["releases"][r]) or "ok" for r in releases)
                  + " |" for entry in blocked]
    lines += ["", "## Files", ""]
    for entry in report["files"]:
        lines.append(f"### `{visible(entry['path'])}`" + (f" ({', '.join(map(visible, entry['owners']))})"
                                                         if entry["owners"] else ""))
        lines.append("")
        own = entry["target"]
        if own["own"]:
            lines.append(f"- Releases: sglang {_span(own['releases'])} (its own: {visible(own['source'])})"
                         if own["releases"] else f"- Releases: not known (its own: {visible(own['source'])})")
        if entry["error"]:
            lines.append(f"- Error: {visible(entry['error'])}")
        if entry["fixes_applied"]:
            lines.append("- Fixed: " + ", ".join(f"{f['code']} (line {f['line']})" for f in entry["fixes_applied"]))
        for item in entry["refused"]:
            lines.append(f"- Refused: {item['code']} (line {item['line']}): {visible(item['why'])}")
        for item in entry["todos_left"]:
            lines.append(f"- TODO: {item['code']} (line {item['line']}): {visible(item['what'])}")
        if entry["informational"]:
            lines.append(f"- Informational (no work left): {entry['informational']}")
        lines.append("")
    return "\n".join(lines)


def write(path: Path, report: dict) -> None:
    """``report`` into ``path``: Markdown for ``.md``/``.markdown``, JSON otherwise."""
    if path.suffix.lower() in (".md", ".markdown"):
        data = markdown(report).encode("utf-8")
    else:
        data = (json.dumps(report, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    create_or_replace(path, data)
