"""Dealing cards exactly uniformly among the deals that respect per-card
destinations: the counting table behind :class:`core.sample.Sampler`.

Cards come in classes, each allowed in some destinations (hands, the
kitty); destinations with the same allowed classes form groups. A dynamic
programme over the groups counts the completions with exact integers
(:class:`Deal`), so each group's share of each class is drawn from its exact
distribution, and the cards themselves are then dealt uniformly.

The steps that make the table from a view's bounds are here too: the cards
known to be in a hand placed up front (:func:`place_known`), the room left
in each destination (:func:`room`), and the table built, with the
exclusions easiest to meet by chance left to a per-sample check when it
would be too big to count (:func:`deal_demoting`); past that, a sequential
deal that respects every exclusion but is not exactly uniform
(:class:`SequentialDeal`).

>>> import random
>>> d = build_deal({(0, 1): [5, 6, 7], (1,): [8]}, [0, 1], {0: 2, 1: 2})
>>> d.total                      # 8 must go to 1; of 5, 6, 7 one more goes to 1
3
>>> out = d.draw(random.Random(1).random)
>>> sorted(out[0] + out[1]) == [5, 6, 7, 8] and 8 in out[1] and len(out[0]) == 2
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from math import comb
from typing import Optional, cast

from .cards import NUM_FACES as NF
from .errors import SamplingError
from ._deal import FreeDeal, deal_free, deal_layers, play_bytes, play_with_hands, sorted_hands

__all__ = ["Deal", "SequentialDeal", "TooBig", "build_deal", "order_groups", "compositions", "Bounds", "place_known", "room",
           "deal_demoting", "sorted_hands", "play_with_hands", "play_bytes"]

Bounds = dict[int, list[int]]                   # seat -> a count per face (lower or upper bounds)
ClassKey = tuple[tuple[int, ...], tuple[int, ...]]   # a class of cards: its (fine, coarse) destinations
Uniform = Callable[[], float]                   # a uniform draw in [0, 1), as random.Random.random
_Group = tuple[list[int], list[int]]            # (destinations, the cards still to deal to each)
_Class = tuple[frozenset[int], list[int]]       # (indices of the groups allowed, the cards)
_Opt = tuple[tuple[int, ...], int, tuple[int, ...]]   # a layer's take: (x per merged class, x0 free, r left)
_Entry = tuple[int, list[float], list[_Opt]]     # W(i, r) while counting: (total, cumulative odds, takes)
_Table = dict[tuple[int, ...], tuple[list[float], list[_Opt]]]   # a layer's counted entries, less the totals
_Hyper = dict[tuple[int, int, int], tuple[int, list[float]]]     # (N, K, n) -> (lowest k, cumulative odds)


def compositions(r: tuple[int, ...], allowed: tuple[int, ...], cap: int) -> Iterator[tuple[int, ...]]:
    """Every x (aligned with r) with x[k] = 0 outside ``allowed``,
    0 <= x[k] <= r[k] and sum(x) <= cap."""
    x = [0] * len(r)

    def rec(i: int, left: int) -> Iterator[tuple[int, ...]]:
        if i == len(allowed):
            yield tuple(x)
            return
        k = allowed[i]
        for v in range(min(r[k], left) + 1):
            x[k] = v
            yield from rec(i + 1, left - v)
        x[k] = 0

    yield from rec(0, cap)


class Deal:
    """Deal the pool exactly uniformly among the deals where every card goes
    to a destination its class allows.

    ``groups`` are ``(members, capacities)`` of destinations that allow the
    same classes; ``free`` is the group that allows every class; ``classes``
    are ``(allowed group indices, cards)``. Groups are dealt one at a time
    (the *layers*). At layer i only the groups i, i+1, ... are left, so two
    classes that those groups allow alike are interchangeable from there on
    and are merged (the count of completions depends only on their total, by
    Vandermonde's identity); this keeps the table small. ``W(i, r)`` is the
    exact number of ways to deal the remaining cards (merged counts ``r``)
    to the remaining groups; the group at layer i takes ``x`` cards of each
    merged class with probability proportional to the binomials choosing
    them times ``W`` of what is left, then the cards themselves uniformly.
    """

    BUDGET = 40_000                       # table entries to weigh before giving up (TooBig)

    def __init__(self, groups: list[_Group], free: _Group, classes: list[_Class], slots: int) -> None:
        self.slots = slots
        G = len(groups)
        free_cards = [f for a, cards in classes if len(a) == G for f in cards]
        classes = [(a, cards) for a, cards in classes if len(a) < G]
        order = order_groups(G, [a for a, _ in classes], [len(c) for _, c in classes])
        pos = {g: i for i, g in enumerate(order)}
        self.groups = [groups[g] for g in order]
        self.free = free
        allowed = [frozenset(pos[g] for g in a) for a, _ in classes]
        caps = [sum(c) for _, c in self.groups]
        # merged classes per layer: key = allowed groups among those left
        layers = []                        # per layer: list of keys (merged classes)
        of_class = []                      # per layer: class -> merged index or -1 (free)
        for i in range(G + 1):
            left = frozenset(range(i, G))
            keys: dict[frozenset[int], int] = {}
            idx = []
            for a in allowed:
                key = a & left
                if key == left:
                    idx.append(-1)
                else:
                    idx.append(keys.setdefault(key, len(keys)))
            layers.append(list(keys))
            of_class.append(idx)
        # how merged classes of layer i map into layer i + 1
        maps = []
        for i in range(G):
            to_next = [-1] * len(layers[i])
            for k, j in enumerate(of_class[i]):
                if j >= 0:
                    to_next[j] = of_class[i + 1][k]
            maps.append(to_next)
        takes = [tuple(j for j, key in enumerate(layers[i]) if i in key) for i in range(G)]
        suffix = [0] * (G + 1)
        suffix[G] = sum(free[1])
        for i in range(G - 1, -1, -1):
            suffix[i] = suffix[i + 1] + caps[i]
        memo: list[dict[tuple[int, ...], _Entry]] = [dict() for _ in range(G)]
        self.memo = memo
        count = [0]

        def W(i: int, r: tuple[int, ...]) -> int:
            if i == G:
                return 1
            got = memo[i].get(r)
            if got is not None:
                return got[0]
            c = caps[i]
            r0 = suffix[i] - sum(r)
            mp = maps[i]
            width = len(layers[i + 1])
            opts: list[tuple[int, tuple[int, ...], int, tuple[int, ...]]] = []
            for x in compositions(r, takes[i], c):
                count[0] += 1
                if count[0] > self.BUDGET:
                    raise TooBig()
                x0 = c - sum(x)
                if x0 > r0:
                    continue
                left = [0] * width
                for j, v in enumerate(r):
                    if mp[j] >= 0:
                        left[mp[j]] += v - x[j]
                nr = tuple(left)
                w = W(i + 1, nr)
                if not w:
                    continue
                for j in takes[i]:
                    w *= comb(r[j], x[j])
                opts.append((w * comb(r0, x0), x, x0, nr))
            total = sum(o[0] for o in opts)
            cum: list[float] = []
            acc = 0
            for o in opts:
                acc += o[0]
                cum.append(acc / total)
            memo[i][r] = (total, cum, [o[1:] for o in opts])
            return total

        start = [0] * len(layers[0])
        for k, j in enumerate(of_class[0]):
            if j >= 0:
                start[j] += len(classes[k][1])
        self.start = tuple(start)
        self.G = G
        self.maps = maps
        self.takes = takes
        self.width = [len(layer) for layer in layers]
        # the cards of each merged class at layer 0, and the free ones
        lists: list[list[int]] = [[] for _ in layers[0]]
        free0 = list(free_cards)
        for k, j in enumerate(of_class[0]):
            (lists[j] if j >= 0 else free0).extend(classes[k][1])
        self.lists0 = lists
        self.free0 = free0
        self.hyp: _Hyper = {}              # hypergeometric tables, filled as needed
        self.total = W(0, self.start)
        tables = cast(list[_Table], memo)  # the same dicts, each entry trimmed here to (cum, takes)
        for i, table in enumerate(memo):
            for counts, v in table.items():
                tables[i][counts] = v[1:]
        # the sampler keeps the layer-0 lists apart (pool 0: the free cards);
        # a merged class of layer i is the pools that map into it
        self.pools0 = [free0] + lists
        where = [-1] + list(range(len(lists)))      # pool -> merged index at layer i
        self.plan: list[tuple[_Table, tuple[int, ...], list[tuple[int, ...]], tuple[int, ...], _Group]] = []
        for i in range(G):
            comp: list[list[int]] = [[] for _ in layers[i]]
            free_i: list[int] = []
            for pid, m in enumerate(where):
                if self.pools0[pid]:
                    (comp[m] if m >= 0 else free_i).append(pid)
            self.plan.append((tables[i], takes[i], [tuple(c) for c in comp], tuple(free_i), self.groups[i]))
            where = [maps[i][m] if m >= 0 else -1 for m in where]
        self.free_ids = tuple(pid for pid, c in enumerate(self.pools0) if c)
        # no layer: the shuffle dealt in order, each pile sorted by counting (cards are faces)
        self._free_deal: Optional[FreeDeal] = None
        if not G and all(type(f) is int and 0 <= f < NF for f in free0):
            self._free_deal = FreeDeal(free0, self.free, self.slots)

    def draw(self, r: Uniform) -> list[list[int]]:
        """One deal: the cards of each destination (a list indexed by it).

        Every pool (the free cards, and each class list of layer 0) is
        shuffled once and then dealt from the front, so what is left of it
        stays in uniform random order; a uniform x-subset of a merged class
        is a hypergeometric split of x over its pools, then the next cards
        of each. The walk is compiled (:mod:`core._deal`). A destination's
        cards come in no promised order (sorted when there is no layer)."""
        out: list[list[int]]           # annotated, not cast: this runs once for every world sampled
        if self._free_deal is not None:
            out = self._free_deal(r)
        elif not self.G:
            out = deal_free(self.free0, self.free, self.slots, r)
        else:
            out = deal_layers(self.pools0, self.start, self.plan, self.free, self.slots, self.hyp, r)
        return out


class TooBig(Exception):
    """The exact table would take too long to count."""


class SequentialDeal:
    """The deal past the counting budget (:meth:`Deal.BUDGET`), when even
    every exclusion left to a per-sample check would not make the table
    small (many seats with voids, five or more packs): the classes are dealt
    tightest first (fewest destinations allowed, then most cards), each card
    to a destination its class allows, chosen with odds by the room left
    there; a dead end deals again. Every card lands where its class allows
    and every destination gets exactly its room, but the deals are not
    exactly uniform. Built only when some deal exists (a max flow says so).

    >>> import random
    >>> d = SequentialDeal({(0, 1): [5, 6, 7], (1,): [8]}, [0, 1], {0: 2, 1: 2})
    >>> out = d.draw(random.Random(1).random)
    >>> sorted(out[0] + out[1]) == [5, 6, 7, 8] and 8 in out[1] and len(out[0]) == 2
    True
    """

    #: deals drawn afresh after a dead end before giving up
    TRIES = 1000

    def __init__(self, classes: dict[tuple[int, ...], list[int]], dests: list[int],
                 cap_left: dict[int, int]) -> None:
        self.slots = max(cap_left) + 1
        self.room = {d: cap_left[d] for d in dests}
        items = [(tuple(d for d in allowed if self.room.get(d, 0) > 0), list(cards))
                 for allowed, cards in classes.items() if cards]
        items.sort(key=lambda it: (len(it[0]), -len(it[1])))
        self.order = items
        self.total = 1 if _fits(items, self.room) else 0

    def draw(self, r: Uniform) -> list[list[int]]:
        """One deal: the cards of each destination (a list indexed by it)."""
        for _ in range(self.TRIES):
            room = dict(self.room)
            out: list[list[int]] = [[] for _ in range(self.slots)]
            stuck = False
            for allowed, cards in self.order:
                cards = cards[:]
                for i in range(len(cards) - 1, 0, -1):           # the class's cards in random order
                    j = int(r() * (i + 1))
                    cards[i], cards[j] = cards[j], cards[i]
                for f in cards:
                    left = sum(room[d] for d in allowed)
                    if not left:
                        stuck = True
                        break
                    x = int(r() * left)
                    for d in allowed:
                        if x < room[d]:
                            break
                        x -= room[d]
                    out[d].append(f)
                    room[d] -= 1
                if stuck:
                    break
            if not stuck:
                return out
        raise SamplingError(f"no deal of the unseen cards found in {self.TRIES} sequential tries")


def _fits(items: list[tuple[tuple[int, ...], list[int]]], room: dict[int, int]) -> bool:
    """Whether the classes ``items`` (allowed destinations, cards) can all be
    dealt within ``room`` filling it exactly: a max flow from the classes
    through the destinations they allow (augmenting paths by breadth first)."""
    need = sum(len(c) for _, c in items)
    if need != sum(room.values()):
        return False
    dests = sorted(room)
    n_cls = len(items)
    src, sink = n_cls + len(dests), n_cls + len(dests) + 1
    at = {d: n_cls + i for i, d in enumerate(dests)}
    cap: dict[tuple[int, int], int] = {}
    adj: dict[int, list[int]] = {v: [] for v in range(sink + 1)}

    def edge(u: int, v: int, c: int) -> None:
        if (u, v) not in cap:
            adj[u].append(v)
            adj[v].append(u)
            cap.setdefault((v, u), 0)
        cap[(u, v)] = cap.get((u, v), 0) + c

    for i, (allowed, cards) in enumerate(items):
        edge(src, i, len(cards))
        for d in allowed:
            edge(i, at[d], len(cards))
    for d in dests:
        edge(at[d], sink, room[d])
    flow = 0
    while True:
        prev = {src: src}
        queue = [src]
        for u in queue:
            for v in adj[u]:
                if v not in prev and cap[(u, v)] > 0:
                    prev[v] = u
                    queue.append(v)
        if sink not in prev:
            return flow == need
        push, v = need, sink
        while v != src:
            push = min(push, cap[(prev[v], v)])
            v = prev[v]
        v = sink
        while v != src:
            cap[(prev[v], v)] -= push
            cap[(v, prev[v])] += push
            v = prev[v]
        flow += push


def build_deal(classes: dict[tuple[int, ...], list[int]], dests: list[int], cap_left: dict[int, int]) -> Deal:
    """Group the destinations by the classes they allow and build the deal."""
    keys = list(classes)
    pattern: dict[tuple[int, ...], list[int]] = {}
    for d in dests:
        pattern.setdefault(tuple(k for k in range(len(keys)) if d in keys[k]), []).append(d)
    free_group = pattern.pop(tuple(range(len(keys))), [])
    members = list(pattern.values())
    groups = [(m, [cap_left[d] for d in m]) for m in members]
    cls = [(frozenset(i for i, m in enumerate(members) if m[0] in key), classes[key]) for key in keys]
    return Deal(groups, (free_group, [cap_left[d] for d in free_group]), cls, max(cap_left) + 1)


def order_groups(G: int, allowed: list[frozenset[int]], sizes: list[int]) -> list[int]:
    """An order of the groups that keeps the merged tables small: built from
    the back, each step adding the group whose layer has the fewest states."""
    chosen: list[int] = []
    left = set(range(G))
    while left:
        best = None
        for g in sorted(left):
            rest = frozenset(chosen) | {g}
            merged: dict[frozenset[int], int] = {}
            for a, n in zip(allowed, sizes):
                key = a & rest
                if key != rest:
                    merged[key] = merged.get(key, 0) + n
            cost = 1
            for v in merged.values():
                cost *= v + 1
            if best is None or cost < best[0]:
                best = (cost, g)
        assert best is not None                 # left is not empty
        chosen.append(best[1])
        left.discard(best[1])
    return chosen[::-1]


def place_known(unseen: list[int], need: Bounds, mk: list[int], cap: Bounds,
                 maker: Optional[int]) -> tuple[list[int], dict[int, list[int]], list[int]]:
    """Lower bounds as cards placed up front: each seat's ``need`` becomes its ``fixed`` cards (a need
    above the seat's cap is a contradiction), and the pool is the unseen cards less those and the
    maker-or-kitty copies. Copies known to be in the maker's hand count towards its maker-or-kitty
    copies, so ``mk`` comes back less them."""
    pool = list(unseen)
    mk = list(mk)
    fixed: dict[int, list[int]] = {s: [] for s in need}
    for s in need:
        for f in range(NF):
            if need[s][f]:
                if need[s][f] > cap[s][f]:
                    raise SamplingError(f"seat {s} must hold a card the view also rules out")
                fixed[s].extend([f] * need[s][f])
                pool[f] -= need[s][f]
    for f in range(NF):
        if mk[f] and maker in need:
            mk[f] = max(0, mk[f] - need[maker][f])    # copies known in the hand count too
        pool[f] -= mk[f]
        if pool[f] < 0:
            raise SamplingError("more cards are known to be in hands than are unseen")
    return pool, fixed, mk


def room(sizes: Sequence[int], rest: int, fixed: dict[int, list[int]], R: int) -> tuple[dict[int, int], list[int]]:
    """Hand sizes as room: ``cap_left[d]``, the cards still to deal to each destination (the other seats:
    the hand size less the fixed cards; the rest pile ``R``: ``rest``), and the destinations with room
    (seats in order, then the rest pile)."""
    cap_left = {s: sizes[s] - len(fx) for s, fx in fixed.items()}
    cap_left[R] = rest
    if any(v < 0 for v in cap_left.values()):
        raise SamplingError("a seat is known to hold more cards than it has")
    dests = [d for d in cap_left if cap_left[d] > 0]
    return cap_left, dests


def deal_demoting(classes: dict[ClassKey, list[int]], dests: list[int], cap_left: dict[int, int],
                  start: int = 0) -> tuple[Deal | SequentialDeal, set[ClassKey], int]:
    """The exact deal of the classes to the destinations with room. When its table is too big to count,
    the classes whose extra exclusions a uniform deal is likeliest to meet anyway are demoted to their
    coarse destinations (a third of those left at a time, their exclusions then checked per sample)
    until it is not; when it is too big even with every one demoted, the :class:`SequentialDeal` of
    the classes as they are (no exclusion left to a check; not exactly uniform). ``start`` rounds of
    demotion are made before the first table is counted (a hint from a like view: a table that will
    not fit costs as much as one that does). Returns the deal, the demoted class keys and the rounds
    made (one more than every class's when the deal is sequential).

    >>> classes = {((0,), (0, 1)): [4, 5], ((0, 1), (0, 1)): [6]}
    >>> deal, demoted, rounds = deal_demoting(classes, [0, 1], {0: 2, 1: 1}, start=1)
    >>> sorted(demoted), rounds
    ([((0,), (0, 1))], 1)
    >>> deal_demoting(classes, [0, 1], {0: 2, 1: 1})[1:]
    (set(), 0)
    """
    total_cap = {d: cap_left[d] for d in dests}

    def keep_odds(key: ClassKey) -> float:
        fine, coarse = key
        c = sum(total_cap[d] for d in coarse)
        return (sum(total_cap[d] for d in fine) / c) ** len(classes[key])

    demotable = sorted((k for k in classes if k[0] != k[1]), key=keep_odds, reverse=True)
    demoted: set[ClassKey] = set()
    rounds = 0
    while True:
        undemoted = [k for k in demotable if k not in demoted]
        if rounds >= start or not undemoted:
            merged: dict[tuple[int, ...], list[int]] = {}
            for key, cards in classes.items():
                merged.setdefault(key[1] if key in demoted else key[0], []).extend(cards)
            try:
                deal = build_deal(merged, dests, cap_left)
                break
            except TooBig:
                if not undemoted:
                    fine: dict[tuple[int, ...], list[int]] = {}
                    for key, cards in classes.items():
                        fine.setdefault(key[0], []).extend(cards)
                    seq = SequentialDeal(fine, dests, cap_left)
                    if seq.total == 0:
                        raise SamplingError("no deal of the unseen cards agrees with the view") from None
                    return seq, set(), rounds + 1
        demoted.update(undemoted[:max(1, len(undemoted) // 3)])
        rounds += 1
    if deal.total == 0:
        raise SamplingError("no deal of the unseen cards agrees with the view")
    return deal, demoted, rounds
