"""The no-set inference (core.play.no_set_width / holds_set, used by the
engine's facts and by the sampler) against the naive reference's follow rule.

Whenever the inference fires (a lead that is one set of width k, answered by
an all-in-suit follow without k copies of a face), every follow the reference
allows from a hand with a k-set in that suit must show a k-set: so such a
follow proves the hand had none, with and without follow_ladder (whose
first step is the led set itself). It stays silent under
protect_longer_sets, where the reference finds hands that do keep a set
back. 20,400 random positions a run for the proof.
"""

from __future__ import annotations

import random

import pytest

from arena.bench.positions import random_position
from core import reference
from core.cards import Cards
from core.rules import Rules
from core.play import holds_set, no_set_width

POSITIONS = 3400


def _set_lead(rng: random.Random, rules: Rules):
    """A position whose lead reads (for the reference) as one set of width 2 or more."""
    while True:
        p = random_position(rng, rules, max_lead=4, max_suit=7)
        units = reference.decompose(p.lead, p.trump, rules)
        if len(units) == 1 and units[0].length == 1 and units[0].width >= 2:
            return p, units[0].width


@pytest.mark.parametrize("ladder", [{}, dict(follow_ladder=True), dict(follow_ladder=True, ladder="cards")],
                         ids=["plain", "ladder", "ladder-cards"])
@pytest.mark.parametrize("packs,players", [(2, 6), (3, 8), (4, 12)])
def test_a_follow_without_a_set_proves_the_hand_had_none(packs, players, ladder):
    rng = random.Random(packs)
    rules = Rules.preset("pagat", players=players, **ladder)
    fired = proved = 0
    for _ in range(POSITIONS):
        p, k = _set_lead(rng, rules)
        assert no_set_width(p.lead, p.trump, rules) == k
        hand = p.hands[0]
        suit = reference.effective_suit(p.lead[0], p.trump)
        in_suit = Cards(f for f in hand if reference.effective_suit(f, p.trump) == suit)
        has_set = holds_set(in_suit, k)
        for follow in reference.legal_follows(hand, p.lead, p.trump, rules):
            all_in_suit = all(reference.effective_suit(f, p.trump) == suit for f in follow)
            if all_in_suit and not holds_set(follow, k):
                fired += 1
                assert not has_set, (str(p.trump), str(p.lead), str(hand), str(follow))
                proved += 1
    assert fired > POSITIONS // 10 and proved == fired


@pytest.mark.parametrize("settings", [dict(protect_longer_sets=True),
                                      dict(protect_longer_sets=True, follow_ladder=True)],
                         ids=["protect", "protect-ladder"])
def test_the_inference_is_silent_where_a_set_may_be_kept_back(settings):
    """Silent under protect_longer_sets, where a set really is kept back."""
    rng = random.Random(7)
    rules = Rules.preset("pagat", players=8, **settings)
    kept_back = 0
    for _ in range(POSITIONS // 4):
        p, k = _set_lead(rng, rules)
        assert no_set_width(p.lead, p.trump, rules) == 0
        hand = p.hands[0]
        suit = reference.effective_suit(p.lead[0], p.trump)
        if not holds_set(Cards(f for f in hand if reference.effective_suit(f, p.trump) == suit), k):
            continue
        for follow in reference.legal_follows(hand, p.lead, p.trump, rules):
            if all(reference.effective_suit(f, p.trump) == suit for f in follow) and not holds_set(follow, k):
                kept_back += 1
                break
    assert kept_back > 0      # the rule really lets a set be kept back, so silence is needed
