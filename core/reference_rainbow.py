"""The naive reference for rainbows (``rules.rainbow``; docs/kernel.md, Rainbows),
written from the definition alone, for :mod:`core.reference` to call when a
lead is a rainbow. Everything is by brute force: a play's fit to the lead's
sets tries every rank for every set, legal follows filter every sub-multiset.

>>> from core.cards import Trump, parse_cards
>>> is_rainbow(parse_cards("5C 5D 5H 5S"), Trump(2, 3)), is_rainbow(parse_cards("2C 2D 2H 2S"), Trump(2, 3))
(True, False)
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence

from .cards import Cards, ThrowResult, Trump, Unit, rank_of
from .reference_trump import effective_suit
from .rules import Rules

__all__ = ["is_rainbow", "decompose", "is_legal_follow", "legal_follows", "trick_winner", "check_throw",
           "lead_rule"]


def _groups(cards: Iterable[int]) -> dict[int, list[int]]:
    """The cards by rank (2..14); jokers under 0."""
    out: dict[int, list[int]] = {}
    for f in sorted(cards):
        out.setdefault(rank_of(f), []).append(f)
    return out


def is_rainbow(cards: Sequence[int], trump: Trump) -> bool:
    """Whether ``cards`` are a rainbow: no joker, and for each rank they hold,
    four or more of its cards spanning four or more effective suits."""
    groups = _groups(cards)
    if not groups or 0 in groups:
        return False
    return all(len(g) >= 4 and len({effective_suit(f, trump) for f in g}) >= 4 for g in groups.values())


def _units(cards: Sequence[int]) -> list[tuple[int, int, list[int]]]:
    """(size, rank, cards) per rank, more cards first, then the higher rank."""
    us = [(len(g), r, g) for r, g in _groups(cards).items()]
    return sorted(us, key=lambda u: (-u[0], -u[1]))


def decompose(cards: Sequence[int]) -> list[Unit]:
    """A rainbow's units: one set per rank (``top``: the rank minus 2)."""
    return [Unit(k, 1, r - 2, Cards(g)) for k, r, g in _units(cards)]


def _ranks(cards: Iterable[int]) -> Counter[int]:
    return Counter(rank_of(f) for f in cards if rank_of(f))


def _fits(cards: Iterable[int], sizes: Sequence[int]) -> bool:
    """Can every size take that many cards of one rank (ranks tried in every
    combination; a set takes at least one card, so only the ranks held)?"""
    have = _ranks(cards)
    for pick in itertools.product(sorted(have), repeat=len(sizes)):
        need: Counter[int] = Counter()
        for r, k in zip(pick, sizes):
            need[r] += k
        if all(have[r] >= k for r, k in need.items()):
            return True
    return False


def is_legal_follow(hand: Sequence[int], lead: Sequence[int], play: Sequence[int]) -> bool:
    """A follow to a rainbow: the lead's count of cards from the hand, giving
    each set its rank's cards whenever the hand can."""
    if len(play) != len(lead) or Counter(play) - Counter(hand):
        return False
    sizes = [u[0] for u in _units(lead)]
    return _fits(play, sizes) or not _fits(hand, sizes)


def legal_follows(hand: Sequence[int], lead: Sequence[int]) -> set[Cards]:
    """Every distinct legal follow (every sub-multiset of the hand, filtered)."""
    subs = {tuple(sorted(c)) for c in itertools.combinations(sorted(hand), len(lead))}
    return {Cards(c) for c in subs if is_legal_follow(hand, lead, c)}


def _combo(cards: Sequence[int], sizes: Sequence[int]) -> list[int] | None:
    """The ranks a play shows: the sets, largest first, each take the highest
    rank with enough cards left; highest first, or None when one finds none."""
    left = _ranks(cards)
    got = []
    for k in sorted(sizes, reverse=True):
        ok = [r for r, c in left.items() if c >= k]
        if not ok:
            return None
        got.append(max(ok))
        left[max(ok)] -= k
    return sorted(got, reverse=True)


def trick_winner(plays: Sequence[Sequence[int]]) -> int:
    """The lead holds a rainbow trick until a later play shows higher ranks."""
    sizes = [u[0] for u in _units(plays[0])]
    best_i, best = 0, _combo(plays[0], sizes) or []
    for i in range(1, len(plays)):
        c = _combo(plays[i], sizes)
        if c is not None and c > best:
            best_i, best = i, c
    return best_i


def _beats(hand: Iterable[int], size: int, rank: int) -> bool:
    """``size`` or more cards of one rank above ``rank``."""
    return any(r > rank and c >= size for r, c in _ranks(hand).items())


def check_throw(lead: Sequence[int], others: Sequence[Sequence[int]], rules: Rules) -> ThrowResult:
    """A rainbow of two or more ranks fails when another hand beats one of its sets."""
    units = _units(lead)
    if len(units) == 1:
        return ThrowResult(True, None, 0, 0, None)
    found = [(hi, u) for hi, h in enumerate(others) for u in units if _beats(h, u[0], u[1])]
    if not found:
        return ThrowResult(True, None, 0, 0, None)
    if rules.failed_throw_unit == "first_found":
        by, u = found[0]
    else:
        u = min((u for _, u in found), key=lambda u: (u[0], u[1], min(u[2])))
        by = min(hi for hi, v in found if v == u)
    withdrawn = len(lead) - u[0]
    cost = rules.throw_penalty if rules.throw_penalty_per == "attempt" else rules.throw_penalty * withdrawn
    return ThrowResult(False, Cards(u[2]), withdrawn, cost, by)


def lead_rule(lead: Sequence[int], unseen: Sequence[int], rules: Rules) -> int:
    """0, or for a rainbow throw (two or more ranks): 3 when ``throw_counts`` is
    ``equal`` and some card of it appears more times than another (counted by
    card, suit and rank, over the whole lead); else 2 when ``throw_check`` is
    ``safe`` and the unseen cards could beat one of its sets (a rainbow is in
    no suit, so ``trump_throws`` never applies)."""
    units = _units(lead)
    if len(units) < 2:
        return 0
    if rules.throw_counts == "equal" and len(set(Counter(lead).values())) > 1:
        return 3
    if rules.throw_check == "safe" and any(_beats(unseen, k, r) for k, r, _ in units):
        return 2
    return 0
