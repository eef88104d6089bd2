# cython: language_level=3
"""The hot path of :class:`core.dealing.Deal`, compiled: one deal drawn from
a counted table.

:class:`core.dealing.Deal` counts the table once per view (in Python, with
exact integers); every sampled world then walks it once: a count drawn per
layer, the cards of each class taken from pools shuffled once, and each
group's cards shared among its members. That walk is here. It makes the
very draws, in the very order, that the plain Python walk it replaced made
(a generator in the same state gives the same deal), and
``tests/core/test_sample_marginals.py`` checks the worlds it deals against
plain rejection sampling.

>>> import random
>>> deal_free([3, 1, 2], ([0, 2], [2, 1]), 3, random.Random(4).random)[1]
[]
"""

from math import comb

from core._kernel import shuffled_lists


cdef Py_ssize_t _hyper(Py_ssize_t N, Py_ssize_t K, Py_ssize_t n, object r, dict cache) except -1:
    """How many of n cards drawn from N (K of them marked) are marked."""
    if n == 0 or K == 0:
        return 0
    if K == N:
        return n
    if n == N:
        return K
    key = (N, K, n)
    got = cache.get(key)
    cdef Py_ssize_t lo, k, j
    cdef list cum
    if got is None:
        lo = max(0, n - (N - K))
        total = comb(N, n)
        cum = []
        acc = 0
        for k in range(lo, min(K, n) + 1):
            acc += comb(K, k) * comb(N - K, n - k)
            cum.append(acc / total)
        got = cache[key] = (lo, cum)
    lo = got[0]
    cum = got[1]
    j = bisect_right(cum, r())
    return lo + (j if j < len(cum) else len(cum) - 1)


cdef int _take(list lists, list pos, tuple ids, Py_ssize_t x, object r, dict cache, list out) except -1:
    """Move a uniform random x-subset of the pools ``ids`` (each in random
    order from ``pos`` on) to ``out`` (as lists)."""
    cdef Py_ssize_t p, at, total, a, k
    cdef list lst
    if len(ids) == 1:
        p = ids[0]
        at = pos[p]
        lst = lists[p]
        out.append(lst[at:at + x])
        pos[p] = at + x
        return 0
    total = 0
    for q in ids:
        p = q
        total += len(<list>lists[p]) - <Py_ssize_t>pos[p]
    for q in ids:
        p = q
        lst = lists[p]
        a = len(lst) - <Py_ssize_t>pos[p]
        if not a:
            continue
        k = x if a == total else _hyper(total, a, x, r, cache)
        if k:
            at = pos[p]
            out.append(lst[at:at + k])
            pos[p] = at + k
            x -= k
            if not x:
                return 0
        total -= a
    return 0


cdef int _share(tuple group, list parts, list out, object r, dict cache) except -1:
    """Share a group's cards (lists, each in random order) among its members."""
    cdef list members = group[0], caps = group[1], cards, mine, got, pos
    cdef Py_ssize_t i, at, c
    if len(members) == 1:
        if len(parts) == 1:
            out[members[0]] = parts[0]
        else:
            mine = []
            for p in parts:
                mine += <list>p
            out[members[0]] = mine
        return 0
    if len(parts) == 1:
        cards = parts[0]
        at = 0
        for i in range(len(members)):
            c = caps[i]
            out[members[i]] = cards[at:at + c]
            at += c
        return 0
    pos = [0] * len(parts)
    ids = tuple(range(len(parts)))
    for i in range(len(members)):
        got = []
        _take(parts, pos, ids, caps[i], r, cache, got)
        mine = []
        for p in got:
            mine += <list>p
        out[members[i]] = mine
    return 0


def deal_free(list free0, tuple free, int slots, object r):
    """A deal with no layer to walk: the free cards shuffled (one draw of
    ``r``) and dealt in order to the members of ``free`` (destinations, how
    many each); a list indexed by destination (``slots`` of them)."""
    cdef list out = [[] for _ in range(slots)]
    cdef list cards = shuffled_lists([free0], r())[0]
    cdef list members = free[0], caps = free[1]
    cdef Py_ssize_t i, at = 0, c
    for i in range(len(members)):
        c = caps[i]
        out[members[i]] = cards[at:at + c]
        at += c
    return out


def deal_layers(list pools0, tuple start, list plan, tuple free, int slots, dict hyp, object r):
    """A deal walked through the counted layers ``plan`` (each: the layer's
    table, the merged classes it takes from, their pools, the free pools and
    the group), from the pools ``pools0`` shuffled once (one draw of ``r``)
    and the merged counts ``start``; the free group ``free`` gets what is
    left. A list indexed by destination (``slots`` of them)."""
    cdef list out = [[] for _ in range(slots)]
    cdef list lists = shuffled_lists(pools0, r())
    cdef list pos = [0] * len(lists)
    cdef list cum, opts, got, comp, lst
    cdef tuple takes, free_ids, group, x, entry
    cdef Py_ssize_t j, x0, m, p
    state = start
    for layer in plan:
        memo_i, takes, comp, free_ids, group = layer
        entry = memo_i[state]
        cum = entry[0]
        opts = entry[1]
        if len(cum) > 1:
            j = bisect_right(cum, r())
            x, x0, state = opts[j] if j < len(opts) else opts[len(opts) - 1]
        else:
            x, x0, state = opts[0]
        got = []
        if x0:
            _take(lists, pos, free_ids, x0, r, hyp, got)
        for mm in takes:
            m = mm
            if x[m]:
                _take(lists, pos, comp[m], x[m], r, hyp, got)
        _share(group, got, out, r, hyp)
    got = []
    for p in range(len(lists)):
        lst = lists[p]
        j = pos[p]
        if len(lst) > j:
            got.append(lst[j:] if j else lst)
    _share(free, got, out, r, hyp)
    return out


def sorted_hands(list full, list hands0, tuple ids, object cls):
    """The hands of a deal: ``hands0`` (a list with the viewer's own hand)
    copied, each pile ``full[s]`` of the seats ``ids`` sorted in place and
    set there as a ``cls`` (a tuple type: :class:`core.cards.Cards`)."""
    cdef list hands = list(hands0)
    cdef list h
    new = tuple.__new__
    for s in ids:
        h = full[s]
        h.sort()
        hands[s] = new(cls, h)
    return hands
