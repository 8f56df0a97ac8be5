"""Issue 12 item 4: no input makes a run take minutes.

Each case runs in a child process with a generous limit (60 s): the old code took minutes
to hours on these inputs (pathspec backtracking on ``****...x``; a string rebuilt per
splice), the new code well under a second of the work. These are bounds against a
denial of service, not speed claims (those live in benchmarks/).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
V1 = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
LIMIT = 60


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "migrator", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=LIMIT)


def python(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=LIMIT)


HOSTILE_GLOBS = ["*" * 24 + "x", "*a" * 14 + "b", "a" + "*?" * 12 + "x", "**/" + "*" * 20 + "[!z]x"]


@pytest.mark.parametrize("glob", HOSTILE_GLOBS)
def test_hostile_gitignore_line_in_a_subfolder(tmp_path: Path, glob: str) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".gitignore").write_text(glob + "\n")
    (tmp_path / "sub" / ("a" * 30 + ".py")).write_text(V1)
    result = cli("lint", ".", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "a" * 30 + ".py" in result.stdout


@pytest.mark.parametrize("glob", HOSTILE_GLOBS)
def test_hostile_exclude_pattern(tmp_path: Path, glob: str) -> None:
    (tmp_path / ("a" * 30 + ".py")).write_text(V1)
    result = cli("lint", ".", "--exclude", glob, cwd=tmp_path)
    assert result.returncode == 1, result.stderr


def test_hostile_per_file_ignores_pattern(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.dflash-migrate.per-file-ignores]\n"{"*" * 24}x" = ["DFM101"]\n')
    (tmp_path / ("a" * 30 + ".py")).write_text(V1)
    result = cli("lint", ".", cwd=tmp_path)
    assert result.returncode == 1, result.stderr


def test_linear_globs_match_like_gitignore() -> None:
    """The linear matcher gives pathspec's answers (checked on small cases pathspec can do)."""
    import itertools

    import pathspec

    from migrator.run.files import compile_ignore

    names = ["a", "ab", "ba", "aab", "a/b", "b/ab", "abab", "x.py", "d/x.py", "*b", "[a]"]
    globs = ["a*", "*b", "a*b", "*a*b*", "a**b", "**/b", "a/**", "?b", "*?", "[ab]*b", "\\*b", "[*]b",
             "a***b", "d/*", "/a*", "!a", "*.py", "d/**/*.py", "[!a]*"]
    for glob, name in itertools.product(globs, names):
        expected = pathspec.GitIgnoreSpec.from_lines([glob]).match_file(name)
        assert compile_ignore([glob]).match_file(name) == expected, (glob, name)


def test_text_fix_splicing_is_one_pass() -> None:
    """100,000 edits in a 3 MB text: one string rebuilt per edit copies ~150 GB."""
    result = python(
        "from migrator.base.model import Replace, Span\n"
        "from migrator.edit import apply_text\n"
        "line = 'a = --old-flag-name-that-is-long\\n'\n"
        "n = 100_000\n"
        "edits = [Replace(Span.of(i, 4, i, len(line) - 1), '--new') for i in range(1, n + 1)]\n"
        "out = apply_text(line * n, edits)\n"
        "assert out == 'a = --new\\n' * n, out[:80]\n")
    assert result.returncode == 0, result.stderr


def test_python_fix_splicing_is_one_pass() -> None:
    result = python(
        "from migrator.base.model import Replace, Span\n"
        "from migrator.edit.splice import splice\n"
        "line = 'x = DFlashWorker_with_a_long_tail_name\\n'\n"
        "n = 100_000\n"
        "edits = [Replace(Span.of(i, 4, i, len(line) - 1), 'DFlashWorkerV2') for i in range(1, n + 1)]\n"
        "source = line * n\n"
        "out = splice(source.encode(), source, edits)\n"
        "assert out == b'x = DFlashWorkerV2\\n' * n\n")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("name, line", [
    ("big.py", "x = DFlashWorker\n"),
    ("big.sh", "echo $SGLANG_ENABLE_SPEC_V2\n"),
])
def test_eight_megabyte_file_is_reported_not_analysed(tmp_path: Path, name: str, line: str) -> None:
    """A file over the analysis limit is an error naming its first V1 line, in bounded time;
    the good file next to it is still processed."""
    (tmp_path / name).write_text(V1 + line * (8 * 1024 * 1024 // len(line)) if name.endswith(".py")
                                 else line * (8 * 1024 * 1024 // len(line)))
    (tmp_path / "good.py").write_text(V1)
    result = cli("lint", ".", cwd=tmp_path)
    assert result.returncode == 2
    assert f"{name}:1:1: error: file too large to analyse" in result.stdout + result.stderr
    assert "good.py:1:" in result.stdout


def test_prefilter_patterns_stay_linear() -> None:
    """The behaviour entries' byte patterns (DFM210/DFM211) see every file that names DFLASH
    and an overlap setting: 8 MB built against them must not backtrack."""
    code = ("from migrator.relevance.prefilter import might_match\n"
            "head = b\"x = 'dflash'  # enable_overlap disable_overlap_schedule\\n\"\n"
            "for line in (b'overlap\\n', b'overlap raise raise\\n', b'overlap\\n' + b'x\\n' * 7,"
            " b'.disable_overlap_schedule = \\n'):\n"
            "    assert not might_match(head + line * (8_000_000 // len(line)))\n")
    result = python(code)
    assert result.returncode == 0, result.stderr
