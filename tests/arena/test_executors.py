"""The process pool: workers' logs reach this process, and a pool leaves
nothing behind (threads, handlers, processes) once it is closed."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time

from arena.tournament.executors import PoolExecutor


#: A logger of the test's own: the arena's "pengyou" logger keeps its own
#: handlers (set up by any command an earlier test ran) and does not propagate.
LOGGER = "executor-test"


def _log_and_pid(i: int) -> int:
    logging.getLogger(LOGGER).warning("from worker %d", i)
    return os.getpid()


class _Keep(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _log_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("pengyou-logs")]


def test_worker_logs_reach_the_parent_and_the_routing_ends_with_the_pool():
    root = logging.getLogger()
    mine = logging.getLogger(LOGGER)
    mine.setLevel(logging.WARNING)
    mine.propagate = True
    keep = _Keep()
    root.addHandler(keep)
    before = list(root.handlers)
    try:
        for _ in range(3):                 # pools one after another: no thread piles up
            with PoolExecutor(2) as ex:
                pids = set(ex.imap_unordered(_log_and_pid, range(6)))
                assert _log_threads()
            assert pids and os.getpid() not in pids
            assert _log_threads() == []
            assert root.handlers == before          # the very handlers, unwrapped
        # every record of every pool, none lost at the close
        assert sorted(keep.messages) == sorted(f"from worker {i}" for _ in range(3) for i in range(6))
    finally:
        root.removeHandler(keep)


def _ignore_term_and_hang(_: object) -> int:
    # a worker that will not die of SIGTERM (as one stuck in compiled code
    # with an inherited Python handler does not)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(60)
    return 0


def test_closing_a_pool_stops_workers_that_ignore_sigterm():
    ex = PoolExecutor(2)
    it = ex.imap_unordered(_ignore_term_and_hang, range(2))
    done = threading.Event()

    def consume() -> None:
        try:
            next(it)
        except Exception:
            pass
        done.set()

    threading.Thread(target=consume, daemon=True).start()
    time.sleep(1.0)                       # both workers are in their job now
    pool = ex._pool
    assert pool is not None
    procs = list(pool._processes.values())
    assert len(procs) == 2 and all(p.is_alive() for p in procs)
    start = time.monotonic()
    ex.close()
    assert time.monotonic() - start < 10
    assert not any(p.is_alive() for p in procs)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_worker_whose_referee_died_before_it_started_ends():
    """The referee killed between forking a worker and the worker's start:
    the worker finds a parent that is not the one it was forked for and
    ends (it would otherwise wait for work for ever, outliving the run)."""
    import multiprocessing.util
    import select

    r, w = os.pipe()
    referee = os.fork()
    if referee == 0:
        try:
            os.close(r)

            def slow_start(_: object) -> None:      # in the worker, before it starts
                os.write(w, f"{os.getpid()}\n".encode())
                time.sleep(0.5)

            multiprocessing.util.register_after_fork(slow_start, slow_start)
            pool = PoolExecutor(1)._start()
            pool.submit(abs, 1)                     # forks the worker
            time.sleep(0.1)
        finally:
            os._exit(0)                             # dies as kill -9 would: nothing tidied
    os.close(w)
    try:
        ready, _, _ = select.select([r], [], [], 30)
        assert ready, "no worker started"
        worker = int(os.read(r, 32).split()[0])
    finally:
        os.close(r)
        os.waitpid(referee, 0)
    deadline = time.monotonic() + 10
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        assert not _alive(worker), "the worker outlived its referee"
    finally:
        if _alive(worker):
            os.kill(worker, signal.SIGKILL)


_HALF_WRITTEN = r'''
import gc, struct, sys, threading, time
from multiprocessing.queues import SimpleQueue
from arena.tournament.executors import PoolExecutor

def half_a_result(_):
    # what a worker killed while writing a long result leaves in the pipe:
    # a length, then only part of the message
    queue = next(o for o in gc.get_objects() if isinstance(o, SimpleQueue))
    queue._writer._send(struct.pack("!i", 1 << 20) + b"x" * 10)
    time.sleep(60)

ex = PoolExecutor(1)
it = ex.imap_unordered(half_a_result, [0])
threading.Thread(target=lambda: next(it, None), daemon=True).start()
time.sleep(1.5)                       # the pool's reader now waits for the rest
ex.close()
left = [t.name for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
print("closed", left)
'''


def test_closing_a_pool_whose_worker_died_halfway_through_a_result():
    """Ctrl-C (or SIGTERM) while a worker writes its result: the worker is
    killed halfway through, and the pool's reading thread must not wait for
    the rest for ever (the run, and the interpreter's exit, would hang). In a
    process of its own, so a failure cannot hang the tests."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", _HALF_WRITTEN], cwd=root, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "closed []", out.stdout + out.stderr[-2000:]
