"""``kitty_theft``: after a bury, the other seats in turn may overcall the
standing exposure and take the kitty (``core/trump_making.py``, the STEAL phase).

The table below drives one hand-built five-player deal (two packs, a kitty of
8, every seat at level 2, ``joker_bids`` ``pairs``) through the draw and the
theft rounds. Seat 0 draws 2S first and exposes it; seat 1 holds 2H 2H,
seat 2 BJ BJ; the kitty holds RJ RJ and every other 2 (so the maker picks
them up). What each seat may do follows by hand from ``exposure_key``: a pair
beats a single, a joker pair beats a pair of 2s, RJ RJ beats BJ BJ, and a
pair of 2s never beats a pair of 2s (a third copy would be needed).
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from test_state_phases import build_deck, lv, run_draw

from core.actions import Action
from core.cards import RJ, Cards, Trump, parse_cards
from core.errors import RulesError
from core.observe import Narrator, ViewBuilder
from core.records import deal_record, replay_deal
from core.rules import Rules
from core.state import BURY_PHASE, CALL_PHASE, DRAW, PLAY_PHASE, STEAL_PHASE, State

C, D, H, S = 0, 1, 2, 3
THEFT = Rules.preset("pagat", players=5, joker_bids="pairs", kitty_theft=True)
HANDS = {0: "2S", 1: "2H 2H", 2: "BJ BJ"}


def deal(rules=THEFT, levels=None):
    """The table's deal, drawn (seat 0 exposes 2S; everyone else passes)."""
    s = State(rules, levels=levels, decks=[build_deck(rules, HANDS, kitty="RJ RJ", late_ranks=(2,))])
    run_draw(s, {(1, 0): "expose 2S"})
    assert (s.maker, s.trump, s.phase) == (0, Trump(2, S), BURY_PHASE)
    return s


def bury(s, also=""):
    """The burier buries ``also`` and then its lowest cards that are neither
    2s nor jokers, a kitty's worth in all."""
    seat = s.current_player()
    hand = Counter(s.hand(seat))
    chosen = list(parse_cards(also)) if also else []
    plain = sorted(f for f in (hand - Counter(chosen)).elements() if f < 52 and f % 13 != 0)
    chosen += plain[:s.rules.kitty_size - len(chosen)]
    for f in chosen:
        assert s.phase == BURY_PHASE and s.current_player() == seat
        s.apply(Action.bury(f))
    return Cards(chosen)


# Each row: (steps, trump, burier at the end). A step is "bury" (the burier
# buries plain cards), "bury RJ RJ" (those first), or (seat, options, action):
# the seat offered the kitty, its exact options, and what it does.
P, EH, EB, ER = "pass", "expose 2H 2H", "expose BJ BJ", "expose RJ RJ"
CASES = [
    pytest.param(["bury", (1, [P, EH], P), (2, [P, EB], P)], Trump(2, S), 0, id="all-pass"),
    pytest.param(["bury", (1, [P, EH], EH), "bury", (2, [P, EB], P), (0, [P, ER], P)], Trump(2, H), 1,
                 id="seat-1-takes-it"),
    pytest.param(["bury", (1, [P, EH], P), (2, [P, EB], EB), "bury", (0, [P, ER], P)], Trump(2, None), 2,
                 id="a-joker-pair-takes-it"),
    pytest.param(["bury", (1, [P, EH], EH), "bury", (2, [P, EB], EB), "bury", (0, [P, ER], ER), "bury"],
                 Trump(2, None), 0, id="the-maker-takes-it-back"),
    pytest.param(["bury RJ RJ", (1, [P, EH], EH), "bury", (2, [P, EB], P)], Trump(2, H), 1,
                 id="buried-jokers-change-hands"),
]


@pytest.mark.parametrize("steps,trump,burier", CASES)
def test_theft_sequence(steps, trump, burier):
    s = deal()
    last = None
    for step in steps:
        if isinstance(step, str):
            last = bury(s, step[5:])
            continue
        seat, options, action = step
        assert s.phase == STEAL_PHASE and s.current_player() == seat
        assert sorted(str(a) for a in s.legal_actions()) == sorted(options)
        assert s.view(seat).options == tuple(s.legal_actions())
        s.apply(action)
        if action != P:
            assert s.phase == BURY_PHASE and s.burier == seat and len(s.hand(seat)) == 28
    assert s.phase == CALL_PHASE, "the offer did not end after the last seat with an overcall"
    assert (s.trump, s.maker, s.burier, s.current_player()) == (trump, 0, burier, 0)
    assert s.kitty == last and len(s.kitty) == 8
    steals = [(seat, str(c)) for seat, kind, c in s.exposures if kind == "steal"]
    assert steals == [(seat, a[7:]) for seat, _o, a in (x for x in steps if isinstance(x, tuple)) if a != P]
    assert all(len(s.hand(i)) == 20 for i in range(5))


def test_the_stolen_kitty_comes_with_the_buried_cards():
    s = deal()
    buried = bury(s, "RJ RJ")
    before = Counter(s.hand(1))
    s.apply("expose 2H 2H")
    assert Counter(s.hand(1)) == before + Counter(buried)       # seat 1 picked the kitty up
    assert s.hand(1).count(RJ) == 2 and s.hand(0).count(RJ) == 0


def test_off_goes_straight_to_the_calls():
    s = deal(THEFT.replace(kitty_theft=False))
    bury(s)
    assert s.phase == CALL_PHASE and s.burier == 0


def test_a_passive_seat_is_not_offered_the_kitty():
    s = deal(levels=lv(2, -2, 2, 2, 2))
    bury(s)
    assert s.phase == STEAL_PHASE and s.current_player() == 2        # seat 1 may not expose at all


def test_no_theft_without_an_exposure():
    """A maker set in advance whose trump suit the kitty named: nothing to overcall."""
    r = Rules.preset("heli", players=6, kitty_theft=True)
    s = State(r, maker=3, decks=[build_deck(r, {}, late_ranks=(2,))])
    while s.phase not in (BURY_PHASE, CALL_PHASE, PLAY_PHASE):
        s.apply("pass")
    assert s.maker == 3 and any(kind == "turned" for _, kind, _c in s.exposures)
    bury(s)
    assert s.phase == CALL_PHASE


def test_no_theft_at_a_joker_level():
    """At a Joker level the trump has no rank, so there is nothing to overcall with."""
    r = Rules.preset("heli", players=6, kitty_theft=True)
    s = State(r, maker=0, levels=lv(15, 2, 2, 2, 2, 2), seed=5)
    while s.phase == DRAW:
        s.apply(s.random_legal_action(random.Random(1)))
    assert s.trump == Trump(None, None)
    bury(s)
    assert s.phase == CALL_PHASE


def test_views_hide_the_offer_and_the_kitty():
    s = deal()
    bury(s)
    assert s.current_player() == 1
    for seat in range(5):
        v = s.view(seat)
        assert v.phase == "steal"
        assert v.current_player == (1 if seat == 1 else -1)          # being asked shows a pair of 2s
        assert (v.options != ()) == (seat == 1)
        assert (v.kitty is not None) == (seat == 0)
    s.apply("expose 2H 2H")
    first = s.hand(1)
    s.apply(Action.bury(sorted(first)[0]))
    assert s.view(1).kitty == Cards([sorted(first)[0]]) and s.view(0).kitty is None
    assert s.view(3).burier == 1 and s.view(3).maker == 0
    while s.phase == BURY_PHASE:
        s.apply(Action.bury(min(f for f in s.hand(1) if f % 13 != 0)))
    assert s.view(1).kitty == s.kitty and all(s.view(i).kitty is None for i in (0, 2, 3, 4))


def test_the_views_as_messages_and_the_record():
    """The messages a seat receives rebuild its view at every step, and the
    record replays, in deals where the kitty changes hands."""
    r = Rules.preset("pagat", players=5, joker_bids="pairs", self_overcall="any", kitty_theft=True)
    stolen = 0
    for seed in range(60):
        s = State(r, seed=seed)
        narrator = Narrator(s)
        builders = [ViewBuilder(r) for _ in range(5)]
        for b, msg in zip(builders, narrator.opening()):
            b.apply(msg)
        rng = random.Random(seed)
        while not s.is_terminal():
            seat, action = s.current_player(), s.random_legal_action(rng)
            s.apply(action)
            for b, msg in zip(builders, narrator.after(seat, action)):
                b.apply(msg)
            assert all(b.view() == s.view(i) for i, b in enumerate(builders))
        stolen += any(kind == "steal" for _, kind, _c in s.exposures)
        again = replay_deal(json.loads(json.dumps(deal_record(s))))
        assert again.result == s.result and again.exposures == s.exposures
    assert stolen, "no kitty changed hands in 60 deals"


@pytest.mark.parametrize("text,setting", [
    (dict(kitty_theft="on"), "kitty_theft: expected true or false, got 'on'"),
    (dict(kitty_theft=True, exposure="bottom_eight"), "kitty_theft and exposure"),
])
def test_bad_settings_are_refused(text, setting):
    with pytest.raises(RulesError, match=setting):
        Rules.preset("pagat", players=5, **text)


def test_old_records_read_no_theft():
    s = State(THEFT.replace(kitty_theft=False), seed=2)
    rng = random.Random(2)
    while not s.is_terminal():
        s.apply(s.random_legal_action(rng))
    rec = json.loads(json.dumps(deal_record(s)))
    rec[0]["rules"].pop("kitty_theft")
    assert replay_deal(rec).rules.kitty_theft is False

