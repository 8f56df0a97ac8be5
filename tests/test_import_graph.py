"""No import cycle inside ``migrator/``, the layers as import-linter's contract, and no module
hides an import of the project's own code behind ``except ImportError``.

The layers are a ``layers`` contract of import-linter in ``pyproject.toml``
(``[tool.importlinter]``); :func:`test_layers_import_only_layers_below` runs ``lint-imports``.
import-linter checks no circle inside one layer, so the circle tests below stay.

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
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "import_graph.py"
_spec = importlib.util.spec_from_file_location("import_graph", SCRIPT)
assert _spec is not None and _spec.loader is not None
import_graph = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = import_graph
_spec.loader.exec_module(import_graph)

modules = import_graph.modules
dependencies = import_graph.dependencies
graph = import_graph.graph
cycles = import_graph.cycles

#: The layers contract of ``pyproject.toml``.
CONTRACT = next(contract for contract in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
                if contract["id"] == "layers")
#: The layers of ``migrator/``, top down (README's layout lists them in this order): a folder
#: imports only folders below it.
LAYERS: tuple[str, ...] = tuple(CONTRACT["layers"])


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the ``migrator`` package and ``pyproject.toml`` under ``root``."""
    linter = shutil.which("lint-imports")
    if linter is None:
        pytest.skip("import-linter is not installed (it is in the test extra: pip install -e '.[test]')")
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([linter, "--config", str(root / "pyproject.toml"), "--no-cache"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_graph_reader_sees_a_cycle() -> None:
    """The checker itself: a two-module loop and a loop through a function-level import."""
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    known = modules()
    assert "migrator.base.options" in known and "migrator.run.pipeline" in known
    pipeline = dependencies("migrator.run.pipeline", known["migrator.run.pipeline"], known)
    assert "migrator.base.options" in pipeline  # a top-level import
    assert "migrator.python.analysis" in pipeline  # imported inside a function
    report = dependencies("migrator.report", known["migrator.report"], known)
    assert "migrator.report.sarif" in report  # import_module(f"migrator.report.{...}")


def test_no_import_cycle_inside_migrator() -> None:
    edges = graph()
    found = cycles(edges)
    assert found == [], "import cycles: " + "; ".join(
        " <-> ".join(component) + " (" + ", ".join(f"{a} -> {b}" for a in component for b in sorted(edges[a]) if b in component) + ")"
        for component in found)


def test_no_circle_even_through_annotations() -> None:
    """Imports under ``if TYPE_CHECKING:`` run never, but a circle they close is still two
    modules that mean nothing without each other (the last, ``analysis <-> forkindex``, was cut
    by moving the module summary to ``migrator.python.summary``)."""
    found = cycles(graph(annotations=True))
    assert found == [], found


def test_every_folder_is_a_layer() -> None:
    """Nothing lies flat in ``migrator/`` but the package's face and its entry point, and every
    folder has its place in :data:`LAYERS`."""
    package = import_graph.PACKAGE
    assert {p.name for p in package.glob("*.py")} == {"__init__.py", "__main__.py"}
    assert {p.name for p in package.iterdir() if (p / "__init__.py").is_file()} == set(LAYERS)


def test_layers_import_only_layers_below() -> None:
    """import-linter's layers contract holds on ``migrator/`` (every folder a layer: ``exhaustive``)."""
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 kept, 0 broken" in result.stdout


@pytest.mark.parametrize("where", ["top", "function", "type_checking"])
def test_the_contract_breaks_on_an_upward_import(tmp_path: Path, where: str) -> None:
    """The contract itself: a copy of ``migrator/`` where a ``base`` module imports the ``run``
    layer breaks it, at the top of the module, inside a function (a lazy import is an import
    all the same) or under ``if TYPE_CHECKING:``."""
    shutil.copytree(ROOT / "migrator", tmp_path / "migrator", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    statement = {"top": "import migrator.run.engine\n",
                 "function": "def _later():\n    import migrator.run.engine\n",
                 "type_checking": "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    import migrator.run.engine\n"}[where]
    lines = tmp_path / "migrator" / "base" / "lines.py"
    lines.write_text(lines.read_text() + "\n\n" + statement)
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "migrator.base.lines -> migrator.run.engine" in result.stdout


def test_the_layer_view_sees_a_package_circle() -> None:
    """The checker itself: two modules of two sub-packages that import each other make one
    circle of two rooms, and an import inside one room none."""
    edges = {"migrator.python.rules.a": {"migrator.text.b"}, "migrator.text.b": {"migrator.python.rules.c"},
             "migrator.python.rules.c": set(), "migrator.base.model": {"migrator.base.fileio"}, "migrator.base.fileio": set()}
    assert cycles(import_graph.rooms(edges)) == [["migrator.python/", "migrator.text/"]]
    assert import_graph.arrows_inside_circles({"a": {"b"}, "b": {"a", "c"}, "c": set()}) == [("a", "b"), ("b", "a")]
    assert import_graph.floors({"a": {"b"}, "b": {"a", "c"}, "c": set()}) == {"a": 2, "b": 2, "c": 1}


def test_options_is_a_leaf() -> None:
    """``Options`` goes to every worker chunk: it stands on the record decorator and the glob
    compiler (``base.ignore``, which imports pathspec alone) only, its annotations included
    (the run's state, ``ForkIndex`` and ``Uncommitted``, left it)."""
    assert graph(annotations=True)["migrator.base.options"] <= {"migrator.base.records", "migrator.base.ignore"}
    assert graph(annotations=True)["migrator.base.records"] == set()
    assert graph(annotations=True)["migrator.base.ignore"] == set()


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


def test_a_file_walks_down_once() -> None:
    """One file's bytes go down and never back into a module they left but through the pool:
    the dispatcher (``run.pipeline``) hands a Python file to ``run.python_file`` and a text
    file to its handler, which gets ``python_file``'s analyser for embedded Python (the
    handlers called back into the dispatcher before); the write guard asks ``migrator.edit``
    itself (it called back into the pipeline)."""
    edges = graph(annotations=True)
    assert "migrator.run.pipeline" in edges["migrator.run.engine"]
    assert "migrator.run.python_file" in edges["migrator.run.pipeline"]
    assert "migrator.run.pipeline" not in edges["migrator.run.python_file"]
    assert not any(target.startswith("migrator.run") for source, targets in edges.items()
                   if source.startswith(("migrator.text", "migrator.python", "migrator.edit")) for target in targets)
    assert "migrator.edit" in edges["migrator.python.guard"]


def test_the_text_rules_never_see_the_options() -> None:
    """A text rule gets a context the run builds (``migrator.text._core.Ctx``: target, enabled
    codes, fixes, the Python analyser), never ``Options`` (it read them through ``getattr``
    on an ``object``)."""
    edges = graph(annotations=True)
    assert [source for source, targets in edges.items()
            if source.startswith("migrator.text") and "migrator.base.options" in targets] == []
