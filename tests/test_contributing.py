"""CONTRIBUTING.md's four checklists, followed literally: each section is there, every path
it names exists, every command it names can run as written (a ``pytest`` line's test files
exist, a module or script exists and knows each option the line gives it, a ``python -c``
line's imports resolve). The toy file type (``tests/test_filetype_declarations.py``) and the
synthetic release (``tests/test_new_release.py``) are the checklists carried out in full."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
CHECKLISTS = ("A removed name", "A release", "A Python rule", "A file type")


def _commands() -> list[str]:
    blocks = re.findall(r"^\s*```\n(.*?)^\s*```", GUIDE, flags=re.MULTILINE | re.DOTALL)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_the_four_checklists_are_there() -> None:
    assert re.findall(r"^## (.+)$", GUIDE, flags=re.MULTILINE) == list(CHECKLISTS)
    for name in ("tests/test_filetype_declarations.py", "tests/test_new_release.py", "docs/design/core.md"):
        assert f"`{name}`" in GUIDE, name


def test_every_path_named_exists() -> None:
    named = set(re.findall(r"`((?:migrator|tests|scripts|docs)/[\w./-]*)`", GUIDE))
    assert len(named) > 15, named
    assert [name for name in sorted(named) if not (ROOT / name).exists()] == []


def _source_of(program: list[str]) -> str:
    """The text of the module or script a ``python`` command line runs."""
    if program[0] == "-m":
        spec = importlib.util.find_spec(program[1])
        assert spec is not None and spec.origin is not None, program[1]
        return Path(spec.origin).read_text(encoding="utf-8")
    script = ROOT / program[0]
    assert script.is_file(), program[0]
    return script.read_text(encoding="utf-8")


@pytest.mark.parametrize("line", _commands())
def test_every_command_can_run_as_written(line: str) -> None:
    words = shlex.split(line)
    assert words[0] == "python", line
    if words[1] == "-c":
        for node in ast.walk(ast.parse(words[2])):
            if isinstance(node, ast.ImportFrom):
                module = importlib.import_module(node.module or "")
                assert all(hasattr(module, alias.name) for alias in node.names), line
        return
    if words[1:3] == ["-m", "pytest"]:
        files = [word for word in words[3:] if word.startswith("tests/")]
        assert files and [name for name in files if not (ROOT / name).is_file()] == [], line
        return
    source = _source_of(words[1:3] if words[1] == "-m" else words[1:2])
    options = [word for word in words if word.startswith("--")]
    assert [option for option in options if option not in source] == [], line
