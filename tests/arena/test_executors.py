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
