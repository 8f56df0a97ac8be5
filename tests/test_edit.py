"""The one entry that applies edits (``migrator.edit``): one contract for Python and text
files. At 9c817bf the text applier skipped an overlapping edit silently, clamped an edit
past the end, and compared a TODO only with the one line above it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from codemod_helpers import comments_written

from migrator import edit
from migrator.base.model import InsertComment, RemoveStatement, Replace, RewriteError, Span

ROOT = Path(__file__).resolve().parents[1]
TODO = "# TODO(dflash-migrate): DFM201 read of a removed setting"


def test_a_todo_in_the_comment_block_above_is_not_added_again_in_yaml() -> None:
    text = f"env:\n  {TODO}\n  # kept by hand\n  SGLANG_ENABLE_SPEC_V2: '1'\n"
    again = edit.apply_text(text, [InsertComment(4, TODO)], reader="yaml")
    assert again == text
    assert comments_written(text, [InsertComment(4, TODO)], reader="yaml") == 0


def test_a_todo_below_a_blank_line_is_another_block() -> None:
    text = f"{TODO}\n\nSGLANG_ENABLE_SPEC_V2=1\n"
    assert edit.apply_text(text, [InsertComment(3, TODO)], reader="shell") == f"{TODO}\n\n{TODO}\nSGLANG_ENABLE_SPEC_V2=1\n"


def test_identical_edits_count_once_and_comment_lines_are_counted_as_written() -> None:
    text = "a: 1\nb: 2\n"
    edits = [Replace(Span.of(1, 3, 1, 4), "3"), Replace(Span.of(1, 3, 1, 4), "3"), InsertComment(2, "# x"), InsertComment(2, "# x")]
    assert edit.apply_text(text, edits, reader="yaml") == "a: 3\n# x\nb: 2\n"
    assert comments_written(text, edits, reader="yaml") == 1


@pytest.mark.parametrize("second", [Replace(Span.of(2, 2, 2, 6), "zz"), RemoveStatement(Span.of(2, 0, 2, 9))])
def test_overlapping_text_edits_raise_naming_the_line(second: object) -> None:
    text = "a = 1\nb = old_name\n"
    with pytest.raises(RewriteError, match="overlapping edits at line 2"):
        edit.apply_text(text, [Replace(Span.of(2, 4, 2, 12), "new_name"), second], reader="shell")


def test_overlapping_python_edits_raise_the_same_error() -> None:
    data = b"x = old_name\n"
    with pytest.raises(RewriteError, match="overlapping edits at line 1"):
        edit.apply(data, [Replace(Span.of(1, 4, 1, 12), "a"), Replace(Span.of(1, 6, 1, 8), "b")])


def test_an_edit_outside_the_file_raises_in_text_too() -> None:
    with pytest.raises(RewriteError, match="outside the file"):
        edit.apply_text("a: 1\n", [Replace(Span.of(5, 0, 5, 1), "x")], reader="yaml")
    # the end of the last line is inside (a removed last line ends there)
    assert edit.apply_text("a: 1\nb: 2", [RemoveStatement(Span.of(2, 0, 2, 4))], reader="yaml") == "a: 1\n"


def test_python_and_text_agree_on_the_same_edits() -> None:
    source = f"import os\n{TODO}\nx = old_name  # keep\n"
    edits = [Replace(Span.of(3, 4, 3, 12), "new_name"), InsertComment(3, TODO), InsertComment(3, "# TODO(dflash-migrate): two")]
    assert edit.apply(source.encode(), edits).decode() == edit.apply_text(source, edits)


def test_no_module_outside_edit_applies_edits() -> None:
    """The copies were written as an ``apply_edits``/``splice`` function with an inner
    ``offset(line, column)``, and a ``_comment_already_above`` test; none may come back."""
    names = {"apply_edits", "splice", "splice_ranges", "offset", "_comment_already_above", "already_present"}
    found = [f"{path.relative_to(ROOT)}:{node.lineno}:{node.name}" for path in sorted((ROOT / "migrator").rglob("*.py"))
             if "edit" not in path.relative_to(ROOT / "migrator").parts
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names]
    assert found == []


def test_the_guard_applies_edits_through_the_one_entry_not_a_callback() -> None:
    """The write guard took a callback into the run's pipeline to apply edits each round (a
    walk that went back up into a module it had left); it asks ``migrator.edit`` itself, and
    which edits a fix run writes is decided once (``edit.chosen_edits``, ``edit.applied``)."""
    import inspect

    from migrator.python import guard

    assert "apply" not in inspect.signature(guard.settle).parameters
    names = {"chosen_edits", "applied", "_applied"}
    found = [f"{path.relative_to(ROOT)}:{node.name}" for path in sorted((ROOT / "migrator").rglob("*.py"))
             if "edit" not in path.relative_to(ROOT / "migrator").parts
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names]
    assert found == []
