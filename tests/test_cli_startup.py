"""Startup stays lazy: what a command imports is checked here, its speed by benchmarks/run.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PROBE = (
    "import sys; from migrator.cli.main import main\n"
    "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
    "print('LOADED', ' '.join(sorted(m for m in sys.modules if m.split('.')[0] in ('migrator', 'shims', 'libcst', 'typer'))))\n"
)


def loaded(*args: str, cwd: Path) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=cwd,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    line = [l for l in proc.stdout.splitlines() if l.startswith("LOADED")][-1]
    return set(line.split()[1:])


def test_version_imports_neither_typer_nor_the_engine(tmp_path: Path) -> None:
    mods = loaded("--version", cwd=tmp_path)
    assert not {"typer", "migrator.run.engine", "libcst"} & mods


def test_fix_and_lint_without_matches_import_no_other_subcommand_nor_libcst(tmp_path: Path) -> None:
    (tmp_path / "clean.py").write_text("import os\nprint(os.sep)\n")
    for args in (["--check", str(tmp_path)], [str(tmp_path)], ["lint", str(tmp_path)]):
        mods = loaded(*args, cwd=tmp_path)
        assert "migrator.run.engine" in mods, args
        assert not {"migrator.verify", "shims.doctor", "typer", "libcst"} & mods, (args, mods)


def test_lint_with_findings_imports_neither_libcst_nor_typer(tmp_path: Path) -> None:
    """A lint that reports findings (text, full and JSON, a file named as pre-commit names
    it) stays on the lint path: libcst (~0.5 s) and typer are the fix's and the help's."""
    (tmp_path / "a.py").write_text("from sglang.srt.speculative.dflash_worker import DFlashWorker\n")
    for args in (["lint", "a.py"], ["lint", "--format", "full", "a.py"], ["lint", "--format", "json", "."],
                 ["lint", "--statistics", "a.py"]):
        mods = loaded(*args, cwd=tmp_path)
        assert "migrator.python.analysis" in mods, (args, mods)  # it did analyse the file
        assert not {"typer", "libcst"} & mods, (args, mods)


def test_lint_and_version_import_no_typing(tmp_path: Path) -> None:
    """``typing`` (~10 M instructions with what it pulls in, 2% of a one-file lint) is for
    annotations only: the records take ``NamedTuple`` from ``migrator.base.records`` and the
    modules on the lint path import typing's names under ``TYPE_CHECKING``."""
    (tmp_path / "a.py").write_text("from sglang.srt.speculative.dflash_worker import DFlashWorker\n")
    # -S and the site folders by hand: a .pth file of the machine's may import typing first
    probe = ("import site, sys; sys.path += site.getsitepackages(); before = set(sys.modules)\n"
             "from migrator.cli.main import main\n"
             "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
             "print('LOADED', ' '.join(sorted(m for m in set(sys.modules) - before if m in ('typing', 'migrator.python.analysis'))))\n")
    for args in (["lint", "a.py"], ["lint", "."], ["--version"]):
        proc = subprocess.run([sys.executable, "-S", "-c", probe, *args], capture_output=True, text=True, cwd=tmp_path,
                              env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
        mods = set([l for l in proc.stdout.splitlines() if l.startswith("LOADED")][-1].split()[1:])
        assert "typing" not in mods, args
        assert ("migrator.python.analysis" in mods) == (args[0] == "lint"), (args, mods)  # it did analyse the file


def test_help_still_lists_every_subcommand(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "migrator", "--help"], capture_output=True, text=True, cwd=tmp_path,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0
    for name in ("fix", "lint", "rules", "explain", "verify"):
        assert f"  {name} " in proc.stdout, name


# ---- the typer-free fast path for `fix` -----------------------------------------------


@pytest.mark.parametrize("command", ["fix", "lint"])
def test_fast_path_and_typer_read_one_declaration(command: str) -> None:
    """Every option typer knows is declared once, in the command's PARAMS; the fast path
    parses each of them (the value it would give typer's callback) without typer."""
    from migrator.cli import main as cli

    declared = cli.by_name()[command]
    params = cli.click_app().commands[command].params  # type: ignore[attr-defined]
    assert {opt for p in params for opt in p.opts if opt.startswith("-")} == {f for p in declared.params for f in p.flags}
    assert {p.name for p in params} == {p.name for p in declared.params}
    for param in declared.params:
        if param.kind == "flag":
            assert cli.parse_fast(command, [param.flags[0]])[param.name] is True  # type: ignore[index]
        elif param.kind != "paths":
            value = param.choices[-1] if param.choices else "7"
            assert cli.parse_fast(command, [param.flags[0], value])[param.name] not in (None, param.default), param


@pytest.mark.parametrize("args", [
    ["--help"], ["--bogus"], ["-j", "x"], ["-j2"], ["--select"],
    ["--select", "--check"], ["--check=1"], ["--target-version="],
])
def test_fast_path_leaves_the_unusual_to_typer(args: list[str]) -> None:
    from migrator.cli.main import parse_fast

    assert parse_fast("fix", args) is None


@pytest.mark.parametrize("args", [["--format", "yaml"], ["--format"], ["-o"], ["--exit-zero=1"], ["--check"]])
def test_lint_fast_path_leaves_the_unusual_to_typer(args: list[str]) -> None:
    from migrator.cli.main import parse_fast

    assert parse_fast("lint", args) is None


LEGACY = (
    "import os\n"
    "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
    "os.environ['SGLANG_ENABLE_SPEC_V2'] = '0'\n"
    "def f(algo):\n"
    "    return algo.supports_spec_v2()\n"
)


@pytest.mark.parametrize("args", [
    [], ["--check"], ["--diff"], ["--check", "--select", "DFM1"], ["--select=DFM1", "--select", "DFM2", "--check"],
    ["--ignore", "DFM101", "--unsafe-fixes", "-j", "1"], ["--jobs=2", "--target-version", "0.5.16", "--check"],
    ["--exclude", "b.py", "--allow-dirty"], ["--parse-all", "--check"], ["--target-version", "nonsense"],
    ["--select", "DFM1,DFM201", "--check"], ["--jobs", "0"], ["--check", "--force-exclude", "--exclude", "a.py"],
])
def test_fast_path_matches_typer(tmp_path: Path, monkeypatch, capsys, args: list[str]) -> None:
    from migrator.cli import main as cli

    outputs = []
    for fast in (True, False):
        tree = tmp_path / ("fast" if fast else "typer")
        tree.mkdir()
        (tree / "a.py").write_text(LEGACY)
        (tree / "b.py").write_text(LEGACY)
        (tree / "c.py").write_text("print(1)\n")
        monkeypatch.chdir(tree)
        if not fast:
            monkeypatch.setattr(cli, "parse_fast", lambda _command, _args: None)
        else:
            assert cli.parse_fast("fix", args) is not None
        code = cli.main([*args, "."] if args[:1] != ["--target-version"] else [*args])
        captured = capsys.readouterr()
        files = {p.name: p.read_text() for p in sorted(tree.glob("*.py"))}
        outputs.append((code, captured.out, captured.err, files))
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("args", [
    [], ["--format", "json"], ["--format=sarif", "--select", "DFM1"], ["--exit-zero", "-j", "1"],
    ["--ignore", "DFM101", "--ignore=DFM2", "--format", "github"], ["--target-version", "0.5.16"],
    ["--exclude", "b.py", "--parse-all"], ["--target-version", "nonsense"], ["--format", "junit"],
    ["--select=DFM1,DFM201"], ["--select", "DFM999"],
])
def test_lint_fast_path_matches_typer(tmp_path: Path, monkeypatch, capsys, args: list[str]) -> None:
    from migrator.cli import main as cli

    outputs = []
    for fast in (True, False):
        tree = tmp_path / "tree"
        tree.mkdir(exist_ok=True)
        (tree / "a.py").write_text(LEGACY)
        (tree / "b.py").write_text(LEGACY)
        monkeypatch.chdir(tree)
        if not fast:
            monkeypatch.setattr(cli, "parse_fast", lambda _command, _args: None)
        else:
            assert cli.parse_fast("lint", args) is not None
        code = cli.main(["lint", *args, "."])
        captured = capsys.readouterr()
        outputs.append((code, captured.out, captured.err))
    assert outputs[0] == outputs[1]


def test_lint_fast_path_output_file(tmp_path: Path, monkeypatch) -> None:
    from migrator.cli import main as cli

    (tmp_path / "a.py").write_text(LEGACY)
    monkeypatch.chdir(tmp_path)
    reports = []
    for fast in (True, False):
        if not fast:
            monkeypatch.setattr(cli, "parse_fast", lambda _command, _args: None)
        out = tmp_path / f"report-{fast}.json"
        assert cli.main(["lint", "--format", "json", "-o", str(out), "a.py"]) == 1
        reports.append(out.read_text())
    assert reports[0] == reports[1]


@pytest.mark.parametrize("collecting", [True, False])
def test_main_leaves_the_garbage_collector_as_it_found_it(collecting: bool, tmp_path: Path, monkeypatch) -> None:
    """``main`` turns the cyclic collector off for start-up (no garbage cycles, ~2% of a
    one-file lint): a library caller or a test finds it as it was, after a lint too."""
    import gc

    from migrator.cli.main import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("import os\n")
    was = gc.isenabled()
    try:
        (gc.enable if collecting else gc.disable)()
        for args in (["--version"], ["lint", "a.py"]):
            main(args)
            assert gc.isenabled() is collecting, args
        main(["lint", "a.py"], exiting=True)  # the process ends next: no pass over the run's objects
        assert not gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()
