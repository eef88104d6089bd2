"""Four players with fixed partners: the ``tractor`` preset and the ``partners`` setting.

Each rule is checked against values worked out by hand from ``003`` and
``docs/kernel.md``: seats 0 and 2 against 1 and 3, known from the start; no
friend calls; the two-pack bands; the next banker; levels that climb per team.
"""

from __future__ import annotations

import random

import pytest

from core.account import deal_account
from core.cards import Trump
from core.levels import level_rank, next_maker
from core.match import Match, play_random_match
from core.play import PlayCore
from core.records import deal_record
from core.rules import Rules
from core.scoring import MAKER, OPPONENTS, kitty_multiplier, score_deal
from core.state import PLAY_PHASE, State

TRACTOR = Rules.preset("tractor")


def _to_play(seed: int) -> tuple[State, random.Random]:
    """A tractor deal played at random up to its first trick."""
    rng = random.Random(seed)
    s = State(TRACTOR, seed=seed)
    while s.phase != PLAY_PHASE:
        s.apply(s.random_legal_action(rng))
    return s, rng


@pytest.mark.parametrize("maker,side", [(0, {0, 2}), (1, {1, 3}), (2, {0, 2}), (3, {1, 3})])
def test_partners_sit_across_the_table(maker, side):
    assert TRACTOR.first_side(maker) == side
    hands = [[] for _ in range(4)]
    pc = PlayCore.start(TRACTOR, Trump(2, 0), maker, hands)
    assert pc.maker_side == side


@pytest.mark.parametrize("players,maker,side", [(6, 1, {1, 3, 5}), (6, 4, {0, 2, 4}), (8, 3, {1, 3, 5, 7})])
def test_fixed_partners_at_larger_even_tables(players, maker, side):
    r = Rules.preset("pagat", players=players, partners="fixed", friend_calls=0)
    assert r.first_side(maker) == side
    assert r.side_size == players // 2


@pytest.mark.parametrize("players", [5, 6, 12])
def test_called_partners_start_with_the_maker_alone(players):
    r = Rules.preset("pagat", players=players)
    assert r.first_side(2) == {2}
    assert r.side_size == 1 + r.friend_calls


@pytest.mark.parametrize("seed", range(6))
def test_no_calls_and_the_partner_is_known_in_play(seed):
    s, _ = _to_play(seed)
    assert s.calls == []
    assert s.play is not None and s.maker is not None
    assert s.play.maker_side == {s.maker, (s.maker + 2) % 4}
    for seat in range(4):
        v = s.view(seat)
        assert v.calls == () and v.maker == s.maker


@pytest.mark.parametrize("seed", range(6))
def test_sides_never_change_during_play(seed):
    s, rng = _to_play(seed)
    side = s.play.maker_side
    while not s.is_terminal():
        s.apply(s.random_legal_action(rng))
        assert s.play.maker_side == side
    res = s.result
    assert res.maker_side == side
    assert s.winners() in (frozenset(), side, frozenset(range(4)) - side)


# opponents' points -> (winner, game points, next side): the two-pack bands of ``003``
BANDS = [
    (0, MAKER, 3, MAKER), (5, MAKER, 2, MAKER), (35, MAKER, 2, MAKER), (40, MAKER, 1, MAKER),
    (75, MAKER, 1, MAKER), (80, None, 0, OPPONENTS), (115, None, 0, OPPONENTS), (120, OPPONENTS, 1, OPPONENTS),
    (155, OPPONENTS, 1, OPPONENTS), (160, OPPONENTS, 2, OPPONENTS), (195, OPPONENTS, 2, OPPONENTS),
    (200, OPPONENTS, 3, OPPONENTS), (260, OPPONENTS, 3, OPPONENTS),
]


@pytest.mark.parametrize("points,winner,gain,nxt", BANDS)
def test_two_pack_bands(points, winner, gain, nxt):
    sc = score_deal(TRACTOR, points, maker_side_size=2)
    assert (sc.winner, sc.game_points, sc.next_side) == (winner, gain, nxt)


def test_a_side_is_always_two():
    with pytest.raises(Exception, match="maker_side_size: 3 is not from 1 to 2"):
        score_deal(TRACTOR, 40, maker_side_size=3)


@pytest.mark.parametrize("cards,unit,mult", [(1, 1, 2), (2, 2, 4), (4, 4, 8), (6, 6, 12), (3, 2, 4)])
def test_kitty_counts_twice_the_largest_unit(cards, unit, mult):
    assert kitty_multiplier(TRACTOR, winning_play_cards=cards, largest_unit_cards=unit,
                            cards_per_player=cards) == mult


@pytest.mark.parametrize("maker,won,nxt", [(0, True, 2), (0, False, 1), (1, True, 3), (1, False, 2),
                                           (3, True, 1), (3, False, 0), (2, False, 3)])
def test_next_banker(maker, won, nxt):
    """The partner after a defence, the next seat after a loss (or a no-score band)."""
    assert next_maker(TRACTOR, maker, TRACTOR.first_side(maker), won) == nxt


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_match_climbs_per_team_and_the_banker_plays_at_its_level(seed):
    m = play_random_match(TRACTOR, seed=seed, max_deals=8)
    for i, s in enumerate(m.deals):
        lv = m.level_history[i]
        assert lv[0] == lv[2] and lv[1] == lv[3]
        if i > 0:
            prev = m.deals[i - 1].result
            assert s.fixed_maker == next_maker(TRACTOR, prev.maker, prev.maker_side, prev.next_side == MAKER)
            assert s.maker == s.fixed_maker
            assert s.trump.rank == level_rank(lv[s.maker].level, TRACTOR)
    assert m.levels[0] == m.levels[2] and m.levels[1] == m.levels[3]


@pytest.mark.parametrize("seed", range(5))
def test_the_first_banker_is_a_declarer(seed):
    s = Match(TRACTOR, seed=seed).new_deal()
    assert s.fixed_maker is None
    rng = random.Random(seed)
    while not s.is_terminal():
        s.apply(s.random_legal_action(rng))
    assert s.maker in {seat for seat, kind, _ in s.exposures if kind in ("expose", "defend")}


def test_account_names_the_teams_and_no_short_side():
    rng = random.Random(4)
    s = State(TRACTOR, seed=4)
    while not s.is_terminal():
        s.apply(s.random_legal_action(rng))
    text = "\n".join(deal_account(deal_record(s)))
    assert "short of a full side" not in text
    side, opp = sorted(s.result.maker_side), sorted(set(range(4)) - s.result.maker_side)
    assert f"maker side: {side[0]} {side[1]}; opponents: {opp[0]} {opp[1]}" in text
