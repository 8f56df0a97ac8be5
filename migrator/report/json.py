"""``--format json``: a stable, versioned document (schema: ``schema/lint-v1.schema.json``).

``line``/``end_line`` are 1-based; ``column``/``end_column`` are 1-based and the end is
exclusive. ``fix`` is null when the rule has no fix; otherwise it carries the
applicability (``safe``/``unsafe``/``manual``) and, where known, the replacement text.
``fingerprint`` identifies the finding across runs (:mod:`migrator.report.locations`).
``config`` is the configuration file the run used (null: none). Paths are UTF-8; a file
name byte that is not UTF-8 appears as the escape ``\\udcNN`` (see
:mod:`migrator.report.escape`). Adding keys is backwards compatible; renaming or removing
one bumps ``version``.
"""

from __future__ import annotations

import json

from migrator.base.model import FileResult, Finding, Fix, RunSummary
from migrator.report.common import (
    JSON_SCHEMA_VERSION,
    errors_of,
    narrowed_of,
    summary_dict,
    target_dict,
    unused_suppressions_of,
)
from migrator.report.escape import json_text
from migrator.report.locations import fingerprinted


def fix_dict(fix: Fix | None) -> dict[str, object] | None:
    """A finding's fix as JSON and SARIF give it (None: the rule has no fix)."""
    return None if fix is None else {"applicability": fix.applicability, "replacement": fix.replacement}


def finding_dict(finding: Finding, fingerprint: str) -> dict[str, object]:
    return {
        "path": finding.path,
        "line": finding.span.start.line,
        "column": finding.span.start.column + 1,
        "end_line": finding.span.end.line,
        "end_column": finding.span.end.column + 1,
        "code": finding.code,
        "message": finding.message,
        "severity": finding.severity,
        "fix": fix_dict(finding.fix),
        "fingerprint": fingerprint,
    }


def error_dict(error) -> dict[str, object]:  # noqa: ANN001 - model.FileError
    return {"path": error.path, "message": error.message, "line": error.line,
            "column": None if error.column is None else error.column + 1}


def document(results: list[FileResult], summary: RunSummary, config: str | None = None,
             target: tuple[tuple[str, ...], str] | None = None) -> dict[str, object]:
    return {
        "version": JSON_SCHEMA_VERSION,
        "findings": [finding_dict(f, fp) for f, fp in fingerprinted(results)],
        "errors": [error_dict(e) for e in errors_of(results)],
        "unused_suppressions": [
            {"path": path, "line": line, "codes": list(codes)} for path, line, codes in unused_suppressions_of(results)
        ],
        "summary": summary_dict(results, summary),
        "config": config,
        "target": target_dict(target),
        "narrowed": narrowed_of(results),
    }


def dumps(value: object, indent: int | None = 2) -> str:
    """JSON text that is valid UTF-8 whatever the paths hold."""
    return json_text(json.dumps(value, indent=indent, ensure_ascii=False))


def render(results: list[FileResult], summary: RunSummary, config: str | None = None,
           target: tuple[tuple[str, ...], str] | None = None) -> str:
    return dumps(document(results, summary, config, target)) + "\n"
