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
from libc.stdlib cimport malloc, free as c_free
from libc.stdint cimport uint64_t
from cpython.list cimport PyList_New, PyList_SET_ITEM, PyList_Sort, PyList_GetSlice, PyList_GET_SIZE
from cpython.ref cimport Py_INCREF

from core._kernel import shuffled_lists
from core._kernel cimport xbelow, xseed, to_counts
from core._play cimport MAXP, PlayCore, PlayS, settle_done
from core.errors import InvalidActionError


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


cdef enum:
    FACES = 64          # the faces :class:`FreeDeal` sorts by counting (a pack has 54)

#: the face objects a sorted pile is built from
cdef tuple _FACE = tuple(range(FACES))


cdef class FreeDeal:
    """:func:`deal_free` for cards that are faces (ints from 0 to 63), with
    every destination's cards sorted: the same shuffle (the same draws of
    ``r``, the same deal) and no sort left to do afterwards; the pool is
    read once, not at every deal.

    >>> import random
    >>> FreeDeal([3, 1, 2], ([0, 2], [2, 1]), 3)(random.Random(4).random)
    [[2, 3], [], [1]]
    >>> deal_free([3, 1, 2], ([0, 2], [2, 1]), 3, random.Random(4).random)
    [[2, 3], [], [1]]
    >>> FreeDeal([99], ([0], [1]), 1)
    Traceback (most recent call last):
    ValueError: FreeDeal: a card is not a face from 0 to 63
    """
    cdef int n
    cdef int* base
    cdef int* work
    cdef int slots
    cdef int nm                     # destinations, with their places as C ints
    cdef int* dest
    cdef int* cap
    cdef int lo, hi                 # the faces of the pool lie in lo..hi - 1

    def __cinit__(self, list free0, tuple free, int slots):
        cdef Py_ssize_t i
        self.n = len(free0)
        self.base = <int*>malloc((self.n + 1) * sizeof(int))
        self.work = <int*>malloc((self.n + 1) * sizeof(int))
        if self.base == NULL or self.work == NULL:
            raise MemoryError()
        for i in range(self.n):
            f = free0[i]
            if type(f) is not int or not 0 <= f < FACES:
                raise ValueError("FreeDeal: a card is not a face from 0 to 63")
            self.base[i] = f
        cdef list members = list(free[0]), caps = list(free[1])
        if sum(caps) != self.n or len(caps) != len(members) or min(caps, default=0) < 0:
            raise ValueError(f"FreeDeal: {sum(caps)} places for {self.n} cards")
        if len(set(members)) != len(members) or not all(0 <= d < slots for d in members):
            raise ValueError(f"FreeDeal: destinations {members} are not distinct ones of {slots}")
        self.slots = slots
        self.nm = len(members)
        self.dest = <int*>malloc((self.nm + 1) * sizeof(int))
        self.cap = <int*>malloc((self.nm + 1) * sizeof(int))
        if self.dest == NULL or self.cap == NULL:
            raise MemoryError()
        for i in range(self.nm):
            self.dest[i] = members[i]
            self.cap[i] = caps[i]
        self.lo = min(free0, default=0)
        self.hi = max(free0, default=-1) + 1

    def __dealloc__(self):
        c_free(self.base)
        c_free(self.work)
        c_free(self.dest)
        c_free(self.cap)

    def __call__(self, object r):
        """One deal: the sorted cards of each destination (a list indexed by it)."""
        cdef uint64_t s = xseed(<double>r())            # as shuffled_lists seeds its shuffle
        cdef int* w = self.work
        cdef int i, j, tmp, at = 0, c, f, k, m
        cdef int count[FACES]
        cdef list out = PyList_New(self.slots), lst
        cdef object face
        for i in range(self.n):
            w[i] = self.base[i]
        for i in range(self.n - 1, 0, -1):          # shuffled_lists' Fisher-Yates, draw for draw
            j = xbelow(&s, i + 1)
            tmp = w[i]
            w[i] = w[j]
            w[j] = tmp
        for m in range(self.nm):
            c = self.cap[m]
            for f in range(self.lo, self.hi):
                count[f] = 0
            for i in range(at, at + c):
                count[w[i]] += 1
            at += c
            lst = PyList_New(c)
            k = 0
            for f in range(self.lo, self.hi):
                if count[f]:
                    face = _FACE[f]
                    for i in range(count[f]):
                        Py_INCREF(face)
                        PyList_SET_ITEM(lst, k, face)
                        k += 1
            Py_INCREF(lst)
            PyList_SET_ITEM(out, self.dest[m], lst)
        for i in range(self.slots):                 # the destinations that get nothing
            if PyList_GET_ITEM(out, i) == NULL:
                lst = []
                Py_INCREF(lst)
                PyList_SET_ITEM(out, i, lst)
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


cdef extern from *:
    """
    /* a tuple of type cls (tuple or a subclass of it, checked by the caller)
       holding a list's items: allocated as the tuple's own constructor does
       for a subtype, without its temporary plain tuple, its Python-level
       call or the subclass's __new__ */
    static PyObject* pengyou_tuple_as(PyObject* cls, PyObject* list) {
        Py_ssize_t i, n = PyList_GET_SIZE(list);
        PyObject* out = ((PyTypeObject*)cls)->tp_alloc((PyTypeObject*)cls, n);
        if (!out) return NULL;
        for (i = 0; i < n; i++) {
            PyObject* item = PyList_GET_ITEM(list, i);
            Py_INCREF(item);
            PyTuple_SET_ITEM(out, i, item);
        }
        return out;
    }
    static int pengyou_is_tuple_type(PyObject* cls) {
        return PyType_Check(cls) && PyType_IsSubtype((PyTypeObject*)cls, &PyTuple_Type);
    }
    """
    object tuple_as "pengyou_tuple_as"(object cls, list items)
    bint is_tuple_type "pengyou_is_tuple_type"(object cls)


def sorted_hands(list full, list hands0, tuple ids, Py_ssize_t pile, object cls):
    """The hands and the rest pile of a deal, as ``(hands, rest)``: ``hands``
    is ``hands0`` (a list with the viewer's own hand) copied, with each pile
    ``full[s]`` of the seats ``ids`` sorted in place and set there as a
    ``cls`` (a tuple type: :class:`core.cards.Cards`); ``rest`` is the pile
    ``full[pile]`` (the kitty's or the stock's) sorted in place, as a ``cls``.

    >>> full = [[5, 1, 5, 0], [], [9, 2], [4, 3]]
    >>> sorted_hands(full, [(), (7,), ()], (0, 2), 3, tuple), full
    (([(0, 1, 5, 5), (7,), (2, 9)], (3, 4)), [[0, 1, 5, 5], [], [2, 9], [3, 4]])
    """
    if not is_tuple_type(cls):
        raise TypeError(f"cls: {cls!r} is not a tuple type")
    cdef list hands = PyList_GetSlice(hands0, 0, PyList_GET_SIZE(hands0))
    cdef list h
    cdef Py_ssize_t s
    for o in ids:
        s = o
        h = full[s]
        PyList_Sort(h)
        hands[s] = tuple_as(cls, h)
    h = full[pile]
    PyList_Sort(h)
    return hands, tuple_as(cls, h)


#: what a hand is called in an error, by seat
_HAND_NAMES = tuple(f"hand {i}" for i in range(MAXP))


def play_with_hands(PlayCore base, hands) -> PlayCore:
    """A copy of the play phase ``base`` holding ``hands`` (in seat order)
    instead: what :meth:`PlayCore.resume` builds from the same arguments with
    these hands (nothing else it reads depends on them), made by one copy, for
    a search that rebuilds one view's play for every sampled world.

    >>> from core import Rules
    >>> from core.cards import SPADES, Trump, parse_cards
    >>> from core.play import PlayCore
    >>> hands = [parse_cards(h) for h in ("AS", "KS", "QS", "JS", "10S")]
    >>> pc = PlayCore.start(Rules.preset("pagat", players=5), Trump(2, SPADES), 0, hands)
    >>> [play_with_hands(pc, hands[1:] + hands[:1]).hand(i) for i in range(2)] == hands[1:3]
    True
    """
    cdef PlayCore pc = base.clone()
    cdef int i, n = base.s.n
    if len(hands) != n:
        raise InvalidActionError(f"expected {n} hands, got {len(hands)}")
    for i in range(n):
        to_counts(hands[i], pc.s.hand[i], base.rules, _HAND_NAMES[i])
        pc.s.held[i] = len(hands[i])
    settle_done(&pc.s)
    return pc


def play_bytes(PlayCore pc) -> bytes:
    """The whole C state of a play phase as bytes (for the tests that compare two ways of building one)."""
    return (<char*> &pc.s)[:sizeof(PlayS)]
