"""What ``dflash-migrate explain CODE`` runs: what a rule catches, why, and how to fix it."""

from __future__ import annotations

import sys
from pathlib import Path

from migrator import catalog
from migrator.catalog.guide import from_metadata
from migrator.cli import UsageError
from migrator.cli.runs.options import load_config


def explain(code: str, guide_url: str = "") -> str:
    """What rule ``code`` catches, why, and how to fix it; raises KeyError for an unknown code.
    It points where the TODOs a fix writes point (``migrator.catalog.guide``): ``guide_url``
    where the project publishes the guide, else this copy's MIGRATION.md."""
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
        f"See {_see(guide_url, e.anchor)}\n"
    )


def guide_path() -> Path | None:
    """MIGRATION.md where this copy of the tool has it: inside the package in an installed
    wheel, at the checkout's top in a source tree; None if neither is there."""
    package = Path(__file__).resolve().parents[2]
    for candidate in (package / catalog.DOC, package.parent / catalog.DOC):
        if candidate.is_file():
            return candidate
    return None


def _see(guide_url: str, anchor: str) -> str:
    if guide_url:
        return f"{guide_url}#{anchor}"
    path = guide_path()
    return f"{catalog.DOC}#{anchor}" + (f" ({path})" if path is not None else "")


def published_guide() -> str:
    """The address a fix run started here would write into its TODOs: the ``guide-url`` of the
    nearest ``[tool.dflash-migrate]`` (from the current folder), else the installed package's
    ``Migration guide`` address, else "" (the relative MIGRATION.md)."""
    return load_config(()).guide_url or from_metadata()


def run(code: str) -> int:
    try:
        text = explain(code, published_guide())
    except KeyError as error:
        raise UsageError(error.args[0]) from None
    sys.stdout.write(text)
    return 0
