"""The replay of SGLang's own 0.5.13 -> 0.5.14 migration (``benchmarks/replay.py``) gives the
sites, outcomes, tool texts and other findings recorded in ``benchmarks/results/replay.json``:
issue 29's redesign keeps findings and fixes identical there too.

When a change alters them on purpose, regenerate in the same commit (``python
benchmarks/replay.py``) and let the review read the diff of ``replay.json``/``replay.md``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_findings_unchanged import require_sglang_tree

ROOT = Path(__file__).resolve().parents[1]
RECORDED = ROOT / "benchmarks" / "results" / "replay.json"
#: What depends on the machine or the commit, not on the findings.
VOLATILE = ("tool_revision", "seconds", "timings")


def _stable(report: dict) -> dict:
    return {key: value for key, value in report.items() if key not in VOLATILE}


@pytest.mark.slow
def test_the_replay_of_sglangs_own_migration_is_unchanged(tmp_path: Path) -> None:
    require_sglang_tree()
    from migrator.releases.wheels import WheelError, unpacked_wheel

    try:
        unpacked_wheel("0.5.14")
    except WheelError as error:  # pragma: no cover - offline
        pytest.skip(f"sglang 0.5.14 wheel not available: {error}")
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "replay.py"), "--out", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    today = json.loads((tmp_path / "replay.json").read_text(encoding="utf-8"))
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    assert today["summary"] == recorded["summary"]
    assert _stable(today) == _stable(recorded), "the replay changed: run `python benchmarks/replay.py` and review the diff"
