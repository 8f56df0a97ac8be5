"""Issue 12 item 5: ``fix`` never overwrites work that is not committed or not its to write.

Untracked files and files of a nested repository with uncommitted changes are refused
without ``--allow-dirty``; a read-only (0444) file is refused even as root, with its own
override ``--write-read-only``; a written file keeps its owner, group and extended
attributes; a failed write says why (a 230-character name is not "folder is not writable").
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
V2 = "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\n"
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull})


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1", "COLUMNS": "300"}
    return subprocess.run([sys.executable, "-m", "migrator", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def repo(root: Path, files: dict[str, str]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")


@needs_git
def test_untracked_file_is_refused_without_allow_dirty(tmp_path: Path) -> None:
    repo(tmp_path, {"committed.py": V1})
    (tmp_path / "untracked.py").write_text(V1)
    refused = cli("fix", ".", cwd=tmp_path)
    assert refused.returncode == 2
    assert "untracked.py: error: is not committed (untracked" in refused.stderr, refused.stderr
    assert (tmp_path / "untracked.py").read_text() == V1
    assert (tmp_path / "committed.py").read_text() == V2
    assert cli("fix", ".", "--allow-dirty", cwd=tmp_path).returncode == 0
    assert (tmp_path / "untracked.py").read_text() == V2


@needs_git
def test_staged_change_is_refused(tmp_path: Path) -> None:
    repo(tmp_path, {"a.py": "x = 1\n"})
    (tmp_path / "a.py").write_text(V1)
    git(tmp_path, "add", "a.py")
    refused = cli("fix", ".", cwd=tmp_path)
    assert refused.returncode == 2 and "a.py: error: has uncommitted changes" in refused.stderr
    assert (tmp_path / "a.py").read_text() == V1


@needs_git
@pytest.mark.parametrize("state", ["changed", "untracked"])
def test_nested_repository_with_uncommitted_work_is_refused(tmp_path: Path, state: str) -> None:
    repo(tmp_path, {"top.py": V1, ".gitignore": "vendor/\n"})
    nested = tmp_path / "inner"
    repo(nested, {"inner.py": "x = 1\n"})  # the outer repo sees only an untracked folder
    if state == "changed":
        (nested / "inner.py").write_text(V1)
    else:
        (nested / "new.py").write_text(V1)
    name = "inner.py" if state == "changed" else "new.py"
    refused = cli("fix", ".", cwd=tmp_path)
    assert refused.returncode == 2, refused.stderr
    assert f"inner/{name}: error:" in refused.stderr, refused.stderr
    assert (nested / name).read_text() == V1
    assert (tmp_path / "top.py").read_text() == V2


@needs_git
def test_committed_file_of_a_nested_repository_is_written(tmp_path: Path) -> None:
    repo(tmp_path, {"top.py": "x = 1\n"})
    repo(tmp_path / "inner", {"inner.py": V1})
    result = cli("fix", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "inner" / "inner.py").read_text() == V2


def test_read_only_file_is_refused_with_its_own_flag(tmp_path: Path) -> None:
    """Root bypasses permission bits: the mode, not os.access, decides."""
    target = tmp_path / "ro.py"
    target.write_text(V1)
    target.chmod(0o444)
    try:
        refused = cli("fix", "ro.py", "--allow-dirty", cwd=tmp_path)
        assert refused.returncode == 2
        assert "ro.py: error: cannot write: file is read-only (mode 0444); pass --write-read-only" in refused.stderr
        assert target.read_text() == V1
        if os.geteuid() == 0:
            written = cli("fix", "ro.py", "--allow-dirty", "--write-read-only", cwd=tmp_path)
            assert written.returncode == 0, written.stderr
            assert target.read_text() == V2
            assert target.stat().st_mode & 0o777 == 0o444
    finally:
        target.chmod(0o644)


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's owner needs root")
def test_owner_group_and_xattrs_are_kept(tmp_path: Path) -> None:
    target = tmp_path / "owned.py"
    target.write_text(V1)
    os.chown(target, 12345, 23456)
    target.chmod(0o640)
    has_xattr = hasattr(os, "setxattr")
    if has_xattr:
        try:
            os.setxattr(target, "user.dflash_test", b"kept")
        except OSError:
            has_xattr = False  # the file system has no user xattrs
    result = cli("fix", "owned.py", "--allow-dirty", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    info = target.stat()
    assert target.read_text() == V2
    assert (info.st_uid, info.st_gid, info.st_mode & 0o777) == (12345, 23456, 0o640)
    if has_xattr:
        assert os.getxattr(target, "user.dflash_test") == b"kept"


def test_long_file_name_is_written_or_fails_with_the_real_reason(tmp_path: Path) -> None:
    name = "m" * 227 + ".py"  # 230 characters: the temporary file's name must still fit in 255
    (tmp_path / name).write_text(V1)
    result = cli("fix", name, "--allow-dirty", cwd=tmp_path)
    assert "folder is not writable" not in result.stderr, result.stderr
    assert result.returncode == 0, result.stderr
    assert (tmp_path / name).read_text() == V2
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".dflash-migrate.tmp")]
