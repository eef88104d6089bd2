"""A match of deals (``core/game.py``): levels, starters, makers, the end.

Expected values come from ``shared/design/RULES.md`` ("Levels and the
match"): the starter of the next draw is the next seat; winners climb by the
game points (a passive winner's first point only makes them active) and the
losers become passive (``active_passive``) or stay (``plain``); a deal with
no score changes nothing; ``heli``/``stack`` predetermine the next maker as
the first seat after the maker on the side that won (the opponents after a
no-score deal); the match ends at the target rank or, for ``thirteen``, at
13 game points. The checks below are written out here, independently of
``core/match.py``, except where a test says it compares with it.
"""

from __future__ import annotations

import random

import pytest

from core.actions import Action
from core.errors import PengyouError
from core.match import JOKER_LEVEL_DEALS, SEED_STRIDE, Match, deal_seed, play_random_match
from core.levels import PlayerLevel, apply_deal
from core.rules import Rules
from core.state import DRAW, PLAY_PHASE, State


def finish(state: State, rng: random.Random) -> State:
    while not state.is_terminal():
        state.apply(state.random_legal_action(rng))
    return state


def expected_levels(rules: Rules, before, winners, gp):
    """Levels after a deal, as RULES.md words it (no joker level here)."""
    if gp == 0:
        return list(before)
    out = []
    for seat, (level, active) in enumerate(before):
        if seat in winners:
            climb = gp if (active or rules.levels == "plain") else gp - 1
            new = level + climb
            if not rules.joker_level:
                new = min(new, max(level, rules.target_rank))
            out.append(PlayerLevel(new, True))
        else:
            out.append(PlayerLevel(level, rules.levels == "plain"))
    return out


def expected_maker(state: State, n: int) -> int:
    """First seat after the maker, in play order, on the side that takes the next deal."""
    res = state.result
    maker_won = res.next_side == "maker"
    for step in range(1, n):
        seat = (res.maker + step) % n
        if (seat in res.maker_side) == maker_won:
            return seat
    assert maker_won
    return res.maker


def run_match(rules: Rules, seed: int, max_deals=None, rng=None):
    """Play a match deal by deal, checking the bookkeeping after each."""
    rng = rng or random.Random(seed)
    m = Match(rules, seed, max_deals)
    n = rules.players
    totals = [0] * n
    while not m.is_over():
        k = len(m.deals)
        before = list(m.levels)
        want_maker = m.maker_next
        s = m.new_deal()
        assert s.seed == seed * 1_000_003 + k == deal_seed(seed, k)
        assert s.starter == k % n
        assert s.fixed_maker == want_maker
        if k == 0 or rules.exposure not in ("heli", "stack"):
            assert want_maker is None
        if s.phase != DRAW or s.redeals == 0:
            assert s.levels == before or s.redeals > 0
        finish(s, rng)
        if want_maker is not None:
            assert s.maker == want_maker
        m.finish_deal(s)
        res = s.result
        # the levels the deal ended with (after any redeal) climb
        assert m.levels == expected_levels(rules, s.levels, s.winners(), res.game_points)
        assert m.levels == apply_deal(rules, s.levels, s.winners(), res.game_points)
        if res.winner is None:
            assert m.levels == s.levels
        for seat in s.winners():
            totals[seat] += res.game_points
        assert m.game_points_total == totals
        assert m.starter == (k + 1) % n
        if rules.exposure in ("heli", "stack"):
            assert m.maker_next == expected_maker(s, n)
        else:
            assert m.maker_next is None
        assert m.deals[-1] is s and m.level_history[-1] == before
    return m


# --------------------------------------------------------------------------


def test_new_match():
    r = Rules.preset("pagat", players=7)
    m = Match(r, seed=9)
    assert m.levels == [PlayerLevel(2, True)] * 7
    assert m.starter == 0 and m.maker_next is None and m.max_deals is None
    assert m.game_points_total == [0] * 7 and m.deals == [] and not m.is_over()
    assert m.next_seed() == 9 * SEED_STRIDE == 9_000_027


def test_pagat_match_to_three_ends():
    r = Rules.preset("pagat", players=6, target_rank=3)
    for seed in (1, 2, 3):
        m = run_match(r, seed)
        assert m.is_over()
        assert max(lv.level for lv in m.levels) == 3
        assert all(lv.level <= 3 for lv in m.levels)
        # not over one deal earlier
        assert all(lv.level < 3 for lv in m.level_history[-1])


def test_pagat_match_levels_and_passive_players():
    r = Rules.preset("pagat", players=8, target_rank=6)
    m = run_match(r, 4)
    assert m.is_over() and max(lv.level for lv in m.levels) == 6
    assert len(m.deals) >= 2
    # after the first deal the losers are passive
    first = m.deals[0]
    assert [lv.active for lv in m.level_history[1]] == [s in first.winners() for s in range(8)]


def test_full_pagat_match_to_ace():
    m = run_match(Rules.preset("pagat", players=5), 12)
    assert m.is_over() and max(lv.level for lv in m.levels) == 14


def test_thirteen_ends_at_13_game_points():
    r = Rules.preset("thirteen", players=6)
    assert r.target_points == 13
    ended_by_points = 0
    for seed in (1, 2, 3):
        m = run_match(r, seed)
        top_points = max(m.game_points_total)
        top_level = max(lv.level for lv in m.levels)
        assert top_points >= 13 or top_level >= 14
        ended_by_points += top_points >= 13 and top_level < 14
    assert ended_by_points >= 1


def test_thirteen_points_end_before_the_levels():
    r = Rules.preset("thirteen", players=6)
    m = Match(r, 3)
    m.game_points_total = [12] * 6
    assert not m.is_over()
    m.finish_deal(finish(m.new_deal(), random.Random(3)))   # pagat scoring always has a winner
    assert m.is_over()
    assert max(lv.level for lv in m.levels) < 14
    assert max(m.game_points_total) >= 13
    with pytest.raises(PengyouError, match="over"):
        m.new_deal()


@pytest.mark.parametrize("preset,players", [("heli", 5), ("heli", 8), ("stack", 6)])
def test_predetermined_makers(preset, players):
    r = Rules.preset(preset, players=players)
    m = run_match(r, 5, max_deals=6)
    assert len(m.deals) == 6
    assert m.deals[0].fixed_maker is None
    for prev, s in zip(m.deals, m.deals[1:]):
        assert s.fixed_maker == expected_maker(prev, players) == s.maker


def test_no_score_deals_keep_levels():
    seen = 0
    for preset, seed in (("stack", 1), ("bottom-eight", 2), ("heli", 3), ("stack", 4)):
        m = run_match(Rules.preset(preset), seed, max_deals=6)
        for s, _before in zip(m.deals, m.level_history):
            if s.result.winner is None:
                seen += 1
                assert s.result.game_points == 0 and s.winners() == frozenset()
        # run_match checked the levels of every deal
    assert seen >= 1


def test_heli_goes_past_ace_with_joker_level():
    r = Rules.preset("heli", players=5)
    m = Match(r, 2, max_deals=3)
    m.levels = [PlayerLevel(14, True)] * 5
    rng = random.Random(2)
    while not m.is_over():
        s = m.new_deal()
        finish(s, rng)
        m.finish_deal(s)
    assert len(m.deals) == 3
    assert max(lv.level for lv in m.levels) > 14            # A is not the end in heli
    jokers = [s for s, lv in zip(m.deals, m.level_history)
              if s.fixed_maker is not None and lv[s.fixed_maker].level == 15]
    for s in jokers:
        assert tuple(s.trump) == (None, None)


def test_heli_default_deal_limit():
    m = Match(Rules.preset("heli", players=5), 1)
    assert m.max_deals == JOKER_LEVEL_DEALS == 20
    m = play_random_match(Rules.preset("heli", players=5), 1)
    assert len(m.deals) == JOKER_LEVEL_DEALS and m.is_over()
    # a points target ends heli by itself: no default limit then
    assert Match(Rules.preset("heli", players=5, target_points=10), 1).max_deals is None
    assert Match(Rules.preset("pagat"), 1).max_deals is None


def test_max_deals():
    m = play_random_match(Rules.preset("pagat", players=6), 3, random.Random(3), max_deals=2)
    assert len(m.deals) == 2 and m.is_over()


def test_redeal_levels_are_the_deals_levels():
    """A redealt deal makes everyone active; the climb starts from there."""
    r = Rules.preset("pagat", players=6)
    rng = random.Random(8)
    m = Match(r, 8)
    m.finish_deal(finish(m.new_deal(), rng))
    assert not all(lv.active for lv in m.levels)
    before = list(m.levels)
    s = m.new_deal()
    while s.phase == DRAW and s.redeals == 0:
        s.apply(Action.pass_())
    assert s.redeals == 1
    finish(s, rng)
    m.finish_deal(s)
    assert all(lv.active for lv in s.levels)
    assert m.level_history[-1] == before
    assert m.levels == expected_levels(r, s.levels, s.winners(), s.result.game_points)
    # a passive winner climbs a full level per point, as everyone was active
    for seat in s.winners():
        assert m.levels[seat].level == before[seat].level + s.result.game_points


def test_deterministic():
    r = Rules.preset("stack")
    a = play_random_match(r, 7, max_deals=3)
    b = play_random_match(r, 7, max_deals=3)
    assert [s.history for s in a.deals] == [s.history for s in b.deals]
    assert [s.decks for s in a.deals] == [s.decks for s in b.deals]
    assert a.levels == b.levels
    c = play_random_match(r, 8, max_deals=3)
    assert [s.decks for s in a.deals] != [s.decks for s in c.deals]


def test_misuse():
    r = Rules.preset("pagat", players=6)
    for bad in (dict(rules="pagat", seed=1), dict(rules=r, seed=1.5), dict(rules=r, seed=True),
                dict(rules=r, seed=1, max_deals=0), dict(rules=r, seed=1, max_deals="3")):
        with pytest.raises(PengyouError) as ei:
            Match(**bad)
        assert "\n" not in str(ei.value)
    m = Match(r, 1)
    s = m.new_deal()
    with pytest.raises(PengyouError, match="finish the deal in progress"):
        m.new_deal()
    with pytest.raises(PengyouError, match="not over"):
        m.finish_deal(s)
    other = finish(State(r, seed=1), random.Random(1))
    with pytest.raises(PengyouError, match="new_deal returned"):
        m.finish_deal(other)
    finish(s, random.Random(1))
    m.finish_deal(s)
    with pytest.raises(PengyouError, match="new_deal returned"):
        m.finish_deal(s)
    assert len(m.deals) == 1


def test_legal_actions_at_a_lead():
    s = State(Rules.preset("pagat", players=6), seed=1)
    rng = random.Random(1)
    while s.phase != PLAY_PHASE:
        s.apply(s.random_legal_action(rng))
    assert s.play.is_leading
    leads = list(s.legal_actions())
    assert leads and all(a in s.legal_actions() for a in leads)
