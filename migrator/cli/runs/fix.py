"""What ``dflash-migrate fix`` runs (declared in :mod:`migrator.cli.commands.fix`): the run,
the lines, the summary, ``--diff``, ``--statistics`` and ``--report``."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from migrator.cli.runs.common import (
    paths_or_here,
    reads_stdin,
    report_skipped,
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
from migrator.report.text import fix_status, fix_summary_line, format_finding
from migrator.report.text import statistics as statistics_table
from migrator.run.result import CLEAN, FAILED, exit_code

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterator

    from migrator.base.options import Options
    from migrator.run.result import RunResult


def report_run(outcome: RunResult, options: Options, quiet: bool = False, stdin: bool = False,
               statistics: bool = False) -> None:
    """Report lines (``path:line:col: CODE message [status]``; ``statistics``: the count per
    rule code instead) and errors, then the summary (``quiet``: the lines and errors only,
    as ruff's ``-q``). The lines go to stdout unless stdout carries the diff or (``stdin``)
    the fixed source."""
    out = sys.stderr if options.mode == "diff" or stdin else sys.stdout
    paint = colour.coloured if colour.wanted(out) else str
    for result in outcome.results:
        if result.error is not None:
            print(visible(str(result.error)), file=sys.stderr)
        for finding in () if statistics else result.findings:
            status = fix_status(finding, options.mode, options.unsafe_fixes, result.written)
            print(paint(format_finding(finding, status)), file=out)
    if statistics:
        out.write(statistics_table(outcome.results, options.unsafe_fixes))
    if quiet:
        return
    report_skipped(outcome.skipped)
    print(fix_summary_line(outcome.summary, options.mode, run_target(options), options.config, outcome.interrupted),
          file=sys.stderr)
    for number, text in enumerate(narrowed_lines(outcome.results)):
        print(f"dflash-migrate: {text}" if number == 0 else text, file=sys.stderr)


def print_diff(outcome: RunResult, originals: dict[str, bytes]) -> None:
    """The run's changes as a unified diff on stdout (:mod:`migrator.report.diff`), each from
    the bytes its worker read; ``originals``: those of standard input, which no worker read."""
    from migrator.report import diff

    def diffs() -> Iterator[tuple[bytes, bytes, str]]:
        for result in outcome.results:
            if result.new_bytes is None:
                continue
            old = result.original if result.original is not None else originals.get(result.path)
            if old is None:
                try:
                    old = Path(result.path).read_bytes()
                except OSError:
                    continue
            yield old, result.new_bytes, result.path

    sys.stdout.flush()
    diff.write(diffs(), sys.stdout.buffer, sys.stdout.isatty())


def run(
    paths: list[Path] | None = None,
    *,
    diff: bool = False,
    check: bool = False,
    unsafe_fixes: bool = False,
    allow_dirty: bool = False,
    write_read_only: bool = False,
    stdin_filename: str | None = None,
    quiet: bool = False,
    exit_zero: bool = False,
    statistics: bool = False,
    report: Path | None = None,
    show_files: bool = False,
    show_settings: bool = False,
    verbose: bool = False,
    **shared: object,
) -> int:
    """The `fix` command once its arguments are parsed; ``shared``: :data:`migrator.cli.commands.common.SHARED`."""
    started = time.monotonic()
    mode = "diff" if diff else "check" if check else "fix"
    paths = paths_or_here(paths)
    options = build_options(mode, paths, unsafe_fixes=unsafe_fixes, allow_dirty=allow_dirty, **shared)  # type: ignore[arg-type]
    options = options._replace(write_read_only=write_read_only,
                               own_outputs=frozenset((os.path.abspath(report),)) if report is not None else frozenset())
    if shown(paths, options, show_files, show_settings):
        return CLEAN
    stdin = reads_stdin(paths)
    if options.writes:
        require_existing(paths)
    outcome, stdin_data = run_inputs(paths, options, stdin_filename, "migrating")
    if mode == "diff":
        print_diff(outcome, stdin_data)
    report_run(outcome, options, quiet, stdin=stdin, statistics=statistics)
    if verbose and not stdin:
        verbose_note(options, outcome.summary.files_scanned, started, index_read=outcome.index_read)
    if report is not None and not write_report(report, outcome, options, paths):
        return FAILED
    return exit_code(outcome.results, mode, unsafe_fixes=options.unsafe_fixes, interrupted=outcome.interrupted,
                     exit_zero=exit_zero)
