"""V1 objects that reach a file through another module of the fork (``migrator.python.forkindex``).

DFM500: ``from .compat import DFlashWorker``, ``from mypkg.compat import BaseWorker`` (a
renamed re-export), ``import mypkg.compat as c`` then ``c.DFlashWorker``: the name is the V1
object, bound in another file. Nothing is edited here: the fix is made where the name is
bound (the re-exporting import keeps the name: ``DFlashWorkerV2 as DFlashWorker``), so the
finding's fix is "safe" with no edit of its own where that import has a replacement.

DFM502: a dict, list, tuple or set (assigned at module or class level) holding a fork class
derived from the V1 worker (its definition may be in any module of the fork): whatever builds workers from that registry
builds a class whose V1 hooks V2 never calls.

Both name the files they come through, in the message and as SARIF related locations.

DFM500 also covers reaches *through* a fork module's alias of a V1 module: where
``pkg/worker.py`` does ``from sglang.srt.speculative import dflash_worker as dfw``, its fix
re-targets ``dfw`` to ``dflash_worker_v2``, so ``worker.dfw.DFlashWorker`` in another module
(``patch.object(worker.dfw.DFlashWorker, ...)``) and the patch string
``"pkg.worker.dfw.DFlashWorker"`` would dangle: each is renamed with the import
(``worker.dfw.DFlashWorkerV2``) where the catalog gives the member one spelling on every
release of the target, else left a TODO.
"""

from __future__ import annotations

import ast

from migrator import catalog
from migrator.base.model import Fix, InsertComment, Span
from migrator.base.patterns import on_first_use
from migrator.python.analysis import rename_qualname
from migrator.python.rules.context import Examples, Rule, RuleContext, replaceable, through
from migrator.report.locations import report_path


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
        _module_chains(ctx, entry)
    entry = ctx.entry("DFM502")
    if entry is not None:
        _registries(ctx, entry)


def _module_chains(ctx: RuleContext, entry: catalog.Entry) -> None:
    """Members reached through a fork module's alias of a V1 module (see the docstring)."""
    analysis = ctx.analysis
    for node, _, binding in analysis.references:
        if binding.kind != "fork" or not isinstance(node, ast.Attribute):
            continue
        inner = analysis.qualname(node.value)
        if inner is None or inner[1].kind != "fork" or not _is_v1_module(inner[0]):
            continue
        shown = analysis.segment(node)
        _chain(ctx, entry, ctx.span_of(node), shown, inner[0], node.attr, shown[: len(shown) - len(node.attr)],
               inner[1].via, node)
    for span, text, module, member in _patch_strings(ctx):
        _chain(ctx, entry, span, text, module, member, "", ())


def _is_v1_module(qualname: str) -> bool:
    found = catalog.by_name().get(qualname)
    return found is not None and found.kind == "module"


def _chain(ctx: RuleContext, entry: catalog.Entry, span: Span, shown: str, module: str, member: str, head: str,
           via: tuple[tuple[str, int], ...], node: ast.AST | None = None) -> None:
    """``head + member`` reaches ``module.member`` through a re-targeted alias: rename the member
    with the module, or a TODO where no single spelling serves every release."""
    member_entry = catalog.by_name().get(f"{module}.{member}")
    if member_entry is None or member_entry.kind not in ("module", "class", "function"):
        return  # not a name of the module the catalog moved: the alias keeps reaching it
    new_module = rename_qualname(module, ctx.target)
    spellings = {rename_qualname(f"{module}.{member}", release) for release in ctx.releases}
    new = spellings.pop() if len(spellings) == 1 else None
    message = (f"`{shown}` reaches `{member}` through an alias of the V1 module `{module.rpartition('.')[2]}`, "
               f"which the fix re-targets to `{new_module.rpartition('.')[2]}`")
    if new is None or new.rpartition(".")[0] != new_module or member_entry.replacement_for(ctx.target) is None:
        comment = catalog.todo_comment(entry, f"`{shown}` reaches `{member}` through an alias of a V1 module the fix "
                                       "re-targets; rename the member by hand")
        line = ctx.analysis.anchor_line(node) if node is not None else span.start.line
        ctx.report(span, entry, Fix("manual", (InsertComment(line, comment),)), message, via)  # adds the hops
        return
    if new.rpartition(".")[2] == member:
        return  # moved with its module under its own name: the re-targeted alias reaches it
    text = head + new.rpartition(".")[2]
    message += through(via) + f": `{member}` becomes `{new.rpartition('.')[2]}`"
    if node is not None:
        ctx.replace(node, text, entry, detail=message)
    else:
        ctx.replace_span(span, text, entry, message)


_DOTTED = on_first_use(r"""["']([A-Za-z_]\w*(?:\.[A-Za-z_]\w*){2,})["']""")


def _patch_strings(ctx: RuleContext) -> list[tuple[Span, str, str, str]]:
    """(span of the member's text, the string, V1 module, member) of each dotted string
    literal (``mock.patch("pkg.worker.dfw.DFlashWorker")``) that reaches a V1 module through
    a fork module's alias."""
    analysis = ctx.analysis
    fork = analysis.fork
    found = []
    line_number = 0
    for line_number, line in enumerate(analysis.lines, start=1):
        if "." not in line or ("'" not in line and '"' not in line):
            continue
        for match in _DOTTED().finditer(line):
            parts = match.group(1).split(".")
            for cut in range(len(parts) - 1, 1, -1):
                resolved = fork.resolve(".".join(parts[:cut]))
                if resolved is None:
                    continue
                if _is_v1_module(resolved.qualname):
                    member = parts[cut]
                    start = match.start(1) + len(".".join(parts[:cut])) + 1
                    found.append((Span.of(line_number, start, line_number, start + len(member)), match.group(1),
                                  resolved.qualname, member))
                break
    return found


def _report(ctx: RuleContext, entry: catalog.Entry, span: Span, shown: str, resolved) -> None:  # noqa: ANN001
    v1 = resolved.qualname
    short = v1.rpartition(".")[2]
    message = f"V1 `{short}`, re-exported by the fork" if shown == short else \
        f"`{shown}` is V1 `{short}`, re-exported by the fork"
    if resolved.fallback is not None:  # paths from the repository top: the message is the fingerprint's
        path, line = resolved.fallback
        message += f"; on {ctx.target} its `except ImportError` branch binds another ({report_path(path)}:{line})"
    replaced = replaceable(v1, ctx.target)
    fix = Fix("safe", (), replacement=f"fixed where it is bound: {report_path(resolved.via[-1][0])}") if replaced else None
    ctx.report(span, entry, fix, message, resolved.via)


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


RULE = Rule("fork_names", 400, check, owns=("DFM500", "DFM502"),
    examples=Examples(
        invalid=(
            (
                "# file: pkg/__init__.py\n"
                "# file: pkg/compat.py\n"
                "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
                "# file: pkg/use.py\n"
                "from .compat import DFlashWorker\n"
            ),
        ),
        valid=(
            (
                "# file: pkg/__init__.py\n"
                "# file: pkg/compat.py\n"
                "class DFlashWorker:\n"
                "    pass\n"
                "# file: pkg/use.py\n"
                "from .compat import DFlashWorker\n"
            ),
        ),
    ),
)
