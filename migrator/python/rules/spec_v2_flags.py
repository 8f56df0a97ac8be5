"""``supports_spec_v2()`` (DFM205) and ``ScheduleBatch.is_spec_v2`` (DFM206), both removed
in 0.5.14 together with the V1/V2 worker split.

In 0.5.13 both were False for batches without speculative decoding (``NONE``) and for
DFLASH; 0.5.14 rewrote every call site as a test for "speculative at all": ``batch.is_spec_v2``
became ``not batch.spec_algorithm.is_none()`` and ``algo.supports_spec_v2()`` became
``not algo.is_none()``. That is the fix here, never the constant ``True``, which would send
non-speculative batches down the speculative path.

The fix is *safe* (issue 46): it keeps the meaning on every release of the target. The proof,
re-checked on every wheel from 0.5.14 to the newest by ``tests/test_upstream_rewrite_proofs.py``
(slow), so that a release breaking a premise fails the test rather than the user:

1. ``ScheduleBatch.is_spec_v2`` and ``SpeculativeAlgorithm.supports_spec_v2`` exist on no
   release 0.5.14-0.5.23: the original raises ``AttributeError`` on every target, so no
   target behaviour is lost by rewriting it.
2. ``ScheduleBatch.spec_algorithm`` and ``SpeculativeAlgorithm.is_none`` exist on every one of
   them: the rewrite runs.
3. No module of those wheels mentions ``is_spec_v2`` or ``supports_spec_v2`` any more (0.5.13
   read them in seven modules): nothing on a target tells "takes the V2 path" apart from "is
   speculative"; every worker ``create_worker`` returns runs the V2 schema, so the two
   predicates are one.
4. The wheels spell the same test as ``spec_algorithm.is_none()`` at the sites that read
   ``is_spec_v2`` in 0.5.13 (more of them in each release): upstream's own rewrite.

The premise is the one every safe fix makes, that the code runs against a release in the
target. It does not hold for uses bound to a fork's own definition of the member (a plugin's
``CustomSpecAlgo.supports_spec_v2`` returned ``supports_overlap``, not "speculative"): those
get a TODO.

The member names are distinctive to SGLang, so any access in a file that imports SGLang
(or lives inside an SGLang fork) is reported; the receiver's type is rarely known
(``self.spec_algorithm.supports_spec_v2()``). A plugin's own ``supports_spec_v2`` (a
``CustomSpecAlgo`` subclass, which returned ``supports_overlap``) has no such meaning: its
definition and calls on ``self`` inside it get a TODO, and wherever the fork itself (a module outside ``sglang.*``: this file, or another
through the fork index, ``ForkIndex.own_definitions``) defines a method or property of either
name, the rewrite of every use is only *unsafe*, its message naming those definitions: which
uses are bound to them the tool cannot tell. A vendored ``sglang/`` tree's definitions do not
count: merging upstream replaces them; the fork pass names them once per run instead
(``catalog.VENDORED_CODE``, ``ForkIndex.vendored_definitions``).
"""

from __future__ import annotations

import ast

from migrator.python.rules.context import Examples, Rule, RuleContext

#: Parents under which ``not x.is_none()`` needs no parentheses.
_LOOSE_PARENTS = (ast.If, ast.While, ast.IfExp, ast.BoolOp, ast.Assert, ast.Return, ast.Assign, ast.AnnAssign,
                  ast.keyword, ast.Expr, ast.comprehension, ast.NamedExpr, ast.Call)


def _in_sglang_context(ctx: RuleContext) -> bool:
    return ctx.analysis.imports_sglang or ctx.analysis.module_name.startswith("sglang")


def _own_definitions(ctx: RuleContext, member: str) -> list[str]:
    """The fork's own definitions of ``member`` outside ``sglang.*``, by name (no line: the text
    goes into a TODO, and lines move as files are fixed): in this file, and in the fork's other
    modules through the fork index."""
    analysis = ctx.analysis
    found = []
    if not _is_sglang_module(analysis.module_name):
        found += [f"`{info.node.name}.{member}` in this file" for info in analysis.classes.values()
                  for statement in info.node.body
                  if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == member]
    if analysis.fork is not None:
        found += [f"`{owner}.{member}`" for owner, path, _ in
                  analysis.fork.index.own_definitions.get(member, ()) if path != ctx.path]
    return found


def _is_sglang_module(module: str) -> bool:
    return module == "sglang" or module.startswith("sglang.")


def _replace_with_test(ctx: RuleContext, receiver: ast.expr, replaced: ast.expr, entry,  # noqa: ANN001
                       path: str = "", own: list[str] | None = None) -> None:
    """``replaced`` becomes ``not <receiver><path>.is_none()``, parenthesised where its parent
    binds tighter than ``not``; ``not replaced`` becomes ``<receiver><path>.is_none()``. Safe,
    unless the fork has ``own`` definitions of the member: then unsafe, naming them."""
    test = f"{ctx.analysis.segment(receiver)}{path}.is_none()"
    applicability = "unsafe" if own else "safe"
    detail = (f"{entry.message}; the fork defines its own `{entry.member}` ({', '.join(own)}): the fix assumes "
              "sglang's meaning, check the uses bound to it") if own else None
    parent = ctx.analysis.parents.get(replaced)
    if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
        ctx.replace(parent, test, entry, applicability=applicability, detail=detail)
        return
    loose = isinstance(parent, _LOOSE_PARENTS) and not (isinstance(parent, ast.Call) and parent.func is replaced)
    ctx.replace(replaced, f"not {test}" if loose else f"(not {test})", entry, applicability=applicability,
                detail=detail)


def _plugin_classes(ctx: RuleContext, member: str) -> set[int]:
    """Ids of the class nodes that define ``member`` themselves (a plugin's own method)."""
    return {id(info.node) for info in ctx.analysis.classes.values()
            if any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == member for s in info.node.body)}


def _enclosing_class(ctx: RuleContext, node: ast.AST) -> ast.ClassDef | None:
    current = ctx.analysis.parents.get(node)
    while current is not None and not isinstance(current, ast.ClassDef):
        current = ctx.analysis.parents.get(current)
    return current


def check(ctx: RuleContext) -> None:
    if not _in_sglang_context(ctx):
        return
    analysis = ctx.analysis
    supports = ctx.entry("DFM205")
    if supports is not None:
        plugins = _plugin_classes(ctx, supports.member)
        own = _own_definitions(ctx, supports.member)
        for node in analysis.attributes_by_name.get(supports.member, []):
            parent = analysis.parents.get(node)
            on_self = isinstance(node.value, ast.Name) and node.value.id == "self"
            owner = _enclosing_class(ctx, node)
            if on_self and owner is not None and id(owner) in plugins:
                ctx.todo(node, supports, f"a plugin's own `{supports.member}` (it returned `supports_overlap`): "
                         "decide what the V2 worker should do instead")
            elif isinstance(parent, ast.Call) and parent.func is node and not parent.args and not parent.keywords:
                _replace_with_test(ctx, node.value, parent, supports, own=own)
            else:
                ctx.todo(node, supports)
        for info in analysis.classes.values():
            for statement in info.node.body:
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == supports.member:
                    ctx.todo(statement, supports, f"override of `{statement.name}`: {supports.message}")
    is_v2 = ctx.entry("DFM206")
    if is_v2 is not None:
        own = _own_definitions(ctx, is_v2.member)
        for node in analysis.attributes_by_name.get(is_v2.member, []):
            if isinstance(node.ctx, ast.Load):
                _replace_with_test(ctx, node.value, node, is_v2, ".spec_algorithm", own)
            else:
                ctx.todo(node, is_v2)


RULE = Rule("spec_v2_flags", 340, check, owns=("DFM205", "DFM206"),
    examples=Examples(
        invalid=(
            (
                "from sglang.srt.managers.schedule_batch import ScheduleBatch\n"
                "\n"
                "\n"
                "def speculative(batch: ScheduleBatch):\n"
                "    return batch.is_spec_v2\n"
            ),
        ),
        valid=(
            (
                "from sglang.srt.managers.schedule_batch import ScheduleBatch\n"
                "\n"
                "\n"
                "def speculative(batch: ScheduleBatch):\n"
                "    return not batch.spec_algorithm.is_none()\n"
            ),
        ),
    ),
)
