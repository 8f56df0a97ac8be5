"""``dflash-migrate lint [PATH ...]`` (also ``check``, as ruff users type it): report every
DFLASH V1 reference in every file type, in one of the report formats; never writes.

Exit codes: 0 clean, 1 findings, 2 a file could not be processed (every other file is
still reported); ``--exit-zero`` turns 1 into 0 (never 2).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..report import FORMATS
from .common import SHARED, build_options, paths_or_here, progress
from .params import Command, Param

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

PARAMS = (
    Param("paths", (), "paths", "PATH", "Files or folders (default: .)."),
    Param("fmt", ("--format",), "choice", "FORMAT", "Report format.", "text", FORMATS),
    Param("output", ("--output", "-o"), "path", "FILE", "Write the report to FILE instead of standard output."),
    Param("exit_zero", ("--exit-zero",), "flag", None, "Exit 0 even with findings (2 still means a file could not be processed)."),
    *SHARED,
)


def run(
    paths: list[Path] | None = None,
    *,
    fmt: str = "text",
    output: Path | None = None,
    exit_zero: bool = False,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    **shared: object,
) -> int:
    """Lint ``paths``; print or write the report; return the exit code. ``shared``: the
    parameters of :data:`common.SHARED` (``select``, ``target_version``, ...)."""
    from .. import engine, report

    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    paths = paths_or_here(paths)
    options = build_options("lint", paths, **shared)  # type: ignore[arg-type]
    with progress("linting", stderr) as on_progress:
        outcome = engine.run(paths, options, on_progress)
    for skipped_path, reason in outcome.skipped:  # nothing is skipped silently
        stderr.write(report.stderr_line(fmt, f"{skipped_path}: skipped: {reason}") + "\n")
    text = report.render(fmt, outcome.results, outcome.summary, config=options.config)
    if output is not None:
        output.write_text(text, encoding="utf-8")
    else:
        stdout.write(text)
    code = outcome.exit_code
    return 0 if exit_zero and code == 1 else code


COMMAND = Command("lint", run, PARAMS, "Report every DFLASH V1 reference; exit 0 clean, 1 findings, 2 a file could not be processed.",
                  fast=True, aliases=("check",))
