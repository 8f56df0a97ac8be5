"""No function in ``migrator/`` runs over 80 lines unless a comment says why (issue 43).

The convention: the comment block right above the function (above its first decorator, if
any) starts with ``# long: <why>``, e.g. a hand-written parser whose state machine reads
better whole. Lines are counted from the first decorator to the last line of the body,
nested functions each on their own.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 80
MARK = "# long:"


def _reason_above(lines: list[str], first: int) -> str:
    """The ``# long:`` reason of the comment block ending on the line before 1-based ``first``."""
    at = first - 2
    block: list[str] = []
    while at >= 0 and lines[at].lstrip().startswith("#"):
        block.insert(0, lines[at].strip())
        at -= 1
    if not block or not block[0].startswith(MARK):
        return ""
    return block[0][len(MARK):].strip()


def long_functions_without_reason(source: str, label: str = "<source>") -> list[str]:
    """``label:line name (n lines)`` of every function over :data:`LIMIT` lines without a reason."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
        length = node.end_lineno - first + 1  # type: ignore[operator]
        if length > LIMIT and not _reason_above(lines, first):
            found.append(f"{label}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_every_long_function_in_migrator_says_why() -> None:
    found = [entry for path in sorted((ROOT / "migrator").rglob("*.py"))
             for entry in long_functions_without_reason(path.read_text(encoding="utf-8"),
                                                        str(path.relative_to(ROOT)))]
    assert found == [], f"split these, or put '{MARK} <why>' on the line above the def: {found}"


def _function(lines: int, above: str = "", decorated: bool = False) -> str:
    body = "".join(f"    x{n} = {n}\n" for n in range(lines - 1 - decorated))
    return textwrap.dedent(above) + ("@staticmethod\n" if decorated else "") + "def f():\n" + body


def test_the_check_counts_lines_and_reads_the_comment() -> None:
    assert long_functions_without_reason(_function(LIMIT)) == []
    assert long_functions_without_reason(_function(LIMIT + 1)) == ["<source>:1 f (81 lines)"]
    assert long_functions_without_reason(_function(LIMIT + 1, decorated=True)) == ["<source>:2 f (81 lines)"]
    assert long_functions_without_reason(_function(LIMIT + 1, "# long: a state machine\n# read whole\n")) == []
    assert long_functions_without_reason(_function(LIMIT + 1, "# long: a state machine\n", decorated=True)) == []
    assert long_functions_without_reason(_function(LIMIT + 1, "# long:\n")) != []  # a reason is required
    assert long_functions_without_reason(_function(LIMIT + 1, "# a state machine\n")) != []  # the mark too
    assert long_functions_without_reason(_function(LIMIT + 1, "# long: why\n\n")) != []  # right above the def
