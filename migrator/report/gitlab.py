"""``--format gitlab``: a GitLab Code Quality report (``artifacts: reports: codequality``).

A JSON array of issues, each with ``description``, ``check_name`` (the rule code),
``fingerprint`` (stable across line moves: :mod:`migrator.report.locations`),
``severity`` and ``location`` (``path`` from the repository's top, ``lines.begin``/``end``),
as GitLab documents the format. A file that could not be processed is a ``blocker``
issue named ``dflash-migrate/error``, so the merge request shows it.
"""

from __future__ import annotations

import hashlib

from migrator.base.model import FileResult, RunSummary
from migrator.report.common import errors_of
from migrator.report.json import dumps
from migrator.report.locations import fingerprinted, report_path


def render(results: list[FileResult], summary: RunSummary) -> str:
    issues: list[dict[str, object]] = []
    for finding, fingerprint in fingerprinted(results):
        issues.append({
            "type": "issue",
            "check_name": finding.code,
            "description": f"{finding.code} {finding.message}",
            "categories": ["Compatibility"],
            "severity": "info" if finding.informational else "major",
            "fingerprint": fingerprint,
            "location": {"path": report_path(finding.path),
                         "lines": {"begin": finding.span.start.line, "end": finding.span.end.line}},
        })
    for error in errors_of(results):
        path = report_path(error.path)
        key = f"error\0{path}\0{error.message}".encode("utf-8", "surrogatepass")
        issues.append({
            "type": "issue",
            "check_name": "dflash-migrate/error",
            "description": f"could not be processed: {error.message}",
            "categories": ["Bug Risk"],
            "severity": "blocker",
            "fingerprint": hashlib.sha256(key).hexdigest(),
            "location": {"path": path, "lines": {"begin": error.line or 1}},
        })
    return dumps(issues) + "\n"
