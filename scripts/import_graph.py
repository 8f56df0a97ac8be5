"""The import graph of ``migrator/``, read with ``ast``: its floors, its circles and the
arrows inside them. ``python scripts/import_graph.py [--annotations] [--rooms]``.

An arrow A -> B: module A imports B, at any depth (an import inside a function is a
dependency all the same: it only runs later). ``from migrator.a import b`` is an arrow to
``migrator.a.b`` where that is a module, else to the package ``migrator.a``; a lazy import
by a computed name, ``import_module(f"migrator.report.{fmt}")``, is an arrow to every
module that name can spell. Imports under ``if TYPE_CHECKING:`` (annotations only, never
run) are left out unless ``--annotations`` is given: they do not run, but they still say
that one module's meaning depends on another's.

``--rooms`` draws each sub-package of ``migrator`` (``commands``, ``report``, ``rules``,
``textrules``, ``verify``) as one room: the layer view, where a circle is two layers
that use each other.

A circle is a strongly connected component of more than one node; the floors are those of
the graph with each circle drawn as one node (floor 1: imports nothing of the project;
every other node stands one floor above the highest node it imports). An arrow inside a
circle is one that runs back up: to take the circle apart, one of them must go.

``tests/test_import_graph.py`` reads the graph with this module.
"""

from __future__ import annotations

import argparse
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


def _imports(tree: ast.AST, annotations: bool = False) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if not annotations and isinstance(node, ast.If) and _is_type_checking(node.test):
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


def dependencies(name: str, path: Path, known: dict[str, Path], annotations: bool = False) -> set[str]:
    """The project modules ``name`` imports (and the packages those imports run)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in _imports(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)), annotations):
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


def graph(annotations: bool = False) -> dict[str, set[str]]:
    known = modules()
    return {name: dependencies(name, path, known, annotations) for name, path in known.items()}


def room_of(module: str) -> str:
    """``migrator.python.rules.imports`` -> ``migrator.python/``; a top-level module is its own room,
    and so is an entry point (``migrator.__main__`` runs the command line)."""
    parts = module.split(".")
    if parts[-1] == "__main__":
        return module
    is_folder = len(parts) > 2 or (len(parts) == 2 and (PACKAGE / parts[1]).is_dir())
    return ".".join(parts[:2]) + "/" if is_folder else module


def rooms(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph with each sub-package drawn as one room (arrows inside a room dropped)."""
    joined: dict[str, set[str]] = {}
    for source, targets in edges.items():
        room = room_of(source)
        joined.setdefault(room, set()).update(room_of(t) for t in targets)
    for room, targets in joined.items():
        targets.discard(room)
    return joined


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan's algorithm)."""
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


def arrows_inside_circles(edges: dict[str, set[str]]) -> list[tuple[str, str]]:
    """The arrows that run back up: both ends in one circle."""
    circle_of = {member: i for i, circle in enumerate(cycles(edges)) for member in circle}
    return sorted((a, b) for a, targets in edges.items() for b in targets
                  if a in circle_of and circle_of.get(b) == circle_of[a])


def floors(edges: dict[str, set[str]]) -> dict[str, int]:
    """Each node's floor, a circle's members sharing one (see the module docstring)."""
    circle_of = {member: tuple(circle) for circle in cycles(edges) for member in circle}
    node_of = {name: circle_of.get(name, (name,)) for name in edges}
    below: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    for source, targets in edges.items():
        below.setdefault(node_of[source], set()).update(node_of[t] for t in targets if node_of[t] != node_of[source])
    floor: dict[tuple[str, ...], int] = {}

    def floor_of(node: tuple[str, ...]) -> int:
        if node not in floor:
            floor[node] = 1 + max((floor_of(t) for t in below.get(node, ())), default=0)
        return floor[node]

    return {name: floor_of(node_of[name]) for name in edges}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--annotations", action="store_true", help="count imports under `if TYPE_CHECKING:` too")
    parser.add_argument("--rooms", action="store_true", help="draw each sub-package of migrator as one room")
    args = parser.parse_args(argv)
    edges = graph(args.annotations)
    if args.rooms:
        edges = rooms(edges)
    lines = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in modules().items()}
    size = {node: sum(n for name, n in lines.items() if (room_of(name) if args.rooms else name) == node) for node in edges}
    found = cycles(edges)
    back = arrows_inside_circles(edges)
    level = floors(edges)
    print(f"{len(edges)} {'rooms' if args.rooms else 'modules'}, {sum(map(len, edges.values()))} arrows, "
          f"{max(level.values())} floors, {len(found)} circles, {len(back)} arrows inside circles "
          f"({'with' if args.annotations else 'without'} annotation-only imports)")
    for circle in found:
        print("circle: " + " <-> ".join(circle))
    for source, target in back:
        print(f"  back: {source} -> {target}")
    for number in sorted(set(level.values()), reverse=True):
        names = sorted(node for node, at in level.items() if at == number)
        print(f"floor {number:2}: " + ", ".join(f"{name} {size[name]}" for name in names))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
