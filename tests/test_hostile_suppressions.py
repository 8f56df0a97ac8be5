"""Issue 12 item 6: a suppression counts only in a real comment, spelled exactly.

A directive inside a string literal, a URL, Markdown prose or a quoted shell/YAML value
silences nothing; ``ignore-file[]`` / ``ignore[ ]`` are an error naming file and line (and
silence nothing); prose such as "dflash-migrate: ignore-files ..." is not an ``ignore``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from migrator.run import pipeline
from migrator.run.engine import Options
from migrator.run.python_file import text_context
from migrator.text import handler_for

REPO = Path(__file__).resolve().parents[1]
V1 = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
ENV = "SGLANG_ENABLE_SPEC_V2"


def result_of(path: str, text: str):
    options = Options(mode="lint")
    if path.endswith(".py"):
        return pipeline.process_bytes(path, text.encode(), options)
    return handler_for(path)(path, text.encode(), text_context(path, options))


@pytest.mark.parametrize("path, text", [
    ("a.py", 'NOTE = "# dflash-migrate: ignore-file"\n' + V1),
    ("a.py", '"""\n# dflash-migrate: ignore-file\n"""\n' + V1),
    ("a.py", "# docs: https://example.com/#dflash-migrate:ignore-file\n" + V1),
    ("a.py", "# dflash-migrate: ignore-files are described in MIGRATION.md\n" + V1),
    ("a.py", "# see the dflash-migrate: ignore-file directive\n" + V1),
    ("a.py", "# dflash-migrate: ignored\n" + V1),
    ("run.sh", f'echo "# dflash-migrate: ignore-file"\nexport {ENV}=0\n'),
    ("run.sh", f"curl http://x/#dflash-migrate:ignore-file\nexport {ENV}=0\n"),
    ("ci.yml", f'note: "x # dflash-migrate: ignore-file"\nenv:\n  {ENV}: "0"\n'),
    ("README.md", f"Use dflash-migrate: ignore-file to silence a file.\n\n```bash\nexport {ENV}=0\n```\n"),
    ("README.md", f"# dflash-migrate: ignore-file\n\n```bash\nexport {ENV}=0\n```\n"),
])
def test_directive_outside_a_real_comment_silences_nothing(path: str, text: str) -> None:
    result = result_of(path, text)
    assert result.error is None, result.error
    assert result.findings, "the directive outside a comment silenced the file"
    assert result.suppressed == 0


@pytest.mark.parametrize("path, text, line", [
    ("a.py", "# dflash-migrate: ignore-file[]\n" + V1, 1),
    ("a.py", V1 + "x = DFlashWorker  # dflash-migrate: ignore[ ]\n", 2),
    ("a.py", "# dflash-migrate: ignore[,]\n" + V1, 1),
    ("run.sh", f"# dflash-migrate: ignore-file[]\nexport {ENV}=0\n", 1),
    ("README.md", f"<!-- dflash-migrate: ignore-file[ ] -->\n```bash\nexport {ENV}=0\n```\n", 1),
])
def test_empty_brackets_are_an_error_not_a_silence_all(path: str, text: str, line: int) -> None:
    result = result_of(path, text)
    assert result.error is not None and "malformed suppression" in result.error.message
    assert result.error.line == line
    assert result.findings and result.suppressed == 0


def test_empty_brackets_through_the_cli(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("# dflash-migrate: ignore-file[]\n" + V1)
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    lint = subprocess.run([sys.executable, "-m", "migrator", "lint", "."], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert lint.returncode == 2
    assert "a.py:1" in lint.stdout + lint.stderr and "malformed suppression" in lint.stdout + lint.stderr
    assert "DFM101" in lint.stdout


@pytest.mark.parametrize("path, text", [
    ("a.py", "# dflash-migrate: ignore-file\n" + V1),
    ("a.py", V1.rstrip("\n") + "  # type: ignore  # dflash-migrate: ignore[DFM101]\n"),
    ("a.py", "# dflash-migrate: ignore[DFM101]\n" + V1),
    ("run.sh", f"export {ENV}=0  # dflash-migrate: ignore[DFM201]\n"),
    ("ci.yml", f"env:\n  # dflash-migrate: ignore[DFM201]\n  {ENV}: '0'\n"),
    ("README.md", f"<!-- dflash-migrate: ignore-file -->\n```bash\nexport {ENV}=0\n```\n"),
    ("README.md", f"```bash\n# dflash-migrate: ignore[DFM201]\nexport {ENV}=0\n```\n"),
])
def test_real_comments_still_suppress(path: str, text: str) -> None:
    result = result_of(path, text)
    assert result.error is None, result.error
    assert [f for f in result.findings if f.code in ("DFM101", "DFM201")] == []
    assert result.suppressed >= 1
