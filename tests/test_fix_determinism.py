"""Issue 45: the same input gives the same fix in every run, whatever the worker count, the
order workers finish in, or the hash seed (set iteration order differs per process).

A fork whose modules re-export V1 objects (``tests/data/forks/index_fixture``: the fork pass
re-enters the pool, whose workers answer in the order they finish) and the meaning corpus
of ``tests/test_fix_meaning.py`` (patch sites, probes, the write guard's refusals) are fixed
with ``--diff`` under ``--jobs 1`` and ``--jobs 2`` and three hash seeds each: every run's
output (the diff on stdout, findings and summary on stderr) is byte-identical.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from test_fix_meaning import CORPUS, PIN

REPO = Path(__file__).resolve().parents[1]
SEEDS = ("0", "1", "2")


def _fix(root: Path, jobs: str, seed: str) -> bytes:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONPATH=str(REPO), PYTHONHASHSEED=seed)
    proc = subprocess.run([sys.executable, "-m", "migrator", "fix", ".", "--diff", "--unsafe-fixes", "--jobs", jobs],
                          capture_output=True, cwd=root, env=env, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr.decode(errors="replace")
    return proc.stdout + b"\0" + proc.stderr


def test_fixing_the_same_tree_gives_the_same_bytes_in_every_run(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    shutil.copytree(REPO / "tests" / "data" / "forks" / "index_fixture", root)
    for relative, text in CORPUS.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    (root / "requirements.txt").write_text(PIN + "\n")
    outputs = {(jobs, seed): _fix(root, jobs, seed) for jobs in ("1", "2") for seed in SEEDS}
    first = outputs[("1", SEEDS[0])]
    assert b"+++ b/" in first and b"TODO(dflash-migrate)" in first  # the runs fix and refuse something
    assert {key for key, output in outputs.items() if output != first} == set()
