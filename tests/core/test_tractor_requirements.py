"""The tractor requirements: ``tractor_min_width`` (the narrowest sets a
tractor is made of) and ``tractor_min_length`` (the fewest of them).

Hand-computed tables, each run against the compiled kernel and the naive
reference: the reading of leads, follows under the ladder, trick winners;
then the leader's own reading, the random lead, and the settings' checks.
The random comparison of the two implementations under random requirements
is in ``test_differential.py``.
"""

from __future__ import annotations

import pytest

from core import kernel, reference
from core.cards import HEARTS, Trump, format_cards, parse_cards
from core.errors import IllegalActionError, RulesError
from core.records import LATER_SETTINGS
from core.rules import Rules

TRUMP = Trump(2, HEARTS)
IMPLS = (kernel, reference)


def rules(packs: int = 2, **kw) -> Rules:
    players = {2: 6, 3: 8, 4: 12}[packs]
    return Rules.preset("pagat", players=players, **kw)


# (packs, width, length, lead, its units as "k x L: cards")
READINGS = [
    (2, 2, 2, "5S 5S 6S 6S", ["2x2: 5S 5S 6S 6S"]),
    (2, 2, 3, "5S 5S 6S 6S", ["2x1: 6S 6S", "2x1: 5S 5S"]),
    (2, 2, 3, "5S 5S 6S 6S 7S 7S", ["2x3: 5S 5S 6S 6S 7S 7S"]),
    (2, 2, 3, "5S 5S 6S 6S 8S 8S 9S 9S 10S 10S", ["2x3: 8S 8S 9S 9S 10S 10S", "2x1: 6S 6S", "2x1: 5S 5S"]),
    (2, 2, 4, "5S 5S 6S 6S 7S 7S", ["2x1: 7S 7S", "2x1: 6S 6S", "2x1: 5S 5S"]),
    (3, 3, 2, "5S 5S 6S 6S", ["2x1: 6S 6S", "2x1: 5S 5S"]),
    (3, 3, 2, "5S 5S 5S 6S 6S 6S", ["3x2: 5S 5S 5S 6S 6S 6S"]),
    (3, 3, 2, "5S 5S 5S 6S 6S 6S 7S 7S", ["3x2: 5S 5S 5S 6S 6S 6S", "2x1: 7S 7S"]),
    (3, 2, 2, "5S 5S 5S 6S 6S 6S 7S 7S", ["3x2: 5S 5S 5S 6S 6S 6S", "2x1: 7S 7S"]),
    # three adjacent levels of three copies but only two of pairs: at length 3
    # the pairs make the tractor, the singles left over go alone
    (3, 2, 3, "5S 5S 5S 6S 6S 6S 7S 7S", ["2x3: 5S 5S 6S 6S 7S 7S", "1x1: 6S", "1x1: 5S"]),
    (4, 4, 2, "5S 5S 5S 6S 6S 6S", ["3x1: 6S 6S 6S", "3x1: 5S 5S 5S"]),
    (4, 3, 3, "4S 4S 4S 5S 5S 5S 6S 6S 6S", ["3x3: 4S 4S 4S 5S 5S 5S 6S 6S 6S"]),
]


@pytest.mark.parametrize("packs,width,length,lead,want", READINGS)
def test_readings(packs, width, length, lead, want):
    r = rules(packs, tractor_min_width=width, tractor_min_length=length)
    for impl in IMPLS:
        got = [f"{u.width}x{u.length}: {format_cards(u.cards)}" for u in impl.decompose(parse_cards(lead), TRUMP, r)]
        assert got == want, impl.__name__


def test_follows_under_the_ladder_owe_only_real_tractors():
    """Led: the tractor QS QS KS KS AS AS. Held: the 9-10 pairs and two more.
    With pairs tractors of two (default) the 9-10 tractor is owed with one more
    pair; at length 3 it is two pairs like the others, so any three pairs do."""
    lead = parse_cards("QS QS KS KS AS AS")
    hand = parse_cards("9S 9S 10S 10S 3S 3S 5S 5S 4C")
    loose = parse_cards("9S 9S 3S 3S 5S 5S")
    tight = parse_cards("9S 9S 10S 10S 5S 5S")
    for length, loose_ok in ((2, False), (3, True)):
        r = rules(2, follow_ladder=True, tractor_min_length=length)
        for impl in IMPLS:
            assert impl.is_legal_follow(hand, lead, tight, TRUMP, r), (impl.__name__, length)
            assert impl.is_legal_follow(hand, lead, loose, TRUMP, r) == loose_ok, (impl.__name__, length)


# (packs, width, length, plays from the lead on, winner)
WINNERS = [
    (2, 2, 2, ["5S 5S 6S 6S", "9S 9S JS JS"], 0),    # two pairs apart do not beat a tractor
    (2, 2, 3, ["5S 5S 6S 6S", "9S 9S JS JS"], 1),    # the lead is two pairs, and so is the play
    (2, 2, 2, ["5S 5S 6S 6S", "9S 9S 10S 10S"], 1),
    (3, 2, 2, ["5S 5S 6S 6S", "9S 9S JS JS"], 0),
    (3, 3, 2, ["5S 5S 6S 6S", "9S 9S JS JS"], 1),    # pairs make no tractor at width 3
    (3, 3, 2, ["5S 5S 5S 6S 6S 6S", "9S 9S 9S JS JS JS"], 0),
    (3, 3, 2, ["5S 5S 5S 6S 6S 6S", "9S 9S 9S 10S 10S 10S"], 1),
]


@pytest.mark.parametrize("packs,width,length,plays,want", WINNERS)
def test_trick_winners(packs, width, length, plays, want):
    r = rules(packs, tractor_min_width=width, tractor_min_length=length)
    for impl in IMPLS:
        assert impl.trick_winner([parse_cards(p) for p in plays], TRUMP, r) == want, impl.__name__


def test_the_leaders_reading_keeps_to_the_requirements():
    r = rules(2, tractor_min_length=3)
    with pytest.raises(IllegalActionError, match="a tractor has three or more sets"):
        kernel.make_lead("5S 5S 6S 6S", TRUMP, r, units=["5S 5S 6S 6S"])
    ld = kernel.make_lead("5S 5S 6S 6S", TRUMP, r, units=["5S 5S", "6S 6S"])
    assert [u.width for u in ld.units] == [2, 2]
    r3 = rules(3, tractor_min_width=3)
    with pytest.raises(IllegalActionError, match="sets of three or more"):
        kernel.make_lead("5S 5S 6S 6S", TRUMP, r3, units=["5S 5S 6S 6S"])


@pytest.mark.parametrize("width,length", [(2, 3), (3, 2), (3, 3)])
def test_random_leads_build_only_real_tractors(width, length):
    """The random lead is one unit, or two now and then: never a run too
    short or too narrow, which would read as more units."""
    r = rules(3, tractor_min_width=width, tractor_min_length=length)
    hand = parse_cards("5S 5S 5S 6S 6S 6S 7S 7S 7S 8S 8S 9S 9S 3C 3C 4C 4C")
    tractors = 0
    for seed in range(3000):
        lead = kernel.random_lead(hand, TRUMP, r, seed)
        units = kernel.decompose(lead, TRUMP, r)
        assert len(units) <= 2, format_cards(lead)
        tractors += any(u.length >= 2 for u in units)
        assert all(u.length == 1 or (u.width >= width and u.length >= length) for u in units)
    assert tractors > 50


def test_settings_are_checked():
    with pytest.raises(RulesError, match="tractor_min_width and packs: 3 is not from 2 to packs"):
        rules(2, tractor_min_width=3)
    with pytest.raises(RulesError, match="tractor_min_width and packs: 1 is not from 2 to packs"):
        rules(3, tractor_min_width=1)
    with pytest.raises(RulesError, match="tractor_min_length: 1 is not from 2 to 13"):
        rules(2, tractor_min_length=1)
    with pytest.raises(RulesError, match="tractor_min_length: 14 is not from 2 to 13"):
        rules(2, tractor_min_length=14)
    with pytest.raises(RulesError, match="tractor_min_length: expected a whole number"):
        rules(2, tractor_min_length="3")
    assert rules(4, tractor_min_width=4, tractor_min_length=13).tractor_min_width == 4
    d = Rules()
    assert (LATER_SETTINGS["tractor_min_width"], LATER_SETTINGS["tractor_min_length"]) == \
        (d.tractor_min_width, d.tractor_min_length)
