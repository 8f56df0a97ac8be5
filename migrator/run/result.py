"""A run's result (:class:`RunResult`): every file's result, the summary and the exit code
of every command, computed here and nowhere else (a test scans for a
second computation): 0 clean, 1 work is left, 2 a file could not be processed, the run
was interrupted, or the command line is wrong (:data:`USAGE`).

"Work left" depends on the mode: after ``fix`` the findings a human must still handle
(manual ones, TODOs, unsafe fixes not applied); after ``--check``/``--diff`` anything
found or anything that would change; after ``lint`` and ``verify`` any finding reported.
``stdin`` runs, baselines and ``--add-noqa`` go through the same function, so a file
named on the command line and the same bytes on standard input exit alike.
"""

from __future__ import annotations

from migrator.base.model import RunSummary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence

    from migrator.base.model import FileResult, Finding
    from migrator.base.options import Mode, Options

CLEAN, WORK_LEFT, FAILED = 0, 1, 2
#: A command line or configuration that cannot run (nothing was read or written).
USAGE = 2


def left_for_humans(finding: Finding, unsafe_fixes: bool) -> bool:
    """Manual findings, TODOs left by earlier runs, and unsafe fixes not applied."""
    if finding.informational:
        return False
    fix = finding.fix
    return fix is None or fix.applicability == "manual" or (fix.applicability == "unsafe" and not unsafe_fixes)


def exit_code(results: Sequence[FileResult], mode: str = "lint", *, unsafe_fixes: bool = False,
              interrupted: bool = False, failed: bool = False, fixed: bool = False, exit_zero: bool = False) -> int:
    """The exit code of a run over ``results`` in ``mode`` ("fix", "check", "diff" or
    "lint"; ``verify`` is "lint"). ``failed``: something outside the files failed (a
    suppression comment that could not be written); ``fixed``: count what was fixed as
    work left (``--exit-non-zero-on-fix``); ``exit_zero``: 1 becomes 0 (2 never does)."""
    if interrupted or failed or any(result.error is not None for result in results):
        return FAILED
    if mode == "fix":
        left = any(left_for_humans(finding, unsafe_fixes) for result in results for finding in result.findings)
    elif mode in ("check", "diff"):
        left = any(result.changed or not all(f.informational for f in result.findings) for result in results)
    else:  # informational findings alone are no work left
        left = any(not finding.informational for result in results for finding in result.findings)
    code = WORK_LEFT if left or fixed else CLEAN
    return CLEAN if exit_zero and code == WORK_LEFT else code


class RunResult:
    """A whole run: every file's result, the summary, what was skipped and why."""

    __slots__ = ("results", "summary", "skipped", "interrupted", "mode", "unsafe_fixes", "index_read")

    def __init__(self, mode: Mode = "lint", unsafe_fixes: bool = False) -> None:
        self.results: list[FileResult] = []
        self.summary = RunSummary()
        self.skipped: list[tuple[str, str]] = []
        self.interrupted = False
        self.mode = mode
        self.unsafe_fixes = unsafe_fixes
        #: What the fork index read besides the scanned files, for ``-v`` ("": nothing).
        self.index_read = ""

    @property
    def exit_code(self) -> int:
        """The run's exit code (:func:`exit_code`)."""
        return exit_code(self.results, self.mode, unsafe_fixes=self.unsafe_fixes, interrupted=self.interrupted)

    def summarize(self, options: Options) -> None:
        """Count the results into :attr:`summary` (what the run itself counted, the files
        scanned, left out and its own outputs, stays)."""
        self.summary = summarize(self.results, self.summary, writes=options.writes, unsafe_fixes=options.unsafe_fixes)


def summarize(results: Sequence[FileResult], counted: RunSummary, *, writes: bool = False,
              unsafe_fixes: bool = False) -> RunSummary:
    """The one summary of a run's ``results``, for every command (``verify`` included):
    ``counted`` holds what only the walk knows (files scanned, left out, own outputs). A
    writing run counts the files it wrote (a refused write changed nothing); the other
    modes what would change."""
    changed = [r for r in results if (r.written if writes else r.changed)]
    return RunSummary(
        files_scanned=counted.files_scanned,
        files_changed=len(changed),
        fixes_applied=sum(r.fixes_applied for r in changed),
        todos_left=sum(1 for r in results for f in r.findings if left_for_humans(f, unsafe_fixes)),
        files_with_errors=sum(1 for r in results if r.error is not None),
        findings=sum(len(r.findings) for r in results),
        suppressed=sum(r.suppressed for r in results),
        own_outputs=counted.own_outputs,
        left_out=counted.left_out,
        fixes_refused=sum(r.refused for r in results),
    )
