"""V1-era overlap handling for DFLASH in a fork's own code (DFM210, DFM211).

V1 ``DFlashWorker`` could not run under the overlap scheduler, so code of that era refused
overlap for DFLASH or turned it off; from 0.5.14 ``DFlashWorkerV2`` drives both modes and
sglang deleted both patterns:

* DFM210, an overlap guard: an ``if`` whose test reads an overlap setting (a name or
  attribute spelled with ``overlap``: ``enable_overlap``, ``not args.disable_overlap_schedule``)
  and whose body raises with a message naming DFLASH (0.5.13's ``create_worker``:
  ``if enable_overlap: raise ValueError("DFLASH does not support overlap scheduling (spec v2).")``);
* DFM211, overlap forced off: ``<x>.disable_overlap_schedule = True`` in DFLASH code: a
  function whose name says DFLASH (0.5.13's ``_handle_dflash``), an ``if`` that tests for
  DFLASH (``is_dflash()``, a comparison with ``"DFLASH"``), or with a neighbouring statement
  whose message names DFLASH (its warning).

Deleting them is upstream's behaviour decision (overlap on for DFLASH unless the user passes
``--disable-overlap-schedule``), so each is an *unsafe* fix (a TODO without ``--unsafe-fixes``),
its message stating what changes at run time. The two are coupled: deleting the forced
``True`` alone, with the guard left, makes DFLASH raise at start-up under overlap. So:

* a guard is deleted only where its ``if`` has no ``else`` and its body only raises, and the
  overlap name its test reads stays read elsewhere in the function (no unused local is left);
* the forced ``True`` is deleted with its warning (the next statement, a logging call whose
  message names overlap), only where every guard of the same file is deletable; guards and
  settings of one file form *one* fix (every finding carries every edit), so they are applied
  together or not at all. Across files the coupling is by mode only: both are unsafe, so
  ``--unsafe-fixes`` applies both; a guard the tool does not recognise in another file is
  not seen (the setting's message says to delete such a guard too).

Cost: the byte prefilter sends a file here only if it names DFLASH, one of sglang's two
spellings of the setting (``enable_overlap``, ``disable_overlap_schedule``: the entries'
cues) and has the shape one of the rules looks for (the entries' patterns: a line naming
overlap with a ``raise`` starting one of the next 9 lines, or ``.disable_overlap_schedule
= True``). A guard spelled otherwise is found only in a file that holds another trigger.
The rule returns at once unless the source says ``overlap`` and DFLASH, and then descends
only into statements whose lines hold ``overlap``.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left

from migrator import catalog
from migrator.base.model import Fix, InsertComment, RemoveStatement
from migrator.python.names import parameter_names
from migrator.python.rules.context import Examples, Rule, RuleContext, enclosing_function

DFLASH = re.compile(r"dflash", re.IGNORECASE)
OVERLAP = "overlap"


def _strings(node: ast.AST) -> str:
    return " ".join(n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str))


def _reads_overlap(test: ast.expr) -> bool:
    return any((isinstance(n, ast.Name) and OVERLAP in n.id) or (isinstance(n, ast.Attribute) and OVERLAP in n.attr)
               for n in ast.walk(test))


def _tests_dflash(test: ast.expr) -> bool:
    for node in ast.walk(test):
        if isinstance(node, ast.Attribute) and DFLASH.search(node.attr):
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and DFLASH.search(node.value):
            return True
    return False


def _overlap_statements(body: list[ast.stmt], hot: list[int], path: list[ast.AST]) -> list[tuple[ast.stmt, list[ast.AST]]]:
    """Statements (with their enclosing nodes) that span a line holding ``overlap`` (``hot``:
    those lines, sorted)."""
    found: list[tuple[ast.stmt, list[ast.AST]]] = []
    for statement in body:
        at = bisect_left(hot, statement.lineno)
        if at == len(hot) or hot[at] > (statement.end_lineno or statement.lineno):
            continue
        found.append((statement, path))
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(statement, field, None)
            if isinstance(inner, list):
                found.extend(_overlap_statements([s for s in inner if isinstance(s, ast.AST)], hot, [*path, statement]))
    return found


def _in_dflash_code(statement: ast.stmt, path: list[ast.AST]) -> bool:
    for outer in path:
        if isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef)) and DFLASH.search(outer.name):
            return True
        if isinstance(outer, (ast.If, ast.While)) and _tests_dflash(outer.test) and _within(statement, outer.body):
            return True  # the body of `if <DFLASH>:`, not its `else`
    siblings: list[ast.stmt] = getattr(path[-1], "body", []) if path else []
    if statement in siblings:
        at = siblings.index(statement)
        return any(DFLASH.search(_strings(s)) for s in siblings[max(at - 1, 0):at + 2] if s is not statement)
    return False


def _within(statement: ast.stmt, body: list[ast.stmt]) -> bool:
    return body[0].lineno <= statement.lineno <= (body[-1].end_lineno or body[-1].lineno)


def _forces_overlap_off(statement: ast.stmt) -> bool:
    if not (isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant)
            and statement.value.value is True):
        return False
    return any(isinstance(t, ast.Attribute) and t.attr == catalog.DISABLE_OVERLAP_ARG for t in statement.targets)


_LOGGING_METHODS = frozenset({"debug", "info", "warning", "warn", "error"})


def _overlap_warning(statement: ast.stmt | None) -> bool:
    """``logger.warning("...overlap...")``: the message that goes with a forced setting."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    func = statement.value.func
    return (isinstance(func, ast.Attribute) and func.attr in _LOGGING_METHODS
            and OVERLAP in _strings(statement.value).lower())


def _guard_is_deletable(ctx: RuleContext, statement: ast.If) -> bool:
    """Not an ``elif``, no ``else``, a body that only raises, and every overlap name its test reads a parameter
    or still read elsewhere in the enclosing function (no local left unused)."""
    parent = ctx.analysis.parents.get(statement)
    if statement.orelse or not all(isinstance(s, ast.Raise) for s in statement.body):
        return False
    if isinstance(parent, ast.If) and statement in parent.orelse:
        return False  # an `elif`: a branch of another statement
    names = {n.id for n in ast.walk(statement.test) if isinstance(n, ast.Name) and OVERLAP in n.id}
    if not names:
        return True
    function = enclosing_function(ctx, statement)
    if function is None:
        return False
    names -= set(parameter_names(function.args))  # unused is no message
    inside = {id(n) for n in ast.walk(statement)}
    read = {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and id(n) not in inside}
    return names <= read


def _next_statement(statement: ast.stmt, path: list[ast.AST]) -> ast.stmt | None:
    siblings: list[ast.stmt] = getattr(path[-1], "body", []) if path else []
    if statement in siblings:
        at = siblings.index(statement)
        return siblings[at + 1] if at + 1 < len(siblings) else None
    return None


_GUARD_CHANGE = ("deleting this guard, as upstream did, lets DFLASH run under overlap scheduling "
                 "(DFlashWorkerV2 drives both modes); it goes with the forced `disable_overlap_schedule = True`")
_FORCED_CHANGE = ("deleting this setting and its warning, as upstream did, runs DFLASH with overlap scheduling "
                  "unless `--disable-overlap-schedule` is passed; only correct together with deleting every "
                  "guard that raises for DFLASH under overlap (DFM210, deleted by the same fix run)")


def check(ctx: RuleContext) -> None:
    source = ctx.analysis.source
    if OVERLAP not in source or not DFLASH.search(source):
        return
    guard, forced = ctx.entry("DFM210"), ctx.entry("DFM211")
    if guard is None and forced is None:
        return
    hot = [number for number, text in enumerate(ctx.analysis.lines, 1) if OVERLAP in text]
    guards: list[tuple[ast.If, bool]] = []
    settings: list[tuple[ast.stmt, ast.stmt | None]] = []
    for statement, path in _overlap_statements(ctx.analysis.tree.body, hot, []):
        if isinstance(statement, ast.If) and _reads_overlap(statement.test):  # seen even if DFM210 is off
            raises = [s for s in statement.body if isinstance(s, ast.Raise)]
            if raises and any(DFLASH.search(_strings(r)) for r in raises):
                guards.append((statement, _guard_is_deletable(ctx, statement)))
        elif forced is not None and _forces_overlap_off(statement) and _in_dflash_code(statement, path):
            following = _next_statement(statement, path)
            settings.append((statement, following if _overlap_warning(following) else None))
    coupled = all(deletable for _, deletable in guards) and (guard is not None or not guards)
    edits = tuple(RemoveStatement(ctx.span_of(node), "DFM210") for node, deletable in guards if deletable) + tuple(
        RemoveStatement(ctx.span_of(node), "DFM211") for setting, warning in settings for node in (setting, warning) if node)
    for statement, deletable in guards:
        _report(ctx, statement, guard, edits if deletable and (coupled or not settings) else None, _GUARD_CHANGE)
    for setting, _warning in settings:
        _report(ctx, setting, forced, edits if coupled else None, _FORCED_CHANGE)


def _report(ctx: RuleContext, node: ast.stmt, entry: catalog.Entry | None, edits: tuple | None, change: str) -> None:
    if entry is None:
        return
    if edits is None:
        ctx.todo(node, entry)
        return
    fallback = (InsertComment(ctx.analysis.anchor_line(node), catalog.todo_comment(entry)),)
    ctx.report(node, entry, Fix("unsafe", edits, replacement="", fallback=fallback), f"{entry.message}: {change}")


RULE = Rule("overlap_guards", 370, check, owns=("DFM210", "DFM211"),
    examples=Examples(
        invalid=(
            (
                "def create_worker(enable_overlap):\n"
                "    if enable_overlap:\n"
                '        raise ValueError("DFLASH does not support overlap scheduling (spec v2).")\n'
            ),
        ),
        valid=(
            (
                "def create_worker(enable_overlap):\n"
                "    if enable_overlap:\n"
                '        raise ValueError("NGRAM does not support overlap scheduling.")\n'
            ),
        ),
    ),
)
