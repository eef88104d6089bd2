"""The deal engine on its own (``core/dealing.py``, ``core/_deal.pyx``): the
free deal sorted by counting against the plain shuffle, the hands made into
tuples, and the sequential deal of a table too big to count. The sampler that
uses them is tested in ``test_sample``."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from core.cards import Cards
from core._deal import FreeDeal, deal_free, sorted_hands
from core.dealing import SequentialDeal


def test_a_free_deal_deals_what_the_shuffle_deals_each_pile_sorted():
    """FreeDeal (the deal of a view with no layer to walk) makes the very
    deal of deal_free, draw for draw, with each destination's cards sorted;
    it refuses cards that are not faces and places that do not fit."""
    rng = random.Random(8)
    for _ in range(300):
        pool = [rng.randrange(54) for _ in range(rng.randint(1, 160))]
        members = rng.sample(range(9), rng.randint(1, 8))
        caps = [0] * len(members)
        for _ in pool:
            caps[rng.randrange(len(members))] += 1
        free = (members, caps)
        seed = rng.random()
        want = deal_free(pool, free, 9, random.Random(seed).random)
        got = FreeDeal(pool, free, 9)(random.Random(seed).random)
        assert got == [sorted(d) for d in want]
    with pytest.raises(ValueError, match="not a face"):
        FreeDeal([3, 64], ([0], [2]), 1)
    with pytest.raises(ValueError, match="places"):
        FreeDeal([3, 4], ([0], [1]), 1)
    for members in ([0, 0], [0, 2]):
        with pytest.raises(ValueError, match="destinations"):
            FreeDeal([3, 4], (members, [1, 1]), 2)


def test_sorted_hands_sorts_in_place_and_keeps_the_type():
    full = [[9, 1, 1], [4], [], [6, 2]]
    hands, rest = sorted_hands(full, [(), (4,), ()], (0, 2), 3, Cards)
    assert hands == [(1, 1, 9), (4,), ()] and rest == (2, 6) and full[0] == [1, 1, 9]
    assert type(hands[0]) is Cards and type(rest) is Cards
    with pytest.raises(TypeError):
        sorted_hands(full, [(), (), ()], (0,), 3, list)
    with pytest.raises(TypeError):
        sorted_hands(full, [(), (), ()], (0,), 3, "not a type")


def test_sorted_hands_tuples_own_their_items():
    """The tuples are built item by item in C: each holds a reference to
    its items (counted, dropped with the tuple), hashes and compares as a
    tuple, and its items outlive a collection only while it does."""
    import gc
    import sys

    item = 10 ** 30                                    # an object of its own, not a cached small int
    before = sys.getrefcount(item)
    full = [[item, 3, item], [item]]
    hands, rest = sorted_hands(full, [(), ()], (0,), 1, Cards)
    assert sys.getrefcount(item) == before + 3 + 3     # three in the lists, three in the tuples
    del full
    assert sys.getrefcount(item) == before + 3
    assert hash(hands[0]) == hash((3, item, item)) and rest == (item,)
    del hands, rest
    gc.collect()
    assert sys.getrefcount(item) == before


def test_sequential_deal_keeps_every_card_in_its_classes():
    """SequentialDeal on its own: every card once, each in a destination its
    class allows, each destination filled to its room; an impossible table
    (a class with more cards than its destinations hold) has no deal."""
    classes = {(0,): [1, 2], (0, 1, 2): [3, 4, 5, 6], (1, 2): [7, 8, 9], (2, 3): [10, 11]}
    room = {0: 3, 1: 3, 2: 3, 3: 2}
    deal = SequentialDeal(classes, [0, 1, 2, 3], room)
    assert deal.total == 1
    rng = random.Random(3)
    places = Counter()
    for _ in range(300):
        out = deal.draw(rng.random)
        assert sorted(f for d in out for f in d) == list(range(1, 12))
        assert [len(out[d]) for d in range(4)] == [3, 3, 3, 2]
        for allowed, cards in classes.items():
            for f in cards:
                d = next(i for i in range(4) if f in out[i])
                assert d in allowed
                places[(f, d)] += 1
    assert places[(3, 0)] and places[(3, 1)] and places[(3, 2)]     # a free card goes anywhere
    assert SequentialDeal({(0,): [1, 2, 3], (1,): [4]}, [0, 1], {0: 2, 1: 2}).total == 0


#: three classes a failed throw's caps keep from some seats (fine, coarse), two a void keeps from
#: all seats but one (never demoted), and one free class
CLASSES = {((0, 1), (0, 1, 2, 3)): [1, 2], ((1, 2), (0, 1, 2, 3)): [3, 4], ((2, 3), (0, 1, 2, 3)): [5, 6],
           ((0,), (0,)): [9], ((3,), (3,)): [10], ((0, 1, 2, 3), (0, 1, 2, 3)): [7, 8]}
ROOM = {0: 3, 1: 2, 2: 2, 3: 3}


@pytest.mark.parametrize("budget,start,counted,rounds,sequential", [
    (40_000, 0, [0], 0, False),          # it fits: one table, nothing demoted
    (40_000, 2, [2], 2, False),          # the hint: two rounds made before the only table counted
    (40_000, 9, [3], 3, False),          # a hint past every round: the table of all demoted is still tried
    (0, 0, [0, 1, 2, 3], 4, True),       # too big however demoted: a table a round, then the sequential deal
    (0, 3, [3], 4, True),                # ... which the hint of the last view's rounds less one goes to at once
])
def test_demoting_starts_where_the_hint_says(monkeypatch, budget, start, counted, rounds, sequential):
    import core.dealing as dealing

    monkeypatch.setattr(dealing.Deal, "BUDGET", budget)
    seen: list[int] = []
    build = dealing.build_deal

    def counting(merged, dests, cap_left):
        seen.append((len(merged.get((0, 1, 2, 3), [])) - 2) // 2)      # classes demoted to every seat
        return build(merged, dests, cap_left)

    monkeypatch.setattr(dealing, "build_deal", counting)
    deal, demoted, made = dealing.deal_demoting(CLASSES, [0, 1, 2, 3], ROOM, start=start)
    assert (seen, made, isinstance(deal, SequentialDeal)) == (counted, rounds, sequential)
    assert len(demoted) == (0 if sequential else rounds)
    for k in range(20):
        out = deal.draw(random.Random(k).random)
        assert sorted(c for pile in out for c in pile) == list(range(1, 11))
        assert [len(out[d]) for d in ROOM] == list(ROOM.values())
        assert 9 in out[0] and 10 in out[3]
