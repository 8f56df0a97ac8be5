"""``dflash-migrate fix [PATH ...]`` (also the default command): rewrite in place;
``--diff`` prints a unified diff and writes nothing; ``--check`` writes nothing.

Exit codes: 0 nothing left to do; 1 changes would be made (``--diff``/``--check``) or
manual findings remain; 2 some file could not be processed (every other file is still
processed and reported).
"""

from __future__ import annotations

import sys
from pathlib import Path

from .common import SHARED, build_options, paths_or_here, progress, run_target
from .params import Command, Param

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..engine import RunResult
    from ..model import Finding
    from ..options import Options

PARAMS = (
    Param("paths", (), "paths", "PATH", "Files or folders (default: .). `-` reads stdin and writes stdout."),
    Param("diff", ("--diff",), "flag", None, "Print a unified diff; write nothing."),
    Param("check", ("--check",), "flag", None, "Write nothing; exit 1 if anything would change."),
    Param("unsafe_fixes", ("--unsafe-fixes",), "flag", None, "Also apply fixes marked unsafe."),
    Param("allow_dirty", ("--allow-dirty",), "flag", None, "Modify files with uncommitted git changes."),
    Param("write_read_only", ("--write-read-only",), "flag", None, "Also rewrite read-only files (no write permission bits)."),
    Param("stdin_filename", ("--stdin-filename",), "text", "NAME", "Name to report for `-` input."),
    Param("quiet", ("--quiet", "-q"), "flag", None, "Print the findings only: no summary, no notes on skipped files."),
    *SHARED,
)


def _status(finding: Finding, options: Options) -> str:
    fix = finding.fix
    if fix is None or fix.applicability == "manual":
        return "manual"
    if fix.applicability == "unsafe" and not options.unsafe_fixes:
        return "unsafe fix available with --unsafe-fixes; TODO left" if options.mode == "fix" else "unsafe fix available"
    return "fixed" if options.mode == "fix" else "fixable"


def _finding_line(path: str, finding: Finding, options: Options) -> str:
    from ..report.escape import visible

    return visible(f"{path}:{finding.line}:{finding.column + 1}: {finding.code} {finding.message} [{_status(finding, options)}]")


def report_run(outcome: RunResult, options: Options, quiet: bool = False) -> None:
    """Report lines (``path:line:col: CODE message [status]``) and errors, then the summary
    (``quiet``: the lines and errors only, as ruff's ``-q``)."""
    out = sys.stderr if options.mode == "diff" else sys.stdout
    from ..report.common import target_text
    from ..report.escape import visible

    for result in outcome.results:
        if result.error is not None:
            print(visible(str(result.error)), file=sys.stderr)
        for finding in result.findings:
            print(_finding_line(finding.path, finding, options), file=out)
    if quiet:
        return
    for path, reason in outcome.skipped:
        print(visible(f"{path}: skipped: {reason}"), file=sys.stderr)
    summary = outcome.summary
    verb = {"fix": "changed", "check": "would change", "diff": "would change"}[options.mode]
    line = (
        f"dflash-migrate: {summary.files_scanned} files scanned, {summary.files_changed} {verb}, "
        f"{summary.fixes_applied} fixes {'applied' if options.mode == 'fix' else 'available'}, "
        f"{summary.todos_left} manual TODOs left, {summary.files_with_errors} files with errors"
        f" (target {target_text(run_target(options))}{f'; config {options.config}' if options.config else ''})"
    )
    if outcome.interrupted:
        line += "; INTERRUPTED: files not yet processed were left untouched"
    print(line, file=sys.stderr)


def _unified_diff(old: str, new: str, before: str, after: str) -> None:
    import difflib

    sys.stdout.writelines(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), before, after))


def print_diff(outcome: RunResult) -> None:
    for result in outcome.results:
        if result.new_bytes is None:
            continue
        try:
            old = Path(result.path).read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue
        _unified_diff(old, result.new_bytes.decode("utf-8", errors="replace"), f"a/{result.path}", f"b/{result.path}")


def _run_stdin(name: str, options: Options) -> int:
    from ..engine import process_bytes

    data = sys.stdin.buffer.read()
    result = process_bytes(name, data, options)
    if result.error is not None:
        print(str(result.error), file=sys.stderr)
        if options.mode == "fix":
            sys.stdout.buffer.write(data)
        return 2
    for finding in result.findings:
        print(_finding_line(name, finding, options), file=sys.stderr)
    if options.mode == "fix":
        sys.stdout.buffer.write(result.new_bytes if result.new_bytes is not None else data)
    elif options.mode == "diff" and result.new_bytes is not None:
        _unified_diff(data.decode(errors="replace"), result.new_bytes.decode(errors="replace"), name, name)
    left = sum(1 for f in result.findings if f.fix is None or f.fix.applicability != "safe")
    return 1 if left or (options.mode != "fix" and result.new_bytes is not None) else 0


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
    **shared: object,
) -> int:
    """The `fix` command once its arguments are parsed; ``shared``: :data:`common.SHARED`."""
    from ..engine import run as run_engine

    mode = "diff" if diff else "check" if check else "fix"
    paths = paths_or_here(paths)
    options = build_options(mode, paths, unsafe_fixes=unsafe_fixes, allow_dirty=allow_dirty, **shared)  # type: ignore[arg-type]
    options = options._replace(write_read_only=write_read_only)
    if [str(p) for p in paths] == ["-"]:
        return _run_stdin(stdin_filename or "<stdin>.py", options)
    with progress("migrating") as on_progress:
        outcome = run_engine(paths, options, on_progress=on_progress)
    if mode == "diff":
        print_diff(outcome)
    report_run(outcome, options, quiet)
    return outcome.exit_code


COMMAND = Command("fix", run, PARAMS, "Rewrite every reference to the removed V1 API (the default command).", fast=True)
