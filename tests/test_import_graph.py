"""No import cycle inside ``migrator/``, and no module hides an import of the project's own
code behind ``except ImportError``.

The graph is read with ``ast`` from every ``import`` statement of every module, at any
depth (an import inside a function is a dependency all the same: it only runs later), but
not those under ``if TYPE_CHECKING:`` (annotations only, never run). An edge goes to the
module whose names are used: ``from migrator.a import b`` is an edge to ``migrator.a.b``
where that is a module, else to the package ``migrator.a``. A lazy import by a computed
name, ``import_module(f"migrator.report.{fmt}")``, is an edge to every module that name
can spell (every module under ``migrator.report``).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "migrator"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        prefix = _computed_import_prefix(node)
        if prefix is not None:
            found.append(ast.Import(names=[ast.alias(name=prefix + "*")], lineno=node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _computed_import_prefix(node: ast.AST) -> str | None:
    """``"migrator.report."`` for ``import_module(f"migrator.report.{fmt}")``, else None."""
    if not (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None))
            in ("import_module", "__import__") and node.args and isinstance(node.args[0], ast.JoinedStr)):
        return None
    head = node.args[0].values[0] if node.args[0].values else None
    if isinstance(head, ast.Constant) and isinstance(head.value, str) and head.value.startswith("migrator."):
        return head.value
    return None


def dependencies(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules ``name`` imports (and the packages those imports run)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in _imports(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import) and node.names[0].name.endswith("*"):
            prefix = node.names[0].name[:-1]
            names = [module for module in known if module.startswith(prefix)]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            if node.level:
                base_parts = package.split(".")
                base = ".".join(base_parts[: len(base_parts) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            submodules = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in known]
            names = submodules + ([base] if len(submodules) < len(node.names) else [])
        targets |= {imported for imported in names if imported in known}
    targets.discard(name)
    return targets


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: dependencies(name, path, known) for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            connect(node)
    return found


def test_the_graph_reader_sees_a_cycle() -> None:
    """The checker itself: a two-module loop and a loop through a function-level import."""
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    known = modules()
    assert "migrator.options" in known and "migrator.engine" in known
    engine = dependencies("migrator.engine", known["migrator.engine"], known)
    assert "migrator.options" in engine  # a top-level import
    assert "migrator.analysis" in engine  # imported inside a function
    report = dependencies("migrator.report", known["migrator.report"], known)
    assert "migrator.report.sarif" in report  # import_module(f"migrator.report.{...}")


def test_no_import_cycle_inside_migrator() -> None:
    edges = graph()
    found = cycles(edges)
    assert found == [], "import cycles: " + "; ".join(
        " <-> ".join(component) + " (" + ", ".join(f"{a} -> {b}" for a in component for b in sorted(edges[a]) if b in component) + ")"
        for component in found)


def test_options_is_a_leaf() -> None:
    assert graph()["migrator.options"] == set()


def test_no_except_import_error_around_project_modules() -> None:
    offenders = []
    for name, path in modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Try):
                continue
            caught = {getattr(h.type, "id", None) for h in node.handlers} | {
                getattr(e, "id", None) for h in node.handlers if isinstance(h.type, ast.Tuple) for e in h.type.elts}
            if not caught & {"ImportError", "ModuleNotFoundError"}:
                continue
            inner = [n for stmt in node.body for n in ast.walk(stmt) if isinstance(n, (ast.Import, ast.ImportFrom))]
            for imp in inner:
                target = imp.module if isinstance(imp, ast.ImportFrom) else imp.names[0].name
                if (isinstance(imp, ast.ImportFrom) and imp.level) or (target or "").split(".")[0] == "migrator":
                    offenders.append(f"{name}:{imp.lineno}")
    assert offenders == []
