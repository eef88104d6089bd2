"""The reference's reading of ``ladder=decompose`` (docs/kernel.md, Following,
"the weakening order"): rbtying/shengji's fixed order of ever weaker formats,
and whether a holding meets a format. Written from the definition alone,
by plain enumeration."""

from __future__ import annotations

import itertools
from collections import Counter
from functools import cache, lru_cache
from typing import TypeVar

from .reference_trump import Chain, effective_suit, level, tractor_eligible
from .cards import Trump

Group = tuple[int, ...]        # set widths on adjacent levels, lowest level first
Format = tuple[Group, ...]


T = TypeVar("T")


def _unique(xs: list[T]) -> list[T]:
    return list(dict.fromkeys(xs))


def _partitions(n: int) -> list[tuple[int, ...]]:
    """Every partition of n (parts non-increasing), largest first lexicographically."""
    allp = set()
    stack: list[tuple[int, ...]] = [()]
    while stack:
        p = stack.pop()
        left = n - sum(p)
        if left == 0:
            allp.add(p)
            continue
        for x in range(1, (p[-1] if p else n) + 1):
            if x <= left:
                stack.append(p + (x,))
    return sorted(allp, reverse=True)


@cache
def _runs(m: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """The ways of cutting sets 0..m-1 into runs, in the definition's order."""
    ways: list[tuple[tuple[int, ...], ...]] = [((0,),)]
    for x in range(1, m):
        grown = []
        for w in ways:
            grown += [tuple(r + (x,) if j == i else r for j, r in enumerate(w)) for i in range(len(w))]
            grown.append(w + ((x,),))
        ways = sorted(grown, key=lambda w: (-max(map(len, w)), len(w)))
        ways = [w for i, w in enumerate(ways) if i == 0 or ways[i - 1] != w]
    return tuple(ways)


@cache
def formats_of(n: int) -> tuple[Format, ...]:
    """Every weakening of n cards into groups, in the definition's order."""
    out: list[Format] = []
    for p in _partitions(n):
        sets = [x for x in p if x >= 2]
        singles: list[Group] = [(1,)] * (len(p) - len(sets))
        if not sets:
            out.append(tuple(singles))
            continue
        found: list[tuple[Group, ...]] = []
        for w in _runs(len(sets)):
            runs = [tuple(sets[i] for i in r) for r in w]
            if all(min(r) == max(r) for r in runs):
                found.append(tuple(runs))
                continue
            choices = [_unique(list(itertools.permutations(r))) for r in runs]
            found += [tuple(c) for c in itertools.product(*choices)]
        for f in _unique(found):
            out.append(tuple(sorted(list(f) + singles, reverse=True)))
    return tuple(_unique(out))


@lru_cache(maxsize=4096)
def weakening_order(shapes: tuple[tuple[int, int], ...]) -> tuple[Format, ...]:
    """The formats a lead of unit shapes ((width, length) each) owes in turn."""
    ordered = sorted(shapes, key=lambda s: (s[0] * s[1], s[0]), reverse=True)   # more cards, then wider
    units: list[Group] = [(k,) * L for k, L in ordered]
    later: list[list[Format]] = []
    for u in units:
        fs = list(formats_of(sum(u)))
        later.append(fs[fs.index((u,)) + 1:] if (u,) in fs else [])
    now: list[Format] = [(u,) for u in units]
    seq: list[Format] = [tuple(sorted(units, reverse=True))]
    turn = list(range(len(units)))
    while True:
        turn = sorted(turn, key=lambda i: len(later[i]), reverse=True)   # stable: ties keep their turn
        first = turn[0]
        if not later[first]:
            return tuple(seq)
        now[first] = later[first].pop(0)
        seq.append(tuple(sorted((g for fmt in now for g in fmt), reverse=True)))


def meets(cards: tuple[int, ...], fmt: Format, trump: Trump, chain: Chain) -> bool:
    """Whether ``cards`` (one effective suit) hold every group of ``fmt`` at once."""
    if not fmt:
        return True
    cnt = Counter(cards)
    group, rest = fmt[0], fmt[1:]
    by_level: dict[int, list[int]] = {}
    for f in cnt:
        by_level.setdefault(level(f, trump), []).append(f)
    for lo in sorted(by_level):
        if len(group) >= 2 and any(lo + i not in by_level for i in range(len(group))):
            continue
        picks: list[tuple[int, ...]]
        if len(group) == 1:
            picks = [(f,) for f in by_level[lo]]
        else:
            picks = list(itertools.product(*[[f for f in by_level[lo + i] if tractor_eligible(f, trump, chain.past_ace)
                                               and effective_suit(f, trump) == effective_suit(by_level[lo][0], trump)]
                                              for i in range(len(group))]))
        for pick in picks:
            if all(cnt[f] >= w for f, w in zip(pick, group)):
                left = cnt.copy()
                left.subtract(dict(zip(pick, group)))
                if meets(tuple(left.elements()), rest, trump, chain):
                    return True
    return False


def weakened_follow_ok(hs: tuple[int, ...], play: tuple[int, ...], shapes: tuple[tuple[int, int], ...],
                       trump: Trump, chain: Chain) -> bool:
    """``ladder=decompose``: ``play`` (cards of the led suit) meets the first
    format of the order that the led-suit holding ``hs`` meets."""
    for fmt in weakening_order(shapes):
        if meets(play, fmt, trump, chain):
            return True
        if meets(hs, fmt, trump, chain):
            return False
    return True
