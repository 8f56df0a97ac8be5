"""A small fork-based worker pool, started before discovery so that workers are warm
(their imports done) by the time the first file reaches them.

Why not ``concurrent.futures.ProcessPoolExecutor``: importing it and starting its queues,
feeder and manager threads costs ~35 ms on the 2-core machines this tool is measured on,
a sixth of a whole lint of a 2,400-file fork (BENCHMARKS.md). Here each worker has its own
pair of pipes; the parent hands the next task to whichever worker answers first (tasks
arrive largest first, so one big file never ends the run alone), and a worker that dies
is reported, never waited for. Where ``os.fork`` is unavailable (Windows) or unsafe
(macOS), callers use the executor instead (``available()``).

Ctrl-C: workers ignore SIGINT; the parent stops handing out tasks, collects the results
of the tasks already running, and re-raises ``KeyboardInterrupt``.
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
    from typing import Any, Callable, Iterable

_HEADER = struct.Struct("<Q")


def available() -> bool:
    return hasattr(os, "fork") and sys.platform.startswith("linux")


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


def _serve(tasks: int, results: int, handler: Callable[[Any], Any], warm_up: Callable[[], None] | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if warm_up is not None:
        warm_up()
    while True:
        frame = _read_frame(tasks)
        if frame is None:
            return
        task_id, payload = pickle.loads(frame)
        try:
            outcome: tuple[bool, Any] = (True, handler(payload))
        except BaseException as error:  # noqa: BLE001 - reported to the parent, which decides
            outcome = (False, f"{type(error).__name__}: {error}")
        _write_frame(results, pickle.dumps((task_id, outcome), protocol=pickle.HIGHEST_PROTOCOL))


class ForkPool:
    """``jobs`` forked workers running ``handler(payload)``; see the module docstring."""

    def __init__(self, jobs: int, handler: Callable[[Any], Any], warm_up: Callable[[], None] | None = None) -> None:
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
                    _serve(task_read, result_write, handler, warm_up)
                except BaseException:  # noqa: BLE001
                    status = 1
                finally:
                    os._exit(status)
            os.close(task_read)
            os.close(result_write)
            self.workers.append(_Worker(pid, task_write, result_read))

    def run(self, payloads: Iterable[Any], on_result: Callable[[Any, bool, Any], None]) -> None:
        """Hand out ``payloads`` in order; call ``on_result(payload, ok, result_or_message)``
        in the parent as each finishes (``ok`` False: the handler raised, or its worker
        died, and the message says so)."""
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
            self.close()
        if interrupted:
            raise KeyboardInterrupt

    def close(self) -> None:
        for worker in self.workers:
            for fd in (worker.tasks, worker.results):
                try:
                    os.close(fd)
                except OSError:
                    pass
        for worker in self.workers:
            try:
                os.waitpid(worker.pid, 0)
            except ChildProcessError:
                pass
        self.workers = []
