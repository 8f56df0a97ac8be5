"""V1 objects that reach a file through another module of the fork (``migrator.forkindex``).

DFM500: ``from .compat import DFlashWorker``, ``from mypkg.compat import BaseWorker`` (a
renamed re-export), ``import mypkg.compat as c`` then ``c.DFlashWorker``: the name is the V1
object, bound in another file. Nothing is edited here: the fix is made where the name is
bound (the re-exporting import keeps the name: ``DFlashWorkerV2 as DFlashWorker``), so the
finding's fix is "safe" with no edit of its own where that import has a replacement.

DFM502: a dict, list, tuple or set (assigned at module or class level) holding a fork class
derived from the V1 worker (its definition may be in any module of the fork): whatever builds workers from that registry
builds a class whose V1 hooks V2 never calls.

Both name the files they come through, in the message and as SARIF related locations.
"""

from __future__ import annotations

import ast

from .. import catalog
from ..model import Fix, Span
from ..report.locations import report_path
from .context import Rule, RuleContext, replaceable, through


def check(ctx: RuleContext) -> None:
    analysis = ctx.analysis
    if analysis.fork is None:
        return
    entry = ctx.entry("DFM500")
    if entry is not None:
        for info in analysis.import_froms:
            for imported in info.names:
                resolved = analysis.fork.resolve(imported.qualname)
                if resolved is not None:
                    _report(ctx, entry, Span.of(*imported.name_span), imported.local, resolved)
        for node, _, binding in analysis.references:
            if binding.kind == "fork" and isinstance(node, ast.Attribute):
                inner = analysis.qualname(node.value)
                if inner is not None and inner[1].kind != "fork":
                    resolved = analysis.fork.resolve(f"{inner[0]}.{node.attr}")
                    if resolved is not None:
                        _report(ctx, entry, ctx.span_of(node), analysis.segment(node), resolved)
    entry = ctx.entry("DFM502")
    if entry is not None:
        _registries(ctx, entry)


def _report(ctx: RuleContext, entry: catalog.Entry, span: Span, shown: str, resolved) -> None:  # noqa: ANN001
    v1 = resolved.qualname
    message = f"`{shown}` is sglang's V1 `{v1.rpartition('.')[2]}`, re-exported by another module of the fork"
    if resolved.fallback is not None:
        path, line = resolved.fallback
        message += f"; on {ctx.target} that module's `except ImportError` branch binds it instead ({path}:{line})"
    message += through(resolved.via)
    replaced = replaceable(v1, ctx.target)
    fix = Fix("safe", (), replacement=f"fixed where it is bound: {report_path(resolved.via[-1][0])}") if replaced else None
    ctx.report(span, entry, fix, message)
    ctx.findings[-1] = ctx.findings[-1]._replace(related=resolved.via)


def _registries(ctx: RuleContext, entry: catalog.Entry) -> None:
    analysis = ctx.analysis
    worker = catalog.V1_WORKER_CLASS
    for node in _module_level_containers(analysis.tree.body):
        if isinstance(node, ast.Dict):
            elements = [*node.values]
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            elements = list(node.elts)
        else:
            continue
        for element in elements:
            if not isinstance(element, (ast.Name, ast.Attribute)):
                continue
            resolved = analysis.qualname(element)
            qualname = resolved[0] if resolved is not None else None
            if qualname is None and isinstance(element, ast.Name):
                binding = analysis.lookup(element.id)
                qualname = binding.qualname if binding is not None and binding.kind == "def" else None
            if qualname is None or qualname == worker or worker not in analysis.ancestors(qualname):
                continue
            defined = analysis.fork.defined_class(qualname) if analysis.fork is not None else None
            related = ((defined[1], defined[2]),) if defined is not None and defined[1] != ctx.path else ()
            name = analysis.segment(element)
            ctx.todo(element, entry, f"`{name}` is a subclass of the V1 `DFlashWorker`: {entry.message}",
                     related)


def _module_level_containers(body: list[ast.stmt]) -> list[ast.expr]:
    """Dict, list, tuple and set displays in module-level and class-level assignments (where
    registries live), nested displays included."""
    found: list[ast.expr] = []
    for statement in body:
        if isinstance(statement, ast.ClassDef):
            found.extend(_module_level_containers(statement.body))
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and statement.value is not None:
            found.extend(n for n in ast.walk(statement.value) if isinstance(n, (ast.Dict, ast.List, ast.Tuple, ast.Set)))
    return found


RULE = Rule("fork_names", 400, check, owns=("DFM500", "DFM502"))
