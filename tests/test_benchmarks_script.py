"""benchmarks/run.py helpers (no timing here: speed is measured by running the script)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from migrator.catalog import ENTRIES

RUN = Path(__file__).resolve().parent.parent / "benchmarks" / "run.py"


def load():
    spec = importlib.util.spec_from_file_location("bench_run", RUN)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def test_ruff_config_bans_every_python_name_of_the_catalog(tmp_path: Path) -> None:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    bench = load()
    config = tmp_path / "ruff.toml"
    count = bench.ruff_config(config)
    banned = tomllib.loads(config.read_text())["lint"]["flake8-tidy-imports"]["banned-api"]
    expected = {name for e in ENTRIES if e.kind not in ("env", "cli-flag") for name in e.names}
    assert set(banned) == expected and count == len(expected)
    assert all(value["msg"].startswith("DFM") for value in banned.values())


def test_counts_findings_in_text_and_json_reports() -> None:
    bench = load()
    text = ("a/b.py:3:1: DFM101 module removed [fixable]\n"
            "a/b.py:9:5: DFM109 field gone\n"
            "c.py:1:1: DFM101 module removed\n"
            "Found 3 V1 references in 2 of 40 files.\n")
    got = bench.count_dfm_findings(text)
    assert got == {"findings": 3, "files": 2, "by_code": {"DFM101": 2, "DFM109": 1}}
    json_report = '{"version": 1, "findings": [{"path": "x.py", "code": "DFM202"}, {"path": "x.py", "code": "DFM202"}]}'
    assert bench.count_dfm_findings(json_report) == {"findings": 2, "files": 1, "by_code": {"DFM202": 2}}


def test_measures_a_child_with_its_peak_memory() -> None:
    import sys

    bench = load()
    spec = bench.Spec("alloc", [sys.executable, "-c", "x = bytearray(64 * 2**20); print(len(x))"], 2)
    (result,) = bench.run_interleaved([spec], quiet=True)
    assert result["repeat"] == 2 and result["rc"] == 0
    assert result["max_proc_rss_mb"] >= 64 and result["peak_rss_mb"] >= result["max_proc_rss_mb"] - 1
    assert result["wall_s"] == min(result["wall_s_all"]) or abs(result["wall_s"] - min(result["wall_s_all"])) < 1e-3


def test_per_round_ratios_pair_run_i_with_run_i_and_report_the_spread() -> None:
    bench = load()
    lint = {"wall_s_all": [0.2, 0.5, 0.3]}
    ruff = {"wall_s_all": [0.4, 0.5, 1.0]}
    got = bench.per_round_ratios(lint, ruff)
    assert got["rounds"] == [0.3, 0.5, 1.0]
    assert (got["median"], got["min"], got["max"]) == (0.5, 0.3, 1.0)


def test_fix_is_timed_against_the_baseline_on_a_fresh_copy_each_round(tmp_path: Path, monkeypatch) -> None:
    """Issue 45: ``--baseline-ref`` also times ``fix`` (default and ``--unsafe-fixes``), each
    command on its own fresh copy of the tree before every run, checkout and baseline back to
    back, and pairs each with its baseline round by round."""
    import sys

    bench = load()
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "mod.py").write_text("V1\n")
    # a stand-in "dflash-migrate": fails unless the tree is untouched, then rewrites it, as fix does
    rewrite = ("import sys, pathlib; p = pathlib.Path(sys.argv[-1], 'mod.py'); "
               "assert p.read_text() == 'V1\\n', p.read_text(); p.write_text('V2\\n'); print(sys.argv[1:])")
    command = [sys.executable, "-c", rewrite]
    monkeypatch.setenv("PYTHONPATH", "/somewhere/else")
    specs = bench.fix_specs(tree, tmp_path, 1, command, {}, ["--jobs", "2"], (command, "0" * 40), 2, 1)
    assert [s.name for s in specs] == ["dflash-migrate (rewrite)", "fix @baseline", "fix --unsafe-fixes",
                                       "fix --unsafe-fixes @baseline"]
    assert ["--unsafe-fixes" in s.cmd for s in specs] == [False, False, True, True]
    assert len({s.cmd[-1] for s in specs}) == 4  # a copy of its own each
    assert all("PYTHONPATH" not in s.env for s in specs[1::2])  # the baseline runs its own install
    results = {r["name"]: r for r in bench.run_interleaved(specs, quiet=True)}  # two rounds: a fresh copy each
    assert all(r["repeat"] == 2 and r["rc"] == 0 for r in results.values())
    assert (tree / "mod.py").read_text() == "V1\n"
    for name, base in bench.FIX_BASELINES.items():
        assert len(bench.per_round_ratios(results[name], results[base])["rounds"]) == 2


def test_the_pre_commit_case_runs_the_documented_hooks_with_the_command_measured(tmp_path: Path) -> None:
    """Issue 51 item 3's case: README's `.pre-commit-config.yaml` with its hooks as local
    hooks (the published entry with `dflash-migrate` spelled as the measured command, the
    published types, the documented args), which pre-commit accepts."""
    import shutil
    import subprocess

    import pytest
    import yaml

    run = load()
    config, lint_args = run.documented_pre_commit_hooks(["python3", "-m", "migrator"])
    published = {hook["id"]: hook for hook in yaml.safe_load((run.REPO / ".pre-commit-hooks.yaml").read_text())}
    hooks = yaml.safe_load(config)["repos"][0]["hooks"]
    assert hooks and all(hook["entry"] == published[hook["id"]]["entry"].replace("dflash-migrate", "python3 -m migrator")
                         and hook["types"] == published[hook["id"]]["types"] for hook in hooks)
    assert lint_args == next(hook["args"] for hook in hooks if hook["id"] == "dflash-migrate-lint")
    pre_commit = shutil.which("pre-commit")
    if pre_commit is None:
        pytest.skip("pre-commit is not installed (it is in the test extra)")
    (tmp_path / "c.yaml").write_text(config)
    done = subprocess.run([pre_commit, "validate-config", str(tmp_path / "c.yaml")], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    # pre-commit's own floor is measured beside it: the same hooks and files, each running `true`
    tree = tmp_path / "tree"
    tree.mkdir()
    specs = run.pre_commit_specs(tree, ["python3", "-m", "migrator"], {}, tmp_path, 1)
    assert [spec.name for spec in specs][1:] == ["pre-commit run --all-files", "pre-commit floor (hooks: true)"]
    floor_file = Path(specs[2].cmd[-1])
    floor = yaml.safe_load(floor_file.read_text())["repos"][0]["hooks"]
    assert [(hook["id"], hook["entry"], hook["types"]) for hook in floor] == \
        [(hook["id"], "true", hook["types"]) for hook in hooks]
    done = subprocess.run([pre_commit, "validate-config", str(floor_file)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
