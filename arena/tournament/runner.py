"""Run a tournament: spec -> jobs -> results in the store, resumably.

The runner is the only writer of the results database. It builds the job
list from the spec (:mod:`arena.tournament.schedule`), opens or resumes the run in the
store (the spec's identity names the run, so the same command resumes it),
hands the jobs that have no result yet to an executor (this process, a
local process pool or Dask), and writes each result in its own transaction
as soon as it arrives. Interrupting a run (Ctrl-C, or even ``kill -9``)
loses at most the jobs in flight; running the same command again plays
only the missing ones, and a result is never stored twice.

>>> import tempfile, os
>>> from arena.tournament.spec import spec_from_options
>>> spec = spec_from_options(["random", "heuristic"], players=5, deals=2, suite="dev")
>>> db = os.path.join(tempfile.mkdtemp(), "t.db")
>>> summary = run_tournament(spec, db, progress=False)
>>> summary.jobs, summary.played, summary.failed
(10, 10, 0)
>>> run_tournament(spec, db, progress=False).played      # resumed: nothing left to play
0
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import sys
import time
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any, Optional

from .jobs import JobItem, Played, executor_for, play_jobs
from ..table.settings import TableSettings
from ..table.remote import close_pool, log_name
from .schedule import build_jobs, suite_seeds
from .suites import GENERATED
from .spec import TournamentSpec
from ..store import DEFAULT_DB, Owner, Store
from ..types import ArenaError, Job, JobResult

__all__ = ["RunSummary", "run_tournament", "Workers", "setup_logging", "bot_log_dir", "BotLogs"]

log = logging.getLogger("pengyou.arena")

@dataclass(frozen=True)
class RunSummary:
    """What a call of :func:`run_tournament` did.

    ``jobs``: the run's whole job list; ``done_before``: results already in
    the store when it started (a resumed run); ``played``: results written
    now; ``failed``: jobs that hit an error outside any bot (not stored, so
    the next run retries them); ``faults``: bot faults in the results written
    now; ``elsewhere``: jobs leased to another runner of the same run.
    """

    run_id: int
    resumed: bool
    jobs: int
    done_before: int
    played: int
    failed: int
    faults: int
    seconds: float
    elsewhere: int = 0       #: jobs without a result that another runner was playing (left to it)
    twice: int = 0           #: jobs played here whose result another runner had stored meanwhile


def bot_log_dir(db: str, run_id: int) -> str:
    """Where a run's bot logs go: ``DB.bots/run-ID/``, one folder per entrant."""
    return os.path.join(f"{db}.bots", f"run-{run_id}")


class BotLogs:
    """What sandboxed bots wrote to stderr, kept per entrant and seat
    (``ENTRANT/seat-S.log``), each file capped at ``cap`` bytes."""

    def __init__(self, root: str, names: list[str], cap: int) -> None:
        self.root, self.names, self.cap = root, names, cap
        self.warned = False

    def keep(self, res: JobResult) -> None:
        """Append a result's bot output, under a line naming the job."""
        for entrant, seat, data in res.logs:
            folder = os.path.join(self.root, log_name(self.names[entrant]))
            path = os.path.join(folder, f"seat-{seat}.log")
            try:
                os.makedirs(folder, exist_ok=True)
                size = os.path.getsize(path) if os.path.exists(path) else 0
                if size >= self.cap:
                    continue
                chunk = f"--- job {res.key} ---\n".encode() + data
                if not chunk.endswith(b"\n"):
                    chunk += b"\n"
                if size + len(chunk) > self.cap:
                    chunk = chunk[:self.cap - size] + b"\n[... the log is full]\n"
                with open(path, "ab") as f:
                    f.write(chunk)
            except OSError as exc:
                if not self.warned:
                    self.warned = True
                    log.warning("bot logs in %s cannot be written (%s); they are dropped from now on",
                                self.root, exc.strerror or exc)


class _Stderr(logging.StreamHandler):
    """A handler that writes to whatever ``sys.stderr`` is when a record
    comes (a handler that kept the stream it started with writes to a closed
    one once the program, or a test harness, has replaced it)."""

    @property                                       # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


def setup_logging(path: Optional[str], level: int = logging.INFO) -> None:
    """Send the arena's log (workers' included) to ``path``; warnings also to stderr."""
    logger = logging.getLogger("pengyou")
    logger.setLevel(level)
    for h in list(logger.handlers):
        logger.removeHandler(h)
        h.close()
    if path:
        try:
            fh = logging.FileHandler(path, encoding="utf-8")
        except OSError as exc:
            raise ArenaError(f"log file {path}: {exc.strerror or exc}") from None
        fh.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(levelname)s %(message)s"))
        logger.addHandler(fh)
    sh = _Stderr()
    sh.setLevel(logging.WARNING)
    sh.setFormatter(logging.Formatter("pengyou: %(levelname)s: %(message)s"))
    logger.addHandler(sh)
    logger.propagate = False


class Workers:
    """Worker processes kept for several calls of :func:`run_tournament` on
    one run (a sequential test plays its run in batches): each call would
    otherwise start its workers, and every worker its sandbox and bot
    processes, again. A call whose context (rules, entrants, limits, the
    run's secret) differs from the last one gets fresh workers.

    >>> with Workers(1) as keep:
    ...     keep.workers
    1
    """

    def __init__(self, workers: int, cluster: str = "", pin: bool = True) -> None:
        self.workers, self.cluster, self.pin = workers, cluster, pin
        self._ex: Any = None
        self._settings: Optional[TableSettings] = None

    def executor(self, settings: TableSettings) -> Any:
        """The kept executor for ``settings`` (started, or started again, now if need be)."""
        if self._ex is None or self._settings != settings:
            self.close()
            self._ex = executor_for(settings, self.workers, self.cluster, self.pin)
            self._settings = settings
        return self._ex

    def size(self) -> int:
        """How many jobs the workers play at once: a cluster's threads
        once it is connected, else the number asked for."""
        return max(1, int(self._ex.workers)) if self._ex is not None else self.workers

    def close(self) -> None:
        """Stop the workers and this process's bot processes."""
        ex, self._ex, self._settings = self._ex, None, None
        try:
            if ex is not None:
                ex.close()
        finally:
            close_pool()

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def run_tournament(spec: TournamentSpec, db: str = DEFAULT_DB, *, workers: Optional[int] = None,
                   cluster: Optional[str] = None, progress: bool = True,
                   max_jobs: Optional[int] = None, secret: Optional[str] = None,
                   pin: bool = True, grow: bool = False, keep: Optional[Workers] = None,
                   report: Optional[Callable[[int, Job, JobResult, int], None]] = None) -> RunSummary:
    """Play every job of ``spec`` that has no result in ``db`` yet.

    ``workers`` and ``cluster`` override the spec's (they never change the
    results). ``max_jobs`` stops after that many new results (for tests and
    for slicing a long run). ``secret``: the run's secret when it starts
    (default: a random one, kept in the store; give the same one to deal
    the same cards in another database). ``pin``: each local worker (and
    the bots it starts) holds one CPU, when there are as many CPUs as
    workers (:func:`arena.tournament.executors.pin_cpu`). ``grow``: the run of this
    spec with any number of deals, on a generated suite (``gen:TEXT``), so
    that asking for more deals extends it (sequential tests do). ``keep``:
    play on these kept workers (its worker count and cluster, not the
    arguments') and leave them running. ``report(run_id, job, result, done)``: called
    after each result is stored, with the run's count of stored results
    (``arena run --verbose`` prints a line for it). Returns a :class:`RunSummary`.
    """
    start = time.perf_counter()
    workers = spec.workers if workers is None else workers
    cluster = spec.cluster if cluster is None else cluster
    if workers < 1:
        raise ArenaError(f"--workers: {workers} is not at least 1")
    if cluster and cluster != "local" and not cluster.startswith("tcp://"):
        raise ArenaError(f"--cluster: {cluster!r} is not 'local' or tcp://HOST:PORT")
    jobs = build_jobs(spec, suite_seeds(spec))
    by_key = {j.key: j for j in jobs}
    with Store(db) as store:
        if grow and not spec.suite.startswith(GENERATED):
            raise ArenaError(f"suite {spec.suite!r}: only a generated suite (gen:TEXT) can grow")
        identity = dataclasses.replace(spec, deals=0).identity() if grow else spec.identity()
        run_id, resumed = store.open_run(identity, spec.name, spec.to_json(), list(spec.entrants), jobs,
                                         grow=grow)
        done = store.done_keys(run_id)
        waiting = [j.key for j in jobs if j.key not in done]
        owner = Owner.me()
        ttl = lease_seconds()
        mine = store.claim(run_id, waiting, owner, ttl,
                           None if max_jobs is None else max(0, max_jobs))
        todo = [by_key[k] for k in mine]
        elsewhere = store.leased_elsewhere(run_id, owner)
        if elsewhere:
            log.info("run %d: %d job(s) are being played by another runner; this one leaves them",
                     run_id, elsewhere)
        log.info("run %d (%s): %d jobs, %d done, %d to play on %s", run_id, spec.name, len(jobs),
                 len(done), len(todo), cluster or f"{workers} worker(s)")
        played = failed = faults = twice = 0
        if todo:
            store.set_status(run_id, "running")
            settings = spec.table_settings(store.secret(run_id, secret))
            entrants = tuple(spec.entrants)
            logs = BotLogs(bot_log_dir(db, run_id), [e.name for e in spec.entrants],
                           spec.limits().log_bytes)
            bar = _bar(progress, len(jobs), len(done), spec.name)
            heart = _Heartbeat(db, run_id, owner, ttl)
            try:
                with contextlib.ExitStack() as stack:
                    if keep is not None:
                        ex = keep.executor(settings)
                    else:
                        ex = stack.enter_context(executor_for(settings, min(workers, len(todo)), cluster or "", pin))
                    for out in play_jobs((JobItem(job, entrants) for job in todo), settings, ex):
                        if isinstance(out, Played):
                            res = out.result
                            logs.keep(res)
                            if store.add_result(run_id, by_key[res.key], res):
                                played += 1
                                faults += len(res.faults)
                                if report is not None:
                                    report(run_id, by_key[res.key], res, len(done) + played)
                            else:
                                twice += 1
                        else:
                            failed += 1
                            log.warning("job %s was not played: %s (run the command again to retry)",
                                        out.item.job.key, out.reason)
                        if bar is not None:
                            bar.update(1)
            except BaseException:           # Ctrl-C, an unreachable cluster, ...: results so far stay
                store.set_status(run_id, "interrupted")
                if keep is not None:
                    keep.close()            # workers in an unknown state are not kept
                raise
            finally:
                heart.stop()
                if keep is None:
                    close_pool()
                if bar is not None:
                    bar.close()
                store.release(run_id, owner)
        complete = len(store.done_keys(run_id)) == len(jobs)
        others = store.leased_elsewhere(run_id, owner)
        store.set_status(run_id, "complete" if complete else "running" if others else "interrupted")
    return RunSummary(run_id, resumed, len(jobs), len(done), played, failed, faults,
                      time.perf_counter() - start, others, twice)


#: How long a runner's claim on its jobs lasts without renewal (seconds);
#: it renews every third of that while it runs.
LEASE_SECONDS = 90.0


def lease_seconds() -> float:
    """How long a runner's claim on its jobs lasts without renewal:
    :data:`LEASE_SECONDS`, or ``PENGYOU_LEASE_SECONDS`` from the environment
    (soak tests shorten it to make the heartbeat beat often)."""
    text = os.environ.get("PENGYOU_LEASE_SECONDS", "").strip()
    if not text:
        return LEASE_SECONDS
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.03 <= value <= 86400:
        raise ArenaError(f"PENGYOU_LEASE_SECONDS={text!r}: expected seconds from 0.03 to 86400")
    return value


class _Heartbeat:
    """Renews a runner's leases from a thread of its own while jobs are
    played, so a long job keeps its claim: every third of the lease, through
    one connection the thread opens once and keeps for the run."""

    def __init__(self, db: str, run_id: int, owner: Owner, ttl: float) -> None:
        import threading

        self._stop = threading.Event()
        self._args = (db, run_id, owner, ttl)
        self._thread = threading.Thread(target=self._run, name="lease-heartbeat", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        db, run_id, owner, ttl = self._args
        store: Optional[Store] = None
        try:
            while not self._stop.wait(ttl / 3):
                try:
                    if store is None:
                        store = Store(db, create=False, quick_check=False)
                    store.renew(run_id, owner, ttl)
                except ArenaError as exc:       # a locked or full disk: try again next beat
                    log.warning("could not renew the run's job leases: %s", exc)
        finally:
            if store is not None:
                store.close()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


def _bar(show: bool, total: int, initial: int, name: str) -> Any:
    if not show:
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, desc=name, unit="job", dynamic_ncols=True)
