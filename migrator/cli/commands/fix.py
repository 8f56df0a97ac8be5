"""``dflash-migrate fix [PATH ...]`` (also the default command): rewrite in place;
``--diff`` prints a unified diff and writes nothing; ``--check`` writes nothing.

Exit codes: 0 nothing left to do; 1 changes would be made (``--diff``/``--check``) or
manual findings remain; 2 some file could not be processed (every other file is still
processed and reported).
"""

from __future__ import annotations

from migrator.cli.commands.common import SHARED
from migrator.cli.commands.params import Command, Param

PARAMS = (
    Param("paths", (), "paths", "PATH", "Files or folders (default: .). `-` reads stdin and writes stdout."),
    Param("diff", ("--diff",), "flag", None, "Print a unified diff; write nothing."),
    Param("check", ("--check",), "flag", None, "Write nothing; exit 1 if anything would change."),
    Param("unsafe_fixes", ("--unsafe-fixes",), "flag", None, "Also apply fixes marked unsafe."),
    Param("allow_dirty", ("--allow-dirty",), "flag", None, "Modify files with uncommitted git changes."),
    Param("write_read_only", ("--write-read-only",), "flag", None, "Also rewrite read-only files (no write permission bits)."),
    Param("stdin_filename", ("--stdin-filename",), "text", "NAME", "Name to report for `-` input."),
    Param("quiet", ("--quiet", "-q"), "flag", None, "Print the findings only: no summary, no notes on skipped files."),
    Param("exit_zero", ("--exit-zero",), "flag", None, "Exit 0 even with work left (2 still means a file could not be processed)."),
    Param("statistics", ("--statistics",), "flag", None,
          "Print the number of findings per rule code instead of one line per finding (as `lint --statistics`)."),
    Param("report", ("--report",), "path", "FILE",
          "Also write a record of the run to FILE: Markdown for .md, JSON otherwise (never scanned by this run)."),
    *SHARED,
)

COMMAND = Command("fix", "migrator.cli.runs.fix:run", PARAMS, "Rewrite every reference to the removed V1 API (the default command).", fast=True)
