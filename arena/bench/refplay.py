"""Random play phases on the naive reference: the baseline for playout speed.

The same work as ``core._play.playouts`` (random leads, throws checked
against the other hands, random legal follows, winners, points, friend
reveals), done in plain Python over :mod:`core.reference`.

>>> import random
>>> from core.rules import Rules
>>> r = Rules.preset("pagat", players=5)
>>> d = r.deck(); random.Random(2).shuffle(d)
>>> hands = [Cards(d[i * 20:(i + 1) * 20]) for i in range(5)]
>>> pts = reference_playout(r, Trump(2, 0), 0, hands, [(51, 1)], random.Random(1))
>>> sum(pts) == sum(reference.points(h) for h in hands)
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from core import reference
from core.cards import Cards, Trump

__all__ = ["reference_playout"]


def _minus(hand: list[int], cards: Sequence[int]) -> list[int]:
    out = list(hand)
    for f in cards:
        out.remove(f)
    return out


def reference_playout(rules, trump: Trump, maker: int, hands: Sequence[Cards],
                      calls: Sequence[tuple[int, int]], rng: random.Random) -> list[int]:
    """Play every card at random; return the card points each seat won."""
    n = rules.players
    held = [sorted(h) for h in hands]
    pts = [0] * n
    seen = [0] * len(calls)
    side = {maker}
    filled = [False] * len(calls)
    leader = maker
    while held[leader]:
        hand = held[leader]
        f = rng.choice(hand)
        suit = reference.effective_suit(f, trump)
        units = reference.decompose(Cards(g for g in hand if reference.effective_suit(g, trump) == suit),
                                    trump, rules)
        lead = rng.choice([u.cards for u in units])
        others = [Cards(held[(leader + j) % n]) for j in range(1, n)]
        check = reference.check_throw(lead, others, trump, rules)
        if not check.stands:
            assert check.unit is not None       # a throw that fails names the unit led instead
            lead = check.unit
        plays = [lead]
        held[leader] = _minus(hand, lead)
        for j in range(1, n):
            s = (leader + j) % n
            options = sorted(reference.legal_follows(Cards(held[s]), lead, trump, rules))
            p = rng.choice(options)
            plays.append(p)
            held[s] = _minus(held[s], p)
        for j, p in enumerate(plays):
            s = (leader + j) % n
            for i, (face, ordinal) in enumerate(calls):
                if filled[i]:
                    continue
                for g in p:
                    if g == face:
                        seen[i] += 1
                        if seen[i] == ordinal:
                            filled[i] = True
                            side.add(s)
                            break
        w = (leader + reference.trick_winner(plays, trump, rules)) % n
        pts[w] += sum(reference.points(p) for p in plays)
        leader = w
    return pts
