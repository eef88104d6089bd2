"""SPSA: tuning numeric bot parameters from game results, as fishtest does.

Simultaneous perturbation stochastic approximation moves every parameter at
once. Iteration ``k`` (from 1) draws a random sign ``delta_i = ±1`` for each
parameter, plays the bot at ``theta + c_k delta`` against the bot at
``theta - c_k delta`` (one duplicate deal group), and moves::

    theta_i += (a_k / c_k) * result * delta_i

where ``result`` in [-1, 1] is how much the ``+`` side won (:func:`result_of`,
twice its seat-duel score minus 1). The schedule is fishtest's: with ``N``
iterations, ``A = N / 10``, ``alpha = 0.602``, ``gamma = 0.101``,
``c_k = c / k**gamma`` and ``a_k = a / (A + k)**alpha``, where each
parameter's ``c_end`` (its perturbation at the last iteration) and
``r_end`` (its learning rate there, ``a_N / c_N**2``) give ``c = c_end *
N**gamma`` and ``a = r_end * c_end**2 * (A + N)**alpha``. Parameters stay
within their bounds; an integer parameter is played at a stochastically
rounded value (up with the chance of its fractional part), so its
expected value is the real one.

Many iterations run at once: a *batch* of iterations is played at the same
``theta`` and then applied in iteration order, so a run's trajectory
depends on its seed and batch size only, never on which worker finished
first.

>>> p = TuneParam.parse("c=1.0,0.2,3.0,0.2,0.002")
>>> p.name, p.start, p.low, p.high, p.integer
('c', 1.0, 0.2, 3.0, False)
>>> s = Spsa([p], iterations=1000, seed=7)
>>> plus, minus, delta = s.points(1)
>>> round(plus[0] - minus[0], 6) == round(2 * s.c_k(p, 1) * delta[0], 6)
True
>>> s.tell(1, delta, 1.0)          # the + side won: theta moves towards it
>>> (s.theta[0] - 1.0) * delta[0] > 0
True
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

from ..types import ArenaError

__all__ = ["TuneParam", "Spsa", "result_of", "ALPHA", "GAMMA"]

#: fishtest's exponents of the gain sequences.
ALPHA = 0.602
GAMMA = 0.101


def result_of(score: float) -> float:
    """A group's seat-duel score of the ``+`` side (in [0, 1]) as an SPSA
    result in [-1, 1].

    >>> result_of(0.5), result_of(1.0), result_of(0.25)
    (0.0, 1.0, -0.5)
    """
    return 2.0 * score - 1.0


@dataclass(frozen=True)
class TuneParam:
    """One tuned parameter: its start, bounds, and its perturbation
    (``c_end``) and learning rate (``r_end``) at the last iteration.
    ``integer``: the bot takes whole numbers (played stochastically rounded)."""

    name: str
    start: float
    low: float
    high: float
    c_end: float
    r_end: float
    integer: bool = False

    @classmethod
    def parse(cls, text: str, integer: bool = False) -> TuneParam:
        """``NAME=start,min,max,c_end,r_end`` (one-line :class:`ArenaError` otherwise).

        >>> TuneParam.parse("c=5,0,3,0.1,0.002")
        Traceback (most recent call last):
        ...
        arena.types.ArenaError: --param c: the start 5 is outside its range [0, 3]
        """
        name, eq, rest = str(text).partition("=")
        name = name.strip()
        if not eq or not name:
            raise ArenaError(f"--param {text!r}: write NAME=start,min,max,c_end,r_end")
        parts = [x.strip() for x in rest.split(",")]
        if len(parts) != 5:
            raise ArenaError(f"--param {name}: give start,min,max,c_end,r_end (5 numbers), not {len(parts)}")
        try:
            start, low, high, c_end, r_end = (float(x) for x in parts)
        except ValueError:
            raise ArenaError(f"--param {name}: {rest!r} holds something that is not a number") from None
        return cls(name, start, low, high, c_end, r_end, integer).check()

    def check(self) -> TuneParam:
        """Raise :class:`ArenaError` (one line) for a parameter that cannot be tuned."""
        w = f"--param {self.name}"
        for what, x in (("start", self.start), ("min", self.low), ("max", self.high), ("c_end", self.c_end),
                        ("r_end", self.r_end)):
            if not math.isfinite(x):
                raise ArenaError(f"{w}: {what} {x!r} is not a finite number")
        if not self.low < self.high:
            raise ArenaError(f"{w}: min {self.low:g} must be below max {self.high:g}")
        if not self.low <= self.start <= self.high:
            raise ArenaError(f"{w}: the start {self.start:g} is outside its range [{self.low:g}, {self.high:g}]")
        if not 0 < self.c_end <= (self.high - self.low) / 2:
            raise ArenaError(f"{w}: c_end {self.c_end:g} must be above 0 and at most half the range")
        if not self.r_end > 0:
            raise ArenaError(f"{w}: r_end {self.r_end:g} must be above 0")
        return self

    def clip(self, x: float) -> float:
        """``x`` within the bounds."""
        return min(max(x, self.low), self.high)


def _rng(seed: int, *parts: Any) -> random.Random:
    text = ":".join(str(p) for p in (seed,) + parts).encode()
    return random.Random(int.from_bytes(hashlib.sha256(text).digest()[:8], "big"))


class Spsa:
    """The state of one SPSA run: ``theta`` after ``done`` iterations."""

    def __init__(self, params: Sequence[TuneParam], iterations: int, seed: int = 0,
                 theta: Optional[Sequence[float]] = None, done: int = 0) -> None:
        if not params:
            raise ArenaError("tune: give at least one --param")
        names = [p.name for p in params]
        if len(set(names)) != len(names):
            raise ArenaError(f"tune: parameter {next(n for n in names if names.count(n) > 1)!r} is given twice")
        if not isinstance(iterations, int) or iterations < 1:
            raise ArenaError(f"--iterations: {iterations!r} is not a whole number of at least 1")
        self.params = tuple(p.check() for p in params)
        self.iterations = iterations
        self.seed = seed
        self.theta = [float(x) for x in (theta if theta is not None else [p.start for p in params])]
        self.done = done
        self.big_a = 0.1 * iterations

    # ------------------------------------------------------------ the schedule
    def c_k(self, p: TuneParam, k: int) -> float:
        """The perturbation of ``p`` at iteration ``k``."""
        return p.c_end * (self.iterations / k) ** GAMMA

    def a_k(self, p: TuneParam, k: int) -> float:
        """The gain of ``p`` at iteration ``k``."""
        a = p.r_end * p.c_end ** 2 * (self.big_a + self.iterations) ** ALPHA
        return a / (self.big_a + k) ** ALPHA

    # ------------------------------------------------------------ one iteration
    def delta(self, k: int) -> tuple[int, ...]:
        """Iteration ``k``'s signs (the same for the same seed and ``k``)."""
        rng = _rng(self.seed, "delta", k)
        return tuple(rng.choice((-1, 1)) for _ in self.params)

    def points(self, k: int, theta: Optional[Sequence[float]] = None) -> tuple[list[float], list[float], tuple[int, ...]]:
        """The ``+`` and ``-`` points of iteration ``k`` around ``theta`` (now's), and its signs."""
        theta = self.theta if theta is None else theta
        d = self.delta(k)
        plus = [p.clip(t + self.c_k(p, k) * s) for p, t, s in zip(self.params, theta, d)]
        minus = [p.clip(t - self.c_k(p, k) * s) for p, t, s in zip(self.params, theta, d)]
        return plus, minus, d

    def played(self, values: Sequence[float], k: int, side: str) -> list[float | int]:
        """The values a bot is built with: integers stochastically rounded
        (from the seed, ``k`` and ``side``), real values as they are."""
        rng = _rng(self.seed, "round", k, side)
        out: list[float | int] = []
        for p, v in zip(self.params, values):
            if p.integer:
                base = math.floor(v)
                out.append(int(base + (1 if rng.random() < v - base else 0)))
            else:
                out.append(v)
        return out

    def tell(self, k: int, delta: Sequence[int], result: float) -> None:
        """Apply iteration ``k``'s ``result`` (in [-1, 1]) and count it done."""
        if not -1.0 <= result <= 1.0:
            raise ArenaError(f"an SPSA result must lie in [-1, 1], not {result!r}")
        self.theta = [p.clip(t + self.a_k(p, k) / self.c_k(p, k) * result * s)
                      for p, t, s in zip(self.params, self.theta, delta)]
        self.done = max(self.done, k)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form (what a resumed run needs)."""
        return {"params": [vars(p) for p in self.params], "iterations": self.iterations, "seed": self.seed,
                "theta": list(self.theta), "done": self.done}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Spsa:
        """Inverse of :meth:`to_json`."""
        return cls([TuneParam(**p) for p in obj["params"]], int(obj["iterations"]), int(obj["seed"]),
                   obj["theta"], int(obj["done"]))
