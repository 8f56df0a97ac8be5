"""Issue 7, item 3: examples/legacy_fork migrated by the codemod, then verified.

After ``dflash-migrate --target-version T``, ``verify --target-version T --skip-todos``
must report nothing beyond the TODOs the codemod left, for T = 0.5.17 and the newest.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from migrator import catalog
from migrator.cli.main import main as cli_main
from migrator.verify import drop_acknowledged, target_for_version, verify_paths

pytestmark = pytest.mark.slow
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "legacy_fork"


@pytest.mark.parametrize("version", ["0.5.17", catalog.NEWEST_RELEASE])
def test_migrated_legacy_fork_verifies_clean_beyond_todos(tmp_path: Path, version: str) -> None:
    fork = tmp_path / "legacy_fork"
    shutil.copytree(EXAMPLE, fork)
    assert cli_main(["fix", str(fork), "--allow-dirty", "--target-version", version]) in (0, 1)
    results = verify_paths([fork], target_for_version(version, "0.5.13"))
    assert drop_acknowledged(results) > 0  # the codemod's TODOs do cover findings
    left = [f"{f.path}:{f.line}: {f.code} {f.message}" for r in results for f in r.findings]
    errors = [r.error for r in results if r.error]
    assert not errors
    assert left == [], "\n".join(left)
