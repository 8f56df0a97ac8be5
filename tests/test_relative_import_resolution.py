"""Issue 29 step 7: one resolver of relative imports, answering as Python does.

At c1cdd20 four functions resolved ``from <dots>x import y``, with different answers for
too many dots: the analysis and the fork index cut a list with an index that went negative
and wrapped, so ``from ......srt.speculative.dflash_worker import DFlashWorker`` inside
``sglang.srt.speculative.patch`` (six dots, three levels of package) became sglang's V1
module, found and rewritten on a line that cannot run. ``migrator.base.imports.resolve_relative``
is now the one answer, checked against Python's own (``importlib.util.resolve_name``), and
each former caller is checked through its own entry point. The second-copy check lives in
``tests/test_one_home.py``.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from migrator.base.imports import resolve_relative
from migrator.python.analysis import analyze
from migrator.python.forkindex import v1_imports
from migrator.python.guard import imported_names, parsed
from migrator.releases.index import Import, SglangIndex

V1 = "sglang.srt.speculative.dflash_worker"
MODULE = "sglang.srt.speculative.patch"
#: (module written in, is it a package's __init__, the import, what Python resolves: None = ImportError)
CASES = [
    (MODULE, False, "from .dflash_worker import DFlashWorker", V1),
    (MODULE, False, "from ...srt.speculative.dflash_worker import DFlashWorker", V1),
    (MODULE, False, "from ....sglang.srt.speculative.dflash_worker import DFlashWorker", None),
    (MODULE, False, "from .....srt.speculative.dflash_worker import DFlashWorker", None),
    (MODULE, False, "from ......srt.speculative.dflash_worker import DFlashWorker", None),
    ("sglang", True, "from .srt.speculative.dflash_worker import DFlashWorker", V1),
    ("sglang", True, "from ..sglang.srt.speculative.dflash_worker import DFlashWorker", None),
]
IDS = [f"{'pkg' if package else 'mod'}:{statement.split()[1]}" for _, package, statement, _ in CASES]


def _python(module: str | None, level: int, current: str | None, is_package: bool) -> str | None:
    package = current if is_package else (current or "").rpartition(".")[0]
    try:
        return importlib.util.resolve_name("." * level + (module or ""), package)
    except ImportError:
        return None


@pytest.mark.parametrize("current", ["a.b.c.mod", "a.b.c", "pkg", "pkg.mod", "mod", None])
@pytest.mark.parametrize("is_package", [False, True])
def test_the_resolver_answers_as_python(current: str | None, is_package: bool) -> None:
    for level in range(7):
        for module in ([None, "x", "x.y"] if level else ["x", "x.y"]):
            assert resolve_relative(module, level, current, is_package) == _python(module, level, current, is_package), (
                module, level, current, is_package)


def _tree(root: Path, current: str, is_package: bool, statement: str) -> Path:
    """A small sglang package holding ``statement`` in the module ``current``."""
    for package in ("sglang", "sglang/srt", "sglang/srt/speculative"):
        (root / package).mkdir(parents=True, exist_ok=True)
        (root / package / "__init__.py").write_text("", encoding="utf-8")
    path = root / (current.replace(".", "/") + ("/__init__.py" if is_package else ".py"))
    path.write_text(statement + "\n", encoding="utf-8")
    return path


def _qualname(expected: str | None) -> str | None:
    return f"{expected}.DFlashWorker" if expected else None


@pytest.mark.parametrize("current, is_package, statement, expected", CASES, ids=IDS)
def test_the_analysis_resolves_as_python(tmp_path: Path, current: str, is_package: bool, statement: str,
                                         expected: str | None) -> None:
    analysis = analyze(ast.parse(statement), statement, _tree(tmp_path, current, is_package, statement), module_name=current)
    assert analysis.module_scope.names["DFlashWorker"].qualname == _qualname(expected)
    assert [info.module for info in analysis.import_froms] == ([expected] if expected else [])


@pytest.mark.parametrize("current, is_package, statement, expected", CASES, ids=IDS)
def test_the_fork_index_resolves_as_python(current: str, is_package: bool, statement: str, expected: str | None) -> None:
    guarded = ast.parse(f"try:\n    {statement}\nexcept ImportError:\n    DFlashWorker = None\n").body[0]
    assert isinstance(guarded, ast.Try)
    assert [name for _, name in v1_imports(guarded, current, is_package)] == ([_qualname(expected)] if expected else [])


@pytest.mark.parametrize("current, is_package, statement, expected", CASES, ids=IDS)
def test_the_write_guard_resolves_as_python(current: str, is_package: bool, statement: str, expected: str | None) -> None:
    names = imported_names(parsed(statement), current, is_package)
    assert [name for name in names if name.endswith("DFlashWorker")] == ([_qualname(expected)] if expected else [])


@pytest.mark.parametrize("current, is_package, statement, expected", CASES, ids=IDS)
def test_verify_resolves_as_python(tmp_path: Path, current: str, is_package: bool, statement: str,
                                   expected: str | None) -> None:
    _tree(tmp_path, current, is_package, statement)
    info = SglangIndex.from_tree(tmp_path).module(current)
    assert info is not None
    symbol = info.symbols.get("DFlashWorker")
    assert (symbol.target if isinstance(symbol, Import) else None) == _qualname(expected)
