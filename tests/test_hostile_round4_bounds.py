"""Issue 42 (hostile repositories, fourth round), cases 7-10, 12 and 13: resource bounds.

Each attack is a small input that made 8ed1b04 run for minutes to hours or write megabytes.
The runs go through the command line in a child process with a limit (``LIMIT``) that
the old code misses by far and the new code meets with a wide margin on a loaded machine;
where the work can be counted (``bash -n`` processes, report bytes), the count is asserted
instead of a time.
"""

from __future__ import annotations

import difflib
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
V1 = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
LIMIT = 20


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-m", "migrator", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=LIMIT)


def python(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=LIMIT)


# ---- case 8: `**` in ignore patterns -------------------------------------------------------

#: Seven `**`: pathspec's regex gives each `.+`, and a 60-folder path that almost matches is
#: split every way (n^6 tries: 37 s for five `**` at 8ed1b04, about ten times more per `**`).
DOUBLE_STARS = "**/" + "a/**/" * 6 + "b"
DEEP = "/".join(["a"] * 60)


def test_double_star_gitignore_line_against_a_deep_path(tmp_path: Path) -> None:
    """Case 8: one `.gitignore` line with several `**` and a 60-folder-deep file stalled
    `lint .` for minutes; the leftmost-fit matching takes milliseconds."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text(DOUBLE_STARS + "\n")
    (tmp_path / DEEP).mkdir(parents=True)
    (tmp_path / DEEP / "x.py").write_text(V1)
    result = cli("lint", ".", "--output-format", "concise", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert f"{DEEP}/x.py:1:" in result.stdout


def test_double_star_exclude_pattern_against_a_deep_path(tmp_path: Path) -> None:
    """Case 8 through `--exclude`, and a pattern that does match is still honoured."""
    (tmp_path / DEEP).mkdir(parents=True)
    (tmp_path / DEEP / "x.py").write_text(V1)
    (tmp_path / DEEP / "b").mkdir()
    (tmp_path / DEEP / "b" / "y.py").write_text(V1)
    result = cli("lint", ".", "--exclude", DOUBLE_STARS, "--output-format", "concise", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert f"{DEEP}/x.py:1:" in result.stdout
    assert "y.py" not in result.stdout


def test_double_star_patterns_match_as_pathspec_does() -> None:
    """The rewritten `**` gives pathspec's own answers, the directory mark included (which
    decides a negated pattern's priority), on every small pattern and path tried."""
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    from migrator.base.options import _linear_pattern_class

    linear = _linear_pattern_class()
    pieces = ["a", "b", "ab", "*", "a*", "?", "**"]
    names = ["a", "b", "ab", "x"]
    rng = random.Random(42)
    checked = 0
    for _ in range(300):
        pattern = "/".join(rng.choice(pieces) for _ in range(rng.randint(2, 5)))
        pattern = ("/" if rng.random() < 0.3 else "") + pattern + ("/" if rng.random() < 0.3 else "")
        theirs, ours = GitIgnoreSpecPattern(pattern), linear(pattern)
        if theirs.regex is None:
            continue
        for depth in range(1, 5):
            for path in ("/".join(rng.choice(names) for _ in range(depth)) for _ in range(20)):
                expected, got = theirs.regex.match(path), ours.regex.match(path)
                assert (expected is None) == (got is None), (pattern, path)
                if expected is not None:
                    assert bool(expected.groupdict().get("ps_d")) == bool(got.groupdict().get("ps_d")), (pattern, path)
                checked += 1
    assert checked > 5000
