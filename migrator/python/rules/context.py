"""What every Python rule works with: :class:`Rule` (how a rule module declares itself),
:class:`RuleContext` (the file's analysis, the target, the enabled codes; where findings are
collected) and every helper more than one rule uses (the one public module rules share: no
rule imports another rule).

A module of its own, below the rules: ``migrator.python.rules`` (the registry) imports the rule
modules, and they import this, so no rule module imports the package that lists it.
"""

from __future__ import annotations

import ast
import io
import re
from functools import cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tokenize import TokenInfo
    from typing import Callable, Iterable, Literal

from migrator import catalog
from migrator.base.model import AddImport, Edit, Examples, Finding, Fix, InsertComment, Replace, Span  # Examples: for the rule modules
from migrator.base.records import NamedTuple, record
from migrator.python.analysis import Analysis, Binding, rename_qualname
from migrator.report.locations import report_path


@record
class Rule(NamedTuple):
    """A rule module's declaration of itself (``RULE = Rule(...)`` at its top level).

    * ``order``: its place in the run (see :mod:`migrator.python.rules` for what each band means);
    * ``owns``: the codes it emits that no other rule owns;
    * ``shares``: codes another rule owns that this one also emits, and ``why`` (required then);
    * ``reads``: catalog entries it reads without emitting their code;
    * ``words``: the words it looks for beyond the catalog's own names, as (preconditions,
      words) groups: each word matters only in a source holding one of the preconditions
      (none: in every source). Statements holding none of a source's words are not analysed
      (``migrator.relevance.words`` derives every relevance layer from these declarations);
    * ``follows``: qualified names beyond the catalog's whose aliases and subclasses the rule
      follows (a local name bound to one makes its lines relevant too);
    * ``examples``: its own valid and invalid sources (:class:`~migrator.base.model.Examples`),
      which ``tests/test_rule_examples.py`` runs (a rule without them fails it).

    ``tests/test_rule_declarations.py`` fails when a rule emits or reads an undeclared code;
    ``tests/test_shortcuts.py`` when a declared word is missing, or one is declared in vain.
    """

    name: str
    order: int
    check: Callable[[RuleContext], None]
    owns: tuple[str, ...] = ()
    shares: tuple[str, ...] = ()
    why: str = ""
    reads: tuple[str, ...] = ()
    words: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()
    follows: tuple[str, ...] = ()
    examples: Examples | None = None

    @property
    def emits(self) -> frozenset[str]:
        return frozenset((*self.owns, *self.shares))


class RuleContext:
    """What a rule sees (the file's analysis, path, target, enabled codes) and collects."""

    __slots__ = ("analysis", "path", "target", "releases", "enabled", "findings", "claimed")

    def __init__(self, analysis: Analysis, path: str, target: str, enabled: Callable[[str], bool],
                 releases: tuple[str, ...] = ()) -> None:
        self.analysis = analysis
        self.path = path
        #: the newest release of the target, which fixes are spelled for; ``releases``: all of
        #: them, oldest first (``migrator.python.release_fit`` keeps only fixes that serve each)
        self.target = target
        self.releases = releases or (target,)
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
        attribute = node.func if isinstance(node, ast.Call) else node  # a method call: its receiver's origin
        if not related and isinstance(attribute, ast.Attribute) and id(attribute.value) in self.analysis.fork_origins:
            related = (self.analysis.fork_origins[id(attribute.value)],)  # a typed wrapper of another module
        message += through(related)  # in the message, not in a TODO comment: lines move
        self.findings.append(Finding(self.path, span, entry.code, message, fix, chain_ends(related)))

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


def chain_ends(related: tuple[tuple[str, int], ...]) -> tuple[tuple[str, int], ...]:
    """What a finding lists of the files it comes through: the nearest and the last. A
    chain of 1,000 re-exporting modules would otherwise put 1,000 hops in each of its
    1,000 findings (a report of megabytes)."""
    return related if len(related) <= 2 else (related[0], related[-1])


def through(related: tuple[tuple[str, int], ...]) -> str:
    """`` (through pkg/compat.py:7)`` for a finding that comes through other files; a
    longer chain shows its ends and how many stand between them."""
    # repository-relative, as reports show paths: the message (and so the fingerprint) is the
    # same whether the other file was scanned or only indexed (`lint FILE` = its part of `lint .`)
    shown = [f"{report_path(path)}:{line}" for path, line in chain_ends(related)]
    if len(related) > 2:
        shown.insert(1, f"{len(related) - 2} more")
    return f" (through {', '.join(shown)})" if shown else ""


@cache
def removed_members() -> dict[str, list[catalog.Entry]]:
    """Removed member name -> the entries naming it (on their owner class)."""
    table: dict[str, list[catalog.Entry]] = {}
    for entry in catalog.entries_of_kind("method", "attribute"):
        if entry.owner_class and entry.replacement_for(catalog.NEWEST_RELEASE) != entry.old:
            for name in entry.names:
                table.setdefault(name.rpartition(".")[2], []).append(entry)
    return table


def enclosing_function(ctx: RuleContext, node: ast.AST | None) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function definition holding ``node`` (``node`` itself if it is one);
    None at module level."""
    while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        node = ctx.analysis.parents.get(node)
    return node


def assigned_values(ctx: RuleContext, name: ast.Name) -> list[ast.expr]:
    """The values ``name`` is assigned (``name = value``) by statements of the function (or
    module) body around it, in order: what a local alias may stand for."""
    body = (enclosing_function(ctx, name) or ctx.analysis.tree).body
    return [statement.value for statement in body if isinstance(statement, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == name.id for t in statement.targets)]


def replaceable(qualname: str, target: str) -> bool:
    """Does the catalog replace the V1 object ``qualname`` (or the one it is inside) safely
    on ``target``? Then a fork's re-export of it is fixed where it is bound."""
    names = catalog.by_name()
    parts = qualname.split(".")
    for cut in range(len(parts), 0, -1):
        found = names.get(".".join(parts[:cut]))
        if found is not None:
            return found.fix == "safe" and found.replacement_for(target) is not None
    return False


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


# ---- edits several rules make -------------------------------------------------------------


def rename_attribute(ctx: RuleContext, node: ast.Attribute, entry: catalog.Entry) -> None:
    """``x.old_field`` -> ``x.new_field`` (the entry's replacement for the target)."""
    new_attr = (entry.replacement_for(ctx.target) or "").rpartition(".")[2]
    segment = ctx.analysis.segment(node)
    if new_attr and segment.endswith(node.attr):
        ctx.replace(node, segment[: -len(node.attr)] + new_attr, entry)


def rename_keyword(ctx: RuleContext, keyword: ast.keyword, entry: catalog.Entry) -> None:
    """``f(old_name=...)`` -> ``f(new_name=...)``."""
    new_name = (entry.replacement_for(ctx.target) or "").rpartition(".")[2]
    line, col = keyword.lineno, ctx.analysis.char_col(keyword.lineno, keyword.col_offset)
    if new_name and keyword.arg:
        ctx.replace_span(Span.of(line, col, line, col + len(keyword.arg)), new_name, entry)


def renamed_text(ctx: RuleContext, node: ast.expr, qualname: str, binding: Binding) -> tuple[str | None, tuple]:
    """The text replacing ``node`` (a name or attribute chain resolving to ``qualname``
    through ``binding``) for the target, re-expressed relative to the local binding, and the
    imports that text needs; ``(None, ())`` when it cannot be expressed."""
    root = _chain_root(node)
    if root is None or binding.qualname is None:
        return None, ()
    head = binding.qualname
    new_head = rename_qualname(head, ctx.target)
    local = root.id
    if binding.follows_rename and new_head != head:
        local = new_head.rpartition(".")[2]
    new_full = rename_qualname(qualname, ctx.target)
    if new_full == new_head or new_full.startswith(new_head + "."):
        return local + new_full[len(new_head):], ()
    # The name moved to a module the local binding does not reach: import it directly.
    if isinstance(node, (ast.Name, ast.Attribute)) and qualname == _rename_source(qualname):
        module, _, name = new_full.rpartition(".")
        return name, (added_import(ctx, module, name),)
    return None, ()


def added_import(ctx: RuleContext, module: str, name: str) -> AddImport:
    """``from module import name`` in the form the file imports its own package: relative
    (``from ..speculative.dflash_utils import name``) in a module of that package (a fork of
    sglang itself) that imports it relatively, else absolute."""
    analysis = ctx.analysis
    top = module.split(".")[0]
    own = analysis.module_name.split(".")
    if own[0] != top or not any(info.level and info.module.split(".")[0] == top for info in analysis.import_froms):
        return AddImport(module, name)
    package = own if analysis.is_package else own[:-1]
    target = module.split(".")
    common = 0
    while common < min(len(package), len(target)) and package[common] == target[common]:
        common += 1
    if not common or common == len(target):
        return AddImport(module, name)
    return AddImport(".".join(target[common:]), name, len(package) - common + 1)


def _chain_root(node: ast.expr) -> ast.Name | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node if isinstance(node, ast.Name) else None


def _rename_source(qualname: str) -> str:
    """The qualname itself when it is exactly a catalog function/class (not a member of one)."""
    entry = catalog.by_name().get(qualname)
    return qualname if entry is not None and entry.kind in ("function", "class") else ""


# ---- positions inside string literals -------------------------------------------------------
# A literal's value and its source text differ (prefixes, quotes, escapes, implicit
# concatenation, f-string parts), so a token's position is found in the source text of the
# literal: every spelling rules look for is plain ASCII without characters that need
# escaping, so it is written in the source exactly as in the value.

_PREFIXES = ("", "r", "R", "u", "U")
_QUOTES = ('"""', "'''", '"', "'")


def literal_with(segment: str, old_value: str, new_value: str) -> str | None:
    """Re-spell a simple string literal with another value, keeping prefix and quotes."""
    for prefix in _PREFIXES:
        for quote in _QUOTES:
            if segment == f"{prefix}{quote}{old_value}{quote}":
                return f"{prefix}{quote}{new_value}{quote}"
    return None


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


def tokens_of(source: str, kind: Literal["COMMENT", "NAME"]) -> list[TokenInfo] | None:
    """The tokens of type ``kind`` (a :mod:`token` name) of ``source``, or None where it does not
    tokenize. ``tokenize`` costs ~10x the analysis on a large file (and ~4 M instructions to
    import): a rule asks only where a text search of the source found a reason."""
    import tokenize

    wanted = getattr(tokenize, kind)
    try:
        return [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type == wanted]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
