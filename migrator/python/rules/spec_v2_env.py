"""``SGLANG_ENABLE_SPEC_V2`` set or read from Python (DFM201).

0.5.14-0.5.20 only warn when it is set and 0.5.21+ ignore it, so ``=0`` silently stops
selecting the synchronous path. Settings recognised: ``os.environ[X] = v``,
``os.environ.setdefault/putenv/monkeypatch.setenv(X, v)``, dict entries ``{X: v}`` (env
dicts for subprocesses). Values are parsed like SGLang's ``EnvBool``.

* truthy: the default now, the setting is removed (safe);
* falsy: the setting is removed and every speculative server-argument builder in the
  same file gets ``disable_overlap_schedule=True`` (``sglang.Engine``/``ServerArgs``
  calls passing ``speculative_algorithm``) or ``--disable-overlap-schedule`` (argv lists
  running ``sglang.launch_server`` with ``--speculative-algorithm``); builders that are
  not speculative are untouched because the variable never affected them;
* anything else (reads, unknown values, builders hidden behind ``**kwargs``, no builder in
  the file): a TODO. Look-alikes such as ``SGLANG_ENABLE_SPEC_V2_FOO`` never match.
"""

from __future__ import annotations

import ast

from migrator import catalog
from migrator.base.model import AddKeyword, AppendListItem, Edit, Fix, RemoveDictEntry, RemoveStatement
from migrator.python.rules.context import Examples, Rule, RuleContext

SETTERS = ("setdefault", "putenv", "setenv")
SPEC_KEYWORD = "speculative_algorithm"
SPEC_FLAG = "--speculative-algorithm"


def _constant_value(node: ast.AST | None) -> bool | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, bool)) and node.value is not None:
        return catalog.sglang_bool(str(node.value))
    return None


def _setting(ctx: RuleContext, node: ast.Constant) -> tuple[bool | None, Edit | None]:
    """(parsed value, edit removing the setting) for a setting; (None, None) otherwise."""
    parents = ctx.analysis.parents
    parent = parents.get(node)
    grand = parents.get(parent) if parent is not None else None
    if isinstance(parent, ast.Subscript) and isinstance(grand, ast.Assign) and grand.targets == [parent]:
        return _constant_value(grand.value), RemoveStatement(ctx.span_of(grand))
    if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node and len(parent.args) >= 2:
        if isinstance(parent.func, ast.Attribute) and parent.func.attr in SETTERS:
            removal = RemoveStatement(ctx.span_of(grand)) if isinstance(grand, ast.Expr) else None
            return _constant_value(parent.args[1]), removal
    if isinstance(parent, ast.Dict) and node in parent.keys:
        value = parent.values[parent.keys.index(node)]
        return _constant_value(value), RemoveDictEntry(ctx.span_of(node))
    return None, None


def _builder_edits(ctx: RuleContext) -> list[Edit] | None:
    """Edits adding the non-overlap setting to each speculative builder; None if unknowable."""
    analysis = ctx.analysis
    edits: list[Edit] = []
    builders = 0
    for call in analysis.calls:
        if analysis.callee(call) not in catalog.ENGINE_CALLABLES:
            continue
        builders += 1
        keywords = {k.arg for k in call.keywords}
        if None in keywords:
            return None  # **kwargs may carry the speculative settings
        if catalog.DISABLE_OVERLAP_ARG not in keywords and SPEC_KEYWORD in keywords:
            edits.append(AddKeyword(ctx.span_of(call), catalog.DISABLE_OVERLAP_ARG, "True"))
    for node in analysis.strings:
        parent = analysis.parents.get(node)
        if node.value != catalog.LAUNCH_SERVER_MODULE or not isinstance(parent, (ast.List, ast.Tuple)):
            continue
        builders += 1
        if any(isinstance(e, ast.Starred) for e in parent.elts):
            return None
        values = [e.value for e in parent.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        speculative = any(v == SPEC_FLAG or v.startswith(SPEC_FLAG + "=") for v in values)
        if speculative and catalog.DISABLE_OVERLAP_FLAG not in values:
            edits.append(AppendListItem(ctx.span_of(parent), repr(catalog.DISABLE_OVERLAP_FLAG).replace("'", '"')))
    return edits if builders else None


def check(ctx: RuleContext) -> None:
    entry = ctx.entry("DFM201")
    if entry is None:
        return
    for node in ctx.analysis.strings:
        if node.value != entry.old:
            continue
        value, removal = _setting(ctx, node)
        if value is None or removal is None:
            ctx.todo(node, entry, _why_manual(ctx, node, value))
            continue
        if value:
            ctx.report(node, entry, Fix("safe", (removal,), replacement=""),
                       f"{entry.old} is truthy, which is the default since 0.5.14: setting removed")
            continue
        builder_edits = _builder_edits(ctx)
        unordered = _conditional_or_late(ctx, node, builder_edits)
        if unordered is not None:
            ctx.todo(node, entry, f"{entry.old}=0 no longer selects the synchronous path, and this setting "
                     f"{unordered}: pass {catalog.DISABLE_OVERLAP_ARG}=True / {catalog.DISABLE_OVERLAP_FLAG} "
                     "to the launches it applied to, under the same condition")
            continue
        if builder_edits is None:
            ctx.todo(node, entry, f"{entry.old}=0 no longer selects the synchronous path: pass "
                     f"{catalog.DISABLE_OVERLAP_ARG}=True / {catalog.DISABLE_OVERLAP_FLAG} where this "
                     f"process builds its server arguments")
            continue
        ctx.report(node, entry, Fix("safe", (removal, *builder_edits),
                                    replacement=f"{catalog.DISABLE_OVERLAP_ARG}=True"),
                   f"{entry.old}=0 now means {catalog.DISABLE_OVERLAP_ARG}=True: moved onto the server arguments")


def _conditional_or_late(ctx: RuleContext, node: ast.Constant, builder_edits: list[Edit] | None) -> str | None:
    """Why moving a falsy setting onto the builders would change when it applies, or None:
    ``setdefault`` (only if unset), a setting under ``if``/``for``/``try``/``with``, or a
    builder that runs before it (``Engine(...)`` then ``os.environ[...] = "0"``)."""
    parents = ctx.analysis.parents
    parent = parents.get(node)
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr == "setdefault":
        return "only applies when the variable is not set already (`setdefault`)"
    if isinstance(parent, ast.Dict):
        return None  # an env mapping handed to a process: its builder runs with it
    statement = ctx.analysis.statement_of.get(node)
    if statement is None:
        return None
    holder = parents.get(statement)
    if holder is not None and not isinstance(holder, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)):
        return "is conditional (it sits inside a compound statement)"
    end = statement.end_lineno or statement.lineno
    for edit in builder_edits or ():
        if edit.span.start.line <= end:
            return f"comes after the server-argument builder on line {edit.span.start.line}"
    return None


def _why_manual(ctx: RuleContext, node: ast.Constant, value: bool | None) -> str:
    parent = ctx.analysis.parents.get(node)
    if isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Load) or (
        isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr in ("get", "getenv", "pop")
    ):
        return f"reading {catalog.ENV_SPEC_V2} means nothing on 0.5.14+; check server_args.{catalog.DISABLE_OVERLAP_ARG}"
    return catalog.get("DFM201").message


# The server-argument builders (``Engine``, ``ServerArgs``, ``launch_server``) are edited only
# where the environment variable is written as a string literal.
RULE = Rule("spec_v2_env", 330, check, owns=("DFM201",),
            words=(((f'"{catalog.ENV_SPEC_V2}"', f"'{catalog.ENV_SPEC_V2}'"),
                    tuple(sorted({name.rpartition(".")[2] for name in catalog.ENGINE_CALLABLES}
                                 | {catalog.LAUNCH_SERVER_MODULE.rpartition(".")[2]}))),),
            follows=catalog.ENGINE_CALLABLES,
    examples=Examples(
        invalid=(
            (
                "import os\n"
                "\n"
                'os.environ["SGLANG_ENABLE_SPEC_V2"] = "1"\n'
            ),
        ),
        valid=(
            (
                "import os\n"
                "\n"
                'os.environ["SGLANG_ENABLE_TORCH_COMPILE"] = "1"\n'
            ),
        ),
    ),
)
