"""Which releases reach each branch of an ``if`` that tests sglang's version.

``if sglang.__version__ >= "0.5.14": <V2 code> else: <V1 code>`` is a fallback like a
``try``/``except ImportError``: each branch serves some releases, and the fix migrates each
for those (``migrator.python.release_fit``), never both to the same spelling. Understood: one
comparison of ``sglang.__version__`` (or ``importlib.metadata.version("sglang")``, possibly
wrapped in ``Version(...)``/``parse(...)``/``tuple(...)``) with a literal (a string, a tuple
of ints, ``Version("...")``). A bare ``__version__`` string compared with a string compares
as text, as Python does (``"0.5.9" > "0.5.14"``); wrapped, it compares as a version. Any other
test that mentions the version is *unknown*: the fixes inside get a TODO.
"""

from __future__ import annotations

import ast
import operator

from migrator import catalog

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable

_OPS = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
        ast.Eq: operator.eq, ast.NotEq: operator.ne}
_FLIPPED = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE, ast.Eq: ast.Eq, ast.NotEq: ast.NotEq}


def _is_version_source(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute) and node.attr == "__version__":
        return True
    return (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "version"
            and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and node.args[0].value == "sglang")


def mentions_version(test: ast.expr) -> bool:
    return any(_is_version_source(node) for node in ast.walk(test))


def _literal(node: ast.expr) -> tuple[str, object] | None:
    """("text", "0.5.14") for a string, ("version", (0, 5, 14)) for a tuple or Version("...")."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return "text", node.value
    if isinstance(node, ast.Tuple) and all(isinstance(e, ast.Constant) and type(e.value) is int for e in node.elts):
        return "version", tuple(e.value for e in node.elts)  # type: ignore[union-attr]
    if isinstance(node, ast.Call) and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) \
            and isinstance(node.args[0].value, str):
        try:
            return "version", catalog.parse_version(node.args[0].value)
        except ValueError:
            return None
    return None


def evaluator(test: ast.expr):  # -> Callable[[str], bool] | None
    """A function telling, for a release, whether ``test`` is true there (None: not a
    comparison this module understands)."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    left, op, right = test.left, type(test.ops[0]), test.comparators[0]
    if not mentions_version(left):
        left, right, op = right, left, _FLIPPED.get(op, op)
    if not mentions_version(left) or op not in _OPS or mentions_version(right):
        return None
    literal = _literal(right)
    if literal is None:
        return None
    kind, value = literal
    compare = _OPS[op]
    bare = _is_version_source(left)
    if kind == "text" and bare:
        return lambda release: compare(release, value)
    if kind == "text":
        try:
            value = catalog.parse_version(value)  # type: ignore[arg-type]
        except ValueError:
            return None
    if bare:
        return None  # a string compared with a tuple or a Version: not a test Python can run
    return lambda release: compare(catalog.parse_version(release)[:len(value)], value)  # type: ignore[arg-type]


def version_branches(statements: Iterable[ast.stmt], releases: tuple[str, ...],
                     ) -> list[tuple[int, int, tuple[str, ...] | None]]:
    """(first line, last line, releases reaching it; None: unknown) of each branch of each
    ``if`` among ``statements`` testing sglang's version."""
    found: list[tuple[int, int, tuple[str, ...] | None]] = []
    for node in statements:
        if not isinstance(node, ast.If) or not mentions_version(node.test):
            continue
        test = evaluator(node.test)
        body = tuple(r for r in releases if test(r)) if test is not None else None
        rest = tuple(r for r in releases if r not in body) if body is not None else None
        found.append((node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno, body))
        if node.orelse:
            found.append((node.orelse[0].lineno, node.orelse[-1].end_lineno or node.orelse[-1].lineno, rest))
    return found
