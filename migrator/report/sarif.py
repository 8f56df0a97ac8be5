"""``--format sarif``: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

Rules come from the catalog (short description = message, help = guidance). Each result
carries its region (1-based lines and columns, exclusive end) and, where the fix's edits
can be expressed as text replacements, a SARIF ``fix`` with ``artifactChanges`` so that
viewers can offer it; the human-readable replacement is always in ``properties``. Files
that could not be processed become ``toolExecutionNotifications`` with
``executionSuccessful: false``. Validated against the OASIS schema in the tests.
"""

from __future__ import annotations

from urllib.parse import quote

from migrator import catalog
from migrator.model import (
    Edit,
    FileResult,
    Finding,
    InsertComment,
    RemoveStatement,
    Replace,
    RunSummary,
)
from migrator.report import TOOL_NAME, errors_of, findings_of, summary_dict, tool_version, unused_suppressions_of

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/dflash-migrate/"


def artifact_uri(path: str) -> str:
    """A relative URI reference for a path (forward slashes, percent-encoded)."""
    posix = path.replace("\\", "/")
    if posix.startswith("/"):
        return "file://" + quote(posix)
    return quote(posix[2:] if posix.startswith("./") else posix)


def _rule(entry: catalog.Entry) -> dict[str, object]:
    return {
        "id": entry.code,
        "name": entry.kind.replace("-", "") + "_" + entry.old.rpartition(".")[2].strip("-").replace("-", "_"),
        "shortDescription": {"text": entry.message},
        "fullDescription": {"text": entry.guidance},
        "help": {
            "text": f"{entry.guidance}\nBefore: {entry.before}\nAfter: {entry.after}",
            "markdown": f"{entry.guidance}\n\nBefore:\n```\n{entry.before}\n```\nAfter:\n```\n{entry.after}\n```",
        },
        "defaultConfiguration": {"level": "error"},
        "properties": {"fix": entry.fix, "kind": entry.kind, "removed": str(entry.exists)},
    }


def _replacement(edit: Edit) -> dict[str, object] | None:
    if isinstance(edit, Replace):
        s, e = edit.span.start, edit.span.end
        region = {"startLine": s.line, "startColumn": s.column + 1, "endLine": e.line, "endColumn": e.column + 1}
        return {"deletedRegion": region, "insertedContent": {"text": edit.text}}
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
        "artifactChanges": [{"artifactLocation": {"uri": artifact_uri(finding.path)}, "replacements": replacements}],
        "properties": {"applicability": finding.fix.applicability},
    }]


def _result(finding: Finding, rule_index: dict[str, int]) -> dict[str, object]:
    s, e = finding.span.start, finding.span.end
    result: dict[str, object] = {
        "ruleId": finding.code,
        "level": "error",
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": artifact_uri(finding.path)},
            "region": {"startLine": s.line, "startColumn": s.column + 1, "endLine": e.line, "endColumn": e.column + 1},
        }}],
    }
    if finding.code in rule_index:
        result["ruleIndex"] = rule_index[finding.code]
    fixes = _fixes(finding)
    if fixes:
        result["fixes"] = fixes
    if finding.fix is not None:
        result["properties"] = {"fix": {"applicability": finding.fix.applicability,
                                        "replacement": finding.fix.replacement}}
    return result


def document(results: list[FileResult], summary: RunSummary) -> dict[str, object]:
    rules = [_rule(entry) for entry in catalog.ENTRIES]
    rule_index = {entry.code: i for i, entry in enumerate(catalog.ENTRIES)}
    notifications: list[dict[str, object]] = []
    for error in errors_of(results):
        location: dict[str, object] = {"artifactLocation": {"uri": artifact_uri(error.path)}}
        if error.line is not None:
            location["region"] = {"startLine": error.line, "startColumn": (error.column or 0) + 1}
        notifications.append({"level": "error", "message": {"text": f"{error.path}: {error.message}"},
                              "locations": [{"physicalLocation": location}]})
    for path, line, codes in unused_suppressions_of(results):
        notifications.append({
            "level": "warning",
            "message": {"text": f"unused suppression ignore[{','.join(codes) or '*'}]"},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": artifact_uri(path)},
                                                "region": {"startLine": line}}}],
        })
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": TOOL_NAME, "version": tool_version(), "semanticVersion": tool_version(),
                                "informationUri": INFORMATION_URI, "rules": rules}},
            "invocations": [{"executionSuccessful": not errors_of(results),
                             "toolExecutionNotifications": notifications}],
            "columnKind": "unicodeCodePoints",
            "results": [_result(f, rule_index) for f in findings_of(results)],
            "properties": {"summary": summary_dict(results, summary)},
        }],
    }


def render(results: list[FileResult], summary: RunSummary) -> str:
    import json

    return json.dumps(document(results, summary), indent=2, ensure_ascii=False) + "\n"
