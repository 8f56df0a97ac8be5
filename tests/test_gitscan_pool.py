"""The run's speed machinery must never change a result: the ``git grep`` prefilter
(``migrator.run.gitscan``) and the fork pool (``migrator.run.pool``)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from codemod_helpers import write_tree

from migrator.run import batches, engine, gitscan, pipeline, pool, result

V1 = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})


def make_repo(root: Path) -> None:
    """A committed fork with files in every state git and the walk can disagree on."""
    write_tree(root, {
        "pkg/__init__.py": "",
        "pkg/tracked.py": V1,
        "pkg/clean.py": "x = 1\n",
        "pkg/edited.py": "x = 1\n",  # clean when committed, V1 in the work tree
        "pkg/hidden.py": "x = 1\n",  # marked assume-unchanged, then edited
        "scripts/run.sh": "export SGLANG_ENABLE_SPEC_V2=0\npython -m sglang.launch_server --speculative-algorithm DFLASH\n",
        ".gitignore": "ignored_by_gitignore.py\n",
    })
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fork")
    (root / "pkg" / "edited.py").write_text(V1)
    git(root, "update-index", "--assume-unchanged", "pkg/hidden.py")
    (root / "pkg" / "hidden.py").write_text(V1)
    (root / "pkg" / "untracked.py").write_text(V1)
    (root / "pkg" / "excluded_locally.py").write_text(V1)  # ignored by .git/info/exclude only
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text("excluded_locally.py\n")
    (root / "ignored_by_gitignore.py").write_text(V1)


def summary(outcome: result.RunResult) -> dict[str, list[tuple[int, str]]]:
    return {Path(r.path).name: sorted((f.line, f.code) for f in r.findings) for r in outcome.results if r.findings}


def test_every_trigger_token_holds_a_grep_marker() -> None:
    """Itself, or through every cue it needs (``prefilter.markers_of``)."""
    from migrator.relevance import prefilter

    uncovered = [token for token, cues, _ in prefilter._groups() if not prefilter.markers_of(token, cues)]
    assert uncovered == []
    assert {marker.decode() for marker in prefilter.COARSE_MARKERS} == set(gitscan.GREP_MARKERS)


@needs_git
@pytest.mark.parametrize("jobs", [1, 2])
def test_git_prefilter_gives_the_walks_results(tmp_path: Path, jobs: int, monkeypatch: pytest.MonkeyPatch) -> None:
    make_repo(tmp_path)
    options = engine.Options(mode="lint", target_version="0.5.17", jobs=jobs)
    with_git = engine.run([tmp_path], options)
    found = summary(with_git)
    # edited in the work tree, untracked, assume-unchanged and locally excluded files are
    # all found: git searched the first, the others went to the Python prefilter
    assert {"tracked.py", "edited.py", "hidden.py", "untracked.py", "excluded_locally.py", "run.sh"} <= set(found)
    assert "ignored_by_gitignore.py" not in found and "clean.py" not in found
    monkeypatch.setattr(gitscan, "start", lambda folder: None)
    without_git = engine.run([tmp_path], options)
    assert summary(without_git) == found
    assert with_git.summary.files_scanned == without_git.summary.files_scanned


@needs_git
def test_git_leaves_out_the_files_no_rule_reads(tmp_path: Path) -> None:
    write_tree(tmp_path, {"lib/kernel.so": "\0ELF dflash_worker\n", "lib/KERNEL.SO": "dflash\n",
                          "web/app.min.js": "dflash\n", "web/app.js": "// dflash\n", "pkg/a.py": V1,
                          "docs/Mixed.md": "the DfLaSh worker\n"})
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "fork")
    searched, hits = gitscan.finish(gitscan.start(tmp_path))
    assert searched == {"web/app.js", "pkg/a.py", "docs/Mixed.md"}
    assert hits == searched  # -i: any case of a marker


@needs_git
def test_git_is_not_used_when_a_hook_sets_git_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_repo(tmp_path)
    monkeypatch.setenv("GIT_DIR", str(tmp_path / ".git"))
    assert gitscan.start(tmp_path) is None


def test_outside_a_work_tree_git_answers_nothing(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": V1})
    scan = gitscan.start(tmp_path)
    assert scan is None or gitscan.finish(scan) is None  # None: git missing or not a repository
    assert summary(engine.run([tmp_path], engine.Options(mode="lint", jobs=2)))


@pytest.mark.skipif(not pool.available(), reason="the fork pool runs on Linux only")
def test_a_dying_worker_is_reported_and_the_run_finishes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    padding = "#" * 40_000 + "\n"  # files this large are handed out one at a time
    write_tree(tmp_path, {f"pkg/m{i}.py": V1 + padding for i in range(12)})
    write_tree(tmp_path, {"pkg/killer.py": V1 + padding + "# this file kills its worker\n"})
    real = pipeline.process_chunk

    def dies_on_killer(task: tuple[list[str], engine.Options]) -> list:
        if any(path.endswith("killer.py") for path in task[0]):
            os.kill(os.getpid(), signal.SIGKILL)
        return real(task)

    monkeypatch.setattr(engine, "process_chunk", dies_on_killer)
    outcome = engine.run([tmp_path], engine.Options(mode="lint", jobs=2))
    errors = {Path(r.path).name: r.error.message for r in outcome.results if r.error}
    assert "killer.py" in errors and "worker process died" in errors["killer.py"]
    assert outcome.exit_code == 2
    # the other worker processed every other file
    assert set(errors) == {"killer.py"}
    assert set(summary(outcome)) == {f"m{i}.py" for i in range(12)}


@pytest.mark.skipif(not pool.available(), reason="the fork pool runs on Linux only")
def test_pool_and_serial_runs_agree(tmp_path: Path) -> None:
    write_tree(tmp_path, {f"pkg/m{i}.py": V1 + f"x{i} = DFlashWorker\n" * (i + 1) for i in range(20)})
    write_tree(tmp_path, {"pkg/broken.py": V1 + "def (:\n"})
    serial = engine.run([tmp_path], engine.Options(mode="check", jobs=1))
    forked = engine.run([tmp_path], engine.Options(mode="check", jobs=3))
    assert [(r.path, r.findings, r.new_bytes, r.error) for r in serial.results] == \
        [(r.path, r.findings, r.new_bytes, r.error) for r in forked.results]


def test_largest_files_are_handed_out_first(tmp_path: Path) -> None:
    sizes = {"small.py": 10, "huge.py": 1_000_000, "mid.py": 50_000, "tiny.py": 1}
    write_tree(tmp_path, {name: "x" * size for name, size in sizes.items()})
    chunks = batches.largest_first_chunks([str(tmp_path / name) for name in (*sizes, "gone.py")], jobs=2)
    assert chunks[0] == [str(tmp_path / "huge.py")]
    assert [Path(path).name for chunk in chunks for path in chunk] == ["huge.py", "mid.py", "small.py", "tiny.py", "gone.py"]


def test_the_executor_fallback_gives_the_same_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the fork pool is not used (Windows, macOS) a ProcessPoolExecutor runs the files."""
    write_tree(tmp_path, {f"pkg/m{i}.py": (V1 if i % 3 == 0 else "x = 1\n") for i in range(engine.POOL_MIN_FILES + 20)})
    serial = engine.run([tmp_path], engine.Options(mode="check", jobs=1))
    monkeypatch.setattr(pool, "available", lambda: False)
    executor = engine.run([tmp_path], engine.Options(mode="check", jobs=2))
    assert [(r.path, r.findings, r.new_bytes) for r in serial.results] == \
        [(r.path, r.findings, r.new_bytes) for r in executor.results]
    assert sum(1 for r in executor.results if r.findings) == (engine.POOL_MIN_FILES + 20 + 2) // 3


def test_a_git_without_perl_regexes_gets_the_fixed_string_grep(tmp_path: Path) -> None:
    """``git grep -P`` is a build option: where it fails, the second grep (extended regular
    expressions and the cookie's fixed strings) gives every file the first one would, so a
    cookie naming another encoding still sends its file to the Python prefilter."""
    write_tree(tmp_path, {
        "utf7.py": "# coding: utf-7\nfrom sglang.srt.speculative import +AGQ-flash_worker\n",
        "v1.py": V1,
        "plain.py": "# -*- coding: utf-8 -*-\nopen('x', encoding='utf-8')\n",
        "clean.py": "x = 1\n",
    })
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "fork")
    perl = gitscan.start(tmp_path)
    assert perl is not None
    searched, hits = gitscan.finish(perl)
    assert hits == {"utf7.py", "v1.py"}  # -P leaves out the UTF-8 cookie and keyword

    without_perl = gitscan.start(tmp_path)
    assert without_perl is not None
    without_perl.grep.wait()
    without_perl.grep = subprocess.Popen(["git", "grep", "--no-such-option"], cwd=tmp_path,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    fallback = gitscan.finish(without_perl)
    assert fallback is not None
    assert fallback[0] == searched and hits <= fallback[1] <= {"utf7.py", "v1.py", "plain.py"}
