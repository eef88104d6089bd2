"""Where a run's workers are: the executor for ``--workers`` and
``--cluster`` (:func:`make_executor`), and Dask's (:class:`DaskExecutor`).

>>> with make_executor(workers=1) as ex:
...     sorted(ex.imap_unordered(abs, [-2, 1, -3]))
[1, 2, 3]
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Optional

from ..types import ArenaError
from .executors import BaseExecutor, InlineExecutor, Lost, PoolExecutor, WithContext, batches, should_pin

__all__ = ["DaskExecutor", "make_executor", "watch_silence", "WORKER_SILENCE"]

log = logging.getLogger("pengyou.arena")


class DaskExecutor(BaseExecutor):
    """Jobs on Dask ``distributed``: ``address`` is ``tcp://host:port`` or
    ``"local"`` (a local cluster of ``workers`` single-threaded processes).

    ``workers`` is the cluster's size, read again at every call: the
    threads of the workers connected now. Items travel in batches of whole
    groups (``group``), several to a task, so a deal costs the client a small
    share of a task; at most a few batches per thread are in flight. The
    scheduler is asked to drop a worker that has not been heard from for
    :data:`WORKER_SILENCE` seconds (a frozen or sleeping machine), so its
    work moves to the others; records logged under ``pengyou`` on the
    workers reach this process's handlers.
    """

    remote = True

    def __init__(self, address: str, workers: int = 2,
                 initializer: Optional[Callable[..., None]] = None, initargs: tuple = ()) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ArenaError("--cluster needs Dask: pip install 'dask[distributed]' "
                             "(or pip install -e '.[cluster]')") from None
        self._cluster = None
        try:
            if address == "local":
                self._cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                             dashboard_address=None, silence_logs=logging.ERROR)
                self._client = Client(self._cluster)
            elif address.startswith("tcp://"):
                self._client = Client(address, timeout=10)
            else:
                raise ArenaError(f"--cluster: {address!r} is not 'local' or tcp://HOST:PORT")
        except ArenaError:
            raise
        except (OSError, TimeoutError) as exc:
            raise ArenaError(f"--cluster {address}: cannot reach the scheduler ({exc})") from None
        self.address = address
        self._init = (initializer, initargs)
        self._shared: dict[int, tuple[Any, Any]] = {}
        self._fallback = workers
        try:
            self._client.run_on_scheduler(watch_silence, seconds=WORKER_SILENCE)
        except Exception as exc:       # a scheduler without pengyou: its own worker-ttl applies
            log.warning("the Dask scheduler could not take pengyou's watch for frozen workers (%s); "
                        "start it with DASK_DISTRIBUTED__SCHEDULER__WORKER_TTL=%ds", exc, WORKER_SILENCE)
        try:
            self._client.forward_logging("pengyou", level=logging.INFO)
        except Exception:               # an older distributed: worker logs stay on the workers
            log.warning("this Dask cannot forward the workers' logs; they stay on each worker")
        if self.workers < 1:
            try:
                self._client.wait_for_workers(1, timeout=30)
            except Exception:
                raise ArenaError(f"--cluster {address}: no worker joined the scheduler within 30 s") from None

    @property
    def workers(self) -> int:               # type: ignore[override]
        """The threads of the workers connected now (the cluster's size)."""
        try:
            return sum(self._client.nthreads().values())
        except Exception:
            return self._fallback

    def machines(self) -> list[str]:
        """The addresses of the workers connected now."""
        return list(self._client.nthreads())

    def _share(self, value: Any) -> Any:
        """``value`` on every worker, sent once (a future the tasks take)."""
        kept = self._shared.get(id(value))
        if kept is None or kept[0] is not value:
            fut = self._client.scatter(value, broadcast=True, hash=False)
            kept = self._shared[id(value)] = (value, fut)
            while len(self._shared) > 8:
                self._shared.pop(next(iter(self._shared)))
        return kept[1]

    def imap_unordered(self, fn: Callable[..., Any], items: Iterable[Any], shared: Any = None,
                       group: Optional[Callable[[Any], Any]] = None, avoid: Iterable[str] = ()) -> Iterator[Any]:
        """Results as the cluster finishes them: ``fn(item)``, or
        ``fn(item, shared)`` when ``shared`` is given (sent to each worker
        once). Workers named in ``avoid`` (read again before each task is
        sent) get work only when no other worker is there."""
        from distributed import as_completed

        items = list(items)
        threads = max(1, self.workers)
        size = max(1, min(64, len(items) // (threads * 16)))
        waiting = deque(batches(items, size, group))
        if shared is None:
            initializer, initargs = self._init
            task: Callable[..., Any] = WithContext(fn, initializer, initargs)
            extra: tuple = ()
        else:
            task, extra = fn, (self._share(shared),)
        running: dict[Any, list] = {}
        done = as_completed()
        level = logging.getLogger("pengyou").getEffectiveLevel()   # records the client would drop stay there

        def send() -> None:
            while waiting and len(running) < 3 * max(1, self.workers):
                batch = waiting.popleft()
                bad = set(avoid)
                good = [w for w in self.machines() if w not in bad] if bad else None
                where: dict[str, Any] = {"workers": good, "allow_other_workers": True} if good else {}
                fut = self._client.submit(_dask_batch, task, level, batch, *extra, pure=False, **where)
                running[fut] = batch
                done.add(fut)

        try:
            send()
            for fut in done:
                batch = running.pop(fut)
                try:
                    results = fut.result()
                except Exception as exc:
                    if type(exc).__name__ != "KilledWorker":    # the job's own error: the caller's
                        raise
                    yield Lost(tuple(batch), "a batch's Dask workers kept dying")
                else:
                    yield from results
                send()
        finally:
            self._client.cancel(list(running))

    def close(self) -> None:
        """Disconnect, and stop the local cluster if this executor started it."""
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


#: Seconds of silence after which the scheduler drops a worker (its work
#: moves to the others): a frozen process, a sleeping laptop, a cut cable.
WORKER_SILENCE = 20


def watch_silence(dask_scheduler: Any = None, seconds: float = WORKER_SILENCE) -> None:
    """On a Dask scheduler: drop every worker silent for over ``seconds``
    (checked every quarter of that). Dask's own ``worker-ttl`` is five
    minutes by default, and with a nanny it asks the frozen worker's nanny
    to restart it, which waits on the frozen machine again; dropping the
    worker hands its tasks to the others at once."""
    from distributed.metrics import time as now
    from tornado.ioloop import PeriodicCallback

    s = dask_scheduler

    async def check() -> None:
        t = now()
        for ws in list(s.workers.values()):
            if t - ws.last_seen > seconds:
                log.warning("dropping Dask worker %s: silent for %.0f s", ws.address, t - ws.last_seen)
                await s.remove_worker(address=ws.address, stimulus_id=f"pengyou-silent-{t}", close=True)

    old = s.periodic_callbacks.pop("pengyou-silence", None)
    if old is not None:
        old.stop()
    pc = PeriodicCallback(check, seconds * 1000 / 4)
    s.periodic_callbacks["pengyou-silence"] = pc
    pc.start()


def _dask_batch(fn: Callable[..., Any], level: int, batch: list, *shared: Any) -> list:
    """On a Dask worker: ``fn`` over one batch (with the shared value, if
    any), logging under ``pengyou`` at the client's ``level`` (its records
    travel to the client)."""
    logging.getLogger("pengyou").setLevel(level)
    return [fn(x, *shared) for x in batch]


def make_executor(workers: int = 1, cluster: str = "",
                  initializer: Optional[Callable[..., None]] = None, initargs: tuple = (),
                  pin: bool = True) -> Any:
    """The executor for ``--workers`` and ``--cluster`` (``""``: local
    processes; ``pin``: each local worker holds a CPU of its own, when there
    are as many CPUs as workers)."""
    if workers < 1:
        raise ArenaError(f"workers: {workers} is not at least 1")
    if cluster:
        return DaskExecutor(cluster, workers, initializer, initargs)
    pin = pin and should_pin(workers)
    if workers == 1:
        return InlineExecutor(initializer, initargs, pin)
    return PoolExecutor(workers, initializer, initargs, pin)
