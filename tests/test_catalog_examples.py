"""Every catalog example runs (Fixit's VALID/INVALID idea, from the catalog's own examples).

For each entry, its ``before`` is written to a folder (one file, or the several files of a
``# file: NAME`` example) and run through the engine's library API, the path the CLI takes
(``engine.run`` on the folder): the entry's own code must fire, and its fix, in the safety
mode the entry declares, must give exactly ``after`` (safe: the default fix; unsafe:
``--unsafe-fixes``, while the default leaves the TODO; manual: the TODO comment naming the
code appears, and report-only text entries leave the file as it is). ``after`` must not
trigger the entry's code, and Python examples must be complete: they compile and use no
undefined name.
"""

from __future__ import annotations

import ast
import tempfile
from functools import cache
from pathlib import Path

import pytest

from migrator import catalog
from migrator.run.engine import Options, run
from tests.flakes import flakes

TARGET = catalog.NEWEST_RELEASE
ENTRIES = [entry for entry in catalog.ENTRIES if entry.before]


def write(root: Path, entry: catalog.Entry, text: str) -> dict[str, Path]:
    paths = {}
    for name, content in catalog.example_files(entry, text):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
        paths[name] = path
    return paths


def lint_codes(root: Path) -> set[str]:
    result = run([root], Options(mode="lint", target_version=TARGET, jobs=1))
    assert [r.error for r in result.results if r.error] == []
    return {finding.code for r in result.results for finding in r.findings}


def fixed(root: Path, entry: catalog.Entry, *, unsafe: bool) -> dict[str, str]:
    paths = write(root, entry, entry.before)
    result = run([root], Options(mode="fix", target_version=TARGET, unsafe_fixes=unsafe, jobs=1, allow_dirty=True))
    assert [r.error for r in result.results if r.error] == []
    return {name: path.read_text() for name, path in paths.items()}


def expected(entry: catalog.Entry, text: str) -> dict[str, str]:
    return dict(catalog.example_files(entry, text))


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.code)
def test_before_fires_its_own_rule(entry: catalog.Entry, tmp_path: Path) -> None:
    write(tmp_path, entry, entry.before)
    assert entry.code in lint_codes(tmp_path)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.code)
def test_fix_gives_after(entry: catalog.Entry, tmp_path: Path) -> None:
    todo = f"{catalog.TODO_MARKER} {entry.code}"
    if entry.still_resolves_on((TARGET,)):  # informational there: the old spelling works, nothing to fix
        assert fixed(tmp_path, entry, unsafe=True) == expected(entry, entry.before)
    elif entry.fix == "safe":
        assert fixed(tmp_path, entry, unsafe=False) == expected(entry, entry.after)
    elif entry.fix == "unsafe":
        assert fixed(tmp_path / "unsafe", entry, unsafe=True) == expected(entry, entry.after)
        assert todo in "".join(fixed(tmp_path / "default", entry, unsafe=False).values())
    elif entry.kind == catalog.TEXT_KIND or entry.code == catalog.VENDORED_CODE:
        # report-only: the text is left for a human; a vendored sglang is upgraded by merging upstream
        assert fixed(tmp_path, entry, unsafe=True) == expected(entry, entry.before)
    else:
        assert todo in "".join(fixed(tmp_path, entry, unsafe=True).values())


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.code)
def test_after_does_not_fire_its_rule(entry: catalog.Entry, tmp_path: Path) -> None:
    write(tmp_path, entry, entry.after)
    assert entry.code not in lint_codes(tmp_path)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.code)
def test_python_examples_are_complete(entry: catalog.Entry) -> None:
    for text in (entry.before, entry.after):
        for name, content in catalog.example_files(entry, text):
            if name.endswith(".py"):
                ast.parse(content, filename=name)
                undefined = {key for key in flakes(content, name) if key[0] in ("UndefinedName", "UndefinedExport")}
                assert undefined == set(), f"{entry.code} {name}"


@cache
def example_tree() -> Path:
    """A folder holding every entry's ``before`` (one sub-folder per entry), for tests that
    want the examples as a corpus."""
    root = Path(tempfile.mkdtemp(prefix="dflash-examples-"))
    for entry in ENTRIES:
        write(root / entry.code.lower(), entry, entry.before)
    return root


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.code)
def test_after_examples_are_code_not_return_none_stubs(entry: catalog.Entry) -> None:
    """An After that only returns None shows no V2 code (issue 48: DFM104, DFM109 were such)."""
    for name, content in catalog.example_files(entry, entry.after):
        if name.endswith(".py"):
            stubs = [node.name for node in ast.walk(ast.parse(content))
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and isinstance(node.body[-1], ast.Return)
                     and (node.body[-1].value is None
                          or (isinstance(node.body[-1].value, ast.Constant) and node.body[-1].value.value is None))]
            assert stubs == [], f"{entry.code} {name}: {stubs} end in `return None`"
