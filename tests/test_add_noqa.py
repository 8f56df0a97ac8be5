"""Issue 17 item 9: ``--add-noqa`` suppresses every finding it can with a comment, changes
nothing else (the file still parses, strings are untouched), and leaves the rest."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from migrator.run import add_noqa
from migrator.run.engine import Options, run

V1 = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"


def lint():
    return run([Path(".")], Options(mode="lint", jobs=1)).results


def count(results) -> int:
    return sum(len(r.findings) for r in results)


def test_every_commentable_finding_is_suppressed_and_nothing_else_changes(repo: Path) -> None:
    (repo / "a.py").write_text(V1 + "x = DFlashWorker  # keep me\nDOC = '''\nDFlashWorker in a string\n'''\n")
    (repo / "run.sh").write_text("#!/bin/sh\nSGLANG_ENABLE_SPEC_V2=1 python -m sglang.launch_server\n")
    (repo / ".env").write_text("SGLANG_ENABLE_SPEC_V2=1\n")
    (repo / "cfg.json").write_text('{"env": {"SGLANG_ENABLE_SPEC_V2": "1"}}\n')
    before = lint()
    in_string = sum(1 for r in before for f in r.findings if r.path.endswith("a.py") and f.line == 4)
    json_findings = sum(len(r.findings) for r in before if r.path.endswith(".json"))
    assert json_findings >= 1
    counts = add_noqa.add(before)
    assert counts.left == json_findings + in_string
    source = (repo / "a.py").read_text()
    ast.parse(source)
    assert "# keep me  # dflash-migrate: ignore[" in source
    assert "DFlashWorker in a string\n" in source  # the string itself is untouched
    assert count(lint()) == counts.left
    again = add_noqa.add(lint())  # idempotent: nothing more to add
    assert again.comments == 0 and again.files == 0


def test_existing_directive_gets_the_code_added(repo: Path) -> None:
    (repo / "a.py").write_text("import sglang.srt.speculative.dflash_worker as w  # dflash-migrate: ignore[DFM999]\n")
    add_noqa.add(lint())
    line = (repo / "a.py").read_text()
    assert line.count("dflash-migrate:") == 1 and "DFM999" in line
    assert count(lint()) == 0


def test_yaml_block_scalar_and_heredoc_are_left(repo: Path) -> None:
    (repo / "w.yml").write_text("jobs:\n  a:\n    steps:\n      - run: |\n          SGLANG_ENABLE_SPEC_V2=1 python -m x\n")
    (repo / "h.sh").write_text("cat <<EOF\nSGLANG_ENABLE_SPEC_V2=1\nEOF\nSGLANG_ENABLE_SPEC_V2=1 python -m x\n")
    before = lint()
    yaml_before = (repo / "w.yml").read_text()
    counts = add_noqa.add(before)
    assert (repo / "w.yml").read_text() == yaml_before
    assert "cat <<EOF\nSGLANG_ENABLE_SPEC_V2=1\nEOF\n" in (repo / "h.sh").read_text()
    assert counts.left == count(before)


@pytest.mark.parametrize("kind, text", [
    ("shell", 'echo "start\nSGLANG_ENABLE_SPEC_V2=1 python -m x\nend"\n'),
    ("shell", "python -m x \\\n  SGLANG_ENABLE_SPEC_V2=1\n"),
    ("toml", 'doc = """\nSGLANG_ENABLE_SPEC_V2 = 1\n"""\n'),
    ("yaml", "body: |\n  SGLANG_ENABLE_SPEC_V2: 1\n"),
    ("dotenv", 'A="multi\nSGLANG_ENABLE_SPEC_V2=1"\n'),
])
def test_no_comment_inside_strings_continuations_or_block_scalars(kind: str, text: str) -> None:
    new, done = add_noqa._own_line(kind, text.encode(), {2: {"DFM201"}})
    assert new == text.encode() and not done


def test_own_line_comment_where_a_statement_starts() -> None:
    new, done = add_noqa._own_line("shell", b"set -e\n  SGLANG_ENABLE_SPEC_V2=1 python -m x\n", {2: {"DFM201"}})
    assert new == b"set -e\n  # dflash-migrate: ignore[DFM201]\n  SGLANG_ENABLE_SPEC_V2=1 python -m x\n" and done == {2}
