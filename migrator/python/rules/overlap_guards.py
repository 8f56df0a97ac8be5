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

Both are reported with a TODO, never rewritten: deleting them turns overlap on for DFLASH,
which is what 0.5.14 does, but whether a fork wants the synchronous path is its own choice.

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
from migrator.python.rules.context import Examples, Rule, RuleContext

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


def check(ctx: RuleContext) -> None:
    source = ctx.analysis.source
    if OVERLAP not in source or not DFLASH.search(source):
        return
    guard, forced = ctx.entry("DFM210"), ctx.entry("DFM211")
    if guard is None and forced is None:
        return
    hot = [number for number, text in enumerate(ctx.analysis.lines, 1) if OVERLAP in text]
    for statement, path in _overlap_statements(ctx.analysis.tree.body, hot, []):
        if guard is not None and isinstance(statement, ast.If) and _reads_overlap(statement.test):
            raises = [s for s in statement.body if isinstance(s, ast.Raise)]
            if raises and any(DFLASH.search(_strings(r)) for r in raises):
                ctx.todo(statement, guard)
        elif forced is not None and _forces_overlap_off(statement) and _in_dflash_code(statement, path):
            ctx.todo(statement, forced)


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
