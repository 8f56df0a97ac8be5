"""Slow tier (issue 30, done-when): a fork migrated with no ``--target-version`` and no sglang
installed runs on every release its range holds, not only on the newest.

The fixture ``tests/data/forks/range_fork`` is a serving team's package written against
0.5.13: a ``try``/``except ImportError`` fallback across a function that moves inside the V2
era (``compute_dflash_correct_drafts_and_bonus``, 0.5.23), a plain import of it, a feature
probe (``_has_module("...dflash_worker")``), a module alias (``dflash_worker as dfw``) that a
test module reaches (``patch.object(worker.dfw.DFlashWorker, ...)`` and a patch string), and
a ``pyproject.toml`` with or without an sglang pin. It is fixed twice:

* without a pin: the range is every V2 release the catalog knows; each module then
  imports on the real module layouts of 0.5.14, 0.5.17, 0.5.20 and 0.5.23 (the per-release
  CPU environments of ``tests/sglang_env.py``), and the probe still says "no V1 worker";
* with ``sglang>=0.5.17,<0.5.21``: the range is 0.5.17..0.5.20 and the summary names the
  pin's file; each module imports on 0.5.17 and 0.5.20.

A second run changes nothing; ``verify`` over the range exits 0, and over a range where a
file fails on a release exits 1 naming that file and release.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sglang_env
from test_legacy_fork_imports import PROBE

from migrator.catalog import NEWEST_RELEASE

pytestmark = pytest.mark.slow
FIXTURE = sglang_env.REPO / "tests" / "data" / "forks" / "range_fork"
PIN = "sglang>=0.5.17,<0.5.21"
#: after the module imports, what the feature probe decided on this release
PROBE_WITH_FLAG = PROBE + "import serving.features as f\nprint('LEGACY ' + json.dumps(f.LEGACY_DFLASH))\n"


def _tool(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command line, in an environment without sglang (the test's interpreter has none)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(sglang_env.REPO)
    return subprocess.run([sys.executable, "-m", "migrator", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=600)


def _fork(tmp_path: Path, pinned: bool) -> Path:
    fork = tmp_path / "range_fork"
    shutil.copytree(FIXTURE, fork)
    if pinned:
        pyproject = fork / "pyproject.toml"
        pyproject.write_text(pyproject.read_text().replace('"numpy>=1.26",', f'"numpy>=1.26",\n    "{PIN}",'))
    return fork


def _modules(fork: Path) -> list[str]:
    return sorted(".".join(p.relative_to(fork).with_suffix("").parts).removesuffix(".__init__")
                  for p in fork.rglob("*.py"))


def _imports(release: str, fork: Path) -> tuple[dict, bool]:
    try:
        proc = sglang_env.run_in_release(release, ["-c", PROBE_WITH_FLAG, str(sglang_env.REPO / "tests"), str(fork),
                                                   json.dumps(_modules(fork))])
    except sglang_env.EnvError as error:  # pragma: no cover - offline
        pytest.skip(f"sglang {release} environment not available: {error}")
    lines = {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in proc.stdout.splitlines()
             if line.startswith(("IMPORTS ", "LEGACY "))}
    assert "IMPORTS" in lines, proc.stdout[-2000:] + proc.stderr[-4000:]
    return json.loads(lines["IMPORTS"]), json.loads(lines.get("LEGACY", "null"))


def _fixed(fork: Path) -> str:
    fix = _tool("fix", ".", "--allow-dirty", cwd=fork)
    assert fix.returncode in (0, 1), fix.stderr
    again = _tool("fix", ".", "--allow-dirty", "--check", cwd=fork)
    assert again.returncode in (0, 1) and " 0 would change" in again.stderr, again.stdout + again.stderr
    return fix.stderr


@pytest.mark.parametrize(("pinned", "releases"), [(False, ("0.5.14", "0.5.17", "0.5.20", "0.5.23")),
                                                   (True, ("0.5.17", "0.5.20"))], ids=["no-pin", "pinned"])
def test_every_module_imports_on_each_release_of_the_range(tmp_path: Path, pinned: bool,
                                                          releases: tuple[str, ...]) -> None:
    fork = _fork(tmp_path, pinned)
    summary = _fixed(fork)
    if pinned:
        assert f"target sglang 0.5.17..0.5.20 ({PIN} in pyproject.toml)" in summary, summary
    else:
        assert (f"target sglang 0.5.14..{NEWEST_RELEASE} (no sglang pin found: every V2 release the catalog knows)"
                in summary)
    for release in releases:
        result, legacy = _imports(release, fork)
        assert {name: error for name, error in result.items() if error} == {}, (release, result)
        assert legacy is False, release  # the probe still asks for the V1 worker, which no V2 release has


def test_verify_over_the_range(tmp_path: Path) -> None:
    fork = _fork(tmp_path, pinned=False)
    _fixed(fork)
    passing = _tool("verify", "--target-version", "0.5.14..0.5.23", ".", cwd=fork)
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert passing.stdout.strip().endswith(
        "files resolve on every release of sglang 0.5.14..0.5.23 (--target-version 0.5.14..0.5.23); 0 fail on some.")

    pinned = _fork(tmp_path / "pinned", pinned=True)
    _fixed(pinned)  # right for 0.5.17..0.5.20: `kernels.py` keeps the spelling 0.5.23 dropped
    failing = _tool("verify", "--target-version", "0.5.20..0.5.23", "--format", "json", ".", cwd=pinned)
    assert failing.returncode == 1, failing.stdout + failing.stderr
    matrix = json.loads(failing.stdout)
    assert matrix["releases"] == ["0.5.20", "0.5.21", "0.5.22", "0.5.23"]
    broken = {os.path.normpath(row["path"]): [r for r, cell in row["releases"].items() if not cell["resolves"]] for row in matrix["files"]}
    assert {path: found for path, found in broken.items() if found} == {"serving/compat.py": ["0.5.23"],
                                                                        "serving/kernels.py": ["0.5.23"]}
    text = _tool("verify", "--target-version", "0.5.20..0.5.23", ".", cwd=pinned)
    assert text.returncode == 1
    assert any(line.startswith("./serving/kernels.py: fails on sglang 0.5.23; first: line 1:")
               and "compute_dflash_correct_drafts_and_bonus" in line for line in text.stdout.splitlines()), text.stdout
