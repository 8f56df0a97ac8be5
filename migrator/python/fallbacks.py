"""Which releases of a target reach each statement: fallbacks and what exists where.

From the catalog alone (every machine gives the same answer; ``verify`` checks the real
wheels): :func:`catalog_names` are the dotted names the catalog places in a release, and
:func:`branches` the line ranges of a module that only some releases run:

* a ``try:`` / ``except ImportError:`` (or ``ModuleNotFoundError``) importing sglang names:
  the body runs where its imports resolve (as written, or once migrated where none of the
  target's releases has them), each handler on the other releases;
* the branches of an ``if`` comparing sglang's version with a literal
  (``migrator.python.version_tests``), or *unknown* where the test cannot be evaluated.

``migrator.python.release_fit`` migrates each branch for the releases reaching it; the write guard
checks a new import on those releases. Both anchor a TODO with :func:`anchor_lines`.
"""

from __future__ import annotations

import ast
from bisect import bisect_left, bisect_right
from functools import cache

from migrator import catalog
from migrator.python.names import IMPORT_ERROR_NAMES, catches


@cache
def catalog_names(target: str) -> frozenset[str]:
    """Dotted names the catalog says exist in ``target`` (with the packages above them)."""
    names: set[str] = set()
    for entry in catalog.ENTRIES:
        if entry.kind not in ("module", "class", "function"):
            continue
        present = [entry.replacement_for(target)] if entry.fires_for(target) else []
        if target in entry.exists:
            present.extend(entry.names)
        for name in present:
            while name:  # None: nothing serves
                names.add(name)
                name = name.rpartition(".")[0]
    return frozenset(names)


@cache
def known_names() -> frozenset[str]:
    """Every dotted name (and the packages above it) the catalog places in some release."""
    return frozenset().union(*(catalog_names(release) for release in catalog.RELEASES))


def resolves(dotted: str, release: str) -> bool:
    """Whether ``dotted`` exists in ``release`` as far as the catalog knows; a name the
    catalog never mentions is taken to exist (the catalog only tracks what moved)."""
    if dotted not in known_names():
        return True
    return dotted in catalog_names(release)


class Branch:
    """One line range of a ``try`` that guards sglang imports (its body or one handler) or
    of an ``if`` testing sglang's version (``migrator.python.version_tests``), and the releases of
    the target it runs on (``unknown``: a version test the tool cannot evaluate)."""

    __slots__ = ("first", "last", "releases", "is_body", "unknown")

    def __init__(self, first: int, last: int, releases: tuple[str, ...], is_body: bool, unknown: bool = False) -> None:
        self.first, self.last, self.releases, self.is_body, self.unknown = first, last, releases, is_body, unknown


def statements(tree: ast.Module, lines: tuple[int, ...] | None = None):  # -> Iterator[ast.stmt]
    """Every statement of ``tree``, nested ones included, without walking expressions (a
    few percent of the nodes). ``lines`` (sorted): only the statements whose line range
    holds one of them, and only those are entered: a branch holding a line is found
    without walking the rest of the file."""
    def holds(node: ast.stmt) -> bool:
        if lines is None:
            return True
        at = bisect_left(lines, node.lineno)
        return at < len(lines) and lines[at] <= (node.end_lineno or node.lineno)

    stack: list[ast.stmt] = [n for n in reversed(tree.body) if holds(n)]
    while stack:
        node = stack.pop()
        yield node
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                stack.extend(n for n in reversed(inner) if holds(n))
        for handler in getattr(node, "handlers", ()):
            stack.extend(n for n in reversed(handler.body) if holds(n))
        for case in getattr(node, "cases", ()):
            stack.extend(n for n in reversed(case.body) if holds(n))


def anchor_lines(tree: ast.Module, lines: set[int]) -> dict[int, int]:
    """For each of ``lines``: the first line of the innermost statement holding it (its
    first decorator for a definition; of statements starting on one line, the outermost, so
    that a decorated one-line ``def`` gets its TODO above the decorator), where a TODO about
    that line goes. One walk."""
    wanted = sorted(lines)
    best: dict[int, ast.stmt] = {}
    for node in statements(tree, tuple(wanted)):
        for line in wanted[bisect_left(wanted, node.lineno):bisect_right(wanted, node.end_lineno or node.lineno)]:
            if line not in best or node.lineno > best[line].lineno:
                best[line] = node
    anchors = {line: line for line in lines}
    anchors.update((line, first_line(node)) for line, node in best.items())
    return anchors


def first_line(statement: ast.stmt) -> int:
    """The line a TODO about ``statement`` goes above: its first decorator's for a definition."""
    decorators = getattr(statement, "decorator_list", None)
    return min([statement.lineno, *(d.lineno for d in decorators)]) if decorators else statement.lineno


def _sglang_imports(body: list[ast.stmt]) -> list[str]:
    """Dotted names the statements import from sglang (absolute imports only)."""
    names: list[str] = []
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Import):
                names.extend(a.name for a in node.names if a.name.split(".")[0] == "sglang")
            elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "sglang":
                names.extend(f"{node.module}.{a.name}" for a in node.names if a.name != "*")
    return names


def _body_serves(names: list[str], release: str, releases: tuple[str, ...]) -> bool:
    """Whether the body's imports resolve on ``release`` once migrated: an import that
    resolves on some release of the target stays as it is; one that resolves on none is
    migrated, and then serves where the catalog gives it a replacement."""
    for name in names:
        if resolves(name, release):
            continue
        if any(resolves(name, other) for other in releases):
            return False
        entry = catalog.matching_entry(name)
        if entry is None or entry.replacement_for(release) is None:
            return False
    return True


def branches(tree: ast.Module, releases: tuple[str, ...], lines: tuple[int, ...] | None = None) -> list[Branch]:
    """The guarded ``try`` statements' bodies and handlers and the branches of version
    tests, innermost last; ``lines`` (sorted): only those holding one of these lines."""
    from migrator.python.version_tests import version_branches

    found = [Branch(first, last, reached or (), False, reached is None)
             for first, last, reached in version_branches(statements(tree, lines), releases)]
    for node in statements(tree, lines):
        if not isinstance(node, ast.Try) or not any(
                handler.type is not None and catches(handler, IMPORT_ERROR_NAMES) for handler in node.handlers):
            continue
        names = _sglang_imports(node.body)
        if not names:
            continue
        body_releases = tuple(r for r in releases if _body_serves(names, r, releases))
        rest = tuple(r for r in releases if r not in body_releases)
        found.append(Branch(node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno, body_releases, True))
        for handler in node.handlers:
            found.append(Branch(handler.lineno, handler.end_lineno or handler.lineno, rest, False))
    found.sort(key=lambda b: (b.first, -b.last))
    return found


def branch_at(found: list[Branch], line: int) -> Branch | None:
    """The innermost branch holding ``line``, reached only by the releases every enclosing
    version test and handler lets through."""
    inner = None
    reached: set[str] | None = None
    unknown = False
    for branch in found:
        if branch.first <= line <= branch.last:
            inner = branch
            unknown = unknown or branch.unknown
            if not branch.is_body and not branch.unknown:
                reached = set(branch.releases) if reached is None else reached & set(branch.releases)
    if inner is None or (reached is None or set(inner.releases) <= reached) and unknown == inner.unknown:
        return inner
    releases = tuple(r for r in inner.releases if reached is None or r in reached) if inner.is_body else \
        tuple(sorted(reached or (), key=catalog.parse_version))
    return Branch(inner.first, inner.last, releases, inner.is_body, unknown)
