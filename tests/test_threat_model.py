"""docs/threat-model.md's table of claims names, for each claim, the tests that check it
(issue 42): every row names at least one, and every test named exists in its file (a
top-level test function, found with ``ast``: nothing is imported or run)."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "threat-model.md"
TEST_ID = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


def table_rows() -> list[tuple[str, list[tuple[str, str]]]]:
    """(claim, [(test file, test name), ...]) of each row of the claims table."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Claims and the tests that check them", 1)[1]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) != 2 or cells[0] in ("claim", "---"):
            continue
        rows.append((cells[0], TEST_ID.findall(cells[1])))
    return rows


@cache
def defined_tests(path: str) -> frozenset[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return frozenset(node.name for node in tree.body
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test_"))


def test_every_claim_names_a_test_and_every_named_test_exists() -> None:
    rows = table_rows()
    assert len(rows) >= 30, "the claims table went missing or lost rows"
    for claim, tests in rows:
        assert tests, f"claim without a test: {claim}"
        for path, name in tests:
            assert (ROOT / path).is_file(), f"{claim}: {path} does not exist"
            assert name in defined_tests(path), f"{claim}: {path} has no test {name}"


def test_the_checker_catches_a_misnamed_test() -> None:
    """The check itself can fail: a name that is no test function of the file is caught."""
    assert "test_fsmonitor_command_in_the_scanned_repo_never_runs" in defined_tests("tests/test_hostile_git.py")
    assert "test_fsmonitor_command_never_runs" not in defined_tests("tests/test_hostile_git.py")
    assert "git" not in defined_tests("tests/test_hostile_git.py")  # a helper, not a test
