"""``SGLANG_ENABLE_SPEC_V2`` set inside a string (DFM201): shell and env text in Python.

Launchers assemble commands as strings (``"SGLANG_ENABLE_SPEC_V2=0 " + cmd``,
``f"SGLANG_ENABLE_SPEC_V2=0 python -m sglang.launch_server ..."``), push ``"NAME=value"``
into env lists, pass ``-e NAME=value`` to ``docker run``, embed JSON (``'{"NAME": "0"}'``,
escaped or not) in shell strings, or tell people in a hint to set it. Each setting is
reported at the line and column where the name is written (a multi-line string: the line
holding it). Forms: ``NAME=value``, ``-e NAME=value``, ``"NAME": value`` and ``\\"NAME\\": value``.

Where the fix is certain it is made, with the shell rules' logic: a truthy ``NAME=value``
that starts a command string (``"SGLANG_ENABLE_SPEC_V2=1 python ..."``, or the whole
prefix string ``"SGLANG_ENABLE_SPEC_V2=1 "``) is the default since 0.5.14 and is removed.
Anything else (falsy values, list items, JSON, hints, values from variables) gets a TODO:
the command may be built elsewhere. A string that is exactly the name is DFM201's own
rule (``spec_v2_env``); a name that merely starts the same (``..._V2_SETTING``) never matches.
"""

from __future__ import annotations

import ast
import re

from migrator import catalog
from migrator.base.model import Fix, InsertComment, Replace, Span
from migrator.python.rules.context import Examples, Rule, RuleContext, outer_literal, spans_in_literal

_NAME = re.escape(catalog.ENV_SPEC_V2)
#: The name used as a setting: NAME=value (also after -e/--env), "NAME": value, \"NAME\": value.
SETTING = re.compile(rf"(?<![\w-])(?:(?:-e|--env)[ =])?(?P<name>{_NAME})=(?P<value>[^\s'\"\\;&|]*)"
                     rf"|(?P<quote>\\?[\"']){_NAME}(?P=quote)\s*:\s*(?P<json>\\?[\"']?[\w.-]*)")


def check(ctx: RuleContext) -> None:
    entry = ctx.entry("DFM201")
    if entry is None:
        return
    seen: set[int] = set()
    for node in ctx.analysis.strings:
        if node.value == entry.old or entry.old not in node.value:
            continue
        literal = outer_literal(ctx, node)
        if id(literal) in seen or ctx.analysis.is_guarded(literal):
            continue
        seen.add(id(literal))
        for span, match in spans_in_literal(ctx, literal, SETTING):
            name_span = _name_span(span, match)
            removal = _certain_removal(ctx, literal, node, span, match)
            if removal is not None:
                fix = Fix("safe", (Replace(removal, ""),), replacement="")
                ctx.report(name_span, entry, fix, f"{entry.old} is truthy, the default since 0.5.14: "
                           "removed from the command string")
            elif catalog.sglang_bool((match.group("value") or match.group("json") or "").rstrip(".,;:)")) is True:
                detail = (f"{entry.message}; this string sets it to a truthy value (or tells people to), the "
                          "default since 0.5.14: drop the setting or the instruction")
            else:
                detail = (f"{entry.message}; this string sets it (or tells people to): pass "
                          f"{catalog.DISABLE_OVERLAP_FLAG} to the launch instead of =0")
            if removal is None:
                comment = catalog.todo_comment(entry, detail)
                fix = Fix("manual", (InsertComment(ctx.analysis.anchor_line(literal), comment),))
                ctx.report(name_span, entry, fix, detail)


def _name_span(span: Span, match: re.Match[str]) -> Span:
    group = "name" if match.group("name") else None
    start = match.start(group) if group else match.start("quote") + len(match.group("quote"))
    shift = start - match.start()
    return Span.of(span.start.line, span.start.column + shift, span.start.line, span.start.column + shift + len(catalog.ENV_SPEC_V2))


def _certain_removal(ctx: RuleContext, literal: ast.expr, node: ast.Constant, span: Span, match: re.Match[str]) -> Span | None:
    """The span to delete when the setting is a truthy prefix of a plain command string."""
    if not match.group("name") or match.group(0) != f"{match.group('name')}={match.group('value')}":
        return None
    if catalog.sglang_bool(match.group("value")) is not True or literal is not node:
        return None
    if not node.value.startswith(match.group(0) + " "):
        return None
    source = ctx.analysis.segment(node)
    prefix = source[: len(source) - len(source.lstrip("rRuUbB"))]
    quote = source[len(prefix):len(prefix) + 3] if source[len(prefix):].startswith(('"""', "'''")) else source[len(prefix):len(prefix) + 1]
    opened = span.start.column - len(prefix) - len(quote)
    if span.start.line != node.lineno or opened != ctx.analysis.span(node)[1]:
        return None  # not at the very start of the literal
    rest = node.value[len(match.group(0)):]
    spaces = len(rest) - len(rest.lstrip(" "))
    return Span.of(span.start.line, span.start.column, span.end.line, span.end.column + spaces)


RULE = Rule(
    "embedded_env", 500, check, shares=("DFM201",),
    why="the variable set inside shell or env text in a string; `spec_v2_env` owns settings in code",
    examples=Examples(
        invalid=(
            'cmd = "SGLANG_ENABLE_SPEC_V2=0 python -m sglang.launch_server --model-path m"\n',
        ),
        valid=(
            'cmd = "SGLANG_ENABLE_TORCH_COMPILE=0 python -m sglang.launch_server --model-path m"\n',
        ),
    ),
)
