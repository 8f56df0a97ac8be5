"""``--format json-lines``: one JSON object per line, for streaming consumers (as ruff's).

Each line has ``type``: ``"finding"`` (the fields of ``--format json``'s findings, with
``fingerprint``), ``"error"`` (a file that could not be processed) or
``"unused_suppression"``. No summary line: count the lines. Escaped like ``json``.
"""

from __future__ import annotations

from migrator.base.model import FileResult, RunSummary
from migrator.report.common import errors_of, unused_suppressions_of
from migrator.report.json import dumps, error_dict, finding_dict
from migrator.report.locations import fingerprinted


def render(results: list[FileResult], summary: RunSummary) -> str:
    rows: list[dict[str, object]] = [{"type": "finding", **finding_dict(f, fp)} for f, fp in fingerprinted(results)]
    rows += [{"type": "error", **error_dict(e)} for e in errors_of(results)]
    rows += [{"type": "unused_suppression", "path": path, "line": line, "codes": list(codes)}
             for path, line, codes in unused_suppressions_of(results)]
    return "".join(dumps(row, indent=None) + "\n" for row in rows)
