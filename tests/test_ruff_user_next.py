"""What a ruff user reaches for next (issue 51): config keys spelled like ruff, the run's
real target in ``--show-settings`` and ``-v``, the lint hook's ``--fix`` under pre-commit
(with file names that look like options, issue 42 case 4), a documented pre-commit
config, a quiet exit on a closed pipe, the tool's own reports recognised by content."""

from __future__ import annotations

import json
import os
import re
import subprocess
import textwrap
import sys
from pathlib import Path

import pytest

from tests.test_cli_habits import SAFE, cli, committed, git, snapshot

REPO = Path(__file__).resolve().parent.parent


# ---- item 5: ruff's config spellings, with ruff's meanings ----------------------------------


def settings_of(root: Path, *args: str) -> dict[str, str]:
    done = cli("lint", "--show-settings", *args, ".", cwd=root)
    assert done.returncode == 0, done.stderr
    return dict(line.split(" = ", 1) for line in done.stdout.decode().splitlines())


def test_ruff_config_keys_are_accepted_and_change_what_show_settings_prints(tmp_path: Path) -> None:
    table = ('[tool.dflash-migrate]\nselect = ["DFM1"]\nextend-select = ["DFM2"]\nextend-exclude = ["gen/"]\n'
             'force-exclude = true\nrespect-gitignore = false\nunsafe-fixes = true\ncache-dir = ".dfm-cache"\n')
    root = committed(tmp_path / "r", {"a.py": SAFE, "pyproject.toml": table})
    shown = settings_of(root)
    assert shown["select"] == "DFM1, DFM2"
    assert shown["exclude"].startswith("gen/ (in ")
    assert (shown["force-exclude"], shown["respect-gitignore"], shown["unsafe-fixes"]) == ("true", "false", "true")
    assert shown["cache-dir"] == str(root / ".dfm-cache")
    # the command line's --select replaces the config's selection, extend-select included (as in ruff)
    assert settings_of(root, "--select", "DFM3")["select"] == "DFM3"


def test_every_setting_show_settings_prints_can_be_changed(tmp_path: Path) -> None:
    root = committed(tmp_path / "r", {"a.py": SAFE})
    default = settings_of(root)
    changed = settings_of(root, "--select", "DFM1", "--ignore", "DFM2", "--exclude", "x/", "--force-exclude",
                          "--no-respect-gitignore", "--target-version", "0.5.17", "-j", "1", "--config",
                          str(committed(tmp_path / "c", {"c.toml": 'unsafe-fixes = true\ncache-dir = "k"\n'
                                                          'per-file-ignores = {"t/*" = ["DFM1"]}\n'}) / "c.toml"))
    fixed_by_the_command_line = {"paths", "mode"}
    assert {key for key in default if default[key] == changed[key]} <= fixed_by_the_command_line, (default, changed)


def test_respect_gitignore_false_reads_ignored_files(tmp_path: Path) -> None:
    root = committed(tmp_path / "r", {".gitignore": "out/\n", "a.py": "x = 1\n"})
    (root / "out").mkdir()
    (root / "out" / "gen.py").write_text(SAFE)
    assert cli("lint", ".", cwd=root).returncode == 0
    assert cli("lint", "--no-respect-gitignore", ".", cwd=root).returncode == 1
    (root / "pyproject.toml").write_text("[tool.dflash-migrate]\nrespect-gitignore = false\n")
    done = cli("lint", ".", cwd=root)
    assert done.returncode == 1 and b"gen.py" in done.stdout, done.stdout


def test_config_unsafe_fixes_and_force_exclude_act(tmp_path: Path) -> None:
    unsafe = "import sglang\n\ndef drop(batch, flag):\n    batch.filter_batch(v1_spec_info_filtered=flag)\n"
    root = committed(tmp_path / "r", {"m.py": unsafe, "vendor/v.py": SAFE})
    assert cli("fix", "m.py", cwd=root).returncode == 1  # the unsafe fix is not applied
    (root / "pyproject.toml").write_text('[tool.dflash-migrate]\nunsafe-fixes = true\nforce-exclude = true\n'
                                         'extend-exclude = ["vendor/"]\n')
    git("add", "-A", cwd=root)
    git("commit", "-qm", "config", cwd=root)
    assert cli("fix", "m.py", cwd=root).returncode == 0
    assert (root / "m.py").read_text() != unsafe
    assert cli("lint", "vendor/v.py", cwd=root).returncode == 0  # named, and still excluded


def test_config_key_types_are_checked(tmp_path: Path) -> None:
    root = committed(tmp_path / "r", {"a.py": SAFE, "pyproject.toml": '[tool.dflash-migrate]\nforce-exclude = "yes"\n'})
    done = cli("lint", ".", cwd=root)
    assert done.returncode == 2 and b"force-exclude must be true or false" in done.stderr, done.stderr


# ---- item 6: the run's real target -----------------------------------------------------------


@pytest.mark.parametrize("args, label", [
    ((), "0.5.14..0.5.23"),  # no pin: every V2 release the catalog knows
    (("--target-version", "0.5.15..0.5.20"), "0.5.15..0.5.20"),
    (("--target-version", "0.5.17"), "0.5.17"),
])
def test_show_settings_and_verbose_name_the_whole_target(tmp_path: Path, args: tuple[str, ...], label: str) -> None:
    from migrator.catalog import target

    if not args:
        label = target.label(target.v2_releases())
    root = committed(tmp_path / "r", {"a.py": "x = 1\n"})
    assert settings_of(root, *args)["target-version"].split(" (")[0] == label
    err = cli("lint", "-v", *args, ".", cwd=root).stderr.decode()
    assert f"target sglang {label}" in err and f"target sglang {label}." not in err, err


# ---- item 11: a closed pipe ends the run quietly -----------------------------------------------


def _into_closed_pipe(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """Run with stdout a pipe whose reader is already gone (``| head -c 0``, deterministically)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        environ = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "FORCE_COLOR", "NO_COLOR")}
        return subprocess.run([sys.executable, "-m", "migrator", *args], cwd=cwd, stdout=write_end,
                              stderr=subprocess.PIPE, env={**environ, "PYTHONPATH": str(REPO)})
    finally:
        os.close(write_end)


def _closed_pipe_command_lines() -> list[list[str]]:
    from migrator.report import FORMATS

    return [*(["lint", "--format", fmt, "."] for fmt in FORMATS), ["lint", "--statistics", "."],
            ["lint", "--show-settings", "."], ["lint", "--show-files", "."], ["--diff", "."], ["--check", "."],
            ["rules"], ["explain", "DFM101"], ["doctor"], ["--help"], ["lint", "--help"], ["--version"]]


@pytest.mark.parametrize("args", _closed_pipe_command_lines(), ids=" ".join)
def test_a_closed_pipe_ends_every_command_quietly(tmp_path: Path, args: list[str]) -> None:
    root = committed(tmp_path / "r", {"a.py": SAFE * 200})
    done = _into_closed_pipe(args, root)
    assert done.stderr == b"", done.stderr.decode()[-2000:]
    # 141 (128 + SIGPIPE) as a Unix filter; click's own pages (help, rules, doctor) exit 1 there
    assert done.returncode in (141, 1), done.returncode


# ---- item 2 and issue 42 case 4: the lint hook under real pre-commit -------------------------


def _pre_commit() -> str:
    import shutil

    found = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or shutil.which("pre-commit")
    if found is None:
        pytest.skip("pre-commit is not installed (it is in the test extra: pip install -e '.[test]')")
    return found


def _local_hooks(args: list[str]) -> str:
    """The published hooks as `repo: local` hooks running this tree: the same `entry`
    (with `dflash-migrate` spelled `python -m migrator`), `types` and the user's `args:`.
    pre-commit runs them as it runs the published ones (entry + args + file names,
    PRE_COMMIT=1), without installing the package."""
    import yaml

    published = {hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    hooks = []
    for hook_id in ("dflash-migrate-lint",):
        hook = dict(published[hook_id], language="system", args=args)
        hook["entry"] = hook["entry"].replace("dflash-migrate", f"{sys.executable} -m migrator", 1)
        hooks.append(hook)
    return yaml.safe_dump({"repos": [{"repo": "local", "hooks": hooks}]})


def _run_pre_commit(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "FORCE_COLOR", "NO_COLOR")}
    env = {**environ, "PYTHONPATH": str(REPO), "PRE_COMMIT_HOME": str(root.parent / "pre-commit-home"),
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run([_pre_commit(), "run", *args], cwd=root, capture_output=True, text=True, env=env,
                          timeout=300)


def test_file_names_that_look_like_options_are_paths_under_pre_commit(tmp_path: Path) -> None:
    """Issue 42 case 4: pre-commit passes a committed file named `--exit-zero` as an
    argument; the hook then passed whatever the other files held, and a file named
    `--output=README.md` made the lint overwrite README.md with its report."""
    pre_commit = _pre_commit()
    root = committed(tmp_path / "r", {"README.md": "# readme\n", "--exit-zero": "notes\n",
                                      "--output=README.md": "notes\n", "pkg/a.py": SAFE})
    (root / ".pre-commit-config.yaml").write_text(_local_hooks([]))
    git("add", "-A", cwd=root)
    git("commit", "-qm", "hooks", cwd=root)
    assert pre_commit
    done = _run_pre_commit(root, "--all-files")
    output = done.stdout + done.stderr
    assert done.returncode == 1 and "pkg/a.py:1:" in output, output
    assert (root / "README.md").read_text() == "# readme\n"
    assert not git("status", "--porcelain", cwd=root)


def test_the_lint_hook_with_args_fix_fixes_and_fails_like_ruff(tmp_path: Path) -> None:
    """Issue 51 item 2: `args: [--fix]` (ruff's habit) exited 2 on every commit: a staged
    file always differs from HEAD, so the dirty check refused it. Now the staged file is
    fixed and pre-commit fails "files were modified by this hook"; the user's `--fix` stays
    an option even beside a committed file of that name."""
    root = committed(tmp_path / "r", {"pkg/a.py": "x = 1\n", "--fix": "notes\n", "--exit-zero": "notes\n"})
    (root / ".pre-commit-config.yaml").write_text(_local_hooks(["--fix"]))
    git("add", "-A", cwd=root)
    git("commit", "-qm", "hooks", cwd=root)
    (root / "pkg/a.py").write_text(SAFE)
    for name in ("--fix", "--exit-zero"):
        (root / name).write_text("more notes\n")
    git("add", "-A", cwd=root)
    done = _run_pre_commit(root)
    output = done.stdout + done.stderr
    assert done.returncode == 1 and "files were modified by this hook" in output, output
    assert "uncommitted" not in output, output
    assert (root / "pkg/a.py").read_text() == "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\n"
    again = _run_pre_commit(root, "--all-files")
    assert again.returncode == 0, again.stdout + again.stderr


# ---- item 1: a documented .pre-commit-config.yaml ---------------------------------------------


def _documented_pre_commit_config() -> str:
    text = (REPO / "README.md").read_text()
    blocks = [textwrap.dedent(block) for block in re.findall(r"```yaml\n(.*?)```", text, re.S)]
    configs = [block for block in blocks if block.lstrip().startswith("repos:")]
    assert len(configs) == 1, "README.md shows one .pre-commit-config.yaml"
    return configs[0]


def test_the_documented_pre_commit_config_is_valid_and_names_the_published_hooks(tmp_path: Path) -> None:
    """Issue 51 item 1: README and docs showed no `.pre-commit-config.yaml` entry."""
    import yaml

    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(_documented_pre_commit_config())
    done = subprocess.run([_pre_commit(), "validate-config", str(config)], capture_output=True, text=True)
    assert done.returncode == 0 and not done.stdout.strip() and not done.stderr.strip(), done.stdout + done.stderr
    manifest = subprocess.run([_pre_commit(), "validate-manifest", str(REPO / ".pre-commit-hooks.yaml")],
                              capture_output=True, text=True)
    assert manifest.returncode == 0, manifest.stdout + manifest.stderr
    (repository,) = yaml.safe_load(config.read_text())["repos"]
    published = {hook["id"] for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert {hook["id"] for hook in repository["hooks"]} <= published
    # the pin is a full commit of this repository's history (no version tag exists yet)
    assert re.fullmatch(r"[0-9a-f]{40}", repository["rev"]), repository["rev"]
    known = subprocess.run(["git", "cat-file", "-t", repository["rev"]], cwd=REPO, capture_output=True, text=True)
    if known.returncode != 0:
        pytest.skip(f"{repository['rev']} is not in this checkout's history (a shallow clone)")
    assert known.stdout.strip() == "commit"


# ---- item 7: the example workflow passes zizmor -----------------------------------------------


@pytest.mark.parametrize("document", ["examples/github-actions/dflash-migrate.yml", "action.yml"])
def test_zizmor_finds_nothing_in_the_workflow_and_the_action(document: str) -> None:
    """Issue 51 item 7: the example workflow failed zizmor (`artipacked`: checkout keeps its
    credentials in .git; `self-repository`: `uses: ./`, which only works in this repository)."""
    import shutil

    zizmor = shutil.which("zizmor", path=str(Path(sys.executable).parent)) or shutil.which("zizmor")
    if zizmor is None:
        pytest.skip("zizmor is not installed (pip install zizmor)")
    done = subprocess.run([zizmor, "--offline", "--no-progress", "--format", "json", str(REPO / document)],
                          capture_output=True, text=True)
    assert done.returncode == 0 and json.loads(done.stdout) == [], done.stdout + done.stderr


# ---- item 8: the documented VS Code problem matcher reads concise output ----------------------


def test_the_documented_vscode_problem_matcher_reads_every_concise_finding(tmp_path: Path) -> None:
    """Issue 51 item 8: no documented problem matcher. The README's tasks.json regexp (a
    JavaScript regexp; this one is also Python's) must find file, line, column, code and
    message of every finding, with a colon and spaces in a file name."""
    text = (REPO / "README.md").read_text()
    tasks = [json.loads(textwrap.dedent(block)) for block in re.findall(r"```json\n(.*?)```", text, re.S)
             if "problemMatcher" in block]
    assert len(tasks) == 1, "README.md shows one VS Code task"
    (task,) = tasks[0]["tasks"]
    matcher = task["problemMatcher"]
    assert "--format concise" in task["command"] and matcher["fileLocation"][0] == "relative"
    pattern = matcher["pattern"]
    regexp = re.compile(pattern["regexp"])
    root = committed(tmp_path / "r", {"a.py": SAFE, "odd dir/we:ird 1.py": "\n" + SAFE,
                                      "run.sh": "SGLANG_ENABLE_SPEC_V2=1 python -m sglang.launch_server\n"})
    concise = cli("lint", "--format", "concise", ".", cwd=root).stdout.decode().splitlines()
    expected = sorted((f["path"], f["line"], f["column"], f["code"], f["message"]) for f in
                      json.loads(cli("lint", "--format", "json", ".", cwd=root).stdout)["findings"])
    found = []
    for line in concise:
        match = regexp.match(line)
        if match:
            found.append((match[pattern["file"]], int(match[pattern["line"]]), int(match[pattern["column"]]),
                          match[pattern["code"]], match[pattern["message"]].removeprefix("[*] ").removeprefix("[ ] ")))
    assert len(expected) >= 5 and sorted(found) == expected, (concise, expected)


# ---- item 12 (first half): the tool's own reports, recognised by content ------------------------


def test_reports_written_under_unknown_names_are_not_linted_by_the_next_run(tmp_path: Path) -> None:
    """Issue 51 item 12: `lint --format sarif -o r.sarif` then `lint .` reported the report
    (its rule descriptions name every V1 name): 800-odd findings in a two-file repository."""
    root = committed(tmp_path / "r", {"a.py": SAFE})
    formats = ("sarif", "gitlab", "json-lines", "json")
    for fmt in formats:
        assert cli("lint", "--format", fmt, "-o", f"report.{fmt}", ".", cwd=root).returncode == 1
    done = cli("lint", "--format", "json", ".", cwd=root)
    report = json.loads(done.stdout)
    assert {f["path"] for f in report["findings"]} == {"./a.py"}, {f["path"] for f in report["findings"]}
    assert f"{len(formats)} own reports not scanned" in cli("lint", ".", cwd=root).stdout.decode()
    assert all(f"report.{fmt}: skipped: the tool's own report" in done.stderr.decode() for fmt in formats)


@pytest.mark.parametrize("change", ["another tool's name", "one key more", "a V1 name in a JSON file"])
def test_a_json_file_that_is_not_exactly_a_report_is_still_linted(tmp_path: Path, change: str) -> None:
    root = committed(tmp_path / "r", {"a.py": SAFE})
    cli("lint", "--format", "sarif", "-o", "other.sarif", ".", cwd=root)
    sarif = json.loads((root / "other.sarif").read_text())
    if change == "another tool's name":
        sarif["runs"][0]["tool"]["driver"]["name"] = "other-tool"
    elif change == "one key more":
        sarif["inlineExternalProperties"] = []
    else:
        sarif = {"fingerprint": "0" * 64, "worker": "sglang.srt.speculative.dflash_worker"}
    (root / "other.sarif").write_text(json.dumps(sarif, indent=2))
    found = {f["path"] for f in json.loads(cli("lint", "--format", "json", ".", cwd=root).stdout)["findings"]}
    assert "./other.sarif" in found, found
