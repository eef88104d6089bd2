"""Deals of more than four packs (``packs`` up to ``MAX_PACKS``): sets of five
and more copies. No preset table holds one; they are built with an explicit
deal shape. The default follow rule is then read by the general matcher
(``ladder_value`` with one shape per led width) instead of the closed form
for widths 2 to 4; the reference reads it as ever.

Hand-computed follows, both implementations; then random positions rich in
wide sets, kernel against reference; then the settings' checks. Random
whole deals with five and six packs are in ``test_state_random.py``.
"""

from __future__ import annotations

import random

import pytest

from arena.bench.positions import random_position, random_trump
from core import kernel, reference
from core.cards import HEARTS, Cards, Trump, parse_cards
from core.errors import RulesError
from core.rules import MAX_PACKS, Rules

TRUMP = Trump(2, HEARTS)
IMPLS = (kernel, reference)


def wide(packs: int, **kw) -> Rules:
    """An explicit deal shape of ``packs`` packs at 12 players (jokers one a pack)."""
    total = 54 * packs
    hand = total // 12 - 1
    return Rules(players=12, packs=packs, red_jokers=packs, black_jokers=packs, hand_size=hand,
                 kitty_size=total - 12 * hand, friend_calls=4, **kw)


def x(face: str, n: int) -> str:
    return " ".join([face] * n)


# (packs, settings, lead, hand, play, legal)
FOLLOWS = [
    # a set of five is owed from a face held five times
    (5, {}, x("5S", 5), x("9S", 5) + " 3S 4S 6C", x("9S", 5), True),
    (5, {}, x("5S", 5), x("9S", 5) + " 3S 4S 6C", x("9S", 4) + " 3S", False),
    # ... and from a face held six times; protected as a longer set, it is not
    (6, {}, x("5S", 5), x("9S", 6) + " 3S 4S 7S 8S 10S", "3S 4S 7S 8S 10S", False),
    (6, dict(protect_longer_sets=True), x("5S", 5), x("9S", 6) + " 3S 4S 7S 8S 10S", "3S 4S 7S 8S 10S", True),
    # one face of six copies holds two triples: both are owed
    (6, {}, x("5S", 3) + " " + x("7S", 3), x("9S", 6) + " 3S 4S 8S", x("9S", 6), True),
    (6, {}, x("5S", 3) + " " + x("7S", 3), x("9S", 6) + " 3S 4S 8S", x("9S", 3) + " 3S 4S 8S", False),
    # eight copies hold two quads
    (8, {}, x("5S", 4) + " " + x("7S", 4), x("9S", 8) + " 3S 4S 8S 10S", x("9S", 8), True),
    (8, {}, x("5S", 4) + " " + x("7S", 4), x("9S", 8) + " 3S 4S 8S 10S", x("9S", 4) + " 3S 4S 8S 10S", False),
    # three pairs out of six copies
    (6, {}, "5S 5S 7S 7S 10S 10S", x("9S", 6) + " 3S 4S", x("9S", 6), True),
    (6, {}, "5S 5S 7S 7S 10S 10S", x("9S", 6) + " 3S 4S", x("9S", 4) + " 3S 4S", False),
    # a set of five led, a quad held: with the default rule nothing narrower is owed
    (5, {}, x("5S", 5), x("9S", 4) + " 3S 4S 6C", "9S 3S 4S 6C 9S", False),   # five of the six spades, not 6C
    (5, {}, x("5S", 5), x("9S", 4) + " 3S 4S", "9S 9S 3S 4S 9S", True),
    # under the ladder the quad is owed
    (5, dict(follow_ladder=True), x("5S", 5), x("9S", 4) + " 3S 4S", "9S 9S 9S 9S 3S", True),
    (5, dict(follow_ladder=True), x("5S", 5), x("9S", 4) + " 3S 4S", "9S 9S 9S 3S 4S", False),
]


@pytest.mark.parametrize("packs,settings,lead,hand,play,legal", FOLLOWS)
def test_follows(packs, settings, lead, hand, play, legal):
    r = wide(packs, **settings)
    for impl in IMPLS:
        assert impl.is_legal_follow(parse_cards(hand), parse_cards(lead), parse_cards(play), TRUMP, r) == legal, \
            impl.__name__


def test_readings_of_wide_sets():
    r = wide(6)
    for impl in IMPLS:
        units = impl.decompose(parse_cards(x("5S", 6) + " " + x("6S", 5)), TRUMP, r)
        assert [(u.width, u.length) for u in units] == [(5, 2), (1, 1)], impl.__name__
        assert impl.trick_winner([parse_cards(x("5S", 6)), parse_cards(x("9S", 6))], TRUMP, r) == 1


def _shaped(rng: random.Random, r: Rules) -> tuple[Trump, Cards, Cards]:
    """A lead of one or two sets of random width and a holding of up to four
    such sets and other cards, in one effective suit."""
    trump = random_trump(rng)
    ctx = kernel.context(trump)
    e = rng.choice(sorted({ctx.effective_suit(f) for f in range(54)}))
    faces = [f for f in range(54) if ctx.effective_suit(f) == e]
    left = {f: r.copies(f) for f in faces}

    def sets(n: int) -> list[int]:
        out: list[int] = []
        for _ in range(n):
            f = rng.choice(faces)
            k = min(left[f], rng.randint(1, r.packs))
            out += [f] * k
            left[f] -= k
        return out

    lead = sets(rng.randint(1, 2))
    hand = sets(rng.randint(1, 4))[:16] + rng.sample([f for f in range(54) if ctx.effective_suit(f) != e], 2)
    return trump, Cards(lead), Cards(hand)


POSITIONS = 2_000


def test_kernel_matches_reference_with_wide_sets():
    """2,000 positions at five to eight packs (half of them rich in wide sets),
    the follow settings drawn: the reading, every legal follow, random follows,
    the trick winner and the throw check agree; wide leads are common."""
    rng = random.Random(5050)
    wide_leads = 0
    for i in range(POSITIONS):
        packs = rng.choice((5, 6, 8))
        settings: dict[str, object] = {}
        if rng.random() < 0.4:
            settings["follow_ladder"] = True
        if rng.random() < 0.3:
            settings["protect_longer_sets"] = True
        r = wide(packs, **settings)
        if i % 2:
            trump, lead, hand = _shaped(rng, r)
            others = [hand]
        else:
            p = random_position(rng, r, max_lead=7, max_suit=9)
            trump, lead, hand, others = p.trump, p.lead, p.hands[0], p.hands
        if not lead:
            continue
        where = f"trump={trump} lead={lead} hand={hand} settings={settings} packs={packs}"
        ku = [(u.width, u.length, tuple(u.cards)) for u in kernel.decompose(lead, trump, r)]
        assert ku == [(u.width, u.length, tuple(u.cards)) for u in reference.decompose(lead, trump, r)], where
        wide_leads += max(k for k, _, _ in ku) > 4
        if len(hand) < len(lead):
            continue
        ks = set(kernel.legal_follows(hand, lead, trump, r))
        rs = reference.legal_follows(hand, lead, trump, r)
        assert ks == rs, where
        trick = [lead] + [kernel.random_follow(h, lead, trump, r, rng) for h in others if len(h) >= len(lead)]
        assert all(reference.is_legal_follow(h, lead, f, trump, r) for h, f in zip(others, trick[1:])), where
        assert kernel.trick_winner(trick, trump, r) == reference.trick_winner(trick, trump, r), where
        assert kernel.check_throw(lead, others, trump, r) == reference.check_throw(lead, others, trump, r), where
    assert wide_leads > POSITIONS // 20, wide_leads


def test_packs_are_checked():
    assert wide(MAX_PACKS).packs == 8 and len(wide(MAX_PACKS).deck()) == 8 * 54
    with pytest.raises(RulesError, match="packs: 9 is not from 1 to 8"):
        Rules(players=12, packs=9, red_jokers=0, black_jokers=0, hand_size=39, kitty_size=0, friend_calls=4)
    with pytest.raises(RulesError, match="red_jokers: 6 is not from 0 to packs"):
        wide(5).replace(red_jokers=6)
    r = Rules.preset("pagat", players=10, packs=5, red_jokers=5, black_jokers=5, hand_size=25, kitty_size=20)
    assert r.copies(0) == 5 and r.tractor_min_width == 2
