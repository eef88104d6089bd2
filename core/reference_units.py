"""The reference's units: every way to read cards into sets and tractors,
and the canonical decomposition of a lead (docs/kernel.md, Units and
Reading a lead), by brute force. Part of the naive reference
(:mod:`core.reference`, which re-exports :func:`decompose`); it relies only
on :mod:`core.cards`, :mod:`core.rules`, :mod:`core.errors` and the
reference's trump context (:mod:`core.reference_trump`).

>>> from core.cards import HEARTS, parse_cards
>>> from core.rules import Rules
>>> [str(u.cards) for u in decompose(parse_cards("6S 6S 4S 4S"), Trump(5, HEARTS), Rules())]
['4S 4S 6S 6S']
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from typing import Optional

from . import reference_rainbow as rainbow
from .cards import Cards, Trump, Unit, parse_cards
from .errors import IllegalActionError
from .reference_trump import Chain, as_trump, chain_of, effective_suit, level, tractor_eligible
from .rules import Rules

__all__ = ["decompose"]

# An internal unit: (width k, length L, top level t, faces from the top level down).
IUnit = tuple[int, int, int, tuple[int, ...]]
MSet = tuple[int, ...]  # a sorted tuple of faces


# --------------------------------------------------------------------------
# Multiset helpers
# --------------------------------------------------------------------------

def mset(cards: Iterable[int] | str) -> MSet:
    """Cards (or card text) as a sorted tuple of faces."""
    return tuple(parse_cards(cards))


def minus(ms: MSet, take: Iterable[int]) -> MSet:
    """``ms`` less the faces ``take`` (one copy each)."""
    c = Counter(ms)
    c.subtract(take)
    assert all(v >= 0 for v in c.values()), "took cards that are not there"
    return tuple(sorted(c.elements()))


def is_sub(small: Iterable[int], big: Iterable[int]) -> bool:
    """Whether ``small`` is a sub-multiset of ``big``."""
    cs, cb = Counter(small), Counter(big)
    return all(cb[f] >= n for f, n in cs.items())


def unit_faces(u: IUnit) -> list[int]:
    """Every card of an internal unit (each face ``k`` times)."""
    k, _L, _t, faces = u
    return [f for f in faces for _ in range(k)]


def sub_multisets(ms: MSet, size: int) -> list[MSet]:
    """Every distinct sub-multiset of ``ms`` with ``size`` cards (each once)."""
    items = sorted(Counter(ms).items())
    out: list[MSet] = []

    def rec(i: int, left: int, acc: list[int]) -> None:
        if left == 0:
            out.append(tuple(acc))
            return
        if i == len(items):
            return
        face, cnt = items[i]
        for take in range(min(cnt, left), -1, -1):
            rec(i + 1, left - take, acc + [face] * take)

    rec(0, size, [])
    return out


# --------------------------------------------------------------------------
# Units
# --------------------------------------------------------------------------

@lru_cache(maxsize=1 << 17)
def units_of_shape(ms: MSet, k: int, L: int, trump: Trump, chain: Chain) -> tuple[IUnit, ...]:
    """Every unit of shape ``(k, L)`` that can be taken out of ``ms``.

    ``(1, 1)`` is a single, ``(k, 1)`` a set of ``k`` copies of one face (a
    larger count supplies it), ``(k, L >= 2)`` a tractor: one set of width
    ``k`` of an eligible face on each of ``L`` adjacent levels of one
    effective suit. Several faces can share a level (off-suit trump-rank
    cards), so every choice of face per level is listed.
    """
    cnt = Counter(ms)
    out: list[IUnit] = []
    if L == 1:
        for f in sorted(cnt):
            if cnt[f] >= k:
                out.append((k, 1, level(f, trump), (f,)))
        return tuple(out)
    if k < chain.min_width or L < chain.min_length:
        return ()  # a tractor is made of sets at least this wide, at least this many
    at: dict[tuple[int, int], list[int]] = {}
    for f in sorted(cnt):
        if cnt[f] >= k and tractor_eligible(f, trump, chain.past_ace):
            at.setdefault((effective_suit(f, trump), level(f, trump)), []).append(f)
    for (suit, top) in sorted(at):
        spots = [(suit, top - j) for j in range(L)]
        if all(s in at for s in spots):
            for faces in itertools.product(*(at[s] for s in spots)):
                out.append((k, L, top, tuple(faces)))
    return tuple(out)


def _all_units(ms: MSet, trump: Trump, chain: Chain) -> list[IUnit]:
    """Every unit of any shape that can be taken out of ``ms``."""
    if not ms:
        return []
    top_count = max(Counter(ms).values())
    out: list[IUnit] = list(units_of_shape(ms, 1, 1, trump, chain))
    for k in range(2, top_count + 1):
        out.extend(units_of_shape(ms, k, 1, trump, chain))
        L = chain.min_length
        while True:
            tractors = units_of_shape(ms, k, L, trump, chain)
            if not tractors:
                break  # no tractor of length L means none longer either
            out.extend(tractors)
            L += 1
    return out


def _key(u: IUnit) -> tuple[int, bool, int, int, tuple[int, ...]]:
    """The unit ordering key ``(k*L, L >= 2, k, top level, faces descending)``
    (docs/kernel.md: the faces only separate units that differ by which
    off-suit trump-rank face stands on a level)."""
    k, L, top, faces = u
    return (k * L, L >= 2, k, top, tuple(sorted(faces, reverse=True)))


def _to_unit(u: IUnit) -> Unit:
    k, L, top, _faces = u
    return Unit(k, L, top, Cards(unit_faces(u)))


# --------------------------------------------------------------------------
# Reading a lead
# --------------------------------------------------------------------------

@lru_cache(maxsize=1 << 14)
def partitions(ms: MSet, trump: Trump, chain: Chain) -> frozenset[tuple[IUnit, ...]]:
    """Every partition of ``ms`` into units (each partition a sorted tuple).

    The unit holding (a copy of) the smallest remaining face is chosen in every
    possible way, then the rest is partitioned recursively; every partition
    has such a unit, so none is missed.
    """
    if not ms:
        return frozenset({()})
    low = ms[0]
    found: set[tuple[IUnit, ...]] = set()
    for u in _all_units(ms, trump, chain):
        if low not in u[3]:
            continue
        rest = minus(ms, unit_faces(u))
        for p in partitions(rest, trump, chain):
            found.add(tuple(sorted(p + (u,))))
    return frozenset(found)


def _ordered(p: Iterable[IUnit]) -> list[IUnit]:
    """Units biggest first (by key; equal keys by their faces, for determinism)."""
    return sorted(p, key=lambda u: (_key(u), u[3]), reverse=True)


@lru_cache(maxsize=1 << 14)
def canonical(ms: MSet, trump: Trump, chain: Chain) -> tuple[IUnit, ...]:
    """The canonical decomposition of a one-suit lead, by brute force.

    Among all partitions, the one whose keys sorted descending form the
    lexicographically largest list. Should two partitions give the very same
    key list with different cards (the docs say nothing about it), the one
    whose list of unit faces, in that order, is largest is taken.
    """
    best: Optional[tuple[list[tuple[int, bool, int, int, tuple[int, ...]]], list[tuple[int, ...]]]] = None
    best_p: tuple[IUnit, ...] = ()
    for p in partitions(ms, trump, chain):
        units = _ordered(p)
        score = ([_key(u) for u in units], [u[3] for u in units])
        if best is None or score > best:
            best, best_p = score, tuple(units)
    return best_p


def lead_suit(lead: MSet, trump: Trump) -> int:
    """The one effective suit of a lead; refuses an empty or mixed one."""
    if not lead:
        raise IllegalActionError("illegal lead: no cards (a lead is one or more cards, no mixed suits)")
    suits = {effective_suit(f, trump) for f in lead}
    if len(suits) != 1:
        raise IllegalActionError("illegal lead: mixed suits (all led cards must be of one suit, trumps counting as one)")
    return suits.pop()


def decompose(lead: Cards, trump: Trump, rules: Rules) -> list[Unit]:
    """The canonical decomposition of a lead into units, biggest first.

    Computed by listing every decomposition and taking the one whose sorted
    list of unit keys is lexicographically largest. Raises
    :class:`IllegalActionError` when the lead is empty or mixes effective
    suits.
    """
    trump = as_trump(trump)
    ms = mset(lead)
    if rules.rainbow and rainbow.is_rainbow(ms, trump):
        return rainbow.decompose(ms)
    lead_suit(ms, trump)
    return [_to_unit(u) for u in canonical(ms, trump, chain_of(rules))]
