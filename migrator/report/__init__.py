"""Report formats for ``dflash-migrate lint`` (and the verify command).

One module per format, each with ``render(results, summary) -> str``. Modules are imported
lazily so that a run that prints nothing never pays for XML or JSON machinery.

Column conventions: :mod:`migrator.model` keeps 0-based character columns; every format
here prints 1-based columns (``column + 1``), and end positions are exclusive (the column
just after the last character), as SARIF and most editors expect.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import import_module
TYPE_CHECKING = False

if TYPE_CHECKING:
    from migrator.model import FileError, FileResult, Finding, RunSummary

#: ``--format`` choices, default first.
FORMATS: tuple[str, ...] = ("text", "json", "sarif", "github", "junit")
TOOL_NAME = "dflash-migrate"
JSON_SCHEMA_VERSION = 1


def render(fmt: str, results: list[FileResult], summary: RunSummary, subject: str | None = None) -> str:
    """Render ``results`` in format ``fmt`` (one of :data:`FORMATS`); ``subject`` names what
    the text summary counts (default "V1 reference"; verify counts unresolved references)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    module = import_module(f"migrator.report.{fmt}")
    if fmt == "text" and subject:
        return module.render(results, summary, subject=subject)
    return module.render(results, summary)


def findings_of(results: list[FileResult]) -> Iterator[Finding]:
    """Every finding of every file, in stable (path, line, column, code) order."""
    all_findings = [f for result in results for f in result.findings]
    yield from sorted(all_findings, key=lambda f: f.sort_key())


def errors_of(results: list[FileResult]) -> list[FileError]:
    return sorted((r.error for r in results if r.error is not None), key=lambda e: e.path)


def unused_suppressions_of(results: list[FileResult]) -> list[tuple[str, int, tuple[str, ...]]]:
    return sorted((r.path, line, codes) for r in results for line, codes in r.unused_suppressions)


def tool_version() -> str:
    from migrator import __version__

    return __version__


def summary_dict(results: list[FileResult], summary: RunSummary) -> dict[str, object]:
    """The counts every machine-readable format shares."""
    by_code: dict[str, int] = {}
    fixable = 0
    for finding in findings_of(results):
        by_code[finding.code] = by_code.get(finding.code, 0) + 1
        if finding.fix is not None and finding.fix.applicability != "manual":
            fixable += 1
    return {
        "files_scanned": summary.files_scanned,
        "findings": sum(by_code.values()),
        "fixable": fixable,
        "errors": len(errors_of(results)),
        "suppressed": sum(r.suppressed for r in results),
        "unused_suppressions": len(unused_suppressions_of(results)),
        "by_code": dict(sorted(by_code.items())),
    }
