"""``ladder=decompose``: rbtying/shengji's weakening order (docs/kernel.md,
Following, "The weakening order"), kernel and reference alike.

The order tables are the values rbtying's ``test_subsequent_decomposition_ordering``
asserts (its lists start after the led format, ours with it); the follow
rows are worked by hand from the definition.
"""

from __future__ import annotations

import random

import pytest

from arena.bench.positions import random_position
from core import kernel, reference
from core._kernel import weakening_order as kernel_order
from core.cards import HEARTS, SPADES, Trump, parse_cards
from core.errors import RulesError
from core.reference_weaken import formats_of, weakening_order as reference_order
from core.rules import Rules

FOUR_S = Trump(4, SPADES)


def fmt(text: str) -> tuple[tuple[int, ...], ...]:
    """``"43 1"``: a group of a set of 4 with a set of 3 on the next level up, and a single."""
    return tuple(tuple(int(d) for d in g) for g in text.split())


def both(shapes: tuple[tuple[int, int], ...]) -> list[tuple[tuple[int, ...], ...]]:
    k = list(kernel_order(shapes))
    r = list(reference_order(shapes))
    assert k == r, shapes
    return k


# (id, lead unit shapes, the formats after the led one, in order)
ORDERS = [
    ("single", ((1, 1),), []),
    ("pair", ((2, 1),), ["1 1"]),
    ("triple", ((3, 1),), ["2 1", "1 1 1"]),
    ("quad", ((4, 1),), ["3 1", "22", "2 2", "2 1 1", "1 1 1 1"]),
    ("tractor", ((2, 2),), ["2 2", "2 1 1", "1 1 1 1"]),
    ("two-pairs", ((2, 1), (2, 1)), ["2 1 1", "1 1 1 1"]),
    ("quad-tractor", ((4, 2),), [
        "4 4", "43 1", "34 1", "4 3 1", "422", "242", "224", "42 2", "24 2", "4 22", "4 2 2", "42 1 1",
        "24 1 1", "4 2 1 1", "4 1 1 1 1", "332", "323", "233", "33 2", "32 3", "3 23", "3 3 2", "33 1 1",
        "3 3 1 1", "322 1", "232 1", "223 1", "32 2 1", "23 2 1", "3 22 1", "3 2 2 1", "32 1 1 1",
        "23 1 1 1", "3 2 1 1 1", "3 1 1 1 1 1", "2222", "222 2", "22 22", "22 2 2", "2 2 2 2", "222 1 1",
        "22 2 1 1", "2 2 2 1 1", "22 1 1 1 1", "2 2 1 1 1 1", "2 1 1 1 1 1 1", "1 1 1 1 1 1 1 1"]),
    ("throw-tractor-triple-pair", ((2, 2), (3, 1), (2, 1)), [
        "3 2 2 2", "3 2 2 1 1", "2 2 2 1 1 1", "2 2 1 1 1 1 1", "2 1 1 1 1 1 1 1", "1 1 1 1 1 1 1 1 1"]),
    # worked by hand: a tractor of triples keeps both triples before splitting either
    ("triple-tractor", ((3, 2),), ["3 3", "32 1", "23 1", "3 2 1"]),
]


@pytest.mark.parametrize("shapes,after", [pytest.param(s, a, id=i) for i, s, a in ORDERS])
def test_weakening_order(shapes, after):
    got = both(shapes)
    lead = tuple(sorted(((k,) * L for k, L in shapes), reverse=True))
    assert got[0] == lead
    assert got[1:1 + len(after)] == [fmt(a) for a in after]
    if shapes != ((3, 2),):
        assert len(got) == 1 + len(after)


@pytest.mark.parametrize("n", range(1, 9))
def test_throw_of_triples(n):
    """A throw of n triples: each step turns the first 3 into 2 + 1, or the
    last 2 into 1 + 1 (rbtying's loop over all-3 throws), down to singles."""
    got = both(((3, 1),) * n)
    expected = [(3,)] * (n - 1) + [(2,), (1,)]
    for step in got[1:]:
        assert step == tuple(expected)
        v = expected.pop(0)
        v = (v[0] - 1,)
        at = max(i for i, z in enumerate(expected) if z == v) if v in expected else None
        if at is None:
            break
        expected.insert(at, v)
        expected.append((1,))
    assert got[-1] == ((1,),) * (3 * n)


@pytest.mark.parametrize("n", range(1, 9))
def test_formats_of_n_cards(n):
    from core._kernel import _groupings
    assert tuple(_groupings(n)) == formats_of(n)
    assert formats_of(n)[0] == ((n,),) and formats_of(n)[-1] == ((1,),) * n
    assert all(sum(map(sum, f)) == n for f in formats_of(n))


# (id, trump, packs, hand, lead, play, legal): worked from the definition
FOLLOWS = [
    # a led triple, no triple held: a pair and a single are owed, before three singles
    ("triple-pair-single", FOUR_S, 3, "5H 5H 6H 6H 7H 2H", "9H 9H 9H", "5H 5H 7H", True),
    ("triple-pair-single-2", FOUR_S, 3, "5H 5H 6H 6H 7H 2H", "9H 9H 9H", "6H 6H 5H", True),
    ("triple-singles-refused", FOUR_S, 3, "5H 5H 6H 6H 7H 2H", "9H 9H 9H", "5H 6H 7H", False),
    # a led quad: a triple and a single come before two pairs
    ("quad-triple-single", FOUR_S, 4, "2H 2H 2H 5H 5H 8H", "9H 9H 9H 9H", "2H 2H 2H 8H", True),
    ("quad-two-pairs-refused", FOUR_S, 4, "2H 2H 2H 5H 5H 8H", "9H 9H 9H 9H", "2H 2H 5H 5H", False),
    ("quad-held", FOUR_S, 4, "5H 5H 5H 5H 6H", "9H 9H 9H 9H", "5H 5H 5H 5H", True),
    ("quad-held-broken", FOUR_S, 4, "5H 5H 5H 5H 6H", "9H 9H 9H 9H", "5H 5H 5H 6H", False),
    # a tractor of triples: two loose triples are owed before a triple joined to a pair
    ("triple-tractor-two-triples", FOUR_S, 3, "5H 5H 5H 6H 6H 7H 7H 7H QH", "9H 9H 9H 10H 10H 10H",
     "5H 5H 5H 7H 7H 7H", True),
    ("triple-tractor-joined-refused", FOUR_S, 3, "5H 5H 5H 6H 6H 7H 7H 7H QH", "9H 9H 9H 10H 10H 10H",
     "5H 5H 5H 6H 6H 7H", False),
    # ... with one triple, the triple joined to the next level's pair is owed (32 1), then the reverse
    ("triple-pair-joined", FOUR_S, 3, "5H 5H 5H 6H 6H 8H 8H QH", "9H 9H 9H 10H 10H 10H", "5H 5H 5H 6H 6H QH",
     True),
    ("triple-pair-apart-refused", FOUR_S, 3, "5H 5H 5H 6H 6H 8H 8H QH", "9H 9H 9H 10H 10H 10H",
     "5H 5H 5H 8H 8H QH", False),
    ("pair-triple-joined", FOUR_S, 3, "5H 5H 6H 6H 6H 8H 8H QH", "9H 9H 9H 10H 10H 10H", "5H 5H 6H 6H 6H QH",
     True),
    # a throw of a tractor and a single, no tractor held: two pairs and a single
    ("throw-pairs", FOUR_S, 2, "5H 5H 7H 7H 2H 3H", "9H 9H 10H 10H AH", "5H 5H 7H 7H 2H", True),
    ("throw-one-pair-refused", FOUR_S, 2, "5H 5H 7H 7H 2H 3H", "9H 9H 10H 10H AH", "5H 5H 7H 2H 3H", False),
    # trumps: the spade A and the off-suit 4s are adjacent under the 4 of spades
    ("trump-tractor-over-the-rank", FOUR_S, 2, "AS AS 4H 4H 7S 9S", "5S 5S 6S 6S", "AS AS 4H 4H", True),
    ("trump-tractor-refused", FOUR_S, 2, "AS AS 4H 4H 7S 9S", "5S 5S 6S 6S", "AS AS 7S 9S", False),
    # too few cards of the suit: all of them, whatever the shape
    ("short", Trump(2, SPADES), 2, "5H 7H 3C 4C", "9H 9H 10H 10H", "5H 7H 3C 4C", True),
    ("short-kept-back", Trump(2, SPADES), 2, "5H 7H 3C 4C 6C", "9H 9H 10H 10H", "5H 3C 4C 6C", False),
    # hearts as trumps: a pair of the trump rank's off-suit card and the heart one are adjacent
    ("trump-rank-tractor", Trump(4, HEARTS), 2, "4C 4C 4H 4H 6H 7H", "8H 8H 9H 9H", "4C 4C 4H 4H", True),
]

_PLAYERS = {2: 5, 3: 6, 4: 8}


@pytest.mark.parametrize("trump,packs,hand,lead,play,legal", [pytest.param(*r[1:], id=r[0]) for r in FOLLOWS])
def test_follow(trump, packs, hand, lead, play, legal):
    rules = Rules.preset("shengji-online", players=_PLAYERS[packs])
    assert rules.ladder == "decompose"
    h, ld, p = parse_cards(hand), parse_cards(lead), parse_cards(play)
    assert kernel.is_legal_follow(h, ld, p, trump, rules) is legal
    assert reference.is_legal_follow(h, ld, p, trump, rules) is legal
    assert (kernel.follow_error(h, ld, p, trump, rules) is None) is legal
    assert (p in set(kernel.legal_follows(h, ld, trump, rules))) is legal


def test_random_follow_is_legal():
    """The kernel's random follow (the bots' and the playouts') is legal under
    ladder=decompose on 3,000 random positions (2 to 4 packs)."""
    rng = random.Random(77)
    for _ in range(3000):
        rules = Rules.preset("shengji-online", players=rng.choice((5, 6, 8)))
        p = random_position(rng, rules, max_lead=8, max_suit=12)
        for h in p.hands:
            f = kernel.random_follow(h, p.lead, p.trump, rules, rng)
            assert kernel.is_legal_follow(h, p.lead, f, p.trump, rules), (p, f)


@pytest.mark.parametrize("settings,named", [
    (dict(follow_ladder=False), "follow_ladder"),
    (dict(protect_longer_sets=True), "protect_longer_sets"),
    (dict(tractor_owed="lone"), "tractor_owed"),
    (dict(shorter_tractor="free"), "shorter_tractor"),
])
def test_contradictions_refused(settings, named):
    with pytest.raises(RulesError) as e:
        Rules(follow_ladder=True, ladder="decompose").replace(**settings)
    assert "ladder" in str(e.value) and named in str(e.value) and "\n" not in str(e.value)


def test_bad_value_refused():
    with pytest.raises(RulesError, match="ladder: 'weaken' is not one of subset, cards, decompose"):
        Rules(follow_ladder=True, ladder="weaken")
