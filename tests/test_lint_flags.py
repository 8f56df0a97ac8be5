"""Issue 17 item 8: the ruff flags a ruff user reaches for, meaning what they mean in ruff,
and the baseline / add-noqa flags (item 9), through the real command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

V1 = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
MANUAL = "from sglang.srt.speculative.dflash_info import DFlashVerifyInput\n\ndef f(v: DFlashVerifyInput):\n    v.verify()\n"


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return tmp_path


def cli(repo: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "migrator", *args], cwd=repo, input=stdin, capture_output=True,
                          text=True, timeout=120)


def test_output_format_is_an_alias_of_format(repo: Path) -> None:
    (repo / "a.py").write_text(V1)
    ruff_style = cli(repo, "lint", "--output-format", "json", ".")
    ours = cli(repo, "lint", "--format", "json", ".")
    assert ruff_style.returncode == ours.returncode == 1
    assert json.loads(ruff_style.stdout) == json.loads(ours.stdout)


def test_statistics(repo: Path) -> None:
    (repo / "a.py").write_text(V1 * 2)
    done = cli(repo, "lint", "--statistics", ".")
    assert done.returncode == 1
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert rows and all(len(row) == 3 for row in rows)
    assert {row[1].strip() for row in rows} >= {"DFM101"}
    assert next(row for row in rows if row[1].strip() == "DFM101")[0].strip() == "2"


def test_fix_on_lint_with_show_fixes_and_exit_non_zero_on_fix(repo: Path) -> None:
    (repo / "a.py").write_text(V1)
    done = cli(repo, "lint", "--fix", "--show-fixes", ".")
    assert "dflash_worker_v2" in (repo / "a.py").read_text()
    assert done.returncode == 0, done.stdout + done.stderr  # nothing left after the fix
    assert "Fixed" in done.stdout and "DFM101" in done.stdout
    (repo / "b.py").write_text(V1)
    assert cli(repo, "lint", "--fix", "--exit-non-zero-on-fix", ".").returncode == 1
    assert cli(repo, "lint", "--fix", "--exit-non-zero-on-fix", ".").returncode == 0  # nothing more to fix


def test_fix_on_lint_reports_what_is_left(repo: Path) -> None:
    (repo / "m.py").write_text(MANUAL)
    done = cli(repo, "lint", "--fix", "--format", "json", ".")
    assert done.returncode == 1
    assert [f["code"] for f in json.loads(done.stdout)["findings"]]


def test_extend_select_and_extend_ignore(repo: Path) -> None:
    (repo / "a.py").write_text(V1)
    (repo / "pyproject.toml").write_text('[tool.dflash-migrate]\nselect = ["DFM102"]\n')
    codes = lambda done: {f["code"] for f in json.loads(done.stdout)["findings"]}  # noqa: E731
    assert codes(cli(repo, "lint", "--format", "json", ".")) == {"DFM102"}
    assert codes(cli(repo, "lint", "--format", "json", "--extend-select", "DFM101", ".")) == {"DFM101", "DFM102"}
    assert codes(cli(repo, "lint", "--format", "json", "--extend-select", "DFM101", "--extend-ignore", "DFM102",
                     ".")) == {"DFM101"}


def test_config_and_isolated(repo: Path) -> None:
    (repo / "a.py").write_text(V1)
    (repo / "pyproject.toml").write_text('[tool.dflash-migrate]\nignore = ["DFM1"]\n')
    (repo / "other.toml").write_text('[tool.dflash-migrate]\nignore = ["DFM102"]\n')
    assert cli(repo, "lint", ".").returncode == 0
    assert cli(repo, "lint", "--isolated", ".").returncode == 1
    done = cli(repo, "lint", "--config", "other.toml", "--format", "json", ".")
    assert {f["code"] for f in json.loads(done.stdout)["findings"]} == {"DFM101"}
    assert json.loads(done.stdout)["config"].endswith("other.toml")
    missing = cli(repo, "lint", "--config", "nope.toml", ".")
    assert missing.returncode == 2 and "nope.toml" in missing.stderr


def test_lint_reads_stdin_with_stdin_filename(repo: Path) -> None:
    done = cli(repo, "lint", "-", stdin=V1)
    assert done.returncode == 1 and "DFM101" in done.stdout
    shell = cli(repo, "lint", "--stdin-filename", "deploy/run.sh", "-", stdin="SGLANG_ENABLE_SPEC_V2=1 python -m x\n")
    assert shell.returncode == 1 and "deploy/run.sh:1:" in shell.stdout and "DFM201" in shell.stdout
    assert cli(repo, "lint", "--stdin-filename", "x.py", "-", stdin="x = 1\n").returncode == 0


def test_quiet_prints_findings_only(repo: Path) -> None:
    (repo / "a.py").write_text(V1)
    done = cli(repo, "lint", "-q", ".")
    assert done.returncode == 1
    assert "DFM101" in done.stdout and "Found" not in done.stdout
    check = cli(repo, "--check", "-q", ".")
    assert check.returncode == 1 and "DFM101" in check.stdout and " scanned" not in check.stderr
    assert "1 file scanned" in cli(repo, "--check", ".").stderr


def test_baseline_round_trip(repo: Path) -> None:
    (repo / "a.py").write_text(V1)
    written = cli(repo, "lint", "--write-baseline", "dflash-baseline.json", ".")
    assert written.returncode == 0 and (repo / "dflash-baseline.json").exists()
    (repo / "a.py").write_text("import os\n" + V1)  # lines move: still known
    assert cli(repo, "lint", "--baseline", "dflash-baseline.json", ".").returncode == 0
    (repo / "b.py").write_text(V1)  # new findings fail
    new = cli(repo, "lint", "--baseline", "dflash-baseline.json", "--format", "json", ".")
    assert new.returncode == 1
    assert {f["path"] for f in json.loads(new.stdout)["findings"]} == {"./b.py"}
    (repo / "a.py").write_text("import os\n")
    (repo / "b.py").unlink()
    fixed = cli(repo, "lint", "--baseline", "dflash-baseline.json", ".")
    assert fixed.returncode == 0 and "2 baseline entries fixed" in fixed.stderr


def test_add_noqa(repo: Path) -> None:
    (repo / "a.py").write_text(V1)
    (repo / "c.json").write_text('{"env": {"SGLANG_ENABLE_SPEC_V2": "1"}}\n')
    done = cli(repo, "lint", "--add-noqa", ".")
    assert "dflash-migrate: ignore[" in (repo / "a.py").read_text()
    assert "1 finding" in done.stderr and "--write-baseline" in done.stderr  # the JSON one is left
    assert {f["path"] for f in json.loads(cli(repo, "lint", "--format", "json", ".").stdout)["findings"]} == {"./c.json"}
