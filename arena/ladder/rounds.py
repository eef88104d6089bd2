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

The ratings are refitted from every game of the ladder (:func:`fit`: the
arena's maximum-likelihood Elo with its maker-side term, and 95 % bootstrap
intervals over the duplicate groups) after the first round, then after any
round when the last refit took at most a tenth of the time since it, and at
the end of the run; each refit is kept, so each entrant has a rating
history. Between refits the matchmaking reads each entrant's deals from the
games themselves. The runner holds one connection to the store for the run
and reads each game once (:class:`GameCache`), so a round's cost does not
grow with the games already played, only the refit's does, and that is
held to its share of the time.
"""

from __future__ import annotations

import logging
import math
import os
import random
import time

import numpy as np
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from ..tournament.jobs import Failed, JobItem, executor_for, play_jobs
from ..tournament.schedule import lineups, period
from ..store import Owner
from ..types import ArenaError, FAULT_KINDS, Job, JobResult
from ..stats.deals import DealTable, concat, first_seats, table_of
from .folder import Ladder
from .store import EntrantRow, GameRow, GroupRow, LadderStore

if TYPE_CHECKING:
    from ..stats.ratings import EloFit, Standings

#: Bootstrap samples of the ladder's intervals: what the runner keeps by
#: default, and what `ladder standings` and `report --ladder` fit with.
SAMPLES = 200

__all__ = ["LadderSummary", "LadderFit", "GameCache", "Refitter", "run_ladder", "fit", "ratings", "pick_pairs",
           "may_meet", "RatingRow",
           "Meetings", "schedule_round", "TableCache", "SAMPLES"]

log = logging.getLogger("pengyou.ladder")

#: How long the runner's claim on its ladder lasts without renewal (seconds).
CLAIM_SECONDS = 60.0

#: Tries of a group whose games cannot be played (a worker lost, an engine
#: error) before it is given up.
ABANDON_AFTER = 3


@dataclass(frozen=True)
class RatingRow:
    """One entrant version's rating in the ladder."""

    id: int
    label: str
    name: str
    version: int
    owner: str
    elo: float
    lo: float
    hi: float
    deals: int
    provisional: bool
    retired: bool
    faults: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form (non-finite numbers as None)."""
        def num(x: float) -> Optional[float]:
            return round(x, 2) if math.isfinite(x) else None

        return {"id": self.id, "label": self.label, "name": self.name, "version": self.version,
                "owner": self.owner, "elo": num(self.elo), "lo": num(self.lo), "hi": num(self.hi),
                "deals": self.deals, "provisional": self.provisional, "retired": self.retired,
                "faults": dict(self.faults)}

    @classmethod
    def from_json(cls, r: dict[str, Any]) -> RatingRow:
        """Inverse of :meth:`to_json` (a missing bound is unbounded, a missing Elo unrated)."""
        def num(x: Any, none: float) -> float:
            return none if x is None else float(x)

        return cls(int(r["id"]), str(r["label"]), str(r["name"]), int(r["version"]), str(r["owner"]),
                   num(r["elo"], math.nan), num(r["lo"], -math.inf), num(r["hi"], math.inf), int(r["deals"]),
                   bool(r["provisional"]), bool(r["retired"]), dict(r["faults"]))


def _global_results(games: Sequence[Any], index: dict[int, int]) -> list[JobResult]:
    """The games as results over the ladder's entrant positions ``index``
    (entrant id -> position), keyed ``game<ID>`` by their game ids, each
    game's group its own duplicate group."""
    from dataclasses import replace

    from ..types import Fault

    out = []
    for g in games:
        pair = g.pair
        m = [index[pair[0]], index[pair[1]]]
        res: JobResult = g.result
        deals = tuple(replace(d, seats=tuple(m[e] for e in d.seats)) for d in res.deals)
        faults = tuple(Fault(f.seat, m[f.entrant] if 0 <= f.entrant < 2 else -1, f.kind, f.message, f.decision)
                       for f in res.faults)
        out.append(replace(res, key=f"game{g.id}", group=g.group_id,
                           seats=tuple(m[e] for e in res.seats), deals=deals, faults=faults))
    return out


@dataclass(frozen=True)
class LadderFit:
    """Every game of a ladder fitted at once: what the leaderboard and the
    ladder's report read (:func:`fit`)."""

    entrants: list[EntrantRow]      #: every version, in the order of the results' entrant indices
    results: list[JobResult]        #: every game over those indices, keyed ``game<ID>``
    game_ids: dict[str, int]        #: a result's key -> its game id in the store
    standings: Standings            #: the arena's fit of ``results``
    rows: list[RatingRow]           #: the ratings, best first (unrated last)


class GameCache:
    """The ladder's games as results over its entrant versions, each read and
    converted once: a process that fits again and again (the runner after its
    rounds) reads only the games written since its last fit."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._index: dict[int, int] = {}
        self._games: list[GameRow] = []
        self._results: list[JobResult] = []
        self._last = 0

    def read(self, st: LadderStore) -> tuple[list[EntrantRow], list[GameRow], list[JobResult]]:
        """(entrants, games, results) as the store ``st`` holds them now."""
        rows = st.entrants()
        index = {r.id: k for k, r in enumerate(rows)}
        if any(index.get(i) != k for i, k in self._index.items()):     # versions are only ever added
            self._reset()
        new = st.games_after(self._last)
        self._games.extend(new)
        self._results.extend(_global_results(new, index))
        if new:
            self._last = new[-1].id
        self._index = index
        return rows, list(self._games), list(self._results)


def fit(ladder: Ladder, samples: int = SAMPLES, seed: int = 0, cache: Optional[GameCache] = None,
        store: Optional[LadderStore] = None) -> LadderFit:
    """Fit every entrant version from all the ladder's games: the arena's
    maximum-likelihood Elo with its maker-side term, 95 % bootstrap intervals
    over the duplicate groups (``samples`` resamples, drawn from ``seed``).
    ``cache`` keeps the games read between calls; ``store``, an open store
    to read them from."""
    from ..stats.ratings import standings
    from ..types import Entrant

    cache = cache or GameCache()
    if store is None:
        with ladder.store(read_only=True) as st:
            rows, games, results = cache.read(st)
    else:
        rows, games, results = cache.read(store)
    table = standings(results, [Entrant(r.label, r.spec) for r in rows], samples=samples, seed=seed)
    by_index = {row.index: row for row in table.rows}
    out = []
    for k, r in enumerate(rows):
        row = by_index[k]
        faults = {kind: int(row.faults.get(kind, 0)) for kind in FAULT_KINDS}
        out.append(RatingRow(r.id, r.label, r.name, r.version, r.owner,
                             row.elo if row.rated else math.nan, row.elo_lo, row.elo_hi, row.deals,
                             row.deals < ladder.rules.provisional, r.retired is not None, faults))
    out.sort(key=lambda x: (math.isnan(x.elo), -x.elo if not math.isnan(x.elo) else 0.0, x.id))
    game_ids = {res.key: g.id for res, g in zip(results, games)}
    return LadderFit(rows, results, game_ids, table, out)


def ratings(ladder: Ladder, samples: int = SAMPLES, seed: int = 0) -> tuple[int, list[RatingRow]]:
    """(games, rows): every entrant version rated from all the ladder's
    games, best first (unrated last): the ratings the runner kept when they
    cover every game (the leaderboard's), else a fit now (:func:`fit`,
    the same numbers for the same games)."""
    with ladder.store(read_only=True) as st:
        games, kept = st.latest_ratings()
        now = {(e.id, e.retired is not None) for e in st.entrants()}
        if kept and games == st.count_games() and samples == SAMPLES and seed == 0 and \
                now == {(int(r["id"]), bool(r["retired"])) for r in kept}:
            return games, [RatingRow.from_json(r) for r in kept]
    f = fit(ladder, samples, seed)
    return len(f.results), f.rows


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
                        _keep_ratings(st, refit, rounds_done)
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
                    _keep_ratings(st, refit, rounds_done)   # the kept ratings cover every game
            except (ArenaError, KeyboardInterrupt):
                pass
            sched += time.perf_counter() - t1
            try:
                st.release_runner(owner.id)
            except ArenaError:
                pass
    return LadderSummary(rounds_done, groups_done, played, faults, twice, failed,
                         time.perf_counter() - start, sched)


#: The most of the runner's time that refitting the ratings may take.
REFIT_SHARE = 0.1


class TableCache:
    """The ladder's deals as arrays (:class:`arena.stats.deals.DealTable`),
    read from the store a batch at a time, each game once: the runner's
    refits hold a few numbers a deal, not an object a game."""

    #: Games read and converted at a time.
    BATCH = 20_000

    def __init__(self) -> None:
        self._index: dict[int, int] = {}
        self._table: Optional[DealTable] = None
        self._last = 0
        self.games = 0

    def read(self, st: LadderStore) -> tuple[list[EntrantRow], DealTable]:
        """(entrants, deals over their positions) as ``st`` holds them now."""
        rows = st.entrants()
        index = {r.id: k for k, r in enumerate(rows)}
        if any(index.get(i) != k for i, k in self._index.items()):     # versions are only ever added
            self.__init__()  # type: ignore[misc]
        parts = [] if self._table is None else [self._table]
        while True:
            batch = st.raw_games_after(self._last, self.BATCH)
            if not batch:
                break
            parts.append(_batch_table(batch, index, len(rows), st.path))
            self._last = batch[-1][0]
            self.games += len(batch)
        self._table = concat(parts, len(rows))
        self._index = index
        return rows, self._table


def _batch_table(batch: Sequence[tuple[int, int, int, int, str]], index: dict[int, int], n: int,
                 path: str) -> DealTable:
    """Stored games as a deal table over the entrants' positions ``index``
    (each game's group its duplicate group, as :func:`fit` reads them)."""
    import json

    cols: tuple[list[Any], ...] = ([], [], [], [], [], [], [], [], [])
    seats, sides, margins, points, won, group, maker, forfeit, keys = cols
    for gid, group_id, a, b, text in batch:
        try:
            obj = json.loads(text)
            m = (index[a], index[b])
            for d in obj["deals"]:
                seats.append(tuple(m[e] for e in (d["seats"] or obj["seats"])))
                sides.append(tuple(d["maker_side"]))
                margins.append(tuple(d["margins"]))
                points.append(tuple(d["game_points"]))
                won.append(bool(d["maker_won"]))
                maker.append(int(d["maker"]))
                forfeit.append(int(d.get("forfeit", -1)))
                group.append(group_id)
                keys.append(f"game{gid}")
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise ArenaError(f"{path} is damaged (game {gid}: {type(exc).__name__}); "
                             "it was left as it is: restore a copy") from None
    return table_of(seats, sides, margins, points, won, group, maker, forfeit, keys, n)


class Refitter:
    """One ladder's refits, for the runner after its rounds: the games are
    read once each (:class:`TableCache`), each fit starts from the last one,
    and a refit is :meth:`due` only once the last one took at most
    :data:`REFIT_SHARE` of the time since it. The intervals are always
    drawn from seed 0, so the same games give the same numbers wherever
    they are shown."""

    def __init__(self, ladder: Ladder, samples: int = SAMPLES) -> None:
        self.ladder = ladder
        self.samples = samples
        self.cache = TableCache()
        self.cost = 0.0
        self.at: Optional[float] = None      #: when the last refit ended (None: none yet)
        self.games = -1                      #: the games the last refit saw
        self.last: Optional[EloFit] = None   #: the last fit, where the next one starts

    def due(self) -> bool:
        """Whether refitting now keeps refits within their share of the time."""
        return self.at is None or time.perf_counter() - self.at >= self.cost / REFIT_SHARE

    def fit(self, st: LadderStore) -> tuple[int, list[RatingRow]]:
        """(games, rows): refit from the store ``st`` now, timed; the rows
        are :func:`fit`'s for the same games."""
        from ..stats.ratings import rate

        t = time.perf_counter()
        rows, table = self.cache.read(st)
        elo_fit, boot = rate(table, self.samples, 0, start=self.last)
        deals = np.bincount(table.seats[first_seats(table.seats)], minlength=len(rows))
        counts = st.fault_counts()
        out = []
        for k, r in enumerate(rows):
            faults = {kind: int(counts.get(r.id, {}).get(kind, 0)) for kind in FAULT_KINDS}
            lo, hi = boot.ratings[k]
            out.append(RatingRow(r.id, r.label, r.name, r.version, r.owner,
                                 elo_fit.ratings[k] if elo_fit.rated[k] else math.nan, lo, hi, int(deals[k]),
                                 int(deals[k]) < self.ladder.rules.provisional, r.retired is not None, faults))
        out.sort(key=lambda x: (math.isnan(x.elo), -x.elo if not math.isnan(x.elo) else 0.0, x.id))
        self.last = elo_fit
        self.games = self.cache.games
        self.at = time.perf_counter()
        self.cost = self.at - t
        return self.games, out


def _keep_ratings(st: LadderStore, refit: Refitter, round_no: int) -> None:
    """Refit and keep the ratings (an entrant's rating history)."""
    games, rows = refit.fit(st)
    st.add_ratings(games, [r.to_json() for r in rows])


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
