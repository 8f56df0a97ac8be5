"""What the report formats share: findings in report order, errors,
unused suppressions, the counts every machine-readable format carries, the tool's name
and version. Below the formats: ``migrator.report`` picks a format module, which imports
this, so no format imports the package that picks it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from migrator import __version__
from migrator.catalog.target import label
from migrator.report.escape import visible

TYPE_CHECKING = False

if TYPE_CHECKING:
    from migrator.base.model import FileError, FileResult, Finding, RunSummary

TOOL_NAME = "dflash-migrate"
JSON_SCHEMA_VERSION = 1


def findings_of(results: list[FileResult]) -> Iterator[Finding]:
    """Every finding of every file, in stable (path, line, column, code) order."""
    all_findings = [f for result in results for f in result.findings]
    yield from sorted(all_findings, key=lambda f: f.sort_key())


def docs_url() -> str | None:
    """Absolute URL of MIGRATION.md for links in reports, or None when none is known.

    The package is not published on an index, so there is no project page to point at;
    the GitHub Action sets ``DFLASH_MIGRATE_DOCS_URL`` to MIGRATION.md in its own
    repository and revision. Only ``https://`` URLs are used.
    """
    url = os.environ.get("DFLASH_MIGRATE_DOCS_URL", "").strip()
    if url.startswith("https://") and not any(c.isspace() or c in "#\"<>" for c in url):
        return url
    return None


def errors_of(results: list[FileResult]) -> list[FileError]:
    return sorted((r.error for r in results if r.error is not None), key=lambda e: e.path)


def unused_suppressions_of(results: list[FileResult]) -> list[tuple[str, int, tuple[str, ...]]]:
    return sorted((r.path, line, codes) for r in results for line, codes in r.unused_suppressions)


def tool_version() -> str:
    return __version__


def summary_dict(results: list[FileResult], summary: RunSummary) -> dict[str, object]:
    """The counts every machine-readable format shares."""
    by_code: dict[str, int] = {}
    fixable = {"safe": 0, "unsafe": 0, "manual": 0}
    for finding in findings_of(results):
        by_code[finding.code] = by_code.get(finding.code, 0) + 1
        if finding.fix is not None:
            fixable[finding.fix.applicability] += 1
    return {
        "files_scanned": summary.files_scanned,
        "left_out": summary.left_out,
        "findings": sum(by_code.values()),
        "fixable": fixable["safe"],  # what a plain fix applies (ruff's count)
        "unsafe_fixable": fixable["unsafe"],  # ruff's "hidden fixes": --unsafe-fixes applies them too
        "errors": len(errors_of(results)),
        "suppressed": sum(r.suppressed for r in results),
        "unused_suppressions": len(unused_suppressions_of(results)),
        "by_code": dict(sorted(by_code.items())),
    }


def target_dict(target: tuple[tuple[str, ...], str] | None) -> dict[str, object] | None:
    """The run's target in JSON and SARIF: its releases (oldest first) and where they came from."""
    return None if target is None else {"releases": list(target[0]), "source": target[1]}


def narrowed_of(results: list[FileResult]) -> list[dict[str, object]]:
    """The files judged by their own sglang release, not the run's target (issue 45;
    ``migrator.run.own_release``), by path: ``path``, ``releases`` (oldest first; empty: not
    known) and ``source``, what said so. In JSON and SARIF (run properties) and as lines."""
    return [{"path": r.path, "releases": list(r.narrowed[0]), "source": r.narrowed[1]}
            for r in sorted(results, key=lambda r: r.path) if r.narrowed is not None]


def narrowed_lines(results: list[FileResult]) -> list[str]:
    """:func:`narrowed_of` for humans (fix's and lint's notes on stderr), escaped; none where
    no file was narrowed."""
    narrowed = narrowed_of(results)
    if not narrowed:
        return []
    head = f"{len(narrowed)} file{'s' if len(narrowed) != 1 else ''} judged by their own sglang release, not the run's target:"
    return [head, *(visible(f"  {n['path']}: " + (f"sglang {label(tuple(n['releases']))}" if n["releases"]
                                                   else "sglang release not known") + f" ({n['source']})")
                    for n in narrowed)]


def target_text(target: tuple[tuple[str, ...], str]) -> str:
    """``sglang 0.5.14..0.5.23 (no sglang pin found: ...)`` for summary lines."""
    return f"sglang {label(target[0])} ({target[1]})" if target[1] else f"sglang {label(target[0])}"
