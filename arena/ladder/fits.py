"""A ladder's ratings: every game fitted at once, kept by the runner, read by every surface.

:func:`fit` rates every entrant version from all the ladder's games (the
arena's maximum-likelihood Elo with its maker-side term, and 95 % bootstrap
intervals over the duplicate groups, :data:`SAMPLES` resamples from seed 0).
The runner refits after its rounds (:class:`Refitter`, each game read once,
each fit started from the last) and keeps every refit in the store
(:func:`keep_ratings`): an entrant's rating history. The ratings a page or a
command shows are the last ones kept when they cover every game
(:func:`ratings`, :func:`fit`), so the leaderboard, an entrant's page,
``ladder standings`` (``--json`` too) and ``report --ladder`` give the same
Elo and intervals to the digit.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from ..stats.deals import DealTable, concat, first_seats, table_of
from ..types import ArenaError, FAULT_KINDS, JobResult
from .folder import Ladder
from .store import EntrantRow, GameRow, LadderStore

if TYPE_CHECKING:
    from ..stats.ratings import EloFit, Standings

__all__ = ["SAMPLES", "RatingRow", "LadderFit", "GameCache", "kept_rows", "fit", "ratings", "REFIT_SHARE", "TableCache",
           "Refitter", "keep_ratings"]

#: Bootstrap samples of the ladder's intervals: what the runner keeps by
#: default, and what `ladder standings` and `report --ladder` fit with.
SAMPLES = 200


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


def kept_rows(st: LadderStore) -> Optional[tuple[int, list[RatingRow]]]:
    """(games, rows) the runner kept last, best first, when they cover every
    game of ``st`` and every version as it is now (entered, retired); None
    when they do not (no refit yet, games or versions since)."""
    games, kept = st.latest_ratings()
    now = {(e.id, e.retired is not None) for e in st.entrants()}
    if kept and games == st.count_games() and now == {(int(r["id"]), bool(r["retired"])) for r in kept}:
        return games, [RatingRow.from_json(r) for r in kept]
    return None


def fit(ladder: Ladder, samples: int = SAMPLES, seed: int = 0, cache: Optional[GameCache] = None,
        store: Optional[LadderStore] = None, kept: bool = True) -> LadderFit:
    """Fit every entrant version from all the ladder's games: the arena's
    maximum-likelihood Elo with its maker-side term, 95 % bootstrap intervals
    over the duplicate groups (``samples`` resamples, drawn from ``seed``).
    With the ladder's :data:`SAMPLES` and seed 0, the Elo and intervals are
    those the runner kept (:func:`kept_rows`) when they cover every game,
    so every surface shows one number (``kept=False``: fitted here all the
    same); the rest of the standings (duplicate scores, head-to-head) is
    fitted here. ``cache`` keeps the games read between calls; ``store``,
    an open store to read them from."""
    from ..stats.ratings import standings
    from ..types import Entrant

    cache = cache or GameCache()
    with contextlib.ExitStack() as stack:
        st = store if store is not None else stack.enter_context(ladder.store(read_only=True))
        rows, games, results = cache.read(st)
        last = kept_rows(st) if kept and samples == SAMPLES and seed == 0 else None
    table = standings(results, [Entrant(r.label, r.spec) for r in rows], samples=samples, seed=seed)
    game_ids = {res.key: g.id for res, g in zip(results, games)}
    if last is not None and last[0] == len(results):
        return LadderFit(rows, results, game_ids, _with_kept(table, rows, last[1]), last[1])
    by_index = {row.index: row for row in table.rows}
    out = []
    for k, r in enumerate(rows):
        row = by_index[k]
        faults = {kind: int(row.faults.get(kind, 0)) for kind in FAULT_KINDS}
        out.append(RatingRow(r.id, r.label, r.name, r.version, r.owner,
                             row.elo if row.rated else math.nan, row.elo_lo, row.elo_hi, row.deals,
                             row.deals < ladder.rules.provisional, r.retired is not None, faults))
    out.sort(key=_best_first)
    return LadderFit(rows, results, game_ids, table, out)


def _best_first(r: RatingRow) -> tuple[bool, float, int]:
    return math.isnan(r.elo), -r.elo if not math.isnan(r.elo) else 0.0, r.id


def _with_kept(table: Standings, rows: Sequence[EntrantRow], kept: Sequence[RatingRow]) -> Standings:
    """``table`` with each version's Elo and interval the kept ones, in their order."""
    by_id = {r.id: r for r in kept}
    out = []
    for row in table.rows:
        k = by_id.get(rows[row.index].id)
        if k is not None:
            rated = math.isfinite(k.elo)
            row = dataclasses.replace(row, elo=k.elo if rated else 0.0, elo_lo=k.lo, elo_hi=k.hi, rated=rated)
        out.append(row)
    out.sort(key=lambda r: (not r.rated, -r.elo, r.index))
    return dataclasses.replace(table, rows=tuple(out))


def ratings(ladder: Ladder, samples: int = SAMPLES, seed: int = 0) -> tuple[int, list[RatingRow]]:
    """(games, rows): every entrant version rated from all the ladder's
    games, best first (unrated last): the ratings the runner kept when they
    cover every game (the leaderboard's), else a fit now (:func:`fit`)."""
    if samples == SAMPLES and seed == 0:
        with ladder.store(read_only=True) as st:
            kept = kept_rows(st)
        if kept is not None:
            return kept
    f = fit(ladder, samples, seed)
    return len(f.results), f.rows


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
        out.sort(key=_best_first)
        self.last = elo_fit
        self.games = self.cache.games
        self.at = time.perf_counter()
        self.cost = self.at - t
        return self.games, out


def keep_ratings(st: LadderStore, refit: Refitter, round_no: int) -> None:
    """Refit and keep the ratings (an entrant's rating history)."""
    games, rows = refit.fit(st)
    st.add_ratings(games, [r.to_json() for r in rows])
