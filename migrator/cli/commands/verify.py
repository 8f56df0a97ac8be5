"""``dflash-migrate verify [PATH ...]``: check statically that every ``sglang.*`` reference
of a fork exists in the target sglang (the checks: :mod:`migrator.verify`).

Exit codes as ``lint``: 0 clean, 1 unresolved references, 2 a file could not be
processed or the target could not be loaded.
"""

from __future__ import annotations

import sys
from pathlib import Path

from migrator import catalog
from migrator.base.model import RunSummary
from migrator.base.options import selection
from migrator.cli.commands.common import (
    EXCLUDE,
    FORCE_EXCLUDE,
    UsageError,
    build_options,
    paths_or_here,
    report_skipped,
    run_target,
)
from migrator.cli.commands.params import Command, Param
from migrator.report import FORMATS, render
from migrator.run.result import summarize

PARAMS = (
    Param("paths", (), "paths", "PATH", "Files or folders (default: .)."),
    Param("sglang", ("--sglang",), "text", "DIR", "A folder holding the sglang package."),
    Param("target_version", ("--target-version",), "text", "RELEASES",
          "Released sglang wheels from PyPI (each downloaded once, cached): one release, a range "
          "(0.5.14..0.5.23) or a PEP 440 specifier; every reference is resolved on each. Default: the "
          "config's target-version, else the installed sglang."),
    Param("from_version", ("--from-version",), "text", "X.Y.Z",
          "Release the fork was written against, to recognise overrides (default: the last V1 release; "
          "'none': catalog only)."),
    Param("fmt", ("--format",), "choice", "FORMAT", "Report format.", "text", FORMATS),
    Param("skip_todos", ("--skip-todos",), "flag", None, "Do not report lines under a TODO(dflash-migrate) comment."),
    EXCLUDE,
    FORCE_EXCLUDE,
)


def _from_version(text: str | None) -> str | None:
    from migrator.verify import DEFAULT_FROM_VERSION

    if text is None:
        return DEFAULT_FROM_VERSION
    if text.lower() == "none":
        return None

    try:
        catalog.parse_version(text)
    except ValueError as error:
        raise UsageError(f"--from-version: {error}") from None
    return text


def run(
    paths: list[Path] | None = None,
    *,
    sglang: str | None = None,
    target_version: str | None = None,
    from_version: str | None = None,
    fmt: str = "text",
    skip_todos: bool = False,
    exclude: list[str] | None = None,
    force_exclude: bool = False,
) -> int:
    from migrator.verify import drop_acknowledged, exit_code, load_target, verify_paths

    paths = paths_or_here(paths)
    if sglang and target_version:
        raise UsageError("pass either --sglang DIR or --target-version X.Y.Z, not both")
    options = build_options("lint", paths, target_version=target_version, exclude=exclude,
                            force_exclude=force_exclude, default_target=False)
    baseline = _from_version(from_version)
    if not sglang and len(options.target_releases) > 1:
        return _run_range(paths, options, baseline, fmt, skip_todos)
    try:
        target = load_target(sglang, None if sglang else options.target_version, baseline)
    except Exception as error:  # noqa: BLE001 - a target that cannot be loaded is a usage error (exit 2)
        raise UsageError(f"cannot load the target sglang: {error}") from None
    skipped: list[tuple[Path, str]] = []
    left_out: list[int] = []
    results = verify_paths(paths, target, selection(options), skipped, left_out)
    report_skipped(skipped)
    if skip_todos:
        drop_acknowledged(results)
    sys.stdout.write(render(fmt, results, summarize(results, RunSummary(files_scanned=len(results), left_out=sum(left_out))), subject="unresolved sglang reference",
                            config=options.config,
                            target=run_target(options) if not sglang and options.target_version else None))
    return exit_code(results)


def _run_range(paths: list[Path], options, baseline: str | None, fmt: str, skip_todos: bool) -> int:  # noqa: ANN001
    """Every reference resolved on each release of the target; exit 1 if a file fails on one."""
    from migrator.verify import exit_code, range_report, verify_releases

    skipped: list[tuple[Path, str]] = []
    try:
        matrix = verify_releases(paths, options.target_releases, baseline, selection(options), skipped, skip_todos)
    except Exception as error:  # noqa: BLE001 - a release that cannot be loaded is a usage error (exit 2)
        raise UsageError(f"cannot load the target sglang: {error}") from None
    report_skipped(skipped)
    text, merged = range_report(matrix, fmt, run_target(options), options.config)
    sys.stdout.write(text or render(fmt, merged, summarize(merged, RunSummary(files_scanned=len(merged))), subject="unresolved sglang reference",
                                    config=options.config, target=run_target(options)))
    return max((exit_code(results) for results in matrix.values()), default=0)


COMMAND = Command("verify", run, PARAMS,
                  "Check statically that every sglang.* reference exists in the target sglang (DFM900 unresolved, "
                  "DFM901 override of a method the base class no longer has). Default target: the installed sglang.")
