"""``--format text``: one ``path:line:col: CODE message`` line per finding.

The ``path:line:col`` prefix is what editors and terminals make clickable. A trailing
``[*]`` marks a safe fix, ``[unsafe fix]`` one that needs ``--unsafe-fixes``. Files that
could not be processed and suppression comments that suppress nothing follow, then one
summary line. Paths and messages pass through :func:`migrator.report.escape.visible`, so a
file name or a TODO comment cannot move the cursor or retitle the terminal.
"""

from __future__ import annotations

from migrator.base.model import FileResult, Finding, RunSummary
from migrator.report.common import errors_of, findings_of, summary_dict, unused_suppressions_of
from migrator.report.escape import visible

#: Before the message of an informational finding (``Finding.severity`` ``info``).
INFO_MARKER = "[info] "


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``1 file``, ``2 files``: a count with its noun in the right number."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def _fix_marker(finding: Finding) -> str:
    if finding.fix is None or finding.fix.applicability == "manual":
        return ""
    return " [*]" if finding.fix.applicability == "safe" else " [unsafe fix]"


def format_finding(finding: Finding) -> str:
    marker = INFO_MARKER if finding.informational else ""
    return visible(f"{finding.path}:{finding.line}:{finding.column + 1}: {finding.code} {marker}{finding.message}"
                   f"{_fix_marker(finding)}")


def summary_line(results: list[FileResult], summary: RunSummary, subject: str = "V1 reference",
                 config: str | None = None, target: tuple[tuple[str, ...], str] | None = None) -> str:
    counts = summary_dict(results, summary)
    n, fixable, errors = counts["findings"], counts["fixable"], counts["errors"]
    with_findings = sum(1 for result in results if result.findings)
    tail = f"Found {counted(n, subject)} in {with_findings} of {counted(counts['files_scanned'], 'file')}"
    hidden = counts["unsafe_fixable"]
    if fixable or hidden:
        shown = [f"{fixable} fixable with `dflash-migrate`"] if fixable else []
        if hidden:
            shown.append(f"{counted(hidden, 'hidden fix', 'hidden fixes')} can be enabled with `--unsafe-fixes`")
        tail += f" ({'; '.join(shown)})"
    if errors:
        tail += f"; {errors} file{'s' if errors != 1 else ''} could not be processed"
    if counts["suppressed"]:
        tail += f"; {counts['suppressed']} suppressed"
    if counts["left_out"]:
        tail += f"; {counted(counts['left_out'], 'path')} left out by ignore files and excludes"
    if summary.own_outputs:
        tail += f"; {counted(summary.own_outputs, 'own report')} not scanned"
    if target:
        from migrator.report.common import target_text

        tail += f" (target {target_text(target)})"
    if config:
        tail += f" (config: {config})"
    return tail + "."


def problem_lines(results: list[FileResult]) -> list[str]:
    """Unprocessable files and unused suppressions, escaped."""
    lines = [visible(str(error)) for error in errors_of(results)]
    lines += [
        visible(f"{path}:{line}:1: warning: unused suppression `ignore[{','.join(codes) or '*'}]`")
        for path, line, codes in unused_suppressions_of(results)
    ]
    return lines


def human_report(lines: list[str], results: list[FileResult], summary: RunSummary, subject: str,
                 config: str | None, target: tuple[tuple[str, ...], str] | None) -> str:
    """A human format's report (``text``, ``concise``, ``full``): its ``lines`` for the
    findings, then the problem lines and the summary line."""
    lines = [*lines, *problem_lines(results), visible(summary_line(results, summary, subject, config, target))]
    return "\n".join(lines) + "\n"


def render(results: list[FileResult], summary: RunSummary, subject: str = "V1 reference",
           config: str | None = None, target: tuple[tuple[str, ...], str] | None = None) -> str:
    return human_report([format_finding(f) for f in findings_of(results)], results, summary, subject, config, target)
