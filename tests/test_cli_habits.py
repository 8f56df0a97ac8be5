"""The command line never surprises a ruff or pre-commit user (issue 28): nothing unasked
is written, a refused file is never reported as fixed, stdin and a named file exit alike
in every mode, the exit code is computed in one place, and ``--diff`` is a patch that
``git apply`` and ``patch -p1`` accept and that is safe on a terminal and in a CI log."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SAFE = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
UNSAFE = "\n\ndef drop_finished(batch, flag):\n    batch.filter_batch(v1_spec_info_filtered=flag)\n"
MANUAL = "from sglang.srt.speculative.dflash_info import _compute_paged_keep_slots\n"


def cli(*args: str, cwd: Path, stdin: bytes | None = None, env: dict[str, str] | None = None,
        ) -> subprocess.CompletedProcess[bytes]:
    environ = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "FORCE_COLOR", "NO_COLOR")}
    return subprocess.run([sys.executable, "-m", "migrator", *args], cwd=cwd, capture_output=True, input=stdin,
                          env={**environ, "PYTHONPATH": str(REPO), **(env or {})})


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                          capture_output=True, text=True).stdout


def committed(root: Path, files: dict[str, bytes | str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git("init", "-q", cwd=root)
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    git("add", "-A", cwd=root)
    git("commit", "-qm", "init", cwd=root)
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts}


# ---- nothing unasked is written -----------------------------------------------------


@pytest.mark.parametrize("args", [
    ["format", "."], ["version", "."], ["clean", "."], ["analyze", "."],  # words that are no command
    ["-q", "lint", "."], ["--check", "lint", "."], ["--select", "DFM1", "check", "."],  # an option before the command
    ["missing.py"],
])
def test_no_command_and_no_path_is_a_usage_error_before_anything_runs(tmp_path: Path, args: list[str]) -> None:
    """At 9c817bf `format .` printed an error and then fixed `.`; `-q lint .` ran the fix on
    the paths `lint` and `.`."""
    root = committed(tmp_path / "r", {"a.py": SAFE})
    before = snapshot(root)
    done = cli(*args, cwd=root)
    assert done.returncode == 2, done.stderr
    assert done.stderr.decode().startswith("dflash-migrate: error:"), done.stderr
    assert b"nothing was run" in done.stderr and not done.stdout and b": DFM" not in done.stderr
    assert snapshot(root) == before


@pytest.mark.parametrize("args", [["fix", "missing.py", "."], ["missing.py", "a.py"], ["lint", "--fix", ".", "missing.py"],
                                  ["lint", "--add-noqa", ".", "missing.py"]])
def test_a_writing_run_with_a_missing_path_writes_nothing(tmp_path: Path, args: list[str]) -> None:
    """A report run names the missing path as an error of that file and goes on (ruff's
    E902); a folder named like a command is reached after `--`."""
    root = committed(tmp_path / "r", {"a.py": SAFE, "lint/b.py": SAFE})
    before = snapshot(root)
    done = cli(*args, cwd=root)
    assert done.returncode == 2 and b"missing.py" in done.stderr and b"DFM" not in done.stdout, done.stderr
    assert snapshot(root) == before
    report = cli("lint", "missing.py", "a.py", cwd=root)
    assert report.returncode == 2
    assert b"missing.py: error: no such file or folder" in report.stdout and b"a.py:1:6: DFM101" in report.stdout
    folder = cli("--check", "--", "lint", cwd=root)
    assert folder.returncode == 1 and b"lint/b.py" in folder.stdout, folder.stderr


def test_a_refused_file_is_never_reported_as_fixed(tmp_path: Path) -> None:
    """At 9c817bf: `error: has uncommitted changes`, then `[fixed]` lines and `1 changed,
    2 fixes applied` although nothing was written."""
    root = committed(tmp_path / "r", {"a.py": SAFE, "b.py": SAFE})
    (root / "a.py").write_text(SAFE + "x = 1\n")  # uncommitted work
    done = cli(".", cwd=root)
    out, err = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == 2 and "a.py: error: has uncommitted changes" in err
    assert not [line for line in out.splitlines() if line.startswith("./a.py") and "[fixed]" in line], out
    assert [line for line in out.splitlines() if line.startswith("./b.py") and "[fixed]" in line], out
    assert "2 files scanned, 1 changed, 2 fixes applied" in err, err
    assert (root / "a.py").read_text() == SAFE + "x = 1\n"
    listing = cli("lint", "--fix", "--show-fixes", ".", cwd=root)
    assert listing.stdout.endswith(b"No findings fixed.\n"), listing.stdout  # b.py is fixed already, a.py refused


def test_summaries_count_in_the_right_number(tmp_path: Path) -> None:
    root = committed(tmp_path / "r", {"a.py": SAFE})
    err = cli("--check", ".", cwd=root).stderr.decode()
    assert "1 file scanned" in err and "1 file with" not in err and "0 files with errors" in err, err
    assert "1 files" not in err


# ---- stdin and a named file: same findings, output and exit code ----------------------


MODES = [[], ["--unsafe-fixes"], ["--diff"], ["--diff", "--unsafe-fixes"], ["--check"], ["lint"], ["lint", "--fix"],
         ["lint", "--fix", "--unsafe-fixes"]]


@pytest.mark.parametrize("source", [SAFE + UNSAFE, MANUAL + SAFE + UNSAFE, "x = 1\n"], ids=["safe+unsafe", "manual", "clean"])
@pytest.mark.parametrize("mode", MODES, ids=" ".join)
def test_stdin_and_a_named_file_give_the_same_findings_and_exit_code(tmp_path: Path, mode: list[str], source: str) -> None:
    """At 9c817bf `--unsafe-fixes -` printed `[fixed]` and exited 1 where the file exited 0."""
    root = committed(tmp_path / "r", {"u.py": source})
    named = cli(*mode, "u.py", cwd=root)
    named_file = (root / "u.py").read_bytes()
    git("checkout", "-q", ".", cwd=root)
    piped = cli(*mode, "--stdin-filename", "u.py", "-", cwd=root, stdin=source.encode())
    assert piped.returncode == named.returncode, (piped.stderr, named.stderr)

    def report(done: subprocess.CompletedProcess[bytes]) -> list[str]:
        text = (done.stdout + done.stderr).decode()
        return sorted(line for line in text.splitlines() if line.startswith(("u.py:", "dflash-migrate:", "Found")))

    assert report(piped) == report(named)
    if "--diff" in mode:
        assert piped.stdout == named.stdout
    elif mode in ([], ["--unsafe-fixes"]) or "--fix" in mode:
        assert piped.stdout == named_file  # the fixed source


def test_the_exit_code_is_computed_in_one_place() -> None:
    """Exit codes were computed five times (RunResult.exit_code, lint._exit_code,
    verify.exit_code, stdin, baselines/--add-noqa) and disagreed; only
    migrator/run/result.py may decide 0/1/2 now."""
    computing = re.compile(r"\breturn\s+[12]\s*$|(?:\breturn|=)\s*[012]\s+if\b|\bcode\s*=\s*[12]\s*$"
                           r"|sys\.exit\(\s*[12]\s*\)|Exit\(\s*[12]\s*\)")
    found = []
    for path in sorted((REPO / "migrator").rglob("*.py")):
        if path.relative_to(REPO).as_posix() in ("migrator/run/result.py", "migrator/catalog/docs.py"):  # docs.py: the MIGRATION.md generator's own check
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if computing.search(line.split("#", 1)[0]):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not found, found
    from migrator.run import result

    assert result.exit_code([], "fix") == 0


# ---- --diff ----------------------------------------------------------------------------


HOSTILE_NAME = "sub/we\nird\x1b]0;title\x07 \x1b[31m\"q\\.py"


@pytest.mark.skipif(not shutil.which("patch"), reason="GNU patch is not installed")
@pytest.mark.parametrize("environ", [{}, {"GITHUB_ACTIONS": "true"}], ids=["plain", "github-actions"])
def test_diff_is_applied_by_git_apply_and_patch(tmp_path: Path, environ: dict[str, str]) -> None:
    """At 9c817bf the headers were `a/./path` (git apply: invalid path), a changed last line
    without LF merged into the next `+` line, and CR split lines; a newline or ESC in a
    file name went raw into the header."""
    files = {
        "plain.py": SAFE,
        "no_final_newline.py": "x = 1\n" + SAFE.rstrip("\n"),
        "crlf.py": SAFE.replace("\n", "\r\n") + "y = '\x1b[2J'\r\n",
        HOSTILE_NAME: "# \x1b]0;owned\x07\n" + SAFE,
    }
    root = committed(tmp_path / "r", files)
    done = cli("--diff", ".", cwd=root, env=environ)
    assert done.returncode == 1, done.stderr
    patch = done.stdout
    headers = [line for line in patch.splitlines() if line.startswith((b"--- ", b"+++ "))]
    assert len(headers) == 8 and not [line for line in headers if b"./" in line or b"\x1b" in line], headers
    assert b"\\ No newline at end of file\n" in patch
    assert b'--- "a/sub/we\\nird\\033]0;title\\a \\033[31m\\"q\\\\.py"\n' in patch, patch
    assert b"-from sglang.srt.speculative.dflash_worker import DFlashWorker\r\n" in patch  # byte-exact, CR kept
    if environ:
        first, *_, last = patch.splitlines()
        token = first.removeprefix(b"::stop-commands::")
        assert re.fullmatch(rb"[0-9a-f]{32}", token) and last == b"::" + token + b"::"
        again = cli("--diff", ".", cwd=root, env=environ).stdout.splitlines()[0]
        assert again != first  # a fresh token each run: a file cannot guess it
    (tmp_path / "p.diff").write_bytes(patch)
    applied_git = subprocess.run(["git", "apply", "--check", "-v", str(tmp_path / "p.diff")], cwd=root,
                                 capture_output=True, text=True)
    assert applied_git.returncode == 0, applied_git.stderr
    fixed = tmp_path / "fixed"
    shutil.copytree(root, fixed)
    subprocess.run(["git", "apply", str(tmp_path / "p.diff")], cwd=root, check=True)
    cli(".", "--allow-dirty", cwd=fixed)
    assert snapshot(root) == snapshot(fixed)
    patched = tmp_path / "patched"
    git("clone", "-q", str(root), str(patched), cwd=tmp_path)
    with (tmp_path / "p.diff").open("rb") as stdin:
        result = subprocess.run(["patch", "-p1", "--batch", "--forward"], cwd=patched, stdin=stdin, capture_output=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert snapshot(patched) == snapshot(fixed)


def test_diff_on_a_terminal_escapes_the_files_text() -> None:
    from io import BytesIO

    from migrator.report import diff

    old, new = b"# \x1b]0;owned\x07\n" + SAFE.encode(), b"# \x1b]0;owned\x07\n" + b"x = 2\n"
    shown, raw = BytesIO(), BytesIO()
    diff.write([(old, new, "x\x1b[2Jy.py")], shown, terminal=True, environ={})
    diff.write([(old, new, "x\x1b[2Jy.py")], raw, terminal=False, environ={})
    assert b"\x1b" not in shown.getvalue() and b"\x07" not in shown.getvalue()
    assert b" # \\x1b]0;owned\\x07\n" in shown.getvalue()
    assert b" # \x1b]0;owned\x07\n" in raw.getvalue()  # a pipe gets the bytes: git apply needs them
    assert b'--- "a/x\\033[2Jy.py"' in raw.getvalue()


def test_diff_names_paths_below_the_current_folder_without_dot_slash(tmp_path: Path) -> None:
    root = committed(tmp_path / "r", {"pkg/a.py": SAFE})
    for path in ("./pkg/a.py", str(root / "pkg" / "a.py"), "pkg/../pkg/a.py"):
        head = cli("--diff", path, cwd=root).stdout.splitlines()[:2]
        assert head == [b"--- a/pkg/a.py", b"+++ b/pkg/a.py"], (path, head)


# ---- own outputs are not inputs --------------------------------------------------------


def test_the_readme_gitlab_reports_are_not_findings_of_the_next_run(tmp_path: Path) -> None:
    """At 9c817bf the GitLab example's Code Quality lint reported 40 findings inside the
    JUnit report the job had just written."""
    root = committed(tmp_path / "r", {"a.py": SAFE})
    cli("lint", "--format", "junit", "--output", "dflash-migrate-junit.xml", "--exit-zero", ".", cwd=root)
    assert b"DFlashWorker" in (root / "dflash-migrate-junit.xml").read_bytes()
    second = cli("lint", "--format", "gitlab", "--output", "gl-code-quality-report.json", ".", cwd=root)
    assert second.returncode == 1
    import json

    paths = {issue["location"]["path"] for issue in json.loads((root / "gl-code-quality-report.json").read_text())}
    assert paths == {"a.py"}, paths
    third = cli("lint", ".", cwd=root)
    assert b"junit" not in third.stdout and b"gl-code-quality" not in third.stdout, third.stdout
    assert b"2 own reports not scanned" in third.stdout, third.stdout
    assert b"dflash-migrate-junit.xml: skipped: the tool's own report" in third.stderr


def test_the_files_a_run_writes_are_not_scanned_by_it(tmp_path: Path) -> None:
    """A report written inside the tree by `-o`/`--output-file`, and the baseline, are no
    findings of the run that writes or reads them (at 9c817bf a SARIF report was 194
    findings of the next run). A report under another name is recognised by its content,
    strictly (issue 51; near misses are linted: tests/test_ruff_user_next.py)."""
    root = committed(tmp_path / "r", {"a.py": SAFE})
    for _ in range(2):
        done = cli("lint", "--format", "sarif", "--output-file", "report.sarif", "--exit-zero", ".", cwd=root)
        assert done.returncode == 0, done.stderr
    import json

    results = json.loads((root / "report.sarif").read_text())["runs"][0]["results"]
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results} == {"a.py"}
    assert b"report.sarif: skipped: the tool's own report" in done.stderr
    for _ in range(2):
        assert cli("lint", "--write-baseline", "base.json", ".", cwd=root).returncode == 0
    again = cli("lint", "--baseline", "base.json", "-o", "report.txt", ".", cwd=root)
    assert again.returncode == 0, (again.stdout, again.stderr)
    assert "Found 0 V1 references" in (root / "report.txt").read_text()
    looks_like_a_report = committed(tmp_path / "s", {"report.sarif": (root / "report.sarif").read_bytes(), "a.py": SAFE})
    plain = cli("lint", "--format", "concise", ".", cwd=looks_like_a_report)
    assert b"report.sarif" not in plain.stdout and b"1 own report not scanned" in plain.stdout, plain.stdout


# ---- counts users see are true ------------------------------------------------------------


def test_lint_counts_safe_fixes_and_hidden_unsafe_ones_as_ruff_does(tmp_path: Path) -> None:
    """At 9c817bf `lint` counted unsafe fixes as `fixable with dflash-migrate`, which a plain
    fix does not apply."""
    root = committed(tmp_path / "r", {"u.py": SAFE + UNSAFE})
    out = cli("lint", "--target-version", "0.5.17", ".", cwd=root).stdout.decode().splitlines()[-1]
    assert out == ("Found 3 V1 references in 1 of 1 file (2 fixable with `dflash-migrate`; "
                   "1 hidden fix can be enabled with `--unsafe-fixes`) (target sglang 0.5.17 (--target-version 0.5.17))."), out
    import json

    summary = json.loads(cli("lint", "--format", "json", ".", cwd=root).stdout)["summary"]
    assert (summary["fixable"], summary["unsafe_fixable"]) == (2, 1)
    diff = cli("--diff", ".", cwd=root).stderr.decode()
    assert "2 fixes available" in diff, diff


def test_statistics_marks_partly_fixable_codes(tmp_path: Path) -> None:
    """`[*]` every finding of the code fixable, `[~]` some, `[ ]` none (ruff's marks); at
    9c817bf a code with one finding not fixable among many showed `[ ]`."""
    mixed = ("def drop_finished(batch, flag):\n    batch.filter_batch(v1_spec_info_filtered=False)\n"
             "    batch.filter_batch(v1_spec_info_filtered=True)\n    batch.filter_batch(v1_spec_info_filtered=flag)\n")
    root = committed(tmp_path / "r", {"a.py": SAFE, "b.py": MANUAL, "c.py": mixed})

    def marks(*extra: str) -> dict[str, str]:
        out = cli("lint", "--statistics", *extra, ".", cwd=root).stdout.decode()
        return {line.split("\t")[1].strip(): line.split("\t")[2][:3] for line in out.splitlines()}

    assert marks() == {"DFM101": "[*]", "DFM102": "[*]", "DFM104": "[ ]", "DFM112": "[~]"}
    assert marks("--unsafe-fixes")["DFM112"] == "[*]"


# ---- stable baselines ----------------------------------------------------------------------

FORK = {
    "pkg/__init__.py": "",
    "pkg/compat.py": SAFE,
    "pkg/a.py": "from pkg.compat import DFlashWorker\n\n\nclass W(DFlashWorker):\n"
                "    def _prepare_for_speculative_decoding(self):\n        pass\n",
}


def test_the_pre_commit_flow_matches_a_baseline_written_by_lint_dot(tmp_path: Path) -> None:
    """pre-commit runs `lint FILE...` (a fork finding's message names the related module);
    at 9c817bf it was absolute under some namings, so the baseline written by `lint .`
    no longer matched: findings reported as new, entries counted as fixed."""
    root = committed(tmp_path / "repo", FORK)
    assert cli("lint", "--write-baseline", "dflash-baseline.json", ".", cwd=root).returncode == 0
    link = tmp_path / "link"
    link.symlink_to(root)
    namings = [
        (root, ["pkg/a.py", "pkg/compat.py"]),  # as pre-commit passes staged files
        (root, [str(root / "pkg" / "a.py")]),
        (link, [str(link / "pkg" / "a.py")]),  # the checkout reached through a link
        (tmp_path, ["repo/pkg/a.py"]),  # from outside the repository
        (Path("/"), [str(link / "pkg" / "a.py")]),
    ]
    for cwd, files in namings:
        done = cli("lint", "--baseline", str(root / "dflash-baseline.json"), *files, cwd=cwd)
        assert done.returncode == 0, (cwd, files, done.stdout, done.stderr)
        assert b"fixed" not in done.stderr and b"known findings not reported" in done.stderr, done.stderr
        listed = cli("lint", "--format", "json", *files, cwd=cwd).stdout
        import json

        messages = [f["message"] for f in json.loads(listed)["findings"] if "through" in f["message"]]
        assert messages and all("(through pkg/compat.py:1)" in m for m in messages), (cwd, messages)


# ---- ruff's spellings ----------------------------------------------------------------------


def test_show_files_and_show_settings_read_nothing_and_write_nothing(tmp_path: Path) -> None:
    root = committed(tmp_path / "r", {"a.py": SAFE, "vendor/v.py": SAFE, "notes.txt": "x\n",
                                      "pyproject.toml": '[tool.dflash-migrate]\nexclude = ["vendor/"]\n'})
    before = snapshot(root)
    for command in (["lint"], ["fix"], []):
        files = cli(*command, "--show-files", ".", cwd=root)
        assert files.returncode == 0, files.stderr
        assert files.stdout.decode().splitlines() == sorted(str(root / n) for n in ("a.py", "notes.txt", "pyproject.toml"))
        settings = cli(*command, "--show-settings", "--select", "DFM1", ".", cwd=root).stdout.decode()
        assert f"config = {root / 'pyproject.toml'}" in settings and "select = DFM1" in settings, settings
        assert "exclude = vendor/" in settings
    assert snapshot(root) == before


def test_verbose_says_what_the_run_used(tmp_path: Path) -> None:
    root = committed(tmp_path / "r", {"a.py": SAFE})
    for command in (["lint"], ["--check"]):
        err = cli(*command, "-v", ".", cwd=root).stderr.decode()
        assert re.search(r"config \(none\), target sglang \d+\.\d+\.\d+\.\.\d+\.\d+\.\d+ \(no sglang pin found: [^)]*\), "
                         r"1 file scanned in \d+\.\d+ s", err), err


def test_the_fix_takes_exit_zero_and_statistics(tmp_path: Path) -> None:
    root = committed(tmp_path / "r", {"m.py": MANUAL + SAFE})
    done = cli("--check", "--statistics", ".", cwd=root)
    assert done.returncode == 1
    assert done.stdout.decode().splitlines() == [
        "1\tDFM101\t[*] module `dflash_worker` was removed in sglang 0.5.14; use `dflash_worker_v2`",
        "1\tDFM102\t[*] `DFlashWorker` was replaced by `DFlashWorkerV2`",
        "1\tDFM104\t[ ] `_compute_paged_keep_slots` was removed with no replacement"]
    assert cli("--check", "--exit-zero", ".", cwd=root).returncode == 0
    fixed = cli("--exit-zero", ".", cwd=root)
    assert fixed.returncode == 0 and b"[manual]" in fixed.stdout and (root / "m.py").read_text() != MANUAL + SAFE
    (root / "bad.py").write_text(SAFE + "def (:\n")
    assert cli("--check", "--exit-zero", ".", cwd=root).returncode == 2  # never hides a file it could not process


NOTEBOOK_CELL = ("from sglang.srt.speculative.dflash_worker import DFlashWorker  # noqa: DFM101,DFM102\n"
                 "import sglang.srt.speculative.dflash_worker as w  # noqa\n"
                 "import sglang.srt.speculative.dflash_info  # noqa: E402, F401\n")


def test_noqa_with_this_tools_codes_is_honoured_in_python_and_notebooks(tmp_path: Path) -> None:
    """ruff users write `# noqa: DFM101` (ruff keeps it with `lint.external = ["DFM"]`); at
    9c817bf it was ignored. A bare `# noqa` hides nothing and other tools' codes are never
    reported as unused."""
    import json

    notebook = json.dumps({"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                                      "source": NOTEBOOK_CELL.splitlines(keepends=True)}],
                           "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"
    root = committed(tmp_path / "r", {"a.py": NOTEBOOK_CELL + "x = 1  # noqa: DFM105, E501\n", "n.ipynb": notebook})
    doc = json.loads(cli("lint", "--format", "json", ".", cwd=root).stdout)
    found = [(f["path"].removeprefix("./"), f["code"], f["line"]) for f in doc["findings"]]
    assert found == [("a.py", "DFM101", 2), ("n.ipynb", "DFM101", 10)], found  # the bare noqa's line: the cell's 2nd
    unused = [(u["path"].removeprefix("./"), u["codes"]) for u in doc["unused_suppressions"]]
    assert unused == [("a.py", ["DFM105"])], unused  # E402/F401/E501 are other tools' business
    assert doc["summary"]["suppressed"] == 4  # DFM101 and DFM102 of the first line, in each file
    before = snapshot(root)
    assert cli("fix", ".", cwd=root).returncode == 0
    after = snapshot(root)
    assert after["a.py"].splitlines()[0] == before["a.py"].splitlines()[0]  # a suppressed line is not rewritten
    assert b"dflash_worker_v2 as w" in after["a.py"] and b"dflash_worker_v2 as w" in after["n.ipynb"]
    assert b"DFlashWorker  # noqa" in after["n.ipynb"]


def test_full_format_shows_the_source_line_and_a_caret(tmp_path: Path) -> None:
    root = committed(tmp_path / "r", {"a.py": "if x:\n\t" + "import sglang.srt.speculative.dflash_worker as w\n"})
    for args, stdin in ((["a.py"], None), (["--stdin-filename", "a.py", "-"], (root / "a.py").read_bytes())):
        out = cli("lint", "--format", "full", *args, cwd=root, stdin=stdin).stdout.decode().splitlines()
        assert out[:5] == [
            "a.py:2:9: DFM101 module `dflash_worker` was removed in sglang 0.5.14; use `dflash_worker_v2` [*]",
            "  |",
            "2 | \\timport sglang.srt.speculative.dflash_worker as w",
            "  | " + " " * len("\\timport ") + "^" * 36 + " DFM101",
            "  |"], out


@pytest.mark.parametrize(("environ", "tty", "coloured"), [
    ({}, False, False), ({"FORCE_COLOR": "1"}, False, True), ({}, True, True), ({"NO_COLOR": "1"}, True, False),
    ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, False, False), ({"TERM": "dumb"}, True, False),
])
def test_colour_on_terminals_honours_no_color_and_force_color(tmp_path: Path, environ: dict[str, str], tty: bool,
                                                               coloured: bool) -> None:
    root = committed(tmp_path / "r", {"a.py": SAFE})
    env = {"TERM": "xterm", **environ}
    for command in (["lint"], ["--check"]):
        if tty:
            import pty

            leader, follower = pty.openpty()
            subprocess.run([sys.executable, "-m", "migrator", *command, "."], cwd=root, stdout=follower,
                           stderr=subprocess.DEVNULL, env={**{k: v for k, v in os.environ.items()
                                                              if k not in ("NO_COLOR", "FORCE_COLOR")},
                                                           "PYTHONPATH": str(REPO), **env})
            os.close(follower)
            out = os.read(leader, 65536)
            os.close(leader)
        else:
            out = cli(*command, ".", cwd=root, env=env).stdout
        assert (b"\x1b[1m\x1b[31mDFM101\x1b[0m" in out) is coloured, (command, out)
        assert b"DFM101" in out


def test_shell_completion_is_typers_and_never_runs_the_fix(tmp_path: Path) -> None:
    """At 9c817bf `--install-completion` was a usage error; the shell's completion request
    (no arguments, `_DFLASH_MIGRATE_COMPLETE` set) would have run the default fix on `.`."""
    root = committed(tmp_path / "r", {"a.py": SAFE})
    # typer names the shell it runs under (its parent process): a bash, as a user's terminal is
    shown = subprocess.run(["bash", "-c", f"'{sys.executable}' -m migrator --show-completion; exit $?"], cwd=root,
                           capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert shown.returncode == 0 and b"_DFLASH_MIGRATE_COMPLETE=complete_bash" in shown.stdout, shown.stderr
    asked = cli(cwd=root, env={"_DFLASH_MIGRATE_COMPLETE": "complete_bash", "COMP_WORDS": "dflash-migrate lint --out",
                               "COMP_CWORD": "2"})
    assert set(asked.stdout.decode().split()) == {"--output", "--output-file", "--output-format"}, asked
    assert (root / "a.py").read_text() == SAFE


# ---- packaging -----------------------------------------------------------------------------


@pytest.mark.slow
def test_the_wheel_ships_its_licence_and_the_migration_guide(tmp_path: Path) -> None:
    """At 9c817bf the wheel declared Apache-2.0 without the licence text, and `explain`
    pointed at a MIGRATION.md that an installed copy did not have. Builds the wheel."""
    import zipfile

    import sglang_env

    wheel = sglang_env.project_wheel(tmp_path / "dist")
    names = zipfile.ZipFile(wheel).namelist()
    licence = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    assert licence and "migrator/MIGRATION.md" in names, names
    text = zipfile.ZipFile(wheel).read(licence[0]).decode()
    assert "Apache License" in text and "Version 2.0, January 2004" in text and "END OF TERMS AND CONDITIONS" in text
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: Apache-2.0" in metadata and "Classifier: Programming Language :: Python :: 3" in metadata
    python = sglang_env.wheel_venv(tmp_path / "venv", wheel)
    # the installed copy, whatever PYTHONPATH a developer's shell points at a checkout
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    out = subprocess.run([str(python), "-c", "from migrator.cli.runs.explain import explain; print(explain('DFM101'))"],
                         capture_output=True, text=True, cwd=tmp_path, check=True, env=env).stdout
    shown = re.search(r"See MIGRATION\.md#dfm101 \((?P<path>[^)]+)\)", out)
    assert shown and Path(shown["path"]).is_file() and "site-packages" in shown["path"], out
    assert "## DFM101" in Path(shown["path"]).read_text() or "dfm101" in Path(shown["path"]).read_text().lower()


def test_the_shims_install_hint_names_sglang_not_an_extra_of_a_foreign_package(tmp_path: Path) -> None:
    """At 9c817bf `python -m shims.launch_server` without sglang said `pip install
    'dflash-migrate[sglang]'`: an extra of the PyPI package of that name, which is not this
    tool (README, "In CI")."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "shims.launch_server"], cwd=tmp_path, capture_output=True,
                          text=True, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert done.returncode != 0 and "sglang is not installed" in done.stderr, done.stderr
    assert "pip install 'sglang>=0.5.14'" in done.stderr and "dflash-migrate[" not in done.stderr, done.stderr


def test_every_stderr_line_makes_control_characters_visible(tmp_path: Path) -> None:
    """A file name is user data: a path ``verify`` skipped went raw to the terminal (``fix``
    escaped its own skipped paths; an unknown word is shown by ``repr``); every usage error
    and skipped path now goes through one printer each."""
    word = "no\x1b]0;owned\x07such"
    unknown = cli(word, cwd=tmp_path)
    assert unknown.returncode == 2 and b"is no command" in unknown.stderr, unknown.stderr
    release = tmp_path / "sglang_tree" / "sglang"
    release.mkdir(parents=True)
    (release / "__init__.py").write_text("")
    link = tmp_path / "fork" / "li\x1b[2Jnk.py"
    link.parent.mkdir()
    link.symlink_to(tmp_path / "nowhere.py")
    skipped = [cli(*command, str(link), cwd=tmp_path)
               for command in (("fix", "--allow-dirty"), ("verify", "--sglang", str(tmp_path / "sglang_tree")))]
    assert all(b"nk.py: skipped: " in done.stderr for done in skipped), [done.stderr for done in skipped]
    assert not [done.stderr for done in (unknown, *skipped) if b"\x1b" in done.stderr or b"\x07" in done.stderr]
