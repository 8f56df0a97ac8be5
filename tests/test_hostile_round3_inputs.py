"""Issue 26 (third hostile-repository round), the input side: items 4, 6, 7, 8, 10 and 11.

The threat model is unchanged: the scanned tree comes from a stranger (a pull request in
CI, a fork being migrated). Each test names the attack it replays; all run offline and
assert behaviour (what ran, what was read, which error), never time or memory.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
V1 = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1", "COLUMNS": "200", **(env or {})}
    return subprocess.run([sys.executable, "-m", "migrator", *args], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=600, check=False)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull})


# ---- item 4: verify runs pip isolated, and checks every wheel's sha256 -------------------


@pytest.mark.parametrize("planted", ["pip/__init__.py", "textwrap.py"])
def test_verify_never_imports_the_scanned_repositorys_pip(tmp_path: Path, planted: str) -> None:
    """Attack: a repository ships its own ``pip/`` package (or a module pip imports, here
    ``textwrap``) and sets ``target-version`` in its pyproject; ``verify .`` with an empty
    cache ran ``python -m pip`` in the repository, which imported the planted code first.
    Now pip runs isolated from an empty folder; the index is unreachable, so the download
    fails cleanly (proving pip ran, with the user's pip configuration)."""
    fork, marker = tmp_path / "fork", tmp_path / "planted-code-ran"
    (fork / planted).parent.mkdir(parents=True, exist_ok=True)
    (fork / planted).write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    (fork / "pyproject.toml").write_text('[tool.dflash-migrate]\ntarget-version = "0.5.14"\n')
    (fork / "worker.py").write_text("from sglang.srt.speculative import dflash_worker_v2\n")
    env = {"DFLASH_MIGRATE_CACHE": str(tmp_path / "cache"), "PIP_INDEX_URL": "file:///nonexistent",
           "PIP_CONFIG_FILE": os.devnull, "PIP_FIND_LINKS": "", "PIP_NO_INPUT": "1"}
    result = cli("verify", ".", cwd=fork, env=env)
    assert not marker.exists(), f"the repository's {planted} ran inside pip"
    assert result.returncode == 2, result.stdout + result.stderr
    assert "could not download sglang==0.5.14" in result.stderr


def _fake_wheel(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("sglang/__init__.py", "")
        archive.writestr("sglang/srt/speculative/dflash_worker_v2.py", "class DFlashWorkerV2: ...\n")


def test_verify_refuses_a_cached_release_wheel_with_other_bytes(tmp_path: Path) -> None:
    """Attack: a wheel planted in the shared cache under a release's name (a poisoned CI
    cache) was unpacked and trusted by ``verify``. Its sha256 is now checked against the
    release table kept beside the catalog: a clear error, and the wheel is not used."""
    from migrator.releases.hashes import WHEEL_SHA256

    name = next(n for n in WHEEL_SHA256 if n.startswith("sglang-0.5.14-"))
    _fake_wheel(tmp_path / "cache" / "wheels" / name)
    (tmp_path / "worker.py").write_text("from sglang.srt.speculative import dflash_worker_v2\n")
    result = cli("verify", "--target-version", "0.5.14", ".", cwd=tmp_path,
                 env={"DFLASH_MIGRATE_CACHE": str(tmp_path / "cache")})
    assert result.returncode == 2, result.stdout + result.stderr
    assert "does not match the known release's hash" in result.stderr
    assert "worker.py" not in result.stdout  # nothing was checked against it


def test_other_cached_wheels_are_checked_against_the_hash_recorded_at_download(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack: a wheel of a release the table does not know, replaced in the cache after
    its download; the hash recorded beside it at download no longer matches."""
    from migrator.releases import wheels

    monkeypatch.setenv("DFLASH_MIGRATE_CACHE", str(tmp_path))
    wheel = tmp_path / "wheels" / "sglang-9.9.9-py3-none-any.whl"
    _fake_wheel(wheel)
    (tmp_path / "wheels" / (wheel.name + ".sha256")).write_text("0" * 64 + "\n")
    with pytest.raises(wheels.WheelError, match="does not match the hash recorded at download"):
        wheels.cached_wheel("9.9.9")
    import hashlib

    (tmp_path / "wheels" / (wheel.name + ".sha256")).write_text(hashlib.sha256(wheel.read_bytes()).hexdigest())
    assert wheels.cached_wheel("9.9.9") == wheel


# ---- item 6: tracked files are never ignored; what discovery leaves out is counted ----------


@needs_git
@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_committed_gitignore_does_not_hide_tracked_files(tmp_path: Path, fmt: str) -> None:
    """Attack: a pull request adds ``pkg/.gitignore`` holding ``*``: discovery applied it to
    the files git tracks, so ``lint .`` passed on committed V1 code with no notice in any
    format. Git never ignores a tracked file, and now neither does discovery; what it
    does leave out (an untracked file the ignore file matches, a default-excluded
    folder) is counted in every format's summary."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "worker.py").write_text(V1)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "fork")
    (tmp_path / "pkg" / ".gitignore").write_text("*\n")
    git(tmp_path, "add", "-f", "pkg/.gitignore")
    git(tmp_path, "commit", "-q", "-m", "hide it")
    (tmp_path / "pkg" / "scratch.py").write_text(V1)  # untracked: the ignore file applies
    (tmp_path / ".venv").mkdir()
    result = cli("lint", "--output-format", fmt, ".", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "worker.py" in result.stdout and "scratch.py" not in result.stdout
    if fmt == "text":
        assert "2 paths left out by ignore files and excludes" in result.stdout
        check = cli("fix", "--check", ".", cwd=tmp_path)
        assert "1 would change" in check.stderr and "2 paths left out by ignore files and excludes" in check.stderr
        return
    document = json.loads(result.stdout)
    summary = document["summary"] if fmt == "json" else document["runs"][0]["properties"]["summary"]
    assert summary["left_out"] == 2
    if fmt == "json":
        import jsonschema

        schema = json.loads((REPO / "migrator" / "report" / "schema" / "lint-v1.schema.json").read_text())
        jsonschema.validate(document, schema)


@needs_git
def test_exclude_still_leaves_out_tracked_files_visibly(tmp_path: Path) -> None:
    """``--exclude`` stays the way to leave a tracked file out, and it is counted."""
    (tmp_path / "worker.py").write_text(V1)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "fork")
    result = cli("lint", "--exclude", "worker.py", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 path left out by ignore files and excludes" in result.stdout


# ---- item 7: the git prefilter covers only what git grep reads ---------------------------


@needs_git
@pytest.mark.parametrize("kind", ["symlink", "gitlink"])
def test_index_entry_of_another_type_is_read_in_python(tmp_path: Path, kind: str) -> None:
    """Attack: the index records ``worker.py`` as a symbolic link (or a gitlink, as in a fork
    archive shipped with its ``.git``) while the work tree holds a regular file with V1
    code: ``git grep`` never reads it, yet it counted as searched, so ``lint .`` passed."""
    root = tmp_path / "fork"
    root.mkdir()
    git(root, "init", "-q")
    (root / "clean.py").write_text("x = 1\n")
    if kind == "symlink":
        (root / "worker.py").symlink_to("clean.py")
        git(root, "add", "-A")
    else:
        git(root, "add", "-A")
        git(root, "update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},worker.py")
    git(root, "commit", "-q", "-m", "fork")
    (root / "worker.py").unlink(missing_ok=True)
    (root / "worker.py").write_text(V1)
    result = cli("lint", ".", cwd=root)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "worker.py:1:" in result.stdout


# ---- item 8: sizes are checked before reading ------------------------------------------


def _rchar() -> int:
    """Bytes this process has read through read() calls (Linux's ``/proc/self/io``)."""
    with open("/proc/self/io") as stream:
        return int(next(line for line in stream if line.startswith("rchar:")).split()[1])


def _bytes_read_by(action: Callable[[], object]) -> tuple[int, object]:
    """(bytes read while ``action`` ran, what it returned or raised)."""
    before = _rchar()
    try:
        outcome = action()
    except Exception as error:  # noqa: BLE001 - returned for the test to check
        outcome = error
    return _rchar() - before, outcome


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs Linux's /proc/self/io to count bytes read")
def test_sparse_gigabyte_file_is_an_error_without_being_read(tmp_path: Path) -> None:
    """Attack: one sparse 1 GiB ``.py`` in a downloaded archive: every byte was read (and
    lower-cased) before the size limit applied. Now the size is asked first: nothing of
    it is read, and the file is a per-file error naming the limit."""
    from migrator.base.fileio import MAX_READ_BYTES
    from migrator.run import engine, pipeline
    big = tmp_path / "huge.py"
    with big.open("wb") as stream:
        stream.truncate(1 << 30)
    (tmp_path / "good.py").write_text(V1)
    options = engine.Options(mode="lint", jobs=1)
    pipeline.analyze_path(tmp_path / "good.py", options)  # imports and tables warmed up
    read, result = _bytes_read_by(lambda: pipeline.analyze_path(big, options))
    assert read < 1 << 20, f"{read} bytes read for a file over the limit"
    assert result.error is not None
    assert result.error.message.startswith("file too large to read")
    assert f"limit of {MAX_READ_BYTES // 2**20} MiB" in result.error.message
    cli_result = cli("lint", ".", cwd=tmp_path)
    assert cli_result.returncode == 2
    assert "huge.py: error: file too large to read" in cli_result.stdout + cli_result.stderr
    assert "good.py:1:" in cli_result.stdout


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs Linux's /proc/self/io to count bytes read")
def test_a_file_growing_after_the_size_check_is_cut_at_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack: the file grows between ``fstat`` and the read (a FUSE file, a log still being
    written): at most the limit plus one byte is read, then the file is an error."""
    from migrator.base import fileio

    path = tmp_path / "growing.py"
    path.write_bytes(b"x = 1\n" * 100_000)  # 600 kB really there
    real_fstat = os.fstat

    def fstat_before_growth(descriptor: int) -> os.stat_result:
        info = real_fstat(descriptor)
        return os.stat_result((*info[:6], 10, *info[7:10]))  # as if it was 10 bytes when asked

    monkeypatch.setattr(fileio.os, "fstat", fstat_before_growth)
    read, error = _bytes_read_by(lambda: fileio.read_bytes(path, limit=1000))
    assert read <= 1001 + 4096, read  # the limit, one byte more, and /proc/self/io itself
    assert isinstance(error, fileio.SourceError) and error.message.startswith("file too large to read")


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs Linux's /proc/self/io to count bytes read")
def test_sparse_gigabyte_pyproject_is_a_config_error_without_being_read(tmp_path: Path) -> None:
    """Attack: the same sparse 1 GiB file as the repository's ``pyproject.toml``: the config
    search read all of it to look for ``dflash-migrate``. Now it is a clear config error."""
    from migrator.run import config

    with (tmp_path / "pyproject.toml").open("wb") as stream:
        stream.truncate(1 << 30)
    read, error = _bytes_read_by(lambda: config.load(tmp_path))
    assert read < 1 << 20, f"{read} bytes read"
    assert isinstance(error, config.ConfigError) and "file too large to read" in str(error)


def test_notebook_over_its_limit_is_an_error_naming_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack: a notebook had no size limit at all (a 42 MB one took 600 MB and 13 s to
    parse); now a candidate notebook over ``MAX_NOTEBOOK_BYTES`` is a per-file error and
    is never parsed."""
    from migrator.run import dispatch, engine, pipeline
    from migrator.text import notebook

    monkeypatch.setattr(dispatch, "MAX_NOTEBOOK_BYTES", 4096)
    cell = {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [{"output_type": "stream",
            "name": "stdout", "text": ["x" * 10_000]}], "source": [V1]}
    path = tmp_path / "big.ipynb"
    path.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    monkeypatch.setattr(notebook.json if hasattr(notebook, "json") else json, "loads",
                        lambda *a, **k: pytest.fail("the notebook was parsed"))
    result = pipeline.analyze_path(path, engine.Options(mode="lint", jobs=1))
    assert result.error is not None and result.error.message.startswith("file too large to analyse")


# ---- item 10: no input-controlled recursion --------------------------------------------


def test_eleven_hundred_nested_folders(tmp_path: Path) -> None:
    """Attack: ~1,100 nested folders made the recursive walk raise an uncaught
    ``RecursionError``: a traceback and exit 1 (read by CI as "findings"), ``--exit-zero``
    ignored. Now the walk uses an explicit stack and finds the deepest file."""
    folders = [tmp_path / "d"]
    for _ in range(1099):
        folders.append(folders[-1] / "d")
    try:
        for folder in folders:
            os.mkdir(folder)  # os.makedirs recurses too
        (folders[-1] / "worker.py").write_text(V1)
        result = cli("lint", "--output-format", "json", ".", cwd=tmp_path)
        assert "Traceback" not in result.stderr, result.stderr[-2000:]
        assert result.returncode == 1
        assert {f["path"].count("d/") for f in json.loads(result.stdout)["findings"]} == {1100}
        assert cli("lint", "--exit-zero", ".", cwd=tmp_path).returncode == 0
    finally:  # pytest's own clean-up (shutil.rmtree) recurses per level
        (folders[-1] / "worker.py").unlink(missing_ok=True)
        for folder in reversed(folders):
            if folder.exists():
                folder.rmdir()


def test_eleven_hundred_module_reexport_chain(tmp_path: Path) -> None:
    """Attack: a 1,100-module re-export chain (``m{i}`` re-exports ``m{i-1}``'s name, ``m0``
    imports the V1 worker) made fork-index resolution recurse once per hop: an uncaught
    ``RecursionError``, exit 1. Now an explicit stack follows it to the end."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "m0.py").write_text("from sglang.srt.speculative.dflash_worker import DFlashWorker as W0\n")
    for i in range(1, 1101):
        (tmp_path / "pkg" / f"m{i}.py").write_text(f"from pkg.m{i - 1} import W{i - 1} as W{i}\n")
    result = cli("lint", "--output-format", "json", "pkg/m1100.py", cwd=tmp_path)
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.returncode == 1, result.stderr[-2000:]
    (finding,) = json.loads(result.stdout)["findings"]
    assert finding["code"] == "DFM500"
    assert "pkg/m0.py:1" in finding["message"] and "pkg/m1099.py:1" in finding["message"]


def test_an_unexpected_exception_in_one_file_is_that_files_error(tmp_path: Path) -> None:
    """Attack: an expression nested 50,000 deep (``x = a+1+1+...``) made ``verify`` raise an
    uncaught ``RecursionError`` while building the tree: a traceback and exit 1. Any
    unexpected failure in one file is now that file's error (exit 2, also under ``lint
    --exit-zero``), and the other files are still checked."""
    (tmp_path / "deep.py").write_text("import sglang\nx = sglang.a" + "+1" * 50_000 + "\n")
    (tmp_path / "ok.py").write_text("import sglang.srt.speculative.missing_module\n")
    # what the target holds does not matter here: a folder with an (almost) empty sglang
    target = tmp_path / "target"
    (target / "sglang" / "srt").mkdir(parents=True)
    (target / "sglang" / "__init__.py").write_text("")
    (target / "sglang" / "srt" / "__init__.py").write_text("")
    result = cli("verify", "--sglang", str(target / "sglang"), "deep.py", "ok.py", cwd=tmp_path)
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.returncode == 2, result.stdout + result.stderr
    assert "deep.py: error: cannot verify (RecursionError" in result.stdout + result.stderr
    assert "ok.py:1:" in result.stdout  # the other file was still checked
    (tmp_path / ".gitignore").write_text("scratch/\n")
    (tmp_path / "scratch").mkdir()
    counted = cli("verify", "--sglang", str(target / "sglang"), "--format", "json", ".", cwd=tmp_path)
    assert json.loads(counted.stdout)["summary"]["left_out"] == 1  # scratch/ (verify's discovery counts too)
    lint = cli("lint", "--exit-zero", "--parse-all", ".", cwd=tmp_path)
    assert lint.returncode == 2 and "deep.py" in lint.stdout + lint.stderr


# ---- item 11: coding cookies ----------------------------------------------------------


COOKIES = {
    "utf7.py": b"# coding: utf-7\nfrom sglang.srt.speculative import +AGQ-flash_worker\n",
    "escape.py": b"# -*- coding: unicode_escape -*-\nfrom sglang.srt.speculative import \\x64flash_worker\n",
    "raw_escape.py": b"# vim: set fileencoding=raw_unicode_escape :\nfrom sglang.srt.speculative import \\u0064flash_worker\n",
}


@pytest.mark.parametrize("name", sorted(COOKIES))
@pytest.mark.parametrize("args", [("lint", "."), ("lint", "--parse-all", "."), ("lint", "FILE")])
def test_coding_cookie_does_not_hide_v1_names(tmp_path: Path, name: str, args: tuple[str, ...]) -> None:
    """Attack: a coding cookie (utf-7, unicode_escape) spells ``dflash_worker`` in bytes the
    byte prefilter does not recognise, while Python decodes and imports the V1 module;
    ``lint --parse-all`` exited 0. The prefilter now reads the decoded text."""
    (tmp_path / name).write_bytes(COOKIES[name])
    result = cli(*(name if a == "FILE" else a for a in args), cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{name}:2:" in result.stdout and "DFM101" in result.stdout


@needs_git
@pytest.mark.parametrize("name", sorted(COOKIES))
def test_coding_cookie_in_a_git_work_tree(tmp_path: Path, name: str) -> None:
    """The same files committed: ``git grep`` finds no marker in them, so a cookie naming
    an encoding other than UTF-8 must send the file to the Python prefilter too."""
    (tmp_path / name).write_bytes(COOKIES[name])
    (tmp_path / "plain.py").write_text("# -*- coding: utf-8 -*-\nx = 1\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "fork")
    result = cli("lint", ".", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{name}:2:" in result.stdout


def test_fix_leaves_a_file_whose_encoding_does_not_round_trip(tmp_path: Path) -> None:
    """``fix`` on such a file: re-encoding it would rewrite every line (``unicode_escape``
    writes a newline back as ``\\n``), so it is left unchanged with a clear error."""
    path = tmp_path / "escape.py"
    path.write_bytes(COOKIES["escape.py"])
    result = cli("fix", "--allow-dirty", ".", cwd=tmp_path)
    assert result.returncode == 2
    assert "declared encoding (unicode_escape) does not give back the file's bytes" in result.stderr
    assert path.read_bytes() == COOKIES["escape.py"]
