"""The write guard knows what the wheels know without downloading (issue 44): where no wheel
is cached, a name the shipped surface index (``migrator/releases/surface_index.py``) shows on
every release of the target is no reason to refuse a fix. At 8ed1b04 the guard refused the
``DFlashWorker`` -> ``DFlashWorkerV2`` rename of a fork that reads
``forward_batch_generation`` off the class: "nothing shows that ... exists (catalog)"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from migrator.python.surface import on_surface

REPO = Path(__file__).resolve().parent.parent
FORK = 'from sglang.srt.speculative.dflash_worker import DFlashWorker\n\nSTEP = getattr(DFlashWorker, "{member}")\n'
WORKER = "sglang.srt.speculative.dflash_worker_v2.DFlashWorkerV2"


def fix(root: Path, member: str, *target: str) -> str:
    (root / "w.py").write_text(FORK.format(member=member))
    env = {**os.environ, "PYTHONPATH": str(REPO), "DFLASH_MIGRATE_CACHE": str(root / "no-wheels")}
    subprocess.run([sys.executable, "-m", "migrator", "fix", "--allow-dirty", *target, "w.py"], cwd=root, env=env,
                   capture_output=True, text=True, timeout=300)
    return (root / "w.py").read_text()


def test_the_index_answers_per_release() -> None:
    assert on_surface(f"{WORKER}.forward_batch_generation", "0.5.14")
    assert on_surface(f"{WORKER}.forward_batch_generation", "0.5.15.post1")  # a post release is its base
    assert on_surface(WORKER.rpartition(".")[0], "0.5.23")  # the module above a surface name
    assert not on_surface(WORKER, "0.5.13")  # no V2 worker before 0.5.14
    assert not on_surface(f"{WORKER}.ps", "0.5.21")  # gone in 0.5.21 (0.5.16-0.5.20 only)
    assert on_surface(f"{WORKER}.ps", "0.5.20")


def test_a_rename_whose_names_the_index_shows_is_applied_without_a_wheel(repo: Path) -> None:
    for target in ((), ("--target-version", "0.5.17")):
        text = fix(repo, "forward_batch_generation", *target)
        assert "DFlashWorkerV2" in text and "not fixed automatically" not in text, (target, text)


def test_a_name_no_release_shows_is_still_refused(repo: Path) -> None:
    text = fix(repo, "no_such_member", "--target-version", "0.5.17")
    assert "not fixed automatically: nothing shows that" in text and "no_such_member" in text
