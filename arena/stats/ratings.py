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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..types import FAULT_KINDS, ArenaError, DealOutcome, Entrant, JobResult

__all__ = [
    "PRIOR_SD", "Interval", "EloFit", "EloIntervals", "SeatStats", "CrossCell", "Row", "Standings",
    "fit_elo", "bootstrap_elo", "duplicate_scores", "seat_stats", "cross_table", "standings",
    "ROLES", "RoleMargins", "role_margins",
]


def _num(x: float) -> float | None:
    """A finite number as a float; None for nan or infinity (JSON has neither)."""
    return float(x) if math.isfinite(x) else None

#: Standard deviation, in Elo, of the Gaussian prior on every rating and on
#: the maker-side edge. It only keeps separable data (an entrant that always
#: wins) finite; against a few dozen deals it moves estimates by well under
#: one Elo. ``None`` turns it off (plain maximum likelihood).
PRIOR_SD = 1000.0

#: Elo points to natural-log odds: ``10 ** (d / 400) == exp(_K * d)``.
_K = math.log(10.0) / 400.0
#: Largest change of any parameter in one Newton step, in Elo.
_MAX_STEP = 400.0
#: A fit has converged when no parameter moved by more than this (Elo).
_TOL = 1e-6
_MAX_ITER = 100
#: Weight of the (Sum r)^2 term that pins the ratings' mean at 0. It is 0 at
#: the optimum, so its value only matters for numerics.
_CENTER = 1e-4
#: Upper bound on sample x deal cells held in memory at once by the bootstrap.
_CHUNK_CELLS = 4_000_000
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


# ------------------------------------------------------------------ deals
def _deals(results: Sequence[JobResult], n_entrants: int) -> Iterator[tuple[int, tuple[int, ...], DealOutcome]]:
    """Every deal as (group, entrant per seat, outcome), checking indices."""
    for res in results:
        for deal in res.deals:
            seats = tuple(deal.seats) or tuple(res.seats)
            for e in seats:
                if not 0 <= e < n_entrants:
                    raise ArenaError(f"result {res.key}: entrant {e} is not one of the {n_entrants} entrants")
            yield res.group, seats, deal


@dataclass(frozen=True)
class _Design:
    """The deals used by the Elo fit, as arrays.

    ``x[d, e]`` is entrant e's share of the maker side minus its share of the
    opponents; ``present[d, e]`` whether e held a seat; ``group[d]`` indexes
    the distinct groups.
    """

    x: np.ndarray
    y: np.ndarray
    present: np.ndarray
    group: np.ndarray
    n_groups: int


def _design(results: Sequence[JobResult], n_entrants: int) -> _Design:
    rows, ys, pres, groups = [], [], [], []
    for group, seats, deal in _deals(results, n_entrants):
        n = len(seats)
        maker = {s for s in deal.maker_side if 0 <= s < n}
        if not maker or len(maker) == n:
            continue
        row = [0.0] * n_entrants
        here = [False] * n_entrants
        for s, e in enumerate(seats):
            row[e] += 1.0 / len(maker) if s in maker else -1.0 / (n - len(maker))
            here[e] = True
        rows.append(row)
        ys.append(1.0 if deal.maker_won else 0.0)
        pres.append(here)
        groups.append(group)
    distinct = {g: k for k, g in enumerate(sorted(set(groups)))}
    return _Design(np.array(rows, dtype=float).reshape(len(rows), n_entrants), np.array(ys, dtype=float),
                   np.array(pres, dtype=bool).reshape(len(rows), n_entrants),
                   np.array([distinct[g] for g in groups], dtype=np.intp), len(distinct))


# ------------------------------------------------------------------ Elo
def _newton(xt: np.ndarray, y: np.ndarray, w: np.ndarray, theta: np.ndarray,
            penalty: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Maximise the penalised weighted log-likelihood for S weightings at once.

    ``xt`` (D, P): design rows with a last column of ones (the edge); ``w``
    (S, D) deal weights; ``theta`` (S, P) the start; ``penalty`` (P, P) the
    negative Hessian of the log-prior. Returns the parameters and, per
    weighting, whether the last step was below the tolerance.
    """
    d, p = xt.shape
    outer = (xt[:, :, None] * xt[:, None, :]).reshape(d, p * p)
    wy = w * y
    big = np.full(len(theta), np.inf)
    for _ in range(_MAX_ITER):
        prob = 0.5 * (1.0 + np.tanh(0.5 * _K * (theta @ xt.T)))
        grad = _K * ((wy - w * prob) @ xt) - theta @ penalty
        hess = (_K * _K) * ((w * prob * (1.0 - prob)) @ outer).reshape(-1, p, p) + penalty
        try:
            step = np.linalg.solve(hess, grad[:, :, None])[:, :, 0]
        except np.linalg.LinAlgError:
            step = np.full_like(grad, np.nan)
        bad = ~np.isfinite(step).all(axis=1)
        if bad.any():
            step[bad] = (np.linalg.pinv(hess[bad]) @ grad[bad][:, :, None])[:, :, 0]
        big = np.abs(step).max(axis=1) if p else np.zeros(len(theta))
        theta = theta + step * np.minimum(1.0, _MAX_STEP / np.maximum(big, 1e-300))[:, None]
        if (big < _TOL).all():
            break
    return theta, big < _TOL


def _prepare(des: _Design, prior: float | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Columns of the rated entrants, the design with an edge column, the penalty."""
    cols = np.flatnonzero(des.present.any(axis=0))
    xt = np.hstack([des.x[:, cols], np.ones((len(des.y), 1))])
    p = len(cols) + 1
    lam = 0.0 if prior is None else 1.0 / float(prior) ** 2
    center = np.zeros(p)
    center[:-1] = 1.0
    penalty = lam * np.eye(p) + _CENTER * np.outer(center, center)
    return cols, xt, penalty


def _check_prior(prior: float | None) -> None:
    if prior is not None and not (prior > 0 and math.isfinite(prior)):
        raise ArenaError(f"Elo prior: standard deviation {prior} is not a positive number")


def _fit(des: _Design, n_entrants: int, prior: float | None) -> tuple[EloFit, np.ndarray, np.ndarray]:
    cols, xt, penalty = _prepare(des, prior)
    theta = np.zeros((1, xt.shape[1]))
    converged = True
    if len(des.y):
        theta, conv = _newton(xt, des.y, np.ones((1, len(des.y))), theta, penalty)
        converged = bool(conv[0])
    ratings = [0.0] * n_entrants
    for k, e in enumerate(cols):
        ratings[e] = float(theta[0, k])
    rated = tuple(bool(des.present[:, e].any()) for e in range(n_entrants))
    fit = EloFit(tuple(ratings), rated, float(theta[0, -1]), len(des.y), converged)
    return fit, theta, cols


def fit_elo(results: Iterable[JobResult], n_entrants: int, prior: float | None = PRIOR_SD) -> EloFit:
    """Fit Elo ratings and the maker-side edge to every deal of ``results``.

    Maximum likelihood (Newton's method) with independent Gaussian priors of
    standard deviation ``prior`` Elo, centred on 0, on every rating and on
    the edge; ``prior=None`` fits plain maximum likelihood. Deals whose maker
    side is empty or holds every seat carry no information and are skipped.
    Raises :class:`~arena.types.ArenaError` when a seat holds an entrant
    index outside ``range(n_entrants)``.
    """
    _check_prior(prior)
    return _fit(_design(list(results), n_entrants), n_entrants, prior)[0]


def _bootstrap(des: _Design, theta: np.ndarray, cols: np.ndarray, n_entrants: int, prior: float | None,
               samples: int, seed: int, level: float) -> EloIntervals:
    unknown = (-_INF, _INF)
    if des.n_groups < 2 or samples < 1:
        return EloIntervals((unknown,) * n_entrants, unknown, max(samples, 0), level)
    _, xt, penalty = _prepare(des, prior)
    rng = np.random.default_rng(seed)
    n_deals, g = len(des.y), des.n_groups
    chunk = max(1, _CHUNK_CELLS // max(n_deals, g))
    present = des.present[:, cols].astype(float)
    draws = []
    for start in range(0, samples, chunk):
        s = min(chunk, samples - start)
        picks = rng.integers(0, g, size=(s, g))
        counts = np.bincount((picks + g * np.arange(s)[:, None]).ravel(), minlength=s * g).reshape(s, g)
        w = counts[:, des.group].astype(float)
        th, _ = _newton(xt, des.y, w, np.repeat(theta, s, axis=0), penalty)
        th[:, :-1][(w @ present) == 0] = np.nan     # entrant absent from the resample
        draws.append(th)
    all_draws = np.vstack(draws)
    q = ((1.0 - level) / 2.0, 1.0 - (1.0 - level) / 2.0)

    def interval(col: np.ndarray) -> tuple[float, float]:
        col = col[np.isfinite(col)]
        if not len(col):
            return unknown
        lo, hi = np.quantile(col, q)
        return float(lo), float(hi)

    ratings = [unknown] * n_entrants
    for k, e in enumerate(cols):
        ratings[e] = interval(all_draws[:, k])
    return EloIntervals(tuple(ratings), interval(all_draws[:, -1]), samples, level)


def bootstrap_elo(results: Iterable[JobResult], n_entrants: int, samples: int = 1000, seed: int = 0,
                  level: float = 0.95, prior: float | None = PRIOR_SD) -> EloIntervals:
    """Percentile bootstrap intervals for :func:`fit_elo`'s ratings and edge.

    Each of ``samples`` resamples draws the deal groups with replacement
    (every deal of a drawn group comes along, once per draw) and refits,
    starting from the full fit. In a resample that misses an entrant
    altogether, that entrant's rating is left out of its interval. The
    result depends only on the data and ``seed``.
    """
    _check_prior(prior)
    if not 0.0 < level < 1.0:
        raise ArenaError(f"bootstrap: level {level} is not between 0 and 1")
    des = _design(list(results), n_entrants)
    _, theta, cols = _fit(des, n_entrants, prior)
    return _bootstrap(des, theta, cols, n_entrants, prior, samples, seed, level)


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


def duplicate_scores(results: Iterable[JobResult], n_entrants: int) -> list[Interval]:
    """Per entrant, the mean duplicate score over deal groups, with a 95 % interval.

    The par of a seat in a group is the mean card margin of that seat over
    every deal of the group. An entrant's score in a group is the mean, over
    the (deal, seat) pairs it held, of the seat's margin minus its par; the
    interval is a normal interval over the groups it played in.
    """
    results = list(results)
    par: dict[tuple[int, int], list[float]] = {}
    for group, seats, deal in _deals(results, n_entrants):
        for s in range(min(len(seats), len(deal.margins))):
            acc = par.setdefault((group, s), [0.0, 0.0])
            acc[0] += deal.margins[s]
            acc[1] += 1.0
    per: list[dict[int, list[float]]] = [{} for _ in range(n_entrants)]
    for group, seats, deal in _deals(results, n_entrants):
        for s in range(min(len(seats), len(deal.margins))):
            total, count = par[(group, s)]
            acc = per[seats[s]].setdefault(group, [0.0, 0.0])
            acc[0] += deal.margins[s] - total / count
            acc[1] += 1.0
    return [_interval([t / c for _, (t, c) in sorted(groups.items())]) for groups in per]


def seat_stats(results: Iterable[JobResult], n_entrants: int) -> list[SeatStats]:
    """Per entrant: deals played, seats held, mean card margin and game points per seat."""
    deals = [0] * n_entrants
    seats_ = [0] * n_entrants
    margin = [0.0] * n_entrants
    game = [0.0] * n_entrants
    for _, seats, deal in _deals(list(results), n_entrants):
        for e in set(seats):
            deals[e] += 1
        for s, e in enumerate(seats):
            seats_[e] += 1
            margin[e] += deal.margins[s] if s < len(deal.margins) else 0.0
            game[e] += deal.game_points[s] if s < len(deal.game_points) else 0.0
    return [SeatStats(deals[e], seats_[e], margin[e] / seats_[e] if seats_[e] else math.nan,
                      game[e] / seats_[e] if seats_[e] else math.nan) for e in range(n_entrants)]


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
    seat_xs: list[list[list[float]]] = [[[] for _ in range(players)] for _ in range(n_entrants)]
    role_xs: list[dict[str, list[float]]] = [{r: [] for r in ROLES} for _ in range(n_entrants)]
    for _, seats, deal in _deals(list(results), n_entrants):
        if deal.forfeit >= 0:           # its sides are the forfeit's, not the deal's
            continue
        side = set(deal.maker_side)
        for s, e in enumerate(seats):
            if s >= len(deal.margins):
                continue
            m = deal.margins[s]
            if s < players:
                seat_xs[e][s].append(m)
            role = "maker" if s == deal.maker else "friend" if s in side else "opponent"
            role_xs[e][role].append(m)
    return [RoleMargins(tuple(_interval(xs) for xs in seat_xs[e]), {r: _interval(role_xs[e][r]) for r in ROLES})
            for e in range(n_entrants)]


def cross_table(results: Iterable[JobResult], n_entrants: int) -> dict[tuple[int, int], CrossCell]:
    """Head-to-head results for every ordered pair ``(i, j)``, ``i != j``.

    Over every deal, each seat of ``i`` against each seat of ``j`` on the
    other side counts once: the margin of ``i``'s seat and whether ``i``'s
    side won.
    """
    n = np.zeros((n_entrants, n_entrants), dtype=np.int64)
    margin = np.zeros((n_entrants, n_entrants))
    wins = np.zeros((n_entrants, n_entrants))
    for _, seats, deal in _deals(list(results), n_entrants):
        maker = set(deal.maker_side)
        for si, ei in enumerate(seats):
            i_maker = si in maker
            won = i_maker == deal.maker_won
            m = deal.margins[si] if si < len(deal.margins) else 0.0
            for sj, ej in enumerate(seats):
                if ei != ej and (sj in maker) != i_maker:
                    n[ei, ej] += 1
                    margin[ei, ej] += m
                    wins[ei, ej] += won
    out = {}
    for i in range(n_entrants):
        for j in range(n_entrants):
            if i != j:
                k = int(n[i, j])
                out[(i, j)] = CrossCell(k, float(margin[i, j] / k) if k else math.nan,
                                        float(wins[i, j] / k) if k else math.nan)
    return out


# ------------------------------------------------------------------ standings
def standings(results: Iterable[JobResult], entrants: Sequence[Entrant], samples: int = 1000,
              seed: int = 0) -> Standings:
    """Everything about a tournament's results, one row per entrant.

    Elo intervals are 95 % bootstrap intervals over ``samples`` resamples of
    the deal groups (see :func:`bootstrap_elo`). Faults are counted per kind
    for the entrant named in each fault. Empty ``results`` give standings
    with no deals.
    """
    results = list(results)
    n = len(entrants)
    des = _design(results, n)
    fit, theta, cols = _fit(des, n, PRIOR_SD)
    boot = _bootstrap(des, theta, cols, n, PRIOR_SD, samples, seed, 0.95)
    dup = duplicate_scores(results, n)
    stats = seat_stats(results, n)
    faults: list[dict[str, int]] = [dict.fromkeys(FAULT_KINDS, 0) for _ in range(n)]
    for res in results:
        for f in res.faults:
            if 0 <= f.entrant < n:
                faults[f.entrant][f.kind] = faults[f.entrant].get(f.kind, 0) + 1
    matches = [0] * n
    match_wins = [0] * n
    for res in results:
        if res.match_winners:                   # a whole match: who held the winning seats
            for s, e in enumerate(res.seats):
                if 0 <= e < n:
                    matches[e] += 1
                    match_wins[e] += s in res.match_winners
    rows = [Row(e, ent.name, ent.spec, fit.ratings[e], boot.ratings[e][0], boot.ratings[e][1],
                fit.rated[e], stats[e].deals, stats[e].seats, dup[e], stats[e].margin,
                stats[e].game_points, faults[e], matches[e], match_wins[e])
            for e, ent in enumerate(entrants)]
    rows.sort(key=lambda r: (not r.rated, -r.elo, r.index))
    groups = len({res.group for res in results if res.deals})
    return Standings(tuple(rows), fit.maker_edge, boot.maker_edge[0], boot.maker_edge[1],
                     cross_table(results, n), len(results), sum(len(res.deals) for res in results),
                     fit.deals, groups, samples, fit.converged)
