"""Random kernel positions, for differential tests and benchmarks.

A position is a trump context, a lead, a follower's hand and a few more hands,
all drawn from one multi-pack deck so no face exceeds its copies. Positions are
kept small enough for the naive reference to check them by brute force.

>>> import random
>>> p = random_position(random.Random(7), Rules.preset("pagat", players=8))
>>> len(p.hands) >= 2 and all(len(h) > 0 for h in p.hands)
True
"""

from __future__ import annotations

import random
from typing import NamedTuple

from core.cards import Cards, Trump
from core.rules import Rules

__all__ = ["Position", "random_position", "random_trump"]


class Position(NamedTuple):
    """A lead plus hands: ``hands[0]`` follows; the others may beat a throw."""

    rules: Rules
    trump: Trump
    lead: Cards
    hands: list[Cards]


def random_trump(rng: random.Random) -> Trump:
    """A trump rank and suit, now and then a no-trump or joker-only level."""
    x = rng.random()
    rank = None if x < 0.05 else rng.randint(2, 14)
    suit = None if x < 0.12 else rng.randrange(4)
    return Trump(rank, suit)


def _effective(face: int, trump: Trump) -> int:
    # deliberately local (no import of either implementation): trumps are 4
    if face >= 52:
        return 4
    rank, suit = face % 13 + 2, face // 13
    if rank == trump.rank or suit == trump.suit:
        return 4
    return suit


def random_position(rng: random.Random, rules: Rules, max_lead: int = 6,
                    max_suit: int = 10, others: int = 2) -> Position:
    """Draw a position: a lead of 1..max_lead cards of one effective suit, a
    follower holding up to ``max_suit`` cards of that suit, and ``others`` more hands."""
    trump = random_trump(rng)
    pool = rules.deck()
    rng.shuffle(pool)
    by_suit: dict[int, list[int]] = {}
    for f in pool:
        by_suit.setdefault(_effective(f, trump), []).append(f)
    suit = rng.choice(sorted(by_suit))
    cards = by_suit[suit]
    # the lead: bias towards sets and tractors by taking copies of nearby faces
    n = rng.randint(1, max_lead)
    cards.sort()
    start = rng.randrange(len(cards))
    window = cards[start:start + 3 * n] or cards[:3 * n]
    lead = sorted(rng.sample(window, min(n, len(window))))
    rest = list(cards)
    for f in lead:
        rest.remove(f)
    rng.shuffle(rest)
    other_cards = [f for s, fs in by_suit.items() if s != suit for f in fs]
    rng.shuffle(other_cards)
    hands = []
    for _ in range(1 + others):
        k = rng.randint(0, min(max_suit, len(rest)))
        rest.sort()
        at = rng.randrange(len(rest) - k + 1) if rest else 0
        window = rest[at:at + 2 * k]
        mine = rng.sample(window, k) if k else []
        for f in mine:
            rest.remove(f)
        extra = rng.randint(0 if k >= len(lead) else len(lead) - k, len(lead) + 3)
        mine += other_cards[:extra]
        del other_cards[:extra]
        if len(mine) < len(lead):       # deck exhausted: top up from whatever is left
            need = len(lead) - len(mine)
            mine += rest[:need]
            del rest[:need]
        hands.append(Cards(mine))
    return Position(rules, trump, Cards(lead), hands)
