"""The ``verify`` command body, front-end neutral.

``run_verify(...)`` does what ``dflash-migrate verify`` does and returns (output, exit
code); the typer CLI in ``migrator/cli.py`` calls it, and ``python -m migrator.verify``
runs it through argparse until/unless the CLI exists.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from migrator import catalog
from migrator.model import FileError, FileResult, Finding

from . import (
    Target, acknowledged_by_todo, exit_code, installed_target, summarize, target_for_tree,
    target_for_version, verify_paths,
)

#: The release a V1 fork was most likely written against; its members tell overrides
#: from a subclass's own methods.
DEFAULT_FROM_VERSION = catalog.V1.last or "0.5.13"


def load_target(sglang: str | None, target_version: str | None, from_version: str | None) -> Target:
    if sglang and target_version:
        raise ValueError("pass either --sglang DIR or --target-version X.Y.Z, not both")
    if target_version:
        return target_for_version(target_version, from_version)
    if sglang:
        return target_for_tree(sglang, from_version)
    return installed_target(from_version)


def _statement_starts(text: str) -> dict[int, int]:
    """line -> first line of the innermost simple statement covering it (the codemod puts
    its TODO above the statement, while a finding may sit on a continuation line)."""
    import ast

    starts: dict[int, int] = {}
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return starts
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not hasattr(node, "body"):
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                starts[line] = max(starts.get(line, 0), node.lineno)
    return starts


def _at_line(finding: Finding, line: int) -> Finding:
    from migrator.model import Span

    return finding._replace(span=Span.of(line, 0, line, 0))


def drop_acknowledged(results: list[FileResult]) -> int:
    """Remove findings under a ``TODO(dflash-migrate)`` the codemod left; returns how many."""
    dropped = 0
    for result in results:
        if not result.findings:
            continue
        text = Path(result.path).read_text(encoding="utf-8-sig", errors="replace")
        lines = text.splitlines()
        starts = _statement_starts(text)
        kept = [
            f for f in result.findings
            if not acknowledged_by_todo(f, lines) and not acknowledged_by_todo(_at_line(f, starts.get(f.line, f.line)), lines)
        ]
        dropped += len(result.findings) - len(kept)
        result.suppressed += len(result.findings) - len(kept)
        result.findings = kept
    return dropped


def run_verify(
    paths: Sequence[str],
    *,
    sglang: str | None = None,
    target_version: str | None = None,
    from_version: str | None = DEFAULT_FROM_VERSION,
    fmt: str = "text",
    skip_todos: bool = False,
) -> tuple[str, int]:
    from migrator.report import render

    try:
        target = load_target(sglang, target_version, from_version)
    except Exception as exc:  # noqa: BLE001 - a bad target is a usage error (exit 2)
        return f"error: cannot load the target sglang: {exc}", 2
    results = verify_paths(paths or ["."], target)
    missing = [p for p in (paths or []) if not Path(p).exists()]
    for path in missing:
        results.append(FileResult(path, error=FileError(path, "no such file or directory")))
    if skip_todos:
        drop_acknowledged(results)
    return render(fmt, results, summarize(results), subject="unresolved sglang reference"), exit_code(results)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="dflash-migrate verify",
        description="Check that every sglang.* reference of a fork exists in a target sglang "
        "(statically; nothing is imported). Codes: DFM900 unresolved reference, DFM901 override "
        "of a method the base class no longer has.",
    )
    parser.add_argument("paths", nargs="*", default=["."])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--sglang", metavar="DIR", help="a folder holding the sglang package")
    group.add_argument("--target-version", metavar="X.Y.Z", help="a released sglang wheel from PyPI (cached)")
    parser.add_argument("--from-version", default=DEFAULT_FROM_VERSION,
                        help="release the fork was written against, to recognise overrides (default %(default)s; "
                        "'none' to use only the catalog)")
    parser.add_argument("--format", default="text", choices=("text", "json", "sarif", "github", "junit"))
    parser.add_argument("--skip-todos", action="store_true",
                        help="do not report lines under a TODO(dflash-migrate) comment the codemod left")
    args = parser.parse_args(argv)
    output, code = run_verify(
        args.paths, sglang=args.sglang, target_version=args.target_version,
        from_version=None if args.from_version.lower() == "none" else args.from_version,
        fmt=args.format, skip_todos=args.skip_todos,
    )
    sys.stdout.write(output if output.endswith("\n") else output + "\n")
    return code
