"""SPSA's update: it finds a known optimum from noisy comparisons, it is
reproducible in batches, and resumes from its JSON state."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from arena.stats.spsa import Spsa, TuneParam
from arena.types import ArenaError

OPTIMUM = np.array([3.0, -2.0, 40.0])
CURVATURE = np.array([1 / 16, 1 / 16, 1 / 900])


def _objective(x) -> float:
    return -float((CURVATURE * (np.asarray(x, float) - OPTIMUM) ** 2).sum())


def _params() -> list[TuneParam]:
    return [TuneParam.parse("x=0,-8,8,0.8,0.01"), TuneParam.parse("y=0,-8,8,0.8,0.01"),
            TuneParam.parse("n=20,0,100,6,0.003", integer=True)]


def _play(spsa: Spsa, rng: random.Random, batch: int, until: int) -> list[list[float]]:
    """Run ``spsa`` to iteration ``until`` in batches; a noisy game decides
    each iteration (6 seat duels, each won by the better point with a
    logistic chance of the objective's gap). The trajectory after each batch."""
    path = []
    k = spsa.done + 1
    while k <= until:
        ks = range(k, min(until, k + batch - 1) + 1)
        theta = list(spsa.theta)                 # a batch is played at one theta
        results = []
        for i in ks:
            plus, minus, delta = spsa.points(i, theta)
            gap = _objective(spsa.played(plus, i, "+")) - _objective(spsa.played(minus, i, "-"))
            p_win = 1 / (1 + math.exp(-4 * gap))
            score = sum(rng.random() < p_win for _ in range(6)) / 6
            results.append((i, delta, 2 * score - 1))
        for i, delta, r in results:
            spsa.tell(i, delta, r)
        path.append(list(spsa.theta))
        k = ks[-1] + 1
    return path


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_spsa_finds_the_optimum_of_a_noisy_objective(seed):
    spsa = Spsa(_params(), iterations=4000, seed=seed)
    _play(spsa, random.Random(seed), batch=8, until=4000)
    x, y, n = spsa.theta
    # tolerance: 0.3 on x and y (2 % of their range), 2 on n (2 %); from 0, 0, 20
    assert abs(x - 3.0) < 0.3 and abs(y + 2.0) < 0.3 and abs(n - 40.0) < 2.0, spsa.theta


def test_the_same_seed_and_batch_give_the_same_trajectory_and_a_resumed_run_agrees():
    a = Spsa(_params(), iterations=600, seed=5)
    whole = _play(a, random.Random(9), batch=4, until=600)
    b = Spsa(_params(), iterations=600, seed=5)
    rng = random.Random(9)
    first = _play(b, rng, batch=4, until=300)
    c = Spsa.from_json(b.to_json())                 # as a resumed run rebuilds it
    rest = _play(c, rng, batch=4, until=600)
    assert first + rest == whole and c.theta == a.theta and c.done == 600


def test_stochastic_rounding_keeps_the_expected_value():
    p = TuneParam.parse("n=20,0,100,6,0.003", integer=True)
    s = Spsa([p], iterations=100, seed=1)
    got = [s.played([20.3], k, "+")[0] for k in range(1, 4001)]
    assert set(got) == {20, 21} and abs(sum(got) / len(got) - 20.3) < 0.03


def test_points_stay_within_bounds_and_perturbations_shrink():
    p = TuneParam.parse("x=7.9,-8,8,0.8,0.01")
    s = Spsa([p], iterations=1000, seed=1)
    for k in (1, 10, 1000):
        plus, minus, _ = s.points(k)
        assert -8 <= minus[0] <= plus[0] + 2 and max(plus[0], minus[0]) <= 8
    assert s.c_k(p, 1) > s.c_k(p, 1000) == pytest.approx(0.8)
    assert s.a_k(p, 1000) / s.c_k(p, 1000) ** 2 == pytest.approx(0.01)


@pytest.mark.parametrize("text, fragment", [
    ("c=5,0,3,0.1,0.002", "outside its range"),
    ("c=1,3,0,0.1,0.002", "must be below"),
    ("c=1,0,3,0,0.002", "c_end"),
    ("c=1,0,3,2,0.002", "c_end"),
    ("c=1,0,3,0.1,-1", "r_end"),
    ("c=1,0,3", "5 numbers"),
    ("c=1,0,x,0.1,0.002", "not a number"),
    ("=1,0,3,0.1,0.002", "NAME="),
    ("c=nan,0,3,0.1,0.002", "finite"),
])
def test_bad_parameters_are_one_line_errors(text, fragment):
    with pytest.raises(ArenaError, match=fragment) as e:
        TuneParam.parse(text)
    assert "\n" not in str(e.value)


def test_bad_runs_are_one_line_errors():
    with pytest.raises(ArenaError, match="at least one"):
        Spsa([], 10)
    with pytest.raises(ArenaError, match="twice"):
        Spsa([TuneParam.parse("c=1,0,3,0.1,0.002")] * 2, 10)
    with pytest.raises(ArenaError, match="--iterations"):
        Spsa([TuneParam.parse("c=1,0,3,0.1,0.002")], 0)
    with pytest.raises(ArenaError, match=r"\[-1, 1\]"):
        Spsa([TuneParam.parse("c=1,0,3,0.1,0.002")], 10).tell(1, (1,), 3.0)
