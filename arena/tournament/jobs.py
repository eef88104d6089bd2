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
import time
import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Optional, Union

from ..table.settings import TableSettings
from ..table.table import CALL_METHODS, play_job, watch_calls
from ..types import Entrant, Job, JobResult
from .executors import Executor, Lost, make_executor, run_forked

__all__ = ["JobItem", "Played", "Failed", "Outcome", "start_worker", "play_item", "executor_for", "play_jobs",
           "play_alone", "MAX_DEATHS"]

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


#: What the loop yields for each item.
Outcome = Union[Played, Failed]

#: The settings of this worker's tables, given once when it starts.
_settings: Optional[TableSettings] = None


def start_worker(settings: TableSettings) -> None:
    """Give this worker process the settings of every table it will play."""
    global _settings
    _settings = settings


def play_item(item: JobItem, died: Optional[dict[int, str]] = None) -> Outcome:
    """In a worker: play one item under the worker's settings."""
    settings = _settings
    if settings is None:
        return Failed(item, "this worker was started without table settings")
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


def executor_for(settings: TableSettings, workers: int = 1, cluster: str = "", pin: bool = False) -> Executor:
    """Workers (``workers`` local processes, or a Dask ``cluster``) that
    each hold ``settings``, for :func:`play_jobs`. Use it as a context
    manager, or close it."""
    return make_executor(workers, cluster, start_worker, (settings,), pin)


def play_jobs(items: Iterable[JobItem], settings: TableSettings, executor: Executor) -> Iterator[Outcome]:
    """Play ``items`` on ``executor`` (made by :func:`executor_for` with the
    same ``settings``): one :class:`Played` or :class:`Failed` per item, as
    they finish. The jobs of a worker that died are played again alone
    (:func:`play_alone`)."""
    for out in executor.imap_unordered(play_item, items):
        if isinstance(out, Lost):
            log.warning("%s with %d job(s) in flight; playing them again one by one",
                        out.reason, len(out.items))
            for item in out.items:
                yield play_alone(item, settings)
        else:
            yield out


#: How many times one job's bots may end its process before the job is given up.
MAX_DEATHS = 8


def _alone(item: JobItem, settings: TableSettings, died: dict[int, str], cells: Any) -> Outcome:
    """In a process of its own: play ``item``, publishing each bot call to ``cells``."""
    start_worker(settings)
    watch_calls(cells)
    return play_item(item, died)


def play_alone(item: JobItem, settings: TableSettings) -> Outcome:
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
