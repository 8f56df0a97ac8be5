"""No import cycle inside ``migrator/``, and no module hides an import of the project's own
code behind ``except ImportError``.

The graph is read with ``ast`` by ``scripts/import_graph.py`` (which prints it: floors,
circles, the arrows inside them): every ``import`` statement of every module, at any depth
(an import inside a function is a dependency all the same: it only runs later), but not
those under ``if TYPE_CHECKING:`` (annotations only, never run) unless asked. An edge goes
to the module whose names are used: ``from migrator.a import b`` is an edge to
``migrator.a.b`` where that is a module, else to the package ``migrator.a``. A lazy import
by a computed name, ``import_module(f"migrator.report.{fmt}")``, is an edge to every
module that name can spell (every module under ``migrator.report``).
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "import_graph.py"
_spec = importlib.util.spec_from_file_location("import_graph", SCRIPT)
assert _spec is not None and _spec.loader is not None
import_graph = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = import_graph
_spec.loader.exec_module(import_graph)

modules = import_graph.modules
dependencies = import_graph.dependencies
graph = import_graph.graph
cycles = import_graph.cycles

#: The circles that only annotation imports (``if TYPE_CHECKING:``) close, as of 9c817bf:
#: ``analysis`` names ``ForkView`` in a signature, ``forkindex`` summarizes an ``Analysis``.
#: Issue 29's layout takes it apart; until then it may not grow.
KNOWN_ANNOTATION_CIRCLES = [["migrator.analysis", "migrator.forkindex"]]
#: The circles between layers (each sub-package one room), run-time imports only, as of
#: 9c817bf: ``rules.reflection_names`` borrows ``textrules.mentions.module_path_offsets``
#: and ``textrules.emitted_codes`` reads ``rules.RULES``.
KNOWN_LAYER_CIRCLES = [["migrator.rules/", "migrator.textrules/"]]


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


def test_the_annotation_circles_do_not_grow() -> None:
    """Imports under ``if TYPE_CHECKING:`` run never, but a circle they close is still two
    modules that mean nothing without each other (reported, and held at today's count)."""
    found = cycles(graph(annotations=True))
    print(f"annotation-only circles: {len(found)}: {found}")
    assert all(circle in KNOWN_ANNOTATION_CIRCLES for circle in found), found


def test_the_layer_circles_do_not_grow() -> None:
    """With each sub-package drawn as one room (the layers), no new pair of layers may come
    to use each other."""
    found = cycles(import_graph.rooms(graph()))
    print(f"layer circles: {len(found)}: {found}")
    assert all(circle in KNOWN_LAYER_CIRCLES for circle in found), found


def test_the_layer_view_sees_a_package_circle() -> None:
    """The checker itself: two modules of two sub-packages that import each other make one
    circle of two rooms, and an import inside one room none."""
    edges = {"migrator.rules.a": {"migrator.textrules.b"}, "migrator.textrules.b": {"migrator.rules.c"},
             "migrator.rules.c": set(), "migrator.model": {"migrator.fileio"}, "migrator.fileio": set()}
    assert cycles(import_graph.rooms(edges)) == [["migrator.rules/", "migrator.textrules/"]]
    assert import_graph.arrows_inside_circles({"a": {"b"}, "b": {"a", "c"}, "c": set()}) == [("a", "b"), ("b", "a")]
    assert import_graph.floors({"a": {"b"}, "b": {"a", "c"}, "c": set()}) == {"a": 2, "b": 2, "c": 1}


def test_options_is_a_leaf() -> None:
    """``Options`` goes to every worker chunk: it stands on the record decorator alone, its
    annotations included (the run's state, ``ForkIndex`` and ``Uncommitted``, left it)."""
    assert graph(annotations=True)["migrator.options"] <= {"migrator.records"}
    assert graph(annotations=True)["migrator.records"] == set()


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
