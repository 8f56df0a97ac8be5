"""Report formats for ``dflash-migrate lint`` and ``verify`` (the commands: :mod:`migrator.cli.commands`).

One module per format, each with ``render(results, summary) -> str``. Modules are imported
lazily so that a run that prints nothing never pays for XML or JSON machinery.

Column conventions: :mod:`migrator.base.model` keeps 0-based character columns; every format
here prints 1-based columns (``column + 1``), and end positions are exclusive (the column
just after the last character), as SARIF and most editors expect.
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False
if TYPE_CHECKING:
    from migrator.base.model import FileResult, RunSummary

#: ``--format`` choices, default first.
FORMATS: tuple[str, ...] = ("text", "concise", "full", "json", "json-lines", "sarif", "github", "gitlab", "junit")
#: The formats written for people (colour on a terminal, the summary line last).
HUMAN_FORMATS = ("text", "concise", "full")


def render(fmt: str, results: list[FileResult], summary: RunSummary, subject: str | None = None,
           config: str | None = None, sources: dict[str, bytes] | None = None,
           target: tuple[tuple[str, ...], str] | None = None) -> str:
    """Render ``results`` in format ``fmt`` (one of :data:`FORMATS`); ``subject`` names what
    the text summary counts (default "V1 reference"; verify counts unresolved references);
    ``config`` is the configuration file the run used and ``target`` the sglang releases it
    migrated to and where they came from (both shown in the text summary and in JSON and
    SARIF run properties)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    module = import_module(f"migrator.report.{fmt.replace('-', '_')}")
    if fmt == "text":
        return module.render(results, summary, subject=subject or "V1 reference", config=config, target=target)
    if fmt == "full":
        return module.render(results, summary, subject=subject or "V1 reference", config=config, sources=sources,
                             target=target)
    if fmt == "concise":
        return module.render(results, summary, subject=subject or "V1 reference", target=target)
    if fmt in ("json", "sarif"):
        return module.render(results, summary, config=config, target=target)
    return module.render(results, summary)
