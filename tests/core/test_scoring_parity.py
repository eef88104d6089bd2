"""End-of-deal scoring has one compiled owner in the kernel, called by core.scoring, the
deal engine and the search; here it is checked against its plain-Python twin on 10,000
random inputs each, and a finished play's result against the deal engine's."""

from __future__ import annotations

import random

from core import _kernel, kernel
from core.cards import points
from core.rules import Rules
from core.state import State
from core.scoring import kitty_multiplier, opponents_points

import scoring_reference as ref

CASES = 10_000


def test_kitty_multiplier_matches_the_reference():
    rng = random.Random(1)
    for _ in range(CASES):
        kind = rng.choice(_kernel.MULTIPLIERS)
        per = rng.randint(1, 24)
        win, unit, pairs = rng.randint(1, per), rng.randint(1, per), rng.randint(0, per // 2)
        want = ref.multiplier(kind, win, unit, per, pairs)
        assert _kernel.kitty_multiplier_of(kind, win, unit, per, pairs) == want
        assert kitty_multiplier(Rules(kitty_multiplier=kind), win, unit, per, pairs) == want


def test_opponents_points_and_margin_match_the_reference():
    rng = random.Random(2)
    for _ in range(CASES):
        n = rng.randint(5, 12)
        pts = [rng.choice((0, 0, 5, 10, 15, 25, 40, 60, 100)) for _ in range(n)]
        pen = [rng.choice((0, 0, 0, 10, 20, 50)) for _ in range(n)]
        side = set(rng.sample(range(n), rng.randint(1, n - 1)))
        kitty, to_opp, mult = rng.randint(0, 60), rng.random() < 0.5, rng.choice((2, 3, 4, 8, 16, 24))
        want = ref.opponents_total(pts, side, kitty, to_opp, mult, pen)
        assert opponents_points(pts, side, kitty, to_opp, mult, pen) == want
        total = 100 * rng.randint(1, 4)
        assert _kernel.card_margin(total, want) == ref.card_margin(total, want)


def test_deal_results_match_the_reference():
    """Whole random deals: the engine's opponents' points and multiplier are the twin's."""
    checked = 0
    for preset, players in (("pagat", 5), ("pagat", 6), ("pagat", 10), ("heli", 6), ("bottom-eight", 5),
                            ("stack", 6), ("thirteen", 8)):
        rules = Rules.preset(preset, players=players)
        for seed in range(40):
            s, rng = State(rules, seed=seed), random.Random(seed)
            while not s.is_terminal():
                s.apply(s.random_legal_action(rng))
            res, pc = s.result, s.play
            w, cards, unit = pc.last_trick
            mult = ref.multiplier(rules.kitty_multiplier, max(cards, 1), max(unit, 1), max(cards, 1))
            assert res.kitty_multiplier == mult
            assert res.kitty_to_opponents == (w not in res.maker_side)
            assert res.opponents_points == ref.opponents_total(
                pc.points, res.maker_side, points(s.kitty), res.kitty_to_opponents, mult, pc.penalties)
            checked += 1
    assert checked == 7 * 40


def test_deals_ended_by_a_failed_throw_match_the_reference():
    """Whole random deals under ``failed_throw`` ``end_deal``: where a failed throw stopped the
    play, the engine's opponents' points, multiplier and kitty side are the twin's (the cards
    left in hands counted by the test from the hands themselves)."""
    ended = 0
    for preset, players, extra in (("pagat", 5, {}), ("pagat", 6, {"kitty_multiplier": "by_cards"}),
                                   ("pagat", 9, {"kitty_multiplier": "pairs_power"}),
                                   ("heli", 6, {"throw_penalty_per": "attempt"}), ("tractor", 4, {}),
                                   ("shengji-online", 7, {})):
        rules = Rules.preset(preset, players=players, failed_throw="end_deal", **extra)
        for seed in range(40):
            s, rng = State(rules, seed=seed), random.Random(seed)
            while not s.is_terminal():
                s.apply(s.random_legal_action(rng))
            res, pc = s.result, s.play
            if not pc.ended:
                continue
            thrower, _, kept = s.failed_throws[-1]
            left = sum(points(s.hand(i)) for i in range(players))
            units = [(u.width, u.length) for u in kernel.make_lead(kept, s.trump, rules).units]
            assert len(units) == 1
            want = ref.ended_total(pc.points, res.maker_side, pc.penalties, thrower, left, points(s.kitty),
                                   rules.kitty_multiplier, units)
            assert (res.opponents_points, res.kitty_multiplier, res.kitty_to_opponents) == want
            ended += 1
    assert ended > 60
