"""One options path for every command: config relative to its file, one matcher for
excludes and per-file-ignores, comma lists, the config search's limits, the config named in
reports, an up-front check of ``--target-version``, ``--force-exclude``, and a mistyped
subcommand that must not run (each a bug reproduced on the code before this change)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from codemod_helpers import write_tree

REPO = Path(__file__).resolve().parents[1]
V1 = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
ENV = "import os\nos.environ['SGLANG_ENABLE_SPEC_V2'] = '1'\n"


def cli(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "migrator", *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=timeout)


def codes_by_file(stdout: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for finding in json.loads(stdout)["findings"]:
        found.setdefault(Path(finding["path"]).name, set()).add(finding["code"])
    return found


def test_config_patterns_are_relative_to_the_config_file_from_a_subfolder(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "pyproject.toml": '[tool.dflash-migrate]\nexclude = ["sub/vendor/"]\n'
                          '[tool.dflash-migrate.per-file-ignores]\n"sub/src/*.py" = ["DFM1"]\n',
        "sub/vendor/v.py": V1,
        "sub/src/s.py": V1 + ENV,
        "sub/other/o.py": V1,
    })
    (tmp_path / ".git").mkdir()
    result = cli("lint", "--format", "json", ".", cwd=tmp_path / "sub")
    found = codes_by_file(result.stdout)
    assert "v.py" not in found, found  # excluded: sub/vendor/ relative to the pyproject
    assert found["s.py"] == {"DFM201"}, found  # DFM1xx ignored there, DFM201 still reported
    assert "DFM101" in found["o.py"]
    # The same from the top, and through fix's matcher (no file under sub/vendor/ rewritten).
    assert codes_by_file(cli("lint", "--format", "json", ".", cwd=tmp_path).stdout) == found
    cli("fix", "--allow-dirty", ".", cwd=tmp_path / "sub")
    assert (tmp_path / "sub" / "vendor" / "v.py").read_text() == V1
    assert "dflash_worker_v2" in (tmp_path / "sub" / "other" / "o.py").read_text()


@pytest.mark.parametrize("command", ["lint", "fix"])
def test_comma_separated_select_works_in_every_command(tmp_path: Path, command: str) -> None:
    write_tree(tmp_path, {"a.py": V1 + ENV})
    args = ["--check"] if command == "fix" else []
    result = cli(command, *args, "--select", "DFM1,DFM201", "a.py", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    out = result.stdout
    assert "DFM101" in out and "DFM201" in out
    ignored = cli(command, *args, "--ignore", "DFM1,DFM201", "a.py", cwd=tmp_path)
    assert "DFM101" not in ignored.stdout and "DFM201" not in ignored.stdout


def test_unknown_rule_code_on_the_command_line_is_an_error(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": V1})
    result = cli("lint", "--select", "DMF101", "a.py", cwd=tmp_path)
    assert result.returncode == 2 and "unknown rule code 'DMF101'" in result.stderr


@pytest.mark.parametrize("bad", ["0.5", "0", "abc", "0.5.13"])
@pytest.mark.parametrize("command", ["lint", "fix"])
def test_bad_target_version_is_one_error_before_any_file_is_read(tmp_path: Path, command: str, bad: str) -> None:
    write_tree(tmp_path, {"a.py": V1, "b.py": V1})
    result = cli(command, "--target-version", bad, ".", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [result.stderr.strip()] and "--target-version" in result.stderr, result.stderr
    assert result.stdout == "" and (tmp_path / "a.py").read_text() == V1


def test_bad_target_version_in_config_is_an_error(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pyproject.toml": '[tool.dflash-migrate]\ntarget-version = "0.5"\n', "a.py": V1})
    result = cli("lint", ".", cwd=tmp_path)
    assert result.returncode == 2 and "target-version" in result.stderr and "a.py" not in result.stdout


def test_pyproject_in_a_parent_outside_any_repository_does_not_apply(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pyproject.toml": '[tool.dflash-migrate]\nignore = ["DFM"]\n', "project/a.py": V1})
    result = cli("lint", ".", cwd=tmp_path / "project")
    assert result.returncode == 1 and "DFM101" in result.stdout
    from_parent = cli("lint", "project", cwd=tmp_path)  # the current folder holds the config: still not used
    assert from_parent.returncode == 1 and "DFM101" in from_parent.stdout and "config:" not in from_parent.stdout


def test_the_config_used_is_named_in_text_and_json_and_sarif(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pyproject.toml": '[tool.dflash-migrate]\nignore = ["DFM2"]\n', "a.py": V1})
    config = str(tmp_path / "pyproject.toml")
    assert f"(config: {config})" in cli("lint", ".", cwd=tmp_path).stdout
    assert json.loads(cli("lint", "--format", "json", ".", cwd=tmp_path).stdout)["config"] == config
    sarif = json.loads(cli("lint", "--format", "sarif", ".", cwd=tmp_path).stdout)
    assert sarif["runs"][0]["properties"]["config"] == config
    assert f"config {config}" in cli("fix", "--check", ".", cwd=tmp_path).stderr
    elsewhere = tmp_path / "elsewhere"  # a folder of this test's own: pytest's temporary root may hold anything
    write_tree(elsewhere, {"a.py": V1})
    report = json.loads(cli("lint", "--format", "json", "a.py", cwd=elsewhere).stdout)
    assert report["config"] is None and report["findings"]


def test_one_file_outside_a_repository_never_walks_the_folder_around_it(tmp_path: Path) -> None:
    """Issue 50: outside git, `lint a.py` from a folder holding 20,000 unrelated files read
    all of them for the fork index (minutes); it reads the named file's package and the
    packages it imports, and `-v` says so."""
    for folder in range(4):
        unrelated = tmp_path / f"unrelated{folder}"
        unrelated.mkdir()
        for number in range(5000):
            (unrelated / f"m{number}.py").write_bytes(b"from sglang.srt.speculative.dflash_worker import X\n")
    write_tree(tmp_path, {"a.py": V1, "pkg/__init__.py": "", "pkg/user.py": "from lib.compat import Base\n\n\n"
                          "class Mine(Base):\n    pass\n", "lib/__init__.py": "",
                          "lib/compat.py": "from sglang.srt.speculative.dflash_worker import DFlashWorker as Base\n"})
    alone = cli("lint", "-v", "a.py", cwd=tmp_path, timeout=10)  # a script: no module of any package, nothing to index
    assert alone.returncode == 1 and "DFM101" in alone.stdout and "fork index" not in alone.stderr
    in_package = cli("lint", "-v", "pkg/user.py", cwd=tmp_path, timeout=10)
    assert in_package.returncode == 1 and "DFM500" in in_package.stdout, in_package.stdout + in_package.stderr
    note = [line for line in in_package.stderr.splitlines() if line.startswith("fork index: read")]
    assert note and str((tmp_path / "lib").resolve()) in note[0] and "unrelated" not in note[0], in_package.stderr


def test_force_exclude_applies_config_excludes_to_files_named_on_the_command_line(tmp_path: Path) -> None:
    # pre-commit's setting: files named from the top of a repository (outside one, only the
    # first file's folder would be searched for the config)
    write_tree(tmp_path, {"pyproject.toml": '[tool.dflash-migrate]\nexclude = ["vendored/"]\n',
                          "vendored/v.py": V1, "src/s.py": V1})
    (tmp_path / ".git").mkdir()
    kept = cli("fix", "--allow-dirty", "--force-exclude", "vendored/v.py", "src/s.py", cwd=tmp_path)
    assert kept.returncode == 0, kept.stderr
    assert (tmp_path / "vendored" / "v.py").read_text() == V1
    assert "dflash_worker_v2" in (tmp_path / "src" / "s.py").read_text()
    assert cli("lint", "--force-exclude", "vendored/v.py", cwd=tmp_path).returncode == 0
    assert cli("lint", "vendored/v.py", cwd=tmp_path).returncode == 1  # named without the flag: linted


@pytest.mark.parametrize("typo, meant", [("chek", "check"), ("lnit", "lint"), ("fixx", "fix"), ("verfy", "verify")])
def test_a_mistyped_subcommand_runs_nothing(tmp_path: Path, typo: str, meant: str) -> None:
    write_tree(tmp_path, {"n.py": V1})
    result = cli(typo, "n.py", cwd=tmp_path)
    assert result.returncode == 2
    assert f"did you mean `dflash-migrate {meant}`" in result.stderr, result.stderr
    assert (tmp_path / "n.py").read_text() == V1 and result.stdout == ""


def test_check_is_lint_and_a_command_wins_over_a_folder_of_its_name(tmp_path: Path) -> None:
    write_tree(tmp_path, {"n.py": V1, "check/c.py": V1})
    linted = cli("check", "n.py", cwd=tmp_path)
    assert linted.returncode == 1 and "DFM101" in linted.stdout
    assert (tmp_path / "n.py").read_text() == V1  # `check` lints, never writes
    cli("--allow-dirty", "./check", cwd=tmp_path)
    assert "dflash_worker_v2" in (tmp_path / "check" / "c.py").read_text()
    assert (tmp_path / "n.py").read_text() == V1
    write_tree(tmp_path, {"check/c.py": V1})
    cli("--allow-dirty", "--", "check", cwd=tmp_path)
    assert "dflash_worker_v2" in (tmp_path / "check" / "c.py").read_text()


def test_a_missing_path_is_reported_by_lint_and_refused_by_a_writing_run(tmp_path: Path) -> None:
    write_tree(tmp_path, {"n.py": V1})
    report = cli("lint", "no_such_folder", "n.py", cwd=tmp_path)
    assert report.returncode == 2 and "no_such_folder: error: no such file or folder" in report.stdout
    assert "n.py:1:6: DFM101" in report.stdout  # a report run goes on (ruff's E902)
    # a run that writes refuses before writing anything (issue 28): nothing half-done
    result = cli("fix", "--allow-dirty", "no_such_folder", "n.py", cwd=tmp_path)
    assert result.returncode == 2 and "no such file or folder: no_such_folder (nothing was written)" in result.stderr
    assert (tmp_path / "n.py").read_text() == V1


def test_options_hold_what_the_user_asked_and_the_worker_payload_does_not_grow(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29 step 5: the run's state (the files holding uncommitted work, the fork index,
    "index only") is passed beside ``Options``, never inside. At 9c817bf ``fix`` stored every
    tracked file's blob id in ``Options.dirty`` and pickled it to every worker chunk: the
    payload grew with the repository. Here it is the same for 10 and for 1,000 tracked files."""
    import pickle

    from migrator.base.options import Options
    from migrator.run import engine, pool

    assert not {"dirty", "fork"} & set(Options._fields)

    def payload_sizes(root: Path, files: int) -> list[int]:
        write_tree(root, {f"pkg/m{i:04d}.py": "x = 1\n" for i in range(files)})
        write_tree(root, {"pkg/v1.py": V1})
        for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "f"]):
            subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
        sizes: list[int] = []
        real_run = pool.SerialPool.run

        def recording(self, payloads, on_result, small=False):  # noqa: ANN001, ANN202
            payloads = list(payloads)
            sizes.extend(len(pickle.dumps(p)) - len(pickle.dumps(p[0])) for p in payloads)
            return real_run(self, payloads, on_result, small)

        monkeypatch.setattr(pool.SerialPool, "run", recording)
        outcome = engine.run([root], Options(mode="fix", target_version="0.5.17", jobs=1))
        assert outcome.summary.files_changed == 1, [r.error for r in outcome.results if r.error]
        return sizes

    small, large = payload_sizes(tmp_path / "small", 10), payload_sizes(tmp_path / "large", 1000)
    assert small and set(small) == set(large), (small, large)


def test_a_configuration_elsewhere_does_not_widen_a_named_files_index(tmp_path: Path) -> None:
    """Issue 50: outside git, `--config` naming a file of some other folder (a home folder's)
    does not make the fork index walk that folder; the configuration's own folder is the
    index's when the named file is in it."""
    write_tree(tmp_path, {"home/pyproject.toml": "[tool.dflash-migrate]\n", "home/junk/j.py": V1,
                          "work/pkg/__init__.py": "", "work/pkg/a.py": V1})
    elsewhere = cli("lint", "-v", "--config", str(tmp_path / "home" / "pyproject.toml"), "pkg/a.py",
                    cwd=tmp_path / "work")
    note = [line for line in elsewhere.stderr.splitlines() if line.startswith("fork index: read")]
    assert note and "home" not in note[0] and "the named files' packages" in note[0], elsewhere.stderr
    inside = cli("lint", "-v", "--config", "pyproject.toml", "junk/j.py", cwd=tmp_path / "home")
    assert "(the configuration's folder)" in inside.stderr, inside.stderr
