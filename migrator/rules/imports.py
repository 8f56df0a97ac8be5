"""Import statements of removed or renamed modules, classes and functions.

Catches every import form: ``import a.b.c``, ``import a.b.c as x``, ``from a.b import X``,
``from a.b import X as Y`` and relative imports inside a fork of SGLang itself
(``from .dflash_worker import DFlashWorker``), because the module path is resolved against
the file's own package. Renames follow ``--target-version`` (DFM303/DFM305 move between
modules across releases). Names that lost their module to another one while their
neighbours in the same ``from`` statement stay get a TODO (splitting an import is left to
a human); removed names with no replacement (DFM104) get a TODO.

Imports inside ``try: <new> except ImportError: <old>`` guards are left alone.
"""

from __future__ import annotations

from .. import catalog
from ..analysis import ImportFromInfo, rename_qualname
from ..model import Span
from . import RuleContext


def matching_entry(qualname: str, ctx: RuleContext) -> catalog.Entry | None:
    """Entry for the longest dotted prefix of ``qualname`` that the catalog names."""
    names = catalog.by_name()
    parts = qualname.split(".")
    for cut in range(len(parts), 0, -1):
        entry = names.get(".".join(parts[:cut]))
        if entry is not None and entry.kind in ("module", "class", "function"):
            return ctx.entry(entry.code)
    return None


def _replace_span(ctx: RuleContext, span: tuple[int, int, int, int], text: str, entry: catalog.Entry) -> None:
    ctx.replace_span(Span.of(*span), text, entry)


def check(ctx: RuleContext) -> None:
    analysis = ctx.analysis
    for imported in analysis.imports:
        if imported.guarded:
            continue
        entry = matching_entry(imported.qualname, ctx)
        if entry is None:
            continue
        new = rename_qualname(imported.qualname, ctx.target)
        if entry.replacement_for(ctx.target) is None or new == imported.qualname:
            ctx.todo(imported.statement, entry)
        else:
            _replace_span(ctx, imported.name_span, new, entry)
    for info in analysis.import_froms:
        if not info.guarded:
            _check_from(ctx, info)


def _check_from(ctx: RuleContext, info: ImportFromInfo) -> None:
    module_entry = matching_entry(info.module, ctx) if info.module else None
    new_module = rename_qualname(info.module, ctx.target) if module_entry else info.module
    moves: list[tuple[object, catalog.Entry, str, str]] = []
    for imported in info.names:
        entry = matching_entry(imported.qualname, ctx)
        if entry is None:
            continue
        if entry.replacement_for(ctx.target) is None:
            ctx.todo(info.statement, entry)
            continue
        new_module_of_name, _, new_name = rename_qualname(imported.qualname, ctx.target).rpartition(".")
        moves.append((imported, entry, new_module_of_name, new_name))
    destinations = {move[2] for move in moves}
    staying = len(moves) < len(info.names)
    if len(destinations) > 1 or (destinations and staying and destinations != {new_module}):
        for imported, entry, destination, _ in moves:
            if destination != new_module:
                ctx.todo(info.statement, entry, f"{entry.message}; split this import: "
                         f"`{imported.local}` now lives in `{destination}`")  # type: ignore[attr-defined]
        moves = [move for move in moves if move[2] == new_module]
        destinations = {new_module} if moves else set()
    target_module = destinations.pop() if destinations else new_module
    if target_module != info.module:
        entry = module_entry or (moves[0][1] if moves else None)
        text = _module_text(info, target_module)
        if entry is not None and (text is None or info.module_span is None):
            ctx.todo(info.statement, entry, f"{entry.message}; rewrite this import by hand to `{target_module}`")
        elif entry is not None and info.module_span is not None and text is not None:
            _replace_span(ctx, info.module_span, text, entry)
    for imported, entry, _, new_name in moves:
        if new_name != imported.qualname.rpartition(".")[2]:  # type: ignore[attr-defined]
            _replace_span(ctx, imported.name_span, new_name, entry)  # type: ignore[attr-defined]


def _module_text(info: ImportFromInfo, new_module: str) -> str | None:
    """The dotted text after ``from`` (and its dots) that names ``new_module``."""
    if info.level == 0:
        return new_module
    written = info.statement.module or ""
    base = info.module[: len(info.module) - len(written)].rstrip(".")
    if base and new_module.startswith(base + "."):
        return new_module[len(base) + 1:]
    return None
