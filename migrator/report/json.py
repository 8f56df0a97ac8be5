"""``--format json``: a stable, versioned document (schema: ``schema/lint-v1.schema.json``).

``line``/``end_line`` are 1-based; ``column``/``end_column`` are 1-based and the end is
exclusive. ``fix`` is null when the rule has no fix; otherwise it carries the
applicability (``safe``/``unsafe``/``manual``) and, where known, the replacement text.
Adding keys is backwards compatible; renaming or removing one bumps ``version``.
"""

from __future__ import annotations

import json

from migrator.model import FileResult, Finding, RunSummary
from migrator.report import JSON_SCHEMA_VERSION, errors_of, findings_of, summary_dict, unused_suppressions_of


def finding_dict(finding: Finding) -> dict[str, object]:
    fix = None
    if finding.fix is not None:
        fix = {"applicability": finding.fix.applicability, "replacement": finding.fix.replacement}
    return {
        "path": finding.path,
        "line": finding.span.start.line,
        "column": finding.span.start.column + 1,
        "end_line": finding.span.end.line,
        "end_column": finding.span.end.column + 1,
        "code": finding.code,
        "message": finding.message,
        "fix": fix,
    }


def document(results: list[FileResult], summary: RunSummary) -> dict[str, object]:
    return {
        "version": JSON_SCHEMA_VERSION,
        "findings": [finding_dict(f) for f in findings_of(results)],
        "errors": [
            {"path": e.path, "message": e.message, "line": e.line, "column": None if e.column is None else e.column + 1}
            for e in errors_of(results)
        ],
        "unused_suppressions": [
            {"path": path, "line": line, "codes": list(codes)} for path, line, codes in unused_suppressions_of(results)
        ],
        "summary": summary_dict(results, summary),
    }


def render(results: list[FileResult], summary: RunSummary) -> str:
    return json.dumps(document(results, summary), indent=2, ensure_ascii=False) + "\n"
