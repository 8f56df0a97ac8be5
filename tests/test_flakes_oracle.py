"""pyflakes as the oracle of the fixes on the example fork and on sglang 0.5.13's tree (issue
14 item 7 and its done-when): every file the tool changes, default mode and --unsafe-fixes,
gains no undefined name and no unused import; no is_spec_v2/supports_spec_v2 site becomes a
constant (no True/False literal is added, checked on the AST); no add_argument flag is
registered twice (in every changed file: server_args.py on the tree)."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from flakes import new_flakes

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "legacy_fork"


def migrated_files(source: Path, work: Path, *extra: str) -> list[tuple[str, str, str]]:
    """(relative path, before, after) of every Python file the fix changed in a copy of ``source``."""
    shutil.copytree(source, work)
    subprocess.run([sys.executable, "-m", "migrator", "fix", str(work), "--allow-dirty", *extra],
                   capture_output=True, text=True, check=False)
    changed = []
    for path in sorted(work.rglob("*.py")):
        before = (source / path.relative_to(work)).read_text(encoding="utf-8", errors="replace")
        after = path.read_text(encoding="utf-8", errors="replace")
        if before != after:
            changed.append((path.relative_to(work).as_posix(), before, after))
    return changed


def _boolean_constants(source: str) -> int:
    """True/False literals of a module, except the value of ``disable_overlap_schedule=``
    (what the env-var fix writes on purpose)."""
    tree = ast.parse(source)
    allowed = {id(k.value) for k in ast.walk(tree) if isinstance(k, ast.keyword) and k.arg == "disable_overlap_schedule"}
    return sum(1 for node in ast.walk(tree)
               if isinstance(node, ast.Constant) and isinstance(node.value, bool) and id(node) not in allowed)


def _registered_flags(source: str) -> Counter:
    """How often each ``--flag`` string is passed to an ``add_argument(...)`` call."""
    flags: Counter = Counter()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
            flags.update(a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                         and a.value.startswith("--"))
    return flags


def assert_oracle_holds(changed: list[tuple[str, str, str]]) -> None:
    """No new undefined name or unused import (pyflakes); no site of is_spec_v2 /
    supports_spec_v2 (or anything else) turned into a True/False constant; no flag
    registered twice where it was registered once."""
    assert changed, "the fix changed nothing: the oracle checked nothing"
    problems = {name: new_flakes(before, after, name) for name, before, after in changed}
    assert {name: found for name, found in problems.items() if found} == {}
    for name, before, after in changed:
        for line in after.splitlines():
            assert not re.search(r"\b(if|and|or|return) True\b|= True and\b", line) or line in before, (name, line)
        assert _boolean_constants(after) <= _boolean_constants(before), f"{name}: the fix wrote a True/False constant"
        twice = {flag for flag, n in _registered_flags(after).items() if n > max(1, _registered_flags(before)[flag])}
        assert not twice, f"{name}: registered twice: {sorted(twice)}"


@pytest.mark.parametrize("extra", [(), ("--unsafe-fixes",)], ids=["default", "unsafe"])
def test_example_fork_fixes_pass_pyflakes(tmp_path: Path, extra: tuple[str, ...]) -> None:
    assert_oracle_holds(migrated_files(EXAMPLE, tmp_path / "fork", "--target-version", "0.5.17", *extra))


@pytest.mark.slow
@pytest.mark.parametrize("extra", [(), ("--unsafe-fixes",)], ids=["default", "unsafe"])
def test_sglang_0_5_13_tree_fixes_pass_pyflakes(tmp_path: Path, extra: tuple[str, ...]) -> None:
    """sglang's own tree migrated to 0.5.14: pyflakes-clean, and server_args.py registers no flag twice."""
    from migrator.releases import wheels

    tree = wheels.unpacked_wheel("0.5.13") / "sglang"
    changed = migrated_files(tree, tmp_path / "sglang", "--target-version", "0.5.14", *extra)
    assert_oracle_holds(changed)
    server_args = (tmp_path / "sglang" / "srt" / "server_args.py").read_text()
    flags = re.findall(r'add_argument\(\s*"(--[\w-]+)"', server_args)
    assert len(flags) == len(set(flags)), "a flag is registered twice"
