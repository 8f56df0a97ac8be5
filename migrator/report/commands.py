"""The library side of ``dflash-migrate lint``, ``rules`` and ``explain``.

``migrator.cli`` keeps its typer commands thin over these functions, which take plain
values and return the exit code or the text, so they are tested without a terminal.
Exit codes of ``lint``: 0 clean, 1 findings, 2 a file could not be processed (every
other file is still reported); ``exit_zero`` turns 1 into 0 (never 2).
"""

from __future__ import annotations

import sys
from pathlib import Path
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

from migrator import catalog


def lint(
    paths: list[Path],
    *,
    fmt: str = "text",
    output: Path | None = None,
    exit_zero: bool = False,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    exclude: list[str] | None = None,
    target_version: str | None = None,
    jobs: int | None = None,
    parse_all: bool = False,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the report-only lint over ``paths``; print or write the report; return the exit code."""
    from migrator import engine, report
    from migrator.config import load

    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    paths = paths or [Path(".")]
    config = load(paths[0]).with_overrides(select=select, ignore=ignore, exclude=exclude,
                                            target_version=target_version)
    options = engine.Options(
        mode="lint",
        target_version=config.target_version or catalog.default_target_version(),
        select=frozenset(config.select) if config.select else None,
        ignore=frozenset(config.ignore),
        exclude=config.exclude,
        jobs=jobs,
        per_file_ignores=tuple((p, frozenset(c)) for p, c in config.per_file_ignores),
        parse_all=parse_all,
    )
    with _progress(stderr) as on_progress:
        outcome = engine.run(paths, options, on_progress)
    for skipped_path, reason in outcome.skipped:  # nothing is skipped silently
        stderr.write(report.stderr_line(fmt, f"{skipped_path}: skipped: {reason}") + "\n")
    config_path = getattr(outcome, "config_path", None)
    text = report.render(fmt, outcome.results, outcome.summary, config=None if config_path is None else str(config_path))
    if output is not None:
        output.write_text(text, encoding="utf-8")
    else:
        stdout.write(text)
    code = outcome.exit_code
    return 0 if exit_zero and code == 1 else code


class _progress:
    """A rich progress bar on stderr when it is a terminal and the run is long; else nothing."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.bar = None
        self.task = None

    def __enter__(self):
        if not (hasattr(self.stream, "isatty") and self.stream.isatty()):
            return None
        return self.update

    def update(self, done: int, total: int) -> None:
        if self.bar is None:
            if total < 200:
                return
            from rich.console import Console
            from rich.progress import Progress

            self.bar = Progress(console=Console(file=self.stream), transient=True)
            self.bar.start()
            self.task = self.bar.add_task("linting", total=total)
        self.bar.update(self.task, completed=done)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def rules_table() -> str:
    """``dflash-migrate rules``: one line per rule code."""
    rows = [("CODE", "FIX", "REMOVED", "MESSAGE")]
    rows += [(e.code, e.fix, str(e.exists), e.message) for e in catalog.ENTRIES]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    return "".join(f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]}\n" for r in rows)


def explain(code: str) -> str:
    """``dflash-migrate explain DFMnnn``; raises KeyError for an unknown code."""
    e = catalog.get(code)
    replacements = "\n".join(f"  {r.targets}: {r.new or '(none)'}" for r in e.replacements)
    return (
        f"{e.code}: {e.message}\n\n"
        f"Old:      {e.old}{' (also ' + ', '.join(e.also) + ')' if e.also else ''}\n"
        f"Kind:     {e.kind}\n"
        f"Exists:   {e.exists}; fires for targets >= {e.first_target}\n"
        f"Fix:      {e.fix}\n"
        f"Replaced by:\n{replacements}\n\n"
        f"{e.guidance}\n\n"
        f"Before:\n  {e.before}\nAfter:\n  {e.after}\n\n"
        f"See {catalog.DOC}#{e.anchor}\n"
    )
