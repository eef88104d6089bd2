"""The preset ``shengji-online``: rbtying/shengji's Finding Friends game with
its default settings. Each table below is a position whose outcome that
engine documents or tests (its ``mechanics/src/scoring.rs`` tests for the
level changes, ``bidding.rs`` for what overrides a bid, the deal shape of
``initialize_phase.rs``), worked out here by hand and checked against ours.
"""

from __future__ import annotations

import random

import pytest
from test_state_phases import build_deck, run_draw

from bots import make_bot, play_deal
from core.cards import Trump
from core.levels import PlayerLevel, apply_deal, next_maker
from core.rules import Rules, shengji_online_deal
from core.scoring import MAKER, OPPONENTS, kitty_multiplier, score_deal
from core.state import BURY_PHASE, State

C, D, H, S = 0, 1, 2, 3


def online(players: int = 5, **overrides) -> Rules:
    return Rules.preset("shengji-online", players=players, **overrides)


# players -> (packs, jokers of each colour, hand size, kitty size, friends): players // 2 decks of 54;
# the kitty is 54 * decks mod players, or players when that is 0, plus players while under 5;
# friends players // 2 - 1
DEALS = {
    5: (2, 2, 20, 8, 1),       # 108 cards: 108 mod 5 = 3, under 5, so 3 + 5
    6: (3, 3, 26, 6, 2),       # 162 mod 6 = 0: a kitty of 6
    7: (3, 3, 22, 8, 2),       # 162 mod 7 = 1: 1 + 7
    8: (4, 4, 26, 8, 3),       # 216 mod 8 = 0: 8
    9: (4, 4, 23, 9, 3),       # 216 mod 9 = 0: 9
}


@pytest.mark.parametrize("players", sorted(DEALS))
def test_the_deal_for_each_table_size(players):
    r = online(players)
    packs, jokers, hand, kitty, friends = DEALS[players]
    assert (r.packs, r.red_jokers, r.black_jokers, r.hand_size, r.kitty_size, r.friend_calls) == \
        (packs, jokers, jokers, hand, kitty, friends)
    assert shengji_online_deal(players) == (packs, kitty)


# opponents' points -> (winner, levels) with the side at full size: rbtying's test_level_deltas
# (two decks: steps of 40; 0 gives 3, below 40 gives 2, below 80 gives 1, 80 to 115 nobody, then one
# level more for every further 40, with no top)
SCORES_TWO_DECKS = [
    (0, MAKER, 3), (5, MAKER, 2), (35, MAKER, 2), (40, MAKER, 1), (75, MAKER, 1), (80, None, 0),
    (115, None, 0), (120, OPPONENTS, 1), (155, OPPONENTS, 1), (160, OPPONENTS, 2), (195, OPPONENTS, 2),
    (200, OPPONENTS, 3), (235, OPPONENTS, 3), (240, OPPONENTS, 4), (280, OPPONENTS, 5),
]


@pytest.mark.parametrize("points,winner,levels", SCORES_TWO_DECKS)
def test_level_changes_with_two_decks(points, winner, levels):
    r = online(5)
    sc = score_deal(r, points, r.side_size)
    assert (sc.winner, sc.game_points) == (winner, levels)
    assert sc.next_side == (MAKER if winner == MAKER else OPPONENTS)


# (players, opponents' points, maker side size, levels the maker side wins): the bonus level of a
# smaller landlord team (rbtying's BonusLevelForSmallerLandlordTeam, its tests' last three cases)
BONUS = [(5, 0, 1, 4), (5, 0, 2, 3), (6, 0, 2, 4), (6, 50, 2, 3), (6, 50, 3, 2), (6, 60, 3, 1)]


@pytest.mark.parametrize("players,points,size,levels", BONUS)
def test_a_short_landlord_team_wins_a_bonus_level(players, points, size, levels):
    sc = score_deal(online(players), points, size)
    assert (sc.winner, sc.game_points) == (MAKER, levels)


# (cards in the winning play, in the largest unit, per player) -> the kitty's multiplier: twice the
# largest unit of the last trick (rbtying's KittyPenalty::Times)
KITTY = [((1, 1, 1), 2), ((2, 2, 2), 4), ((4, 4, 4), 8), ((3, 2, 3), 4), ((6, 6, 6), 12)]


@pytest.mark.parametrize("cards,mult", KITTY)
def test_kitty_multiplier(cards, mult):
    assert kitty_multiplier(online(), *cards) == mult


# Bids in the first deal (five players, every seat at 2; jokers pinned so none surprises): the
# script, the decisions met, the options at some, the trump and the maker
BIDS = [
    pytest.param(
        {1: "2H 2H", 3: "2S 2S"}, "BJ BJ RJ RJ", {(2, 1): "expose 2H", (9, 3): "expose 2S 2S"},
        # seat 1 may reinforce its 2H at its second card; after seat 3's pair it is never asked to
        # defend (no defence), and a pair of 2H does not beat a pair of 2S
        [(2, 1), (7, 1), (9, 3)], {(7, 1): ["expose 2H 2H", "pass"], (9, 3): ["expose 2S 2S", "pass"]},
        Trump(2, S), 3, id="a-longer-bid-stands-no-defence"),
    pytest.param(
        {1: "2H 2C 2C"}, "BJ BJ RJ RJ", {(2, 1): "expose 2H"},
        # reinforcing only: the winning bidder's 2C 2C is no bid (ReinforceWhileWinning)
        [(2, 1)], {}, Trump(2, H), 1, id="the-winner-only-reinforces"),
    pytest.param(
        {1: "2H 2H", 3: "BJ BJ", 4: "RJ RJ"}, "", {(2, 1): "expose 2H", (7, 1): "expose 2H 2H",
                                                   (9, 3): "expose BJ BJ", (10, 4): "expose RJ RJ"},
        # equal length: a joker pair beats a pair of 2s, the big joker the small (JokerOrGreaterLength)
        [(2, 1), (7, 1), (9, 3), (10, 4)], {(9, 3): ["expose BJ BJ", "pass"], (10, 4): ["expose RJ RJ", "pass"]},
        Trump(2, None), 4, id="jokers-beat-a-pair-of-equal-length"),
]


@pytest.mark.parametrize("hands,kitty,script,decisions,options,trump,maker", BIDS)
def test_bids(hands, kitty, script, decisions, options, trump, maker):
    r = online(5)
    s = State(r, decks=[build_deck(r, hands, kitty=kitty, late_ranks=(2,))])
    met = run_draw(s, script)
    assert [k for k, _ in met] == decisions
    for key, acts in options.items():
        assert dict(met)[key] == acts, key
    assert s.phase == BURY_PHASE and (s.trump, s.maker) == (trump, maker)


def test_the_winner_could_bid_any_suit_under_self_overcall_any():
    """The same hands as ``the-winner-only-reinforces``, but the row above holds only because of
    the preset's reinforce: with ``any`` the winner may switch to 2C 2C."""
    r = online(5, self_overcall="any")
    s = State(r, decks=[build_deck(r, {1: "2H 2C 2C"}, kitty="BJ BJ RJ RJ", late_ranks=(2,))])
    met = dict(run_draw(s, {(2, 1): "expose 2H", (12, 1): "expose 2C 2C"}))
    assert met[(12, 1)] == ["expose 2C 2C", "pass"] and s.trump == Trump(2, C)


def test_three_of_a_kind_beats_a_joker_pair_with_three_decks():
    r = online(6)
    s = State(r, decks=[build_deck(r, {1: "RJ RJ", 3: "2S 2S 2S"}, kitty="RJ BJ BJ BJ", late_ranks=(2,))])
    met = run_draw(s, {(8, 1): "expose RJ RJ", (16, 3): "expose 2S 2S 2S"})
    # seat 3 passes its first 2S; its pair (drawn 10) does not beat the joker pair: no decision
    assert [k for k, _ in met] == [(4, 3), (8, 1), (16, 3)]
    assert (s.trump, s.maker) == (Trump(2, S), 3)


# must_defend ace_joker (advancement Unrestricted, top rank NoTrump): (winner's level, maker's
# level, levels won, on the maker's side) -> level after; 14 is A, 15 NoTrump, 16 the next lap's 2
LEVELS = [(14, 14, 2, True, 15), (13, 5, 3, False, 14), (15, 15, 1, True, 16), (15, 14, 1, True, 15)]


@pytest.mark.parametrize("level,maker_level,gain,defending,after", LEVELS)
def test_levels_held_at_a_and_notrump(level, maker_level, gain, defending, after):
    r = online(5)
    levels = [PlayerLevel(level, True), PlayerLevel(maker_level, True)] + [PlayerLevel(2, True)] * 3
    side = {0, 1} if defending else {1, 2}
    assert apply_deal(r, levels, {0}, gain, maker_side=side, maker=1)[0].level == after


def test_the_next_landlord():
    """The first seat after the landlord on the side that won the deal (the landlord again when alone)."""
    r = online(6)
    assert next_maker(r, 4, {4, 1, 2}, True) == 1
    assert next_maker(r, 4, {4, 1, 2}, False) == 5
    assert next_maker(r, 4, {4}, True) == 4


def test_later_deals_bid_at_the_landlords_rank():
    """A landlord set by the deal before: any seat bids that landlord's rank (at 9 here), not its own."""
    r = online(5)
    levels = [PlayerLevel(2, True), PlayerLevel(2, True), PlayerLevel(9, True), PlayerLevel(2, True),
              PlayerLevel(2, True)]
    s = State(r, levels=levels, maker=2, decks=[build_deck(r, {1: "2C 9H"}, kitty="BJ BJ RJ RJ",
                                                              late_ranks=(2, 9))])
    met = run_draw(s, {(7, 1): "expose 9H"})
    assert [k for k, _ in met] == [(7, 1)] and (s.trump, s.maker) == (Trump(9, H), 2)


@pytest.mark.parametrize("spec", ["random", "heuristic", "ismcts:iterations=50"])
@pytest.mark.parametrize("players", [5, 8])
def test_bots_finish_deals_at_every_seat(spec, players):
    r = online(players)
    for seat in range(players) if spec != "ismcts:iterations=50" or players == 5 else (0, 3, 7):
        bots = [make_bot("random") for _ in range(players)]
        bots[seat] = make_bot(spec)
        s = play_deal(r, 40 + seat, bots, random.Random(seat))
        assert s.is_terminal() and s.result is not None
        assert getattr(bots[seat], "fallbacks", 0) == 0
