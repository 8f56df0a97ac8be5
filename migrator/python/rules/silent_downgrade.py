"""DFM501: a compatibility ``try`` that silently turns DFLASH off on V2 releases.

``try: from sglang.srt.speculative.dflash_worker import DFlashWorker; HAS_DFLASH = True``
``except ImportError: HAS_DFLASH = False``: on every release without the V1 module (and
without the runtime shim) the ``try`` fails, so the ``except`` branch runs and the feature
is off without an error. The import lines get their own findings; this one reports the
consequence, at the ``try`` (those at module level and in its ``if`` blocks). Version guards (a ``try`` that also imports a V2 name) are
not reported. Where every V1 name in the ``try`` has a safe replacement, the import fixes
make the ``try`` succeed and this finding needs no edit of its own; otherwise it is a TODO.
"""

from __future__ import annotations

import ast

from migrator import catalog
from migrator.base.model import Fix, Span
from migrator.python.forkindex import v1_imports, v1_try_fallbacks
from migrator.python.rules.context import Examples, Rule, RuleContext


def check(ctx: RuleContext) -> None:
    entry = ctx.entry("DFM501")
    if entry is None:
        return
    analysis = ctx.analysis
    for node in _module_level_tries(analysis.tree.body):
        if analysis.is_guarded(node):
            continue
        failing = [(statement, qualname, found) for statement, qualname in
                   v1_imports(node, analysis.module_name, analysis.is_package)
                   if (found := ctx.entry_named(qualname)) is not None]
        fallbacks = v1_try_fallbacks(node)
        if not failing or not fallbacks:
            continue
        names = ", ".join(dict.fromkeys(f"`{name}`" for name, _ in fallbacks))
        missing = failing[0][1].rpartition(".")[2]
        message = (f"on {ctx.target}, without the shim, this `try` always fails (`{missing}` is not there) and its "
                   f"`except ImportError` branch sets {names}: the feature is silently off")
        line, col = node.lineno, analysis.char_col(node.lineno, node.col_offset)
        span = Span.of(line, col, line, col + len("try"))
        if all(found.fix == "safe" and found.replacement_for(ctx.target) is not None for _, _, found in failing):
            ctx.report(span, entry, Fix("safe", (), replacement="fixed by the import fixes in this `try`"), message)
        else:
            ctx.todo(node, entry, message)
            ctx.findings[-1] = ctx.findings[-1]._replace(span=span)


def _module_level_tries(body: list[ast.stmt]) -> list[ast.Try]:
    """The ``try`` statements of the module body and of its ``if`` blocks (where compatibility
    imports live); function bodies are not searched (the whole tree would cost a walk)."""
    found: list[ast.Try] = []
    for statement in body:
        if isinstance(statement, ast.Try):
            found.append(statement)
        elif isinstance(statement, ast.If):
            found.extend(_module_level_tries(statement.body + statement.orelse))
    return found


RULE = Rule("silent_downgrade", 410, check, owns=("DFM501",), reads=catalog.codes_of_kind("module", "class", "function"),
    examples=Examples(
        invalid=(
            (
                "try:\n"
                "    from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
                "    HAS_DFLASH = True\n"
                "except ImportError:\n"
                "    HAS_DFLASH = False\n"
            ),
        ),
        valid=(
            (
                "try:\n"
                "    from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\n"
                "    HAS_DFLASH = True\n"
                "except ImportError:\n"
                "    HAS_DFLASH = False\n"
            ),
        ),
    ),
)
