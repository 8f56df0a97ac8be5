"""Another distribution installed over this one's generic top-level packages (issue 51
item 4): ``pip install shims`` or ``pip install migrator`` (real packages on the index)
overwrite ``shims/__init__.py`` / ``migrator/__init__.py`` without a warning, and ``pip
check`` says nothing. The tool and the shim must then say what happened and how to repair
it, and the repair they name must work. Local stand-in wheels play the two packages; the
project's wheel is built and installed into a fresh venv (no network)."""

from __future__ import annotations

import base64
import json
import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import sglang_env

pytestmark = pytest.mark.slow

PYTHON2_MIGRATOR = 'print "migrator for Python 2"\n'  # what `pip install migrator` brings: a SyntaxError
OTHER_SHIMS = '"""Another project\'s shims."""\nVALUE = 1\n'


def stand_in_wheel(dest: Path, name: str, init: str) -> Path:
    """A minimal valid wheel of distribution ``name`` 9.9 holding ``name/__init__.py``."""
    dist_info = f"{name}-9.9.dist-info"
    files = {f"{name}/__init__.py": init.encode(),
             f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 9.9\n".encode(),
             f"{dist_info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}

    def digest(data: bytes) -> str:
        return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()

    record = "".join(f"{path},{digest(data)},{len(data)}\n" for path, data in files.items()) + f"{dist_info}/RECORD,,\n"
    wheel = dest / f"{name}-9.9-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, data in {**files, f"{dist_info}/RECORD": record.encode()}.items():
            archive.writestr(path, data)
    return wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("same-named")
    wheel = sglang_env.project_wheel(root / "dist")
    return sglang_env.wheel_venv(root / "venv", wheel), wheel, root


def pip(python: Path, *args: str) -> None:
    offline = ("--no-deps", "--no-index") if args[0] == "install" else ()
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), *args, *offline, "--quiet",
                    "--disable-pip-version-check"], check=True, capture_output=True)


def run(python: Path, *args: str, cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DFLASH_MIGRATE_SHIM", "SGLANG_", "PYTHONPATH"))}
    return subprocess.run([str(python), *args], capture_output=True, text=True, cwd=cwd, env={**env, **extra},
                          timeout=120)


DOCTOR = ("from migrator.cli.main import run_command; from migrator.cli.commands.doctor import COMMAND; "
          "raise SystemExit(run_command(COMMAND, {}))")


def test_a_migrator_installed_over_ours_is_named_with_its_repair(installed: tuple[Path, Path, Path],
                                                                  tmp_path: Path) -> None:
    """At 8ed1b04, `dflash-migrate --version` died with the Python 2 package's SyntaxError."""
    python, wheel, root = installed
    tool = python.parent / "dflash-migrate"
    pip(python, "install", str(stand_in_wheel(tmp_path, "migrator", PYTHON2_MIGRATOR)))
    try:
        done = run(tool, "--version", cwd=tmp_path)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert "`migrator 9.9` installed its own `migrator` package over it" in done.stderr, done.stderr
        assert "repair: pip uninstall migrator && pip install --force-reinstall --no-deps dflash-migrate" in done.stderr
        shim = run(python, "-c", "import shims.auto", cwd=tmp_path)
        assert shim.returncode == 1 and "`migrator 9.9` installed its own" in shim.stderr, shim.stderr
        hook = run(python, "-c", "pass", cwd=tmp_path, DFLASH_MIGRATE_SHIM="1")
        assert hook.returncode == 0 and hook.stderr.count("\n") == 1, hook.stderr
        assert "`migrator 9.9` installed its own" in hook.stderr and "the shim is off" in hook.stderr
    finally:  # the repair the message names
        pip(python, "uninstall", "--yes", "migrator")
        pip(python, "install", "--force-reinstall", str(wheel))
    done = run(tool, "--version", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("dflash-migrate "), done.stderr


def test_a_shims_installed_over_ours_is_named_with_its_repair(installed: tuple[Path, Path, Path],
                                                              tmp_path: Path) -> None:
    """At 8ed1b04, `import shims.auto` failed with a bare ImportError and `doctor` crashed."""
    python, wheel, root = installed
    pip(python, "install", str(stand_in_wheel(tmp_path, "shims", OTHER_SHIMS)))
    expected = "`shims 9.9` installed its own `shims` package over it"
    try:
        for code in ("import shims.auto", DOCTOR, "import runpy; runpy.run_module('shims.launch_server', run_name='__main__')"):
            done = run(python, "-c", code, cwd=tmp_path)
            assert done.returncode in (1, 2) and expected in done.stderr, (code, done.stderr)
            assert "pip uninstall shims && pip install --force-reinstall --no-deps dflash-migrate" in done.stderr
        assert "Traceback" not in run(python, "-c", DOCTOR, cwd=tmp_path).stderr
        hook = run(python, "-c", "pass", cwd=tmp_path, DFLASH_MIGRATE_SHIM="1")
        assert hook.returncode == 0 and hook.stderr.count("\n") == 1 and expected in hook.stderr, hook.stderr
    finally:
        pip(python, "uninstall", "--yes", "shims")
        pip(python, "install", "--force-reinstall", str(wheel))
    done = run(python, "-c", "import shims.auto; print(shims.auto.STATUS.active)", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "False", done.stderr


def test_the_wheel_names_its_authors(installed: tuple[Path, Path, Path]) -> None:
    """Issue 51 item 10: no author in the metadata (pyroma)."""
    _, wheel, _ = installed
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(archive.read(name).decode() for name in archive.namelist() if name.endswith(".dist-info/METADATA"))
    assert "\nAuthor: " in metadata and "\nKeywords: " in metadata, metadata[:1500]


# ---- item 9: the shim in a serving image (docs/shim-deployment.md) ---------------------------

DEPLOYMENT = Path(__file__).resolve().parent.parent / "docs" / "shim-deployment.md"


def _block(language: str) -> str:
    import re

    (block,) = re.findall(rf"```{language}\n(.*?)```", DEPLOYMENT.read_text(), re.S)
    return block


def test_the_dockerfile_recipe_installs_the_shim_alone_and_turns_it_on(installed: tuple[Path, Path, Path],
                                                                        tmp_path: Path) -> None:
    """The page's Dockerfile, step by step on the built wheel: `pip install --no-deps` into
    the interpreter that runs sglang (a fresh venv stands for the image's), the `ENV` line,
    then its check `python -m shims.doctor`. The hook is on and none of the codemod's
    dependencies is installed."""
    import shlex

    python, wheel, _ = installed
    dockerfile = _block("dockerfile")
    install = next(line for line in dockerfile.splitlines() if line.startswith("RUN ") and "pip install" in line)
    assert "--no-deps" in install.split() and ".whl" in install
    (env_line,) = [line for line in dockerfile.splitlines() if line.startswith("ENV ")]
    name, _, value = env_line.removeprefix("ENV ").partition("=")
    assert dockerfile.rstrip().splitlines()[-1] == "RUN python3 -m shims.doctor"
    done = run(python, "-m", "shims.doctor", "--json", cwd=tmp_path, **{name: shlex.split(value)[0]})
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    site = str(sglang_env.site_packages(python))
    assert report["shim"]["pth_hook"].startswith(site) and report["shim"]["package"].startswith(site), report["shim"]
    assert report["shim"]["opted_in_by_env"] is True, report["shim"]
    missing = run(python, "-c", "import importlib.util as u; print([m for m in ('libcst', 'typer', 'rich', 'pathspec', "
                  "'yaml', 'packaging') if u.find_spec(m)])", cwd=tmp_path)
    assert missing.stdout.strip() == "[]", missing.stdout


def test_the_check_fails_where_the_shim_is_not_in_sglangs_environment(tmp_path: Path) -> None:
    """A pipx or `uv tool` install leaves sglang's environment without the shim: the page's
    check command fails there instead of the shim doing nothing silently."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "sglang-env")], check=True)
    done = run(tmp_path / "sglang-env" / "bin" / "python", "-m", "shims.doctor", cwd=tmp_path, DFLASH_MIGRATE_SHIM="1")
    assert done.returncode != 0 and "No module named 'shims'" in done.stderr, done.stderr


def test_the_helm_recipe_sets_a_value_kubernetes_accepts_and_the_hook_reads_as_on() -> None:
    import yaml

    from shims import _pth

    (entry,) = yaml.safe_load(_block("yaml"))["env"]
    assert entry["name"] == _pth.ENV_ACTIVATE
    assert isinstance(entry["value"], str), "Kubernetes env values are strings"
    assert _pth.switched_on({entry["name"]: entry["value"]})
