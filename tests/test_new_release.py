"""Adding a release is a data-only change (issue 44).

A copy of the package gets a synthetic sglang 0.5.24 the way a contributor adds a release
(``CONTRIBUTING.md``, "A release"): one line in the wheel table (``migrator/releases/hashes.py``)
and one catalog entry for the name it removes, nothing else. The copy's ``lint``, ``fix`` and
``verify`` then know 0.5.24: it is the newest release, the removed name is reported and
rewritten for it and not before it, and ``verify`` resolves against its wheel. The wheel is a
small hand-made one in a private cache, so nothing is downloaded.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from migrator import catalog

REPO = Path(__file__).resolve().parent.parent
NEW = "0.5.24"
UTILS = "sglang.srt.speculative.dflash_utils"
OLD_NAME, NEW_NAME = "get_dflash_layer_types", "get_dflash_draft_layer_types"
CODE = "DFM399"
WHEEL = f"sglang-{NEW}-py3-none-any.whl"

ENTRY = f'''
    Entry(
        code="{CODE}",
        old=f"{{DFLASH_UTILS}}.{OLD_NAME}",
        kind="function",
        exists=VersionRange("0.5.11", "0.5.23"),
        replacements=(Replacement(VersionRange("{NEW}"), f"{{DFLASH_UTILS}}.{NEW_NAME}"),),
        fix="safe",
        message="`{OLD_NAME}` is now `{NEW_NAME}`",
        guidance="Renamed in {NEW}.",
        before="from {UTILS} import {OLD_NAME}",
        after="from {UTILS} import {NEW_NAME}",
    ),
'''


def _insert_before_end(path: Path, name: str, text: str) -> None:
    """``text`` inserted as the last element of the literal bound to ``name`` in ``path``."""
    source = path.read_text()
    node = next(n for n in ast.parse(source).body if isinstance(n, (ast.Assign, ast.AnnAssign))
                and name in {getattr(t, "id", None) for t in getattr(n, "targets", [getattr(n, "target", None)])})
    lines = source.splitlines(keepends=True)
    closing = node.value.end_lineno - 1  # the line holding the literal's closing bracket
    path.write_text("".join(lines[:closing]) + text + "".join(lines[closing:]))


def _wheel(folder: Path) -> Path:
    folder.mkdir(parents=True)
    wheel = folder / WHEEL
    with zipfile.ZipFile(wheel, "w") as archive:
        for package in ("sglang", "sglang/srt", "sglang/srt/speculative"):
            archive.writestr(f"{package}/__init__.py", "")
        archive.writestr("sglang/srt/speculative/dflash_utils.py",
                         f"def {NEW_NAME}(config):\n    return None\n")
    return wheel


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a command line whose package knows a synthetic 0.5.24."""
    root = tmp_path_factory.mktemp("release")
    shutil.copytree(REPO / "migrator", root / "pkg" / "migrator", ignore=shutil.ignore_patterns("__pycache__"))
    wheel = _wheel(root / "cache" / "wheels")
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    package = root / "pkg" / "migrator"
    _insert_before_end(package / "releases" / "hashes.py", "WHEEL_SHA256", f'    "{WHEEL}":\n        "{digest}",\n')
    _insert_before_end(package / "catalog" / "entries.py", "CHANGES", ENTRY)
    return {**os.environ, "PYTHONPATH": str(root / "pkg"), "DFLASH_MIGRATE_CACHE": str(root / "cache")}


def cli(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "migrator", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


def test_the_copy_knows_the_new_release(synthetic: dict[str, str], tmp_path: Path) -> None:
    probe = ("from migrator import catalog; from migrator.catalog.target import v2_releases;"
             "print(catalog.NEWEST_RELEASE, v2_releases()[-1], catalog.get('DFM399').old)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=synthetic, cwd=tmp_path)
    assert out.stdout.split() == [NEW, NEW, f"{UTILS}.{OLD_NAME}"], out.stderr
    assert catalog.NEWEST_RELEASE != NEW  # the package under test itself is untouched


def test_lint_fix_and_verify_handle_the_new_release(synthetic: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    fork = tmp_path / "fork.py"
    fork.write_text(f"from {UTILS} import {OLD_NAME}\n\nLAYERS = {OLD_NAME}(None)\n")

    before = cli(synthetic, tmp_path, "lint", "--target-version", "0.5.23", "--format", "json", "fork.py")
    assert before.returncode == 0 and json.loads(before.stdout)["findings"] == [], before.stdout + before.stderr
    linted = cli(synthetic, tmp_path, "lint", "--target-version", NEW, "--format", "json", "fork.py")
    assert linted.returncode == 1, linted.stderr
    assert {f["code"] for f in json.loads(linted.stdout)["findings"]} == {CODE}
    default = cli(synthetic, tmp_path, "lint", "fork.py")
    assert f"0.5.14..{NEW}" in default.stdout + default.stderr  # every V2 release, the new one included

    unresolved = cli(synthetic, tmp_path, "verify", "--target-version", NEW, "fork.py")
    assert unresolved.returncode == 1 and f"{UTILS}.{OLD_NAME}` does not exist in sglang {NEW}" in unresolved.stdout
    assert f"(see {CODE}); did you mean `{UTILS}.{NEW_NAME}`?" in unresolved.stdout

    fixed = cli(synthetic, tmp_path, "fix", "--allow-dirty", "--target-version", NEW, "fork.py")
    assert fixed.returncode == 0, fixed.stderr
    assert fork.read_text() == f"from {UTILS} import {NEW_NAME}\n\nLAYERS = {NEW_NAME}(None)\n"
    clean = cli(synthetic, tmp_path, "verify", "--target-version", NEW, "fork.py")
    assert clean.returncode == 0, clean.stdout + clean.stderr
