"""``migrator.run.pool``: one entry point, three ways to run work, the same results from each."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from codemod_helpers import write_tree

from migrator.run import engine, pool

KINDS = ["serial", "executor", *(["fork"] if pool.available() else [])]
V1 = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"


def square_or_fail(payload: int) -> int:
    if payload == 3:
        raise ValueError("three is refused")
    return payload * payload


def collected(workers: pool.Workers, payloads: list[int], small: bool = False) -> list[tuple[int, bool, object]]:
    seen: list[tuple[int, bool, object]] = []
    with workers:
        workers.run(payloads, lambda payload, ok, value: seen.append((payload, ok, value)), small=small)
    return sorted(seen)


def test_choose_follows_jobs_and_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    assert pool.choose(1) == "serial"
    monkeypatch.setattr(pool, "available", lambda: True)
    assert pool.choose(4) == "fork"
    monkeypatch.setattr(pool, "available", lambda: False)
    assert pool.choose(4) == "executor"
    assert pool.start(4, square_or_fail).kind == "executor"


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_gives_each_result_and_each_error(kind: str) -> None:
    workers = pool.start(2, square_or_fail, kind=kind)
    assert workers.kind == kind
    assert collected(workers, [1, 2, 3, 4]) == [
        (1, True, 1), (2, True, 4), (3, False, "ValueError: three is refused"), (4, True, 16)]


@pytest.mark.parametrize("kind", KINDS)
def test_small_work_gives_the_same_results(kind: str) -> None:
    assert collected(pool.start(2, square_or_fail, kind=kind), [5, 6], small=True) == [(5, True, 25), (6, True, 36)]


def dies(payload: int) -> int:
    if payload == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return payload


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "serial"])
def test_a_dying_worker_is_a_failed_result_not_a_hang(kind: str) -> None:
    results = collected(pool.start(2, dies, kind=kind), [2])
    assert [(payload, ok) for payload, ok, _ in results] == [(2, False)]
    assert "died" in str(results[0][2]) or "failed" in str(results[0][2])


@pytest.mark.parametrize("kind", KINDS)
def test_the_engine_gives_the_same_results_on_each_kind(tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    write_tree(tmp_path, {f"pkg/m{i}.py": (V1 + "x = DFlashWorker\n" if i % 3 == 0 else "x = 1\n")
                          for i in range(engine.POOL_MIN_FILES + 10)})
    write_tree(tmp_path, {"pkg/broken.py": V1 + "def (:\n"})
    reference = engine.run([tmp_path], engine.Options(mode="check", jobs=1))
    chosen: list[str] = []
    real_start = pool.start

    def recording_start(jobs: int, handler, warm_up=None, kind_asked=None) -> pool.Workers:  # noqa: ANN001
        workers = real_start(jobs, handler, warm_up, kind)  # type: ignore[arg-type]
        chosen.append(workers.kind)
        return workers

    monkeypatch.setattr(pool, "start", recording_start)
    outcome = engine.run([tmp_path], engine.Options(mode="check", jobs=2))
    assert chosen == [kind]
    assert [(r.path, r.findings, r.new_bytes, r.error) for r in outcome.results] == \
        [(r.path, r.findings, r.new_bytes, r.error) for r in reference.results]
    assert sum(1 for r in outcome.results if r.findings) == (engine.POOL_MIN_FILES + 10 + 2) // 3
    assert [Path(r.path).name for r in outcome.results if r.error] == ["broken.py"]


WARMED: list[int] = []


def _warm_up_here() -> None:
    WARMED.append(os.getpid())


def _warmed_pids(payload: int) -> list[int]:
    return list(WARMED)


@pytest.mark.skipif(not pool.available(), reason="forked workers need Linux's os.fork")
def test_forked_workers_inherit_one_warm_up_done_in_the_parent() -> None:
    # Each worker importing the analysis and the rules itself cost ~50 ms of CPU per run.
    WARMED.clear()
    seen = collected(pool.start(2, _warmed_pids, _warm_up_here, "fork"), [1, 2, 3, 4])
    assert WARMED == [os.getpid()]  # run once, here
    assert all(ok and value == [os.getpid()] for _, ok, value in seen)  # and every worker has it
