"""Issue 49: a run over named files gives each file the findings a whole-tree run gives it,
with and without the persistent cache of the fork index's summaries
(``migrator.run.summary_cache``), after a re-exporting module changes, and whatever a
damaged or hostile cache holds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_forkindex import FIXTURE, NGRAM_FORK, RETURNS_FORK, TARGET

from migrator.run import engine
from migrator.run.result import RunResult

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

CORPORA = {
    "index_fixture": None,  # re-exports, chains, subclasses across files (tests/data/forks/index_fixture)
    "returns": RETURNS_FORK,  # return annotations across modules
    "ngram": NGRAM_FORK,  # receivers typed in other modules: the modules read for `wanted`
}


def _committed(root: Path) -> None:
    for args in (("init", "-q"), ("add", "-A"), ("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "fork")):
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def _corpus(name: str, root: Path) -> Path:
    if CORPORA[name] is None:
        shutil.copytree(FIXTURE, root)
    else:
        for relative, text in CORPORA[name].items():
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            (root / relative).write_text(text)
    _committed(root)
    return root


def _options(cache: Path | None) -> engine.Options:
    return engine.Options(mode="lint", target_version=TARGET, jobs=1, cache_dir=str(cache) if cache else None,
                          no_cache=cache is None)


def _by_file(outcome: RunResult) -> dict[str, list[tuple]]:
    """Each Python file's findings as reports show them, the files they come through by real path."""
    return {str(Path(r.path).resolve()): [(*f[1:5], f.message, [(str(Path(p).resolve()), line) for p, line in f.related])
                                          for f in r.findings]
            for r in outcome.results if r.path.endswith(".py")}


def _alone(path: Path, cache: Path | None) -> list[tuple]:
    found = _by_file(engine.run([path], _options(cache)))
    return found[str(path.resolve())]


def _python_files(root: Path) -> list[Path]:
    return sorted(path for path in root.rglob("*.py") if ".git" not in path.parts)


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_one_file_gives_its_part_of_the_whole_run_without_with_a_cold_and_a_warm_cache(
        corpus: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _corpus(corpus, tmp_path / "fork")
    cache = tmp_path / "cache"
    monkeypatch.chdir(root)
    whole = _by_file(engine.run([Path(".")], _options(None)))
    assert any(whole.values())
    for path in _python_files(root):
        expected = whole.get(str(path.resolve()), [])
        relative = path.relative_to(root)
        assert _alone(relative, None) == expected, (relative, "no cache")
        assert _alone(relative, cache) == expected, (relative, "cold cache")
        assert _alone(relative, cache) == expected, (relative, "warm cache")
    assert any(path.is_file() for path in cache.rglob("*")), "the runs over named files kept no summary"


def test_the_cache_notices_a_reexporting_module_that_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _corpus("index_fixture", tmp_path / "fork")
    cache = tmp_path / "cache"
    monkeypatch.chdir(root)
    chain = Path("idxfork/chain.py")
    before = _alone(chain, cache)
    assert [finding[1] for finding in before] == ["DFM500"]  # through aliases.py's re-export
    aliases = root / "idxfork" / "aliases.py"  # no V1 object any more: chain.py has nothing to migrate
    aliases.write_text(aliases.read_text().replace(
        "from sglang.srt.speculative.dflash_worker import DFlashWorker as BaseWorker\n", "class BaseWorker:\n    pass\n"))
    whole = _by_file(engine.run([Path(".")], _options(None)))
    after = _alone(chain, cache)
    assert after == whole.get(str(chain.resolve()), []) == []
    tuned = Path("idxfork/tuned.py")
    assert _alone(tuned, cache) == whole[str(tuned.resolve())] == _alone(tuned, None)


def _damage(cache: Path, how: str) -> int:
    entries = sorted(path for path in cache.rglob("*") if path.is_file())
    foreign = [json.loads(path.read_bytes()) for path in entries]
    for number, path in enumerate(entries):
        data = path.read_bytes()
        if how == "corrupt":
            path.write_bytes(b"\x00\xff{not json" + data[::-1])
        elif how == "truncated":
            path.write_bytes(data[:len(data) // 2])
        elif how == "foreign":  # another file's entry under this name: its key does not match
            path.write_text(json.dumps(foreign[(number + 1) % len(foreign)]))
        elif how == "hostile":  # the right key, a summary (or a repository map) of the wrong shape
            entry = json.loads(data)
            if "files" in entry:  # the repository map: each file's blob id and prefilter answer
                entry["files"] = {path: [blob, "no"] for path, (blob, _) in entry["files"].items()}
            elif entry["summary"] is not None:
                entry["summary"]["binds"] = {"DFlashWorker": "sglang.srt.speculative.dflash_worker.DFlashWorker"}
            else:
                entry["summary"] = {"root": 1}
            path.write_text(json.dumps(entry))
        elif how == "empty":
            path.write_bytes(b"")
    return len(entries)


@pytest.mark.parametrize("how", ["corrupt", "truncated", "foreign", "hostile", "empty"])
def test_a_damaged_cache_gives_the_findings_of_no_cache(how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _corpus("index_fixture", tmp_path / "fork")
    cache = tmp_path / "cache"
    monkeypatch.chdir(root)
    files = [path.relative_to(root) for path in _python_files(root / "idxfork")]
    expected = {path: _alone(path, None) for path in files}
    for path in files:
        _alone(path, cache)  # warm
    assert _damage(cache, how) > 1
    for path in files:
        assert _alone(path, cache) == expected[path], (how, path)


def test_no_cache_writes_nothing_and_the_cache_stays_outside_the_tree(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _corpus("index_fixture", tmp_path / "fork")
    monkeypatch.chdir(root)
    monkeypatch.setenv("DFLASH_MIGRATE_CACHE", str(tmp_path / "user-cache"))
    engine.run([Path("idxfork/chain.py")], engine.Options(mode="lint", target_version=TARGET, jobs=1, no_cache=True))
    assert not (tmp_path / "user-cache").exists()
    engine.run([Path("idxfork/chain.py")], engine.Options(mode="lint", target_version=TARGET, jobs=1))
    assert any(path.is_file() for path in (tmp_path / "user-cache" / "summaries").rglob("*"))
    status = subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=root, capture_output=True, text=True)
    assert status.stdout == ""


def test_named_files_take_the_git_grep_narrowing_of_a_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 51 item 3 (`pre-commit run --all-files` names every file): files git searched
    and found no marker in are not read again in Python, as in `lint .`; the findings are
    the same."""
    from migrator.run import pipeline

    root = tmp_path / "fork"
    shutil.copytree(FIXTURE, root)
    for number in range(30):
        (root / "unrelated" / f"m{number}.py").parent.mkdir(exist_ok=True)
        (root / "unrelated" / f"m{number}.py").write_text(f"def f{number}():\n    return {number}\n")
    _committed(root)
    monkeypatch.chdir(root)
    read: list[str] = []
    real = pipeline.read_bytes
    monkeypatch.setattr(pipeline, "read_bytes", lambda path: read.append(path) or real(path))
    named = [path.relative_to(root) for path in _python_files(root)]
    every = engine.run(named, _options(None))
    assert not [path for path in read if "unrelated" in path], read
    assert _by_file(every) == _by_file(engine.run([Path(".")], _options(None)))


def test_one_file_gets_the_fix_of_the_whole_run_with_and_without_the_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixes too: `fix --diff FILE` writes what `fix --diff .` writes for that file
    (compat.py keeps the names workers.py and registry.py import from it bound)."""
    root = _corpus("index_fixture", tmp_path / "fork")
    cache = tmp_path / "cache"
    monkeypatch.chdir(root)

    def new_bytes(paths: list[Path], cache: Path | None) -> dict[str, bytes | None]:
        options = _options(cache)._replace(mode="diff")
        return {str(Path(r.path).resolve()): r.new_bytes for r in engine.run(paths, options).results}

    whole = new_bytes([Path(".")], None)
    assert sum(value is not None for value in whole.values()) >= 5
    for path in _python_files(root / "idxfork"):
        relative = path.relative_to(root)
        for run in (None, cache, cache):  # no cache, cold, warm
            assert new_bytes([relative], run)[str(path.resolve())] == whole.get(str(path.resolve())), (relative, run)


def test_verbose_says_what_the_index_read_and_what_the_cache_gave(tmp_path: Path) -> None:
    import os
    import sys

    root = _corpus("index_fixture", tmp_path / "fork")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}

    def verbose() -> str:
        run = subprocess.run([sys.executable, "-m", "migrator", "lint", "-v", "--cache-dir", str(tmp_path / "cache"),
                              "idxfork/chain.py"], cwd=root, env=env, capture_output=True, text=True, timeout=120)
        assert run.returncode == 1 and "DFM500" in run.stdout, run.stderr
        return next(line for line in run.stderr.splitlines() if line.startswith("fork index: read"))

    cold, warm = verbose(), verbose()
    assert f"under {root.resolve()} (the repository)" in cold and " 0 entries reused" in cold
    assert " 0 missed" in warm and " 0 entries reused" not in warm


_WRITER = """
import sys, time
from migrator.base.options import Options
from migrator.run.summary_cache import SummaryCache
from migrator.python.forkindex import ModuleSummary
folder, path, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
cache = SummaryCache(Options(cache_dir=folder))
summary = ModuleSummary(path, "/r", "pkg.m", {"W": ("sglang.srt.speculative.dflash_worker.DFlashWorker", 1)},
                        {}, {}, (), None, {}, (), {})
end = time.monotonic() + seconds
while time.monotonic() < end:
    cache.put("index", path, "pkg.m", b"data", summary)
"""


def test_concurrent_runs_see_a_whole_entry_or_none(tmp_path: Path) -> None:
    """Two processes writing one entry over and over while this one reads it: every read
    is the entry or a miss, and no temporary file is left behind."""
    import sys

    from migrator.run.summary_cache import SummaryCache

    folder, path = str(tmp_path / "cache"), str(tmp_path / "m.py")
    env = {"PYTHONPATH": str(Path(__file__).resolve().parents[1]), "PATH": "/usr/bin:/bin"}
    writers = [subprocess.Popen([sys.executable, "-c", _WRITER, folder, path, "2"], env=env) for _ in range(2)]
    cache = SummaryCache(engine.Options(cache_dir=folder))
    seen = set()
    while any(writer.poll() is None for writer in writers):
        found, summary = cache.get("index", path, "pkg.m", b"data")
        seen.add(found)
        assert not found or summary.binds == {"W": ("sglang.srt.speculative.dflash_worker.DFlashWorker", 1)}
    assert all(writer.returncode == 0 for writer in writers)
    assert True in seen
    assert not [p for p in (tmp_path / "cache").rglob("*") if p.name.endswith(".tmp")]


def _fix_of(path: Path, cache: Path | None) -> bytes | None:
    options = _options(cache)._replace(mode="diff")
    return {str(Path(r.path).resolve()): r.new_bytes for r in engine.run([path], options).results}[str(path.resolve())]


def _whole_fix_of(path: Path) -> bytes | None:
    options = _options(None)._replace(mode="diff")
    return {str(Path(r.path).resolve()): r.new_bytes for r in engine.run([Path(".")], options).results}.get(
        str(path.resolve()))


def test_the_fix_follows_an_importer_that_changed_uncommitted_then_committed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The other direction: `fix compat.py` keeps `DFlashWorker` bound because workers.py
    imports it from there. When workers.py stops importing it (first in the work tree only,
    then committed), the warm cache gives what a whole-tree run gives, each time."""
    root = _corpus("index_fixture", tmp_path / "fork")
    cache = tmp_path / "cache"
    monkeypatch.chdir(root)
    compat, workers = Path("idxfork/compat.py"), root / "idxfork" / "workers.py"
    before = _whole_fix_of(compat)
    assert before is not None and b"as DFlashWorker" in before
    assert _fix_of(compat, cache) == _fix_of(compat, cache) == before  # cold, warm
    workers.write_text(workers.read_text().replace("from .compat import DFlashWorker\n",
                                                   "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2 as DFlashWorker\n"))
    changed = _whole_fix_of(compat)
    assert _fix_of(compat, cache) == changed == _fix_of(compat, None), "uncommitted change of an importer"
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "workers"], check=True)
    assert _fix_of(compat, cache) == changed == _fix_of(compat, cache), "committed change of an importer"


def test_a_warm_run_over_a_named_file_asks_git_for_its_index_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 49: with the repository map kept in the cache, a warm run over a named file
    neither greps the repository nor reads the files the map settles; its findings are the
    whole run's for that file."""
    from migrator.run import gitscan, pipeline, repo_map

    root = _corpus("index_fixture", tmp_path / "fork")
    for number in range(30):  # files the index must rule out
        (root / "unrelated" / f"m{number}.py").parent.mkdir(exist_ok=True)
        (root / "unrelated" / f"m{number}.py").write_text(f"def f{number}():\n    return {number}\n")
    _committed(root)
    cache = tmp_path / "cache"
    monkeypatch.chdir(root)
    chain = Path("idxfork/chain.py")
    expected = _by_file(engine.run([Path(".")], _options(None)))[str(chain.resolve())]
    assert expected
    assert _alone(chain, cache) == expected  # cold: fills the map
    greps: list[Path] = []
    real_start = gitscan.start
    monkeypatch.setattr(gitscan, "start", lambda root: greps.append(root) or real_start(root))
    read: list[str] = []
    real_read = repo_map.read_bytes
    monkeypatch.setattr(repo_map, "read_bytes", lambda path: read.append(path) or real_read(path))
    monkeypatch.setattr(pipeline, "read_bytes", lambda path: read.append(path) or real_read(path))
    assert _alone(chain, cache) == expected
    assert greps == [] and not [path for path in read if "unrelated" in path], (greps, read)


def test_a_cold_map_of_many_files_takes_git_grep_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``GREP_ABOVE`` unknown files the map is filled after one ``git grep`` (the files
    it finds no marker in are not read); below it, by reading them: the same findings."""
    from migrator.run import repo_map

    root = _corpus("index_fixture", tmp_path / "fork")
    monkeypatch.chdir(root)
    files = [path.relative_to(root) for path in _python_files(root / "idxfork")]
    expected = {path: _alone(path, None) for path in files}
    for above in (0, 10_000):
        monkeypatch.setattr(repo_map, "GREP_ABOVE", above)
        cache = tmp_path / f"cache-{above}"
        for path in files:
            assert _alone(path, cache) == expected[path], (above, path)


def test_the_cache_removes_other_fingerprints_left_unused_and_stays_bounded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 49 item 2: every tool version (an edited checkout too) has its own folder; those
    of other versions unused for a day go, a fresh one (another version in use) stays, and
    this version's folder keeps at most ``MAX_ENTRIES`` entries, with the same findings."""
    import os
    import time

    from migrator.run import summary_cache

    root = _corpus("index_fixture", tmp_path / "fork")
    cache = tmp_path / "cache"
    monkeypatch.chdir(root)
    old, fresh, other = cache / ("a" * 40), cache / ("b" * 40), cache / "notes"
    for folder in (old, fresh, other):
        (folder / "00").mkdir(parents=True)
        (folder / "00" / "entry").write_text("{}")
    day_ago = time.time() - summary_cache.STALE_SECONDS - 60
    os.utime(old, (day_ago, day_ago))
    os.utime(other, (day_ago, day_ago))
    monkeypatch.setattr(summary_cache, "MAX_ENTRIES", 4)
    files = [path.relative_to(root) for path in _python_files(root / "idxfork")]
    expected = {path: _alone(path, None) for path in files}
    for path in files:
        assert _alone(path, cache) == expected[path], path
    assert not old.exists() and fresh.exists() and other.exists()
    ours = [folder for folder in cache.iterdir() if folder not in (fresh, other)]
    assert len(ours) == 1 and 0 < sum(1 for entry in ours[0].rglob("*") if entry.is_file()) <= 4
    assert not [path for path in cache.iterdir() if path.name.startswith(".removing")]


_TIDIER = """
import sys, time
from pathlib import Path
from migrator.run import summary_cache
summary_cache.MAX_ENTRIES = 1
folder, seconds = Path(sys.argv[1]), float(sys.argv[2])
end = time.monotonic() + seconds
while time.monotonic() < end:
    summary_cache.tidy(folder)
"""


def test_tidying_while_another_run_reads_and_writes_gives_a_whole_entry_or_a_miss(tmp_path: Path) -> None:
    import sys

    from migrator.run.summary_cache import SummaryCache

    folder, path = str(tmp_path / "cache"), str(tmp_path / "m.py")
    env = {"PYTHONPATH": str(Path(__file__).resolve().parents[1]), "PATH": "/usr/bin:/bin"}
    cache = SummaryCache(engine.Options(cache_dir=folder))
    cache.folder.mkdir(parents=True)
    tidier = subprocess.Popen([sys.executable, "-c", _TIDIER, str(cache.folder), "2"], env=env)
    from migrator.python.forkindex import ModuleSummary

    summary = ModuleSummary(path, "/r", "pkg.m", {"W": ("sglang.srt.speculative.dflash_worker.DFlashWorker", 1)},
                            {}, {}, (), None, {}, (), {})
    seen = set()
    while tidier.poll() is None:
        for number in range(5):
            cache.put("index", path, "pkg.m", b"data %d" % number, summary)
        found, got = cache.get("index", path, "pkg.m", b"data 4")
        seen.add(found)
        assert not found or got.binds == summary.binds
    assert tidier.returncode == 0
    assert seen  # every read was a whole entry or a miss


V1_LINE = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"


@pytest.mark.parametrize("config", ["", "[core]\n\ttrustctime = false\n\tcheckStat = minimal\n"])
def test_a_named_file_edited_since_the_map_was_kept_is_read_again(
        config: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The map trusts git's index only for files `ls-files --modified` does not list: an edit of
    the same size with the modification time put back is still seen, also where the
    repository's config tells git to compare less stat data (pinned on the command line).
    git's own trust: an edit within the second git recorded, of the same size, with the
    modification time put back, is one git status misses too."""
    import os
    import time

    root = tmp_path / "fork"
    shutil.copytree(FIXTURE, root)
    calm = root / "idxfork" / "calm.py"  # no marker: the map says "nothing to read here"
    calm.write_text("X = " + "1" * (len(V1_LINE) - 5) + "\n")
    past = calm.stat().st_mtime_ns - 100 * 10**9  # older than the index: not "racily clean", no content check
    os.utime(calm, ns=(past, past))
    _committed(root)
    if config:
        with (root / ".git" / "config").open("a") as handle:
            handle.write(config)
    cache = tmp_path / "cache"
    monkeypatch.chdir(root)
    named = Path("idxfork/calm.py")
    assert _alone(named, cache) == [] == _alone(named, cache)  # the map now holds it
    time.sleep(1.1)  # git compares whole seconds of the change time where it lacks nanoseconds
    calm.write_text(V1_LINE)
    os.utime(calm, ns=(past, past))
    expected = _by_file(engine.run([Path(".")], _options(None)))[str(calm.resolve())]
    assert expected and _alone(named, cache) == expected


def test_a_named_file_python_cannot_read_is_settled_by_git_as_in_a_folder_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tracked file too large for Python to read and holding no marker: a folder's run
    never reads it (git grep settles it); a run naming it must not report it either."""
    from migrator.base.fileio import SourceError
    from migrator.run import pipeline, repo_map

    root = _corpus("index_fixture", tmp_path / "fork")
    (root / "idxfork" / "huge.py").write_text("X = 1\n")
    _committed(root)
    monkeypatch.chdir(root)

    def refuse(real):  # noqa: ANN001, ANN202
        def read(path, *args):  # noqa: ANN001, ANN202
            if str(path).endswith("huge.py"):
                raise SourceError("too large to read (stand-in)")
            return real(path, *args)
        return read

    monkeypatch.setattr(pipeline, "read_bytes", refuse(pipeline.read_bytes))
    monkeypatch.setattr(repo_map, "read_bytes", refuse(repo_map.read_bytes))
    whole = engine.run([Path(".")], _options(None))
    assert not [r for r in whole.results if r.error is not None]
    for cache in (tmp_path / "cache", tmp_path / "cache"):  # cold, warm
        alone = engine.run([Path("idxfork/huge.py")], _options(cache))
        assert [(r.path, r.error, r.findings) for r in alone.results] == [("idxfork/huge.py", None, [])]


def test_a_named_tracked_file_deleted_from_the_work_tree_is_reported_missing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _corpus("index_fixture", tmp_path / "fork")
    monkeypatch.chdir(root)
    (root / "idxfork" / "plain.py").unlink()
    for cache in (None, tmp_path / "cache", tmp_path / "cache"):
        alone = engine.run([Path("idxfork/plain.py")], _options(cache))
        assert [(r.path, r.error.message if r.error else None) for r in alone.results] == [
            ("idxfork/plain.py", "no such file or folder")], cache


def test_named_paths_through_links_are_judged_as_resolving_each_would(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Named files are checked for links folder by folder, each folder once (pre-commit names
    thousands): the answer is the one resolving every path from the root would give, for a
    link to outside at any depth, a link that stays inside, ``..`` after a link, and a file
    named directly in the current folder."""
    from migrator.run.files import _LinkCheck, discover

    outside, here = tmp_path / "outside", tmp_path / "here"
    (outside / "deep").mkdir(parents=True)
    (outside / "deep" / "x.py").write_text("x = 1\n")
    (outside / "top.py").write_text("y = 1\n")
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "x.py").write_text("x = 1\n")  # what `a/b/out/../real/x.py` reaches
    (here / "a" / "b" / "real").mkdir(parents=True)
    (here / "a" / "b" / "real" / "x.py").write_text("x = 1\n")
    (here / "a" / "b" / "out").symlink_to(outside)
    (here / "a" / "in").symlink_to(here / "a" / "b" / "real")
    (here / "top.py").write_text("z = 1\n")
    monkeypatch.chdir(here)
    named = ["top.py", "a/b/real/x.py", "a/b/out/deep/x.py", "a/in/x.py", "a/b/out/../real/x.py", "./a/b/out/top.py",
             str(here / "a" / "b" / "out" / "deep" / "x.py"), "../outside/top.py"]
    found = discover([Path(name) for name in named])
    skipped = {str(path) for path, _ in found.skipped}
    expected_outside = set()
    for name in named:
        absolute = (here / name).resolve()
        written = Path(os.path.normpath(here / name))
        if written.is_relative_to(here) and not absolute.is_relative_to(here.resolve()):
            expected_outside.add(str(Path(name)))
    assert expected_outside == {"a/b/out/deep/x.py", "a/b/out/top.py", "a/b/out/../real/x.py",
                                str(here / "a" / "b" / "out" / "deep" / "x.py")}
    assert skipped == expected_outside
    assert set(found.files) == {"top.py", "a/b/real/x.py", "a/in/x.py", "../outside/top.py"}
    check = _LinkCheck()
    assert check.reason("a/b/real/x.py", str(here / "a/b/real/x.py")) is None
    assert len(check.folders) == 4  # here, a, a/b, a/b/real: each asked once


@pytest.mark.parametrize("text", ["a/b.py", "./a", "a/./b", "../a", "a/../b", "a//b", "a/", "a/.", "a/..", ".", "..",
                                  "/abs/x", "/abs/../y", ".hidden/x.py", "a/.b/c", "a..b/c", "x..", "..x/y", "a/...",
                                  "a/b/", "-x.py", "a b/c.py"])
def test_absolute_path_is_abspath_with_the_current_folder_read_once(text: str, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Named paths are made absolute without asking for the current folder each time; the
    answer is ``os.path.abspath``'s for every spelling, the plain ones joined as they are."""
    from migrator.run.files import absolute_path

    monkeypatch.chdir(tmp_path)
    assert absolute_path(text, os.getcwd()) == os.path.abspath(text)
    assert absolute_path(text, "/") == os.path.normpath(os.path.join("/", text))


def test_under_pre_commit_a_run_takes_one_process_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """pre-commit runs one hook process per core on its own batch (the published hooks are not
    require_serial): each run is one process unless --jobs says otherwise."""
    monkeypatch.delenv("PRE_COMMIT", raising=False)
    cores = engine.default_jobs()
    assert cores == len(os.sched_getaffinity(0))
    monkeypatch.setenv("PRE_COMMIT", "1")
    assert engine.default_jobs() == 1
    published = (Path(__file__).resolve().parents[1] / ".pre-commit-hooks.yaml").read_text()
    assert "id: dflash-migrate-lint" in published and published.count("require_serial: false") == 1
