"""``--format text``: one ``path:line:col: CODE message`` line per finding.

The ``path:line:col`` prefix is what editors and terminals make clickable. A trailing
``[*]`` marks a safe fix, ``[unsafe fix]`` one that needs ``--unsafe-fixes``. Files that
could not be processed and suppression comments that suppress nothing follow, then one
summary line. ``fix`` prints the same lines with a status column in place of the marker
(``[fixed]``, ``[manual]``, ...: :func:`fix_status`) and its own summary
(:func:`fix_summary_line`). Paths and messages pass through :func:`migrator.report.escape.visible`, so a
file name or a TODO comment cannot move the cursor or retitle the terminal.

``--statistics`` and ``--show-fixes`` (``lint``; ``fix --statistics``), laid out as ruff prints
them. :func:`statistics`: one line per rule code, most frequent first::

    12  DFM201  [*] `SGLANG_ENABLE_SPEC_V2` is gone: ...
     3  DFM105  [ ] `DFlashVerifyInput.verify()` was removed; ...

(``[*]``: every one of them has a fix that ``--fix`` applies, ``[~]``: some, ``[ ]``: none;
as ruff marks them). :func:`fixes`: the fixes applied by ``--fix`` (or, without it, those it
would apply), per file and code::

    Fixed 3 findings:
    - pkg/a.py:
        2 × DFM101 (module `dflash_worker` was removed ...)
"""

from __future__ import annotations

from collections import Counter, defaultdict

from migrator import catalog
from migrator.base.model import FileResult, Finding, RunSummary
from migrator.edit import applied as fix_applied
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


# ---- --statistics and --show-fixes ----------------------------------------------------


def _title(code: str, example: str) -> str:
    try:
        return catalog.get(code).message
    except KeyError:
        return example


def statistics(results: list[FileResult], unsafe_fixes: bool = False) -> str:
    findings = list(findings_of(results))
    counts = Counter(f.code for f in findings)
    fixing = Counter(f.code for f in findings if fix_applied(f.fix, unsafe_fixes))
    marks = {code: "*" if fixing[code] == n else "~" if fixing[code] else " " for code, n in counts.items()}
    examples = {f.code: f.message for f in reversed(findings)}
    if not counts:
        return ""
    width = len(str(max(counts.values())))
    code_width = max(len(code) for code in counts)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return "".join(f"{n:>{width}}\t{code:<{code_width}}\t[{marks[code]}] "
                   f"{visible(_title(code, examples[code]))}\n" for code, n in rows)


def fixes(results: list[FileResult], applied: bool, unsafe_fixes: bool = False) -> str:
    """The fixes ``--fix`` applied (``applied``) or would apply, per file and code."""
    per_file: dict[str, Counter[str]] = defaultdict(Counter)
    titles: dict[str, str] = {}
    for result in results:
        if applied and not result.written:
            continue
        for finding in result.findings:
            if fix_applied(finding.fix, unsafe_fixes):
                per_file[result.path][finding.code] += 1
                titles.setdefault(finding.code, finding.message)
    total = sum(sum(c.values()) for c in per_file.values())
    if not total:
        return "No findings fixed.\n" if applied else "No fixes available.\n"
    lines = [f"{'Fixed' if applied else 'Would fix'} {total} finding{'s' if total != 1 else ''}:"]
    for path in sorted(per_file):
        lines.append(f"- {visible(path)}:")
        for code, n in sorted(per_file[path].items()):
            lines.append(f"    {n} × {code} ({visible(_title(code, titles[code]))})")
    return "\n".join(lines) + "\n"
