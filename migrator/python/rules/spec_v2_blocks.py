"""Blocks that only plumb ``SGLANG_ENABLE_SPEC_V2`` through ``Envs`` (DFM202), deleted as upstream did.

Two idioms of 0.5.13's own tree, both deleted by 0.5.14 (``arg_groups/deepseek_v4_hook.py``,
``arg_groups/speculative_hook.py``). Each is an ``if`` without ``else`` whose test reads
``envs.SGLANG_ENABLE_SPEC_V2.get()`` negated, and whose body holds only the statements below
and logging calls (``logger.warning(...)``, ``logging.info(...)``, ``print(...)``):

* **turning V2 on** (safe): the test is exactly ``not envs.SGLANG_ENABLE_SPEC_V2.get()`` and
  the body sets the variable truthy (``envs.SGLANG_ENABLE_SPEC_V2.set(True)``). Deleted, with
  the breadcrumb comment the env-var fix writes. Proof, re-checked on every wheel from 0.5.14
  to the newest by ``tests/test_upstream_rewrite_proofs.py`` (slow):

  1. ``Envs`` exists and has no ``SGLANG_ENABLE_SPEC_V2`` on any of those releases: the test
     raises ``AttributeError`` on every target, so no target behaviour is lost;
  2. the only code of those releases that mentions the variable is the removal notice
     ``if os.getenv("SGLANG_ENABLE_SPEC_V2") is not None:`` whose body only logs (0.5.14-0.5.20;
     nothing from 0.5.21): what the block set could change a log line and nothing else, and
     "V2 on" is the only path there (DFM205/DFM206's proof: every worker is V2);
  3. upstream deleted the block itself (the replay, ``benchmarks/replay.py``).

* **"=0 means non-overlap"** (unsafe): the test is ``not envs.SGLANG_ENABLE_SPEC_V2.get()``,
  alone or and-ed with reads of ``disable_overlap_schedule``, and the body sets
  ``<x>.disable_overlap_schedule = True``. Deleting it is upstream's decision, and it changes
  behaviour: ``SGLANG_ENABLE_SPEC_V2=0`` no longer turns overlap scheduling off (no target
  reads it); only ``--disable-overlap-schedule`` does. Under ``--unsafe-fixes`` it is deleted,
  otherwise a TODO says so.

Where the deletion leaves the ``envs`` import the block reads unused (the function's own import:
no other ``envs`` token in that function; the module's: none outside functions with their own),
the import goes with the last deletion of the blocks reading it (the unsafe one if any: in default
mode the unsafe block still reads it). Tokens are counted in the whole source (attributes and
strings of that name too, which only keeps an import); a function's extent comes from the tree,
whole in ``fix`` (``lint`` may report the import's removal from a masked parse). Anything else in the body, an ``else``, another test: the
reference stays ``references``' TODO. The rule runs before ``references`` and claims every node
of a block it deletes.
"""

from __future__ import annotations

import ast
import re

from migrator import catalog
from migrator.base.model import Fix, InsertComment, RemoveStatement
from migrator.python.rules.context import Examples, Rule, RuleContext, enclosing_function, tokens_of

CODE = "DFM202"
_LOGGING_ROOTS = ("logger", "logging", "log", "_logger", "LOGGER")
_LOGGING_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical"})


def _reads_flag(ctx: RuleContext, node: ast.expr, entry: catalog.Entry) -> bool:
    """``not <envs>.SGLANG_ENABLE_SPEC_V2.get()``, ``envs`` bound to sglang's."""
    if not (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Call)):
        return False
    call = node.operand
    return (not call.args and not call.keywords and isinstance(call.func, ast.Attribute) and call.func.attr == "get"
            and _is_flag(ctx, call.func.value, entry))


def _is_flag(ctx: RuleContext, node: ast.expr, entry: catalog.Entry) -> bool:
    """Is ``node`` sglang's ``envs.SGLANG_ENABLE_SPEC_V2``, as the analysis resolved it where it
    stands (a function's own import included, which a lookup after the run no longer sees)?"""
    return any(reference is node and qualname == entry.old for reference, qualname, _ in ctx.analysis.references)


def _is_logging(statement: ast.stmt) -> bool:
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    func = statement.value.func
    if isinstance(func, ast.Name):
        return func.id == "print"
    return (isinstance(func, ast.Attribute) and func.attr in _LOGGING_METHODS and isinstance(func.value, ast.Name)
            and func.value.id in _LOGGING_ROOTS)


def _sets_flag_truthy(ctx: RuleContext, statement: ast.stmt, entry: catalog.Entry) -> bool:
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    call = statement.value
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "set" and len(call.args) == 1 and not call.keywords):
        return False
    value = call.args[0]
    return (_is_flag(ctx, call.func.value, entry) and isinstance(value, ast.Constant)
            and value.value is not None and catalog.sglang_bool(str(value.value)) is True)


def _forces_overlap_off(statement: ast.stmt) -> bool:
    return (isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant) and statement.value.value is True
            and all(isinstance(t, ast.Attribute) and t.attr == catalog.DISABLE_OVERLAP_ARG for t in statement.targets))


def _reads_overlap_setting(node: ast.expr) -> bool:
    """``<x>.disable_overlap_schedule`` or ``not <x>.disable_overlap_schedule``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        node = node.operand
    return isinstance(node, ast.Attribute) and node.attr == catalog.DISABLE_OVERLAP_ARG and isinstance(
        node.value, (ast.Name, ast.Attribute))


def idiom(ctx: RuleContext, block: ast.If, entry: catalog.Entry) -> str | None:
    """``"on"`` (turning V2 on), ``"sync"`` (``=0`` means non-overlap), or None."""
    parent = ctx.analysis.parents.get(block)
    if block.orelse or (isinstance(parent, ast.If) and block in parent.orelse):
        return None  # an `else`, or an `elif` (a branch of another statement, not a block of its own)
    actions = [s for s in block.body if not _is_logging(s)]
    if len(actions) != 1:
        return None
    if _reads_flag(ctx, block.test, entry) and _sets_flag_truthy(ctx, actions[0], entry):
        return "on"
    terms = block.test.values if isinstance(block.test, ast.BoolOp) and isinstance(block.test.op, ast.And) else [block.test]
    flags = [t for t in terms if _reads_flag(ctx, t, entry)]
    if len(flags) == 1 and all(t in flags or _reads_overlap_setting(t) for t in terms) and _forces_overlap_off(actions[0]):
        return "sync"
    return None


def _candidates(ctx: RuleContext, entry: catalog.Entry) -> list[tuple[ast.If, str]]:
    found: list[tuple[ast.If, str]] = []
    seen: set[int] = set()
    for node, qualname, _binding in ctx.analysis.references:
        if qualname != entry.old and not qualname.startswith(entry.old + "."):
            continue
        block = ctx.analysis.statement_of.get(node)
        if isinstance(block, ast.If) and id(block) not in seen and _within(node, block.test):
            seen.add(id(block))
            kind = idiom(ctx, block, entry)
            if kind is not None:
                found.append((block, kind))
    return found


def _within(node: ast.AST, test: ast.expr) -> bool:
    return any(inner is node for inner in ast.walk(test))


def _name_lines(source: str, name: str, gone: list[tuple[int, int]]) -> list[int] | None:
    """The lines outside ``gone`` of every ``name`` token (attribute names included: a
    conservative count); None where the source does not tokenize. The text is searched first:
    the tokenizer (which tells a comment or a string from code) runs only where the word stands
    outside ``gone`` at all."""
    pattern = re.compile(rf"(?<![\w.]){re.escape(name)}\b")
    if not any(not _within_lines(line, gone) for line in _lines_matching(source, pattern)):
        return []
    tokens = tokens_of(source, "NAME")
    if tokens is None:
        return None
    return [t.start[0] for t in tokens if t.string == name and not _within_lines(t.start[0], gone)]


def _lines_matching(source: str, pattern: re.Pattern[str]) -> list[int]:
    return [source.count("\n", 0, match.start()) + 1 for match in pattern.finditer(source)]


def _within_lines(line: int, ranges: list[tuple[int, int]]) -> bool:
    return any(first <= line <= last for first, last in ranges)


def _binding_import(ctx: RuleContext, block: ast.If, imports: list) -> object | None:
    """The import of ``envs`` the block reads: the function's own, else the module's."""
    function = enclosing_function(ctx, block)
    own = [info for info in imports if function is not None and enclosing_function(ctx, info.statement) is function]
    module = [info for info in imports if enclosing_function(ctx, info.statement) is None]
    return (own or module or [None])[-1]


def _import_removals(ctx: RuleContext, found: list[tuple[ast.If, str]]) -> dict[int, RemoveStatement]:
    """For each block index, the removal of an ``envs`` import its deletion leaves unused (on the
    block deleted last among those reading it, the unsafe one if any)."""
    qualname = catalog.get(CODE).old.rpartition(".")[0]
    imports = [info for info in ctx.analysis.import_froms if any(n.qualname == qualname for n in info.names)]
    if not imports:
        return {}
    local = next(n for n in imports[0].names if n.qualname == qualname).local
    if any(next(n for n in info.names if n.qualname == qualname).local != local for info in imports):
        return {}
    gone = [(b.lineno, b.end_lineno or b.lineno) for b, _ in found]
    gone += [(i.statement.lineno, i.statement.end_lineno or i.statement.lineno) for i in imports]
    left = _name_lines(ctx.analysis.source, local, gone)
    if left is None:
        return {}
    own_scopes = [f for f in (enclosing_function(ctx, i.statement) for i in imports) if f is not None]
    removals: dict[int, RemoveStatement] = {}
    for info in imports:
        readers = [at for at, (block, _) in enumerate(found) if _binding_import(ctx, block, imports) is info]
        if not readers or info.guarded or len(info.statement.names) != 1:
            continue
        function = enclosing_function(ctx, info.statement)
        if function is not None:
            still = [line for line in left if function.lineno <= line <= (function.end_lineno or line)]
        else:
            if ctx.analysis.is_exported(local):
                continue
            still = [line for line in left if not any(f.lineno <= line <= (f.end_lineno or line) for f in own_scopes)]
        if not still:
            removals[max(readers, key=lambda at: (found[at][1] == "sync", found[at][0].lineno))] = RemoveStatement(
                ctx.span_of(info.statement))
    return removals


def check(ctx: RuleContext) -> None:
    entry = ctx.entry(CODE)
    if entry is None or catalog.ENV_SPEC_V2 not in ctx.analysis.source:
        return
    found = _candidates(ctx, entry)
    if not found:
        return
    removals = _import_removals(ctx, found)
    for at, (block, kind) in enumerate(found):
        for node in ast.walk(block):
            ctx.claimed.add(id(node))
        removal = (RemoveStatement(ctx.span_of(block)), *((removals[at],) if at in removals else ()))
        if kind == "on":
            ctx.report(block, entry, Fix("safe", removal, replacement=""),
                       f"{catalog.ENV_SPEC_V2} is gone and V2 is the only path on every target: "
                       "this block only turned it on (deleted, as upstream did)")
            continue
        detail = (f"`{catalog.ENV_SPEC_V2}=0` no longer selects the synchronous path (no target reads it): deleting "
                  f"this block, as upstream did, runs overlap scheduling unless `--disable-overlap-schedule` is passed")
        fallback = (InsertComment(ctx.analysis.anchor_line(block), catalog.todo_comment(entry, detail)),)
        ctx.report(block, entry, Fix("unsafe", removal, replacement="", fallback=fallback), detail)


RULE = Rule("spec_v2_blocks", 190, check, shares=(CODE,),
            why="``references`` owns DFM202 (every read of the removed member, a TODO); this rule deletes the "
            "two blocks upstream deleted whole, before it, and claims their nodes",
            examples=Examples(
                invalid=(
                    (
                        "from sglang.srt.environ import envs\n\n\n"
                        "def apply_defaults(server_args):\n"
                        "    if not envs.SGLANG_ENABLE_SPEC_V2.get():\n"
                        "        envs.SGLANG_ENABLE_SPEC_V2.set(True)\n"
                        "    server_args.page_size = 256\n"
                    ),
                ),
                valid=(
                    (
                        "def apply_defaults(server_args):\n"
                        "    server_args.page_size = 256\n"
                    ),
                ),
            ))
