"""Where jobs run: in this process, in a local process pool, or on Dask.

Every executor offers one method, :meth:`Executor.imap_unordered`, which
applies a picklable function to picklable items and yields the results as
they finish, in any order. The runner does not care which executor it has,
so the same spec and seeds give the same results on each (every job carries
its own seeds; nothing depends on which worker ran it).

- :class:`InlineExecutor`: one worker, in this process (no pickling).
- :class:`PoolExecutor`: a ``multiprocessing`` pool with the ``fork`` start
  method; workers' log records reach the parent's handlers through
  ``multiprocessing-logging``.
- :class:`DaskExecutor`: a Dask ``distributed`` client, on a scheduler at
  ``tcp://host:port`` or on a local cluster it starts (``"local"``).

>>> with make_executor(workers=1) as ex:
...     sorted(ex.imap_unordered(abs, [-2, 1, -3]))
[1, 2, 3]
"""

from __future__ import annotations

import logging
import multiprocessing as mp
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Optional, Protocol

from .types import ArenaError

__all__ = ["Executor", "InlineExecutor", "PoolExecutor", "DaskExecutor", "make_executor"]

log = logging.getLogger("pengyou.arena")


class Executor(Protocol):
    """Runs a function over items and yields results as they complete."""

    workers: int

    def imap_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        """Results of ``fn(item)``, in completion order."""

    def close(self) -> None:
        """Stop the workers (pending work is dropped)."""

    def __enter__(self) -> "Executor": ...

    def __exit__(self, *exc: object) -> None: ...


class _Base:
    workers = 1

    def close(self) -> None:
        """Nothing to stop."""

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class InlineExecutor(_Base):
    """Run every item here, one after another."""

    def __init__(self, initializer: Optional[Callable[..., None]] = None, initargs: tuple = ()) -> None:
        self.workers = 1
        if initializer is not None:
            initializer(*initargs)

    def imap_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        """Results in item order (which is one completion order)."""
        for item in items:
            yield fn(item)


class PoolExecutor(_Base):
    """A pool of forked worker processes.

    ``initializer(*initargs)`` runs once in each worker (the runner uses it to
    hand over the tournament's context once instead of with every job).
    """

    def __init__(self, workers: int, initializer: Optional[Callable[..., None]] = None,
                 initargs: tuple = ()) -> None:
        if workers < 1:
            raise ArenaError(f"workers: {workers} is not at least 1")
        self.workers = workers
        try:
            import multiprocessing_logging

            multiprocessing_logging.install_mp_handler()
        except ImportError:  # pragma: no cover - a declared dependency
            log.warning("multiprocessing-logging is missing: worker logs stay in the workers")
        ctx = mp.get_context("fork")
        self._pool = ctx.Pool(workers, initializer=_worker_start, initargs=(initializer, initargs))

    def imap_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        """Results as workers finish them."""
        items = list(items)
        # short jobs travel a few at a time (fewer messages); a long run still
        # sends at least ~50 batches per worker, so results keep flowing in
        chunk = max(1, min(8, len(items) // (self.workers * 50)))
        return self._pool.imap_unordered(fn, items, chunksize=chunk)

    def close(self) -> None:
        """Stop the workers now (unfinished jobs are simply not recorded)."""
        self._pool.terminate()
        self._pool.join()
        try:
            import multiprocessing_logging

            multiprocessing_logging.uninstall_mp_handler()
        except (ImportError, AttributeError):  # pragma: no cover
            pass


def _worker_start(initializer: Optional[Callable[..., None]], initargs: tuple) -> None:
    """In a pool worker: leave Ctrl-C to the parent (which stops the pool), then initialise."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer(*initargs)


class DaskExecutor(_Base):
    """Jobs on Dask ``distributed``: ``address`` is ``tcp://host:port`` or
    ``"local"`` (a local cluster of ``workers`` single-threaded processes)."""

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
        self.workers = max(1, len(self._client.scheduler_info().get("workers", {})) or workers)
        self._init = (initializer, initargs)

    def imap_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        """Results as the cluster finishes them."""
        from distributed import as_completed

        initializer, initargs = self._init
        task = _WithContext(fn, initializer, initargs)
        futures = self._client.map(task, list(items), pure=False)
        try:
            for fut in as_completed(futures):
                yield fut.result()
        finally:
            self._client.cancel(futures)

    def close(self) -> None:
        """Disconnect, and stop the local cluster if this executor started it."""
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


class _WithContext:
    """``fn`` with the pool initializer run first (once per worker process)."""

    def __init__(self, fn: Callable[[Any], Any], initializer: Optional[Callable[..., None]],
                 initargs: tuple) -> None:
        self.fn, self.initializer, self.initargs = fn, initializer, initargs

    def __call__(self, item: Any) -> Any:
        if self.initializer is not None:
            self.initializer(*self.initargs)
        return self.fn(item)


def make_executor(workers: int = 1, cluster: str = "",
                  initializer: Optional[Callable[..., None]] = None, initargs: tuple = ()) -> Any:
    """The executor for ``--workers`` and ``--cluster`` (``""``: local processes)."""
    if workers < 1:
        raise ArenaError(f"workers: {workers} is not at least 1")
    if cluster:
        return DaskExecutor(cluster, workers, initializer, initargs)
    if workers == 1:
        return InlineExecutor(initializer, initargs)
    return PoolExecutor(workers, initializer, initargs)
