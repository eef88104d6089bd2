"""Ratings and standings from tournament results.

Each deal splits its seats into the maker's side (``maker_side``) and the
opponents. From a sequence of :class:`~arena.types.JobResult` this module
computes:

* :func:`fit_elo`: Elo ratings fitted by maximum likelihood to which side
  won each deal. A side's strength is the mean rating of the entrants in its
  seats (an entrant holding two seats of a side counts twice), and the maker
  side gets a fitted edge ``h``::

      P(maker side wins) = 1 / (1 + 10 ** (-(S_maker - S_opponents + h) / 400))

  Ratings have mean 0 over the entrants that played.
* :func:`bootstrap_elo`: percentile intervals for the ratings and the edge,
  resampling duplicate deal groups (all jobs of a group together).
* :func:`duplicate_scores`: card margins against the par of the same cards
  in the same seat, averaged over groups, with a 95 % normal interval.
* :func:`seat_stats`: deals, seats, raw card margin and game points.
* :func:`cross_table`: head-to-head margins and win rates.
* :func:`standings`: all of the above per entrant (put into text by
  :mod:`arena.render.standings`).

Two entrants in a four-seat game, always partners of themselves: when A's
side makes, it wins 3 deals of 4; when B's side makes, it wins 1 of 4. So A
is stronger, and the maker seat gives no edge. Plain maximum likelihood
gives A ``ln(3) / (2 ln(10) / 400)`` = 95.4 Elo; the default weak prior
pulls that in by about one percent on so few deals:

>>> from arena.types import DealOutcome, Entrant, JobResult
>>> def deal(maker_side, won):
...     sign = [1 if s in maker_side else -1 for s in range(4)]
...     m = 60.0 if won else -60.0
...     return DealOutcome(seats=(0, 1, 0, 1), maker=maker_side[0], maker_side=maker_side,
...                        opponents_points=70 if won else 130, total_points=200,
...                        maker_won=won, game_points=tuple(x * (1 if won else -1) for x in sign),
...                        margins=tuple(x * m for x in sign))
>>> a_makes = (deal((0, 2), True),) * 3 + (deal((0, 2), False),)
>>> b_makes = (deal((1, 3), True),) + (deal((1, 3), False),) * 3
>>> results = [JobResult("g0", 0, (0, 1, 0, 1), a_makes), JobResult("g1", 1, (0, 1, 0, 1), b_makes)]
>>> exact = fit_elo(results, 2, prior=None)
>>> [round(r, 1) for r in exact.ratings], round(exact.maker_edge, 1), exact.deals, exact.converged
([95.4, -95.4], 0.0, 8, True)
>>> [round(r, 1) for r in fit_elo(results, 2).ratings]
[94.5, -94.5]
>>> st = standings(results, [Entrant("A", "heuristic"), Entrant("B", "random")], samples=50)
>>> [row.name for row in st.rows], st.deals, st.groups
(['A', 'B'], 8, 2)
>>> st.rows[0].faults
{'crash': 0, 'timeout': 0, 'illegal': 0, 'died': 0, 'protocol': 0, 'memory': 0, 'stall': 0}
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..types import FAULT_KINDS, ArenaError, Entrant, JobResult, ResultColumns
from . import elo
from .deals import DealTable, deal_table, distinct, first_seats

__all__ = [
    "PRIOR_SD", "Interval", "EloFit", "EloIntervals", "SeatStats", "CrossCell", "Row", "Standings",
    "fit_elo", "bootstrap_elo", "duplicate_scores", "seat_stats", "cross_table", "standings",
    "ROLES", "RoleMargins", "role_margins", "rate",
]


def _num(x: float) -> float | None:
    """A finite number as a float; None for nan or infinity (JSON has neither)."""
    return float(x) if math.isfinite(x) else None


def _back(x: Any, none: float) -> float:
    """A number of the JSON form back: ``none`` (NaN or an infinity) for None."""
    return none if x is None else float(x)

#: Standard deviation, in Elo, of the Gaussian prior on every rating and on
#: the maker-side edge. It only keeps separable data (an entrant that always
#: wins) finite; against a few dozen deals it moves estimates by well under
#: one Elo. ``None`` turns it off (plain maximum likelihood).
PRIOR_SD = 1000.0

_Z95 = 1.96
_INF = math.inf


# ------------------------------------------------------------------ values
@dataclass(frozen=True)
class Interval:
    """A mean with a 95 % normal interval over ``n`` values.

    ``lo``/``hi`` are infinite when ``n < 2``; ``mean`` is NaN when ``n == 0``.
    """

    mean: float
    lo: float
    hi: float
    n: int

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form; non-finite numbers become ``None``."""
        return {"mean": _num(self.mean), "lo": _num(self.lo), "hi": _num(self.hi), "n": self.n}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Interval:
        """Inverse of :meth:`to_json`."""
        return cls(_back(d["mean"], math.nan), _back(d["lo"], -_INF), _back(d["hi"], _INF), int(d["n"]))


@dataclass(frozen=True)
class EloFit:
    """Fitted ratings (Elo, mean 0 over rated entrants) and maker-side edge.

    ``rated[e]`` is False for an entrant that sat in none of the deals used;
    its rating is 0. ``deals`` counts the deals used (deals with both sides
    seated). ``converged`` is False when Newton's method ran out of
    iterations, as it does on separable data without a prior.
    """

    ratings: tuple[float, ...]
    rated: tuple[bool, ...]
    maker_edge: float
    deals: int
    converged: bool


@dataclass(frozen=True)
class EloIntervals:
    """Bootstrap percentile intervals ``(lo, hi)`` per entrant and for the edge.

    Intervals are ``(-inf, inf)`` for unrated entrants and when there are
    fewer than two deal groups to resample.
    """

    ratings: tuple[tuple[float, float], ...]
    maker_edge: tuple[float, float]
    samples: int
    level: float


@dataclass(frozen=True)
class SeatStats:
    """One entrant's raw results, averaged over the seats it held.

    ``deals`` counts deals where it held at least one seat, ``seats`` the
    (deal, seat) pairs; ``margin`` and ``game_points`` are means over those
    pairs (NaN when ``seats == 0``).
    """

    deals: int
    seats: int
    margin: float
    game_points: float


@dataclass(frozen=True)
class CrossCell:
    """Entrant ``i`` against entrant ``j`` on opposite sides.

    ``n`` counts (seat of i, seat of j) pairs on opposite sides, over all
    deals; ``margin`` is the mean card margin of i's side and ``win_rate``
    the share of those pairs where i's side won (both NaN when ``n == 0``).
    """

    n: int
    margin: float
    win_rate: float


@dataclass(frozen=True)
class Row:
    """One entrant's line of the standings."""

    index: int
    name: str
    spec: str
    elo: float
    elo_lo: float
    elo_hi: float
    rated: bool
    deals: int
    seats: int
    dup: Interval
    margin: float
    game_points: float
    faults: Mapping[str, int]
    matches: int = 0          # seats it held in whole matches (match mode)
    match_wins: int = 0       # of those, seats among the match's winners

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form; non-finite numbers become ``None``."""
        return {
            "index": self.index, "name": self.name, "spec": self.spec, "elo": _num(self.elo),
            "elo_lo": _num(self.elo_lo), "elo_hi": _num(self.elo_hi), "rated": self.rated,
            "deals": self.deals, "seats": self.seats, "dup": self.dup.to_json(),
            "margin": _num(self.margin), "game_points": _num(self.game_points),
            "faults": dict(self.faults), "matches": self.matches, "match_wins": self.match_wins,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Row:
        """Inverse of :meth:`to_json` (its ``rank`` is ignored)."""
        return cls(int(d["index"]), str(d["name"]), str(d["spec"]), _back(d["elo"], math.nan),
                   _back(d["elo_lo"], -_INF), _back(d["elo_hi"], _INF), bool(d["rated"]), int(d["deals"]),
                   int(d["seats"]), Interval.from_json(d["dup"]), _back(d["margin"], math.nan),
                   _back(d["game_points"], math.nan), {str(k): int(v) for k, v in d["faults"].items()},
                   int(d["matches"]), int(d["match_wins"]))


@dataclass(frozen=True)
class Standings:
    """The standings of a tournament: rows sorted by Elo, best first.

    Entrants that played no deal come last. ``cross[(i, j)]`` (entrant
    indices) is the head-to-head of ``i`` against ``j``. ``deals`` counts all
    deal outcomes, ``rated_deals`` those used by the Elo fit.
    """

    rows: tuple[Row, ...]
    maker_edge: float
    maker_edge_lo: float
    maker_edge_hi: float
    cross: Mapping[tuple[int, int], CrossCell]
    jobs: int
    deals: int
    rated_deals: int
    groups: int
    samples: int
    converged: bool

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form (numbers, strings, lists, dicts; inf and NaN -> ``None``)."""
        return {
            "jobs": self.jobs, "deals": self.deals, "rated_deals": self.rated_deals,
            "groups": self.groups, "samples": self.samples, "converged": self.converged,
            "maker_edge": {"elo": _num(self.maker_edge), "lo": _num(self.maker_edge_lo),
                           "hi": _num(self.maker_edge_hi)},
            "rows": [dict(rank=k + 1, **row.to_json()) for k, row in enumerate(self.rows)],
            "cross_table": [{"i": i, "j": j, "n": c.n, "margin": _num(c.margin),
                             "win_rate": _num(c.win_rate)} for (i, j), c in sorted(self.cross.items())],
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Standings:
        """Inverse of :meth:`to_json`: the same numbers, to the last bit.

        >>> from arena.types import Entrant
        >>> st = standings([], [Entrant("a", "random")], samples=10)
        >>> Standings.from_json(st.to_json()).to_json() == st.to_json()
        True
        """
        edge = d["maker_edge"]
        cross = {(int(c["i"]), int(c["j"])): CrossCell(int(c["n"]), _back(c["margin"], math.nan),
                                                       _back(c["win_rate"], math.nan)) for c in d["cross_table"]}
        return cls(tuple(Row.from_json(r) for r in d["rows"]), _back(edge["elo"], math.nan),
                   _back(edge["lo"], -_INF), _back(edge["hi"], _INF), cross, int(d["jobs"]), int(d["deals"]),
                   int(d["rated_deals"]), int(d["groups"]), int(d["samples"]), bool(d["converged"]))


# ------------------------------------------------------------------ Elo
def _check_prior(prior: float | None) -> None:
    elo.check_prior(prior)


def _fit(des: elo.Design, prior: float | None, start: EloFit | None = None) -> tuple[EloFit, np.ndarray]:
    """The fit of ``des`` (from ``start``'s ratings and edge when given) and its parameter vector."""
    theta = np.zeros(des.params)
    if start is not None:
        for k, e in enumerate(des.rated):
            if e < len(start.ratings) and start.rated[e] and math.isfinite(start.ratings[e]):
                theta[k] = start.ratings[e]
        theta[-1] = start.maker_edge if math.isfinite(start.maker_edge) else 0.0
    converged = True
    if des.deals:
        theta, converged = elo.fit_theta(des, theta, elo.penalty(des.params, prior))
    ratings = [0.0] * des.n_entrants
    rated = [False] * des.n_entrants
    for k, e in enumerate(des.rated):
        ratings[e] = float(theta[k])
        rated[e] = True
    return EloFit(tuple(ratings), tuple(rated), float(theta[-1]), des.deals, bool(converged)), theta


def fit_elo(results: Iterable[JobResult], n_entrants: int, prior: float | None = PRIOR_SD,
            start: EloFit | None = None) -> EloFit:
    """Fit Elo ratings and the maker-side edge to every deal of ``results``.

    Maximum likelihood (Newton's method) with independent Gaussian priors of
    standard deviation ``prior`` Elo, centred on 0, on every rating and on
    the edge; ``prior=None`` fits plain maximum likelihood. Deals whose maker
    side is empty or holds every seat carry no information and are skipped.
    ``start``: an earlier fit (of fewer results, or as many entrants or
    fewer) to start from: the same optimum, in fewer steps. Memory is linear
    in the deals and the entrants (:mod:`arena.stats.elo`). Raises
    :class:`~arena.types.ArenaError` when a seat holds an entrant index
    outside ``range(n_entrants)``.
    """
    _check_prior(prior)
    return _fit(elo.design(deal_table(results, n_entrants)), prior, start)[0]


def _bootstrap(des: elo.Design, theta: np.ndarray, prior: float | None, samples: int, seed: int,
               level: float) -> EloIntervals:
    unknown = (-_INF, _INF)
    n_entrants = des.n_entrants
    if des.n_groups < 2 or samples < 1:
        return EloIntervals((unknown,) * n_entrants, unknown, max(samples, 0), level)
    all_draws = elo.boot_draws(des, theta, elo.penalty(des.params, prior), samples, seed)
    q = ((1.0 - level) / 2.0, 1.0 - (1.0 - level) / 2.0)

    def interval(col: np.ndarray) -> tuple[float, float]:
        col = col[np.isfinite(col)]
        if not len(col):
            return unknown
        lo, hi = np.quantile(col, q)
        return float(lo), float(hi)

    ratings = [unknown] * n_entrants
    for k, e in enumerate(des.rated):
        ratings[e] = interval(all_draws[:, k])
    return EloIntervals(tuple(ratings), interval(all_draws[:, -1]), samples, level)


def bootstrap_elo(results: Iterable[JobResult], n_entrants: int, samples: int = 1000, seed: int = 0,
                  level: float = 0.95, prior: float | None = PRIOR_SD) -> EloIntervals:
    """Percentile bootstrap intervals for :func:`fit_elo`'s ratings and edge.

    Each of ``samples`` resamples draws the deal groups with replacement
    (every deal of a drawn group comes along, once per draw). A small
    bootstrap refits every resample from the full fit; a large one takes one
    Newton step from it with the full fit's Hessian (see
    :mod:`arena.stats.elo`, :data:`arena.stats.elo.EXACT_WORK`). In a
    resample that misses an entrant altogether, that entrant's rating is
    left out of its interval. The result depends only on the data and
    ``seed``.
    """
    _check_prior(prior)
    if not 0.0 < level < 1.0:
        raise ArenaError(f"bootstrap: level {level} is not between 0 and 1")
    des = elo.design(deal_table(results, n_entrants))
    _, theta = _fit(des, prior)
    return _bootstrap(des, theta, prior, samples, seed, level)


def rate(table: DealTable, samples: int = 1000, seed: int = 0, start: EloFit | None = None,
         prior: float | None = PRIOR_SD) -> tuple[EloFit, EloIntervals]:
    """The Elo fit and its 95 % intervals of the deals of ``table``, as
    :func:`standings` computes them (the same numbers for the same deals,
    ``samples`` and ``seed``), without the rest of the standings: what a
    ladder's refit needs."""
    _check_prior(prior)
    des = elo.design(table)
    fit, theta = _fit(des, prior, start)
    return fit, _bootstrap(des, theta, prior, samples, seed, 0.95)


# ------------------------------------------------------------------ scores
def _interval(xs: Sequence[float]) -> Interval:
    """Mean with a 95 % normal interval, as :func:`arena.tournament.duel.mean_interval`."""
    n = len(xs)
    if n == 0:
        return Interval(math.nan, -_INF, _INF, 0)
    mean = sum(xs) / n
    if n < 2:
        return Interval(mean, -_INF, _INF, 1)
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    half = _Z95 * math.sqrt(var / n)
    return Interval(mean, mean - half, mean + half, n)


def _duplicate_scores(t: DealTable) -> list[Interval]:
    real = t.has_margin
    if not real.any():
        return [_interval([]) for _ in range(t.n_entrants)]
    w = t.width
    _, gi = np.unique(t.group, return_inverse=True)
    gi = gi.reshape(-1)
    n_groups = int(gi.max()) + 1
    cell = (gi[:, None] * w + np.arange(w)[None, :])[real]
    total = np.bincount(cell, weights=t.margins[real])
    count = np.bincount(cell)
    dev = t.margins[real] - total[cell] / count[cell]
    pairs, at = distinct(t.seats[real] * n_groups + gi[:, None].repeat(w, axis=1)[real], t.n_entrants * n_groups)
    score = (np.bincount(at, weights=dev) / np.bincount(at)).tolist()
    entrant = (pairs // n_groups).tolist()
    per: list[list[float]] = [[] for _ in range(t.n_entrants)]
    for e, x in zip(entrant, score):            # pairs are sorted by entrant, then group
        per[e].append(x)
    return [_interval(xs) for xs in per]


def duplicate_scores(results: Iterable[JobResult], n_entrants: int) -> list[Interval]:
    """Per entrant, the mean duplicate score over deal groups, with a 95 % interval.

    The par of a seat in a group is the mean card margin of that seat over
    every deal of the group. An entrant's score in a group is the mean, over
    the (deal, seat) pairs it held, of the seat's margin minus its par; the
    interval is a normal interval over the groups it played in.
    """
    return _duplicate_scores(deal_table(results, n_entrants))


def _seat_stats(t: DealTable) -> list[SeatStats]:
    n = t.n_entrants
    real = t.seats >= 0
    who = t.seats[real]
    seats_ = np.bincount(who, minlength=n)
    margin = np.bincount(who, weights=t.margins[real], minlength=n)
    game = np.bincount(who, weights=t.game[real], minlength=n)
    deals = np.bincount(t.seats[first_seats(t.seats)], minlength=n)
    return [SeatStats(int(deals[e]), int(seats_[e]), float(margin[e] / seats_[e]) if seats_[e] else math.nan,
                      float(game[e] / seats_[e]) if seats_[e] else math.nan) for e in range(n)]


def seat_stats(results: Iterable[JobResult], n_entrants: int) -> list[SeatStats]:
    """Per entrant: deals played, seats held, mean card margin and game points per seat."""
    return _seat_stats(deal_table(results, n_entrants))


#: The part a seat plays in a deal, as :func:`role_margins` splits the margins.
ROLES = ("maker", "friend", "opponent")


@dataclass(frozen=True)
class RoleMargins:
    """One entrant's card margin by the seat it held and by its part in the
    deal: ``by_seat[s]`` over its deals at seat ``s``, ``by_role[r]`` over its
    deals as maker, as a friend on the maker's side, or as an opponent."""

    by_seat: tuple[Interval, ...]
    by_role: Mapping[str, Interval]


def role_margins(results: Iterable[JobResult], n_entrants: int, players: int) -> list[RoleMargins]:
    """Per entrant: the mean card margin of its seats, by seat number and by
    role, each with a 95 % normal interval over those (deal, seat) pairs
    (duplicate deals make them a little narrower than they should be; the
    duplicate score is the fairer comparison). Forfeited deals are left out:
    their sides are the forfeit's, not the play's.

    >>> from arena.types import DealOutcome, JobResult
    >>> d = DealOutcome((0, 1, 0, 1, 0), 0, (0, 2), 120, 200, False, (-1, 1, -1, 1, 1),
    ...                 (-40.0, 40.0, -40.0, 40.0, 40.0))
    >>> m = role_margins([JobResult("g0", 0, (0, 1, 0, 1, 0), (d,))], 2, 5)
    >>> m[0].by_role["maker"].mean, m[0].by_role["friend"].mean, m[0].by_role["opponent"].mean
    (-40.0, -40.0, 40.0)
    >>> m[1].by_seat[1].mean, m[1].by_seat[0].n
    (40.0, 0)
    """
    t = deal_table(results, n_entrants)
    n, w = n_entrants, t.width
    use = t.has_margin & (t.forfeit < 0)[:, None]      # a forfeit's sides are the forfeit's, not the deal's
    seat_no = np.broadcast_to(np.arange(w)[None, :], t.seats.shape)
    role = np.where(seat_no == t.maker_seat[:, None], 0, np.where(t.maker, 1, 2))
    by_seat = _lists(t.seats[use] * w + seat_no[use], t.margins[use], n * w)
    by_role = _lists(t.seats[use] * 3 + role[use], t.margins[use], n * 3)
    return [RoleMargins(tuple(_interval(by_seat[e * w + s] if s < w else []) for s in range(players)),
                        {r: _interval(by_role[e * 3 + k]) for k, r in enumerate(ROLES)}) for e in range(n)]


def _lists(keys: np.ndarray, values: np.ndarray, size: int) -> list[list[float]]:
    """``values`` split by ``keys`` (0 <= key < size), each list in the order given."""
    order = np.argsort(keys, kind="stable")
    bounds = np.searchsorted(keys[order], np.arange(size + 1))
    vals = values[order].tolist()
    return [vals[bounds[k]:bounds[k + 1]] for k in range(size)]


def _cross_table(t: DealTable) -> dict[tuple[int, int], CrossCell]:
    ne = t.n_entrants
    n = np.zeros(ne * ne, dtype=np.int64)
    margin = np.zeros(ne * ne)
    wins = np.zeros(ne * ne)
    real = t.seats >= 0
    for si in range(t.width):
        ei = t.seats[:, si]
        won = (t.maker[:, si] == t.won).astype(float)
        for sj in range(t.width):
            ej = t.seats[:, sj]
            pick = real[:, si] & real[:, sj] & (ei != ej) & (t.maker[:, sj] != t.maker[:, si])
            cell = ei[pick] * ne + ej[pick]
            n += np.bincount(cell, minlength=ne * ne)
            margin += np.bincount(cell, weights=t.margins[pick, si], minlength=ne * ne)
            wins += np.bincount(cell, weights=won[pick], minlength=ne * ne)
    out = {}
    for i in range(ne):
        for j in range(ne):
            if i != j:
                k = int(n[i * ne + j])
                out[(i, j)] = CrossCell(k, float(margin[i * ne + j] / k) if k else math.nan,
                                        float(wins[i * ne + j] / k) if k else math.nan)
    return out


def cross_table(results: Iterable[JobResult], n_entrants: int) -> dict[tuple[int, int], CrossCell]:
    """Head-to-head results for every ordered pair ``(i, j)``, ``i != j``.

    Over every deal, each seat of ``i`` against each seat of ``j`` on the
    other side counts once: the margin of ``i``'s seat and whether ``i``'s
    side won.
    """
    return _cross_table(deal_table(results, n_entrants))


# ------------------------------------------------------------------ standings
def standings(results: Iterable[JobResult] | ResultColumns, entrants: Sequence[Entrant], samples: int = 1000,
              seed: int = 0, start: EloFit | None = None) -> Standings:
    """Everything about a tournament's results, one row per entrant.

    Elo intervals are 95 % bootstrap intervals over ``samples`` resamples of
    the deal groups (see :func:`bootstrap_elo`). Faults are counted per kind
    for the entrant named in each fault. Empty ``results`` give standings
    with no deals. ``start``: an earlier fit to start the Elo fit from (see
    :func:`fit_elo`). Every caller that shows these numbers for the same
    results, ``samples`` and ``seed`` shows the same intervals.
    """
    cols = results if isinstance(results, ResultColumns) else ResultColumns.of(results)
    n = len(entrants)
    table = deal_table(cols, n)
    des = elo.design(table)
    fit, theta = _fit(des, PRIOR_SD, start)
    boot = _bootstrap(des, theta, PRIOR_SD, samples, seed, 0.95)
    dup = _duplicate_scores(table)
    stats = _seat_stats(table)
    faults: list[dict[str, int]] = [dict.fromkeys(FAULT_KINDS, 0) for _ in range(n)]
    for entrant, kind in cols.faults:
        if 0 <= entrant < n:
            faults[entrant][kind] = faults[entrant].get(kind, 0) + 1
    matches = [0] * n
    match_wins = [0] * n
    for seats, winners in cols.matches:         # a whole match: who held the winning seats
        for s, e in enumerate(seats):
            if 0 <= e < n:
                matches[e] += 1
                match_wins[e] += s in winners
    rows = [Row(e, ent.name, ent.spec, fit.ratings[e], boot.ratings[e][0], boot.ratings[e][1],
                fit.rated[e], stats[e].deals, stats[e].seats, dup[e], stats[e].margin,
                stats[e].game_points, faults[e], matches[e], match_wins[e])
            for e, ent in enumerate(entrants)]
    rows.sort(key=lambda r: (not r.rated, -r.elo, r.index))
    return Standings(tuple(rows), fit.maker_edge, boot.maker_edge[0], boot.maker_edge[1],
                     _cross_table(table), cols.results, len(cols.keys),
                     fit.deals, cols.groups_with_deals, samples, fit.converged)
