"""``--format sarif``: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

Rules come from the catalog (short description = message, help = guidance). Each result
carries its region (1-based lines and columns, exclusive end) and, where the fix's edits
can be expressed as text replacements, a SARIF ``fix`` with ``artifactChanges`` so that
viewers can offer it; the human-readable replacement is always in ``properties``. Files
that could not be processed become ``toolExecutionNotifications`` with
``executionSuccessful: false``. Validated against the OASIS schema, and by Microsoft's
SARIF multitool with GitHub's rules, in the tests.

For GitHub code scanning:

* artifact URIs are relative to ``%SRCROOT%``, the repository's top
  (:func:`migrator.report.locations.repo_root`, given in ``originalUriBaseIds``), and
  percent-encoded from the path's bytes (a file name that is not UTF-8 is encoded byte by
  byte); a file outside the repository gets an absolute ``file://`` URI;
* ``partialFingerprints["dflashMigrate/v1"]`` is the finding's fingerprint (stable across
  line moves), so uploads through the REST API do not duplicate alerts;
* each rule has ``tags``, ``precision`` and ``problem.severity``, and a ``helpUri`` to its
  MIGRATION.md section where the documentation's URL is known
  (:func:`migrator.report.common.docs_url`; the GitHub Action sets it);
* ``automationDetails.id`` is ``dflash-migrate/``, the analysis category;
* at most :data:`MAX_RESULTS` results (GitHub accepts 25,000 per run); the rest are
  counted in a warning notification and in ``properties.omitted_results``.
"""

from __future__ import annotations

import os
from urllib.parse import quote

from migrator import catalog
from migrator.base.model import Edit, FileResult, Finding, InsertComment, RemoveStatement, Replace, RunSummary, Span
from migrator.report.common import (
    TOOL_NAME,
    docs_url,
    errors_of,
    narrowed_of,
    summary_dict,
    target_dict,
    tool_version,
    unused_suppressions_of,
)
from migrator.report.json import dumps, fix_dict
from migrator.report.locations import fingerprinted, repo_relative, repo_root

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "dflashMigrate/v1"
#: GitHub code scanning rejects a run with more than 25,000 results.
MAX_RESULTS = 25_000


def _path_bytes(path: str) -> bytes:
    try:
        return os.fsencode(path)
    except UnicodeEncodeError:  # a surrogate that is no undecodable byte
        return path.encode("utf-8", "surrogatepass")


def artifact_location(path: str) -> dict[str, str]:
    """``{"uri", "uriBaseId"}`` relative to the repository's top, else an absolute file URI."""
    relative = repo_relative(path, anchored=True)
    if relative is not None:
        return {"uri": quote(_path_bytes(relative), safe="/"), "uriBaseId": SRCROOT}
    return {"uri": _file_uri(os.path.abspath(path).replace(os.sep, "/"))}


def _file_uri(absolute: str) -> str:
    """``file://`` and ``absolute`` (forward slashes; a Windows drive gets a leading ``/``), percent-encoded."""
    return "file://" + quote(_path_bytes(absolute if absolute.startswith("/") else "/" + absolute), safe="/")


def _region(span: Span) -> dict[str, int]:
    """A SARIF region: 1-based lines and columns, exclusive end."""
    s, e = span.start, span.end
    return {"startLine": s.line, "startColumn": s.column + 1, "endLine": e.line, "endColumn": e.column + 1}


def _rule(entry: catalog.Entry, docs: str | None) -> dict[str, object]:
    rule: dict[str, object] = {
        "id": entry.code,
        "name": entry.kind.replace("-", "") + "_" + entry.old.rpartition(".")[2].strip("-").replace("-", "_"),
        "shortDescription": {"text": entry.message},
        "fullDescription": {"text": entry.guidance},
        "help": {
            "text": f"{entry.guidance}\nBefore: {entry.before}\nAfter: {entry.after}",
            "markdown": f"{entry.guidance}\n\nBefore:\n```\n{entry.before}\n```\nAfter:\n```\n{entry.after}\n```",
        },
        "defaultConfiguration": {"level": "error"},
        "properties": {"fix": entry.fix, "kind": entry.kind, "removed": str(entry.exists),
                       "tags": ["dflash-migrate", "sglang-migration", entry.kind],
                       "precision": "very-high", "problem.severity": "error"},
    }
    if docs is not None:
        rule["helpUri"] = f"{docs}#{entry.anchor}"
    return rule


def _replacement(edit: Edit) -> dict[str, object] | None:
    if isinstance(edit, Replace):
        return {"deletedRegion": _region(edit.span), "insertedContent": {"text": edit.text}}
    if isinstance(edit, RemoveStatement):
        region = {"startLine": edit.span.start.line, "startColumn": 1,
                  "endLine": edit.span.end.line + 1, "endColumn": 1}
        return {"deletedRegion": region}
    if isinstance(edit, InsertComment):
        region = {"startLine": edit.line, "startColumn": 1, "endLine": edit.line, "endColumn": 1}
        return {"deletedRegion": region, "insertedContent": {"text": edit.text + "\n"}}
    return None  # AST-level edits (AddKeyword, ...) need the source to be spelled out


def _fixes(finding: Finding) -> list[dict[str, object]]:
    if finding.fix is None or not finding.fix.edits:
        return []
    replacements = [_replacement(edit) for edit in finding.fix.edits]
    if any(r is None for r in replacements):
        return []
    text = finding.fix.replacement or f"{finding.fix.applicability} fix for {finding.code}"
    return [{
        "description": {"text": text},
        "artifactChanges": [{"artifactLocation": artifact_location(finding.path), "replacements": replacements}],
        "properties": {"applicability": finding.fix.applicability},
    }]


def _result(finding: Finding, fingerprint: str, rule_index: dict[str, int]) -> dict[str, object]:
    result: dict[str, object] = {
        "ruleId": finding.code,
        "level": "note" if finding.informational else "error",
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": artifact_location(finding.path),
            "region": _region(finding.span),
        }}],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
    }
    if finding.code in rule_index:
        result["ruleIndex"] = rule_index[finding.code]
    if finding.related:  # the fork modules the finding came through (migrator.python.forkindex)
        result["relatedLocations"] = [
            {"id": number, "physicalLocation": {"artifactLocation": artifact_location(path), "region": {"startLine": line}},
             "message": {"text": "through this module"}}
            for number, (path, line) in enumerate(finding.related)]
    fixes = _fixes(finding)
    if fixes:
        result["fixes"] = fixes
    if finding.fix is not None:
        result["properties"] = {"fix": fix_dict(finding.fix)}
    return result


def document(results: list[FileResult], summary: RunSummary, config: str | None = None,
             target: tuple[tuple[str, ...], str] | None = None) -> dict[str, object]:
    docs = docs_url()
    rules = [_rule(entry, docs) for entry in catalog.ENTRIES]
    rule_index = {entry.code: i for i, entry in enumerate(catalog.ENTRIES)}
    notifications: list[dict[str, object]] = []
    for error in errors_of(results):
        location: dict[str, object] = {"artifactLocation": artifact_location(error.path)}
        if error.line is not None:
            location["region"] = {"startLine": error.line, "startColumn": (error.column or 0) + 1}
        notifications.append({"level": "error", "message": {"text": f"{error.path}: {error.message}"},
                              "locations": [{"physicalLocation": location}]})
    for path, line, codes in unused_suppressions_of(results):
        notifications.append({
            "level": "warning",
            "message": {"text": f"unused suppression ignore[{','.join(codes) or '*'}]"},
            "locations": [{"physicalLocation": {"artifactLocation": artifact_location(path),
                                                "region": {"startLine": line}}}],
        })
    found = fingerprinted(results)
    omitted = max(0, len(found) - MAX_RESULTS)
    if omitted:
        notifications.append({"level": "warning", "message": {
            "text": f"{omitted} results omitted: a SARIF run holds at most {MAX_RESULTS} (GitHub's limit); "
                    "see `dflash-migrate lint --format json` for all"}})
    driver: dict[str, object] = {"name": TOOL_NAME, "version": tool_version(), "semanticVersion": tool_version(),
                                 "rules": rules}
    if docs is not None:
        driver["informationUri"] = docs

    properties: dict[str, object] = {"summary": summary_dict(results, summary), "config": config,
                                     "target": target_dict(target), "narrowed": narrowed_of(results)}
    if omitted:
        properties["omitted_results"] = omitted
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            "automationDetails": {"id": f"{TOOL_NAME}/"},
            "originalUriBaseIds": {SRCROOT: {"uri": _file_uri(repo_root().replace(os.sep, "/").rstrip("/") + "/")}},
            "invocations": [{"executionSuccessful": not errors_of(results),
                             "toolExecutionNotifications": notifications}],
            "columnKind": "unicodeCodePoints",
            "results": [_result(f, fp, rule_index) for f, fp in found[:MAX_RESULTS]],
            "properties": properties,
        }],
    }


def render(results: list[FileResult], summary: RunSummary, config: str | None = None,
           target: tuple[tuple[str, ...], str] | None = None) -> str:
    return dumps(document(results, summary, config, target)) + "\n"
