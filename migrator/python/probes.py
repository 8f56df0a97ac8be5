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

from migrator.base.patterns import on_first_use
from migrator.python.fallbacks import statements
from migrator.python.names import IMPORT_ERRORS, catches, parameter_names

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
        self.params.append(set(parameter_names(node.args)))
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


#: a string that names the API generation a probe reports (``"V1 worker present"``) ...
_GENERATION = on_first_use(r"(?<![A-Za-z0-9])[Vv][12](?![0-9])|legacy|LEGACY|Legacy")
#: ... and a flag that holds it (``IS_V1``, ``use_v2``, ``LEGACY_WORKER``)
_GENERATION_FLAG = on_first_use(r"(?i)(?:^|_)(?:v1|v2|legacy)(?:_|$)")


def reporting_tries(tree: ast.Module, lines: tuple[int, ...]) -> dict[tuple[int, int], str]:
    """The ``try: import <sglang ...> / except ImportError:`` statements holding ``lines``
    (sorted) whose outcome the code uses as a fact about the API generation -> how, keyed
    by the line range of the ``try`` body. Such a ``try`` asks whether the V1 name exists:
    on every V2 release the import fails and the handler runs; rewritten to the V2 name it
    succeeds there, and what the code reports or selects is inverted. It is a fact when the
    body or a handler names a generation: a string naming V1, V2 or legacy (a log line, a
    returned or assigned answer), or a flag so named (``IS_V1 = True``). A ``try`` whose
    outcome means "DFLASH is available" (``HAS_DFLASH = True``) is a fallback the migration
    is meant to fix (``migrator.python.fallbacks``), not such a probe."""
    found: dict[tuple[int, int], str] = {}
    for node in statements(tree, lines):
        if not isinstance(node, ast.Try) or not any(catches(h, IMPORT_ERRORS) for h in node.handlers):
            continue
        imports = [s for s in node.body if isinstance(s, (ast.Import, ast.ImportFrom)) and _from_sglang(s)]
        if not imports:
            continue
        how = _names_generation([s for s in node.body if s not in imports]) or next(
            (how for handler in node.handlers if (how := _names_generation(handler.body))), None)
        if how:
            found[(node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno)] = how
    return found


def _from_sglang(statement: ast.Import | ast.ImportFrom) -> bool:
    if isinstance(statement, ast.Import):
        return any(alias.name.split(".")[0] == "sglang" for alias in statement.names)
    return not statement.level and (statement.module or "").split(".")[0] == "sglang"


def _names_generation(body: list[ast.stmt]) -> str | None:
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Constant):
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", "")
                    if _GENERATION_FLAG().search(name):
                        return f"sets `{name}` from its outcome"
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _GENERATION().search(node.value):
                return f"reports its outcome as {node.value!r}"
    return None
