"""The one way the run spreads work over processes: ``start(jobs, handler)`` picks how, and
``Workers.run(payloads, on_result)`` runs ``handler(payload)`` for each payload the same way
whichever was picked:

* ``"fork"`` (Linux, ``jobs > 1``): forked workers started by ``start``, before discovery,
  so that they are warm by the time the first file reaches them; the warm-up (imports and
  tables) runs once in the parent before forking, and the workers inherit it: importing the
  analysis and the rules in each of two workers instead cost ~50 ms of CPU more per run, on
  the two cores that discovery and ``git grep`` use at the same time (BENCHMARKS.md);
* ``"executor"`` (no usable ``os.fork``: Windows; macOS, where forking is unsafe):
  ``concurrent.futures.ProcessPoolExecutor``, started by the first ``run`` that is worth it;
* ``"serial"`` (``jobs == 1``): in this process.

Why not the executor everywhere: importing it and starting its queues, feeder and manager
threads costs ~35 ms on the 2-core machines this tool is measured on, a sixth of a whole lint
of a 2,400-file fork (BENCHMARKS.md). Here each forked worker has its own pair of pipes; the
parent hands the next task to whichever worker answers first (tasks arrive largest first, so
one big file never ends the run alone), and a worker that dies is reported, never waited for.

Ctrl-C: workers ignore SIGINT; the parent stops handing out tasks, collects the results of the
tasks already running, and re-raises ``KeyboardInterrupt``.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Literal

    Kind = Literal["fork", "executor", "serial"]
    OnResult = Callable[[Any, bool, Any], None]

_HEADER = struct.Struct("<Q")


def available() -> bool:
    """Can this platform fork workers safely (Linux)?"""
    return hasattr(os, "fork") and sys.platform.startswith("linux")


def choose(jobs: int) -> Kind:
    if jobs <= 1:
        return "serial"
    return "fork" if available() else "executor"


def start(jobs: int, handler: Callable[[Any], Any], warm_up: Callable[[], None] | None = None,
          kind: Kind | None = None) -> Workers:
    """Workers running ``handler`` on ``jobs`` processes; ``kind`` (default ``choose(jobs)``)
    says how (module docstring). Forked workers start now; close the result when done."""
    kind = kind or choose(jobs)
    if kind == "fork":
        return ForkPool(jobs, handler, warm_up)
    if kind == "executor":
        return ExecutorPool(jobs, handler, warm_up)
    return SerialPool(handler)


class Workers:
    """What every kind of pool offers (see ``start``)."""

    kind: Kind = "serial"

    def run(self, payloads: Iterable[Any], on_result: OnResult, small: bool = False) -> None:
        """Run ``handler(payload)`` for each payload in order; call ``on_result(payload, ok,
        result_or_message)`` in this process as each finishes (``ok`` False: the handler raised,
        or its worker died, and the message says so). ``small``: too little work to pay for
        starting processes; a pool whose processes are not running yet does it here."""
        raise NotImplementedError

    def close(self) -> None:
        """Stop the workers (idempotent)."""

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _outcome(handler: Callable[[Any], Any], payload: Any) -> tuple[bool, Any]:
    try:
        return True, handler(payload)
    except Exception as error:  # noqa: BLE001 - reported to the caller, which decides
        return False, f"{type(error).__name__}: {error}"


class SerialPool(Workers):
    """Runs every payload in this process (``jobs == 1``, or too little work)."""

    kind: Kind = "serial"

    def __init__(self, handler: Callable[[Any], Any]) -> None:
        self.handler = handler

    def run(self, payloads: Iterable[Any], on_result: OnResult, small: bool = False) -> None:
        for payload in payloads:
            on_result(payload, *_outcome(self.handler, payload))


def _ignore_sigint(warm_up: Callable[[], None] | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if warm_up is not None:
        warm_up()


class ExecutorPool(Workers):
    """``ProcessPoolExecutor`` where forking workers ourselves is not used (``available()``).

    Results are handed to ``on_result`` in payload order as they finish, so they are kept when
    the run is interrupted; payloads already running finish (workers ignore SIGINT) and are
    reported before ``KeyboardInterrupt`` is re-raised.
    """

    kind: Kind = "executor"

    def __init__(self, jobs: int, handler: Callable[[Any], Any], warm_up: Callable[[], None] | None = None) -> None:
        self.jobs = jobs
        self.handler = handler
        self.warm_up = warm_up

    def run(self, payloads: Iterable[Any], on_result: OnResult, small: bool = False) -> None:
        if small:
            SerialPool(self.handler).run(payloads, on_result)
            return
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        payloads = list(payloads)
        context = multiprocessing.get_context("fork") if hasattr(os, "fork") else None
        reported: set[int] = set()
        with ProcessPoolExecutor(max_workers=self.jobs, mp_context=context, initializer=_ignore_sigint,
                                 initargs=(self.warm_up,)) as executor:
            futures = [executor.submit(_outcome, self.handler, payload) for payload in payloads]
            try:
                for index, future in enumerate(futures):
                    outcome = _future_outcome(future)
                    reported.add(index)
                    on_result(payloads[index], *outcome)
            except KeyboardInterrupt:
                for future in futures:
                    future.cancel()
                for index, future in enumerate(futures):
                    if index not in reported and not future.cancelled():
                        on_result(payloads[index], *_future_outcome(future))
                raise


def _future_outcome(future: Any) -> tuple[bool, Any]:
    try:
        return future.result()
    except Exception as error:  # noqa: BLE001 - a worker died (BrokenProcessPool) or pickling failed
        return False, f"the worker process failed while processing it ({type(error).__name__}: {error})"


def _write_frame(fd: int, payload: bytes) -> None:
    view = memoryview(_HEADER.pack(len(payload)) + payload)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _read_exact(fd: int, size: int) -> bytes | None:
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _read_frame(fd: int) -> bytes | None:
    header = _read_exact(fd, _HEADER.size)
    if header is None:
        return None
    return _read_exact(fd, _HEADER.unpack(header)[0])


class _Worker:
    def __init__(self, pid: int, tasks: int, results: int) -> None:
        self.pid = pid
        self.tasks = tasks  # parent writes
        self.results = results  # parent reads
        self.running: tuple[int, Any] | None = None


def _serve(tasks: int, results: int, handler: Callable[[Any], Any]) -> None:
    """A forked worker's loop (the warm-up it inherits ran in the parent, before forking)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        frame = _read_frame(tasks)
        if frame is None:
            return
        task_id, payload = pickle.loads(frame)
        outcome = _outcome(handler, payload)
        _write_frame(results, pickle.dumps((task_id, outcome), protocol=pickle.HIGHEST_PROTOCOL))


class ForkPool(Workers):
    """``jobs`` forked workers running ``handler(payload)``; see the module docstring."""

    kind: Kind = "fork"

    def __init__(self, jobs: int, handler: Callable[[Any], Any], warm_up: Callable[[], None] | None = None) -> None:
        if warm_up is not None:  # once, here, not in each worker: they inherit it (copy-on-write)
            warm_up()
        sys.stdout.flush()
        sys.stderr.flush()
        self.workers: list[_Worker] = []
        for _ in range(jobs):
            task_read, task_write = os.pipe()
            result_read, result_write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker: never returns into the caller's code
                status = 0
                try:
                    os.close(task_write)
                    os.close(result_read)
                    for other in self.workers:
                        os.close(other.tasks)
                        os.close(other.results)
                    _serve(task_read, result_write, handler)
                except BaseException:  # noqa: BLE001
                    status = 1
                finally:
                    os._exit(status)
            os.close(task_read)
            os.close(result_write)
            self.workers.append(_Worker(pid, task_write, result_read))

    def run(self, payloads: Iterable[Any], on_result: OnResult, small: bool = False) -> None:
        """See ``Workers.run``; the workers are already running, so ``small`` work goes to them too."""
        pending = list(payloads)
        pending.reverse()  # pop() from the end keeps the caller's order
        by_fd = {worker.results: worker for worker in self.workers}
        next_id = 0
        interrupted = False

        def hand_out(worker: _Worker) -> None:
            nonlocal next_id
            if interrupted or not pending:
                return
            payload = pending.pop()
            try:
                _write_frame(worker.tasks, pickle.dumps((next_id, payload), protocol=pickle.HIGHEST_PROTOCOL))
            except OSError:  # the worker is gone; the payload goes to another one
                pending.append(payload)
                return
            worker.running = (next_id, payload)
            next_id += 1

        try:
            for worker in self.workers:
                hand_out(worker)
            while by_fd and any(w.running for w in by_fd.values()):
                try:
                    ready, _, _ = select.select(list(by_fd), [], [])
                except KeyboardInterrupt:
                    interrupted = True
                    continue
                for fd in ready:
                    worker = by_fd[fd]
                    try:
                        frame = _read_frame(fd)
                    except KeyboardInterrupt:
                        interrupted = True
                        frame = _read_frame(fd)
                    running, worker.running = worker.running, None
                    if frame is None:  # the worker died (killed, out of memory)
                        del by_fd[fd]
                        if running is not None:
                            on_result(running[1], False, "the worker process died while processing it (killed, or out of memory)")
                        continue
                    _, (ok, value) = pickle.loads(frame)
                    on_result(running[1] if running else None, ok, value)
                    hand_out(worker)
            if pending and not interrupted:  # every worker died: reported, not run here (it may kill this process too)
                for payload in reversed(pending):
                    on_result(payload, False, "no worker process left to process it")
        finally:
            if interrupted:
                self.close()
            else:  # the workers stay for the next run; the dead ones are gone
                dead = [w for w in self.workers if w.results not in by_fd]
                self.workers = [w for w in self.workers if w.results in by_fd]
                _reap(dead)
        if interrupted:
            raise KeyboardInterrupt

    def close(self) -> None:
        _reap(self.workers)
        self.workers = []


def _reap(workers: list[_Worker]) -> None:
    """Close the pipes of ``workers`` (they exit when their task pipe closes) and wait for them."""
    for worker in workers:
        for fd in (worker.tasks, worker.results):
            try:
                os.close(fd)
            except OSError:
                pass
    for worker in workers:
        try:
            os.waitpid(worker.pid, 0)
        except ChildProcessError:
            pass
