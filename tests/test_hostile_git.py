"""Issue 12 item 2: git started inside the scanned tree must not obey that tree's
``.git/config`` (nor the user's): nothing it names may run, nothing it sets may change
the result. Real git repositories with hostile configs, through the real CLI.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
V1 = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull})


def cli(*args: str, cwd: Path, home: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    if home is not None:
        env["HOME"] = str(home)
        env.pop("GIT_CONFIG_GLOBAL", None)
    return subprocess.run([sys.executable, "-m", "migrator", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def committed_repo(root: Path, config: str) -> None:
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "worker.py").write_text(V1)
    (root / "sub" / "clean.py").write_text("x = 1\n")
    (root / "top.py").write_text("y = 2\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fork")
    with open(root / ".git" / "config", "a") as out:
        out.write(config)


@pytest.mark.parametrize("command", [("lint", "."), ("lint", "sub"), ("fix", "--check", "."), ("fix", ".")])
def test_fsmonitor_command_in_the_scanned_repo_never_runs(tmp_path: Path, command: tuple[str, ...]) -> None:
    root, marker = tmp_path / "fork", tmp_path / "fsmonitor-ran"
    hook = tmp_path / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    committed_repo(root, f"[core]\n\tfsmonitor = {hook}\n\tuntrackedCache = true\n"
                         f"[filter \"evil\"]\n\tclean = {hook}\n\tsmudge = {hook}\n"
                         f"[diff \"evil\"]\n\ttextconv = {hook}\n[diff]\n\texternal = {hook}\n"
                         f"[core]\n\tpager = {hook}\n\thooksPath = {tmp_path}\n")
    (root / ".gitattributes").write_text("* filter=evil diff=evil\n")
    os.utime(root / "sub" / "worker.py", (1, 1))  # stat-dirty: git would re-read it through the clean filter
    result = cli(*command, cwd=root)
    assert result.returncode in (0, 1), result.stderr
    assert not marker.exists(), f"{command}: the repository's git config ran a command"


@pytest.mark.parametrize("where", ["repo", "user"])
@pytest.mark.parametrize("command", [("lint", "sub"), ("lint", "."), ("fix", "--check", "sub")])
def test_git_output_settings_do_not_change_the_result(tmp_path: Path, where: str, command: tuple[str, ...]) -> None:
    root = tmp_path / "fork"
    settings = ("[grep]\n\tfullName = true\n\tlineNumber = true\n\tcolumn = true\n\tpatternType = perl\n"
                "[color]\n\tui = always\n\tgrep = always\n[core]\n\tquotePath = true\n")
    committed_repo(root, settings if where == "repo" else "")
    home = tmp_path / "home"
    home.mkdir()
    if where == "user":
        (home / ".gitconfig").write_text(settings)
    result = cli(*command, cwd=root, home=home)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "DFM001" in result.stdout or "DFM" in result.stdout
    assert "worker.py" in result.stdout
