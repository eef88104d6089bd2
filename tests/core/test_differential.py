"""The compiled kernel against the naive reference on many random positions.

12 groups (2, 3 and 4 packs, times the four follow settings) of 900 seeded
positions each: 10,800 positions per run. On each, both implementations must
agree on the lead's reading, the full set of legal follows, the legality of
random (often illegal) plays, the trick winner (the kernel's, and the play
engine's running best play) and the throw check; and the kernel's random
follow must be legal for the reference.
"""

from __future__ import annotations

import itertools
import random

import pytest

from core import kernel, reference
from core.play import PlayCore
from core.cards import Cards, format_cards
from arena.bench.positions import random_position
from core.rules import Rules

POSITIONS_PER_GROUP = 900
PLAYERS = {2: 6, 3: 8, 4: 12}


def _describe(p, extra=""):
    hands = " / ".join(format_cards(h) for h in p.hands)
    return f"trump={p.trump} lead={format_cards(p.lead)} hands={hands} {extra}"


def _random_play(rng: random.Random, hand: Cards, n: int) -> Cards:
    return Cards(rng.sample(list(hand), n))


@pytest.mark.parametrize(
    "packs,ladder,protect",
    list(itertools.product((2, 3, 4), (False, True), (False, True))),
)
def test_kernel_matches_reference(packs, ladder, protect):
    seed = packs * 100 + ladder * 10 + protect
    rng = random.Random(seed)
    checked = 0
    for _ in range(POSITIONS_PER_GROUP):
        rules = Rules.preset(
            "pagat", players=PLAYERS[packs], follow_ladder=ladder, protect_longer_sets=protect,
            tractor_past_ace=rng.random() < 0.3,
            failed_throw_unit=rng.choice(("smallest_lowest", "first_found")),
        )
        p = random_position(rng, rules, max_lead=6, max_suit=9)
        hand = p.hands[0]
        where = _describe(p, f"rules={rules}")

        # reading of the lead
        k_units = [(u.width, u.length, u.top, tuple(u.cards)) for u in kernel.decompose(p.lead, p.trump, rules)]
        r_units = [(u.width, u.length, u.top, tuple(u.cards)) for u in reference.decompose(p.lead, p.trump, rules)]
        assert k_units == r_units, where

        # every legal follow
        k_set = set(kernel.legal_follows(hand, p.lead, p.trump, rules))
        r_set = set(reference.legal_follows(hand, p.lead, p.trump, rules))
        assert len(k_set) == len(list(kernel.legal_follows(hand, p.lead, p.trump, rules))), where
        assert k_set == r_set, f"{where} kernel-only={sorted(map(str, k_set - r_set))[:5]} " \
                               f"reference-only={sorted(map(str, r_set - k_set))[:5]}"

        # random plays, legal or not
        for _ in range(3):
            play = _random_play(rng, hand, len(p.lead))
            assert kernel.is_legal_follow(hand, p.lead, play, p.trump, rules) == \
                reference.is_legal_follow(hand, p.lead, play, p.trump, rules), f"{where} play={play}"

        # random legal follows from every hand, then the winner
        trick = [p.lead]
        for h in p.hands:
            f = kernel.random_follow(h, p.lead, p.trump, rules, rng)
            assert reference.is_legal_follow(h, p.lead, f, p.trump, rules), f"{where} random follow {f}"
            trick.append(f)
        assert kernel.trick_winner(trick, p.trump, rules) == reference.trick_winner(trick, p.trump, rules), \
            f"{where} trick={[str(t) for t in trick]}"

        # the play engine's running best play, built one play at a time, holds where the reference says
        pc = PlayCore.resume(rules, p.trump, 0, [Cards()] * len(trick) + [p.lead] + [Cards()] * (
            rules.players - len(trick) - 1), [], [], [], [0] * rules.players, [0] * rules.players, 0, 0, trick)
        assert pc.holder == reference.trick_winner(trick, p.trump, rules), f"{where} trick={[str(t) for t in trick]}"

        # any subset of plays forms a trick too (winner over fewer players)
        assert kernel.trick_winner(trick[:2], p.trump, rules) == reference.trick_winner(trick[:2], p.trump, rules)

        # throw check against the hands
        assert kernel.check_throw(p.lead, p.hands, p.trump, rules) == \
            reference.check_throw(p.lead, p.hands, p.trump, rules), where
        checked += 1
    assert checked == POSITIONS_PER_GROUP
