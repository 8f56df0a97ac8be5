"""``validate_dflash_request(req)`` called without ``enable_overlap`` (DFM307).

From 0.5.14 the function takes ``(req, enable_overlap: bool)``; a one-argument call raises
``TypeError`` at runtime. The callee is resolved by qualified name in both its old home
(``managers.scheduler``) and its new one (``speculative.dflash_utils``); the import move
itself is DFM306.

Inside a method of a class that assigns ``self.enable_overlap`` (in any of its methods, or one
of its bases defined in the same file does) or subclasses sglang's ``Scheduler``, the fix is *safe*: ``validate_dflash_request(req,
self.enable_overlap)``, upstream's own call (issue 46). The proof, re-checked on every wheel
0.5.14 to the newest by ``tests/test_upstream_rewrite_proofs.py`` (slow):

1. ``dflash_utils.validate_dflash_request`` has exactly the parameters ``(req,
   enable_overlap)`` on every target: the second positional argument is ``enable_overlap``.
2. ``Scheduler.__init__`` assigns ``self.enable_overlap`` on every target, so a subclass has it.
3. Every target's scheduler calls it ``validate_dflash_request(req, self.enable_overlap)``:
   the rewrite is what upstream wrote.

Elsewhere (a free function, a static or class method, a class with no ``enable_overlap``, one
whose attribute comes from a base in another module of the fork, a call passing the request
by keyword or through ``*``) the value to pass is the caller's
decision: a TODO, whose guidance names the server-args spelling.
"""

from __future__ import annotations

import ast

from migrator import catalog
from migrator.python.rules.context import Examples, Rule, RuleContext, enclosing_function

CALLEES = frozenset({catalog.get("DFM306").old, catalog.get("DFM307").old})
SCHEDULER = "sglang.srt.managers.scheduler.Scheduler"
ATTRIBUTE = "enable_overlap"


def _assigns_attribute(cls: ast.ClassDef) -> bool:
    """Does a method of ``cls`` assign ``<first parameter>.enable_overlap``?"""
    for method in cls.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args:
            continue
        receiver = method.args.args[0].arg
        for node in ast.walk(method):
            targets = (node.targets if isinstance(node, ast.Assign)
                       else [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
            if any(isinstance(t, ast.Attribute) and t.attr == ATTRIBUTE and isinstance(t.value, ast.Name)
                   and t.value.id == receiver for t in targets):
                return True
    return False


def _need_unseen_bases(ctx: RuleContext, classes: list[ast.ClassDef]) -> None:
    """A base named but bound nowhere the analysis saw may be a class of this file that a
    lint's partial parse blanked (``class Mid(Scheduler): pass``): its name is made a needed
    word, so the file is analysed whole and the chain to ``Scheduler`` is seen (cheaper than
    keeping every line that spells ``Scheduler`` in every file that calls the function)."""
    module_names = ctx.analysis.module_scope.names
    for cls in classes:
        for base in cls.bases:
            if isinstance(base, ast.Name) and base.id not in module_names:
                ctx.analysis.need_word(base.id)


def _overlap_of_receiver(ctx: RuleContext, call: ast.Call) -> str | None:
    """``self.enable_overlap`` (spelled with the method's own receiver) where the call sits in
    an instance method of a class that has the attribute; None elsewhere."""
    method = enclosing_function(ctx, call)
    cls = ctx.analysis.parents.get(method) if method is not None else None
    if not isinstance(cls, ast.ClassDef) or not method.args.args:  # type: ignore[union-attr]
        return None
    decorators = {d.id if isinstance(d, ast.Name) else getattr(d, "attr", None) for d in method.decorator_list}  # type: ignore[union-attr]
    if decorators & {"staticmethod", "classmethod"}:
        return None
    info = next((i for i in ctx.analysis.classes.values() if i.node is cls), None)
    ancestors = ctx.analysis.ancestors(info.qualname) if info is not None else frozenset()
    classes = [cls, *(ctx.analysis.classes[name].node for name in ancestors if name in ctx.analysis.classes)]
    if not (SCHEDULER in ancestors or any(_assigns_attribute(c) for c in classes)):
        # the assignment may sit in a method a lint's partial parse blanked: asked for by
        # name only here, where a one-argument call depends on it (most files that call the
        # function pass both arguments, and every line reading the attribute would be kept)
        ctx.analysis.need_word(ATTRIBUTE)
        _need_unseen_bases(ctx, classes)
        return None
    return f"{method.args.args[0].arg}.{ATTRIBUTE}"  # type: ignore[union-attr]


def check(ctx: RuleContext) -> None:
    entry = ctx.entry("DFM307")
    if entry is None:
        return
    analysis = ctx.analysis
    for call in analysis.calls:
        if analysis.callee(call) not in CALLEES:
            continue
        passed = len(call.args) + len(call.keywords)
        has_star = any(k.arg is None for k in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args)
        if passed >= 2 or has_star:
            continue
        overlap = _overlap_of_receiver(ctx, call) if len(call.args) == 1 else None
        text = analysis.segment(call)
        if overlap is None or "#" in text:
            ctx.todo(call, entry)
            continue
        replacement = f"{analysis.segment(call.func)}({analysis.segment(call.args[0])}, {overlap})"
        ctx.replace(call, replacement, entry, applicability="safe")


RULE = Rule("validate_request", 360, check, owns=("DFM307",), reads=("DFM306",),
            # a class's `self.enable_overlap = ...` decides the fix: where a lint's partial parse
            # blanked it, or a base class, the rule asks for it by name (``need_word``)
    examples=Examples(
        invalid=(
            (
                "from sglang.srt.speculative.dflash_utils import validate_dflash_request\n"
                "\n"
                "\n"
                "def check(req):\n"
                "    validate_dflash_request(req)\n"
            ),
        ),
        valid=(
            (
                "from sglang.srt.speculative.dflash_utils import validate_dflash_request\n"
                "\n"
                "\n"
                "def check(req):\n"
                "    validate_dflash_request(req, False)\n"
            ),
        ),
    ),
)
