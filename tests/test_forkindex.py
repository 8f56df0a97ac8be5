"""The fork index (issue 19): V1 objects followed through the fork's own modules, on the
``idxfork`` fixture (tests/data/forks/index_fixture, see its README)."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from flakes import new_flakes

from migrator.base.model import Finding
from migrator.python import forkindex
from migrator.report import sarif
from migrator.run import batches, engine, pipeline, python_file, result
from migrator.run import fork as fork_pass

FIXTURE = Path(__file__).resolve().parent / "data" / "forks" / "index_fixture"
PACKAGE = "idxfork"
TARGET = "0.5.17"

#: (file, line, 0-based column, code, files it comes through): every Python finding.
EXPECTED = [
    ("idxfork/aliases.py", 3, 5, "DFM101", []),
    ("idxfork/aliases.py", 3, 49, "DFM102", []),
    ("idxfork/aliases.py", 5, 20, "DFM500", [("compat.py", 4)]),  # a renamed import from compat
    ("idxfork/chain.py", 3, 21, "DFM500", [("aliases.py", 3)]),  # a renamed re-export, no V1 word
    ("idxfork/compat.py", 3, 0, "DFM501", []),  # the silent downgrade
    ("idxfork/compat.py", 4, 9, "DFM103", []),
    ("idxfork/compat.py", 4, 51, "DFM103", []),
    ("idxfork/compat.py", 5, 9, "DFM101", []),
    ("idxfork/compat.py", 5, 53, "DFM102", []),
    ("idxfork/deep.py", 7, 4, "DFM107", [("workers.py", 6)]),  # subclass of a subclass in another file
    ("idxfork/registry.py", 8, 13, "DFM500", [("compat.py", 5)]),  # module-attribute form
    ("idxfork/registry.py", 9, 16, "DFM502", [("workers.py", 6)]),  # a registry holding a V1 subclass
    ("idxfork/tuned.py", 3, 26, "DFM500", [("chain.py", 3), ("aliases.py", 3)]),  # absolute, chained
    ("idxfork/tuned.py", 6, 18, "DFM500", [("chain.py", 3), ("aliases.py", 3)]),  # its class line (fork_uses)
    ("idxfork/tuned.py", 7, 4, "DFM106", [("chain.py", 3), ("aliases.py", 3)]),
    ("idxfork/uses_wrapper.py", 7, 15, "DFM109", [("wrappers.py", 13)]),  # through another module's wrapper
    ("idxfork/workers.py", 3, 20, "DFM500", [("compat.py", 5)]),  # relative
    ("idxfork/workers.py", 6, 21, "DFM500", [("compat.py", 5)]),  # the subclass's base (fork_uses)
    ("idxfork/workers.py", 11, 4, "DFM106", [("compat.py", 5)]),
    ("idxfork/workers.py", 13, 15, "DFM106", []),
    ("idxfork/workers.py", 15, 4, "DFM108", [("compat.py", 5)]),
    ("idxfork/wrappers.py", 9, 24, "DFM500", [("compat.py", 4)]),  # a TYPE_CHECKING import
    ("idxfork/wrappers.py", 18, 15, "DFM109", []),  # a string annotation of a dataclass field
]


def found(outcome: result.RunResult, root: Path) -> list[tuple]:
    return sorted((Path(f.path).relative_to(root).as_posix(), f.line, f.column, f.code,
                   [(Path(p).name, line) for p, line in f.related])
                  for r in outcome.results for f in r.findings if f.path.endswith(".py"))


@pytest.fixture
def fork(tmp_path: Path) -> Path:
    copy = tmp_path / "index_fixture"
    shutil.copytree(FIXTURE, copy)
    return copy


@pytest.mark.parametrize("jobs", [1, 2])
def test_every_finding_of_the_fixture(fork: Path, jobs: int) -> None:
    outcome = engine.run([fork], engine.Options(mode="lint", target_version=TARGET, jobs=jobs))
    assert found(outcome, fork) == EXPECTED
    assert not any(r.error for r in outcome.results)


def test_the_must_not_flag_cases_and_the_third_party_package_are_clean(fork: Path) -> None:
    outcome = engine.run([fork], engine.Options(mode="lint", target_version=TARGET, jobs=1))
    flagged = {Path(r.path).name for r in outcome.results if r.findings}
    assert "plain.py" not in flagged and "dflash_worker.py" not in flagged and "__init__.py" not in flagged


def test_one_file_gives_its_part_of_the_whole_run(fork: Path) -> None:
    whole = engine.run([fork], engine.Options(mode="lint", target_version=TARGET, jobs=1))
    by_file = {r.path: r.findings for r in whole.results}
    for path in sorted((fork / PACKAGE).glob("*.py")):
        alone = engine.run([path], engine.Options(mode="lint", target_version=TARGET, jobs=1))
        assert [f[1:] for f in alone.results[0].findings] == [f[1:] for f in by_file.get(str(path), [])], path.name


def test_without_the_index_the_reexports_are_invisible(fork: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the single-file analysis gave before the index (the bug of issue 19)."""
    monkeypatch.setattr(forkindex.ForkIndex, "carriers", lambda self: frozenset())
    outcome = engine.run([fork], engine.Options(mode="lint", target_version=TARGET, jobs=1))
    files = {f[0] for f in found(outcome, fork)}
    assert not files & {"idxfork/chain.py", "idxfork/tuned.py", "idxfork/deep.py", "idxfork/registry.py",
                        "idxfork/uses_wrapper.py"}


def test_sarif_names_the_files_a_finding_comes_through(fork: Path) -> None:
    outcome = engine.run([fork / PACKAGE / "tuned.py"], engine.Options(mode="lint", target_version=TARGET, jobs=1))
    document = sarif.document(outcome.results, outcome.summary)
    results = [r for run in document["runs"] for r in run["results"] if r["ruleId"] == "DFM106"]
    related = results[0]["relatedLocations"]
    assert [(Path(loc["physicalLocation"]["artifactLocation"]["uri"]).name, loc["physicalLocation"]["region"]["startLine"])
            for loc in related] == [("chain.py", 3), ("aliases.py", 3)]
    json.dumps(document)
    assert "chain.py:3" in results[0]["message"]["text"]


def module_bindings(tree: ast.Module) -> set[str]:
    """Names a module binds at module level on any path (imports, assignments, defs, in
    ``try``/``if`` branches too)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).partition(".")[0] for a in node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def broken_imports(root: Path) -> list[str]:
    """``from .x import Y`` / ``from idxfork.x import Y`` / ``import idxfork.x as c`` then
    ``c.Y`` between the fixture's modules where ``x`` does not bind ``Y``."""
    package = root / PACKAGE
    bound = {p.stem: module_bindings(ast.parse(p.read_text())) for p in package.glob("*.py")}
    broken: list[str] = []
    for path in package.glob("*.py"):
        tree = ast.parse(path.read_text())
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.level == 1 or (node.module or "").startswith(PACKAGE + ".")):
                module = (node.module or "").rpartition(".")[2] if node.level == 0 else node.module
                for alias in node.names:
                    if module in bound and alias.name not in bound[module]:
                        broken.append(f"{path.name}: {module}.{alias.name}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith(PACKAGE + ".") and alias.asname:
                        aliases[alias.asname] = alias.name.rpartition(".")[2]
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                if node.attr not in bound[aliases[node.value.id]]:
                    broken.append(f"{path.name}: {aliases[node.value.id]}.{node.attr}")
    return broken


@pytest.mark.parametrize("unsafe", [False, True], ids=["default", "unsafe-fixes"])
@pytest.mark.parametrize("excluded", [None, "idxfork/registry.py", "idxfork/workers.py"])
def test_fixing_keeps_every_import_between_the_modules(fork: Path, unsafe: bool, excluded: str | None) -> None:
    before = {p: p.read_text() for p in (fork / PACKAGE).glob("*.py")}
    assert broken_imports(fork) == []
    options = engine.Options(mode="fix", target_version=TARGET, unsafe_fixes=unsafe, allow_dirty=True, jobs=1,
                             exclude=((str(fork), excluded),) if excluded else ())
    outcome = engine.run([fork], options)
    assert not any(r.error for r in outcome.results), [str(r.error) for r in outcome.results if r.error]
    assert outcome.summary.files_changed >= 5
    if excluded:
        assert (fork / excluded).read_text() == before[fork / excluded]
    assert broken_imports(fork) == []
    for path, text in before.items():
        assert new_flakes(text, path.read_text(), path.name) == [], path.name
    compat = (fork / PACKAGE / "compat.py").read_text()
    # the longer import is laid out as black lays it out (one name a line, in parentheses)
    assert "import DFlashWorkerV2 as DFlashWorker" in compat and "import (\n        DFlashDraftInputV2 as DFlashDraftInput,\n" in compat
    again = engine.run([fork], options)
    assert again.summary.files_changed == 0, [r.path for r in again.results if r.changed]


def test_a_second_lint_after_fixing_finds_no_reexported_v1_name(fork: Path) -> None:
    engine.run([fork], engine.Options(mode="fix", target_version=TARGET, allow_dirty=True, jobs=1))
    outcome = engine.run([fork], engine.Options(mode="lint", target_version=TARGET, jobs=1))
    codes = {f.code for r in outcome.results for f in r.findings}
    assert not codes & {"DFM500", "DFM501", "DFM101", "DFM102", "DFM103"}, codes


def test_a_tree_without_reexports_pays_no_second_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("from sglang.srt.speculative.dflash_worker import DFlashWorker\n\n\ndef f():\n    return DFlashWorker\n")
    (tmp_path / "pkg" / "b.py").write_text("x = 1\n")
    second: list[int] = []
    real = batches.analyze_files
    monkeypatch.setattr(batches, "analyze_files", lambda *args, **kwargs: second.append(len(args[1])) or real(*args, **kwargs))
    engine.run([tmp_path], engine.Options(mode="lint", target_version=TARGET, jobs=1))
    assert sum(second) == 0  # no file analysed twice, none read for index words


def test_import_cycles_end(tmp_path: Path) -> None:
    (tmp_path / "cyc").mkdir()
    (tmp_path / "cyc" / "__init__.py").write_text("")
    (tmp_path / "cyc" / "a.py").write_text("from .b import Thing as Other\nfrom sglang.srt.speculative.dflash_worker import DFlashWorker\n")
    (tmp_path / "cyc" / "b.py").write_text("from .a import Other as Thing\nx = DFlashWorker = None\n")
    outcome = engine.run([tmp_path], engine.Options(mode="lint", target_version=TARGET, jobs=1))
    assert not any(r.error for r in outcome.results)


@pytest.mark.slow
def test_the_migrated_fixture_imports_against_0_5_17(fork: Path) -> None:
    """Before migration the V1 imports fail and compat's fallbacks break the subclasses;
    after it every module imports without the shim (tests/sglang_env.py)."""
    import sglang_env

    before = sglang_env.probe(TARGET, "fork", {"root": str(fork), "package": PACKAGE, "modes": ["no-shim"]})
    failing = {name for name, error in before["no-shim"]["imports"].items() if error}
    assert {"idxfork.aliases", "idxfork.workers", "idxfork.registry", "idxfork.tuned"} <= failing, failing
    engine.run([fork], engine.Options(mode="fix", target_version=TARGET, allow_dirty=True, jobs=1))
    after = sglang_env.probe(TARGET, "fork", {"root": str(fork), "package": PACKAGE, "modes": ["no-shim"]})
    assert {name: error for name, error in after["no-shim"]["imports"].items() if error} == {}
    assert after["no-shim"]["registry"]["stock"]["is_v2"]
    assert after["no-shim"]["compat_draft_input_is_v2"]


def test_the_guard_keeps_names_other_modules_import(fork: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 19 item 5 through the write guard: were the import fix to drop `DFlashWorker`
    from compat.py (which workers.py and registry.py import), the guard refuses it."""
    from migrator.python import guard
    from migrator.python.rules import imports

    before = "try:\n    from sglang.srt.speculative.dflash_worker import DFlashWorker\nexcept ImportError:\n    DFlashWorker = None\n"
    after = before.replace("dflash_worker import DFlashWorker", "dflash_worker_v2 import DFlashWorkerV2")
    unused = ("it would add an unused import (`sglang.srt.speculative.dflash_worker_v2.DFlashWorkerV2`), which the "
              "original does not have: the fix could change what the code does")  # issue 45: pyflakes parity
    assert [p.reason for p in guard.problems(before, after, TARGET, exported=frozenset({"DFlashWorker"}))] == [
        "other modules of the fork import name `DFlashWorker` from this one, which it would no longer bind on every path",
        unused]
    assert [p.reason for p in guard.problems(before, after, TARGET)] == [unused]  # without importers: only that
    monkeypatch.setattr(imports, "_kept_local", lambda ctx, imported, new_name: new_name)  # a fix that forgets them
    engine.run([fork], engine.Options(mode="fix", target_version=TARGET, allow_dirty=True, jobs=1))
    compat = (fork / PACKAGE / "compat.py").read_text()
    assert "from sglang.srt.speculative.dflash_worker import DFlashWorker\n" in compat
    assert "TODO(dflash-migrate)" in compat and broken_imports(fork) == []


def test_fix_with_per_file_ignores_runs(tmp_path: Path) -> None:
    """Found while adding the index: in fix mode the options carry the dirty-file state,
    which the per-file-ignores matcher's cache could not hash ("internal error" per file)."""
    (tmp_path / "pkg").mkdir()
    v1 = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
    (tmp_path / "pkg" / "a.py").write_text(v1)
    (tmp_path / "pkg" / "b.py").write_text(v1)
    options = engine.Options(mode="fix", target_version=TARGET, jobs=1,  # run fills in the dirty-file state
                             per_file_ignores=((str(tmp_path), "pkg/b.py", frozenset({"DFM1"})),))
    outcome = engine.run([tmp_path], options)
    assert [str(r.error) for r in outcome.results if r.error] == []
    assert "dflash_worker_v2" in (tmp_path / "pkg" / "a.py").read_text()
    assert (tmp_path / "pkg" / "b.py").read_text() == v1


@pytest.mark.slow
def test_on_sglang_0_5_13_the_index_adds_no_finding(sglang_0_5_13: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """sglang's own tree re-exports V1 names between its modules (dflash_info, dflash_worker,
    spec_info are analysed again with the index): the findings must stay the same."""
    options = engine.Options(mode="lint", target_version=TARGET, jobs=2)
    with_index = engine.run([sglang_0_5_13], options)
    monkeypatch.setattr(forkindex.ForkIndex, "carriers", lambda self: frozenset())
    without = engine.run([sglang_0_5_13], options)
    assert [(r.path, r.findings) for r in with_index.results] == [(r.path, r.findings) for r in without.results]
    assert with_index.summary.findings >= 80


def test_outside_a_repository_the_index_covers_the_scanned_folder_not_the_current_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cd ~ && dflash-migrate lint proj` (no git) must not index the whole home folder: a
    sibling of the scanned folder is never read, however large."""
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "a.py").write_text("from sglang.srt.speculative.dflash_worker import DFlashWorker\n")
    sibling = tmp_path / "elsewhere"
    sibling.mkdir()
    (sibling / "reexport.py").write_text("from sglang.srt.speculative.dflash_worker import DFlashWorker as Base\n")
    monkeypatch.chdir(tmp_path)
    read: list[str] = []
    real = batches.analyze_files
    monkeypatch.setattr(batches, "analyze_files", lambda *args, **kwargs: read.extend(args[1]) or real(*args, **kwargs))
    from codemod_helpers import project_root  # also the folder the run's fork index covers

    assert project_root(Path("proj")) == (tmp_path / "proj").resolve()
    assert project_root(Path("proj/a.py")) == (tmp_path / "proj").resolve()
    outcome = engine.run([Path("proj")], engine.Options(mode="lint", target_version=TARGET, jobs=1))
    assert [f.code for r in outcome.results for f in r.findings] == ["DFM101", "DFM102"]
    assert not any("elsewhere" in str(p) for p in read), read


def _work(paths: list[Path], monkeypatch: pytest.MonkeyPatch, cache: Path | None = None,
          ) -> tuple[Counter, Counter, result.RunResult]:
    """(files analysed, files read) by one lint run in this process (``jobs=1``), by real path;
    the summary cache in ``cache`` (None: no cache)."""
    analysed: Counter = Counter()
    read: Counter = Counter()
    run_rules, read_bytes = python_file._run_rules, pipeline.read_bytes
    with monkeypatch.context() as patch:
        patch.setattr(python_file, "_run_rules", lambda path, *a, **k: analysed.update([str(Path(path).resolve())])
                      or run_rules(path, *a, **k))
        for module in (pipeline, fork_pass):  # a file's pipeline, and the fork pass's reads
            patch.setattr(module, "read_bytes", lambda path: read.update([str(Path(path).resolve())]) or read_bytes(path))
        outcome = engine.run(paths, engine.Options(mode="lint", target_version=TARGET, jobs=1, no_cache=cache is None,
                                                   cache_dir=str(cache) if cache else None))
    return analysed, read, outcome


def _committed(root: Path) -> None:
    for args in (("init", "-q"), ("add", "-A"), ("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "fork")):
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def _no_more_work_for_one_file(root: Path, one: Path, monkeypatch: pytest.MonkeyPatch) -> Counter:
    """``lint one`` in the repository ``root`` indexes the whole repository (so its findings
    are that file's part of ``lint .``) but parses and reads no file ``lint .`` does not, and
    none more often (the named file itself is read once more: ``git grep`` does not
    prefilter a file named on its own)."""
    monkeypatch.chdir(root)
    whole_analysed, whole_read, whole = _work([Path(".")], monkeypatch)
    alone_analysed, alone_read, alone = _work([one.relative_to(root)], monkeypatch)
    assert set(alone_analysed) == set(whole_analysed)  # the index: every candidate, not more
    assert not alone_analysed - whole_analysed
    assert alone_read - whole_read <= Counter({str(one.resolve()): 1})
    def shown(finding: Finding) -> tuple:  # the other files as reports show them
        return (*finding[1:5], [(str(Path(path).resolve()), line) for path, line in finding.related])

    by_file = {str(Path(r.path).resolve()): [shown(f) for f in r.findings] for r in whole.results}
    assert [shown(f) for f in alone.results[0].findings] == by_file[str(one.resolve())]
    # issue 49: with the summaries of the index cached, the same findings for less work (a
    # cold cache reads each indexed file once more, to key it)
    cache = root.parent / f"{root.name}-cache"
    _work([one.relative_to(root)], monkeypatch, cache)
    warm_analysed, warm_read, warm = _work([one.relative_to(root)], monkeypatch, cache)
    assert [shown(f) for f in warm.results[0].findings] == by_file[str(one.resolve())]
    assert set(warm_analysed) < set(whole_analysed) and warm_read - whole_read <= Counter({str(one.resolve()): 1})
    return whole_analysed


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_one_file_of_a_repository_costs_no_more_than_the_whole(fork: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (fork / "unrelated").mkdir()
    for number in range(20):  # files without a V1 word: git narrows them away in both runs
        (fork / "unrelated" / f"m{number}.py").write_text(f"def f{number}():\n    return {number}\n")
    _committed(fork)
    analysed = _no_more_work_for_one_file(fork, fork / PACKAGE / "tuned.py", monkeypatch)
    assert not any("unrelated" in path for path in analysed)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_one_file_of_sglang_0_5_13_costs_no_more_than_the_whole(
        sglang_0_5_13: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 19: `lint python/sglang/srt/managers/scheduler.py` in sglang's repository."""
    root = tmp_path / "sglang-repo"
    shutil.copytree(sglang_0_5_13, root / "python" / "sglang", symlinks=True)
    _committed(root)
    analysed = _no_more_work_for_one_file(root, root / "python/sglang/srt/managers/scheduler.py", monkeypatch)
    assert 5 <= len(analysed) <= 40, len(analysed)  # the prefilter's candidates, not the 2,400 files


RETURNS_FORK = {
    "retfork/__init__.py": "",
    "retfork/factory.py": (
        "from __future__ import annotations\n"
        "\n"
        "from typing import TYPE_CHECKING\n"
        "\n"
        "if TYPE_CHECKING:\n"
        "    from sglang.srt.speculative.dflash_info import DFlashDraftInput\n"
        "\n"
        "\n"
        'def make() -> "DFlashDraftInput":\n'
        "    raise NotImplementedError\n"
        "\n"
        "\n"
        "class Builder:\n"
        "    def build(self) -> DFlashDraftInput:\n"
        "        raise NotImplementedError\n"
        "\n"
        "\n"
        "def local_use() -> None:\n"
        "    x = make()\n"
        "    x.ctx_lens\n"
        "    Builder().build().draft_seq_lens\n"
    ),
    # no V1 word: reached through `make`, a name the index adds to the prefilter's words
    "retfork/user.py": (
        "from retfork.factory import Builder, make\n"
        "\n"
        "\n"
        "def use(builder: Builder) -> None:\n"
        "    x = make()\n"
        "    print(x.ctx_lens, x.verified_id)\n"
        "    y = builder.build()\n"
        "    return y.target_hidden\n"
    ),
    # the fork's own class with a field named like a removed one: not flagged
    "retfork/plain.py": (
        "class Own:\n"
        "    ctx_lens = 0\n"
        "\n"
        "\n"
        "def make() -> Own:\n"
        "    return Own()\n"
        "\n"
        "\n"
        "def use() -> int:\n"
        "    return make().ctx_lens\n"
    ),
}


def test_return_annotations_type_values_in_the_file_and_across_modules(tmp_path: Path) -> None:
    """Issue 19 item 1: return annotations are types (functions and methods, string or
    TYPE_CHECKING annotations, in the module that calls them or another one)."""
    for name, text in RETURNS_FORK.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    options = engine.Options(mode="lint", target_version=TARGET, jobs=1)
    outcome = engine.run([tmp_path], options)
    got = [(f[0], f[1], f[2], f[3]) for f in found(outcome, tmp_path) if f[3] != "DFM103"]
    assert got == [
        ("retfork/factory.py", 20, 4, "DFM109"),  # x = make(); x.ctx_lens
        ("retfork/factory.py", 21, 4, "DFM109"),  # Builder().build().draft_seq_lens
        ("retfork/user.py", 6, 10, "DFM109"),  # make() imported from factory
        ("retfork/user.py", 6, 22, "DFM301"),
        ("retfork/user.py", 8, 11, "DFM109"),  # a method of a class of another module
    ]
    alone = engine.run([tmp_path / "retfork" / "user.py"], options)
    assert [f[1:4] for f in found(alone, tmp_path)] == [f[1:4] for f in got if f[0] == "retfork/user.py"]


NGRAM_FORK = {
    "ngfork/__init__.py": "",
    # no V1 word: the index reads it only because run.py's calls depend on its types
    "ngfork/holder.py": (
        "from sglang.srt.speculative.ngram_info import NgramVerifyInput\n"
        "\n"
        "\n"
        "class Holder:\n"
        "    spec: NgramVerifyInput\n"
        "\n"
        "    def __init__(self) -> None:\n"
        "        self.built = NgramVerifyInput()\n"
        "\n"
        "\n"
        "def make_input() -> NgramVerifyInput:\n"
        "    return NgramVerifyInput()\n"
    ),
    "ngfork/v1holder.py": (
        "from sglang.srt.speculative.dflash_info import DFlashVerifyInput\n"
        "\n"
        "\n"
        "class V1Holder:\n"
        "    spec: DFlashVerifyInput\n"
    ),
    "ngfork/broken.py": "class Broken(:\n",
    "ngfork/run.py": (
        "from sglang.srt.speculative.dflash_info import DFlashDraftInput  # noqa: F401 - makes it a candidate\n"
        "from .broken import Broken\n"
        "from .holder import Holder, make_input\n"
        "from .v1holder import V1Holder\n"
        "\n"
        "\n"
        "def run(h: Holder, old: V1Holder, odd: Broken, batch, lo, page_size) -> None:\n"
        "    h.spec.verify(batch=batch, logits_output=lo, page_size=page_size)  # annotation in another module\n"
        "    h.built.verify(batch=batch, logits_output=lo, page_size=page_size)  # constructor assignment there\n"
        "    make_input().verify(batch=batch, logits_output=lo, page_size=page_size)  # return annotation there\n"
        "    h.spec.prepare_for_verify(batch, page_size)\n"
        "    old.spec.verify(batch=batch, logits_output=lo, page_size=page_size)\n"
        "    old.spec.prepare_for_verify(batch, page_size)\n"
        "    odd.spec.verify(batch=batch, logits_output=lo, page_size=page_size)  # its module does not parse\n"
        "    batch.spec_info.verify(batch=batch, logits_output=lo, page_size=page_size)  # unknown: V1's form\n"
    ),
}


def test_the_index_types_decide_ngram_style_verify_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 19, must not flag: NGRAM's `verify(...)` / `prepare_for_verify(batch, page_size)`
    on a receiver that another module types (class annotation, constructor assignment,
    return annotation); the untyped rule's keyword-only form stays flagged where nothing
    types the receiver, and a V1 type from another module is flagged through the index."""
    for name, text in NGRAM_FORK.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    options = engine.Options(mode="lint", target_version=TARGET, jobs=1)
    outcome = engine.run([tmp_path], options)
    got = [f for f in found(outcome, tmp_path) if f[3] not in ("DFM103", "DFM101")]
    assert got == [
        ("ngfork/run.py", 12, 4, "DFM105", [("v1holder.py", 4)]),
        ("ngfork/run.py", 13, 4, "DFM110", [("v1holder.py", 4)]),
        ("ngfork/run.py", 14, 4, "DFM105", []),
        ("ngfork/run.py", 15, 4, "DFM105", []),
    ]
    assert not any(r.error for r in outcome.results)  # broken.py holds no V1 word: lint does not parse it
    alone = engine.run([tmp_path / "ngfork" / "run.py"], options)
    assert [f[1:] for f in found(alone, tmp_path)] == [f[1:] for f in found(outcome, tmp_path) if f[0] == "ngfork/run.py"]


@pytest.mark.parametrize("words", [
    ["Worker0", "Worker1", "Worker10", "TeamWorker", "Draft", "DraftIn"],
    ["a", "ab", "abc", "b.c", "x(y", "[z]"],  # prefixes of each other, regex characters
    ["w" * n for n in range(1, 120)],  # long nested prefixes: the plain alternation
])
def test_the_second_pass_pattern_finds_exactly_the_files_holding_a_word(words: list[str]) -> None:
    pattern = fork_pass.any_word_pattern(words)
    texts = [b"", b"nothing here", *(f"x = {w}\n".encode() for w in words), b"Worke", b"Draf t", b"a", b"(y", b"zz"]
    for text in texts:
        assert (pattern.search(text) is not None) == any(w.encode() in text for w in words), text
