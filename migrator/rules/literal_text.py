"""Positions inside string literals, for rules that report a token inside a string.

A literal's value and its source text differ (prefixes, quotes, escapes, implicit
concatenation, f-string parts), so a token's position is found in the source text of the
literal: every spelling these rules look for is plain ASCII without characters that need
escaping, so it is written in the source exactly as in the value.
"""

from __future__ import annotations

import ast
import re

from ..model import Span
from .context import RuleContext


def outer_literal(ctx: RuleContext, node: ast.Constant) -> ast.expr:
    """The whole literal a string constant belongs to (an f-string for its parts)."""
    parent = ctx.analysis.parents.get(node)
    return parent if isinstance(parent, ast.JoinedStr) else node


def spans_in_literal(ctx: RuleContext, node: ast.expr, pattern: re.Pattern[str]) -> list[tuple[Span, re.Match[str]]]:
    """(span, match) of each match of ``pattern`` in the source text of literal ``node``,
    at the line and column where the token is written (a multi-line string: its own line)."""
    text = ctx.analysis.segment(node)
    return [(span_in_literal(ctx, node, m.start(), m.end(), text), m) for m in pattern.finditer(text)]


def span_in_literal(ctx: RuleContext, node: ast.expr, start: int, end: int, text: str | None = None) -> Span:
    """The span of offsets ``start``-``end`` of the source text of literal ``node``."""
    line, col, _, _ = ctx.analysis.span(node)
    text = ctx.analysis.segment(node) if text is None else text
    return Span.of(*_position(text, start, line, col), *_position(text, end, line, col))


def _position(text: str, offset: int, line: int, col: int) -> tuple[int, int]:
    before = text.count("\n", 0, offset)
    if not before:
        return line, col + offset
    return line + before, offset - text.rfind("\n", 0, offset) - 1
