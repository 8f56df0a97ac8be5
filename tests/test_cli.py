"""The codemod's command line: exit codes, modes, git safety, stdin, version targeting."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from codemod_helpers import write_tree

from migrator import catalog

V1_IMPORT = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
V1_MANUAL = "from sglang.srt.speculative.dflash_info import _compute_paged_keep_slots\n"


def cli(*args: str, cwd: Path, stdin: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "migrator", *args], cwd=cwd, capture_output=True, text=True,
                          input=stdin, env={**os.environ, **(env or {})})


def test_exit_codes_per_mode(tmp_path: Path) -> None:
    write_tree(tmp_path, {"clean.py": "x = 1\n", "safe.py": V1_IMPORT})
    assert cli(".", "--check", cwd=tmp_path).returncode == 1
    assert cli(".", "--diff", cwd=tmp_path).returncode == 1
    fixed = cli(".", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr  # everything fixed, nothing left
    assert "2 files scanned, 1 changed, 2 fixes applied, 0 manual TODOs left, 0 files with errors" in fixed.stderr
    assert cli(".", "--check", cwd=tmp_path).returncode == 0
    (tmp_path / "manual.py").write_text(V1_MANUAL)
    assert cli(".", cwd=tmp_path).returncode == 1  # a manual TODO remains
    (tmp_path / "broken.py").write_text(V1_IMPORT + "def (:\n")
    result = cli(".", cwd=tmp_path)
    assert result.returncode == 2
    assert "broken.py:2:" in result.stderr and "syntax error" in result.stderr


def test_select_and_ignore(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": V1_IMPORT + V1_MANUAL})
    only = cli(".", "--check", "--select", "DFM104", cwd=tmp_path)
    assert "DFM104" in only.stdout and "DFM101" not in only.stdout
    rest = cli(".", "--check", "--ignore", "DFM1", cwd=tmp_path)
    assert rest.returncode == 0 and "DFM" not in rest.stdout


def test_refuses_dirty_files_in_git(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": "x = 1\n", "b.py": V1_IMPORT})
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run([*git, "add", "."], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=tmp_path, check=True)
    (tmp_path / "b.py").write_text(V1_IMPORT + "# local edit\n")
    refused = cli(".", cwd=tmp_path)
    assert refused.returncode == 2 and "uncommitted changes" in refused.stderr
    assert (tmp_path / "b.py").read_text() == V1_IMPORT + "# local edit\n"
    allowed = cli(".", "--allow-dirty", cwd=tmp_path)
    assert allowed.returncode == 0 and "dflash_worker_v2" in (tmp_path / "b.py").read_text()


def test_gitignore_and_default_excludes_and_exclude_flag(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        ".gitignore": "generated/\n",
        "generated/a.py": V1_IMPORT,
        ".venv/lib/b.py": V1_IMPORT,
        "build/c.py": V1_IMPORT,
        "vendor/d.py": V1_IMPORT,
        "src/e.py": V1_IMPORT,
    })
    (tmp_path / ".git").mkdir()
    result = cli(".", "--check", "--exclude", "vendor/", cwd=tmp_path)
    assert "src/e.py" in result.stdout
    for skipped in ("generated/a.py", ".venv", "build/c.py", "vendor/d.py"):
        assert skipped not in result.stdout


def test_stdin_to_stdout(tmp_path: Path) -> None:
    result = cli("-", cwd=tmp_path, stdin=V1_IMPORT)
    assert result.stdout == "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\n"
    assert result.returncode == 0


def test_the_installed_sglang_is_the_one_importlib_metadata_finds() -> None:
    """``installed_version`` does ``importlib.metadata.version``'s lookup without its import."""
    from importlib import metadata

    try:
        expected = metadata.version("sglang")
    except metadata.PackageNotFoundError:
        expected = None
    assert catalog.installed_version("sglang") == expected


def test_the_installed_sglang_is_read_from_metadata_without_importing(tmp_path: Path) -> None:
    """A fake sglang distribution (metadata only, no importable code) is found, never imported."""
    site = tmp_path / "site"
    dist = site / "sglang-0.5.17.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.17\n")
    code = "from migrator import catalog; import sys; print(catalog.installed_version('sglang'), 'sglang' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join((str(site), str(Path(__file__).resolve().parents[1])))})
    assert out.stdout.split() == ["0.5.17", "False"]


def test_version_and_help(tmp_path: Path) -> None:
    assert cli("--version", cwd=tmp_path).stdout.strip().startswith("dflash-migrate ")
    helped = cli("--help", cwd=tmp_path)
    assert helped.returncode == 0 and "fix" in helped.stdout and "lint" in helped.stdout
    assert "--version" in helped.stdout  # listed, not only understood
    assert "`./check` or `-- check`" in " ".join(helped.stdout.split())


@pytest.mark.parametrize("command", ["fix", "lint", "check", "verify", "explain", "rules", "doctor"])
def test_help_shows_metavars_not_python_types(tmp_path: Path, command: str) -> None:
    helped = cli(command, "--help", cwd=tmp_path)
    assert helped.returncode == 0, helped.stderr
    assert "<list[" not in helped.stdout and "<str>" not in helped.stdout and "<int" not in helped.stdout, helped.stdout


def test_readme_first_command_says_exit_1_is_expected() -> None:
    """``dflash-migrate examples/legacy_fork --diff`` exits 1 (there is work to do): the README
    says so right under the command, and the command does exit 1."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    first_block = readme.split("```")[1]
    assert "dflash-migrate examples/legacy_fork --diff" in first_block
    after = readme.split("```", 5)[4]
    assert "exit" in after.lower() and "1" in after and "expected" in after.lower(), after
    repo = Path(__file__).resolve().parents[1]
    assert cli("examples/legacy_fork", "--diff", cwd=repo).returncode == 1


@pytest.mark.parametrize("bad", ["--target-version=banana"])
def test_bad_target_version_is_a_clear_error(tmp_path: Path, bad: str) -> None:
    result = cli(".", bad, cwd=tmp_path)
    assert result.returncode == 2 and "banana" in result.stderr


def test_a_file_given_twice_in_different_spellings_is_scanned_once(tmp_path: Path) -> None:
    write_tree(tmp_path, {"top/pkg/a.py": V1_IMPORT})
    result = cli("lint", "pkg", "pkg/a.py", f"../{'top'}/pkg/a.py", "./pkg", cwd=tmp_path / "top")
    assert result.returncode == 1, result.stderr
    assert result.stdout.count("DFM101") == 1
    assert "in 1 of 1 file (" in result.stdout


@pytest.mark.parametrize(("files", "code"), [({"clean.py": "x = 1\n"}, 0), ({"v1.py": V1_MANUAL * 400}, 1),
                                             ({"broken.py": V1_IMPORT + "def (:\n"}, 2)])
def test_the_console_script_ends_like_sys_exit(tmp_path: Path, files: dict[str, str], code: int) -> None:
    """The installed command skips the interpreter's teardown (``os._exit``: an object of
    the main module is never finalized) and keeps what ``sys.exit`` does that a user sees:
    the run's exit code, every byte of output through a pipe (400 findings: more than a pipe
    holds), and the ``atexit`` handlers."""
    write_tree(tmp_path, files)
    ran, torn = tmp_path.parent / f"{tmp_path.name}-atexit", tmp_path.parent / f"{tmp_path.name}-teardown"
    root = Path(__file__).resolve().parents[1]
    script = ("import atexit, sys\n"
              f"sys.path.insert(0, {str(root)!r})\n"  # this checkout's console module, not an installed copy
              f"atexit.register(lambda: open({str(ran)!r}, 'w').write('ran'))\n"
              "class Kept:\n"
              f"    def __del__(self): open({str(torn)!r}, 'w').write('torn down')\n"
              "kept = Kept()\n"
              "sys.argv = ['dflash-migrate', 'lint', '--output-format', 'concise', '.']\n"
              "import dflash_migrate_console\n"
              "sys.exit(dflash_migrate_console.main())\n")
    direct = cli("lint", "--output-format", "concise", ".", cwd=tmp_path)
    ended = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert (ended.returncode, ended.stdout, ended.stderr) == (code, direct.stdout, direct.stderr)
    assert ran.read_text() == "ran" and not torn.exists()
