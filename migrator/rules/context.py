"""What every Python rule works with: :class:`RuleContext` (the file's analysis, the target,
the enabled codes; where findings are collected) and the helpers rules share.

A module of its own, below the rules: ``migrator.rules`` (the list of rules) imports the
rule modules, and they import this, so no rule module imports the package that lists it.
"""

from __future__ import annotations

import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Iterable

from .. import catalog
from ..analysis import Analysis
from ..model import Edit, Finding, Fix, InsertComment, Replace, Span


class RuleContext:
    """What a rule sees (the file's analysis, path, target, enabled codes) and collects."""

    __slots__ = ("analysis", "path", "target", "enabled", "findings", "claimed")

    def __init__(self, analysis: Analysis, path: str, target: str, enabled: Callable[[str], bool]) -> None:
        self.analysis = analysis
        self.path = path
        self.target = target
        self.enabled = enabled
        self.findings: list[Finding] = []
        #: Node ids already replaced by some rule (an outer replacement covers them).
        self.claimed: set[int] = set()

    def entry(self, code: str) -> catalog.Entry | None:
        """The catalog entry if its rule is selected and fires for the target version."""
        entry = catalog.get(code)
        if not self.enabled(code) or not entry.fires_for(self.target):
            return None
        return entry

    def entry_named(self, qualname: str) -> catalog.Entry | None:
        """:func:`catalog.matching_entry` of ``qualname`` if its rule is on for this file."""
        entry = catalog.matching_entry(qualname)
        return None if entry is None else self.entry(entry.code)

    def span_of(self, node: ast.AST) -> Span:
        return Span.of(*self.analysis.span(node))

    def report(self, node: ast.AST | Span, entry: catalog.Entry, fix: Fix | None, detail: str | None = None,
               related: tuple[tuple[str, int], ...] = ()) -> None:
        if isinstance(node, ast.AST) and self.analysis.is_guarded(node):
            return
        span = node if isinstance(node, Span) else self.span_of(node)
        message = detail or entry.message
        if not related and isinstance(node, ast.Attribute) and id(node.value) in self.analysis.fork_origins:
            related = (self.analysis.fork_origins[id(node.value)],)  # a typed wrapper of another module
        message += through(related)  # in the message, not in a TODO comment: lines move
        self.findings.append(Finding(self.path, span, entry.code, message, fix, related))

    def replace_span(self, span: Span, text: str, entry: catalog.Entry, detail: str | None = None) -> None:
        """A safe replacement of a span that is not a whole expression node (import names)."""
        fix = Fix("safe", (Replace(span, text),), replacement=text)
        self.findings.append(Finding(self.path, span, entry.code, detail or entry.message, fix))

    def todo(self, node: ast.AST, entry: catalog.Entry, detail: str | None = None,
             related: tuple[tuple[str, int], ...] = ()) -> None:
        """A manual finding: one idempotent TODO comment above the enclosing statement."""
        comment = catalog.todo_comment(entry, detail)
        fix = Fix("manual", (InsertComment(self.analysis.anchor_line(node), comment),))
        self.report(node, entry, fix, detail, related)

    def replace(
        self,
        node: ast.AST,
        text: str,
        entry: catalog.Entry,
        applicability: catalog.Applicability = "safe",
        extra: Iterable[Edit] = (),
        detail: str | None = None,
    ) -> None:
        self.claimed.add(id(node))
        fallback: tuple[Edit, ...] = ()
        if applicability == "unsafe":
            fallback = (InsertComment(self.analysis.anchor_line(node), catalog.todo_comment(entry, detail)),)
        fix = Fix(applicability, (Replace(self.span_of(node), text), *extra), replacement=text, fallback=fallback)
        self.report(node, entry, fix, detail)


def entry_for_member(qualname_types: frozenset[str], member: str, codes: Iterable[str], ctx: RuleContext) -> catalog.Entry | None:
    """The first enabled entry among ``codes`` naming ``<one of the types>.<member>``."""
    for code in codes:
        entry = ctx.entry(code)
        if entry is None:
            continue
        for name in entry.names:
            owner, _, attr = name.rpartition(".")
            if attr == member and owner in qualname_types:
                return entry
    return None


def through(related: tuple[tuple[str, int], ...]) -> str:
    """`` (through pkg/compat.py:7)`` for a finding that comes through other files."""
    return " (through " + ", ".join(f"{path}:{line}" for path, line in related) + ")" if related else ""


def base_origins(ctx: RuleContext, node: ast.ClassDef) -> tuple[tuple[str, int], ...]:
    """(path, line) of the other fork files a class's bases come from (re-exports, classes
    defined elsewhere), for the message and SARIF related locations of its findings."""
    analysis = ctx.analysis
    if analysis.fork is None:
        return ()
    found: list[tuple[str, int]] = []
    for base in node.bases:
        resolved = analysis.qualname(base)
        if resolved is None:
            continue
        if resolved[1].kind == "fork":
            found.extend(resolved[1].via)
        elif resolved[0] not in analysis.classes:
            defined = analysis.fork.defined_class(resolved[0])
            if defined is not None:
                found.append((defined[1], defined[2]))
    return tuple(dict.fromkeys(found))
