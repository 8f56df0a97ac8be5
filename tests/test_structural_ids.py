"""The structural applier (``migrator.edit.structural``) found the placeholders of removed
statements by id. CPython gives a freed object's id to the next object made, so a
placeholder freed while the tree was still being rebuilt took an unrelated statement with
it, in a few runs out of many (issue 45's flaky refusal: "it would leave undefined name
..."). Here every object gets the same id, the worst case of reuse: nothing but the
removed block may go."""

from __future__ import annotations

import pytest

from migrator.base.model import RemoveStatement, Span
from migrator.edit import structural

SOURCE = (
    "import os\n"
    "\n"
    "\n"
    "def configure():\n"
    "    if os.environ.get(\"SGLANG_ENABLE_SPEC_V2\"):\n"
    "        pass\n"
    "    ready = True\n"
    "    return ready\n"
    "\n"
    "\n"
    "def other():\n"
    "    return os.sep\n"
)


def test_a_removed_block_takes_no_other_statement_with_it_when_ids_are_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(structural, "id", lambda _: 1, raising=False)
    removed = RemoveStatement(Span.of(5, 4, 6, 12), "DFM201")
    fixed = structural.apply_with_libcst(SOURCE.encode(), [removed]).decode()
    assert "import os\n" in fixed
    assert "def configure():" in fixed and "ready = True" in fixed
    assert "def other():\n    return os.sep\n" in fixed
    assert "if os.environ.get" not in fixed.replace("removed the `if os.environ.get", "")
    assert "    pass\n" not in fixed
