"""``--format concise``: ruff's concise layout, ``path:line:col: CODE [*] message``.

The fix marker stands before the message as in ruff (``[*]`` safe, ``[-]`` unsafe; none
for manual findings), followed by the same problem lines and summary as ``text``.
Escaped like ``text``.
"""

from __future__ import annotations

from migrator.base.model import FileResult, Finding, RunSummary
from migrator.report.common import findings_of
from migrator.report.escape import visible
from migrator.report.text import INFO_MARKER, human_report

_MARKERS = {"safe": "[*] ", "unsafe": "[-] "}


def format_finding(finding: Finding) -> str:
    marker = _MARKERS.get(finding.fix.applicability, "") if finding.fix is not None else ""
    if finding.informational:
        marker = INFO_MARKER
    return visible(f"{finding.path}:{finding.line}:{finding.column + 1}: {finding.code} {marker}{finding.message}")


def render(results: list[FileResult], summary: RunSummary, subject: str = "V1 reference",
           target: tuple[tuple[str, ...], str] | None = None) -> str:
    return human_report([format_finding(f) for f in findings_of(results)], results, summary, subject, None, target)
