"""Where jobs run: in this process, in a local process pool, or on Dask.

Every executor offers one method, :meth:`Executor.imap_unordered`, which
applies a picklable function to picklable items and yields the results as
they finish, in any order; when a worker process dies, a :class:`Lost`
value names the items that were in flight, and the rest go on. The runner does not care which executor it has,
so the same spec and seeds give the same results on each (every job carries
its own seeds; nothing depends on which worker ran it).

- :class:`InlineExecutor`: one worker, in this process (no pickling).

Local workers hold one CPU each (:func:`pin_cpu`) when the machine has a CPU
for every worker: a worker and the sandboxed bot processes it starts take
turns (the referee waits while a bot thinks), so keeping them on one CPU
keeps their caches warm and saves waking another CPU at every decision.
- :class:`PoolExecutor`: a ``multiprocessing`` pool with the ``fork`` start
  method; workers' log records reach the parent's handlers through
  ``multiprocessing-logging``.
- :class:`~arena.tournament.workers.DaskExecutor` (in ``workers``, with
  :func:`~arena.tournament.workers.make_executor`, which picks one).

>>> with InlineExecutor() as ex:
...     sorted(ex.imap_unordered(abs, [-2, 1, -3]))
[1, 2, 3]
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import signal
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from queue import Empty
from dataclasses import dataclass
from typing import Any, Optional, Protocol

from multiprocessing_logging import MultiProcessingHandler

from ..types import ArenaError

__all__ = ["Executor", "BaseExecutor", "InlineExecutor", "PoolExecutor", "WithContext", "Lost", "run_forked",
           "pin_cpu", "unpin", "this_cpu", "batches", "should_pin"]

log = logging.getLogger("pengyou.arena")

#: Seconds idle pool workers get to exit by themselves when a pool closes.
_GRACE = 3.0


class Executor(Protocol):
    """Runs a function over items and yields results as they complete."""

    workers: int
    #: Whether the workers may be on other machines (their bots' code must travel).
    remote: bool

    def imap_unordered(self, fn: Callable[..., Any], items: Iterable[Any], shared: Any = None,
                       group: Optional[Callable[[Any], Any]] = None, avoid: Iterable[str] = ()) -> Iterator[Any]:
        """Results of ``fn(item)`` (``fn(item, shared)`` when ``shared`` is
        given), in completion order; items of one ``group`` in a row go to
        one worker together; workers named in ``avoid`` get none where others can."""

    def close(self) -> None:
        """Stop the workers (pending work is dropped)."""

    def __enter__(self) -> Executor: ...

    def __exit__(self, *exc: object) -> None: ...


def _allowed() -> list[int]:
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):      # not Linux: no pinning
        return []


def pin_cpu(index: int) -> Optional[set[int]]:
    """Keep this process (and the processes it starts from now on) on the
    ``index``-th CPU it may use (modulo their number); the CPUs it could use
    before, to restore, or None where the system does not allow pinning.

    >>> before = pin_cpu(0)
    >>> before is None or len(os.sched_getaffinity(0)) == 1
    True
    >>> unpin(before)
    """
    cpus = _allowed()
    if not cpus:
        return None
    try:
        os.sched_setaffinity(0, {cpus[index % len(cpus)]})
    except OSError:
        return None
    return set(cpus)


def unpin(before: Optional[set[int]]) -> None:
    """Undo :func:`pin_cpu` (given what it returned)."""
    if before:
        try:
            os.sched_setaffinity(0, before)
        except OSError:
            pass


def should_pin(workers: int) -> bool:
    """Whether each of ``workers`` local workers can hold a CPU of its own."""
    return len(_allowed()) >= workers


class BaseExecutor:
    """What every executor shares: one worker here, a context manager."""

    workers = 1
    remote = False

    def close(self) -> None:
        """Nothing to stop."""

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class InlineExecutor(BaseExecutor):
    """Run every item here, one after another."""

    def __init__(self, initializer: Optional[Callable[..., None]] = None, initargs: tuple = (),
                 pin: bool = False) -> None:
        self.workers = 1
        self._pin = pin
        if initializer is not None:
            initializer(*initargs)

    def imap_unordered(self, fn: Callable[..., Any], items: Iterable[Any], shared: Any = None,
                       group: Optional[Callable[[Any], Any]] = None, avoid: Iterable[str] = ()) -> Iterator[Any]:
        """Results in item order (which is one completion order); this
        process holds the CPU it is on while it plays them (``pin``)."""
        before = pin_cpu(this_cpu()) if self._pin else None
        extra = () if shared is None else (shared,)
        try:
            for item in items:
                yield fn(item, *extra)
        finally:
            unpin(before)


def this_cpu() -> int:
    """The index, among the CPUs this process may use, of the one it runs on."""
    try:
        with open("/proc/self/stat", "rb") as fh:
            cpu = int(fh.read().rsplit(b")", 1)[1].split()[36])
        return _allowed().index(cpu)
    except (OSError, ValueError, IndexError):
        return 0


@dataclass(frozen=True)
class Lost:
    """Yielded among the results when a worker process died: the ``items``
    that were in flight then, one of which may have ended it (they have no
    result; the caller decides whether to play them again, and how)."""

    items: tuple
    reason: str


class PoolExecutor(BaseExecutor):
    """A pool of forked worker processes.

    ``initializer(*initargs)`` runs once in each worker (the runner uses it to
    hand over the tournament's context once instead of with every job). A
    worker that dies (``os._exit``, a signal, a crash in compiled code) does
    not hang the run: the items in flight come back as one :class:`Lost`
    value and a fresh pool takes the rest.
    """

    def __init__(self, workers: int, initializer: Optional[Callable[..., None]] = None,
                 initargs: tuple = (), pin: bool = False) -> None:
        if workers < 1:
            raise ArenaError(f"workers: {workers} is not at least 1")
        self.workers = workers
        self._init = (initializer, initargs)
        #: the next worker's CPU index (shared with the forked workers), or None: no pinning
        self._next_cpu = mp.get_context("fork").Value("i", 0) if pin else None
        self._pool: Optional[ProcessPoolExecutor] = None
        self._closed = False
        _worker_logs(True)           # last: a constructor that raised leaves no routing behind

    def _start(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=mp.get_context("fork"),
                                             initializer=_worker_start,
                                             initargs=self._init + (self._next_cpu, os.getpid()))
        return self._pool

    def _stop(self, now: bool = False) -> None:
        """Shut the pool down. Idle workers (``now`` false and no job in
        flight) are asked to exit, so the log records they still buffer reach
        this process; busy ones, or any still there after a grace period, get
        SIGKILL (a worker stuck in compiled code never runs a Python SIGTERM
        handler it inherited, and the pool's shutdown would wait for ever)."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        procs = list((getattr(pool, "_processes", None) or {}).values())
        manager = getattr(pool, "_executor_manager_thread", None)
        results = getattr(pool, "_result_queue", None)     # shutdown() forgets it
        if now or getattr(pool, "_pending_work_items", None):
            for proc in procs:
                if proc.is_alive():
                    proc.kill()
        pool.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + _GRACE
        for proc in procs:
            proc.join(max(0.0, deadline - time.monotonic()))
        for proc in procs:
            if proc.is_alive():
                proc.kill()
                proc.join()
        # a worker killed halfway through writing a result leaves the pool's
        # reading thread waiting for the rest: with every worker gone, this
        # process holds the last write end, and closing it ends that wait
        if results is not None:
            results._writer.close()
        if manager is not None:
            manager.join(_GRACE)
            if manager.is_alive():
                log.warning("the worker pool's reading thread did not stop")

    def imap_unordered(self, fn: Callable[..., Any], items: Iterable[Any], shared: Any = None,
                       group: Optional[Callable[[Any], Any]] = None, avoid: Iterable[str] = ()) -> Iterator[Any]:
        """Results as workers finish them (and a :class:`Lost` after a worker's death)."""
        items = list(items)
        # short jobs travel a few at a time (fewer messages); a long run still
        # sends at least ~50 batches per worker, so results keep flowing in
        size = max(1, min(8, len(items) // (self.workers * 50)))
        waiting = deque(batches(items, size, group))
        extra = () if shared is None else (shared,)
        running: dict[Future, list] = {}
        while waiting or running:
            pool = self._start()
            broken = False
            while waiting and len(running) < 2 * self.workers:     # few in flight: few lost on a death
                try:
                    fut = pool.submit(_apply, fn, waiting[0], *extra)
                except BrokenProcessPool:   # it broke since the last look: a running batch's worker died
                    broken = True
                    break
                running[fut] = waiting.popleft()
            if not broken:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in done:
                    batch = running.pop(fut)
                    try:
                        results = fut.result()
                    except BrokenProcessPool:
                        broken = True
                        running[fut] = batch
                        continue
                    yield from results
            if broken:
                self._stop(now=True)                # every future is settled once the pool is shut down
                lost: list = []
                for fut, batch in running.items():
                    if fut.done() and not fut.cancelled() and fut.exception() is None:
                        yield from fut.result()
                    else:
                        lost.extend(batch)
                running.clear()
                if lost:
                    yield Lost(tuple(lost), "a worker process died")

    def close(self) -> None:
        """Stop the workers now (unfinished jobs are simply not recorded)."""
        self._stop()
        if not self._closed:
            self._closed = True
            _worker_logs(False)


_LOG_USERS = [0]


class _WorkerLogs(MultiProcessingHandler):
    """multiprocessing-logging's handler, with a receiving loop that ends
    once the handler is closed and the pipe is empty. (The library's loop
    waits for the queue's count to reach zero, and a worker killed between
    counting a record and writing it leaves that count above zero for ever.)"""

    def _receive(self) -> None:
        while True:
            try:
                record = self.queue.get(timeout=0.2)
            except Empty:
                if self._is_closed:
                    break
                continue
            except (EOFError, OSError, ValueError, TypeError):   # the queue went away
                break
            try:
                self.sub_handler.emit(record)
            except Exception:   # a handler's own failure must not end the routing
                self.sub_handler.handleError(record)
        self.queue.close()
        self.queue.join_thread()


def _worker_logs(on: bool) -> None:
    """Route forked workers' log records to this process's root handlers
    while at least one pool is open (``on``), and stop the routing when the
    last one closes: the receiving threads end (they would otherwise pile up,
    one per pool, and every later fork would copy them) and the root logger
    gets its own handlers back, unclosed."""
    root = logging.getLogger()
    if on:
        _LOG_USERS[0] += 1
        if _LOG_USERS[0] == 1:
            for i, handler in enumerate(list(root.handlers)):
                root.removeHandler(handler)
                root.addHandler(_WorkerLogs(f"pengyou-logs-{i}", sub_handler=handler))
        return
    _LOG_USERS[0] = max(0, _LOG_USERS[0] - 1)
    if _LOG_USERS[0]:
        return
    for handler in list(root.handlers):
        if isinstance(handler, _WorkerLogs):
            root.removeHandler(handler)
            root.addHandler(handler.sub_handler)
            # what the handler's own close() does, minus closing the wrapped
            # handler (it is the root logger's again): the thread drains the
            # queue and ends
            handler._is_closed = True
            handler._receive_thread.join(5.0)


def _apply(fn: Callable[..., Any], batch: list, *shared: Any) -> list:
    """In a worker: ``fn`` over one batch of items (with the shared value, if any)."""
    return [fn(x, *shared) for x in batch]


def _worker_start(initializer: Optional[Callable[..., None]], initargs: tuple, next_cpu: Any,
                  parent: int) -> None:
    """In a pool worker: die with the parent (``parent``, its pid as the
    parent read it before the fork: read here, after a parent killed in
    between, it would name the orphan's new parent and the worker would
    wait for work for ever), leave Ctrl-C to it (it stops
    the pool), take a CPU of its own (``next_cpu``), then initialise. A
    worker that ends by itself (the pool closing) first stops its bot
    processes and waits for its fork server to tidy up: left to the fork
    server's parent-death signal, the tidying would go on after the run had
    returned."""
    from multiprocessing import util

    from ..sandbox.jail import die_with
    from ..table.remote import close_pool

    die_with(parent)
    util.Finalize(None, close_pool, exitpriority=10)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if next_cpu is not None:
        with next_cpu.get_lock():
            index = next_cpu.value
            next_cpu.value += 1
        pin_cpu(index)
    if initializer is not None:
        initializer(*initargs)


def batches(items: list, size: int, group: Optional[Callable[[Any], Any]] = None) -> Iterator[list]:
    """``items`` in batches of about ``size``, never splitting a group
    (items with the same ``group(item)`` in a row stay in one batch, in
    order: the rotations of one duplicate deal are played one after another).

    >>> list(batches([1, 2, 3, 4, 5], 2))
    [[1, 2], [3, 4], [5]]
    >>> list(batches([10, 11, 20, 21, 22, 30], 2, group=lambda x: x // 10))
    [[10, 11], [20, 21, 22], [30]]
    """
    batch: list = []
    last: Any = object()
    for item in items:
        key = group(item) if group is not None else object()
        if len(batch) >= size and key != last:
            yield batch
            batch = []
        batch.append(item)
        last = key
    if batch:
        yield batch


def run_forked(fn: Callable[..., Any], *args: Any) -> tuple[bool, Any, str]:
    """Call ``fn(*args)`` in a forked process of its own (Ctrl-C is left to
    this one): ``(True, value, "")``, or ``(False, None, how it ended)`` when
    that process ended without answering (``"exit code 3"``, ``"signal SIGSEGV"``).
    """
    ctx = mp.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_answer, args=(fn, args, send, os.getpid()), daemon=True)
    proc.start()
    send.close()
    try:
        return True, receive.recv(), ""
    except EOFError:                 # it ended without an answer
        pass
    finally:
        receive.close()
        proc.join()
    code = proc.exitcode or 0
    if code >= 0:
        return False, None, f"exit code {code}"
    try:
        return False, None, f"signal {signal.Signals(-code).name}"
    except ValueError:
        return False, None, f"signal {-code}"


def _answer(fn: Callable[..., Any], args: tuple, conn: Any, parent: int) -> None:
    from ..sandbox.jail import die_with

    die_with(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    conn.send(fn(*args))
    conn.close()


class WithContext:
    """``fn`` with the pool initializer run first (once per worker process)."""

    def __init__(self, fn: Callable[[Any], Any], initializer: Optional[Callable[..., None]],
                 initargs: tuple) -> None:
        self.fn, self.initializer, self.initargs = fn, initializer, initargs

    def __call__(self, item: Any) -> Any:
        if self.initializer is not None:
            self.initializer(*self.initargs)
        return self.fn(item)
