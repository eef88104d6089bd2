"""Sequential tests of one bot against another on duplicate deals.

An SPRT plays deal seeds one *group* at a time: every seed with bot A and
bot B alternating through the seats, each line-up rotated so that each bot
holds each hand (as ``duel`` and the arena's ``pairs`` line-ups do). The
unit of evidence is the group, never the single deal: the deals of a group
share their cards, so they are not independent.

A group's **score** compares, seat by seat, what the seat's cards did in A's
hands with what they did in B's (:func:`group_score`): each seat counts 1 if
A's result there beat B's (its side won the deal with A and lost it with B),
0 the other way, 1/2 when they did the same; the group's score is the mean
over seats, in [0, 1]. An expected score ``s`` is the logistic Elo
``400 log10(s / (1 - s))`` (:func:`score_to_elo`): +35 Elo means A wins 55 %
of the seat duels on the same cards. The card-point margin (A's margin in a
seat minus B's, per deal) is estimated alongside; it is not tested, because
margins are skewed and heavy-tailed (a whole deal's points swing with the
kitty): tests on the margins of real games erred 1.6 to 2.7 times as often
as ``alpha``, where tests on seat duels kept to it.

The test is a generalized SPRT (as fishtest's and fastchess's) of
``H0: mean = s0`` against ``H1: mean = s1``: the LLR compares, for each
hypothesis, the most likely distribution of group scores with that mean
among those on the scores seen (:class:`Walk`).

It is looked at after every group, in the order of the groups (so the
verdict does not depend on which worker finished first, or on a restart),
from the :data:`MIN_GROUPS`-th group on (a variance estimated from fewer
groups makes early verdicts far more often wrong than ``alpha`` and
``beta`` allow): ``LLR <= log(beta / (1 - alpha))`` accepts H0,
``LLR >= log((1 - beta) / alpha)`` accepts H1.

>>> h = Hypotheses(0.0, 20.0)
>>> [round(b, 3) for b in h.bounds]
[-2.944, 2.944]
>>> round(elo_to_score(20.0), 4), round(score_to_elo(elo_to_score(-35.0)), 6)
(0.5288, -35.0)
>>> scores = [0.5, 0.75, 0.5, 0.25, 0.75, 1.0, 0.5, 0.75] * 10
>>> verdict(scores, h)[0]
'H1'
>>> verdict([0.5, 0.25, 0.75, 0.5] * 80, h)[0]
'H0'
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from ..types import ArenaError, JobResult

__all__ = ["Hypotheses", "MIN_GROUPS", "elo_to_score", "score_to_elo", "Walk", "verdict", "counts_llr", "decide",
           "group_score", "group_scores", "Estimate", "estimate", "t975", "SprtState"]

#: No verdict before this many groups (a test that may stop after a few
#: groups errs far more often than alpha and beta say).
MIN_GROUPS = 30

def elo_to_score(elo: float) -> float:
    """The expected score of a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """The logistic Elo difference of an expected score (clamped to ±2000)."""
    s = min(max(score, 1e-5), 1 - 1e-5)
    return max(-2000.0, min(2000.0, -400.0 * math.log10(1.0 / s - 1.0)))


@dataclass(frozen=True)
class Hypotheses:
    """``H0: A is low Elo better`` against ``H1: A is high Elo better``,
    with error rates ``alpha`` (accepting H1 when H0 holds) and ``beta``
    (accepting H0 when H1 holds)."""

    low: float
    high: float
    alpha: float = 0.05
    beta: float = 0.05

    def check(self) -> Hypotheses:
        """Raise :class:`ArenaError` (one line) for a test that makes no sense.

        >>> Hypotheses(5.0, 0.0).check()
        Traceback (most recent call last):
        ...
        arena.types.ArenaError: --elo0 5 must be below --elo1 0
        """
        for name, x in (("--elo0", self.low), ("--elo1", self.high)):
            if not isinstance(x, (int, float)) or isinstance(x, bool) or not math.isfinite(x):
                raise ArenaError(f"{name}: {x!r} is not a number")
        if self.low >= self.high:
            raise ArenaError(f"--elo0 {self.low:g} must be below --elo1 {self.high:g}")
        if not -1000 < self.low < self.high < 1000:
            raise ArenaError("--elo0/--elo1: Elo bounds must lie between -1000 and 1000")
        for name, x in (("--alpha", self.alpha), ("--beta", self.beta)):
            if not isinstance(x, (int, float)) or isinstance(x, bool) or not 0 < x < 0.5:
                raise ArenaError(f"{name}: {x!r} is not a probability above 0 and below 0.5")
        return self

    @property
    def bounds(self) -> tuple[float, float]:
        """The LLR bounds (accept H0 at or below the first, H1 at or above the second)."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def targets(self) -> tuple[float, float]:
        """``low`` and ``high`` as expected group scores."""
        return elo_to_score(self.low), elo_to_score(self.high)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form."""
        return dataclasses.asdict(self)


def _profile(d: np.ndarray, counts: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row, the empirical log-likelihood ratio of "the mean of
    ``d`` is 0" (``d``: scores minus the hypothesis's mean, seen ``counts``
    times) against the unconstrained fit, and its Lagrange multiplier
    (``lam``: where to start looking, one per row). ``-inf`` where 0 lies
    outside the ``d`` seen."""
    seen = counts > 0                                # (m, K)
    top = np.where(seen, d, -np.inf).max(axis=1)
    bottom = np.where(seen, d, np.inf).min(axis=1)
    inside = (top > 0) & (bottom < 0)
    lo = np.where(inside, -1.0 / np.where(inside, top, 1.0), 0.0)       # every 1 + lam d stays positive
    hi = np.where(inside, -1.0 / np.where(inside, bottom, -1.0), 0.0)
    room = 1e-12 * (hi - lo)
    lo, hi = lo + room, hi - room
    lam = np.clip(np.where(inside, lam, 0.0), lo, hi)
    active = inside.copy()
    for _ in range(100):
        if not active.any():
            break
        w = np.where(seen, 1.0 + lam[:, None] * d, 1.0)    # scores not seen in a row do not count
        q = np.where(seen, d / w, 0.0)
        g = (counts * q).sum(axis=1)                 # decreasing in lam; 0 at the answer
        lo = np.where(active & (g > 0), lam, lo)
        hi = np.where(active & (g <= 0), lam, hi)
        slope = (counts * q * q).sum(axis=1)
        new = lam + g / np.where(slope > 0, slope, 1.0)
        new = np.where((new > lo) & (new < hi), new, 0.5 * (lo + hi))    # Newton left the bracket: halve it
        done = np.abs(new - lam) <= 1e-13 * (1.0 + np.abs(lam))
        lam = np.where(active, new, lam)
        active &= ~done
    ell = -(counts * np.log1p(np.where(seen, lam[:, None] * d, 0.0))).sum(axis=1)
    same = (top == 0) & (bottom == 0)                # every score equals the mean
    return np.where(inside, ell, np.where(same, 0.0, -np.inf)), lam


#: The scores' bounds, always in the support of the fits with this small
#: weight (as fishtest regularizes its counts): a hypothesis beyond every
#: score seen is then unlikely, not impossible.
_EDGE_WEIGHT = 1e-3


def counts_llr(values: np.ndarray, counts: np.ndarray, hyp: Hypotheses,
               lams: Optional[list[np.ndarray]] = None) -> np.ndarray:
    """The test's LLR for each row of ``counts`` (how often each score in
    ``values`` was seen): the generalized likelihood ratio of H1 against
    H0, each fitted by the most likely distribution with the hypothesis's
    mean on the scores seen and the scores' bounds 0 and 1 (which weigh
    :data:`_EDGE_WEIGHT` of a group each). So a hypothesis at or beyond the
    edge of the scores seen (30 groups all at 1/2 but two above it, or
    every group above both hypotheses) is unlikely by as much as moving
    weight to a bound costs, never impossible. ``lams`` (two arrays)
    carries the fits' multipliers from one call to the next (a warm start).

    >>> h = Hypotheses(0.0, 20.0)
    >>> values = np.array([0.0, 0.5, 1.0])
    >>> counts_llr(values, np.array([[10, 20, 10], [0, 5, 0], [0, 28, 2]]), h).round(3).tolist()
    [-0.132, -0.29, 1.357]
    """
    counts = np.asarray(counts, float)
    m = len(counts)
    support = np.concatenate([values, [0.0, 1.0]])
    c = np.concatenate([counts, np.full((m, 2), _EDGE_WEIGHT)], axis=1)
    start = lams or [np.zeros(m), np.zeros(m)]
    fits = []
    for j, s in enumerate(hyp.targets()):
        ell, start[j] = _profile(np.broadcast_to(support - s, c.shape), c, start[j])
        fits.append(ell)
    if lams is not None:
        lams[:] = start
    return fits[1] - fits[0]


def decide(value: Any, groups: Any, hyp: Hypotheses, start: int = MIN_GROUPS) -> Any:
    """The stopping rule (numbers or numpy arrays): 1 accepts H1 (the LLR
    at or above its upper bound), -1 accepts H0 (at or below the lower),
    0 goes on; never before ``start`` groups."""
    lo, hi = hyp.bounds
    out = np.where(value >= hi, 1, np.where(value <= lo, -1, 0))
    out = np.where(np.asarray(groups) >= start, out, 0)
    return int(out) if np.ndim(out) == 0 else out


class Walk:
    """The test's statistic group by group: feed scores in order, and it
    says at which group the LLR first left its bounds.

    The LLR is the generalized (empirical) likelihood ratio of the two
    hypotheses about the mean score: for each hypothesis, the most likely
    distribution on the scores seen that has that mean (no shape is
    assumed: duplicate scores are skewed, and a normal model's tests with
    a variance estimated from the same scores erred up to 1.5 times more
    often than ``alpha`` on the arena's real scores), on the scores seen
    and the bounds 0 and 1, so that a hypothesis beyond the scores seen is
    unlikely rather than ruled out (:func:`counts_llr`).

    >>> w = Walk(Hypotheses(0.0, 20.0))
    >>> found, groups, value = w.feed([0.5, 0.75, 0.5, 0.25, 0.75, 1.0, 0.5, 0.75] * 10)
    >>> found, groups, value >= w.hi
    ('H1', 53, True)
    """

    def __init__(self, hyp: Hypotheses, start: int = MIN_GROUPS) -> None:
        self.hyp = hyp
        self.start = start
        self.lo, self.hi = hyp.bounds
        self.counts: dict[float, int] = {}
        self.n = 0
        self.llr = 0.0
        self.found: Optional[str] = None
        self._lams = [np.zeros(1), np.zeros(1)]

    def value(self) -> float:
        """The LLR of the scores fed so far."""
        if self.n < 2:
            return 0.0
        values = np.fromiter(self.counts.keys(), float, len(self.counts))
        counts = np.fromiter(self.counts.values(), float, len(self.counts))[None, :]
        return float(counts_llr(values, counts, self.hyp, self._lams)[0])

    def feed(self, scores: Iterable[float]) -> tuple[Optional[str], int, float]:
        """Take more scores: ``(verdict, groups, LLR)`` at the first group
        where the LLR leaves its bounds, else ``(None, groups so far, LLR)``.
        Once decided, later scores are not taken."""
        for x in scores:
            if self.found is not None:
                break
            key = round(float(x), 9)
            self.counts[key] = self.counts.get(key, 0) + 1
            self.n += 1
            if self.n < self.start:
                continue
            self.llr = self.value()
            way = decide(self.llr, self.n, self.hyp, self.start)
            self.found = {1: "H1", -1: "H0"}.get(way)
        if self.found is None and self.n < self.start:
            self.llr = self.value()
        return self.found, self.n, self.llr


def verdict(scores: Sequence[float], hyp: Hypotheses,
            start: int = MIN_GROUPS) -> tuple[Optional[str], int, float]:
    """Walk the group scores in order (:class:`Walk`): ``(verdict, groups,
    LLR)`` at the first group where the LLR leaves its bounds (``"H0"`` or
    ``"H1"``), or ``(None, len(scores), LLR)`` if it has not. No verdict
    before ``start`` groups."""
    return Walk(hyp, start).feed(scores)


def _seat_result(points: int) -> float:
    return 1.0 if points > 0 else (0.0 if points < 0 else 0.5)


def group_score(results: Sequence[JobResult], a: int, unit: str = "elo") -> float:
    """The score of one group (every job of one deal seed) for entrant ``a``
    against the other entrant (see the module's text): ``unit`` ``"elo"``
    for the seat duels' score, ``"points"`` for the card-point margin.

    >>> from arena.types import DealOutcome
    >>> def job(seats, maker_side, won):
    ...     sign = [1 if (s in maker_side) == won else -1 for s in range(4)]
    ...     out = DealOutcome(seats, 0, maker_side, 0, 200, won, tuple(sign), tuple(60.0 * x for x in sign))
    ...     return JobResult("k", 0, seats, (out,))
    >>> same = [job((0, 1, 0, 1), (0, 2), True), job((1, 0, 1, 0), (0, 2), True)]
    >>> group_score(same, 0, "elo"), group_score(same, 0, "points")   # seats 0, 2 win in either's hands
    (0.5, 0.0)
    >>> better = [job((0, 1, 0, 1), (0, 2), True), job((1, 0, 1, 0), (1, 3), True)]
    >>> group_score(better, 0, "elo"), group_score(better, 0, "points")   # A's seats win both times
    (1.0, 120.0)
    """
    n = len(results[0].seats)
    mine: list[list[float]] = [[] for _ in range(n)]
    theirs: list[list[float]] = [[] for _ in range(n)]
    for res in results:
        for out in res.deals:
            for seat, who in enumerate(out.seats):
                value = _seat_result(out.game_points[seat]) if unit == "elo" else out.margins[seat]
                (mine if who == a else theirs)[seat].append(value)
    diffs = [sum(m) / len(m) - sum(t) / len(t) for m, t in zip(mine, theirs) if m and t]
    if not diffs:
        raise ArenaError("a group where one bot never held a seat the other held: no duplicate score")
    mean = sum(diffs) / len(diffs)
    return 0.5 + mean / 2 if unit == "elo" else mean


def group_scores(results: Iterable[JobResult], jobs_per_group: int, a: int, unit: str = "elo") -> list[float]:
    """The scores of the groups that are complete, from group 0 up to the
    first one that is not (later groups wait for it)."""
    by_group: dict[int, list[JobResult]] = {}
    for res in results:
        by_group.setdefault(res.group, []).append(res)
    out = []
    g = 0
    while len(by_group.get(g, ())) == jobs_per_group:
        out.append(group_score(by_group[g], a, unit))
        g += 1
    return out


@dataclass(frozen=True)
class Estimate:
    """A mean with its 95 % interval."""

    mean: float
    lo: float
    hi: float

    def to_json(self) -> dict[str, float]:
        """Plain JSON form."""
        return dataclasses.asdict(self)


#: Student's t quantile 0.975 for 1 to 30 degrees of freedom
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)


def t975(df: int) -> float:
    """Student's t quantile 0.975 with ``df`` degrees of freedom (to 3
    decimals; above 30, ``1.96 + 2.4 / df``, within 0.002 of it).

    >>> t975(9), t975(30), round(t975(120), 3)
    (2.262, 2.042, 1.98)
    """
    if df < 1:
        raise ValueError(f"t975: {df} degrees of freedom")
    return _T975[df - 1] if df <= len(_T975) else 1.96 + 2.4 / df


def estimate(xs: Sequence[float], to: Callable[[float], float] = float, student: bool = False) -> Optional[Estimate]:
    """The mean of ``xs`` with a 95 % interval, mapped through ``to`` (None
    for fewer than 2): the normal interval, or with ``student`` Student's t
    (for a handful of ``xs``, where the normal one is too narrow).

    >>> e = estimate([1.0, 2.0, 3.0], student=True)
    >>> e.mean, round(e.lo, 3), round(e.hi, 3)
    (2.0, -0.484, 4.484)
    """
    n = len(xs)
    if n < 2:
        return None
    mean = sum(xs) / n
    q = t975(n - 1) if student else 1.96
    half = q * math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1) / n)
    return Estimate(to(mean), to(mean - half), to(mean + half))


@dataclass(frozen=True)
class SprtState:
    """Where a test stands: groups counted, LLR, verdict (None while it
    runs; ``"H0"``, ``"H1"`` or ``"limit"``) and the estimates so far."""

    groups: int
    deals: int
    llr: float
    bounds: tuple[float, float]
    verdict: Optional[str]
    elo: Optional[Estimate]
    margin: Optional[Estimate]
    hypotheses: Hypotheses
    max_groups: int

    def alike(self) -> bool:
        """Whether every group counted so far scored exactly even: the two
        bots' margins were the same on every deal (often, they played alike)."""
        m = self.margin
        return self.groups > 0 and m is not None and m.mean == 0 and m.lo == 0 and m.hi == 0

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form."""
        return {"groups": self.groups, "deals": self.deals, "llr": self.llr, "bounds": list(self.bounds),
                "verdict": self.verdict, "elo": self.elo.to_json() if self.elo else None,
                "margin": self.margin.to_json() if self.margin else None,
                "hypotheses": self.hypotheses.to_json(), "max_groups": self.max_groups}
