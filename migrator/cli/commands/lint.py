"""``dflash-migrate lint [PATH ...]`` (also ``check``, as ruff users type it): report every
DFLASH V1 reference in every file type, in one of the report formats.

Exit codes: 0 clean, 1 findings, 2 a file could not be processed (every other file is
still reported); ``--exit-zero`` turns 1 into 0 (never 2).

ruff's flags mean what they mean in ruff: ``--output-format`` (alias of ``--format``),
``--statistics`` (a table by code instead of the report), ``--fix`` (apply the safe fixes,
then report what is left; ``--unsafe-fixes`` too), ``--show-fixes``,
``--exit-non-zero-on-fix``, ``-`` with ``--stdin-filename``, ``-q``; and
``--extend-select``/``--extend-ignore``/``--config``/``--isolated`` (:mod:`.common`).
Gradual adoption: ``--write-baseline FILE`` / ``--baseline FILE`` (:mod:`migrator.report.baseline`)
and ``--add-noqa`` (:mod:`migrator.run.add_noqa`).
"""

from __future__ import annotations

from migrator.cli.commands.common import SHARED
from migrator.cli.commands.params import Command, Param
from migrator.report import FORMATS

PARAMS = (
    Param("paths", (), "paths", "PATH", "Files or folders (default: .); `-` reads standard input."),
    Param("fmt", ("--format", "--output-format"), "choice", "FORMAT", "Report format.", "text", FORMATS),
    Param("output", ("--output", "--output-file", "-o"), "path", "FILE",
          "Write the report to FILE instead of standard output (never scanned by this run)."),
    Param("exit_zero", ("--exit-zero",), "flag", None, "Exit 0 even with findings (2 still means a file could not be processed)."),
    Param("statistics", ("--statistics",), "flag", None, "Print the number of findings per rule code instead of the report."),
    Param("fix", ("--fix",), "flag", None, "Apply the safe fixes (as `dflash-migrate fix` does), then report what is left."),
    Param("unsafe_fixes", ("--unsafe-fixes",), "flag", None, "With --fix: also apply fixes marked unsafe."),
    Param("allow_dirty", ("--allow-dirty",), "flag", None, "With --fix or --add-noqa: modify files with uncommitted git changes."),
    Param("show_fixes", ("--show-fixes",), "flag", None, "List the fixes applied by --fix (without it: the fixes it would apply)."),
    Param("exit_non_zero_on_fix", ("--exit-non-zero-on-fix",), "flag", None,
          "With --fix: exit 1 when anything was fixed, even if nothing is left."),
    Param("stdin_filename", ("--stdin-filename",), "text", "NAME",
          "Name of the `-` input (chooses the rules by its type; default <stdin>.py)."),
    Param("quiet", ("--quiet", "-q"), "flag", None, "Print the findings only: no summary, no notes on stderr."),
    Param("baseline", ("--baseline",), "path", "FILE",
          "Report and fail only on findings not recorded in FILE (see --write-baseline); say how many entries are fixed."),
    Param("write_baseline", ("--write-baseline",), "path", "FILE",
          "Record every finding of this run in FILE (by fingerprint, robust to line moves) and exit 0."),
    Param("add_noqa", ("--add-noqa",), "flag", None,
          "Write a `# dflash-migrate: ignore[CODE]` comment for every finding where one changes nothing else."),
    Param("run_report", ("--report",), "path", "FILE",
          "Also write a record of the run to FILE: Markdown for .md, JSON otherwise (never scanned by this run)."),
    *SHARED,
)

COMMAND = Command("lint", "migrator.cli.runs.lint:run", PARAMS, "Report every DFLASH V1 reference; exit 0 clean, 1 findings, 2 a file could not be processed.",
                  fast=True, aliases=("check",))
