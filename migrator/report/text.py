"""``--format text``: one ``path:line:col: CODE message`` line per finding.

The ``path:line:col`` prefix is what editors and terminals make clickable. A trailing
``[*]`` marks a safe fix, ``[unsafe fix]`` one that needs ``--unsafe-fixes``. Files that
could not be processed and suppression comments that suppress nothing follow, then one
summary line. ``fix`` prints the same lines with a status column in place of the marker
(``[fixed]``, ``[manual]``, ...: :func:`fix_status`) and its own summary
(:func:`fix_summary_line`). Paths and messages pass through :func:`migrator.report.escape.visible`, so a
file name or a TODO comment cannot move the cursor or retitle the terminal.
"""

from __future__ import annotations

from migrator import catalog
from migrator.base.model import FileResult, Finding, RunSummary
from migrator.report.common import errors_of, findings_of, summary_dict, target_text, unused_suppressions_of
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


def format_finding(finding: Finding, status: str | None = None) -> str:
    """The finding's line; ``status``: ``fix``'s column (:func:`fix_status`) in place of the
    fix marker (the status says what an informational finding is, so no marker either)."""
    marker = INFO_MARKER if finding.informational and status is None else ""
    tail = _fix_marker(finding) if status is None else f" [{status}]"
    return visible(f"{finding.path}:{finding.line}:{finding.column + 1}: {finding.code} {marker}{finding.message}{tail}")


def fix_status(finding: Finding, mode: str, unsafe_fixes: bool, written: bool) -> str:
    """What became of a finding's fix in a ``fix`` run of ``mode`` (``fix``, ``check``,
    ``diff``): ``fixed`` only where its file was written."""
    fix = finding.fix
    if finding.informational:
        if finding.code == catalog.VENDORED_CODE:  # about the tree, not a spelling
            return "info: merge upstream's release into the vendored sglang first; not changed"
        return "info: still resolves on the target; not changed"
    if fix is None or fix.applicability == "manual":
        return "manual"
    if fix.applicability == "unsafe" and not unsafe_fixes:
        return "unsafe fix available with --unsafe-fixes; TODO left" if mode == "fix" else "unsafe fix available"
    if mode != "fix":
        return "fixable"
    return "fixed" if written else "fixable; file left unchanged"


def fix_summary_line(summary: RunSummary, mode: str, target: tuple[tuple[str, ...], str], config: str | None,
                     interrupted: bool) -> str:
    """``fix``'s one summary line (to stderr: stdout may carry the diff or the fixed source)."""
    verb = {"fix": "changed", "check": "would change", "diff": "would change"}[mode]
    line = (
        f"dflash-migrate: {counted(summary.files_scanned, 'file')} scanned, {summary.files_changed} {verb}, "
        f"{counted(summary.fixes_applied, 'fix', 'fixes')} {'applied' if mode == 'fix' else 'available'}, "
        f"{counted(summary.todos_left, 'manual TODO')} left, {counted(summary.files_with_errors, 'file')} with errors"
        + (f", {counted(summary.left_out, 'path')} left out by ignore files and excludes" if summary.left_out else "")
        + (f", {counted(summary.fixes_refused, 'fix', 'fixes')} refused by the write guard (left as TODOs)"
           if summary.fixes_refused else "")
        + f" (target {target_text(target)}{f'; config {config}' if config else ''})"
    )
    if summary.own_outputs:
        line += f"; {counted(summary.own_outputs, 'own report')} not scanned"
    if interrupted:
        line += "; INTERRUPTED: files not yet processed were left untouched"
    return visible(line)  # the target names the repository's pins as written


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
