"""What ``dflash-migrate verify`` runs (declared in :mod:`migrator.cli.commands.verify`): the
checks of :mod:`migrator.verify` on the target sglang, one release or a range."""

from __future__ import annotations

import sys
from pathlib import Path

from migrator import catalog
from migrator.base.model import RunSummary
from migrator.base.options import selection
from migrator.cli import UsageError
from migrator.cli.runs.common import paths_or_here, report_skipped
from migrator.cli.runs.options import build_options, run_target
from migrator.report import render
from migrator.run.result import summarize
from migrator.verify import (
    DEFAULT_FROM_VERSION,
    drop_acknowledged,
    exit_code,
    load_target,
    range_report,
    verify_paths,
    verify_releases,
)


def _from_version(text: str | None) -> str | None:
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
