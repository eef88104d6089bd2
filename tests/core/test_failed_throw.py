"""``failed_throw`` (docs/kernel.md, Throws): ``withdraw`` (the thrower leads the
unit ``failed_throw_unit`` leaves, play goes on) or ``end_deal`` (the play stops at
the failed throw).

Under ``end_deal`` the cards still in every hand (the thrower's whole hand too)
count for the thrower's opponents, the side it is not on as the sides stand when
it throws (a friend not yet revealed is an opponent), and so does the kitty,
multiplied as if they had won a last trick led by the unit the throw is reduced
to; ``throw_penalty`` still applies. Every position below is a tiny deal (hands
of three or four cards, the rest buried in the kitty) whose points are worked
out by hand in the comments; trump is 2 of spades, made by seat 0.
"""

from __future__ import annotations

import json
import random

import pytest

from core.account import account
from core.cards import parse_cards, points
from core.errors import IllegalActionError, InvalidActionError, RulesError
from core.records import LATER_SETTINGS, deal_record, replay_deal
from core.rules import Rules
from core.scoring import score_deal
from core.state import State

from test_state_phases import play, tiny, tiny_deal

#: two hands of three: seat 0 throws AH QH; seat 2's KH beats the QH (no other AH is held)
SINGLE = dict(hand=3, hands={1: "3H 6D 7H", 2: "KH 3D 8H", 3: "4H 4D 9H", 4: "6H 7D JH"},
              keep="AH QH RJ", calls=["AC 1"], moves=["0:AH QH"])
#: seat 0 throws 9H 9H KH: seat 2 can beat only the pair (10H 10H), seat 3 only the KH (AH)
PAIR = dict(hand=3, hands={1: "3H 6D 7C", 2: "10H 10H 8D", 3: "AH 4D 9C", 4: "6H 7D JC"},
            keep="9H 9H KH", calls=["AC 1"], moves=["0:9H 9H KH"])
#: seat 4, an opponent, wins the first trick (10C) and throws AH QH, beaten by seat 1's KH
OPPONENT = dict(hand=4, hands={1: "10C KH 3D JD", 2: "6C 3H AD QD", 3: "7C 6H 4D 8D", 4: "AC AH QH 6D"},
                keep="3C 4H 7D 9D", calls=["AD 1"],
                moves=["0:3C", "1:10C", "2:6C", "3:7C", "4:AC", "4:AH QH"])
#: seat 2 wins the first trick with AC (10C and KC: 20) and throws AH QH, beaten by seat 4's KH.
#: Called AD 1: seat 2 holds it but has not played it, so it is not on the maker's side yet.
HIDDEN_FRIEND = dict(hand=4, hands={1: "4C 7H 6D JH", 2: "AC AH QH AD", 3: "10C 3H 7D 8H",
                                    4: "KC KH 3D 9H"},
                     keep="3C 4H 4D 6H", calls=["AD 1"],
                     moves=["0:3C", "1:4C", "2:AC", "3:10C", "4:KC", "2:AH QH"])
#: the same cards, AC called: seat 2 joins the maker with the AC before it throws
FRIEND = dict(HIDDEN_FRIEND, calls=["AC 1"])

# (name, position, settings, kept unit, left points, kitty points, to the opponents, multiplier,
#  penalties, opponents' points, winner, game points)
CASES = [
    # left: KH 10; kitty 200 - 10 = 190, x2 (a single kept); penalty 10 (QH kept, AH back).
    # opponents: 10 (penalty) + 10 (left) + 380 (kitty) = 400
    ("maker-single", SINGLE, {}, "QH", 10, 190, True, 2, [10, 0, 0, 0, 0], 400, "opponents", 3),
    # the same, charged once per attempt: 15 + 10 + 380 = 405
    ("maker-single-per-attempt", SINGLE, {"throw_penalty_per": "attempt", "throw_penalty": 15}, "QH", 10, 190,
     True, 2, [15, 0, 0, 0, 0], 405, "opponents", 3),
    # left: KH + 10H 10H = 30; kitty 170. smallest_lowest keeps KH (two cards back: penalty 20), x2:
    # 20 + 30 + 340 = 390
    ("pair-smallest", PAIR, {}, "KH", 30, 170, True, 2, [20, 0, 0, 0, 0], 390, "opponents", 3),
    # first_found keeps 9H 9H (one card back: penalty 10); by_cards reads a lead of two cards: x3;
    # 10 + 30 + 510 = 550
    ("pair-first-by-cards", PAIR, {"failed_throw_unit": "first_found", "kitty_multiplier": "by_cards"},
     "9H 9H", 30, 170, True, 3, [10, 0, 0, 0, 0], 550, "opponents", 3),
    # unit_double: 2 x the pair's 2 cards = 4: 10 + 30 + 680 = 720
    ("pair-first-unit-double", PAIR, {"failed_throw_unit": "first_found", "kitty_multiplier": "unit_double"},
     "9H 9H", 30, 170, True, 4, [10, 0, 0, 0, 0], 720, "opponents", 3),
    # pairs_power: 2 ** (1 + one pair) = 4; with the single KH kept 2 ** 1 = 2
    ("pair-first-pairs-power", PAIR, {"failed_throw_unit": "first_found", "kitty_multiplier": "pairs_power"},
     "9H 9H", 30, 170, True, 4, [10, 0, 0, 0, 0], 720, "opponents", 3),
    ("pair-smallest-pairs-power", PAIR, {"kitty_multiplier": "pairs_power"}, "KH", 30, 170, True, 2,
     [20, 0, 0, 0, 0], 390, "opponents", 3),
    # an opponent throws: left (seat 1's KH, 10) and the kitty (200 - 20 dealt = 180) go to the maker.
    # opponents: seat 4's trick (10C) 10 - its penalty 5 = 5: the maker alone (one short) wins 1 x 2
    ("opponent", OPPONENT, {"throw_penalty": 5}, "QH", 10, 180, False, 2, [0, 0, 0, 0, 5], 5, "maker", 2),
    # seat 2 is an opponent as the sides stand: its 20 less its penalty 10 = 10; seat 4's KH (10 left)
    # and the kitty (200 - 30 = 170) go to the maker: maker 1 x 2
    ("hidden-friend", HIDDEN_FRIEND, {}, "QH", 10, 170, False, 2, [0, 0, 10, 0, 0], 10, "maker", 2),
    # revealed, seat 2 throws for the maker's side: its penalty 10 + left 10 + kitty 340 = 360
    ("friend", FRIEND, {}, "QH", 10, 170, True, 2, [0, 0, 10, 0, 0], 360, "opponents", 3),
]


def _deal(pos: dict, **settings) -> State:
    s = tiny_deal(tiny("pagat", hand=pos["hand"], **settings), pos["hands"], keep=pos["keep"], calls=pos["calls"])
    play(s, *pos["moves"])
    return s


@pytest.mark.parametrize("pos,settings,kept,left,kitty,to_opp,mult,pens,opp,winner,game",
                         [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_a_failed_throw_ends_the_deal(pos, settings, kept, left, kitty, to_opp, mult, pens, opp, winner, game):
    s = _deal(pos, failed_throw="end_deal", **settings)
    thrower, attempt = pos["moves"][-1].split(":")
    assert s.is_terminal() and s.current_player() == -1
    assert s.failed_throws == [(int(thrower), parse_cards(attempt), parse_cards(kept))]
    assert len(s.tricks) == len(pos["moves"]) // 5 and s.current_trick() == (-1, [])
    pc = s.play
    assert pc.ended and pc.done and pc.left_points == left
    # nothing of the throw was played: every hand holds what it held
    assert sum(points(s.hand(i)) for i in range(5)) == left and len(s.hand(int(thrower))) == pos["hand"] - \
        len(pos["moves"]) // 5
    assert points(s.kitty) == kitty and sum(pc.points) + kitty + left == 200
    assert pc.penalties == pens
    res = s.result
    assert (res.kitty_points, res.kitty_to_opponents, res.kitty_multiplier) == (kitty, to_opp, mult)
    assert res.opponents_points == opp
    assert (res.winner, res.game_points) == (winner, game)
    assert tuple(score_deal(s.rules, opp, len(res.maker_side)))[:2] == (winner, game)
    assert not res.jack_last


@pytest.mark.parametrize("name,pos", [("single", SINGLE), ("hidden-friend", HIDDEN_FRIEND)])
def test_withdraw_plays_on(name, pos):
    """``withdraw`` (the default) leads the kept unit and the deal goes on."""
    assert Rules.preset("pagat").failed_throw == "withdraw" and LATER_SETTINGS["failed_throw"] == "withdraw"
    s = _deal(pos)
    assert not s.is_terminal() and not s.play.ended and s.play.left_points == 0
    thrower = int(pos["moves"][-1].split(":")[0])
    assert s.current_trick() == (thrower, [parse_cards("QH")])


def test_the_views_after_the_end():
    """Every seat sees the deal over, the failed throw, the hands' sizes as they stand, no
    trick under way, and (the opponents took it) the kitty; its own hand is what it held."""
    s = _deal(SINGLE, failed_throw="end_deal", throw_stopper="shown")
    for seat in range(5):
        v = s.view(seat)
        assert (v.phase, v.current_player, v.current_trick) == ("done", -1, (-1, ()))
        assert v.hand_sizes == (3, 3, 3, 3, 3) and v.hand == s.hand(seat)
        assert v.failed_throws == ((0, "QH AH", "QH"),) and v.throw_stoppers == (2,)
        assert v.tricks == () and v.points == (0,) * 5 and v.kitty == s.kitty
        assert json.loads(str(v))["phase"] == "done"
    with pytest.raises(IllegalActionError):
        s.apply("play 3H")
    assert list(s.legal_actions()) == []


def test_the_kitty_stays_hidden_when_the_maker_keeps_it():
    s = _deal(OPPONENT, failed_throw="end_deal")
    assert not s.result.kitty_to_opponents
    assert s.view(0).kitty == s.kitty and all(s.view(k).kitty is None for k in range(1, 5))


@pytest.mark.parametrize("name,pos", [("maker", SINGLE), ("opponent", OPPONENT)])
def test_the_record_replays_and_tells_the_end(name, pos):
    s = _deal(pos, failed_throw="end_deal")
    rec = json.loads(json.dumps(deal_record(s)))
    assert rec[0]["rules"]["failed_throw"] == "end_deal"
    again = replay_deal(rec)
    assert again.result == s.result and again.play.ended and again.play.left_points == s.play.left_points
    lines = account(rec)
    thrower = pos["moves"][-1].split(":")[0]
    assert any(line.startswith(f"  seat {thrower} tried to throw") and "ends the play" in line for line in lines)
    to = "the opponents" if s.result.kitty_to_opponents else "the maker side"
    assert f"the play stops: {s.play.left_points} points left in hands go to {to}" in lines
    # a record written before the setting existed is read as withdraw: the play would go on
    del rec[0]["rules"]["failed_throw"]
    with pytest.raises(InvalidActionError, match="the record gives a result, but the deal is not over"):
        replay_deal(rec)


def test_unknown_value_is_refused_in_one_line():
    with pytest.raises(RulesError, match=r"^failed_throw: 'stop' is not one of withdraw, end_deal$"):
        Rules.preset("pagat", failed_throw="stop")


def test_random_playouts_stop_at_a_failed_throw():
    """The play engine's random playouts (what the searches roll out) stop at the first failed
    throw under end_deal, and the result they score conserves every card point."""
    r = Rules.preset("pagat", players=6, failed_throw="end_deal")
    ended = 0
    for seed in range(60):
        s = State(r, seed=seed)
        rng = random.Random(seed)
        while s.phase.name != "PLAY":
            s.apply(s.random_legal_action(rng))
        pc = s.play.clone()
        pc.playout(rng)
        assert pc.done
        if pc.ended:
            ended += 1
            assert sum(points(pc.hand(i)) for i in range(r.players)) == pc.left_points
        assert sum(pc.points) + pc.left_points + points(s.kitty) == r.total_points
        opp, mult, to_opp = pc.opponents_points(r, points(s.kitty))
        assert 0 <= opp
    assert ended > 0
