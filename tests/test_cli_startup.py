"""Startup stays lazy: what a command imports is checked here, its speed by benchmarks/run.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROBE = (
    "import sys; from migrator.cli import main\n"
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
    assert not {"typer", "migrator.engine", "libcst"} & mods


def test_fix_and_lint_without_matches_import_no_other_subcommand_nor_libcst(tmp_path: Path) -> None:
    (tmp_path / "clean.py").write_text("import os\nprint(os.sep)\n")
    for args in (["--check", str(tmp_path)], [str(tmp_path)], ["lint", str(tmp_path)]):
        mods = loaded(*args, cwd=tmp_path)
        assert "migrator.engine" in mods, args
        assert not {"migrator.verify_cli", "migrator.verify.command", "libcst"} & mods, (args, mods)


def test_help_still_lists_every_subcommand(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "migrator", "--help"], capture_output=True, text=True, cwd=tmp_path,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0
    for name in ("fix", "lint", "rules", "explain", "verify"):
        assert f"  {name} " in proc.stdout, name
