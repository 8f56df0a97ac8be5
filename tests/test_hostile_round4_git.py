"""Issue 42 case 1: command execution through git's lazy fetch.

A downloaded fork archive carries its own ``.git`` declaring a partial clone
(``extensions.partialClone``, a promisor remote) and leaves out an object git needs: the
blob of an assume-unchanged entry (``git grep`` in lint reads it from the object store) or
HEAD's tree (``git diff-index --cached HEAD`` in fix's dirty check). git fetches the
missing object and so starts the repository's own transport: ``remote.<name>.uploadpack``
for a local path, ``core.sshCommand`` for an ``ssh://`` URL, an ``ext::`` URL (allowed by
the repository's own ``protocol.ext.allow``). Each transport here would create a marker
file; offline, real git, through the real CLI.
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


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True,
                          env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_NOSYSTEM": "1",
                               "GIT_CONFIG_GLOBAL": os.devnull}).stdout.strip()


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "migrator", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}, timeout=120)


def _transport(kind: str, tmp_path: Path, marker: Path) -> str:
    """The ``.git/config`` lines of a promisor remote whose transport creates ``marker``."""
    hook = tmp_path / "transport.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    hook.chmod(0o755)
    if kind == "uploadpack":
        remote = f"\turl = {tmp_path / 'nowhere'}\n\tuploadpack = {hook}\n"
        extra = "[protocol \"file\"]\n\tallow = always\n"
    elif kind == "ssh":
        remote = "\turl = ssh://example.invalid/fork.git\n"
        extra = f"[core]\n\tsshCommand = {hook}\n[protocol \"ssh\"]\n\tallow = always\n"
    else:
        remote = f"\turl = ext::{hook}\n"
        extra = "[protocol \"ext\"]\n\tallow = always\n[protocol]\n\tallow = always\n"
    return (f"[core]\n\trepositoryformatversion = 1\n[extensions]\n\tpartialClone = origin\n"
            f"[remote \"origin\"]\n{remote}\tpromisor = true\n{extra}")


def partial_clone(tmp_path: Path, kind: str, missing: str) -> tuple[Path, Path]:
    """A committed fork that is a partial clone missing ``missing`` ("blob": the blob of the
    assume-unchanged ``worker.py``; "tree": HEAD's tree), and the marker its transport makes."""
    root, marker = tmp_path / "fork", tmp_path / "transport-ran"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "worker.py").write_text(V1)
    (root / "clean.py").write_text("x = 1\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fork")
    if missing == "blob":
        git(root, "update-index", "--assume-unchanged", "sub/worker.py")
        gone = git(root, "rev-parse", "HEAD:sub/worker.py")
    else:
        gone = git(root, "rev-parse", "HEAD^{tree}")
    (root / ".git" / "objects" / gone[:2] / gone[2:]).unlink()
    with open(root / ".git" / "config", "a") as config:
        config.write(_transport(kind, tmp_path, marker))
    return root, marker


def _git_would_fetch(tmp_path: Path, kind: str, missing: str) -> bool:
    """The attack works on plain git (so the tests below test something)."""
    root, marker = partial_clone(tmp_path / "plain", kind, missing)
    command = ["grep", "-l", "-i", "dflash"] if missing == "blob" else ["diff-index", "--cached", "HEAD"]
    subprocess.run(["git", "-C", str(root), *command], capture_output=True, timeout=60,
                   env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull})
    return marker.exists()


@pytest.mark.parametrize("kind", ["uploadpack", "ssh", "ext"])
def test_lint_git_grep_never_fetches_a_missing_blob(tmp_path: Path, kind: str) -> None:
    """Attack: lint on a partial clone whose assume-unchanged file's blob is missing; ``git
    grep`` reads that blob from the object store, git fetches it through the promisor
    remote's transport, which runs the repository's command. The marker must never appear,
    and the file is still reported (read in Python)."""
    assert _git_would_fetch(tmp_path, kind, "blob")
    root, marker = partial_clone(tmp_path, kind, "blob")
    result = cli("lint", ".", cwd=root)
    assert not marker.exists(), f"{kind}: lint ran the repository's transport"
    assert result.returncode == 1, result.stdout + result.stderr
    assert "sub/worker.py" in result.stdout and "DFM102" in result.stdout


@pytest.mark.parametrize("kind", ["uploadpack", "ssh", "ext"])
def test_fix_dirty_check_never_fetches_head_tree(tmp_path: Path, kind: str) -> None:
    """Attack: fix on a partial clone missing HEAD's tree; the dirty check's ``git diff-index
    --cached HEAD`` fetches it through the promisor remote's transport. The marker must never
    appear; the file is refused with a note naming the partial clone, and left unchanged."""
    assert _git_would_fetch(tmp_path, kind, "tree")
    root, marker = partial_clone(tmp_path, kind, "tree")
    result = cli("fix", ".", cwd=root)
    assert not marker.exists(), f"{kind}: fix ran the repository's transport"
    assert result.returncode == 2, result.stdout + result.stderr
    assert "partial clone" in result.stderr
    assert (root / "sub" / "worker.py").read_text() == V1


@pytest.mark.parametrize("missing", ["blob", "tree"])
def test_git_runs_no_transport_even_where_the_partial_clone_goes_unnoticed(tmp_path: Path, missing: str,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack: the same repositories, with the partial-clone check blinded (a config git
    reads that the check would miss): git itself must refuse every transport, whatever
    ``protocol.<name>.allow`` the repository sets. In process, every git command the tool
    runs: the scan (``git grep``, ``ls-files``), ``tracked_files`` and the dirty check."""
    from migrator.run import gitscan
    from migrator.run.uncommitted import Uncommitted

    monkeypatch.setattr(gitscan, "is_partial_clone", lambda *args, **kwargs: False, raising=False)
    for kind in ("uploadpack", "ssh", "ext"):
        root, marker = partial_clone(tmp_path / kind, kind, missing)
        scan = gitscan.start(root)
        assert scan is not None
        gitscan.finish(scan)
        gitscan.tracked_files(str(root))
        dirty = Uncommitted().scan([str(root / "sub" / "worker.py")])
        if missing == "tree":  # git could not read HEAD's tree: refused, the safe side
            assert dirty.reason(str(root / "sub" / "worker.py"), V1.encode()) is not None
        assert not marker.exists(), f"{kind}, {missing} missing: git ran the repository's transport"


def test_partial_clone_is_not_handed_to_git(tmp_path: Path) -> None:
    """The second defence: a repository declaring a promisor remote (here without
    ``extensions.partialClone``) is recognised before git reads an object; one whose
    promisor is switched off, or a plain one, is not."""
    from migrator.run.gitscan import is_partial_clone

    root, _ = partial_clone(tmp_path, "uploadpack", "blob")
    assert is_partial_clone(str(root))
    assert is_partial_clone(str(root / "sub"))
    linked = tmp_path / "linked"  # a ``.git`` file, as a worktree or submodule has
    linked.mkdir()
    (linked / ".git").write_text(f"gitdir: {root / '.git'}\n")
    assert is_partial_clone(str(linked))
    git(root, "config", "--unset", "extensions.partialClone")
    assert is_partial_clone(str(root))
    git(root, "config", "remote.origin.promisor", "false")
    assert not is_partial_clone(str(root))
    plain = tmp_path / "plain"
    plain.mkdir()
    git(plain, "init", "-q")
    assert not is_partial_clone(str(plain))
