"""The heuristic bot's partner play in hand-built spots (6 players, trump rank 2,
clubs trump, the maker in seat 0, calls "the first AS" and "the first AD"
unless a row says otherwise): the friend race (``race``), copies kept back
and no double fills (``hold_copies``), feeding only a known partner
(``feed_known``).

Each row is played with the bot's defaults and with the row's setting
turned off: the two must differ as the row says, so every row fails when
its behaviour is removed.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from bots.heuristic import HeuristicBot
from bots.heuristic_friends import fills
from core.cards import CLUBS, SPADES, Cards, Trump, parse_card
from core.rules import Rules
from core.state import PLAY_PHASE, State

RULES6 = Rules.preset("pagat", players=6)
TRUMP = Trump(2, CLUBS)
#: an opponent-to-be void in spades (with trumps): the old play does not lead a spade ace into it
SPADE_VOID = ((3, SPADES),)
#: a finished trick in which seat 1 played the first AS
AS_PLAYED = ((1, ("AS", "3S", "4S", "5S", "6S", "8S")),)


def _play_state() -> State:
    s = State(RULES6, seed=1)
    rng = random.Random(0)
    while s.phase != PLAY_PHASE:
        s.apply(s.random_legal_action(rng))
    return s


BASE = _play_state().view(0)


def view(seat, hand, trick=(), leader=-1, filled=(None, None), calls=(("AS", 1), ("AD", 1)), voids=(),
         tricks=()):
    """A play-phase view of ``seat``, to move (the maker is seat 0)."""
    return dataclasses.replace(
        BASE, seat=seat, hand=Cards.from_str(hand), maker=0, trump=TRUMP, calls=tuple(calls),
        calls_filled=tuple(filled), tricks=tuple(tricks), current_trick=(leader, tuple(trick)),
        current_player=seat, voids=tuple(voids), kitty=None, failed_throws=(), no_sets=())


def decide(v, **settings) -> str:
    bot = HeuristicBot(**settings)
    bot.restart(v.rules, v.seat, random.Random(0))
    action = bot.step(v)
    assert bot.fallbacks == 0, bot.last_error
    return " ".join(str(Cards((f,))) for f in action.cards)


# (name, view, setting turned off, the play with the defaults, the play with the setting off)
ROWS = [
    # the race: lead the filling copy, even into a suit an opponent-to-be can trump
    ("leads the filling copy", view(2, "AS 7S 3H 4H 9D 10D", voids=SPADE_VOID), "race", "AS", "9D"),
    # the second AS counts and the first is out: this copy fills
    ("leads the second copy once the first is out",
     view(2, "AS 7S 3H 4H 9D 10D", calls=(("AS", 2), ("AD", 1)), voids=SPADE_VOID, tricks=AS_PLAYED),
     "race", "AS", "9D"),
    # following the maker's spade lead: join it with the ace
    ("follows with it onto the maker's trick", view(2, "AS 4S 9S 3H 9D", ("5S", "3S"), leader=0), "race",
     "AS", "4S"),
    # void in hearts under the maker's boss ace: the copy goes on the trick
    ("discards it onto the maker's trick", view(2, "KD AS 9D 4S", ("AH", "3H"), leader=0), "race", "AS", "4S"),
    # the second AS counts and none is out: this copy would not fill, so it stays in hand
    ("keeps a copy that would not fill (lead)",
     view(2, "AS 7S 3H 4H 9D 10D", calls=(("AS", 2), ("AD", 1))), "hold_copies", "3H", "AS"),
    ("keeps a copy that would not fill (follow)",
     view(2, "AS 5S 9S 3H 9D", ("10S",), leader=1, calls=(("AS", 2), ("AD", 1))), "hold_copies", "9S", "AS"),
    # seat 3 filled the AD call: its AS would fill the other, leaving the maker's side a seat short
    ("a revealed friend fills no second call", view(3, "AS 7S 3H 4H 9D 10D", filled=(None, 3)),
     "hold_copies", "3H", "AS"),
    # the maker's AH wins, but another seat may still play the first AS before seat 2: no points to it
    ("feeds no partner not yet known", view(2, "KH 6H AS 9D", ("AH", "3H"), leader=0), "feed_known",
     "6H", "KH"),
]


@pytest.mark.parametrize("name,v,setting,new,old", ROWS, ids=[r[0] for r in ROWS])
def test_partner_play(name, v, setting, new, old):
    assert decide(v) == new
    assert decide(v, **{setting: 0}) == old


@pytest.mark.parametrize("filled", [(4, None), (2, None)], ids=["by another seat", "by this seat"])
def test_no_race_once_the_call_is_filled(filled):
    # the same hand as the first row, its call filled: the ace is not led into the void
    unfilled = view(2, "AS 7S 3H 4H 9D 10D", voids=SPADE_VOID)
    assert decide(unfilled) == "AS"
    v = view(2, "AS 7S 3H 4H 9D 10D", voids=SPADE_VOID, filled=filled)
    assert decide(v) != "AS"


@pytest.mark.parametrize("ordinal,seen,held,filled_by", [
    (1, 0, "AS", [0]),          # the first copy
    (2, 0, "AS", []),           # the second counts, none out yet
    (2, 1, "AS", [0]),          # the second counts, the first out
    (2, 0, "AS AS", [0]),       # a pair of them: its second card fills
    (0, 0, "AS", [0]),          # "the other": any seat but the maker's
])
def test_fills_asks_the_engine(ordinal, seen, held, filled_by):
    face = parse_card("AS")
    got = fills(RULES6, TRUMP, 0, 2, [(face, ordinal)], [None], [seen], 2, [], Cards.from_str(held))
    assert got == filled_by


def test_the_maker_fills_no_other_call():
    face = parse_card("AS")
    assert fills(RULES6, TRUMP, 0, 0, [(face, 0)], [None], [0], 0, [], Cards.from_str("AS")) == []
    # and it does not lead a copy that would fill "the first AS" for itself
    v = view(0, "AS 7S 3H 4H 9D 10D")
    assert decide(v) != "AS"
    assert decide(v, hold_copies=0) == "AS"
