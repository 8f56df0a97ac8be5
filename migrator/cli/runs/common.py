"""What ``fix`` and ``lint`` share once they run (``verify`` the reporting helpers): the
run of the files or standard input, ``--show-files``/``--show-settings``, ``-v``, the progress
bar, ``--report``. Imported only where one of them runs (:mod:`migrator.cli.runs`).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from migrator import __version__
from migrator.base.fileio import SourceError
from migrator.base.options import Options, selection
from migrator.base.repository import up_to_top
from migrator.cli import UsageError
from migrator.cli.runs.options import run_target, target_label
from migrator.report.escape import visible
from migrator.report.text import counted
from migrator.run import engine
from migrator.run.files import discover

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TextIO

    from migrator.run.result import RunResult


class progress:
    """``with progress("linting") as on_progress:``: a rich progress bar on stderr for runs
    of many files when stderr is a terminal; ``on_progress`` is None otherwise."""

    MIN_FILES = 200

    def __init__(self, label: str, stream: TextIO | None = None) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.bar = None
        self.task = None

    def __enter__(self) -> Callable[[int, int], None] | None:
        if not (hasattr(self.stream, "isatty") and self.stream.isatty()):
            return None
        return self.update

    def update(self, done: int, total: int) -> None:
        if self.bar is None:
            if total < self.MIN_FILES:
                return
            from rich.console import Console
            from rich.progress import Progress

            self.bar = Progress(console=Console(file=self.stream), transient=True)
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=total)
        self.bar.update(self.task, completed=done)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def reads_stdin(paths: Sequence[Path]) -> bool:
    """Is the one input standard input (``-``)?"""
    return [str(path) for path in paths] == ["-"]


def run_inputs(paths: list[Path], options: Options, stdin_filename: str | None, label: str,
               stdout: TextIO | None = None, stderr: TextIO | None = None) -> tuple[RunResult, dict[str, bytes]]:
    """The run of ``fix`` or ``lint``: the files under ``paths`` (a progress bar ``label`` on
    ``stderr``), or, where the one path is ``-``, standard input as one file named
    ``stdin_filename`` (default ``<stdin>.py``). Returns the run and the bytes read from
    standard input, by that name.

    ``-`` in a writing mode: the fixed source on stdout (the input itself where nothing
    changed or the file could not be processed); the result counts as written when what
    went out differs, and the summary is counted again."""
    if not reads_stdin(paths):
        with progress(label, stderr) as on_progress:
            return engine.run(paths, options, on_progress), {}
    name = stdin_filename or "<stdin>.py"
    data = sys.stdin.buffer.read()
    outcome = engine.run_bytes(name, data, options)
    if options.writes:
        result = outcome.results[0]
        written = result.new_bytes if result.new_bytes is not None and result.error is None else data
        if stdout is not None:
            stdout.flush()
        sys.stdout.flush()
        sys.stdout.buffer.write(written)
        sys.stdout.buffer.flush()
        result.written = written is not data
        outcome.summarize(options)
    return outcome, {name: data}


def require_existing(paths: Sequence[Path]) -> None:
    """A run that writes refuses a named path that does not exist before it writes anything
    (a report-only run reports it as a file error and goes on, as ruff's E902)."""
    missing = [str(path) for path in paths if str(path) != "-" and not os.path.lexists(path)]
    if missing:
        raise UsageError(f"no such file or folder: {', '.join(visible(name) for name in missing)} (nothing was written)")


def shown(paths: Sequence[Path], options: Options, show_files: bool, show_settings: bool,
          stdout: TextIO | None = None) -> bool:
    """``--show-files`` / ``--show-settings``: print what was asked and say so (the command
    then exits 0 without reading a file's content)."""
    if not (show_files or show_settings):
        return False
    out = stdout or sys.stdout
    if show_settings:
        out.write("".join(f"{visible(key)} = {visible(value)}\n" for key, value in settings(paths, options)))
    if show_files:
        found = discover(paths, selection(options), options.respect_gitignore, force_exclude=options.force_exclude,
                         own_outputs=options.own_outputs)
        out.write("".join(visible(os.path.abspath(path)) + "\n" for path in sorted(found.files)))
    return True


def settings(paths: Sequence[Path], options: Options) -> list[tuple[str, str]]:
    """The resolved settings of a run, as ``--show-settings`` prints them."""
    def codes(values: frozenset[str] | None, default: str) -> str:
        return ", ".join(sorted(values)) if values else default

    return [
        ("paths", " ".join(str(path) for path in paths)),
        ("mode", options.mode),
        ("config", options.config or "(none)"),
        ("target-version", target_label(options)),
        ("select", codes(options.select, "(every rule)")),
        ("ignore", codes(options.ignore, "(none)")),
        ("exclude", ", ".join(f"{pattern} (in {folder})" for folder, pattern in options.exclude) or "(none)"),
        ("per-file-ignores", ", ".join(f"{pattern}: {','.join(sorted(c))} (in {folder})"
                                       for folder, pattern, c in options.per_file_ignores) or "(none)"),
        ("force-exclude", str(options.force_exclude).lower()),
        ("unsafe-fixes", str(options.unsafe_fixes).lower()),
        ("respect-gitignore", str(options.respect_gitignore).lower()),
        ("jobs", str(options.jobs or "(CPUs)")),
        ("cache-dir", options.cache_dir or "(default)"),
    ]


def verbose_note(options: Options, files_scanned: int, started: float, stderr: TextIO | None = None,
                 index_read: str = "") -> None:
    """``-v``: what the run used and found, on stderr; ``index_read``: what the fork index
    read besides the scanned files (``RunResult.index_read``)."""
    print(visible(f"dflash-migrate {__version__}: config {options.config or '(none)'}, target sglang "
                  f"{target_label(options)}, {counted(files_scanned, 'file')} scanned in "
                  f"{time.monotonic() - started:.2f} s"), file=stderr or sys.stderr)
    if index_read:
        print(visible(f"fork index: read {index_read}"), file=stderr or sys.stderr)


def report_skipped(skipped: Sequence[tuple[Path, str]]) -> None:
    """``PATH: skipped: REASON`` on stderr for each path a run left out, control characters
    made visible (a file name is user data)."""
    for path, reason in skipped:
        print(visible(f"{path}: skipped: {reason}"), file=sys.stderr)


def paths_or_here(paths: Sequence[Path] | None) -> list[Path]:
    return list(paths or [Path(".")])


def write_report(path: Path, outcome: RunResult, options: Options, paths: Sequence[Path]) -> bool:
    """``--report FILE`` (:mod:`migrator.run.report`); False, with the error on stderr, where
    it cannot be written."""
    from migrator.run import report

    first = os.path.abspath(paths[0]) if paths and str(paths[0]) != "-" else os.getcwd()
    top = up_to_top(first if os.path.isdir(first) else os.path.dirname(first))[-1]
    try:
        report.write(path, report.build(outcome.results, outcome.summary, options.mode, options.unsafe_fixes,
                                        run_target(options), top))
    except SourceError as error:
        print(visible(f"dflash-migrate: --report {path}: {error.message}"), file=sys.stderr)
        return False
    return True
