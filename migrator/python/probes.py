"""Strings that code *tests for*: a fix never rewrites them.

``importlib.import_module("...dflash_worker")`` inside a ``try`` that catches ImportError
(or in a truth test), ``importlib.util.find_spec(...)``, ``pkgutil`` look-ups, ``hasattr(x,
"...")``, ``getattr(x, "...", default)``, and a call of a function of the same module whose
body does one of those with its parameter (``_has_module("...")``) ask whether a name
exists. On every V2 release the V1 name does not: the test is false. Rewritten to the V2
name, it would turn true on every V2 release, the opposite of what the code decides on it
(a ``LEGACY_...`` flag set on V2). :func:`probe_literals` finds these literals; the engine's
release fit (``migrator.python.release_fit``) turns any fix inside one into a TODO that names the
probe and what it now means.
"""

from __future__ import annotations

import ast

from migrator.python.names import IMPORT_ERRORS, catches

IMPORTERS = frozenset({"import_module", "__import__"})
#: module look-ups that are tests wherever they stand (importlib.util, pkgutil)
LOOKUPS = frozenset({"find_spec", "find_loader", "get_loader", "iter_modules", "walk_packages"})


def _callee(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _probe_argument(node: ast.Call, tested: bool) -> ast.expr | None:
    """The argument that names what ``node`` tests for, when ``node`` is a probe."""
    name = _callee(node)
    if name in LOOKUPS or (name in IMPORTERS and tested):
        return node.args[0] if node.args else None
    if name == "hasattr" or (name == "getattr" and len(node.args) == 3):
        return node.args[1] if len(node.args) >= 2 else None
    return None


class _Finder(ast.NodeVisitor):
    def __init__(self) -> None:
        self.tested = 0  # inside a try catching ImportError, or a truth test
        self.literals: dict[tuple[int, int, int, int], str] = {}
        self.helpers: dict[str, str] = {}  # function name -> the probe its body makes with a parameter
        self.calls: list[tuple[ast.Call, str]] = []  # calls of functions, to match against helpers
        self.params: list[set[str]] = [set()]
        self.function: list[str] = []

    def _tested(self, nodes: list) -> None:
        self.tested += 1
        for node in nodes:
            self.visit(node)
        self.tested -= 1

    def visit_Try(self, node: ast.Try) -> None:
        if any(catches(handler, IMPORT_ERRORS) for handler in node.handlers):
            self._tested(node.body)
        else:
            for statement in node.body:
                self.visit(statement)
        for rest in (*node.handlers, *node.orelse, *node.finalbody):
            self.visit(rest)

    def visit_If(self, node: ast.If) -> None:
        self._tested([node.test])
        for statement in (*node.body, *node.orelse):
            self.visit(statement)

    visit_While = visit_If

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self._tested([node.test])
        self.visit(node.body)
        self.visit(node.orelse)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        self._tested(node.values)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Not):
            self._tested([node.operand])
        else:
            self.visit(node.operand)

    def visit_Compare(self, node: ast.Compare) -> None:
        self._tested([node.left, *node.comparators])

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        args = node.args
        self.params.append({a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)})
        self.function.append(node.name)
        saved, self.tested = self.tested, 0
        for statement in node.body:
            self.visit(statement)
        self.tested = saved
        self.function.pop()
        self.params.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Call(self, node: ast.Call) -> None:
        argument = _probe_argument(node, bool(self.tested))
        name = _callee(node)
        if argument is not None:
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                self._literal(argument, f"`{name}(...)`")
            elif isinstance(argument, ast.Name) and argument.id in self.params[-1] and self.function:
                self.helpers[self.function[-1]] = name
        elif name == "bool" and node.args:
            self._tested(node.args)
            return
        self.calls.append((node, name))
        self.generic_visit(node)

    def _literal(self, node: ast.Constant, probe: str) -> None:
        key = (node.lineno, node.col_offset, node.end_lineno or node.lineno, node.end_col_offset or node.col_offset)
        self.literals.setdefault(key, probe)


def probe_literals(tree: ast.Module) -> dict[tuple[int, int, int, int], str]:
    """(line, column, end line, end column) of each string literal a probe tests for, and
    the probe (``"`find_spec(...)`"``, ``"`_has_module(...)`, which calls `import_module`"``)."""
    finder = _Finder()
    finder.visit(tree)
    for call, name in finder.calls:
        probe = finder.helpers.get(name)
        if probe is None:
            continue
        for argument in call.args[:1]:
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                finder._literal(argument, f"`{name}(...)` (it calls `{probe}`)")
    return finder.literals


def probe_at(literals: dict[tuple[int, int, int, int], str], line: int, column: int) -> str | None:
    """The probe whose literal holds the position, if any."""
    for (first, col, last, end_col), probe in literals.items():
        if (first, col) <= (line, column) <= (last, end_col):
            return probe
    return None
