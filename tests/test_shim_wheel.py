"""The ``.pth`` hook as users get it: the built wheel in a fresh virtual environment (issue 15).

The per-release test environments put the repository on ``PYTHONPATH``, where Python reads
no ``.pth`` file; here the wheel is installed with pip into a new venv and every check runs
``python -c`` in it, so site.py processes the installed ``dflash_migrate_shim.pth``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import sglang_env

pytestmark = pytest.mark.slow

STATE = ("import sys; s = sys.modules.get('shims'); "
         "print('shims' in sys.modules, 'migrator' in sys.modules, s.__file__ if s else '-', "
         "s.status().reason if s else '-', sorted(m for m in sys.modules if m.split('.')[0] == 'sglang'))")


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("wheel")
    return sglang_env.wheel_venv(root / "venv", sglang_env.project_wheel(root / "dist"))


def _python(python: Path, code: str, value: str | None, cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DFLASH_MIGRATE_SHIM", "SGLANG_", "PYTHONPATH"))}
    if value is not None:
        env["DFLASH_MIGRATE_SHIM"] = value
    env.update(extra)
    return subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=env, cwd=str(cwd), timeout=120)


@pytest.mark.parametrize("value", [None, "0", "off"])
def test_off_the_hook_imports_nothing(venv: Path, tmp_path: Path, value: str | None) -> None:
    proc = _python(venv, STATE, value, tmp_path)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.split()[:2] == ["False", "False"]


def test_on_without_sglang_the_hook_says_so(venv: Path, tmp_path: Path) -> None:
    proc = _python(venv, STATE, "1", tmp_path)
    assert proc.returncode == 0, proc.stderr
    words = proc.stdout.split()
    assert words[:2] == ["True", "True"] and words[2].startswith(str(sglang_env.site_packages(venv)))
    assert "inactive: sglang is not installed" in proc.stdout
    assert proc.stderr.count("\n") == 1 and "sglang is not installed" in proc.stderr, proc.stderr
    launch = _python(venv, "import runpy, sys; sys.argv = ['x']; runpy.run_module('shims.launch_server', "
                     "run_name='__main__')", None, tmp_path)
    assert launch.returncode == 1 and launch.stderr.count("\n") == 1 and "Traceback" not in launch.stderr


def test_on_with_sglang_the_installed_shim_is_active_without_importing_sglang(venv: Path, tmp_path: Path) -> None:
    site = sglang_env.site_packages(venv)
    # sglang 0.5.17 (--no-deps) on the path through a .pth that sorts before the shim's, as an
    # editable sglang install's __editable__*.pth does; a regular install sits in site-packages
    (site / "_sglang_release.pth").write_text(f"{sglang_env.release_site('0.5.17')}\n")  # sglang 0.5.17, --no-deps
    try:
        proc = _python(venv, STATE, "1", tmp_path)
    finally:
        (site / "_sglang_release.pth").unlink()
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[:2] == ["True", "True"] and " active []" in proc.stdout, proc.stdout
    assert proc.stderr == ""


def test_on_with_a_projects_own_shims_package_the_installed_one_runs(venv: Path, tmp_path: Path) -> None:
    for name in ("shims", "migrator"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f"raise RuntimeError('the project {name} ran')\n")
    proc = _python(venv, STATE, "1", tmp_path, PYTHONPATH=".")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "the project" not in proc.stderr
    assert proc.stdout.split()[2].startswith(str(sglang_env.site_packages(venv)))
    assert f"`shims` at {tmp_path / 'shims'}" in proc.stderr


def test_doctor_of_the_installed_wheel_reports_the_installed_hook(venv: Path, tmp_path: Path) -> None:
    """Issue 13: doctor said "not installed"; on the H200 an import of the source-only
    ``shims._pth`` broke it in the installed wheel."""
    proc = _python(venv, "from shims.doctor import doctor_report, render_doctor; print(render_doctor(doctor_report()))",
                   None, tmp_path)
    assert proc.returncode == 0, proc.stderr
    site = sglang_env.site_packages(venv)
    assert f"shim: installed ({site / 'shims'}); .pth hook {site / 'dflash_migrate_shim.pth'}" in proc.stdout
    assert "sglang: not installed in this environment" in proc.stdout
