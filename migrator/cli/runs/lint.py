"""What ``dflash-migrate lint`` runs (declared in :mod:`migrator.cli.commands.lint`): the run,
the report in its format, ``--fix``, ``--show-fixes``, baselines, ``--add-noqa``, ``--output``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from migrator import report
from migrator.base.fileio import SourceError, create_or_replace
from migrator.cli import UsageError
from migrator.cli.runs.common import (
    paths_or_here,
    reads_stdin,
    require_existing,
    run_inputs,
    shown,
    verbose_note,
    write_report,
)
from migrator.cli.runs.options import build_options, run_target
from migrator.report import colour
from migrator.report.common import narrowed_lines
from migrator.report.escape import visible
from migrator.report.text import counted, fixes
from migrator.report.text import statistics as statistics_table
from migrator.run.result import CLEAN, FAILED, exit_code, left_for_humans

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TextIO

    from migrator.base.model import FileResult
    from migrator.base.options import Options
    from migrator.report.baseline import Baseline
    from migrator.run.result import RunResult


def run(
    paths: list[Path] | None = None,
    *,
    fmt: str = "text",
    output: Path | None = None,
    exit_zero: bool = False,
    statistics: bool = False,
    fix: bool = False,
    unsafe_fixes: bool = False,
    allow_dirty: bool = False,
    show_fixes: bool = False,
    exit_non_zero_on_fix: bool = False,
    stdin_filename: str | None = None,
    quiet: bool = False,
    baseline: Path | None = None,
    write_baseline: Path | None = None,
    add_noqa: bool = False,
    run_report: Path | None = None,
    show_files: bool = False,
    show_settings: bool = False,
    verbose: bool = False,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    **shared: object,
) -> int:
    """Lint ``paths``; print or write the report; return the exit code. ``shared``: the
    parameters of :data:`migrator.cli.commands.common.SHARED` (``select``, ``target_version``, ...)."""
    started = time.monotonic()

    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    paths = paths_or_here(paths)
    if fix and (add_noqa or write_baseline is not None):
        raise UsageError("--fix cannot be combined with --add-noqa or --write-baseline (fix first, then record)")
    # pre-commit has stashed the unstaged work: a staged file differs from HEAD by definition,
    # and `args: [--fix]` must fix it and let pre-commit fail "files were modified" (as ruff)
    allow_dirty = allow_dirty or (fix and os.environ.get("PRE_COMMIT") == "1")
    options = build_options("fix" if fix else "lint", paths, unsafe_fixes=unsafe_fixes, allow_dirty=allow_dirty,
                            **shared)  # type: ignore[arg-type]
    options = options._replace(own_outputs=_own_outputs(output, baseline, write_baseline, run_report))
    if shown(paths, options, show_files, show_settings, stdout):
        return CLEAN
    stdin = reads_stdin(paths)
    if fix or add_noqa:
        require_existing(paths)

    def note(text: str) -> None:
        if not quiet:
            stderr.write(_stderr_line(fmt, text) + "\n")

    known = _load_baseline(baseline) if baseline is not None else None  # a bad one stops the run before it writes

    # stdin_data: the `full` format shows its lines
    outcome, stdin_data = run_inputs(paths, options, stdin_filename, "linting", stdout, stderr)
    _note_skipped_and_narrowed(outcome, note)
    results = outcome.results
    if write_baseline is not None:
        return _write_baseline(write_baseline, results, note)
    if add_noqa:
        return _add_noqa(results, note, allow_dirty)
    if run_report is not None and not write_report(run_report, outcome, options, paths):  # before --fix drops the fixed
        return FAILED
    listing = _fixes_listing(results, fix, options) if show_fixes else None  # before the fixed findings go
    fixed = _keep_what_is_left(results, options) if fix else 0
    if baseline is not None and known is not None:
        _apply_baseline(baseline, known, results, note)
    text = _report_text(fmt, outcome, options, stdin_data, statistics=statistics, quiet=quiet)
    if listing is not None:
        text += _place_listing(listing, fmt, stderr, in_report=fmt in report.HUMAN_FORMATS and output is None and not stdin)
    _emit(text, output, stderr if stdin and fix else stdout, coloured=fmt in report.HUMAN_FORMATS or statistics)
    if verbose:
        verbose_note(options, outcome.summary.files_scanned, started, stderr, outcome.index_read)
    return exit_code(results, interrupted=outcome.interrupted, fixed=fix and exit_non_zero_on_fix and fixed > 0,
                     exit_zero=exit_zero)


def _note_skipped_and_narrowed(outcome: RunResult, note: Callable[[str], None]) -> None:
    """Nothing is skipped silently; a narrowed target is said (also in JSON and SARIF's run properties)."""
    for skipped_path, reason in outcome.skipped:
        note(f"{skipped_path}: skipped: {reason}")
    for text in narrowed_lines(outcome.results):
        note(text)


def _report_text(fmt: str, outcome: RunResult, options: Options, stdin_data: dict[str, bytes], *, statistics: bool,
                 quiet: bool) -> str:
    """``--statistics``' table, else the report in ``fmt`` (``-q``: without the summary line)."""
    if statistics:
        return statistics_table(outcome.results, options.unsafe_fixes)
    text = report.render(fmt, outcome.results, outcome.summary, config=options.config, sources=stdin_data,
                         target=run_target(options))
    if quiet and fmt in report.HUMAN_FORMATS:
        text = "".join(text.splitlines(keepends=True)[:-1])  # the summary line is the last
    return text


def _fixes_listing(results: list[FileResult], applied: bool, options: Options) -> str:
    """``--show-fixes``: the fixes applied (with ``--fix``) or those ``--fix`` would apply."""
    return fixes(results, applied=applied, unsafe_fixes=options.unsafe_fixes)


def _place_listing(listing: str, fmt: str, stderr: TextIO, *, in_report: bool) -> str:
    """The text to append to the report: the listing itself where it belongs there, else nothing
    (it goes to ``stderr``, in ``fmt``'s stderr lines)."""
    if in_report:
        return listing
    stderr.write("".join(_stderr_line(fmt, line) + "\n" for line in listing.splitlines()))
    return ""


def _stderr_line(fmt: str, text: str) -> str:
    """A message for stderr in format ``fmt``: never a raw control character, and in
    ``github`` mode escaped like a workflow command's text, so it cannot start one."""
    if fmt == "github":
        from migrator.report.github import line

        return line(text)
    return visible(text)


def _own_outputs(*paths: Path | None) -> frozenset[str]:
    """The files this run writes (report, baselines, run record): never scanned by it."""
    return frozenset(os.path.abspath(path) for path in paths if path is not None)


def _emit(text: str, output: Path | None, stream: TextIO, *, coloured: bool) -> None:
    """The report to ``--output``, else to ``stream`` (coloured for a human format on a terminal)."""
    if output is not None:
        _write_report(output, text)
        return
    if coloured and colour.wanted(stream):
        text = colour.coloured(text)
    stream.write(text)


def _keep_what_is_left(results: list[FileResult], options: Options) -> int:
    """After ``--fix``: drop the findings that were fixed; return how many."""
    fixed = 0
    for result in results:
        if result.written:
            left = [f for f in result.findings if left_for_humans(f, options.unsafe_fixes)]
            fixed += len(result.findings) - len(left)
            result.findings = left
    return fixed


def _write_report(path: Path, text: str) -> None:
    """``--output``: through the one write path (never through a committed symbolic link)."""
    try:
        create_or_replace(path, text.encode("utf-8"))
    except SourceError as error:
        raise UsageError(f"{path}: cannot write the report: {error.message}") from None


def _load_baseline(path: Path) -> Baseline:
    from migrator.report.baseline import BaselineError, load

    try:
        return load(path)
    except BaselineError as error:
        raise UsageError(str(error)) from None


def _apply_baseline(path: Path, known: Baseline, results: list[FileResult], note) -> None:  # noqa: ANN001 - the note callback
    applied = known.apply(results)
    fixed = f"; {counted(applied.fixed, 'baseline entry', 'baseline entries')} fixed" if applied.fixed else ""
    hint = f" (run --write-baseline {path} to drop them)" if applied.fixed else ""
    note(f"{path}: {counted(applied.matched, 'known finding')} not reported{fixed}{hint}")


def _write_baseline(path: Path, results: list[FileResult], note) -> int:  # noqa: ANN001
    from migrator.report.baseline import BaselineError, write

    try:
        count = write(path, results)
    except BaselineError as error:
        raise UsageError(str(error)) from None
    note(f"{path}: {counted(count, 'finding')} recorded")
    return exit_code(results, exit_zero=True)  # recorded findings are no work left


def _add_noqa(results: list[FileResult], note, allow_dirty: bool) -> int:  # noqa: ANN001
    from migrator.run.add_noqa import add

    counts = add(results, refuse_uncommitted=not allow_dirty)
    note(f"added {counted(counts.comments, 'suppression comment')} in {counted(counts.files, 'file')}")
    if counts.left:
        note(f"{counted(counts.left, 'finding')} left without a comment (JSON, Markdown, notebooks, "
             "strings, YAML block scalars): record them with --write-baseline")
    for error in counts.errors:
        note(error)
    return exit_code(results, failed=bool(counts.errors), exit_zero=True)
