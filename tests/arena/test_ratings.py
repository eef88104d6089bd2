"""Ratings: Elo fits against hand-solved cases, bootstrap intervals, duplicate
scores, the cross-table and the standings tables, on synthetic results."""

from __future__ import annotations

import dataclasses
import json
import math
import random
import time

import pytest

from arena.tournament.duel import mean_interval
from arena.stats.ratings import (
                                 PRIOR_SD, CrossCell, Interval, bootstrap_elo, cross_table, duplicate_scores, fit_elo, seat_stats, standings,
                                 )
from arena.render.standings import format_cross_table, format_standings
from arena.types import ArenaError, DealOutcome, Entrant, Fault, JobResult

X = math.log(10) / 400          # Elo -> natural-log odds


def logit(p: float) -> float:
    return math.log(p / (1 - p))


def outcome(seats, maker_side, won, margin=None, game=None) -> DealOutcome:
    """A deal: ``margin`` and ``game`` are the maker side's; the others get the negation."""
    m = (40.0 if won else -40.0) if margin is None else float(margin)
    g = (1 if won else -1) if game is None else game
    n = len(seats)
    return DealOutcome(tuple(seats), maker_side[0], tuple(maker_side), 0, 200, won,
                       tuple(g if s in maker_side else -g for s in range(n)),
                       tuple(m if s in maker_side else -m for s in range(n)))


def job(group, seats, deals, faults=(), key=None) -> JobResult:
    return JobResult(key or f"{group}.{seats}", group, tuple(seats), tuple(deals), tuple(faults))


def counted(group, seats, maker_side, wins, n) -> JobResult:
    """One job holding ``n`` deals of one shape, the maker side winning ``wins`` of them."""
    deals = (outcome(seats, maker_side, True),) * wins + (outcome(seats, maker_side, False),) * (n - wins)
    return job(group, seats, deals)


def two_entrants(w1, n1, w2, n2) -> list[JobResult]:
    """A (0) in seats 0 and 2, B (1) in seats 1 and 3; A's side makes n1 times and
    wins w1, B's side makes n2 times and wins w2. Every deal is its own group."""
    seats = (0, 1, 0, 1)
    deals = [outcome(seats, (0, 2), k < w1) for k in range(n1)]
    deals += [outcome(seats, (1, 3), k < w2) for k in range(n2)]
    return [job(g, seats, [d]) for g, d in enumerate(deals)]


def synthetic(groups, true, edge=80.0, players=5, rotations=3, seed=1) -> list[JobResult]:
    """Random line-ups, maker sides of two seats, outcomes drawn from the model."""
    rng = random.Random(seed)
    out = []
    n = len(true)
    for g in range(groups):
        for r in range(rotations):
            seats = tuple(rng.randrange(n) for _ in range(players))
            ms = tuple(sorted(rng.sample(range(players), 2)))
            s_m = sum(true[seats[s]] for s in ms) / len(ms)
            s_o = sum(true[seats[s]] for s in range(players) if s not in ms) / (players - len(ms))
            won = rng.random() < 1 / (1 + 10 ** (-(s_m - s_o + edge) / 400))
            out.append(job(g, seats, [outcome(seats, ms, won, margin=rng.choice((20, 60, 100)) * (1 if won else -1))],
                           key=f"{g}.{r}"))
    return out


# ------------------------------------------------------------------ Elo fit
@pytest.mark.parametrize("w1,n1,w2,n2", [
    (30, 40, 10, 40),      # A much stronger, no maker edge
    (30, 40, 20, 40),      # A stronger, maker edge
    (10, 40, 30, 40),      # B stronger
    (33, 60, 15, 50),      # unequal counts
    (24, 40, 24, 40),      # symmetric: equal ratings, only a maker edge
])
def test_two_entrants_match_the_closed_form(w1, n1, w2, n2):
    l1, l2 = logit(w1 / n1), logit(w2 / n2)
    d, h = (l1 - l2) / (2 * X), (l1 + l2) / (2 * X)
    results = two_entrants(w1, n1, w2, n2)
    exact = fit_elo(results, 2, prior=None)
    assert exact.converged and exact.deals == n1 + n2
    assert exact.ratings == pytest.approx((d / 2, -d / 2), abs=1e-6)
    assert exact.maker_edge == pytest.approx(h, abs=1e-6)
    fit = fit_elo(results, 2)
    assert fit.converged and fit.rated == (True, True)
    assert fit.ratings == pytest.approx((d / 2, -d / 2), abs=1.0)
    assert fit.maker_edge == pytest.approx(h, abs=1.0)


def test_symmetric_results_give_zero_ratings():
    fit = fit_elo(two_entrants(24, 40, 24, 40), 2)
    assert fit.ratings == pytest.approx((0.0, 0.0), abs=1e-9)
    assert fit.maker_edge == pytest.approx(logit(0.6) / X, abs=1.0)


def test_a_side_is_the_mean_of_its_seats():
    # 5 seats, maker side of 2 and opponents of 3, entrants counted with multiplicity:
    # A B B B B with maker (0, 1): maker mean (A+B)/2, opponents B  -> difference d/2
    # A A A A B with maker (0, 4): maker mean (A+B)/2, opponents A  -> difference -d/2
    w1, w2, n = 60, 30, 80
    l1, l2 = logit(w1 / n), logit(w2 / n)
    d, h = (l1 - l2) / X, (l1 + l2) / (2 * X)
    results = [counted(0, (0, 1, 1, 1, 1), (0, 1), w1, n), counted(1, (0, 0, 0, 0, 1), (0, 4), w2, n)]
    exact = fit_elo(results, 2, prior=None)
    assert exact.ratings == pytest.approx((d / 2, -d / 2), abs=1e-6)
    assert exact.maker_edge == pytest.approx(h, abs=1e-6)
    fit = fit_elo(results, 2)
    assert fit.ratings == pytest.approx((d / 2, -d / 2), abs=1.0)
    assert fit.maker_edge == pytest.approx(h, abs=1.0)


def test_three_entrants_recover_a_transitive_truth():
    true, edge, n = (120.0, 0.0, -120.0), 40.0, 4000
    results = []
    for i in range(3):
        for j in range(3):
            if i != j:       # i's side makes against j's side
                p = 1 / (1 + 10 ** (-(true[i] - true[j] + edge) / 400))
                results.append(counted(len(results), (i, j, i, j), (0, 2), round(p * n), n))
    fit = fit_elo(results, 3)
    assert fit.converged
    assert fit.ratings == pytest.approx(true, abs=1.0)
    assert fit.maker_edge == pytest.approx(edge, abs=1.0)
    assert fit.ratings[0] > fit.ratings[1] > fit.ratings[2]


def test_ratings_have_mean_zero_over_entrants_that_played():
    results = synthetic(60, (100.0, 30.0, -20.0, -110.0))
    fit = fit_elo(results, 6)           # entrants 4 and 5 never play
    assert fit.rated == (True, True, True, True, False, False)
    assert fit.ratings[4] == fit.ratings[5] == 0.0
    assert sum(fit.ratings[:4]) == pytest.approx(0.0, abs=1e-6)
    alone = fit_elo(results, 4)
    assert fit.ratings[:4] == pytest.approx(alone.ratings, abs=1e-6)
    assert fit.maker_edge == pytest.approx(alone.maker_edge, abs=1e-6)


def test_separable_results_stay_finite_and_ordered():
    # A always beats B, B always beats C, whoever makes.
    sep = []
    for g, (i, j) in enumerate([(0, 1), (1, 2)]):
        seats = (i, j, i, j)
        sep.append(job(g, seats, [outcome(seats, (0, 2), True), outcome(seats, (1, 3), False)] * 3))
    fit = fit_elo(sep, 3)
    assert fit.converged
    assert all(math.isfinite(r) for r in fit.ratings)
    assert fit.ratings[0] > fit.ratings[1] > fit.ratings[2]
    assert fit.ratings[0] - fit.ratings[2] > 800          # clearly apart, still finite
    assert not fit_elo(sep, 3, prior=None).converged      # plain ML runs away


def test_uninformative_deals_and_empty_input():
    seats = (0, 1, 0, 1)
    nobody = DealOutcome(seats, 0, (), 0, 200, False, (0,) * 4, (0.0,) * 4)
    everybody = DealOutcome(seats, 0, (0, 1, 2, 3), 0, 200, True, (0,) * 4, (0.0,) * 4)
    fit = fit_elo([job(0, seats, [nobody, everybody])], 2)
    assert fit.deals == 0 and fit.rated == (False, False) and fit.ratings == (0.0, 0.0)
    empty = fit_elo([], 3)
    assert empty == fit_elo([], 3) and empty.deals == 0 and empty.converged


@pytest.mark.parametrize("call", [
    lambda r: fit_elo(r, 1),
    lambda r: bootstrap_elo(r, 1, samples=5),
    lambda r: duplicate_scores(r, 1),
    lambda r: cross_table(r, 1),
    lambda r: seat_stats(r, 1),
    lambda r: standings(r, [Entrant("a", "random")], samples=5),
])
def test_unknown_entrant_is_an_arena_error(call):
    with pytest.raises(ArenaError, match="entrant 1 is not one of the 1 entrants"):
        call(two_entrants(1, 2, 1, 2))


@pytest.mark.parametrize("prior", [0.0, -5.0, math.inf, math.nan])
def test_bad_prior_is_refused(prior):
    with pytest.raises(ArenaError, match="prior"):
        fit_elo(two_entrants(1, 2, 1, 2), 2, prior=prior)


def test_default_prior_is_documented_value():
    assert PRIOR_SD == 1000.0


# ------------------------------------------------------------------ bootstrap
TRUE = (150.0, 50.0, 0.0, -50.0, -150.0)


def test_bootstrap_interval_contains_the_estimate():
    results = synthetic(80, TRUE)
    fit = fit_elo(results, 5)
    boot = bootstrap_elo(results, 5, samples=300, seed=3)
    assert boot.samples == 300 and boot.level == 0.95
    for r, (lo, hi) in zip(fit.ratings, boot.ratings):
        assert lo < r < hi
    lo, hi = boot.maker_edge
    assert lo < fit.maker_edge < hi
    assert boot.ratings[0][0] > boot.ratings[4][1]     # best and worst clearly apart


def test_bootstrap_is_deterministic_given_the_seed():
    results = synthetic(30, TRUE)
    a = bootstrap_elo(results, 5, samples=200, seed=7)
    assert a == bootstrap_elo(results, 5, samples=200, seed=7)
    assert a != bootstrap_elo(results, 5, samples=200, seed=8)


def test_bootstrap_is_wider_with_fewer_groups():
    many = synthetic(200, TRUE, seed=5)
    few = [r for r in many if r.group < 20]
    wide = bootstrap_elo(few, 5, samples=300)
    narrow = bootstrap_elo(many, 5, samples=300)
    for (lo_f, hi_f), (lo_m, hi_m) in zip(wide.ratings, narrow.ratings):
        assert hi_f - lo_f > 1.5 * (hi_m - lo_m)
    assert wide.maker_edge[1] - wide.maker_edge[0] > 1.5 * (narrow.maker_edge[1] - narrow.maker_edge[0])


def test_bootstrap_resamples_whole_groups():
    # Every group holds one A-wins and one B-wins deal: any resample of whole
    # groups is balanced, so every refit gives A = B = 0 exactly.
    seats = (0, 1, 0, 1)
    results = []
    for g in range(10):
        results.append(job(g, seats, [outcome(seats, (0, 2), True)], key=f"{g}.0"))
        results.append(job(g, (1, 0, 1, 0), [outcome((1, 0, 1, 0), (0, 2), True)], key=f"{g}.1"))
    boot = bootstrap_elo(results, 2, samples=100)
    for lo, hi in boot.ratings:
        assert lo == pytest.approx(0.0, abs=1e-6) and hi == pytest.approx(0.0, abs=1e-6)


def test_bootstrap_without_enough_groups_is_unbounded():
    one_group = [job(0, (0, 1, 0, 1), two_entrants(30, 40, 10, 40)[0].deals * 5)]
    boot = bootstrap_elo(one_group, 3, samples=50)
    assert boot.ratings == ((-math.inf, math.inf),) * 3
    assert boot.maker_edge == (-math.inf, math.inf)
    boot = bootstrap_elo(two_entrants(30, 40, 10, 40), 3, samples=50)
    assert boot.ratings[2] == (-math.inf, math.inf)        # never played
    assert all(math.isfinite(x) for x in boot.ratings[0] + boot.ratings[1])


def test_bootstrap_is_fast():
    results = synthetic(200, TRUE, rotations=5)             # 1000 deals
    start = time.perf_counter()
    boot = bootstrap_elo(results, 5, samples=1000)
    assert time.perf_counter() - start < 10.0
    assert all(math.isfinite(x) for pair in boot.ratings for x in pair)


# ------------------------------------------------------------------ duplicate scores
def hand_table() -> list[JobResult]:
    """2 groups x 2 rotations, maker side always seats 0 and 2.

    group 0: A B A B (maker margin +60, game +2), B A B A (-20, -1)
    group 1: A C A C (+10, +1),                    C A C A (+30, +3)
    """
    a, b, c = 0, 1, 2
    ms = (0, 2)
    rows = [(0, (a, b, a, b), 60, True, 2), (0, (b, a, b, a), -20, False, -1),
            (1, (a, c, a, c), 10, True, 1), (1, (c, a, c, a), 30, True, 3)]
    return [job(g, seats, [outcome(seats, ms, won, margin=m, game=gp)], key=f"{g}.{k}")
            for k, (g, seats, m, won, gp) in enumerate(rows)]


def test_duplicate_scores_by_hand():
    # par per seat: group 0 -> (+20, -20, +20, -20), group 1 -> (+20, -20, +20, -20)
    # A: group 0 -> +40 (60-20 twice, 20+20 twice), group 1 -> -10; B: -40 (group 0); C: +10 (group 1)
    scores = duplicate_scores(hand_table(), 4)
    a, b, c, d = scores
    half = 1.96 * math.sqrt((25.0 ** 2 + 25.0 ** 2) / 1 / 2)
    assert (a.mean, a.n) == (15.0, 2)
    assert a.lo == pytest.approx(15.0 - half) and a.hi == pytest.approx(15.0 + half)
    assert half == pytest.approx(49.0)
    assert b == Interval(-40.0, -math.inf, math.inf, 1)
    assert c == Interval(10.0, -math.inf, math.inf, 1)
    assert d.n == 0 and math.isnan(d.mean) and (d.lo, d.hi) == (-math.inf, math.inf)
    ref = mean_interval([40.0, -10.0])
    assert (a.mean, a.lo, a.hi) == pytest.approx((ref["mean"], ref["lo"], ref["hi"]))


def test_duplicate_score_is_zero_when_seats_never_change():
    seats = (0, 1, 0, 1)
    results = [job(0, seats, [outcome(seats, (0, 2), True, margin=80)], key="0.0"),
               job(0, seats, [outcome(seats, (1, 3), True, margin=40)], key="0.1")]
    a, b = duplicate_scores(results, 2)
    assert (a.mean, b.mean, a.n, b.n) == (0.0, 0.0, 1, 1)


def test_duplicate_par_is_over_every_deal_of_the_group():
    # A match-mode job with two deals and a one-deal job in the same group:
    # par of seat 0 = (+30 - 10 + 40) / 3 = +20 over the three deals.
    seats_a, seats_b = (0, 1, 0, 1), (1, 0, 1, 0)
    results = [job(0, seats_a, [outcome(seats_a, (0, 2), True, margin=30),
                                outcome(seats_a, (0, 2), False, margin=-10)], key="0.0"),
               job(0, seats_b, [outcome(seats_b, (0, 2), True, margin=40)], key="0.1")]
    a, b = duplicate_scores(results, 2)
    # par of seat 1: (-30 + 10 - 40) / 3 = -20.
    # A: seats 0,2 of deal 1 (+10 each) and deal 2 (-30 each), seats 1,3 of job 0.1 (-20 each)
    #    -> -80 / 6; B: seats 1,3 of deal 1 (-10 each), deal 2 (+30 each), seats 0,2 (+20 each) -> +80 / 6
    assert a.mean == pytest.approx(-80 / 6) and b.mean == pytest.approx(80 / 6)


def test_seat_stats_by_hand():
    a, b, c, d = seat_stats(hand_table(), 4)
    assert (a.deals, a.seats, a.margin, a.game_points) == (4, 8, 15.0, 0.25)
    assert (b.deals, b.seats, b.margin, b.game_points) == (2, 4, -40.0, -1.5)
    assert (c.deals, c.seats, c.margin, c.game_points) == (2, 4, 10.0, 1.0)
    assert (d.deals, d.seats) == (0, 0) and math.isnan(d.margin) and math.isnan(d.game_points)


# ------------------------------------------------------------------ cross-table
def test_cross_table_by_hand():
    table = cross_table(hand_table(), 3)
    assert set(table) == {(i, j) for i in range(3) for j in range(3) if i != j}
    assert table[(0, 1)] == CrossCell(8, 40.0, 1.0)       # A beat B as maker (+60) and as opponent (+20)
    assert table[(1, 0)] == CrossCell(8, -40.0, 0.0)
    assert table[(0, 2)] == CrossCell(8, -10.0, 0.5)      # +10 won, -30 lost
    assert table[(2, 0)] == CrossCell(8, 10.0, 0.5)
    for pair in [(1, 2), (2, 1)]:
        cell = table[pair]
        assert cell.n == 0 and math.isnan(cell.margin) and math.isnan(cell.win_rate)


def test_cross_table_counts_seat_pairs_on_opposite_sides():
    # A A B B A, maker side seats 0 and 2 (A, B), maker margin +50, maker side won.
    # (A, B) pairs: A0-B3, A1-B2, A4-B2 -> margins +50, -50, -50; wins 1 of 3.
    seats = (0, 0, 1, 1, 0)
    table = cross_table([job(0, seats, [outcome(seats, (0, 2), True, margin=50)])], 2)
    assert table[(0, 1)].n == 3 and table[(1, 0)].n == 3
    assert table[(0, 1)].margin == pytest.approx(-50 / 3) and table[(0, 1)].win_rate == pytest.approx(1 / 3)
    assert table[(1, 0)].margin == pytest.approx(50 / 3) and table[(1, 0)].win_rate == pytest.approx(2 / 3)


# ------------------------------------------------------------------ standings
ENTRANTS = [Entrant("alpha", "heuristic"), Entrant("beta", "random"), Entrant("gamma", "ismcts:iterations=50"),
            Entrant("idle", "random")]


def test_standings_rows_and_totals():
    results = synthetic(40, (-100.0, 0.0, 100.0), players=4, rotations=2)
    results[0] = JobResult(results[0].key, results[0].group, results[0].seats, results[0].deals,
                           (Fault(0, 2, "timeout", "slow"), Fault(1, 2, "timeout", "slow"), Fault(2, 0, "crash", "x")))
    st = standings(results, ENTRANTS, samples=200, seed=4)
    assert [r.name for r in st.rows] == ["gamma", "beta", "alpha", "idle"]
    assert [r.elo for r in st.rows[:3]] == sorted([r.elo for r in st.rows[:3]], reverse=True)
    assert (st.jobs, st.deals, st.rated_deals, st.groups, st.samples) == (80, 80, 80, 40, 200)
    fit, boot = fit_elo(results, 4), bootstrap_elo(results, 4, samples=200, seed=4)
    stats, dup = seat_stats(results, 4), duplicate_scores(results, 4)
    for row in st.rows:
        e = row.index
        assert (row.name, row.spec) == (ENTRANTS[e].name, ENTRANTS[e].spec)
        assert row.elo == fit.ratings[e] and (row.elo_lo, row.elo_hi) == boot.ratings[e]
        assert (row.deals, row.seats) == (stats[e].deals, stats[e].seats)
        assert row.dup == dup[e]
    assert (st.maker_edge_lo, st.maker_edge_hi) == boot.maker_edge and st.maker_edge == fit.maker_edge
    by_name = {r.name: r for r in st.rows}
    assert by_name["gamma"].faults == {"crash": 0, "timeout": 2, "illegal": 0, "died": 0, "protocol": 0, "memory": 0, "stall": 0}
    assert by_name["alpha"].faults == {"crash": 1, "timeout": 0, "illegal": 0, "died": 0, "protocol": 0, "memory": 0, "stall": 0}
    assert not by_name["idle"].rated and by_name["idle"].deals == 0
    assert st.cross == cross_table(results, 4)


def test_standings_json_is_plain():
    results = hand_table()                      # groups with one entrant: infinite intervals
    st = standings(results, ENTRANTS, samples=50)
    obj = st.to_json()
    text = json.dumps(obj, allow_nan=False)
    back = json.loads(text)
    assert back["deals"] == 4 and back["groups"] == 2 and len(back["rows"]) == 4
    assert [r["name"] for r in back["rows"]] == [r.name for r in st.rows]
    assert [r["rank"] for r in back["rows"]] == [1, 2, 3, 4]
    idle = next(r for r in back["rows"] if r["name"] == "idle")
    assert idle["dup"] == {"mean": None, "lo": None, "hi": None, "n": 0} and idle["margin"] is None
    cell = next(c for c in back["cross_table"] if (c["i"], c["j"]) == (0, 1))
    assert cell == {"i": 0, "j": 1, "n": 8, "margin": 40.0, "win_rate": 1.0}


def test_format_standings_lists_every_entrant_in_order():
    results = synthetic(30, (-100.0, 0.0, 100.0), players=4, rotations=2)
    st = standings(results, ENTRANTS, samples=100)
    text = format_standings(st)
    lines = text.splitlines()
    assert "Elo" in lines[0] and "dup score" in lines[0] and "faults" in lines[0]
    positions = [text.index(r.name) for r in st.rows]
    assert positions == sorted(positions)
    assert lines[-1].startswith("maker-side edge: ") and "over 60 deals in 30 groups" in lines[-1]
    assert len({len(line) for line in lines[1:-1]}) <= 2      # fixed-width body
    cross = format_cross_table(st)
    for e in ENTRANTS:
        assert e.name in cross


def test_format_cross_table_by_hand():
    text = format_cross_table(standings(hand_table(), ENTRANTS[:3], samples=20))
    assert "+40.0 100% (8)" in text and "-40.0 0% (8)" in text and "-10.0 50% (8)" in text


@pytest.mark.parametrize("entrants", [ENTRANTS, []])
def test_empty_results_give_empty_standings(entrants):
    st = standings([], entrants)
    assert (st.jobs, st.deals, st.rated_deals, st.groups) == (0, 0, 0, 0)
    assert len(st.rows) == len(entrants) and not any(r.rated for r in st.rows)
    text = format_standings(st)
    assert text.splitlines()[-1] == "no results yet"
    for e in entrants:
        assert e.name in text
    assert format_cross_table(st) == "no results yet"
    json.dumps(st.to_json(), allow_nan=False)


def test_match_wins_are_counted_per_seat_and_shown():
    ents = [Entrant("a", "random"), Entrant("b", "heuristic")]
    seats = (0, 1, 0, 1, 0)
    d1 = outcome(seats, (0, 2), True)
    d2 = outcome(seats, (1, 3), False)
    r1 = dataclasses.replace(job(0, seats, [d1, d2]), match_winners=(0, 2, 4))      # a holds all three
    r2 = dataclasses.replace(job(1, seats, [d2, d1], key="k2"), match_winners=(1, 2))  # one each
    st = standings([r1, r2], ents, samples=20)
    by = {r.name: r for r in st.rows}
    assert (by["a"].match_wins, by["a"].matches) == (4, 6)
    assert (by["b"].match_wins, by["b"].matches) == (1, 4)
    text = format_standings(st)
    assert "match wins" in text and "4/6 seats" in text and "1/4 seats" in text
    assert json.loads(json.dumps(st.to_json()))["rows"][0]["matches"] in (4, 6)
    plain = standings([dataclasses.replace(r1, match_winners=())], ents, samples=20)
    assert "match wins" not in format_standings(plain)


# ------------------------------------------------------------------ sparse fit, warm starts, one-step intervals
def dense_reference(results, n, prior=PRIOR_SD):
    """The fit as the dense code made it: a deals x (entrants + 1) design and
    plain Newton steps, written here apart from arena.stats.elo."""
    import numpy as np

    rows, ys = [], []
    for res in results:
        for d in res.deals:
            seats = d.seats or res.seats
            maker = {s for s in d.maker_side if 0 <= s < len(seats)}
            if not maker or len(maker) == len(seats):
                continue
            row = [0.0] * (n + 1)
            for s, e in enumerate(seats):
                row[e] += 1 / len(maker) if s in maker else -1 / (len(seats) - len(maker))
            row[n] = 1.0
            rows.append(row)
            ys.append(1.0 if d.maker_won else 0.0)
    x, y = np.array(rows), np.array(ys)
    played = np.abs(x[:, :n]).sum(axis=0) > 0
    pen = np.eye(n + 1) / prior ** 2
    pen[:n, :n] += 1e-4 * np.outer(played, played)
    theta = np.zeros(n + 1)
    for _ in range(100):
        p = 1 / (1 + np.exp(-X * (x @ theta)))
        step = np.linalg.solve(X * X * (x.T * (p * (1 - p))) @ x + pen, X * x.T @ (y - p) - pen @ theta)
        theta += step
        if np.abs(step).max() < 1e-9:
            break
    return theta


@pytest.mark.parametrize("seed,n,players", [(11, 7, 5), (12, 25, 4), (13, 40, 6)])
def test_sparse_fit_equals_the_dense_fit(seed, n, players):
    import numpy as np

    from arena.stats import elo
    from arena.stats.deals import deal_table

    rng = random.Random(seed)
    results = synthetic(150, [rng.gauss(0, 200) for _ in range(n)], players=players, seed=seed)
    des = elo.design(deal_table(results, n))
    sparse, ok = elo.newton(des, np.ones(des.deals), np.zeros(des.params), elo.penalty(des.params, PRIOR_SD))
    fit, ref = fit_elo(results, n), dense_reference(results, n)
    assert ok and fit.converged and list(des.rated) == list(range(n))
    assert list(sparse) == pytest.approx(list(ref), abs=1e-6)           # Elo
    assert fit.ratings == pytest.approx(list(ref[:n]), abs=1e-6)
    assert fit.maker_edge == pytest.approx(ref[n], abs=1e-6)


def test_warm_start_gives_the_cold_answer():
    rng = random.Random(5)
    true = [rng.gauss(0, 150) for _ in range(12)]
    results = synthetic(200, true, seed=5)
    half = fit_elo(results[:200], 14)                      # fewer games, two entrants never seen
    cold = fit_elo(results, 14)
    warm = fit_elo(results, 14, start=half)
    assert warm.converged and warm.rated == cold.rated
    assert warm.ratings == pytest.approx(cold.ratings, abs=1e-5)
    assert warm.maker_edge == pytest.approx(cold.maker_edge, abs=1e-5)


def test_one_step_intervals_stay_close_to_the_refitted_ones(monkeypatch):
    # Tolerance: each end within 15 % of the refitted interval's width (on
    # these sizes it is 7-12 %; it shrinks as the groups grow).
    import arena.stats.elo as elo

    rng = random.Random(2)
    results = synthetic(300, [rng.gauss(0, 150) for _ in range(12)], seed=2)
    exact = bootstrap_elo(results, 12, samples=300, seed=3)
    monkeypatch.setattr(elo, "EXACT_WORK", 0.0)
    one = bootstrap_elo(results, 12, samples=300, seed=3)
    assert one == bootstrap_elo(results, 12, samples=300, seed=3)        # deterministic
    for (lo, hi), (lo1, hi1) in zip(exact.ratings, one.ratings):
        assert abs(lo1 - lo) < 0.15 * (hi - lo) and abs(hi1 - hi) < 0.15 * (hi - lo)


def test_one_step_intervals_cover_as_the_refitted_ones(monkeypatch):
    import arena.stats.elo as elo

    true = (150.0, 50.0, 0.0, -50.0, -150.0)
    covered = {"exact": 0, "one-step": 0}
    for seed in range(12):
        results = synthetic(60, true, seed=100 + seed)
        for name, work in (("exact", elo.EXACT_WORK), ("one-step", 0.0)):
            monkeypatch.setattr(elo, "EXACT_WORK", work)
            boot = bootstrap_elo(results, 5, samples=200, seed=seed)
            fit = fit_elo(results, 5)
            shift = sum(true) / 5 - sum(fit.ratings) / 5                 # both have mean 0
            covered[name] += sum(lo <= t - shift <= hi for t, (lo, hi) in zip(true, boot.ratings))
    assert covered["exact"] >= 0.8 * 60
    assert abs(covered["one-step"] - covered["exact"]) <= 4, covered


def test_one_step_bootstrap_of_balanced_groups_is_exact(monkeypatch):
    import arena.stats.elo as elo

    monkeypatch.setattr(elo, "EXACT_WORK", 0.0)
    seats = (0, 1, 0, 1)
    results = []
    for g in range(10):
        results.append(job(g, seats, [outcome(seats, (0, 2), True)], key=f"{g}.0"))
        results.append(job(g, (1, 0, 1, 0), [outcome((1, 0, 1, 0), (0, 2), True)], key=f"{g}.1"))
    for lo, hi in bootstrap_elo(results, 2, samples=100).ratings:
        assert lo == pytest.approx(0.0, abs=1e-6) and hi == pytest.approx(0.0, abs=1e-6)


def test_standings_read_straight_from_json_equal_those_of_the_values(tmp_path):
    """``arena standings`` reads the stored JSON into columns without
    building each result; the standings are the very same, faults and
    matches included, and a damaged result is one line."""
    from arena.store.results import Store
    from arena.types import ResultColumns

    results = synthetic(30, [0.0, 60.0, -40.0])
    results[3] = dataclasses.replace(results[3], faults=(Fault(0, 1, "timeout", "slow", 4),))
    results[5] = dataclasses.replace(results[5], match_winners=(0, 2))
    ents = [Entrant(n, "random") for n in "ABC"]
    direct = standings(results, ents, samples=100, seed=3).to_json()
    cols = ResultColumns.from_json([json.loads(json.dumps(r.to_json())) for r in results])
    assert cols == ResultColumns.of(results)
    assert standings(cols, ents, samples=100, seed=3).to_json() == direct
    import sqlite3

    db = str(tmp_path / "r.db")
    with Store(db) as st:
        from arena.types import Job

        jobs = [Job(i, r.key, r.group, 1, 0, 0, r.seats) for i, r in enumerate(results)]
        run, _ = st.open_run("ident", "t", {"name": "t"}, ents, jobs)
        for j, r in zip(jobs, results):
            st.add_result(run, j, r)
        assert standings(st.result_columns(run), ents, samples=100, seed=3).to_json() == direct
    con = sqlite3.connect(db)
    con.execute("UPDATE results SET result_json = '{\"key\": 1}' WHERE key = ?", (results[2].key,))
    con.commit()
    con.close()
    with Store(db, read_only=True) as st:
        with pytest.raises(ArenaError, match=f"damaged .*{results[2].key}"):
            st.result_columns(run)
