"""rbtying/shengji's own test positions, checked against the preset
``shengji-online`` (docs/kernel.md, "rbtying/shengji's defaults").

Every position below comes from a unit test of rbtying/shengji
(``mechanics/src/trick.rs`` unless the id says ``types``/``format_match``)
that runs under its default policies: ``TrickDrawPolicy::NoProtections``,
``BombPolicy::NoBombs``, ``ThrowEvaluationPolicy::All``, the default
``TractorRequirements`` (2 x 2) and no rainbows. Each row's id names the test
it comes from; its expected answer is the one that test asserts. Trump is
rbtying's test trump, the 4 of spades (so the spades and every 4 are trumps,
and 3 and 5 are adjacent), unless the row gives another.

Rows built from the order in which rbtying weakens a led format (its
``test_subsequent_decomposition_ordering``) say so in their id. Rows of
rbtying tests that set their own deal or tractor requirements (more packs,
``TractorRequirements``) are the ``SET_*`` tables, played with those
settings on the preset. Every row agrees: the preset follows rbtying's
weakening order (``ladder=decompose``). docs/kernel.md ("Its test
positions") sums them up.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from core import kernel, reference
from core.cards import CLUBS, DIAMONDS, HEARTS, SPADES, Trump, parse_cards, points
from core.errors import IllegalActionError
from core.rules import Rules

#: rbtying's TRUMP in trick.rs: number Four, suit Spades
FOUR_S = Trump(4, SPADES)

#: the smallest shengji-online table whose packs hold ``n`` copies of a face
_PLAYERS_FOR_COPIES = {1: 5, 2: 5, 3: 6, 4: 8, 5: 10, 6: 12}


def _rules(*card_lists: str, **settings: Any) -> Rules:
    """The preset at the smallest table that deals every card list's copies
    (at 9 seats for a deal of its own, ``packs`` and the rest in ``settings``)."""
    most = max([settings.get("tractor_min_width", 1)]
               + [max(Counter(parse_cards(c)).values(), default=1) for c in card_lists])
    players = 9 if "packs" in settings else _PLAYERS_FOR_COPIES[most]   # an explicit deal: rbtying's 9 seats
    return Rules.preset("shengji-online", players=players, **settings)


# --------------------------------------------------------------------------
# following: (id, trump, hand, lead, play, legal)
# rbtying's tests give the lead as a format; the lead here is any cards of
# that format (only its shape matters for a follow).

FOLLOWS: list[tuple[str, Trump, str, str, str, bool]] = [
    # test_legal_play_pairs, a pair led
    ("legal_play_pairs-pair-1", FOUR_S, "2S 2S 3S 3S 5S 5S", "3S 3S", "2S 2S", True),
    ("legal_play_pairs-pair-2", FOUR_S, "2S 2S 3S 3S 5S 5S", "3S 3S", "2S 3S", False),
    ("legal_play_pairs-pair-3", FOUR_S, "2S 2S 3S 3S 5S 5S", "3S 3S", "2S 3S 3S", False),
    # ... a triple held must be broken for the pair under NoProtections
    ("legal_play_pairs-pair-4", FOUR_S, "2S 2S 2S 3S 5S", "3S 3S", "3S 5S", False),
    # ... a triple led
    ("legal_play_pairs-triple-1", FOUR_S, "2S 2S 3S 3S 5S 5S", "3S 3S 3S", "2S 2S 5S", True),
    ("legal_play_pairs-triple-2", FOUR_S, "2S 2S 3S 3S 5S 5S", "3S 3S 3S", "2S 3S 5S", False),
    # ... a two-pair tractor led (3 and 5 are adjacent: 4 is the trump rank)
    ("legal_play_pairs-tractor-1", FOUR_S, "2S 2S 2S 2S 3S 3S 5S 5S", "2S 2S 3S 3S", "2S 2S 2S 2S", False),
    ("legal_play_pairs-tractor-2", FOUR_S, "2S 2S 2S 2S 3S 3S 5S 5S", "2S 2S 3S 3S", "2S 2S 3S 3S", True),
    ("legal_play_pairs-tractor-3", FOUR_S, "2S 2S 2S 2S 3S 3S 5S 5S", "2S 2S 3S 3S", "3S 3S 5S 5S", True),
    # ... no tractor held: the quad gives two pairs, as does 2S 2S + 5S 5S
    ("legal_play_pairs-tractor-4", FOUR_S, "2S 2S 2S 2S 3S 5S 5S", "2S 2S 3S 3S", "2S 2S 2S 2S", True),
    ("legal_play_pairs-tractor-5", FOUR_S, "2S 2S 2S 2S 3S 5S 5S", "2S 2S 3S 3S", "2S 2S 5S 5S", True),
    ("legal_play_pairs-tractor-6", FOUR_S, "2S 2S 2S 2S 3S 5S 5S", "2S 2S 3S 3S", "2S 2S 5S 3S", False),
    # ... a pair and a single led
    ("legal_play_pairs-pair-single-1", FOUR_S, "2S 2S 2S 5S", "2S 2S 3S", "2S 2S 2S", True),
    ("legal_play_pairs-pair-single-2", FOUR_S, "2S 2S 2S 5S", "2S 2S 3S", "2S 2S 5S", True),
    # test_protected_tuple (NoProtections asserts): the quad owes the triple
    ("protected_tuple-1", FOUR_S, "2S 2S 2S 2S 5S 6S 7S 8S", "3S 3S 3S", "6S 7S 8S", False),
    ("protected_tuple-2", FOUR_S, "2S 2S 2S 2S 5S 5S 6S 7S 8S", "3S 3S 3S", "5S 5S 6S", False),
    # test_protected_wider_tractor (NoProtections): two triples on 2, 3 owe the tractor
    ("protected_wider_tractor", FOUR_S, "2S 2S 2S 3S 3S 3S 5S 6S 7S 8S", "6S 6S 7S 7S", "5S 6S 7S 8S", False),
    # test_protected_tractor_triple (NoProtections), trump 4 of hearts: a tractor and a single in spades
    ("protected_tractor_triple-1", Trump(4, HEARTS), "3S 5S 10S JS QS 6S 8S 8S 8S", "9S 9S 10S 10S KS",
     "3S 5S 10S JS QS", False),
    ("protected_tractor_triple-2", Trump(4, HEARTS), "3S 5S 10S JS QS 6S 8S 8S 8S", "9S 9S 10S 10S KS",
     "3S 6S 8S 8S 8S", True),
    # test_long_tractor_decomposition_draws_pairs, trump K of spades: a three-pair tractor led
    ("long_tractor_decomposition-P2-1", Trump(13, SPADES), "4S 10S AS KH KD KC KS KS", "7S 7S 8S 8S 9S 9S",
     "4S 10S AS KH KD KC", False),
    ("long_tractor_decomposition-P2-2", Trump(13, SPADES), "4S 10S AS KH KD KC KS KS", "7S 7S 8S 8S 9S 9S",
     "4S 10S AS KH KS KS", True),
    ("long_tractor_decomposition-P3", Trump(13, SPADES), "2S 6S JS QS KH KC 10C BJ", "7S 7S 8S 8S 9S 9S",
     "2S 6S JS QS KH KC", True),
    ("long_tractor_decomposition-P4", Trump(13, SPADES), "4C 6C 7C 3S 3S RJ 5C 8C", "7S 7S 8S 8S 9S 9S",
     "4C 6C 7C 3S 3S RJ", True),
    # built from ordered_card.rs test_subsequent_decomposition_ordering, which asserts the order in
    # which rbtying weakens a led format when the hand cannot meet it (the first step the hand can
    # meet is owed): a quad asks for a triple and a single before a two-pair tractor; a three-pair
    # tractor for a two-pair tractor and a pair before three pairs; a throw keeps its tractor.
    # Hearts are plain under the 4 of spades (the 4 of hearts is a trump).
    ("decomposition_ordering-quad-triple-first", FOUR_S, "2H 2H 2H 5H 5H 6H 6H 7H", "9H 9H 9H 9H",
     "5H 5H 6H 6H", False),
    ("decomposition_ordering-quad-triple-played", FOUR_S, "2H 2H 2H 5H 5H 6H 6H 7H", "9H 9H 9H 9H",
     "2H 2H 2H 7H", True),
    ("decomposition_ordering-quad-tractor-played", FOUR_S, "5H 5H 6H 6H 10H 10H 2H", "9H 9H 9H 9H",
     "5H 5H 6H 6H", True),
    ("decomposition_ordering-shorter-tractor-owed", FOUR_S, "9H 9H 10H 10H QH QH AH AH", "5H 5H 6H 6H 7H 7H",
     "9H 9H QH QH AH AH", False),
    ("decomposition_ordering-shorter-tractor-played", FOUR_S, "9H 9H 10H 10H QH QH AH AH", "5H 5H 6H 6H 7H 7H",
     "9H 9H 10H 10H QH QH", True),
    ("decomposition_ordering-throw-tractor-owed", FOUR_S, "5H 5H 6H 6H QH QH 3H", "9H 9H 10H 10H AH",
     "5H 5H QH QH 3H", False),
    ("decomposition_ordering-throw-tractor-played", FOUR_S, "5H 5H 6H 6H QH QH 3H", "9H 9H 10H 10H AH",
     "5H 5H 6H 6H 3H", True),
    ("decomposition_ordering-throw-two-pairs", FOUR_S, "5H 5H 6H 6H 8H 8H JH JH 2H 3H 7H",
     "9H 9H 10H 10H QH QH QH AH AH", "5H 5H 6H 6H 8H 2H 3H 7H JH", False),
    ("decomposition_ordering-quad-joined-triple-played", FOUR_S, "5H 5H 5H 5H 6H 6H 6H 8H 2H",
     "9H 9H 9H 9H 10H 10H 10H 10H", "5H 5H 5H 5H 6H 6H 6H 8H", True),
    # ... the led quad owes a two-pair tractor held (its third step), not two loose pairs
    ("decomposition_ordering-quad-tractor-owed", FOUR_S, "5H 5H 6H 6H 10H 10H 2H", "9H 9H 9H 9H",
     "5H 5H 10H 10H", False),
    # ... without a triple the throw's tractor of two pairs and its pair weaken to three pairs
    ("decomposition_ordering-throw-three-pairs-tractor", FOUR_S, "5H 5H 6H 6H 8H 8H JH JH 2H 3H 7H",
     "9H 9H 10H 10H QH QH QH AH AH", "5H 5H 6H 6H 8H 8H 2H 3H 7H", True),
    ("decomposition_ordering-throw-three-pairs", FOUR_S, "5H 5H 6H 6H 8H 8H JH JH 2H 3H 7H",
     "9H 9H 10H 10H QH QH QH AH AH", "5H 5H 8H 8H JH JH 2H 3H 7H", True),
    # ... a led tractor of quads owes a quad joined to the next level's triple
    ("decomposition_ordering-quad-joined-triple-owed", FOUR_S, "5H 5H 5H 5H 6H 6H 6H 8H 2H",
     "9H 9H 9H 9H 10H 10H 10H 10H", "5H 5H 5H 6H 6H 6H 8H 2H", False),
    # ... and two loose quads before a tractor of triples
    ("decomposition_ordering-two-quads-owed", FOUR_S, "2H 2H 2H 2H QH QH QH QH 6H 6H 6H 7H 7H 7H",
     "9H 9H 9H 9H 10H 10H 10H 10H", "6H 6H 6H 7H 7H 7H 2H 2H", False),
    ("decomposition_ordering-two-quads-played", FOUR_S, "2H 2H 2H 2H QH QH QH QH 6H 6H 6H 7H 7H 7H",
     "9H 9H 9H 9H 10H 10H 10H 10H", "2H 2H 2H 2H QH QH QH QH", True),
]


@pytest.mark.parametrize("trump,hand,lead,play,legal", [pytest.param(*r[1:], id=r[0]) for r in FOLLOWS])
def test_follow_as_rbtying(trump, hand, lead, play, legal):
    rules = _rules(hand, lead, play)
    h, ld, p = parse_cards(hand), parse_cards(lead), parse_cards(play)
    assert kernel.is_legal_follow(h, ld, p, trump, rules) is legal
    assert (kernel.follow_error(h, ld, p, trump, rules) is None) is legal
    assert reference.is_legal_follow(h, ld, p, trump, rules) is legal


# --------------------------------------------------------------------------
# reading a lead: (id, trump, cards, the reading rbtying picks, other readings it lists)
# rbtying's format test lists every reading its lead parser offers; the lead
# is read as the one with the biggest unit (tractors above sets of as many
# cards). Ours must pick the same, and accept the others as a leader's own.

FORMATS: list[tuple[str, Trump, str, list[str], list[list[str]]]] = [
    ("play_formats-singles", FOUR_S, "2H 3H 7H", ["7H", "3H", "2H"], []),
    ("play_formats-triple", FOUR_S, "2H 2H 2H", ["2H 2H 2H"], []),
    ("play_formats-tractor", FOUR_S, "2H 2H 3H 3H", ["2H 2H 3H 3H"], []),
    ("play_formats-tractor-and-single", FOUR_S, "2H 2H 2H 3H 3H", ["2H 2H 3H 3H", "2H"], [["2H 2H 2H", "3H 3H"]]),
    ("play_formats-tractor-and-single-2", FOUR_S, "2H 2H 3H 3H 3H", ["2H 2H 3H 3H", "3H"], [["3H 3H 3H", "2H 2H"]]),
    # the off-suit trump rank, then the trump-suit trump rank; the trump-suit A, then the off-suit 4
    ("play_formats-4H-4S", FOUR_S, "4H 4H 4S 4S", ["4H 4H 4S 4S"], []),
    ("play_formats-AS-4H", FOUR_S, "4H 4H AS AS", ["AS AS 4H 4H"], []),
    ("play_formats-QK-tractor-A", FOUR_S, "QS QS KS KS AS", ["QS QS KS KS", "AS"], []),
    # 3 and 5 of hearts are adjacent (the 4 of hearts is a trump)
    ("play_formats-triple-tractor", FOUR_S, "3H 3H 3H 5H 5H 5H", ["3H 3H 3H 5H 5H 5H"], []),
    ("play_formats-three-readings", FOUR_S, "2H 2H 3H 3H 3H 5H 5H 5H", ["3H 3H 3H 5H 5H 5H", "2H 2H"],
     [["5H 5H 5H", "3H", "2H 2H 3H 3H"], ["5H", "3H", "2H 2H 3H 3H 5H 5H"]]),
    # test_trick_format_basic, test_trick_format_tractor, test_trick_simple_throw
    ("trick_format_basic", FOUR_S, "2S 2S 2S", ["2S 2S 2S"], []),
    ("trick_format_tractor", FOUR_S, "2S 2S 2S 3S 3S 3S 5S 5S 5S", ["2S 2S 2S 3S 3S 3S 5S 5S 5S"], []),
    ("trick_tractor_throw-second-lead", FOUR_S, "2S 2S 3S 3S 5S 5S 8S 8S 8S", ["2S 2S 3S 3S 5S 5S", "8S 8S 8S"], []),
    ("trick_simple_throw", FOUR_S, "2S 2S 2S 3S 5S 5S 5S", ["5S 5S 5S", "2S 2S 2S", "3S"], []),
]


def _reading(units: list[Any]) -> list[tuple[int, ...]]:
    return sorted(tuple(sorted(u)) for u in units)


@pytest.mark.parametrize("trump,cards,picked,others", [pytest.param(*r[1:], id=r[0]) for r in FORMATS])
def test_lead_reading_as_rbtying(trump, cards, picked, others):
    rules = _rules(cards)
    units = kernel.decompose(parse_cards(cards), trump, rules)
    assert _reading([u.cards for u in units]) == _reading([parse_cards(u) for u in picked])
    for reading in others:
        lead = kernel.make_lead(parse_cards(cards), trump, rules, units=reading)
        assert _reading([u.cards for u in lead.units]) == _reading([parse_cards(u) for u in reading])


# --------------------------------------------------------------------------
# which pairs chain into a tractor: (id, trump, two pairs, one tractor?)
# types.rs test_adjacent (rbtying's successor of a card, per trump) and
# format_match.rs test_tractor_format_match (3355 and 2233 but not 2255).

ADJACENT: list[tuple[str, Trump, str, bool]] = [
    ("types-adjacent-3S-5S", FOUR_S, "3S 3S 5S 5S", True),
    ("types-adjacent-4S-BJ", FOUR_S, "4S 4S BJ BJ", True),
    ("types-adjacent-4H-4S", FOUR_S, "4H 4H 4S 4S", True),
    ("types-adjacent-AS-4H", FOUR_S, "AS AS 4H 4H", True),
    ("types-adjacent-AS-4S-not", FOUR_S, "AS AS 4S 4S", False),
    ("types-adjacent-4H-4D-not", FOUR_S, "4H 4H 4D 4D", False),
    ("types-adjacent-BJ-RJ", FOUR_S, "BJ BJ RJ RJ", True),
    ("types-adjacent-nt4-3S-5S", Trump(4, None), "3S 3S 5S 5S", True),
    ("types-adjacent-nt4-4S-BJ", Trump(4, None), "4S 4S BJ BJ", True),
    ("types-adjacent-nt4-4H-BJ", Trump(4, None), "4H 4H BJ BJ", True),
    ("types-adjacent-nt-3S-4S", Trump(None, None), "3S 3S 4S 4S", True),
    ("types-adjacent-A-3S-4S", Trump(14, SPADES), "3S 3S 4S 4S", True),
    ("types-adjacent-A-AS-BJ", Trump(14, SPADES), "AS AS BJ BJ", True),
    ("types-adjacent-A-AH-AS", Trump(14, SPADES), "AH AH AS AS", True),
    ("types-adjacent-A-KS-AH", Trump(14, SPADES), "KS KS AH AH", True),
    ("types-adjacent-ntA-AS-BJ", Trump(14, None), "AS AS BJ BJ", True),
    ("types-adjacent-ntA-AH-BJ", Trump(14, None), "AH AH BJ BJ", True),
    ("format_match-tractor-3355", FOUR_S, "3S 3S 5S 5S", True),
    ("format_match-tractor-2233", FOUR_S, "2S 2S 3S 3S", True),
    ("format_match-tractor-2255-not", FOUR_S, "2S 2S 5S 5S", False),
]


@pytest.mark.parametrize("trump,cards,tractor", [pytest.param(*r[1:], id=r[0]) for r in ADJACENT])
def test_tractor_chain_as_rbtying(trump, cards, tractor):
    units = kernel.decompose(parse_cards(cards), trump, _rules(cards))
    assert [(u.width, u.length) for u in units] == ([(2, 2)] if tractor else [(2, 1), (2, 1)])


def test_order_as_rbtying():
    """types.rs test_ordering, trump 2 of spades: the trumps run 3S, 2H, 2S, BJ, RJ upwards."""
    trump = Trump(2, SPADES)
    faces = [parse_cards(c)[0] for c in "3S 2H 2S BJ RJ".split()]
    assert all(kernel.effective_suit(f, trump) == 4 for f in faces)
    levels = [kernel.level(f, trump) for f in faces]
    assert levels == sorted(set(levels))
    assert kernel.level(parse_cards("2C")[0], trump) == kernel.level(parse_cards("2H")[0], trump)


def test_rainbow_is_no_lead():
    """trick.rs test_rainbow_disabled_by_default: a 5 of each suit is no lead without rainbows."""
    rules = _rules("5C")
    with pytest.raises(IllegalActionError):
        kernel.make_lead(parse_cards("5C 5D 5H 5S"), FOUR_S, rules)


# --------------------------------------------------------------------------
# whole tricks: (id, trump, hands in seat order from the leader, plays, what rbtying asserts)
# The lead is checked as a throw against the other hands (failed_throw_unit
# first_found, as rbtying looks); a failed throw leads the unit it keeps.
# ``winner`` is the seat index; ``largest`` the cards of the biggest unit led
# (rbtying's largest_trick_unit_size); ``withdrawn`` its failed_throw_size;
# ``points`` the trick's points; ``beaten_by`` (the other hand, in seat order,
# that stops a throw) is the player its search names, which its test does not
# assert.

TRICKS: list[tuple[str, Trump, list[str], list[str], dict[str, Any]]] = [
    ("play_singles_trick", FOUR_S, ["2S 3S 5S"] * 4, ["2S", "5S", "3S", "5S"],
     dict(winner=1, largest=1, points=10)),
    ("play_trump_trick", FOUR_S, ["2S 3S 5S", "2H 3H 4S", "2S 3S 5S", "2S 3S 5S"], ["2S", "4S", "3S", "5S"],
     dict(winner=1, largest=1, points=5)),
    ("play_pairs_trick", FOUR_S, ["2S 2S 5S", "2H 3S 4S", "5S 5S 5S", "3S 4S 5S"], ["2S 2S", "3S 4S", "5S 5S", "3S 5S"],
     dict(winner=2, largest=2, points=15)),
    ("play_tractor_trick", FOUR_S, ["2S 2S 3S 3S 4S", "6S 6S 7S 7S 4S", "2S 5S 5S 5S 4S", "6S 6S 6S 6S 4S"],
     ["2S 2S 3S 3S", "6S 6S 7S 7S", "2S 5S 5S 5S", "6S 6S 6S 6S"], dict(winner=1, largest=4, points=15)),
    ("play_throw_trick_double_overflip", Trump(8, HEARTS),
     ["AC AC QC QC 10C 10C", "8S 8S 9H 9H 3H 3H", "8H 8H KH KH 10H 10H", "BJ BJ 8H 8H KH KH"],
     ["AC AC QC QC 10C 10C", "8S 8S 9H 9H 3H 3H", "8H 8H KH KH 10H 10H", "BJ BJ 8H 8H KH KH"],
     dict(winner=3)),
    ("play_throw_trick_failure", FOUR_S, ["8H 8H 7H 2H", "2H 2S 2S 2S", "2S 2S 3S 4S", "4S 4S 4S 3H"],
     ["8H 8H 7H 2H", "2H", "3S", "3H"], dict(winner=2, largest=1, points=0, withdrawn=3, beaten_by=2)),
    ("throw_of_trump_rank_in_trump", FOUR_S, ["4H 4S", "4D 2S", "3S 3S", "3S 3S"], ["4H 4S", "4D 2S", "3S 3S", "3S 3S"],
     dict(winner=0, largest=1, points=0)),
    ("play_throw_trick", FOUR_S, ["8H 8H 7H 2H", "2H 2S 2S 2S", "2S 2S 3S 4S", "4S 4S 4S 4S"],
     ["8H 8H 7H 2H", "2H 2S 2S 2S", "2S 2S 3S 4S", "4S 4S 4S 4S"], dict(winner=2, largest=2, points=0)),
    ("throw_evaluation_policy_highest_card-all", Trump(13, SPADES), ["4C 6C", "2S 3S", "3S 4S", "2S RJ"],
     ["4C 6C", "2S 3S", "3S 4S", "2S RJ"], dict(winner=2)),
    ("trump_throw_single_cards", Trump(5, DIAMONDS), ["AC KC", "5C AD", "BJ 5S", "QS AD"],
     ["AC KC", "5C AD", "BJ 5S", "QS AD"], dict(winner=2)),
    ("trick_format_multi_parse", Trump(2, CLUBS), ["8D 8D JD QD", "5C 5C AC 2S", "3S 3S 7C 8C", "6C 6C 2C 2C"],
     ["8D 8D JD QD", "5C 5C AC 2S", "3S 3S 7C 8C", "6C 6C 2C 2C"], dict(winner=3)),
    ("throw_evaluation_policy_trick_unit_length-all", Trump(2, SPADES),
     ["AH KH KH KH 9H 9H", "5S 5S 5S QS QS AS", "5S 5S 5S AS AS 4S", "4S 4S 4S 3S 3S RJ"],
     ["AH KH KH KH 9H 9H", "5S 5S 5S QS QS AS", "5S 5S 5S AS AS 4S", "4S 4S 4S 3S 3S RJ"], dict(winner=1)),
    ("bomb_not_allowed_when_policy_disabled", FOUR_S, ["8S 8S 9S 9S", "2S 2S 2S 2S", "3S 5S 6S 7S", "3S 5S 6S 7S"],
     ["8S 8S 9S 9S", "2S 2S 2S 2S", "3S 5S 6S 7S", "3S 5S 6S 7S"], dict(winner=0)),
    # test_trick_format_tractor's matches(): a play of the led shape takes the trick when higher
    ("trick_format_tractor-matches", FOUR_S, ["2S 2S 2S 3S 3S 3S 5S 5S 5S", "3S 3S 3S 5S 5S 5S 6S 6S 6S"],
     ["2S 2S 2S 3S 3S 3S 5S 5S 5S", "3S 3S 3S 5S 5S 5S 6S 6S 6S"], dict(winner=1, largest=9)),
    ("trick_format_tractor-no-match", FOUR_S, ["2S 2S 2S 3S 3S 3S 5S 5S 5S", "2S 2S 2S 3S 3S 3S 6S 6S 6S"],
     ["2S 2S 2S 3S 3S 3S 5S 5S 5S", "2S 2S 2S 3S 3S 3S 6S 6S 6S"], dict(winner=0, largest=9)),
]


def play_trick(trump: Trump, hands: list[str], plays: list[str], rules: Rules) -> dict[str, Any]:
    """Play one trick as rbtying's test does: check the lead as a throw, every
    follow against its hand, then the winner."""
    lead = parse_cards(plays[0])
    others = [parse_cards(h) for h in hands[1:]]
    throw = kernel.check_throw(lead, others, trump, rules)
    out: dict[str, Any] = {}
    if throw.stands:
        led = lead
    else:
        led = throw.unit
        out.update(withdrawn=throw.withdrawn, beaten_by=throw.beaten_by)
    units = kernel.decompose(led, trump, rules)
    out["largest"] = max(u.width * u.length for u in units)
    for hand, play in zip(hands[1:], plays[1:]):
        err = kernel.follow_error(parse_cards(hand), led, parse_cards(play), trump, rules)
        assert err is None, (hand, play, err)
    all_plays = [led] + [parse_cards(p) for p in plays[1:]]
    out["winner"] = kernel.trick_winner(all_plays, trump, rules)
    out["points"] = sum(points(p) for p in all_plays)
    return out


@pytest.mark.parametrize("trump,hands,plays,expected", [pytest.param(*r[1:], id=r[0]) for r in TRICKS])
def test_trick_as_rbtying(trump, hands, plays, expected):
    got = play_trick(trump, hands, plays, _rules(*hands))
    assert {k: got[k] for k in expected} == expected
    if "withdrawn" not in expected:
        assert "withdrawn" not in got           # the throw stood


# --------------------------------------------------------------------------
# rbtying tests that set their own deal (more packs than the preset's table
# deals) or tractor requirements: the preset with those settings.

_7_PACKS = dict(packs=7, red_jokers=7, black_jokers=7, hand_size=41, kitty_size=9)
_5_PACKS = dict(packs=5, red_jokers=5, black_jokers=5, hand_size=29, kitty_size=9)


SET_TRICKS = [
    pytest.param(FOUR_S, ["QS QS KS KS AS", "2S 3S 3S 5S 3H", "AS AS 3H 3H 3H", "3H 3H 3H 3H 3H"],
                 ["QS QS KS KS AS", "2S 3S 3S 5S 3H", "AS AS 3H 3H 3H", "3H 3H 3H 3H 3H"], _5_PACKS,
                 dict(winner=0, largest=4, points=25), id="play_throw_tractor_extra_cards"),
    pytest.param(Trump(4, HEARTS), ["QS QS KS KS AS", "2H 2H 3H AH 3H", "AS AS 3S 3S 3S", "3S 3S 3S 3S 3S"],
                 ["QS QS KS KS AS", "2H 2H 3H AH 3H", "AS AS 3S 3S 3S", "3S 3S 3S 3S 3S"], _5_PACKS,
                 dict(winner=1, largest=4, points=20), id="play_throw_tractor_with_other_tractor_in_game"),
]


@pytest.mark.parametrize("trump,hands,plays,settings,expected", SET_TRICKS)
def test_trick_with_its_settings_as_rbtying(trump, hands, plays, settings, expected):
    got = play_trick(trump, hands, plays, _rules(*hands, **settings))
    assert {k: got[k] for k in expected} == expected


SET_FORMATS = [
    pytest.param("2H 2H 3H 3H", dict(tractor_min_length=3), [(2, 1), (2, 1)], id="play_formats-min-length-3"),
    pytest.param("2H 2H 3H 3H 5H 5H", dict(tractor_min_length=3), [(2, 3)], id="play_formats-min-length-3-tractor"),
    pytest.param("2H 2H 3H 3H", dict(tractor_min_length=3, tractor_min_width=3), [(2, 1), (2, 1)],
                 id="play_formats-min-3x3"),
    pytest.param("2H 2H 2H 3H 3H 3H", dict(tractor_min_width=3), [(3, 2)], id="play_formats-min-width-3"),
    pytest.param("2S 2S 2S 2S 2S 2S 2S 3S 3S 5S 5S", _7_PACKS, [(7, 1), (2, 2)], id="trick_tractor_throw"),
]


@pytest.mark.parametrize("cards,settings,shapes", SET_FORMATS)
def test_lead_reading_with_its_settings_as_rbtying(cards, settings, shapes):
    units = kernel.decompose(parse_cards(cards), FOUR_S, _rules(cards, **settings))
    assert [(u.width, u.length) for u in units] == shapes


SET_FOLLOWS = [
    pytest.param("2S 2S 3S 3S 5S 5S", "3S 3S 3S 3S 3S", "2S 2S 3S 3S 5S", True, id="legal_play_pairs-five-1"),
    pytest.param("2S 2S 2S 2S 3S 3S 5S 5S", "3S 3S 3S 3S 3S", "2S 2S 2S 2S 5S", True, id="legal_play_pairs-five-2"),
]


@pytest.mark.parametrize("hand,lead,play,legal", SET_FOLLOWS)
def test_follow_with_its_settings_as_rbtying(hand, lead, play, legal):
    rules = Rules.preset("shengji-online", players=9, **_5_PACKS)
    assert kernel.is_legal_follow(parse_cards(hand), parse_cards(lead), parse_cards(play), FOUR_S, rules) is legal
