"""Slow tier: the rewrite over sglang 0.5.13's real source tree (the wheel from PyPI).

Every output file parses and a second run changes nothing (exit 1 may remain: manual
TODO findings are left for humans). Counts and timings are printed (``-s``) for the notes.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from migrator.base.fileio import decode_python

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def _cli(*args: str | Path, cwd: Path) -> tuple[subprocess.CompletedProcess, float]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "migrator", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=1200)
    return proc, time.monotonic() - start


def _hashes(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


def _summary(stderr: str) -> dict[str, int]:
    match = re.search(r"(\d+) files? scanned, (\d+) (?:changed|would change), (\d+) fix(?:es)? \w+, (\d+) manual TODOs? left, "
                      r"(\d+) files? with errors", stderr)
    assert match, stderr[-3000:]
    return dict(zip(("scanned", "changed", "fixes", "todos", "errors"), map(int, match.groups())))


def test_rewrite_sglang_0_5_13_tree(tmp_path: Path) -> None:
    from migrator.releases.wheels import WheelError, unpacked_wheel

    try:
        source = unpacked_wheel("0.5.13") / "sglang"
    except WheelError as error:  # pragma: no cover - offline
        pytest.skip(f"sglang 0.5.13 wheel not available: {error}")
    tree = tmp_path / "sglang"
    shutil.copytree(source, tree, symlinks=True)
    original = _hashes(tree)

    first, first_s = _cli("fix", tree, "--allow-dirty", "--target-version", "0.5.17", cwd=tmp_path)
    assert first.returncode in (0, 1), first.stderr[-5000:]
    counts = _summary(first.stderr)
    assert counts["errors"] == 0 and counts["changed"] > 0, counts
    assert "Traceback" not in first.stderr
    after = _hashes(tree)
    changed = sorted(rel for rel in after if after[rel] != original.get(rel))
    assert len(changed) == counts["changed"], (changed, counts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (DeprecationWarning, SyntaxWarning))  # sglang's own escapes
        for path in tree.rglob("*.py"):
            ast.parse(decode_python(path.read_bytes()), filename=str(path))
    assert not list(tree.rglob("*.dflash-migrate.tmp"))

    check, check_s = _cli("fix", tree, "--check", "--target-version", "0.5.17", cwd=tmp_path)
    assert check.returncode in (0, 1), check.stderr[-5000:]
    assert _summary(check.stderr)["changed"] == 0, check.stderr[-3000:]
    second, second_s = _cli("fix", tree, "--allow-dirty", "--target-version", "0.5.17", cwd=tmp_path)
    assert _summary(second.stderr)["changed"] == 0
    assert _hashes(tree) == after, "second run changed files"
    lint, lint_s = _cli("lint", tree, "--target-version", "0.5.17", cwd=tmp_path)
    assert lint.returncode in (0, 1), lint.stdout[-3000:] + lint.stderr[-3000:]
    print(f"\nsglang 0.5.13 tree: {counts}; changed files: {len(changed)}; "
          f"fix {first_s:.1f}s, --check {check_s:.1f}s, second fix {second_s:.1f}s, lint {lint_s:.1f}s")


def test_string_and_text_findings_on_sglang_0_5_13_point_at_v1_spellings() -> None:
    """The string and text rules (DFM201 in strings, DFM4xx in other files, names in
    strings) add no finding on a line that does not spell a V1 name where it points."""
    import json

    from migrator import catalog
    from migrator.releases.wheels import WheelError, unpacked_wheel

    try:
        tree = unpacked_wheel("0.5.13") / "sglang"
    except WheelError as error:  # pragma: no cover - offline
        pytest.skip(f"sglang 0.5.13 wheel not available: {error}")
    lint, _ = _cli("lint", tree, "--target-version", "0.5.17", "--format", "json", cwd=tree.parent)
    findings = json.loads(lint.stdout)["findings"]
    spellings = {name.rpartition(".")[2] for entry in catalog.ENTRIES for name in entry.names} | {catalog.ENV_SPEC_V2}
    text_codes = {mirror.code for mirror in catalog.TEXT_MIRRORS} | {"DFM201"}
    checked = 0
    for finding in findings:
        if finding["code"] not in text_codes:
            continue
        line = Path(finding["path"]).read_text(encoding="utf-8").splitlines()[finding["line"] - 1]
        at = line[finding["column"] - 1:].lstrip("\"'")
        assert any(at.startswith(s) or at.startswith("sglang") for s in spellings), (finding, line)
        checked += 1
    print(f"\nstring/text findings on sglang 0.5.13: {checked}")


@pytest.mark.parametrize("version,expected", [
    # its env-var warning (DFM201 on the string it reads) and its deprecated alias flag (DFM203)
    ("0.5.14", ["DFM201", "DFM203"]),
    ("0.5.23", []),
])
def test_sglang_v2_trees_gain_no_finding(version: str, expected: list[str]) -> None:
    """sglang's own V2 code, linted for its own release, is valid V2 code: the rules that
    follow V1 objects through uses, strings, tables and unique names find nothing new there."""
    import json

    from migrator.releases.wheels import WheelError, unpacked_wheel

    try:
        tree = unpacked_wheel(version) / "sglang"
    except WheelError as error:  # pragma: no cover - offline
        pytest.skip(f"sglang {version} wheel not available: {error}")
    lint, _ = _cli("lint", tree, "--target-version", version, "--format", "json", cwd=tree.parent)
    assert lint.returncode in (0, 1), lint.stderr[-3000:]
    findings = json.loads(lint.stdout)["findings"]
    assert sorted(f["code"] for f in findings) == expected, findings
