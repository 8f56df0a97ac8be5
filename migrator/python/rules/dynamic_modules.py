"""The removed module obtained at run time, and the names read from it.

``importlib.import_module("sglang.srt.speculative.dflash_worker")``,
``__import__("...dflash_worker", fromlist=[...])`` and ``sys.modules["...dflash_worker"]``
give the module object (the string itself is ``string_refs``'s DFM101). Followed from
there: attribute access on the expression, on a name it is assigned to in the same
function (or module), and on the parameter of a function of the same file it is passed
to (an import hook ``patch(module)``); then a class read from it (``cls = mod.DFlashWorker``)
the same way. Reported: the class (DFM102; renamed with the module string when that
string is renamed, so the pair stays consistent) and its removed members (DFM105-DFM108,
read or monkeypatched: TODO).
"""

from __future__ import annotations

import ast

from migrator import catalog
from migrator.base.model import Fix, InsertComment, Span
from migrator.python.rules.context import Examples, Rule, RuleContext, enclosing_function, entry_for_member, literal_with

_LOADERS = ("importlib.import_module", "__import__")
_MEMBER_CODES = ("DFM105", "DFM106", "DFM107", "DFM108")


def check(ctx: RuleContext) -> None:
    if catalog.DFLASH_WORKER not in ctx.analysis.source:
        return
    for node in ctx.analysis.strings:
        if node.value == catalog.DFLASH_WORKER:
            loaded = _module_expression(ctx, node)
            if loaded is not None:
                renamed = literal_with(ctx.analysis.segment(node), node.value, catalog.DFLASH_WORKER_V2) is not None
                for use in _uses(ctx, loaded):
                    _check_module_use(ctx, use, renamed)


def _module_expression(ctx: RuleContext, node: ast.Constant) -> ast.expr | None:
    """The call or subscript that evaluates to the module named by ``node``."""
    parent = ctx.analysis.parents.get(node)
    if isinstance(parent, ast.Subscript) and parent.slice is node and _dotted(parent.value) == "sys.modules":
        return parent
    if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node:
        callee = ctx.analysis.callee(parent) or _dotted(parent.func)
        if callee == "__import__" and not any(k.arg == "fromlist" for k in parent.keywords) and len(parent.args) < 4:
            return None  # returns the top-level package
        if callee in _LOADERS:
            return parent
    return None


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else None
    return None


def _uses(ctx: RuleContext, value: ast.expr) -> list[ast.Attribute]:
    """Attribute accesses on ``value``: directly, through a name it is assigned to in the
    same body, or through the parameter of a same-file function it is passed to."""
    parents = ctx.analysis.parents
    parent = parents.get(value)
    if isinstance(parent, ast.Attribute) and parent.value is value:
        return [parent]
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        return _name_uses(enclosing_function(ctx, parent) or ctx.analysis.tree, parent.targets[0].id)
    if isinstance(parent, ast.Call) and value in parent.args and isinstance(parent.func, ast.Name):
        function = _function(ctx, parent.func.id)
        if function is not None and parent.args.index(value) < len(function.args.args):
            return _name_uses(function, function.args.args[parent.args.index(value)].arg)
    return []


def _function(ctx: RuleContext, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    found = [s for s in ctx.analysis.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name]
    return found[0] if len(found) == 1 else None


def _name_uses(scope: ast.AST, name: str) -> list[ast.Attribute]:
    return [n for n in ast.walk(scope) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == name]


def _attr_span(ctx: RuleContext, node: ast.Attribute) -> Span:
    _, _, end_line, end_col = ctx.analysis.span(node)
    return Span.of(end_line, end_col - len(node.attr), end_line, end_col)


def _todo_at(ctx: RuleContext, node: ast.Attribute, entry: catalog.Entry) -> None:
    """A TODO above the statement, the finding on the attribute's name."""
    if not ctx.analysis.is_guarded(node):
        fix = Fix("manual", (InsertComment(ctx.analysis.anchor_line(node), catalog.todo_comment(entry)),))
        ctx.report(_attr_span(ctx, node), entry, fix)


def _check_module_use(ctx: RuleContext, use: ast.Attribute, renamed: bool) -> None:
    qualname = f"{catalog.DFLASH_WORKER}.{use.attr}"
    entry = ctx.entry_named(qualname)
    if entry is None:
        return
    new = catalog.get(entry.code).replacement_for(ctx.target)
    if renamed and new and new.rpartition(".")[0] == catalog.DFLASH_WORKER_V2:
        ctx.replace_span(_attr_span(ctx, use), new.rpartition(".")[2], entry)
    else:
        _todo_at(ctx, use, entry)
    classes = frozenset({qualname})
    members = [ctx.analysis.parents.get(use)]
    parent = ctx.analysis.parents.get(use)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        members = _name_uses(enclosing_function(ctx, parent) or ctx.analysis.tree, parent.targets[0].id)
    for member in members:
        if isinstance(member, ast.Attribute) and (member.value is use or isinstance(member.value, ast.Name)):
            member_entry = entry_for_member(classes, member.attr, _MEMBER_CODES, ctx)
            if member_entry is not None:
                _todo_at(ctx, member, member_entry)


RULE = Rule(
    "dynamic_modules", 520, check, shares=(*catalog.codes_of_kind("module", "class", "function"), *_MEMBER_CODES),
    why="the class and members read from the removed module obtained at run time "
    "(``importlib.import_module``), reported with the codes they have when imported",
    examples=Examples(
        invalid=(
            (
                "import importlib\n"
                "\n"
                'module = importlib.import_module("sglang.srt.speculative.dflash_worker")\n'
                "worker_cls = module.DFlashWorker\n"
            ),
        ),
        valid=(
            (
                "import importlib\n"
                "\n"
                'module = importlib.import_module("sglang.srt.speculative.dflash_worker_v2")\n'
                "worker_cls = module.DFlashWorkerV2\n"
            ),
        ),
    ),
)
