"""pyflakes as the oracle of the fixes on the example fork (issue 14 item 7): every file the
tool changes, default mode and --unsafe-fixes, gains no undefined name and no unused import;
no is_spec_v2/supports_spec_v2 site becomes a constant."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
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


def assert_oracle_holds(changed: list[tuple[str, str, str]]) -> None:
    assert changed, "the fix changed nothing: the oracle checked nothing"
    problems = {name: new_flakes(before, after, name) for name, before, after in changed}
    assert {name: found for name, found in problems.items() if found} == {}
    for name, before, after in changed:
        for line in after.splitlines():
            assert not re.search(r"\b(if|and|or|return) True\b|= True and\b", line) or line in before, (name, line)


@pytest.mark.parametrize("extra", [(), ("--unsafe-fixes",)], ids=["default", "unsafe"])
def test_example_fork_fixes_pass_pyflakes(tmp_path: Path, extra: tuple[str, ...]) -> None:
    assert_oracle_holds(migrated_files(EXAMPLE, tmp_path / "fork", "--target-version", "0.5.17", *extra))


@pytest.mark.slow
@pytest.mark.parametrize("extra", [(), ("--unsafe-fixes",)], ids=["default", "unsafe"])
def test_sglang_0_5_13_tree_fixes_pass_pyflakes(tmp_path: Path, extra: tuple[str, ...]) -> None:
    """sglang's own tree migrated to 0.5.14: pyflakes-clean, and server_args.py registers no flag twice."""
    from migrator.verify import wheels

    tree = wheels.unpacked_wheel("0.5.13") / "sglang"
    changed = migrated_files(tree, tmp_path / "sglang", "--target-version", "0.5.14", *extra)
    assert_oracle_holds(changed)
    server_args = (tmp_path / "sglang" / "srt" / "server_args.py").read_text()
    flags = re.findall(r'add_argument\(\s*"(--[\w-]+)"', server_args)
    assert len(flags) == len(set(flags)), "a flag is registered twice"
