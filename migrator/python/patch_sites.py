"""Patch sites: places where code *replaces* a name for others, not where it reads it.

``sched.validate_dflash_request = my_wrapper`` (after ``import ... scheduler as sched``)
patches the name where the scheduler looks it up. A fix that spells it as the V2 home
(``validate_dflash_request = my_wrapper`` after a new import) binds a local nothing reads:
the patch silently stops working. The same holds for every position that stores, deletes
or registers a name on behalf of other code:

* a name or attribute stored (``=``, ``+=``, annotated, ``for`` and ``with`` targets) or
  deleted (``del``);
* the object and name of ``setattr`` / ``delattr``, of ``mock.patch(...)``,
  ``patch.object(...)``, ``patch.multiple(...)``, ``monkeypatch.setattr(...)`` /
  ``monkeypatch.delattr(...)`` (``mocker.patch`` too), and the strings a ``for`` loop feeds
  to one of those as the name (``for name in ("a", "b"): setattr(mod, name, ...)``);
* the arguments of a decorator that registers (``@REGISTRY.register("dflash")``): a key.

:func:`patch_sites` finds them; ``migrator.python.release_fit`` decides each fix on one
(``_at_patch_site``): where the old spelling still resolves on every release the code runs
on, it is left as it is (the patch still replaces what the runtime looks up there); where it
resolves on some only, or the fix would turn a dotted target into a plain name, the fix
becomes a TODO saying where to patch instead; where it resolves on none, the fix renames
what is patched together with what the migrated code looks up, and stands.
"""

from __future__ import annotations

import ast

from migrator.python.fallbacks import statements

#: callee names that replace an attribute or a dotted target (``mock.patch``, ``patch.object``,
#: ``monkeypatch.setattr``, builtins ``setattr``/``delattr``)
PATCHERS = frozenset({"setattr", "delattr", "patch", "object", "multiple"})
#: words one of which a line holding a patch site contains (checked before any tree walk)
LINE_WORDS = ("=", "del ", "setattr", "delattr", "patch", "register", "for ", "with ")

Site = tuple[int, int, int, int]  # line, column, end line, end column


def _span(node: ast.AST) -> Site:
    return (node.lineno, node.col_offset, node.end_lineno or node.lineno,  # type: ignore[attr-defined]
            node.end_col_offset if node.end_col_offset is not None else node.col_offset)  # type: ignore[attr-defined]


def _callee_path(func: ast.expr) -> list[str]:
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return parts[::-1]


def _is_patcher(call: ast.Call) -> bool:
    path = _callee_path(call.func)
    if not path or path[-1] not in PATCHERS:
        return False
    if path[-1] in ("setattr", "delattr"):
        return True  # builtins, ``monkeypatch.setattr``, ``mp.setattr``
    return "patch" in path  # ``patch(...)``, ``mock.patch(...)``, ``patch.object(...)``, ``mocker.patch.multiple``


def _stored(target: ast.AST, kind: str, found: dict[Site, str]) -> None:
    for node in ast.walk(target):
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.setdefault(_span(node), kind)


def patch_sites(tree: ast.Module, lines: tuple[int, ...]) -> dict[Site, str]:
    """The patch sites of the statements holding ``lines`` (sorted) -> what makes each one
    (``"assigned"``, ``"a `setattr` target"``, ...)."""
    found: dict[Site, str] = {}
    for statement in statements(tree, lines):
        if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            for target in (statement.targets if isinstance(statement, ast.Assign) else [statement.target]):
                _stored(target, "assigned", found)
        elif isinstance(statement, ast.Delete):
            for target in statement.targets:
                _stored(target, "deleted", found)
        elif isinstance(statement, (ast.For, ast.AsyncFor)):
            _stored(statement.target, "a loop target", found)
            _loop_names(statement, found)
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            for item in statement.items:
                if item.optional_vars is not None:
                    _stored(item.optional_vars, "a `with` target", found)
        for decorator in getattr(statement, "decorator_list", ()):
            if isinstance(decorator, ast.Call) and (_callee_path(decorator.func) or [""])[-1].startswith("register"):
                for argument in (*decorator.args, *(k.value for k in decorator.keywords)):
                    found.setdefault(_span(argument), "a registry key")
        for node in _own_expressions(statement):
            if isinstance(node, ast.Call) and _is_patcher(node):
                _patcher_arguments(node, found)
    return found


def _patcher_arguments(call: ast.Call, found: dict[Site, str]) -> None:
    """``patch("a.b.name")``, ``monkeypatch.setattr("a.b.name", v)``: the dotted target;
    ``setattr(owner, "name", v)``, ``patch.object(owner, "name")``: the owner and the name."""
    what = ".".join(_callee_path(call.func))
    first = call.args[0] if call.args else None
    if first is None:
        return
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        found.setdefault(_span(first), f"a `{what}` target")
        return
    found.setdefault(_span(first), f"the owner in a `{what}` call")
    if len(call.args) > 1:
        found.setdefault(_span(call.args[1]), f"the name in a `{what}` call")


def _own_expressions(statement: ast.stmt):  # -> Iterator[ast.AST]
    """The expression nodes of ``statement`` itself, not of the statements nested in it
    (``statements`` visits those)."""
    stack: list[ast.AST] = []
    for field, value in ast.iter_fields(statement):
        if field in ("body", "orelse", "finalbody", "handlers", "cases"):
            continue
        if isinstance(value, ast.AST):
            stack.append(value)
        elif isinstance(value, list):
            stack.extend(v for v in value if isinstance(v, ast.AST))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _loop_names(loop: ast.For | ast.AsyncFor, found: dict[Site, str]) -> None:
    """``for name in ("a", "b"): setattr(obj, name, ...)``: the strings are patch targets."""
    if not isinstance(loop.target, ast.Name):
        return
    variable = loop.target.id
    for statement in loop.body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Call) and _is_patcher(node) and any(
                    isinstance(argument, ast.Name) and argument.id == variable for argument in node.args[:2]):
                what = ".".join(_callee_path(node.func))
                for element in ast.walk(loop.iter):
                    if isinstance(element, ast.Constant) and isinstance(element.value, str):
                        found.setdefault(_span(element), f"a name a loop passes to `{what}`")
                return


def site_at(found: dict[Site, str], line: int, column: int, end_line: int, end_column: int) -> str | None:
    """What makes the span a patch site: a stored name or attribute whose span ends where
    the finding's does, or an argument of a patcher or registry holding the finding."""
    for (first, col, last, end_col), kind in found.items():
        if not (first, col) <= (line, column) <= (last, end_col):
            continue
        if kind in ("assigned", "deleted", "a loop target", "a `with` target"):
            if (end_line, end_column) == (last, end_col):
                return kind
            continue
        return kind
    return None
