"""Issue 42 cases 2, 3, 5 and 6: CI log commands in every output, lines that start a
workflow command, one input line that crashes the run, and baselines read without bounds.

Each test builds its own small repository and runs the real CLI (offline, seconds).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
V1 = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
FORMATS = ("text", "concise", "full", "json", "json-lines", "sarif", "github", "gitlab", "junit")
#: A log command GitHub's runner (legacy ``##[``) or Azure's agent (``##vso[``) obeys anywhere in a line.
LOG_COMMAND = re.compile(r"##(vso)?\[", re.IGNORECASE)


def cli(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "migrator", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1", **env}, timeout=120)


def hostile_names(root: Path) -> None:
    """Files whose names and text carry log commands and workflow commands."""
    root.mkdir()
    (root / "m##vso[task.prependpath]x.py").write_text(
        V1 + "# TODO(dflash-migrate): ##vso[task.prependpath]/tmp/evil ##[error]forged\n"
             'X = "##[stop-commands]Y"\n')
    (root / "::error title=forged::x.py").write_text(V1)
    (root / "z##[stop-commands]X").symlink_to("nowhere")  # dangling: a "skipped" note names it
    (root / "::warning::dangling").symlink_to("nowhere")
    # a pin, echoed as written in the summaries' target
    (root / "requirements.txt").write_text('sglang>=0.5.14; python_version > "1" or extra == "##[stop-commands]X"\n')


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_no_log_command_in_any_format_or_stream(tmp_path: Path) -> None:
    """Attack (case 2): a dangling link named ``z##[stop-commands]X`` makes the "skipped"
    note on stderr a legacy GitHub command that silences every later annotation; a file
    name, a TODO text or a ``--format full`` excerpt holding ``##vso[task.prependpath]``
    reaches an Azure log. No format, stream or listing may carry ``##[`` or ``##vso[``."""
    root = tmp_path / "fork"
    hostile_names(root)
    runs = [("lint", ".", "--format", fmt) for fmt in FORMATS]
    runs += [("lint", ".", "--show-files"), ("lint", ".", "--show-fixes"), ("fix", "--check", ".")]
    for args in runs:
        result = cli(*args, cwd=root, GITHUB_ACTIONS="true")
        assert result.returncode == (0 if "--show-files" in args else 1), (args, result.stdout, result.stderr)
        for stream, text in (("stdout", result.stdout), ("stderr", result.stderr)):
            assert not LOG_COMMAND.search(text), f"{args} {stream}: {LOG_COMMAND.search(text)} in {text!r}"
    assert "m##vso\\x5btask.prependpath]x.py" in cli("lint", ".", cwd=root).stdout  # still named, escaped
    # --diff keeps changed lines exact (what git apply reads; under GitHub Actions they are
    # wrapped in ::stop-commands::), but its headers name the file in git's octal quoting
    diff = cli("fix", "--diff", ".", cwd=root)
    headers = [line for line in diff.stdout.splitlines() if line.startswith(("--- ", "+++ "))]
    assert headers and not any(LOG_COMMAND.search(line) for line in headers), headers
    assert '--- "a/m##vso\\133task.prependpath]x.py"' in headers


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_no_line_starts_a_workflow_command_but_the_tools_own(tmp_path: Path) -> None:
    """Attack (case 3): pre-commit passes file names as given, so a text/concise/full finding
    line starts with ``::error title=forged::x.py``, and a stderr note starts with a path in
    every format (a dangling link named ``::warning::dangling``). Under ``GITHUB_ACTIONS``
    no line of stdout or stderr may start (after whitespace) with ``::`` unless it is the
    tool's own command (``--format github``'s annotations)."""
    root = tmp_path / "fork"
    hostile_names(root)
    named = ("::error title=forged::x.py", "::warning::dangling", "m##vso[task.prependpath]x.py")
    own = re.compile(r"::(error|warning|notice) (file=[^,:]*,line=\d+,)?[^:]*title=dflash-migrate[^:]*::")
    for fmt in FORMATS:
        args = ("lint", *named, "--format", fmt)
        result = cli(*args, cwd=root, GITHUB_ACTIONS="true")
        assert result.returncode == 1, (args, result.stdout, result.stderr)
        assert "::warning::dangling" in result.stderr.replace("\\x3a", ":").replace("%3A", ":")  # the note is there
        for line in (result.stdout + result.stderr).splitlines():
            if line.lstrip().startswith("::"):
                assert fmt == "github" and own.match(line), f"{args}: {line!r}"


def test_a_marker_packaging_cannot_compare_is_an_ignored_pin_with_a_note(tmp_path: Path) -> None:
    """Attack (case 5): ``sglang>=0.5.14; python_version ~= "1"`` in requirements.txt made
    packaging raise while the pins were read: a traceback, no report, exit 1 even with
    ``--exit-zero``. The pin is ignored, with a note naming it, and the run reports."""
    (tmp_path / "requirements.txt").write_text('sglang>=0.5.14; python_version ~= "1"\n')
    (tmp_path / "m.py").write_text(V1)
    result = cli("lint", ".", "--exit-zero", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "DFM102" in result.stdout
    assert "in requirements.txt ignored: its marker cannot be evaluated" in result.stdout


@pytest.mark.parametrize("where", ["dependencies", "config"])
def test_a_deeply_nested_pyproject_is_a_usage_error(tmp_path: Path, where: str) -> None:
    """Attack (case 5): an array nested 100,000 deep in ``pyproject.toml`` (in the
    dependencies the pin search reads, or in ``[tool.dflash-migrate]``) made tomllib raise
    RecursionError out of ``main()``: a traceback, exit 1 even with ``--exit-zero``. It is a
    usage error naming the file: exit 2, one line."""
    deep = "[" * 100_000 + "]" * 100_000
    if where == "dependencies":
        text = f'[project]\nname = "x"\ndependencies = ["sglang", {deep}]\n'
    else:
        text = f"[tool.dflash-migrate]\nexclude = {deep}\n"
    (tmp_path / "pyproject.toml").write_text(text)
    (tmp_path / "m.py").write_text(V1)
    result = cli("lint", ".", "--exit-zero", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        f"dflash-migrate: error: {tmp_path / 'pyproject.toml'}: invalid TOML: arrays or tables nested too deeply to read"]


def test_last_resort_handler_exits_2_with_one_line(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Case 5's last resort: whatever escapes a command (here a failure no check foresaw,
    raised where the pins are read) ends the run with one line on stderr and exit 2, and
    ``--exit-zero`` does not hide it."""
    from migrator.cli.main import main
    from migrator.cli.runs import options

    def broken(folder: Path) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(options, "sglang_pins", broken)  # where the command's run reads the pins
    assert main(["lint", str(REPO / "examples"), "--exit-zero"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert err.startswith("dflash-migrate: error: internal error") and "RecursionError" in err


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_baseline_through_a_link_is_refused(tmp_path: Path) -> None:
    """Attack (case 6): a committed ``baseline.json -> /dev/zero`` made ``--baseline`` read
    without end (out of memory). The baseline is read as every input is: a link is refused
    with a usage error naming it, before anything is read."""
    root = tmp_path / "fork"
    root.mkdir()
    (root / ".git").mkdir()  # a repository top: links below it are the repository's
    (root / "m.py").write_text(V1)
    (root / "baseline.json").symlink_to("/dev/zero")
    result = cli("lint", "m.py", "--baseline", "baseline.json", "--exit-zero", cwd=root)
    assert result.returncode == 2, result.stderr
    assert "baseline.json: cannot read the baseline: is a symbolic link" in result.stderr


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_baseline_that_is_a_device_or_too_large_is_refused(tmp_path: Path) -> None:
    """Attack (case 6): the baseline named directly as a device (``/dev/zero``), or a sparse
    file past the size limit: refused before it is read (no memory spent), exit 2."""
    (tmp_path / "m.py").write_text(V1)
    big = tmp_path / "big.json"
    with open(big, "wb") as out:
        out.truncate(65 * 2**20)  # sparse: no disk used
    for baseline, said in (("/dev/zero", "not a regular file"), (str(big), "file too large to read")):
        result = cli("lint", "m.py", "--baseline", baseline, "--exit-zero", cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        assert f"{baseline}: cannot read the baseline: {said}" in result.stderr


def test_deeply_nested_baseline_is_a_usage_error(tmp_path: Path) -> None:
    """Attack (case 6): a baseline of 100,000 nested arrays raised RecursionError out of
    ``main()`` (a traceback, exit 1 with ``--exit-zero``). It is a usage error naming the
    file, exit 2."""
    (tmp_path / "m.py").write_text(V1)
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    result = cli("lint", "m.py", "--baseline", "deep.json", "--exit-zero", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "deep.json: not a dflash-migrate baseline: arrays or objects nested too deeply" in result.stderr

