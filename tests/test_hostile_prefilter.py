"""Issue 12 item 7 (second half): a V1 name spelled with compatibility characters
(``ＤFlashWorker``, ``ｄflash_worker``) is the same name to Python, whose parser
NFKC-normalises identifiers; both prefilters (``git grep`` and the Python one) must still
send the file to the parser.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from migrator.base import compat
from migrator.relevance import prefilter

REPO = Path(__file__).resolve().parents[1]
#: ``from sglang.srt.speculative.ｄflash_worker import ＤFlashWorker`` (full-width d and D).
DISGUISED = "from sglang.srt.speculative.\uff44flash_worker import \uff24FlashWorker\n"
MATH = "x = \U0001d403FlashWorker  # mathematical bold D\n"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "migrator", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def test_python_reads_the_disguised_import_as_the_v1_one() -> None:
    import ast

    node = ast.parse(DISGUISED).body[0]
    assert node.module == "sglang.srt.speculative.dflash_worker" and node.names[0].name == "DFlashWorker"


def test_python_prefilter_sees_compatibility_spellings() -> None:
    assert prefilter.might_match(DISGUISED.encode())
    assert prefilter.might_match(MATH.encode())
    assert not prefilter.might_match("# 中文注释，（全角标点）：没有旧名字\nx = 1\n".encode())
    assert not prefilter.might_match("x = 'ｈｅｌｌｏ'\n".encode())


@pytest.mark.parametrize("git", [False, True])
def test_lint_reports_a_disguised_v1_import(tmp_path: Path, git: bool) -> None:
    if git and shutil.which("git") is None:
        pytest.skip("git is not installed")
    (tmp_path / "disguised.py").write_text(DISGUISED, encoding="utf-8")
    (tmp_path / "plain.py").write_text("x = 1\n")
    if git:
        env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
        for args in (["init", "-q"], ["add", "-A"], ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "x"]):
            subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True, env=env)
    result = cli("lint", ".", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "disguised.py:1:1: DFM101" in result.stdout
    assert "DFM102" in result.stdout


def test_the_compatibility_table_matches_this_python() -> None:
    computed = {c for a, b in compat.computed_ranges() for c in range(a, b + 1)}
    table = {c for a, b in compat.RANGES for c in range(a, b + 1)}
    assert computed <= table, (f"Unicode {unicodedata.unidata_version} has compatibility characters the table "
                               f"lacks: regenerate migrator.base.compat.RANGES with `python -m migrator.base.compat`")
    if unicodedata.unidata_version == "14.0.0":
        assert computed == table


def test_grep_pattern_matches_exactly_the_table() -> None:
    import re

    pattern = re.compile(compat.grep_pattern())
    for first, last in compat.RANGES:
        for point in (first, last):
            assert pattern.fullmatch(chr(point).encode()), hex(point)
    for other in ("，", "（", "中", "é", "\u2014"):
        assert not pattern.search(other.encode()), other
    # ``git grep -P`` gets one pattern per two first bytes (the vectorised scan); each
    # character of the table is matched by exactly one of them
    patterns = [re.compile(p) for p in compat.grep_patterns()]
    leads = [{text[0] for text in re.split(rb"(?<=[\])])\|(?=[\xc2-\xf4])", p.pattern)} for p in patterns]
    assert all(len(first) <= 2 and min(first) >= 0xC2 for first in leads), leads
    for first, last in compat.RANGES:
        for point in range(first, last + 1):
            encoded = chr(point).encode()
            assert [bool(p.fullmatch(encoded)) for p in patterns].count(True) == 1, hex(point)
