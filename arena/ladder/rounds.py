"""Running a ladder: scheduling rounds of duplicate groups, playing them on
the arena's executors, storing each game once, refitting the ratings.

A round picks line-ups that teach the most (:func:`pick_pairs`): the
entrants with the fewest deals come first (every new submission, as soon as
the round after it is accepted), then those with the widest intervals,
each against an active entrant of a similar rating that it has met least
and never another submission of its own owner (:func:`may_meet`).
Each pair plays a duplicate group: one deal seed with the pair's seating
rotated through every seat (:func:`arena.tournament.schedule.lineups`). The groups of a
round are written before a game is played; each game is written as it
comes back, unique by (group, rotation), and a runner started again first
finishes the groups left open, so a runner killed at any moment (``kill
-9`` included) loses at most the games in flight and counts none twice.

The ratings are refitted from every game of the ladder (:mod:`.fits`)
after the first round, then after any round when the last refit took at
most a tenth of the time since it, and at the end of the run; each refit is
kept, so each entrant has a rating history. Between refits the matchmaking
reads each entrant's deals from the games themselves. The runner holds one
connection to the store for the run and reads each game once, so a round's
cost does not grow with the games already played, only the refit's does,
and that is held to its share of the time.
"""

from __future__ import annotations

import logging
import math
import os
import random
import time

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from ..tournament.jobs import Failed, JobItem, executor_for, play_jobs
from ..tournament.schedule import lineups, period
from ..store import Owner
from ..types import ArenaError, Job, JobResult
from .fits import RatingRow, Refitter, keep_ratings
from .folder import Ladder
from .store import EntrantRow, GroupRow, LadderStore

if TYPE_CHECKING:
    pass

__all__ = ["LadderSummary", "run_ladder", "pick_pairs", "may_meet", "Meetings", "schedule_round"]

log = logging.getLogger("pengyou.ladder")

#: How long the runner's claim on its ladder lasts without renewal (seconds).
CLAIM_SECONDS = 60.0

#: Tries of a group whose games cannot be played (a worker lost, an engine
#: error) before it is given up.
ABANDON_AFTER = 3


def pick_pairs(active: Sequence[EntrantRow], rated: dict[int, RatingRow], met: Mapping[tuple[int, int], int],
               count: int, rng: random.Random, deals: Optional[dict[int, int]] = None) -> list[tuple[int, int]]:
    """``count`` pairs of active entrant ids for the next round.

    The entrant that needs games most goes first: fewest deals, then the
    widest interval; its opponent is the active entrant nearest in rating,
    counting each earlier meeting of the two as 50 Elo further away (so new
    pairings are tried), ties broken at random. ``deals``: each entrant id's
    deals now, when the ratings ``rated`` are older than the last games.
    ``met`` is only asked for pairs of the entrant being matched (``get``),
    so a lazy mapping (:class:`Meetings`) reads one entrant's row at a time.
    Two submissions of one owner (two bots, or two versions of one) never
    share a table (:func:`may_meet`): an entrant whose only possible
    opponents are its owner's waits.
    """
    own: dict[str, int] = {}
    for e in active:
        if e.kind != "builtin":
            own[e.owner] = own.get(e.owner, 0) + 1
    kinds = {e.id: e for e in active}
    ids = [e.id for e in active
           if len(active) - (own[e.owner] if e.kind != "builtin" else 1) > 0]    # someone else to meet
    if not ids:
        return []
    width = {e.id: math.inf for e in active}
    elo = {e.id: 0.0 for e in active}
    for e in active:
        r = rated.get(e.id)
        if r is not None:
            if math.isfinite(r.hi - r.lo):
                width[e.id] = r.hi - r.lo
            if math.isfinite(r.elo):
                elo[e.id] = r.elo
    if deals is not None:
        have = deals
        deals = {e.id: have.get(e.id, 0) for e in active}
    else:
        deals = {e.id: (rated[e.id].deals if e.id in rated else 0) for e in active}
    planned = {e.id: 0 for e in active}
    more: dict[tuple[int, int], int] = {}          # this round's pairings, on top of ``met``
    pairs: list[tuple[int, int]] = []
    for _ in range(count):
        first = min(ids, key=lambda i: (deals[i] + 10 * planned[i], -width[i], rng.random()))

        def distance(j: int, first: int = first) -> tuple[float, float]:
            key = (min(first, j), max(first, j))
            return (abs(elo[j] - elo[first]) + 50.0 * (met.get(key, 0) + more.get(key, 0)) + 25.0 * planned[j],
                    rng.random())

        second = min((j for j in ids if j != first and may_meet(kinds[first], kinds[j])), key=distance)
        key = (min(first, second), max(first, second))
        more[key] = more.get(key, 0) + 1
        planned[first] += 1
        planned[second] += 1
        pairs.append((first, second))
    return pairs


def may_meet(a: EntrantRow, b: EntrantRow) -> bool:
    """Whether two entrant versions may share a table: not when both are
    submissions of one owner (its bots, or versions of one bot), who could
    make them collude; a built-in is the ladder's own code and meets anyone."""
    return a.id != b.id and (a.owner != b.owner or "builtin" in (a.kind, b.kind))


class Meetings(Mapping[tuple[int, int], int]):
    """The games each pair of entrant ids (lower id first) has played, read
    from the store's tallies one entrant at a time as :func:`pick_pairs`
    asks: a round's cost does not grow with the games stored."""

    def __init__(self, st: LadderStore) -> None:
        self._st = st
        self._rows: dict[int, dict[int, int]] = {}

    def __getitem__(self, key: tuple[int, int]) -> int:
        a, b = key
        if a not in self._rows and b not in self._rows:   # both: the next pair shares one of them
            self._rows[a] = self._st.meetings_of(a)
            self._rows[b] = self._st.meetings_of(b)
        n = self._rows[a].get(b) if a in self._rows else self._rows[b].get(a)
        if n is None:
            raise KeyError(key)
        return n

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return iter(sorted({(min(a, b), max(a, b)) for a, row in self._rows.items() for b in row}))

    def __len__(self) -> int:
        return len(list(iter(self)))


def schedule_round(st: LadderStore, players: int, per_round: int, rng: random.Random) -> list[GroupRow]:
    """The groups to play now: those left open, else ``per_round`` new ones
    (:func:`pick_pairs` on the kept ratings and the store's tallies; every
    query here is indexed, so its cost does not grow with the games). Empty
    when fewer than two entrants are active."""
    todo = st.open_groups()
    if todo:
        return todo
    active = st.entrants(active=True)
    _, last_rows = st.latest_ratings()
    rated = {r["id"]: RatingRow.from_json(r) for r in last_rows}
    pairs = pick_pairs(active, rated, Meetings(st), per_round, rng, deals=st.deals_of_entrants())
    if not pairs:
        return []
    return st.add_groups(pairs, period(lineups(2, players, "pairs")[0]), st.rounds() + 1)


@dataclass(frozen=True)
class LadderSummary:
    """What one call of :func:`run_ladder` did."""

    rounds: int
    groups: int
    games: int
    faults: int
    twice: int
    failed: int
    seconds: float
    scheduling_seconds: float


def _jobs_of(group: GroupRow, players: int, played: set[int]) -> list[Job]:
    base = lineups(2, players, "pairs")[0]
    out = []
    for r in range(period(base)):
        if r in played:
            continue
        seats = tuple(base[(s + r) % players] for s in range(players))
        out.append(Job(r, f"g{group.id}-r{r}", group.id, group.seed, 0, r, seats))
    return out


def run_ladder(ladder: Ladder, *, workers: int = 1, cluster: str = "", games: Optional[int] = None,
               rounds: Optional[int] = None, until_stopped: bool = False, groups_per_round: int = 0,
               pin: bool = True, samples: int = 200, on_round: Optional[Callable[[int, int], None]] = None,
               seed: Optional[int] = None) -> LadderSummary:
    """Play the ladder: rounds of duplicate groups until ``games`` new games
    (at least; a round is finished), ``rounds`` rounds, or for ever with
    ``until_stopped`` (Ctrl-C ends it cleanly, and so does SIGTERM under
    the ``pengyou`` command, which turns it into Ctrl-C).

    ``groups_per_round``: groups scheduled a round (default: twice the
    workers); new submissions join at the next round. The ratings are
    refitted after a round when the last refit's time is at most
    :data:`REFIT_SHARE` of the time since it (the first round and the last
    always), and kept; ``on_round(round, games)`` is called after each
    round. Only one runner may run a ladder at a time.
    """
    if games is None and rounds is None and not until_stopped:
        raise ArenaError("say how long to run: --games N, --rounds N or --until-stopped")
    if workers < 1:
        raise ArenaError(f"--workers: {workers} is not at least 1")
    start = time.perf_counter()
    rng = random.Random(seed)
    owner = Owner.me()
    with ladder.store() as st:
        held = st.claim_runner(owner.id, owner.host, owner.pid, CLAIM_SECONDS, owner.alive)
        if held is not None:
            raise ArenaError(f"the ladder {ladder.folder} is being run by process {held[1]} on {held[0]}; "
                             "stop it first")
        secret = st.secret()
    rules = ladder.rules
    settings = rules.table_settings(secret)
    played = rounds_done = groups_done = faults = twice = failed = 0
    sched = 0.0
    from ..table.remote import close_pool

    logs_cache: dict[tuple[int, int], Any] = {}
    refit = Refitter(ladder, samples)
    # one connection for the whole run: opening checks the file, which costs more the more it holds
    with ladder.store() as st:
        try:
            with executor_for(settings, workers, cluster, pin) as ex:
                while True:
                    if games is not None and played >= games:
                        break
                    if rounds is not None and rounds_done >= rounds:
                        break
                    t0 = time.perf_counter()
                    st.claim_runner(owner.id, owner.host, owner.pid, CLAIM_SECONDS, owner.alive)
                    per_round = groups_per_round or max(2, 2 * ex.workers)   # a cluster's size
                    todo = schedule_round(st, rules.players, per_round, rng)
                    if not todo:
                        if until_stopped:
                            time.sleep(1.0)
                            continue
                        active = st.entrants(active=True)
                        if len(active) < 2:
                            raise ArenaError(f"the ladder {ladder.folder} has {len(active)} active entrant(s); "
                                             "it needs at least 2 to play")
                        raise ArenaError(f"the ladder {ladder.folder}: no two of its {len(active)} active entrants "
                                         "may meet (one owner's submissions never share a table)")
                    rows = {e.id: e for e in st.entrants()}
                    items = []
                    for g in todo:
                        pair = (ladder.entrant_of(rows[g.a]), ladder.entrant_of(rows[g.b]))
                        for job in _jobs_of(g, rules.players, st.played_rotations(g.id)):
                            items.append(JobItem(job, pair, g.id))
                    by_id = {g.id: g for g in todo}
                    sched += time.perf_counter() - t0
                    bad: set[int] = set()
                    for out in play_jobs(items, settings, ex):
                        gid, rot = out.item.tag, out.item.job.rotation
                        if isinstance(out, Failed):
                            log.warning("group %d rotation %d was not played: %s", gid, rot, out.reason)
                            bad.add(gid)
                            failed += 1
                            continue
                        res = out.result
                        g = by_id[gid]
                        if st.add_game(g, rot, res):
                            played += 1
                            faults += len(res.faults)
                        else:
                            twice += 1
                        _keep_logs(ladder, st, logs_cache, g, res)
                    t1 = time.perf_counter()
                    for gid in bad:
                        if st.tried(gid, ABANDON_AFTER):
                            log.warning("group %d is given up after %d tries", gid, ABANDON_AFTER)
                    if refit.due():
                        keep_ratings(st, refit, rounds_done)
                    sched += time.perf_counter() - t1
                    groups_done += len(todo)
                    rounds_done += 1
                    if on_round is not None:
                        on_round(rounds_done, played)
        except KeyboardInterrupt:
            log.info("the ladder run was stopped; every game stored so far is kept")
        finally:
            close_pool()
            t1 = time.perf_counter()
            try:
                if refit.at is not None and st.count_games() != refit.games:
                    keep_ratings(st, refit, rounds_done)   # the kept ratings cover every game
            except (ArenaError, KeyboardInterrupt):
                pass
            sched += time.perf_counter() - t1
            try:
                st.release_runner(owner.id)
            except ArenaError:
                pass
    return LadderSummary(rounds_done, groups_done, played, faults, twice, failed,
                         time.perf_counter() - start, sched)



def _keep_logs(ladder: Ladder, st: LadderStore, cache: dict[tuple[int, int], Any], group: GroupRow,
               res: JobResult) -> None:
    """What the game's sandboxed bots wrote to stderr, under ``logs/LABEL/``."""
    if not res.logs:
        return
    from ..tournament.runner import BotLogs

    key = (group.a, group.b)
    logs = cache.get(key)
    if logs is None:
        names = [f"{st.entrant(group.a).label}", f"{st.entrant(group.b).label}"]
        logs = cache[key] = BotLogs(os.path.join(ladder.folder, "logs"), names, ladder.rules.limits().log_bytes)
    logs.keep(res)
