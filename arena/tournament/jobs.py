"""The one loop over jobs: every mode plays its jobs through :func:`play_jobs`.

A run, a ladder round, a duel, a tuning batch and a sequential test's batch
hand a stream of :class:`JobItem` (a job, its entrants, and a tag of the
caller's) to workers that hold one :class:`~arena.table.settings.TableSettings`
(given once, when each worker starts: :func:`executor_for`). Whatever the
executor (forked local workers, a Dask cluster, or inline), the loop yields
one :class:`Played` or :class:`Failed` per item, in the order they finish,
and treats a lost worker the same way everywhere: each job that was in
flight is played again alone in a forked process, where a bot call that ends
the process too becomes that bot's ``died`` fault (:func:`play_alone`).

>>> from core.rules import Rules
>>> from arena.table.settings import TableSettings
>>> from arena.types import Entrant, Job
>>> settings = TableSettings(Rules.preset("pagat", players=5), trusted="builtins")
>>> pair = (Entrant("rnd", "random"), Entrant("heu", "heuristic"))
>>> items = [JobItem(Job(r, f"g0-r{r}", 0, 7, 0, r, tuple((s + r) % 2 for s in range(5))), pair, r)
...          for r in range(2)]
>>> with executor_for(settings, workers=1) as ex:
...     done = sorted(play_jobs(items, settings, ex), key=lambda out: out.item.tag)
>>> [(type(out).__name__, out.item.tag, len(out.result.deals)) for out in done]
[('Played', 0, 1), ('Played', 1, 1)]
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import socket
import time
import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Optional, Union

from ..table.entrants import BotRef
from ..table.remote import check_startable
from ..table.settings import TableSettings
from ..table.table import CALL_METHODS, play_job, watch_calls
from ..types import ArenaError, Entrant, Job, JobResult
from .carry import Carried, Parcel, carry, identity, unpack
from .executors import Executor, Lost, run_forked
from .workers import make_executor

__all__ = ["JobItem", "Played", "Failed", "Infra", "Outcome", "WorkerOutcome", "Cargo", "start_worker", "play_item", "play_carried",
           "executor_for", "play_jobs", "play_alone", "machine_name", "MAX_DEATHS", "MAX_MOVES"]

log = logging.getLogger("pengyou.arena")


@dataclass(frozen=True)
class JobItem:
    """One job to play: the job, the entrants its seats index, and ``tag``,
    anything the caller needs back with the result (a group id, a side)."""

    job: Job
    entrants: tuple[Entrant, ...]
    tag: Any = None


@dataclass(frozen=True)
class Played:
    """A job played through: its item and result."""

    item: JobItem
    result: JobResult


@dataclass(frozen=True)
class Failed:
    """A job that could not be played for a reason outside any bot (an
    engine error, a process that ended outside any bot call): nothing of it
    is stored, so the caller may play it again later."""

    item: JobItem
    reason: str


@dataclass(frozen=True)
class Infra:
    """A job a machine could not play for a reason of the machine's (its
    sandbox does not start, it runs another pengyou, a bot's files did not
    arrive whole): never a bot's fault, never stored; :func:`play_jobs`
    moves the job to another machine, or stops the run saying why."""

    item: JobItem
    machine: str
    reason: str


#: What :func:`play_jobs` yields for each item.
Outcome = Union[Played, Failed]

#: What a worker gives back for each item: an outcome, or :class:`Infra`
#: (which :func:`play_jobs` handles and never yields).
WorkerOutcome = Union[Played, Failed, Infra]


@dataclass(frozen=True)
class Cargo:
    """What every job of one call takes to a worker of a cluster: the
    table settings, the client's :func:`~arena.tournament.carry.identity`,
    and the bots' code (:class:`~arena.tournament.carry.Carried` by spec,
    parcels by digest). Sent once to each worker."""

    settings: TableSettings
    identity: tuple[str, str]
    carried: dict[str, Carried]
    parcels: dict[str, Parcel]

    @staticmethod
    def of(items: list[JobItem], settings: TableSettings) -> Cargo:
        """The cargo of ``items``; a bot whose files cannot be read raises
        :class:`~arena.types.ArenaError` (one line)."""
        carried: dict[str, Carried] = {}
        parcels: dict[str, Parcel] = {}
        for item in items:
            for e in item.entrants:
                if e.spec in carried:
                    continue
                try:
                    c, parcel = carry(e.spec)
                except (OSError, ValueError) as exc:
                    raise ArenaError(f"bot {e.spec!r} cannot be sent to the workers: {exc}") from None
                carried[e.spec] = c
                if parcel is not None:
                    parcels[parcel.digest] = parcel
        return Cargo(settings, identity(), carried, parcels)

#: The settings of this worker's tables, given once when it starts.
_settings: Optional[TableSettings] = None


def start_worker(settings: TableSettings) -> None:
    """Give this worker process the settings of every table it will play."""
    global _settings
    _settings = settings


def play_item(item: JobItem, died: Optional[dict[int, str]] = None) -> WorkerOutcome:
    """In a worker: play one item under the worker's settings."""
    settings = _settings
    if settings is None:
        return Failed(item, "this worker was started without table settings")
    why = _sandbox_problem(item.entrants, settings)
    if why:
        return Infra(item, machine_name(), why)
    start = time.perf_counter()
    try:
        res = play_job(item.job, item.entrants, settings, died=died)
    except Exception as exc:          # an engine error, not a bot's: keep the run going
        log.error("job %s failed in pid %d: %s", item.job.key, os.getpid(),
                  traceback.format_exception_only(type(exc), exc)[-1].strip())
        return Failed(item, f"{type(exc).__name__}: {exc}")
    log.info("job %s done in pid %d: %.2f s, %d fault(s)", item.job.key, os.getpid(),
             time.perf_counter() - start, len(res.faults))
    return Played(item, res)


def machine_name() -> str:
    """This worker: its Dask address, or the host's name and this process."""
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return f"{socket.gethostname()} pid {os.getpid()}"


def _threads() -> int:
    try:
        from distributed import get_worker

        return int(get_worker().state.nthreads)
    except (ImportError, ValueError, AttributeError):
        return 1


#: Whether this process has started a sandboxed bot once (its sandbox works).
_sandbox_works = False
#: The parcels unpacked here: digest -> folder.
_unpacked: dict[str, str] = {}
#: Local specs whose code hash has been checked against the client's.
_hash_checked: set[str] = set()


def _sandbox_problem(entrants: tuple[Entrant, ...], settings: TableSettings) -> Optional[str]:
    """Why this machine cannot start sandboxed bots, if a job's seats need
    them and it cannot: a built-in started once in the sandbox (a bot of
    the user's that fails to start afterwards is that bot's fault)."""
    global _sandbox_works
    if _sandbox_works or all(BotRef.parse(e.spec).runs_here(settings.trusted) for e in entrants):
        return None
    why = check_startable(BotRef.parse("random"), settings.limits)
    if why is not None:
        return f"its sandbox cannot start a bot ({why.split(': ', 1)[-1]})"
    _sandbox_works = True
    return None


def _local_entrants(item: JobItem, cargo: Cargo) -> tuple[Optional[tuple[Entrant, ...]], str]:
    """The item's entrants with their specs rewritten to the parcels
    unpacked here, or why not."""
    out = []
    for e in item.entrants:
        c = cargo.carried.get(e.spec)
        if c is None or not c.parcel:
            out.append(e)
            continue
        if c.parcel not in _unpacked:
            try:
                _unpacked[c.parcel] = unpack(cargo.parcels[c.parcel])
            except (OSError, ValueError, KeyError) as exc:
                return None, f"bot {e.spec!r}: its files could not be unpacked here ({exc})"
        spec = c.local_spec(_unpacked[c.parcel])
        if spec not in _hash_checked:
            here = BotRef.parse(spec).code_hash()
            if here != c.code_hash:
                return None, (f"bot {e.spec!r}: its code hashes to {here[:12]} here, not {c.code_hash[:12]} "
                              "(a program of the machine's differs, or its files)")
            _hash_checked.add(spec)
        out.append(Entrant(e.name, spec))
    return tuple(out), ""


def play_carried(item: JobItem, cargo: Cargo) -> WorkerOutcome:
    """On a worker of a cluster: check this worker against the client's
    ``cargo`` (the same pengyou, the bots' files unpacked and hashing as
    the client's), then play ``item`` with the bots as unpacked here
    (:func:`play_item` checks the sandbox). A check that fails gives
    :class:`Infra`, always naming the client's item."""
    threads = _threads()
    if threads > 1:
        return Infra(item, machine_name(), f"it runs {threads} threads in one process; start Dask workers "
                     "with --nthreads 1 (and --nworkers N for N at a time): a process keeps one sandbox")
    mine = identity()
    if mine != cargo.identity:
        return Infra(item, machine_name(), f"it runs pengyou {mine[0]} (code {mine[1][:12]}), "
                     f"the client {cargo.identity[0]} (code {cargo.identity[1][:12]})")
    entrants, why = _local_entrants(item, cargo)
    if entrants is None:
        return Infra(item, machine_name(), why)
    if _settings is not cargo.settings:
        start_worker(cargo.settings)
    out = play_item(JobItem(item.job, entrants, item.tag))
    if isinstance(out, Played):
        return Played(item, out.result)
    if isinstance(out, Failed):
        return Failed(item, out.reason)
    return Infra(item, out.machine, out.reason)      # the client's item, not the rewritten one


def executor_for(settings: TableSettings, workers: int = 1, cluster: str = "", pin: bool = False) -> Executor:
    """Workers (``workers`` local processes, or a Dask ``cluster``) that
    each hold ``settings``, for :func:`play_jobs`. Use it as a context
    manager, or close it."""
    return make_executor(workers, cluster, start_worker, (settings,), pin)


#: How many machines one job may be moved to before the run stops.
MAX_MOVES = 3


def _deal(item: JobItem) -> Any:
    return item.job.seed


def play_jobs(items: Iterable[JobItem], settings: TableSettings, executor: Executor) -> Iterator[Outcome]:
    """Play ``items`` on ``executor`` (made by :func:`executor_for` with the
    same ``settings``): one :class:`Played` or :class:`Failed` per item, as
    they finish. The jobs of one deal (one seed) go to one worker together
    and are played one after another. The jobs of a worker that died are played again alone
    (:func:`play_alone`). On a cluster the bots' code travels with the jobs
    (:class:`Cargo`); a job a machine could not play (:class:`Infra`) goes
    to another machine, at most :data:`MAX_MOVES` times, and when no
    machine is left the run stops with one line naming each and why
    (:class:`~arena.types.ArenaError`)."""
    # every job of one deal in a row, so one worker plays them one after
    # another: two rotations of a deal never run at the same time
    todo = sorted(items, key=_deal)
    remote = getattr(executor, "remote", False)
    cargo = Cargo.of(todo, settings) if remote else None
    bad: dict[str, str] = {}
    for _ in range(MAX_MOVES + 1):
        again: list[JobItem] = []
        outs = (executor.imap_unordered(play_carried, todo, shared=cargo, group=_deal, avoid=bad) if remote
                else executor.imap_unordered(play_item, todo, group=_deal))
        for out in outs:
            if isinstance(out, Lost):
                log.warning("%s with %d job(s) in flight; playing them again one by one",
                            out.reason, len(out.items))
                for item in out.items:
                    alone = play_alone(item, settings)
                    if isinstance(alone, Infra):
                        raise ArenaError(f"this machine cannot play the jobs: {alone.reason}")
                    yield alone
            elif isinstance(out, Infra):
                if not remote:
                    raise ArenaError(f"this machine cannot play the jobs: {out.reason}")
                if out.machine not in bad:
                    bad[out.machine] = out.reason
                    log.warning("worker %s refused: %s; its jobs go to other workers", out.machine, out.reason)
                again.append(out.item)
            else:
                yield out
        if not again:
            return
        machines: list[str] = getattr(executor, "machines", lambda: [])()
        if not [m for m in machines if m not in bad]:
            break
        todo = again
    raise ArenaError("no worker can play the jobs: " + "; ".join(f"{m}: {why}" for m, why in bad.items()))


#: How many times one job's bots may end its process before the job is given up.
MAX_DEATHS = 8


def _alone(item: JobItem, settings: TableSettings, died: dict[int, str], cells: Any) -> WorkerOutcome:
    """In a process of its own: play ``item``, publishing each bot call to ``cells``."""
    start_worker(settings)
    watch_calls(cells)
    return play_item(item, died)


def play_alone(item: JobItem, settings: TableSettings) -> WorkerOutcome:
    """Play a job whose worker process died, in a forked process of its own.

    If a bot's call ends that process too, the call (its index in the job,
    its seat and method, published before it was made) becomes a ``died``
    fault planned at that call, and the job is played again: the fallback
    takes over the seat from there, as after any other fault. A process that
    ends outside any bot call, or :data:`MAX_DEATHS` deaths, give the job up
    (:class:`Failed`: nothing stored, the caller may retry it).
    """
    died: dict[int, str] = {}
    key = item.job.key
    for _ in range(MAX_DEATHS):
        cells = mp.get_context("fork").RawArray("q", [-1, -1, -1])
        answered, value, how = run_forked(_alone, item, settings, died, cells)
        if answered:
            return value                 # type: ignore[no-any-return]
        index, seat, method = cells[0], cells[1], cells[2]
        if index < 0 or index in died:
            return Failed(item, f"its process ended ({how}) outside any bot call")
        what = CALL_METHODS[method] if 0 <= method < len(CALL_METHODS) else "a call"
        died[index] = f"{what}() ended the process ({how})"
        log.warning("job %s: the bot in seat %d ended its process in %s() (%s); playing the job again "
                    "with the fallback in that seat from there", key, seat, what, how)
    return Failed(item, f"its bots ended its process {MAX_DEATHS} times")
