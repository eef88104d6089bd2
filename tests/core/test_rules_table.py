"""Table-driven tests of the rules kernel, run against both implementations.

Every expected value below was worked out by hand from ``docs/kernel.md`` and
``shared/design/RULES.md`` (and the worked examples of the rules texts
``000_99040cfb4a5a08c4.txt`` and ``003_5364679ce7d70e16.txt``); none is
produced by calling an implementation.

Each table row is run once per pack count (2, 3, 4; tables of 6, 11 and 12
players) whose deal holds all its cards (the 12-player table has no black
joker), and once per implementation (fixture ``impl``:
``core.kernel``, the compiled core, and ``core.reference``, the naive one).

Levels used below (see docs/kernel.md): suited cards outside the trump rank
count from 0 with the trump rank left out, so with fives as the trump rank
2=0 3=1 4=2 6=3 7=4 8=5 9=6 10=7 J=8 Q=9 K=10 A=11; trump-rank cards outside
the trump suit are 12 (13 when there is no trump suit), the trump-rank card of
the trump suit 13, BJ 14, RJ 15.
"""

from __future__ import annotations

import importlib
import itertools
from collections import Counter

import pytest

from core.cards import (
    BJ, CLUBS, DIAMONDS, HEARTS, RJ, SPADES, Cards, Trump, parse_card, parse_cards,
)
from core.errors import IllegalActionError, PengyouError
from core.rules import PLAYER_TABLE, Rules

# --------------------------------------------------------------------------
# fixtures and helpers

IMPLS = ("core.kernel", "core.reference")


@pytest.fixture(params=IMPLS, ids=["kernel", "reference"])
def impl(request):
    return importlib.import_module(request.param)


#: a table size for each pack count (Rules.preset("pagat") picks packs by players)
PLAYERS_FOR_PACKS = {2: 6, 3: 11, 4: 12}


def rules_for(packs: int, **overrides) -> Rules:
    r = Rules.preset("pagat", players=PLAYERS_FOR_PACKS[packs], **overrides)
    assert r.packs == packs
    return r


def C(text: str) -> Cards:
    return parse_cards(text)


def fits(packs: int, *texts: str) -> bool:
    """True when the table for ``packs`` holds all the cards of ``texts`` together
    (every suited face ``packs`` times, the jokers as that table deals them)."""
    _, red, black, _ = PLAYER_TABLE[PLAYERS_FOR_PACKS[packs]]
    counts: Counter = Counter()
    for t in texts:
        counts.update(C(t))
    return all(n <= {BJ: black, RJ: red}.get(face, packs) for face, n in counts.items())


def expand(rows, texts_of):
    """One pytest.param per row and per pack count whose table holds the row's cards."""
    out = []
    for row in rows:
        fitting = [p for p in (2, 3, 4) if fits(p, *texts_of(row))]
        assert fitting, f"row {row[0]} fits no table"
        for packs in fitting:
            out.append(pytest.param(packs, *row[1:], id=f"{row[0]}-{packs}p"))
    return out


def norm_units(units):
    return [(u.width, u.length, u.top, Cards(u.cards)) for u in units]


def want_units(rows):
    return [(w, L, top, C(cards)) for (w, L, top, cards) in rows]


def sub_multisets(hand: Cards, n: int) -> set:
    return {Cards(c) for c in itertools.combinations(hand, n)}


def norm_throw(r):
    return (
        bool(r.stands),
        None if r.unit is None else Cards(r.unit),
        r.withdrawn,
        r.penalty,
        r.beaten_by,
    )


NO_TRUMP_SUIT_5 = Trump(5, None)   # fives, no trump suit
JOKERS_ONLY = Trump(None, None)    # joker level: only the jokers are trump
T5H = Trump(5, HEARTS)             # fives and hearts (the 000 follow examples)
T4D = Trump(4, DIAMONDS)           # fours and diamonds (the 000 throw example)
T3S = Trump(3, SPADES)             # threes and spades (the 000 ruff example)
T2D = Trump(2, DIAMONDS)           # twos and diamonds (the 003 throw example)
T2H = Trump(2, HEARTS)
T4S = Trump(4, SPADES)
T5S = Trump(5, SPADES)
T2S = Trump(2, SPADES)
TAD = Trump(14, DIAMONDS)          # aces and diamonds

PAST = {"tractor_past_ace": True}
LADDER = {"follow_ladder": True}
PROTECT = {"protect_longer_sets": True}
FIRST = {"failed_throw_unit": "first_found"}

# --------------------------------------------------------------------------
# 1. trump order: levels and effective suits

LEVEL_ROWS = [
    # fives and hearts: the rank is skipped everywhere below 12
    ("t5h-2s-lowest", T5H, "2S", 0),
    ("t5h-3s", T5H, "3S", 1),
    ("t5h-4s-below-skipped-rank", T5H, "4S", 2),
    ("t5h-6s-right-above-4s", T5H, "6S", 3),
    ("t5h-10s", T5H, "10S", 7),
    ("t5h-as-offsuit-top", T5H, "AS", 11),
    ("t5h-2h-trump-suit-bottom", T5H, "2H", 0),
    ("t5h-6h-trump-suit-skips-5", T5H, "6H", 3),
    ("t5h-ah-trump-suit-ace", T5H, "AH", 11),
    ("t5h-5s-offsuit-rank", T5H, "5S", 12),
    ("t5h-5c-offsuit-rank-equal", T5H, "5C", 12),
    ("t5h-5d-offsuit-rank-equal", T5H, "5D", 12),
    ("t5h-5h-rank-in-trump-suit", T5H, "5H", 13),
    ("t5h-black-joker", T5H, "BJ", 14),
    ("t5h-red-joker", T5H, "RJ", 15),
    # twos and spades: nothing below the rank to skip
    ("t2s-3s-lowest", T2S, "3S", 0),
    ("t2s-3c-lowest", T2S, "3C", 0),
    ("t2s-kc", T2S, "KC", 10),
    ("t2s-as", T2S, "AS", 11),
    ("t2s-2c-offsuit-rank", T2S, "2C", 12),
    ("t2s-2s-rank-in-trump-suit", T2S, "2S", 13),
    # aces and diamonds: the king tops the plain order
    ("tad-2d", TAD, "2D", 0),
    ("tad-qc", TAD, "QC", 10),
    ("tad-kd-top-of-trump-suit", TAD, "KD", 11),
    ("tad-ks-top-offsuit", TAD, "KS", 11),
    ("tad-as-offsuit-rank", TAD, "AS", 12),
    ("tad-ad-rank-in-trump-suit", TAD, "AD", 13),
    # fives without a trump suit: every five is 13
    ("t5none-5s", NO_TRUMP_SUIT_5, "5S", 13),
    ("t5none-5h", NO_TRUMP_SUIT_5, "5H", 13),
    ("t5none-4h", NO_TRUMP_SUIT_5, "4H", 2),
    ("t5none-6h", NO_TRUMP_SUIT_5, "6H", 3),
    ("t5none-as", NO_TRUMP_SUIT_5, "AS", 11),
    ("t5none-bj", NO_TRUMP_SUIT_5, "BJ", 14),
    ("t5none-rj", NO_TRUMP_SUIT_5, "RJ", 15),
    # joker level: no rank, no suit
    ("jokers-only-2c", JOKERS_ONLY, "2C", 0),
    ("jokers-only-5h", JOKERS_ONLY, "5H", 3),
    ("jokers-only-10h", JOKERS_ONLY, "10H", 8),
    ("jokers-only-as", JOKERS_ONLY, "AS", 12),
    ("jokers-only-bj", JOKERS_ONLY, "BJ", 14),
    ("jokers-only-rj", JOKERS_ONLY, "RJ", 15),
]


@pytest.mark.parametrize("trump,card,want", [pytest.param(*r[1:], id=r[0]) for r in LEVEL_ROWS])
def test_level(impl, trump, card, want):
    assert impl.level(parse_card(card), trump) == want


SUIT_ROWS = [
    ("t5h-5s-is-trump", T5H, "5S", 4),
    ("t5h-5c-is-trump", T5H, "5C", 4),
    ("t5h-2h-is-trump", T5H, "2H", 4),
    ("t5h-ah-is-trump", T5H, "AH", 4),
    ("t5h-bj-is-trump", T5H, "BJ", 4),
    ("t5h-rj-is-trump", T5H, "RJ", 4),
    ("t5h-as-spades", T5H, "AS", SPADES),
    ("t5h-2c-clubs", T5H, "2C", CLUBS),
    ("t5h-7d-diamonds", T5H, "7D", DIAMONDS),
    ("tad-kd-trump", TAD, "KD", 4),
    ("tad-as-trump-rank", TAD, "AS", 4),
    ("tad-ks-spades", TAD, "KS", SPADES),
    ("t5none-5h-trump", NO_TRUMP_SUIT_5, "5H", 4),
    ("t5none-7h-hearts", NO_TRUMP_SUIT_5, "7H", HEARTS),
    ("t5none-bj-trump", NO_TRUMP_SUIT_5, "BJ", 4),
    ("jokers-only-5h-hearts", JOKERS_ONLY, "5H", HEARTS),
    ("jokers-only-as-spades", JOKERS_ONLY, "AS", SPADES),
    ("jokers-only-2c-clubs", JOKERS_ONLY, "2C", CLUBS),
    ("jokers-only-bj-trump", JOKERS_ONLY, "BJ", 4),
    ("jokers-only-rj-trump", JOKERS_ONLY, "RJ", 4),
]


@pytest.mark.parametrize("trump,card,want", [pytest.param(*r[1:], id=r[0]) for r in SUIT_ROWS])
def test_effective_suit(impl, trump, card, want):
    assert impl.effective_suit(parse_card(card), trump) == want


# --------------------------------------------------------------------------
# 2./3. tractors and lead decomposition
# rows: id, trump, overrides, lead, [(width, length, top, cards), ...] biggest first

DECOMPOSE_ROWS = [
    ("single", T5H, {}, "AS", [(1, 1, 11, "AS")]),
    ("pair", T5H, {}, "KS KS", [(2, 1, 10, "KS KS")]),
    ("triple", T5H, {}, "KS KS KS", [(3, 1, 10, "KS KS KS")]),
    ("quad", T5H, {}, "KS KS KS KS", [(4, 1, 10, "KS KS KS KS")]),
    ("offsuit-rank-pair-is-trump-pair", T5H, {}, "5S 5S", [(2, 1, 12, "5S 5S")]),
    ("tractor-two-pairs", T5H, {}, "QS QS JS JS", [(2, 2, 9, "QS QS JS JS")]),
    ("tractor-three-pairs", T5H, {}, "QS QS JS JS 10S 10S", [(2, 3, 9, "QS QS JS JS 10S 10S")]),
    ("tractor-trump-suit", T5H, {}, "AH AH KH KH", [(2, 2, 11, "AH AH KH KH")]),
    ("tractor-skips-rank-offsuit-spades", T5H, {}, "6S 6S 4S 4S", [(2, 2, 3, "6S 6S 4S 4S")]),
    ("tractor-skips-rank-offsuit-clubs", T5H, {}, "6C 6C 4C 4C", [(2, 2, 3, "6C 6C 4C 4C")]),
    ("tractor-skips-rank-in-trump-suit-hearts", T5H, {}, "6H 6H 4H 4H", [(2, 2, 3, "6H 6H 4H 4H")]),
    ("tractor-skips-rank-in-trump-suit-spades", T5S, {}, "6S 6S 4S 4S", [(2, 2, 3, "6S 6S 4S 4S")]),
    ("tractor-of-triples", T5H, {}, "KS KS KS QS QS QS", [(3, 2, 10, "KS KS KS QS QS QS")]),
    ("tractor-of-quads", T5H, {}, "AS AS AS AS KS KS KS KS", [(4, 2, 11, "AS AS AS AS KS KS KS KS")]),
    # a triple in a tractor of pairs: pair plus a single
    ("triple-in-tractor-is-pair-plus-single", T5H, {}, "KS KS KS QS QS",
     [(2, 2, 10, "KS KS QS QS"), (1, 1, 10, "KS")]),
    ("222-33-is-tractor-plus-single", T5H, {}, "2S 2S 2S 3S 3S",
     [(2, 2, 1, "2S 2S 3S 3S"), (1, 1, 0, "2S")]),
    # default: jokers and trump-rank cards never join a tractor
    ("rank-pairs-no-tractor-default", T5H, {}, "5S 5S 5H 5H",
     [(2, 1, 13, "5H 5H"), (2, 1, 12, "5S 5S")]),
    ("trump-ace-and-rank-pair-no-tractor-default", T5H, {}, "AH AH 5S 5S",
     [(2, 1, 12, "5S 5S"), (2, 1, 11, "AH AH")]),
    ("jokers-no-tractor-default", T5H, {}, "BJ BJ RJ RJ",
     [(2, 1, 15, "RJ RJ"), (2, 1, 14, "BJ BJ")]),
    ("rank-pair-and-bj-no-tractor-default", T5H, {}, "5H 5H BJ BJ",
     [(2, 1, 14, "BJ BJ"), (2, 1, 13, "5H 5H")]),
    # tractor_past_ace chain: trump A -> offsuit rank -> trump-suit rank -> BJ -> RJ
    ("past-ace-trump-ace-to-offsuit-rank", T5H, PAST, "AH AH 5S 5S", [(2, 2, 12, "AH AH 5S 5S")]),
    ("past-ace-offsuit-rank-to-trump-rank", T5H, PAST, "5S 5S 5H 5H", [(2, 2, 13, "5S 5S 5H 5H")]),
    ("past-ace-trump-rank-to-bj", T5H, PAST, "5H 5H BJ BJ", [(2, 2, 14, "5H 5H BJ BJ")]),
    ("past-ace-bj-rj", T5H, PAST, "BJ BJ RJ RJ", [(2, 2, 15, "BJ BJ RJ RJ")]),
    ("past-ace-three-long", T5H, PAST, "AH AH 5S 5S 5H 5H", [(2, 3, 13, "AH AH 5S 5S 5H 5H")]),
    ("past-ace-two-offsuit-rank-pairs-not-tractor", T5H, PAST, "5S 5S 5C 5C",
     [(2, 1, 12, "5S 5S"), (2, 1, 12, "5C 5C")]),
    # two equal candidates: the tractor with the higher face number (5S) comes first
    ("past-ace-ace-with-either-rank-pair", T5H, PAST, "AH AH 5C 5C 5S 5S",
     [(2, 2, 12, "AH AH 5S 5S"), (2, 1, 12, "5C 5C")]),
    ("jokers-only-level-past-ace-jokers", JOKERS_ONLY, PAST, "BJ BJ RJ RJ", [(2, 2, 15, "BJ BJ RJ RJ")]),
    ("jokers-only-level-jokers-default", JOKERS_ONLY, {}, "BJ BJ RJ RJ",
     [(2, 1, 15, "RJ RJ"), (2, 1, 14, "BJ BJ")]),
    # equal trump-rank faces: a set needs one face
    ("t4s-4h-4h-is-pair", T4S, {}, "4H 4H", [(2, 1, 12, "4H 4H")]),
    ("t4s-4h-4d-is-not-pair", T4S, {}, "4H 4D", [(1, 1, 12, "4H"), (1, 1, 12, "4D")]),
    ("t4none-4h-4d-two-singles", Trump(4, None), {}, "4H 4D", [(1, 1, 13, "4H"), (1, 1, 13, "4D")]),
    ("t5h-5s-5c-two-singles", T5H, {}, "5S 5C", [(1, 1, 12, "5S"), (1, 1, 12, "5C")]),
    # throws
    ("throw-singles", T5H, {}, "AS QS 10S 8S",
     [(1, 1, 11, "AS"), (1, 1, 9, "QS"), (1, 1, 7, "10S"), (1, 1, 5, "8S")]),
    ("throw-000-a-k-jj", T4D, {}, "AS KS JS JS", [(2, 1, 8, "JS JS"), (1, 1, 11, "AS"), (1, 1, 10, "KS")]),
    ("throw-000-aakk-jjj", T3S, {}, "AD AD KD KD JD JD JD",
     [(2, 2, 11, "AD AD KD KD"), (3, 1, 8, "JD JD JD")]),
    ("throw-003-a-kk", T2D, {}, "AS KS KS", [(2, 1, 10, "KS KS"), (1, 1, 11, "AS")]),
    ("throw-tractor-plus-pair", T5H, {}, "QS QS JS JS 3S 3S",
     [(2, 2, 9, "QS QS JS JS"), (2, 1, 1, "3S 3S")]),
    ("throw-tractor-plus-gapped-pair", T5H, {}, "QS QS JS JS 9S 9S",
     [(2, 2, 9, "QS QS JS JS"), (2, 1, 6, "9S 9S")]),
    ("throw-two-tractors-higher-first", T5H, {}, "KS KS QS QS 9S 9S 8S 8S",
     [(2, 2, 10, "KS KS QS QS"), (2, 2, 6, "9S 9S 8S 8S")]),
    ("throw-long-tractor-before-triple", T5H, {}, "KS KS QS QS JS JS 9S 9S 9S",
     [(2, 3, 10, "KS KS QS QS JS JS"), (3, 1, 6, "9S 9S 9S")]),
    ("throw-trump-pair-and-single", T4D, {}, "AD AD KD", [(2, 1, 11, "AD AD"), (1, 1, 10, "KD")]),
    # 3 and 4 pack ambiguities
    ("aaa-kkk-qq-triple-tractor-first", T5H, {}, "AS AS AS KS KS KS QS QS",
     [(3, 2, 11, "AS AS AS KS KS KS"), (2, 1, 9, "QS QS")]),
    ("aaaa-kk-tractor-before-quad", T5H, {}, "AS AS AS AS KS KS",
     [(2, 2, 11, "AS AS KS KS"), (2, 1, 11, "AS AS")]),
    ("9999-88-tractor-plus-pair", T5H, {}, "9S 9S 9S 9S 8S 8S",
     [(2, 2, 6, "9S 9S 8S 8S"), (2, 1, 6, "9S 9S")]),
    ("9999-888-triple-tractor-plus-single", T5H, {}, "9S 9S 9S 9S 8S 8S 8S",
     [(3, 2, 6, "9S 9S 9S 8S 8S 8S"), (1, 1, 6, "9S")]),
    ("aaaa-kkk-qqq-triple-tractor-plus-single", T5H, {}, "AS AS AS AS KS KS KS QS QS QS",
     [(3, 3, 11, "AS AS AS KS KS KS QS QS QS"), (1, 1, 11, "AS")]),
    ("kkkk-qq-jj-long-tractor-plus-pair", T5H, {}, "KS KS KS KS QS QS JS JS",
     [(2, 3, 10, "KS KS QS QS JS JS"), (2, 1, 10, "KS KS")]),
]


@pytest.mark.parametrize("packs,trump,overrides,lead,want", expand(DECOMPOSE_ROWS, lambda r: [r[3]]))
def test_decompose(impl, packs, trump, overrides, lead, want):
    got = impl.decompose(C(lead), trump, rules_for(packs, **overrides))
    assert norm_units(got) == want_units(want)


MIXED_ROWS = [
    ("spade-and-trump-suit", T5H, "AS KH"),
    ("spade-and-offsuit-rank", T5H, "AS 5S"),
    ("two-plain-suits", T5H, "AS AD"),
    ("joker-and-spade", T5H, "BJ AS"),
    ("offsuit-rank-pair-and-clubs", T5H, "5C 5C 6C 6C"),
    ("jokers-only-joker-and-spade", JOKERS_ONLY, "BJ AS"),
    ("jokers-only-two-fives", JOKERS_ONLY, "5S 5H"),
]


@pytest.mark.parametrize("packs,trump,lead", expand(MIXED_ROWS, lambda r: [r[2]]))
def test_decompose_refuses_mixed_suits(impl, packs, trump, lead):
    with pytest.raises(IllegalActionError):
        impl.decompose(C(lead), trump, rules_for(packs))


# --------------------------------------------------------------------------
# 4. following
# rows: id, trump, overrides, hand, lead, every legal play
# The 000 examples around a four-card spade tractor lead (the lead itself was
# lost from that copy; any spade tractor below K-K-Q-Q fits its words) use a
# low tractor chosen so that no face has more copies than the packs allow.

QQJJTT = "QS QS JS JS 10S 10S"

FOLLOW_ROWS = [
    # 000, Q-Q-J-J-10-10 of spades led, fives and hearts trumps
    ("000-aaa-kkk-44-plays-three-pairs", T5H, {}, "AS AS AS KS KS KS 4S 4S 7H 3C", QQJJTT,
     ["AS AS KS KS 4S 4S"]),
    ("000-only-aaa-kkk-plays-them-all", T5H, {}, "AS AS AS KS KS KS 7H 3C 9D", QQJJTT,
     ["AS AS AS KS KS KS"]),
    ("tractor-followed-by-unconnected-pairs", T5H, {}, "AS AS 9S 9S 4S 4S 3S 8D", QQJJTT,
     ["AS AS 9S 9S 4S 4S"]),
    # 000, the four-card tractor bullets
    ("000-a-q-1010-7-6-must-include-tens", T5H, {}, "AS QS 10S 10S 7S 6S 2C", "9S 9S 8S 8S",
     ["AS QS 10S 10S", "AS 10S 10S 7S", "AS 10S 10S 6S", "QS 10S 10S 7S", "QS 10S 10S 6S",
      "10S 10S 7S 6S"]),
    ("000-aa-1010-99-any-two-pairs", T5H, {}, "AS AS 10S 10S 9S 9S 3D", "8S 8S 7S 7S",
     ["AS AS 10S 10S", "AS AS 9S 9S", "10S 10S 9S 9S"]),
    ("000-aaaa-6-4-all-four-aces", T5H, {}, "AS AS AS AS 6S 4S 2C", "8S 8S 7S 7S",
     ["AS AS AS AS"]),
    ("000-kkqq877-any-two-of-three-pairs", T5H, {}, "KS KS QS QS 8S 7S 7S", "JS JS 10S 10S",
     ["KS KS QS QS", "KS KS 7S 7S", "QS QS 7S 7S"]),
    # short suit and void
    ("short-suit-all-of-it-plus-any", T5H, {}, "KS 7S AH 2C 2C", "9S 9S 8S 8S",
     ["KS 7S AH 2C", "KS 7S 2C 2C"]),
    ("void-anything-no-pair-duty", T5H, {}, "AH 3C 3C", "9S 9S", ["AH 3C", "3C 3C"]),
    ("exactly-n-of-suit-pair-elsewhere-ignored", T5H, {}, "KS 7S 3C 3C", "9S 9S", ["KS 7S"]),
    # singles and pairs
    ("single-follow-suit", T5H, {}, "AS 3S KH", "9S", ["AS", "3S"]),
    ("trump-single-offsuit-rank-is-trump", T5H, {}, "5C AS KC", "2H", ["5C"]),
    ("pair-must-pair", T5H, {}, "KS KS 7S 3C 3C", "9S 9S", ["KS KS"]),
    ("pair-no-pair-any-two-of-suit", T5H, {}, "KS QS 7S 3C 3C", "9S 9S", ["KS QS", "KS 7S", "QS 7S"]),
    ("trump-pair-5s-5c-is-no-pair", T5H, {}, "5S 5C AH 9D", "2H 2H", ["5S 5C", "5S AH", "5C AH"]),
    ("trump-pair-real-pair-of-5s", T5H, {}, "5S 5S 5C AH", "2H 2H", ["5S 5S"]),
    ("trump-rank-pair-lead-equal-faces-only", T5H, {}, "5C 5C 5D AH 3C", "5S 5S", ["5C 5C"]),
    # triples against pair leads
    ("pair-lead-triple-supplies-pair", T5H, {}, "KS KS KS 7S 3D", "9S 9S", ["KS KS"]),
    ("pair-lead-triple-or-pair", T5H, {}, "KS KS KS 7S 7S", "9S 9S", ["KS KS", "7S 7S"]),
    ("tractor-lead-triple-gives-a-pair", T5H, {}, "KS KS KS 7S 7S 4S", "9S 9S 8S 8S", ["KS KS 7S 7S"]),
    ("tractor-lead-quad-gives-two-pairs", T5H, {}, "KS KS KS KS 6S 2D", "9S 9S 8S 8S", ["KS KS KS KS"]),
    ("triple-lead-pairs-not-required-default", T5H, {}, "KS KS 8S 8S 4S 3H", "9S 9S 9S",
     ["KS KS 8S", "KS KS 4S", "KS 8S 8S", "KS 8S 4S", "8S 8S 4S"]),
    # protect_longer_sets: a longer set need not be broken
    ("protect-pair-lead-triple-kept", T5H, PROTECT, "KS KS KS 7S 3D", "9S 9S", ["KS KS", "KS 7S"]),
    ("protect-pair-lead-exact-pair-still-owed", T5H, PROTECT, "KS KS KS 7S 7S", "9S 9S",
     ["KS KS", "7S 7S"]),
    ("protect-tractor-lead-one-exact-pair-owed", T5H, PROTECT, "KS KS KS 7S 7S 4S", "9S 9S 8S 8S",
     ["KS KS KS 7S", "KS KS KS 4S", "KS KS 7S 7S", "KS KS 7S 4S", "KS 7S 7S 4S"]),
    ("protect-tractor-lead-quad-kept", T5H, PROTECT, "KS KS KS KS 6S 2D", "9S 9S 8S 8S",
     ["KS KS KS KS", "KS KS KS 6S"]),
    # follow_ladder (000 variant)
    ("ladder-000-777-led-a-kk-8-5-must-play-kk", T2D, LADDER, "AS KS KS 8S 5S 3H", "7S 7S 7S",
     ["AS KS KS", "KS KS 8S", "KS KS 5S"]),
    ("default-777-led-a-kk-8-5-any-three", T2D, {}, "AS KS KS 8S 5S 3H", "7S 7S 7S",
     ["AS KS KS", "AS KS 8S", "AS KS 5S", "AS 8S 5S", "KS KS 8S", "KS KS 5S", "KS 8S 5S"]),
    ("ladder-triple-lead-a-pair-owed", T5H, LADDER, "KS KS 8S 8S 4S 3H", "9S 9S 9S",
     ["KS KS 8S", "KS KS 4S", "KS 8S 8S", "8S 8S 4S"]),
    ("ladder-tractor-led-tractor-owed", T2D, LADDER, "QS QS JS JS 5S 5S 3S", "9S 9S 8S 8S",
     ["QS QS JS JS"]),
    ("default-tractor-led-any-two-pairs", T2D, {}, "QS QS JS JS 5S 5S 3S", "9S 9S 8S 8S",
     ["QS QS JS JS", "QS QS 5S 5S", "JS JS 5S 5S"]),
    ("ladder-tractor-led-else-two-pairs", T2D, LADDER, "QS QS 10S 10S 5S", "9S 9S 8S 8S",
     ["QS QS 10S 10S"]),
    ("ladder-tractor-led-else-one-pair", T2D, LADDER, "QS QS 10S 6S 5S", "9S 9S 8S 8S",
     ["QS QS 10S 6S", "QS QS 10S 5S", "QS QS 6S 5S"]),
    ("ladder-triple-tractor-led-pair-tractor-owed", T2D, LADDER, "QS QS JS JS 6S 4S 3S",
     "9S 9S 9S 8S 8S 8S", ["QS QS JS JS 6S 4S", "QS QS JS JS 6S 3S", "QS QS JS JS 4S 3S"]),
    ("default-triple-tractor-led-no-triples-any-six", T2D, {}, "QS QS JS JS 6S 4S 3S",
     "9S 9S 9S 8S 8S 8S",
     ["QS JS JS 6S 4S 3S", "QS QS JS 6S 4S 3S", "QS QS JS JS 4S 3S", "QS QS JS JS 6S 3S",
      "QS QS JS JS 6S 4S"]),
    ("ladder-triple-tractor-led-triple-and-pair-owed", T5H, LADDER, "KS KS KS KS 7S 7S 2S",
     "9S 9S 9S 8S 8S 8S", ["KS KS KS 7S 7S 2S", "KS KS KS KS 7S 7S"]),
    ("default-triple-tractor-led-one-triple-owed", T5H, {}, "KS KS KS KS 7S 7S 2S",
     "9S 9S 9S 8S 8S 8S", ["KS KS KS 7S 7S 2S", "KS KS KS KS 7S 2S", "KS KS KS KS 7S 7S"]),
    # throws: as many sets as the lead, largest first
    ("throw-000-a-k-jj-pair-owed", T4D, {}, "QS QS 9S 8S 3S 2H", "AS KS JS JS",
     ["QS QS 9S 8S", "QS QS 9S 3S", "QS QS 8S 3S"]),
    ("throw-000-a-k-jj-trump-pair-not-in-suit", T4D, {}, "9S 8S 3S 4S 4S", "AS KS JS JS",
     ["9S 8S 3S 4S"]),
    ("throw-tractor-plus-pair-three-pairs-owed", T5H, {}, "AS AS 9S 9S 7S 7S 2S",
     "QS QS JS JS 3S 3S", ["AS AS 9S 9S 7S 7S"]),
    ("throw-tractor-plus-pair-two-pairs-held", T5H, {}, "AS AS 9S 9S 7S 6S 2S",
     "QS QS JS JS 3S 3S", ["AS AS 9S 9S 7S 6S", "AS AS 9S 9S 7S 2S", "AS AS 9S 9S 6S 2S"]),
    ("throw-000-aakk-jjj-triple-and-two-pairs-owed", T3S, {}, "QD QD QD 9D 9D 8D 8D 2D",
     "AD AD KD KD JD JD JD", ["QD QD QD 9D 9D 8D 8D"]),
    ("throw-000-aakk-jjj-triple-first-then-pair", T3S, {}, "QD QD QD 9D 9D 8D 6D 2D",
     "AD AD KD KD JD JD JD",
     ["QD QD QD 9D 9D 8D 6D", "QD QD QD 9D 9D 8D 2D", "QD QD QD 9D 9D 6D 2D"]),
]


@pytest.mark.parametrize("packs,trump,overrides,hand,lead,want",
                         expand(FOLLOW_ROWS, lambda r: [r[3], r[4]]))
def test_legal_follows(impl, packs, trump, overrides, hand, lead, want):
    rules = rules_for(packs, **overrides)
    hand_c, lead_c = C(hand), C(lead)
    got = [Cards(p) for p in impl.legal_follows(hand_c, lead_c, trump, rules)]
    assert len(got) == len(set(got)), "legal_follows repeated a play"
    assert set(got) == {C(p) for p in want}


@pytest.mark.parametrize("packs,trump,overrides,hand,lead,want",
                         expand(FOLLOW_ROWS, lambda r: [r[3], r[4]]))
def test_is_legal_follow_every_play(impl, packs, trump, overrides, hand, lead, want):
    """Each play of the right size from the hand is legal iff it is in the row."""
    rules = rules_for(packs, **overrides)
    hand_c, lead_c = C(hand), C(lead)
    legal = {C(p) for p in want}
    wrong = []
    for play in sorted(sub_multisets(hand_c, len(lead_c))):
        got = bool(impl.is_legal_follow(hand_c, lead_c, play, trump, rules))
        if got != (play in legal):
            wrong.append((str(play), got))
    assert not wrong, f"is_legal_follow wrong for (play, answer): {wrong}"


BAD_PLAY_ROWS = [
    ("too-many-cards", T5H, "KS KS 7S", "9S 9S", "KS KS 7S"),
    ("too-few-cards", T5H, "KS KS 7S", "9S 9S", "KS"),
    ("cards-not-in-hand", T5H, "KS KS 7S", "9S 9S", "AS AS"),
    ("more-copies-than-held", T5H, "KS 7S 7H", "9S 9S", "KS KS"),
]


@pytest.mark.parametrize("packs,trump,hand,lead,play",
                         expand(BAD_PLAY_ROWS, lambda r: [r[2], r[3]]))
def test_is_legal_follow_rejects_bad_plays(impl, packs, trump, hand, lead, play):
    try:
        got = impl.is_legal_follow(C(hand), C(lead), C(play), trump, rules_for(packs))
    except PengyouError:
        got = False
    assert got is False or got == 0


# --------------------------------------------------------------------------
# 5. winning a trick
# rows: id, trump, overrides, plays (plays[0] leads), index of the winner

WINNER_ROWS = [
    # singles
    ("single-highest-trump", T5H, {}, ["AS", "KS", "2H", "3H"], 3),
    ("single-offsuit-ace-other-suit-loses", T5H, {}, ["9S", "AS", "AD"], 1),
    ("single-jokers-top", T5H, {}, ["AS", "2H", "BJ", "RJ"], 3),
    ("single-offsuit-rank-beats-trump-ace", T5H, {}, ["9S", "AH", "5C"], 2),
    ("single-equal-offsuit-ranks-first-wins", T5H, {}, ["9S", "5C", "5D"], 1),
    ("single-rank-in-trump-suit-beats-offsuit-rank", T5H, {}, ["9S", "5C", "5H"], 2),
    ("single-trump-lead-equal-rank-keeps-lead", T5H, {}, ["5S", "5C", "AH"], 0),
    ("single-trump-lead-offsuit-card-loses", T5H, {}, ["2H", "AS"], 0),
    ("single-trump-lead-higher-trump", T5H, {}, ["2H", "3H"], 1),
    ("t5none-single-all-fives-equal", NO_TRUMP_SUIT_5, {}, ["9S", "5C", "5H"], 1),
    ("t5none-single-joker-beats-five", NO_TRUMP_SUIT_5, {}, ["5C", "BJ"], 1),
    ("t5none-single-hearts-not-trump", NO_TRUMP_SUIT_5, {}, ["AS", "2H"], 0),
    ("jokers-only-single-joker-wins", JOKERS_ONLY, {}, ["AS", "2C", "BJ"], 2),
    ("jokers-only-single-red-joker-top", JOKERS_ONLY, {}, ["KH", "AH", "RJ", "BJ"], 2),
    # pairs
    ("pair-equal-offsuit-rank-pairs-first-wins", T5H, {}, ["9S 9S", "5C 5C", "5D 5D"], 1),
    ("pair-5s-5c-is-no-pair", T5H, {}, ["9S 9S", "5S 5C"], 0),
    ("pair-unmatched-trumps-lose", T5H, {}, ["9S 9S", "AH KH"], 0),
    ("pair-small-trump-pair-wins", T5H, {}, ["9S 9S", "AH KH", "2H 2H"], 2),
    ("pair-jokers-bj-rj-no-pair", T5H, {}, ["9S 9S", "BJ RJ"], 0),
    ("pair-higher-pairs-in-suit", T5H, {}, ["9S 9S", "KS KS", "AS AS"], 2),
    ("pair-half-trump-play-loses", T5H, {}, ["9S 9S", "KS 2H"], 0),
    ("t4s-4h-4d-no-pair", T4S, {}, ["9C 9C", "4H 4D"], 0),
    ("t4s-4h-4h-pair-wins", T4S, {}, ["9C 9C", "4H 4H"], 1),
    ("t4s-equal-rank-pairs-first-wins", T4S, {}, ["9C 9C", "4H 4H", "4D 4D"], 1),
    ("t4s-trump-suit-rank-pair-beats", T4S, {}, ["9C 9C", "4H 4H", "4S 4S"], 2),
    # tractors
    ("tractor-unconnected-pairs-lose", T5H, {}, ["QS QS JS JS", "AS AS 10S 10S"], 0),
    ("tractor-higher-in-suit", T5H, {}, ["QS QS JS JS", "AS AS KS KS"], 1),
    ("tractor-skipping-rank-offsuit-wins", T5H, {}, ["3S 3S 2S 2S", "6S 6S 4S 4S"], 1),
    ("tractor-ruff-skipping-rank-in-trump-suit", T5H, {}, ["9S 9S 8S 8S", "6H 6H 4H 4H"], 1),
    ("tractor-ruff-wrong-shape-never-wins", T5H, {}, ["QS QS JS JS", "AH AH QH QH"], 0),
    ("tractor-ruff-singles-never-win", T5H, {}, ["QS QS JS JS", "AH KH QH JH"], 0),
    ("tractor-ruff-right-shape-wins", T5H, {}, ["QS QS JS JS", "KH KH QH QH"], 1),
    ("tractor-ruff-rank-pairs-default-no", T5H, {}, ["9S 9S 8S 8S", "5S 5S 5H 5H"], 0),
    ("tractor-ruff-jokers-default-no", T5H, {}, ["9S 9S 8S 8S", "BJ BJ RJ RJ"], 0),
    ("past-ace-ruff-jokers", T5H, PAST, ["9S 9S 8S 8S", "BJ BJ RJ RJ"], 1),
    ("past-ace-ruff-trump-ace-offsuit-rank", T5H, PAST, ["9S 9S 8S 8S", "AH AH 5S 5S"], 1),
    ("past-ace-two-offsuit-rank-pairs-no", T5H, PAST, ["9S 9S 8S 8S", "5S 5S 5C 5C"], 0),
    ("past-ace-higher-chain-wins", T5H, PAST, ["9S 9S 8S 8S", "AH AH 5C 5C", "5D 5D 5H 5H"], 2),
    ("past-ace-equal-chains-first-wins", T5H, PAST, ["9S 9S 8S 8S", "AH AH 5C 5C", "AH AH 5D 5D"], 1),
    ("000-aaaa-no-sequence-loses", T5H, {}, ["8S 8S 7S 7S", "AS AS AS AS"], 0),
    ("000-aaa-kkk-loses-to-three-pair-tractor", T5H, {}, [QQJJTT, "AS AS AS KS KS KS"], 0),
    ("000-kkqq-beats-lead", T5H, {}, ["JS JS 10S 10S", "KS KS QS QS"], 1),
    ("000-kk77-does-not-beat", T5H, {}, ["JS JS 10S 10S", "KS KS 7S 7S"], 0),
    # triples count as pairs
    ("throw-pair-single-ruffed-by-triple", T5H, {}, ["9S 9S 4S", "2H 2H 2H"], 1),
    ("throw-pair-single-in-suit-triple-as-pair", T5H, {}, ["9S 9S 4S", "KS KS KS"], 1),
    ("throw-tractor-single-ruff-triple-splits", T5H, {}, ["QS QS JS JS 3S", "AH AH AH KH KH"], 1),
    # ambiguous follower decompositions: every matching is tried
    ("throw-ruff-long-tractor-as-tractor-plus-pair", T5H, {}, ["QS QS JS JS 3S 3S", "AH AH KH KH QH QH"], 1),
    ("throw-ruff-best-split-wins-late", T5H, {},
     ["QS QS JS JS 3S 3S", "JH JH 10H 10H 3H 3H", "AH AH KH KH QH QH"], 2),
    ("throw-ruff-best-split-wins-early", T5H, {},
     ["QS QS JS JS 3S 3S", "AH AH KH KH QH QH", "JH JH 10H 10H 3H 3H"], 1),
    ("9999-88-lead-quad-plus-pair-ruff-no-tractor", T5H, {}, ["9S 9S 9S 9S 8S 8S", "KH KH KH KH 2H 2H"], 0),
    ("9999-88-lead-ruff-3333-22", T5H, {}, ["9S 9S 9S 9S 8S 8S", "3H 3H 3H 3H 2H 2H"], 1),
    # 000 throw example, fours and diamonds
    ("000-a-k-jj-second-ruff-better-pair", T4D, {}, ["AS KS JS JS", "5D 5D 5D QD", "7D 7D 3D 2D"], 2),
    ("000-a-k-jj-first-ruff-better-pair", T4D, {}, ["AS KS JS JS", "7D 7D 3D 2D", "5D 5D 5D QD"], 1),
    ("000-a-k-jj-ruff-without-pair-loses", T4D, {}, ["AS KS JS JS", "AD KD QD JD"], 0),
    ("000-a-k-jj-low-pair-ruff-wins", T4D, {}, ["AS KS JS JS", "AD KD QD JD", "3D 3D 2D 2D"], 2),
    # 000 ruff example, threes and spades
    ("000-aakk-jjj-higher-tractor-ruff-wins", T3S, {},
     ["AD AD KD KD JD JD JD", "AS AS AS 8S 8S 7S 7S", "10S 10S 9S 9S 4S 4S 4S"], 2),
    ("000-aakk-jjj-ruff-without-triple-loses", T3S, {},
     ["AD AD KD KD JD JD JD", "10S 10S 9S 9S 4S 4S 6S"], 0),
    # 003: a non-trump A + K-K
    ("003-diamonds-trump-q-99-wins", T2D, {}, ["AS KS KS", "QD 9D 9D"], 1),
    ("003-diamonds-spade-q-trump-99-loses", T2D, {}, ["AS KS KS", "QS 9D 9D"], 0),
    ("003-diamonds-only-full-trump-ruff-wins", T2D, {}, ["AS KS KS", "QS 9D 9D", "QD 8D 8D"], 2),
    ("003-hearts-trump-q-99-wins", T2H, {}, ["AS KS KS", "QH 9H 9H"], 1),
    ("003-hearts-spade-q-trump-99-loses", T2H, {}, ["AS KS KS", "QS 9H 9H"], 0),
]


@pytest.mark.parametrize("packs,trump,overrides,plays,want", expand(WINNER_ROWS, lambda r: r[3]))
def test_trick_winner(impl, packs, trump, overrides, plays, want):
    got = impl.trick_winner([C(p) for p in plays], trump, rules_for(packs, **overrides))
    assert got == want


# --------------------------------------------------------------------------
# 6. throws
# rows: id, trump, overrides, lead, other hands (seat order after the leader),
#       (stands, unit left, withdrawn, penalty, beaten_by)

STANDS = (True, None, 0, 0, None)
AKJJ = "AS KS JS JS"

THROW_ROWS = [
    ("000-single-ace-beats-king", T4D, {}, AKJJ, ["2S 9H", "AS 3C 7H"], (False, "KS", 3, 30, 1)),
    ("000-queens-beat-jacks", T4D, {}, AKJJ, ["QS QS 5H", "3S"], (False, "JS JS", 2, 20, 0)),
    ("000-nobody-beats-stands", T4D, {}, AKJJ, ["QS 10S 10S 2S", "3H 3H AD"], STANDS),
    ("trumps-in-other-hands-do-not-count", T4D, {}, AKJJ, ["AD AD BJ RJ", "4S 4S 4H"], STANDS),
    ("beaten-by-any-seat-even-a-partner", T4D, {}, AKJJ, ["3S", "2C", "10S 10S", "AS", "9H"],
     (False, "KS", 3, 30, 3)),
    ("two-units-two-hands-smallest-lowest", T4D, {}, AKJJ, ["QS QS", "AS"], (False, "KS", 3, 30, 1)),
    ("two-units-two-hands-first-found", T4D, FIRST, AKJJ, ["QS QS", "AS"], (False, "JS JS", 2, 20, 0)),
    ("one-hand-beats-two-units-smallest-lowest", T4D, {}, AKJJ, ["2C", "AS QS QS"],
     (False, "KS", 3, 30, 1)),
    ("one-hand-beats-two-units-first-found", T4D, FIRST, AKJJ, ["2C", "AS QS QS"],
     (False, "JS JS", 2, 20, 1)),
    ("penalty-zero", T4D, {"throw_penalty": 0}, AKJJ, ["AS"], (False, "KS", 3, 0, 0)),
    ("penalty-twenty-per-card", T4D, {"throw_penalty": 20}, AKJJ, ["AS"], (False, "KS", 3, 60, 0)),
    ("triple-beats-pair", T4D, {}, AKJJ, ["QS QS QS"], (False, "JS JS", 2, 20, 0)),
    ("singles-lowest-beatable-left", T4D, {}, "AS QS 10S 8S", ["KS JS 9S"], (False, "8S", 3, 30, 0)),
    ("singles-first-found-in-lead-order", T4D, FIRST, "AS QS 10S 8S", ["KS JS 9S"],
     (False, "QS", 3, 30, 0)),
    ("tractor-beaten-by-higher-tractor", T4D, {}, "JS JS 10S 10S AS", ["KS KS QS QS"],
     (False, "JS JS 10S 10S", 1, 10, 0)),
    ("tractor-not-beaten-by-loose-pairs", T4D, {}, "JS JS 10S 10S AS", ["KS KS 9S 9S", "QS QS"], STANDS),
    ("tractor-beaten-by-triple-tractor", T4D, {}, "JS JS 10S 10S AS", ["KS KS KS QS QS QS"],
     (False, "JS JS 10S 10S", 1, 10, 0)),
    ("tractor-equal-top-does-not-beat", T4D, {}, "JS JS 10S 10S AS", ["JS JS 10S 10S"], STANDS),
    ("tractor-beaten-by-tractor-skipping-rank", T4D, {}, "3S 3S 2S 2S AS", ["5S 5S 3S 3S"],
     (False, "3S 3S 2S 2S", 1, 10, 0)),
    ("tractor-rank-cards-are-not-in-suit", T4D, {}, "3S 3S 2S 2S AS", ["5S 5S 4S 4S"], STANDS),
    ("trump-throw-offsuit-rank-card-beats-king", T4D, {}, "AD AD KD", ["4S"], (False, "KD", 2, 20, 0)),
    ("trump-throw-rank-pair-smallest-lowest", T4D, {}, "AD AD KD", ["4S 4S"], (False, "KD", 2, 20, 0)),
    ("trump-throw-rank-pair-first-found", T4D, FIRST, "AD AD KD", ["4S 4S"], (False, "AD AD", 1, 10, 0)),
    ("equal-singles-lowest-face-left", T4D, {}, "4S 4C", ["4D"], (False, "4C", 1, 10, 0)),
    ("equal-singles-first-found", T4D, FIRST, "4S 4C", ["4D"], (False, "4S", 1, 10, 0)),
    ("equal-level-single-does-not-beat", T4D, {}, "4S 4C", ["4H"], STANDS),
]


@pytest.mark.parametrize("packs,trump,overrides,lead,others,want",
                         expand(THROW_ROWS, lambda r: [r[3], *r[4]]))
def test_check_throw(impl, packs, trump, overrides, lead, others, want):
    got = impl.check_throw(C(lead), [C(h) for h in others], trump, rules_for(packs, **overrides))
    stands, unit, withdrawn, penalty, beaten_by = want
    assert norm_throw(got) == (stands, None if unit is None else C(unit), withdrawn, penalty, beaten_by)


# --------------------------------------------------------------------------
# 7. points

POINT_ROWS = [
    ("kings-tens-fives", "KS 10D 5H 5H AS", 30),
    ("no-points-in-jokers-and-faces", "BJ RJ AS QS JS 9C", 0),
    ("all-fives", "5C 5D 5H 5S", 20),
    ("all-kings-and-tens", "KC KD KH KS 10C 10D 10H 10S", 80),
    ("nothing", "", 0),
]


@pytest.mark.parametrize("cards,want", [pytest.param(*r[1:], id=r[0]) for r in POINT_ROWS])
def test_points(impl, cards, want):
    assert impl.points(C(cards)) == want


@pytest.mark.parametrize("packs", [1, 2, 3, 4], ids=lambda p: f"{p}-packs")
def test_points_full_packs(impl, packs):
    deal = Cards(list(range(54)) * packs)  # every face, jokers included
    assert impl.points(deal) == 100 * packs
