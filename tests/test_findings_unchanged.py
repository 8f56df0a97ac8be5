"""Issue 29 step 1: findings and fixes stay those of the recorded snapshot, on every corpus.

The snapshot (``tests/data/findings_snapshot/<corpus>.json``, recorded at c1cdd20, the
commit the redesign starts from) holds, per corpus, every lint finding, error and exit code
and the diff of ``fix`` in both modes (``--diff``, ``--diff --unsafe-fixes``), all with
repository-relative paths; ``scripts/snapshot_findings.py`` says how each is made. The
corpora: the two forks of ``tests/data/forks``, the bundled example ``examples/legacy_fork``
and its migrated tree, the hostile files of the hostile-repository suite, relative imports in
range and beyond the top package, and (slow tier) sglang 0.5.13's own tree from the wheel.

A failure prints the difference, one finding or one diff line per line. When the change is
meant (a new rule, a corrected answer), regenerate in the same commit and let the review
read the snapshot's diff:

    python scripts/snapshot_findings.py --write            # the fast corpora
    python scripts/snapshot_findings.py --write --slow     # and sglang 0.5.13's tree
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "snapshot_findings.py"
REGENERATE = "python scripts/snapshot_findings.py --write"


def _load():
    spec = importlib.util.spec_from_file_location("snapshot_findings", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


snapshot = _load()
FAST = [name for name in snapshot.corpora() if name not in snapshot.SLOW]


def _check(name: str) -> None:
    assert snapshot.snapshot_path(name).exists(), f"no snapshot for {name}: run `{REGENERATE}`"
    diff = snapshot.difference(name)
    assert not diff, (f"findings or fixes changed on corpus {name!r} (if meant, regenerate with "
                      f"`{REGENERATE}{' --slow' if name in snapshot.SLOW else ''}` and commit the snapshot):\n"
                      + diff[:20000])


@pytest.mark.parametrize("name", FAST)
def test_findings_and_fixes_unchanged(name: str) -> None:
    _check(name)


def require_sglang_tree() -> None:
    """Skip (saying why) where sglang 0.5.13's wheel cannot be had (no network, no cache)."""
    from migrator.releases.wheels import WheelError, unpacked_wheel

    try:
        unpacked_wheel("0.5.13")
    except WheelError as error:  # pragma: no cover - offline
        pytest.skip(f"sglang 0.5.13 wheel not available: {error}")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(snapshot.SLOW))
def test_findings_and_fixes_unchanged_on_sglang_tree(name: str) -> None:
    require_sglang_tree()
    _check(name)


def test_every_snapshot_has_a_corpus() -> None:
    """A corpus renamed or removed leaves no stale snapshot that nothing compares."""
    recorded = {path.stem for path in snapshot.SNAPSHOT.glob("*.json")}
    assert recorded <= set(snapshot.corpora()), recorded - set(snapshot.corpora())
