"""A naive, brute-force reference implementation of the rules kernel.

Everything here follows ``docs/kernel.md`` literally and favours obvious
correctness over speed: decompositions are found by listing *every* partition
of a lead into units, follow obligations by trying *every* matching of
components to lead units, legal follows by filtering *every* distinct
sub-multiset of the right size, and trick strengths by trying *every*
assignment of a play to the lead's units. It exists to be compared with the
fast implementation, so it only relies on :mod:`core.cards`,
:mod:`core.rules` (the fields ``packs``, ``follow_ladder``,
``protect_longer_sets``, ``tractor_past_ace``, ``tractor_min_width``,
``tractor_min_length``, ``follow_format``,
``set_reading``, ``ladder``, ``tractor_owed``, ``shorter_tractor``,
``failed_throw_unit``, ``throw_penalty``, ``trump_throws``, ``throw_counts``, ``throw_check`` and
``rainbow``, whose
rainbows :mod:`core.reference_rainbow` reads) and :mod:`core.errors`; its
trump context (effective suits, levels, tractor eligibility) is
:mod:`core.reference_trump` and its units and lead decomposition
:mod:`core.reference_units`, whose names it re-exports.

Multisets of faces are handled internally as sorted tuples of ints, so that
copies of a face are never told apart and memoised results can be shared.
The memos are pure functions of their (hashable) arguments and are bounded,
so long cross-checking runs do not grow without limit.

>>> from core.cards import SPADES, HEARTS
>>> t = Trump(rank=5, suit=HEARTS)
>>> [str(u.cards) for u in decompose(parse_cards("6S 6S 4S 4S"), t, Rules())]
['4S 4S 6S 6S']
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import NamedTuple, Optional
from collections.abc import Iterable, Sequence

from .cards import Cards, CardsLike, ThrowResult, Trump, parse_cards, rank_of
from . import reference_rainbow as rainbow
from .reference_trump import TRUMPS, Chain, as_trump, chain_of, effective_suit, is_trump, level, tractor_eligible
from .reference_weaken import weakened_follow_ok
from .reference_units import (canonical, is_sub, IUnit, lead_suit, minus, mset, MSet, partitions,
                              sub_multisets, unit_faces, units_of_shape, decompose)
from .rules import Rules

__all__ = [
    "TRUMPS", "level", "effective_suit", "is_trump", "tractor_eligible", "Chain", "chain_of",
    "decompose", "is_legal_follow", "legal_follows", "trick_winner", "check_throw", "lead_rule", "points",
]

# --------------------------------------------------------------------------
# Following
# --------------------------------------------------------------------------

class _Way(NamedTuple):
    """How the components of a matching are read (docs/kernel.md, Following):
    ``ladder`` (``follow_ladder``), ``cards`` (``ladder=cards``: a unit's room
    is counted in cards), ``tractors`` (whether tractor components are owed at
    all: not in a throw under ``tractor_owed=lone``) and ``free_short``
    (``shorter_tractor=free``: no tractor shorter than the unit it goes to)."""

    ladder: bool
    cards: bool = False
    tractors: bool = True
    free_short: bool = False


def _way(rules: Rules, lead_shapes: tuple[tuple[int, int], ...]) -> _Way:
    """The reading of matchings that ``rules`` make for a lead of these unit shapes."""
    throw = len(lead_shapes) >= 2
    return _Way(rules.follow_ladder, rules.ladder == "cards",
                not (throw and rules.tractor_owed == "lone"), rules.shorter_tractor == "free")


def _shape_order(lead_shapes: tuple[tuple[int, int], ...], way: _Way) -> tuple[tuple[int, int], ...]:
    """The component shapes indexing a matching's value vector, highest priority first.

    A shape no unit may take only adds a column that is always 0, which
    changes no comparison.
    """
    takers = [(k, L) for k, L in lead_shapes if k >= 2]
    if not takers:
        return ()
    if not way.ladder:
        return tuple((k, 1) for k in sorted({k for k, _ in takers}, reverse=True))
    max_k = max(k for k, _ in takers)
    if way.cards:
        room = max(k * L for k, L in takers)
        shapes = [(k2, l2) for k2 in range(2, max_k + 1) for l2 in range(1, room // k2 + 1)]
        return tuple(sorted(shapes, key=lambda s: (s[0] * s[1], s[0]), reverse=True))
    max_L = max(L for _, L in takers)
    shapes = [(k2, l2) for k2 in range(2, max_k + 1) for l2 in range(1, max_L + 1)]
    return tuple(sorted(shapes, key=lambda s: (s[1] >= 2, s[0] * s[1], s[0]), reverse=True))


def _room(k: int, L: int, way: _Way) -> int:
    """The room of a lead unit of shape ``(k, L)``: its length, or its cards under ``ladder=cards``."""
    return k * L if way.cards else L


def _cost(k2: int, l2: int, way: _Way) -> int:
    """The room a ``(k2, l2)`` component takes up: its length, or its cards under ``ladder=cards``."""
    return k2 * l2 if way.cards else l2


def _allowed(k: int, L: int, way: _Way) -> list[tuple[int, int]]:
    """Component shapes a lead unit of shape ``(k, L)`` may receive (each must
    also fit the room the unit has left)."""
    if k < 2:
        return []
    if not way.ladder:
        return [(k, 1)]
    out = []
    for k2 in range(2, k + 1):
        for l2 in range(1, k * L + 1):
            if _cost(k2, l2, way) > _room(k, L, way):
                continue
            if l2 >= 2 and not way.tractors:
                continue
            if l2 >= 2 and way.free_short and l2 < L:
                continue
            out.append((k2, l2))
    return out


@lru_cache(maxsize=1 << 16)
def _f(x: MSet, lead_shapes: tuple[tuple[int, int], ...], way: _Way,
       only_exact: Optional[tuple[tuple[int, int], ...]], trump: Trump, chain: Chain) -> tuple[int, ...]:
    """``f(X)``: the lexicographically largest value over all matchings of ``x``.

    ``lead_shapes`` are the lead units' shapes in order. A matching is built
    unit by unit: a unit keeps receiving components (any allowed shape that
    still fits its remaining room, taken from the cards still free)
    until it is closed, then the next unit is served. Every matching is
    reached this way; the memo only merges identical sub-problems (same unit,
    same room, same free cards), whose best completions are equal, and
    vector addition preserves the lexicographic order.

    ``only_exact`` (face counts of the holding), when given, restricts the
    components to faces whose count there equals the component width
    (``protect_longer_sets`` for the obligation, ``set_reading=genuine`` for
    the play).
    """
    order = _shape_order(lead_shapes, way)
    index = {s: i for i, s in enumerate(order)}
    zero = (0,) * len(order)
    exact = dict(only_exact) if only_exact is not None else None
    units = list(lead_shapes)
    memo: dict[tuple[int, MSet, int], tuple[int, ...]] = {}

    def best(i: int, free: MSet, room: int) -> tuple[int, ...]:
        if i == len(units):
            return zero
        key = (i, free, room)
        if key in memo:
            return memo[key]
        nxt_room = _room(*units[i + 1], way) if i + 1 < len(units) else 0
        result = best(i + 1, free, nxt_room)  # close unit i
        k, L = units[i]
        for k2, l2 in _allowed(k, L, way):
            cost = _cost(k2, l2, way)
            if cost > room:
                continue
            for comp in units_of_shape(free, k2, l2, trump, chain):
                if exact is not None and any(exact.get(f, 0) != k2 for f in comp[3]):
                    continue
                v = list(best(i, minus(free, unit_faces(comp)), room - cost))
                v[index[(k2, l2)]] += 1
                if tuple(v) > result:
                    result = tuple(v)
        memo[key] = result
        return result

    if not units:
        return zero
    return best(0, x, _room(*units[0], way))


def _lead_shapes(lead: MSet, trump: Trump, chain: Chain) -> tuple[tuple[int, int], ...]:
    return tuple((u[0], u[1]) for u in canonical(lead, trump, chain))


def _exact(hs: MSet) -> tuple[tuple[int, int], ...]:
    """The face counts of a holding, as ``_f``'s ``only_exact`` takes them."""
    return tuple(sorted(Counter(hs).items()))


def _obligation(hs: MSet, shapes: tuple[tuple[int, int], ...], trump: Trump, rules: Rules) -> tuple[int, ...]:
    """``g``: ``f`` of the led-suit holding (only exact-count faces when protecting)."""
    only = _exact(hs) if rules.protect_longer_sets else None
    return _f(hs, shapes, _way(rules, shapes), only, trump, chain_of(rules))


def _bomb(ms: MSet, rules: Rules) -> Optional[int]:
    """Under ``bombs`` (not ``none``): the face of ``ms`` when it is four or more copies of that one face."""
    if rules.bombs == "none" or len(ms) < 4 or len(set(ms)) != 1:
        return None
    return ms[0]


def is_legal_follow(hand: CardsLike, lead: CardsLike, play: CardsLike, trump: Trump, rules: Rules) -> bool:
    """Whether ``play`` is a legal follow to ``lead`` from ``hand`` (docs/kernel.md, Following).

    Returns False (never raises) when ``play`` is not part of ``hand`` or does
    not have the lead's card count. A bad lead still raises
    :class:`IllegalActionError`.
    """
    trump = as_trump(trump)
    hand_ms, lead_ms, play_ms = mset(hand), mset(lead), mset(play)
    if rules.rainbow and rainbow.is_rainbow(lead_ms, trump):
        return rainbow.is_legal_follow(hand_ms, lead_ms, play_ms)
    suit = lead_suit(lead_ms, trump)
    n = len(lead_ms)
    if len(play_ms) != n or not is_sub(play_ms, hand_ms):
        return False
    hs = tuple(f for f in hand_ms if effective_suit(f, trump) == suit)
    bomb = _bomb(play_ms, rules)
    if bomb is not None and (rules.bombs == "any_suit" or not hs
                             or effective_suit(bomb, trump) in (suit, TRUMPS)):
        return True
    if len(hs) <= n:
        return is_sub(hs, play_ms)
    if any(effective_suit(f, trump) != suit for f in play_ms):
        return False
    if rules.follow_format == "count":
        return True  # enough cards of the suit, and nothing else is owed
    shapes = _lead_shapes(lead_ms, trump, chain_of(rules))
    if rules.ladder == "decompose":
        return weakened_follow_ok(hs, play_ms, shapes, trump, chain_of(rules))
    g = _obligation(hs, shapes, trump, rules)
    only = _exact(hs) if rules.set_reading == "genuine" else None
    fp = _f(play_ms, shapes, _way(rules, shapes), only, trump, chain_of(rules))
    return fp >= g


def legal_follows(hand: Cards, lead: Cards, trump: Trump, rules: Rules) -> set[Cards]:
    """Every distinct legal play (as a multiset) following ``lead`` from ``hand``.

    Candidates are all distinct sub-multisets of the right size of the
    led-suit holding (or, when it is too short, the whole holding plus every
    distinct completion from the other cards: nothing else can be legal),
    each filtered with :func:`is_legal_follow`.
    """
    trump = as_trump(trump)
    hand_ms, lead_ms = mset(hand), mset(lead)
    if rules.rainbow and rainbow.is_rainbow(lead_ms, trump):
        return rainbow.legal_follows(hand_ms, lead_ms)
    suit = lead_suit(lead_ms, trump)
    n = len(lead_ms)
    hs = tuple(f for f in hand_ms if effective_suit(f, trump) == suit)
    if len(hs) > n:
        candidates = sub_multisets(hs, n)
    else:
        rest = tuple(f for f in hand_ms if effective_suit(f, trump) != suit)
        candidates = [tuple(sorted(hs + extra)) for extra in sub_multisets(rest, n - len(hs))]
    if rules.bombs != "none":   # every bomb the hand holds is a candidate too
        candidates = list(candidates) + [(f,) * n for f in set(hand_ms) if hand_ms.count(f) >= n]
    return {Cards(c) for c in candidates if is_legal_follow(hand_ms, lead_ms, c, trump, rules)}


# --------------------------------------------------------------------------
# Winning a trick
# --------------------------------------------------------------------------

@lru_cache(maxsize=1 << 16)
def _fits(ms: MSet, shapes: tuple[tuple[int, int], ...], trump: Trump, chain: Chain) -> bool:
    """Whether ``ms`` splits into disjoint units of exactly these shapes (all cards used)."""
    if not shapes:
        return not ms
    k, L = shapes[0]
    for u in units_of_shape(ms, k, L, trump, chain):
        if _fits(minus(ms, unit_faces(u)), shapes[1:], trump, chain):
            return True
    return False


def _strength(ms: MSet, shapes: tuple[tuple[int, int], ...], trump: Trump, chain: Chain) -> Optional[int]:
    """The best top level of the unit given to the lead's first unit, or None if the shape is not matched."""
    if not shapes or sum(k * L for k, L in shapes) != len(ms):
        return None
    k, L = shapes[0]
    best: Optional[int] = None
    for u in units_of_shape(ms, k, L, trump, chain):
        if _fits(minus(ms, unit_faces(u)), shapes[1:], trump, chain):
            if best is None or u[2] > best:
                best = u[2]
    return best


def _all_tops(ms: MSet, shapes: tuple[tuple[int, int], ...], trump: Trump,
              chain: Chain) -> list[tuple[int, ...]]:
    """Every way to split ``ms`` into units of exactly these shapes, in order, as the units' top levels."""
    if not shapes:
        return [()] if not ms else []
    k, L = shapes[0]
    out = []
    for u in units_of_shape(ms, k, L, trump, chain):
        out += [(u[2],) + rest for rest in _all_tops(minus(ms, unit_faces(u)), shapes[1:], trump, chain)]
    return out


def _winner_all(plays: Sequence[Cards], trump: Trump, rules: Rules) -> int:
    """``throw_winner`` ``all`` or ``longest`` with a throw led: a play takes the trick if it splits
    into the lead's shapes and is trumps against a plain best, or of the best's class with some split
    whose every unit tops the best's unit in its place (``all``), or whose sets' and tractors' tops,
    in the lead's order, are lexicographically above the best's (``longest``; every unit's when the
    lead is all singles); the holder is then read by its greatest such split (the lead by its
    greatest split of all)."""
    chain = chain_of(rules)
    lead = mset(plays[0])
    suit = lead_suit(lead, trump)
    shapes = _lead_shapes(lead, trump, chain)
    longest = rules.throw_winner == "longest"
    # under longest only the sets and tractors are compared, unless the lead is all singles
    places = [j for j, (k, L) in enumerate(shapes) if k * L > 1] or list(range(len(shapes)))

    def compared(t: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(t[j] for j in places)

    best_i, best_cls, best_tops = 0, (1 if suit == TRUMPS else 0), max(_all_tops(lead, shapes, trump, chain))
    for i in range(1, len(plays)):
        p = mset(plays[i])
        in_suit = all(effective_suit(f, trump) == suit for f in p)
        all_trumps = all(is_trump(f, trump) for f in p)
        if not p or not (in_suit or (suit != TRUMPS and all_trumps)):
            continue
        cls = 1 if all_trumps else 0
        splits = _all_tops(p, shapes, trump, chain)
        if cls == best_cls and longest:
            splits = [t for t in splits if compared(t) > compared(best_tops)]
        elif cls == best_cls:
            splits = [t for t in splits if all(a > b for a, b in zip(t, best_tops))]
        elif cls < best_cls:
            splits = []
        if splits:
            best_i, best_cls, best_tops = i, cls, max(splits)
    return best_i


def trick_winner(plays: Sequence[Cards], trump: Trump, rules: Rules) -> int:
    """The index of the play that wins the trick; ``plays[0]`` is the lead.

    A play can take the trick only if it is all in the led suit (or all
    trumps against a non-trump lead) and splits into units of exactly the
    lead's shapes; it then competes by (all trumps, best top level of the
    unit matching the lead's biggest unit), strictly, earlier plays winning
    ties. With ``throw_winner`` ``highest`` a lead of two or more units
    compares (all trumps, the highest level of any card of the play) instead;
    with ``all`` or ``longest``, unit by unit (:func:`_winner_all`). Under
    ``bombs`` a bomb (:func:`_bomb`) beats all of that, trumps above plain.
    """
    trump = as_trump(trump)
    bombs = [(i, f) for i, f in ((i, _bomb(mset(p), rules)) for i, p in enumerate(plays)) if f is not None]
    if bombs:
        # a bomb above every other play; among bombs trumps first, then the level; ties to the earlier
        best = max(bombs, key=lambda b: (is_trump(b[1], trump), level(b[1], trump), -b[0]))
        return best[0]
    chain = chain_of(rules)
    lead = mset(plays[0])
    if rules.rainbow and rainbow.is_rainbow(lead, trump):
        return rainbow.trick_winner([mset(p) for p in plays])
    suit = lead_suit(lead, trump)
    shapes = _lead_shapes(lead, trump, chain)
    if rules.throw_winner in ("all", "longest") and len(shapes) >= 2:
        return _winner_all(plays, trump, rules)
    lead_strength = _strength(lead, shapes, trump, chain)
    assert lead_strength is not None
    # throw_winner "highest": a throw is won by the matching play with the highest card
    highest = rules.throw_winner == "highest" and len(shapes) >= 2
    if highest:
        lead_strength = max(level(f, trump) for f in lead)
    best_i, best_v = 0, (1 if suit == TRUMPS else 0, lead_strength)
    for i in range(1, len(plays)):
        p = mset(plays[i])
        if not p:
            continue
        in_suit = all(effective_suit(f, trump) == suit for f in p)
        all_trumps = all(is_trump(f, trump) for f in p)
        if not (in_suit or (suit != TRUMPS and all_trumps)):
            continue
        st = _strength(p, shapes, trump, chain)
        if st is None:
            continue
        if highest:
            st = max(level(f, trump) for f in p)
        v = (1 if all_trumps else 0, st)
        if v > best_v:
            best_i, best_v = i, v
    return best_i


# --------------------------------------------------------------------------
# Throws
# --------------------------------------------------------------------------

def _beats(hs: MSet, u: IUnit, suit: int, trump: Trump, chain: Chain) -> bool:
    """Whether a led-suit holding ``hs`` beats the lead unit ``u`` (docs/kernel.md, Throws)."""
    k, L, top, _faces = u
    cnt = Counter(f for f in hs if effective_suit(f, trump) == suit)
    if L == 1:
        return any(c >= k and level(f, trump) > top for f, c in cnt.items())
    # "L adjacent eligible levels ... each holding some face with count >= k":
    # each level needs a tractor-eligible face of the led suit with k copies.
    good_levels = {level(f, trump) for f, c in cnt.items()
                   if c >= k and tractor_eligible(f, trump, chain.past_ace)}
    for u_top in range(top + 1, 16):
        if all(u_top - j in good_levels for j in range(L)):
            return True
    return False


def check_throw(lead: Cards, others: Sequence[Cards], trump: Trump, rules: Rules) -> ThrowResult:
    """Whether a lead stands against the other hands (seat order after the leader).

    A single-unit lead always stands. Otherwise, if some hand beats one of the
    lead's units with its led-suit cards, the throw fails and the result names
    the unit led instead (``rules.failed_throw_unit`` picks it), the withdrawn
    card count, the penalty and the index in ``others`` of the hand that
    showed the beating cards.
    """
    trump = as_trump(trump)
    chain = chain_of(rules)
    ms = mset(lead)
    if rules.rainbow and rainbow.is_rainbow(ms, trump):
        return rainbow.check_throw(ms, [mset(h) for h in others], rules)
    suit = lead_suit(ms, trump)
    units = list(canonical(ms, trump, chain))
    if len(units) == 1:
        return ThrowResult(True, None, 0, 0, None)
    hands = [tuple(f for f in mset(h) if effective_suit(f, trump) == suit) for h in others]

    def fail(u: IUnit, by: int) -> ThrowResult:
        withdrawn = len(ms) - u[0] * u[1]
        cost = rules.throw_penalty if rules.throw_penalty_per == "attempt" else rules.throw_penalty * withdrawn
        return ThrowResult(False, Cards(unit_faces(u)), withdrawn, cost, by)

    if rules.failed_throw_unit == "first_found":
        for hi, hs in enumerate(hands):
            for u in units:
                if _beats(hs, u, suit, trump, chain):
                    return fail(u, hi)
        return ThrowResult(True, None, 0, 0, None)

    beatable = [u for u in units if any(_beats(hs, u, suit, trump, chain) for hs in hands)]
    if not beatable:
        return ThrowResult(True, None, 0, 0, None)
    # Fewest cards, then lowest top level, then lowest face number. "Face
    # number" of a unit is read as in the unit key (its highest face); the
    # unit's faces break any remaining tie deterministically.
    chosen = min(beatable, key=lambda u: (u[0] * u[1], u[2], max(u[3]), u[3]))
    by = next(hi for hi, hs in enumerate(hands) if _beats(hs, chosen, suit, trump, chain))
    return fail(chosen, by)


def lead_rule(lead: Cards, hand: Cards, played: Cards, trump: Trump, rules: Rules) -> int:
    """Which lead rule forbids leading ``lead`` from ``hand`` (docs/kernel.md,
    Throws): 0 none; 1 a throw in trumps while ``rules.trump_throws`` is off;
    3 under ``rules.throw_counts`` ``equal``, a throw holding two of its
    distinct cards a different number of times; 2 under ``rules.throw_check``
    ``safe``, a throw with a unit that the cards out of the leader's sight
    (every card of the deal but ``hand`` and ``played``, the cards of the
    earlier tricks) could beat. The first that applies, in that order.
    """
    trump = as_trump(trump)
    ms = mset(lead)
    deck = Counter(f for f in range(54) for _ in range(rules.copies(f)))
    hidden = tuple(sorted((deck - Counter(mset(hand)) - Counter(mset(played))).elements()))
    if rules.rainbow and rainbow.is_rainbow(ms, trump):
        return rainbow.lead_rule(ms, hidden, rules)
    suit = lead_suit(ms, trump)
    units = list(canonical(ms, trump, chain_of(rules)))
    if len(units) < 2:
        return 0
    if not rules.trump_throws and suit == TRUMPS:
        return 1
    if unequal_throw(ms, rules):
        return 3
    if rules.throw_check == "safe":
        if any(_beats(hidden, u, suit, trump, chain_of(rules)) for u in units):
            return 2
    return 0


def unequal_throw(lead: Sequence[int], rules: Rules) -> bool:
    """Whether ``rules.throw_counts`` ``equal`` refuses the throw ``lead``
    (two or more units, the caller's to know): some distinct card of it
    appears a different number of times from another.

    >>> r = Rules(throw_counts="equal")
    >>> unequal_throw(parse_cards("AS QS"), r), unequal_throw(parse_cards("AS KS KS"), r)
    (False, True)
    """
    return rules.throw_counts == "equal" and len(set(Counter(lead).values())) > 1


# --------------------------------------------------------------------------
# Points
# --------------------------------------------------------------------------

def points(cards: Cards | str | Iterable[int]) -> int:
    """Card points: each K and 10 is worth 10, each 5 is worth 5."""
    total = 0
    for f in parse_cards(cards):
        r = rank_of(f)
        if r in (10, 13):
            total += 10
        elif r == 5:
            total += 5
    return total


def clear_caches() -> None:
    """Forget every memoised result (benchmarks call this so repeats cost the full price)."""
    for fn in (units_of_shape, partitions, canonical, _f, _fits):
        fn.cache_clear()
