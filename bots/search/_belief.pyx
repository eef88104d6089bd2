# cython: language_level=3
"""The burial model's redraw of the maker's hand and the kitty, compiled.

:class:`bots.search.belief.InferredSampler` redraws, for every world it
keeps, which of the maker's cards (hand and kitty together) lie in the
kitty: how many of each kind by a conditional Bernoulli draw, then which
cards of each kind by a partial shuffle. That redraw runs once or more per
sampled world, so it is here; the model (its weights, its count tables,
whether a world agrees with the view) stays in Python.

:class:`Splitter` makes the very draws, in the very order, that the plain
Python version made (``tests/bots/test_belief.py`` checks it world by world):
the same worlds for the same generator.

>>> import random
>>> sp = Splitter([0] * 54, 1)
>>> sp.prepare((1, 2, 3, 4), (5, 6))
((6,), 2)
>>> keep, kitty = sp.split((((1.0,), (0.0, 1.0), (0.0, 0.0, 1.0)),), random.Random(3).random)
>>> sorted(keep + kitty) == [1, 2, 3, 4, 5, 6], len(kitty)
(True, 2)
"""

from libc.math cimport pow
from math import comb
from core._deal cimport bisect_right_tuple
from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE, PyTuple_New, PyTuple_SET_ITEM
from cpython.ref cimport Py_INCREF

cdef enum:
    NF = 54             # card faces
    MAXC = 512          # cards in a hand and the kitty together (far above any deck's)
    MAXK = 16           # kinds of card
    MAXT = 64           # cards the kitty takes by the count draw (far above any kitty's)


def count_table(tuple sizes, tuple theta, int k):
    """The table a conditional Bernoulli draw of ``k`` cards draws its
    counts from, kind by kind, where kind ``i`` has ``sizes[i]`` cards of
    weight ``theta[i]``: ``cum[i][left][c]``, the cumulative odds of counts
    ``0..c`` of kind ``i`` when ``left`` cards are still to take (the exact
    split of the polynomial ``prod (1 + theta_i x) ** sizes_i``; unnormalised:
    :meth:`Splitter.split` scales by a row's last entry).

    Tuples, not lists: tables are kept for the life of a process, and the
    cycle collector stops tracking tuples of floats (thousands of tracked
    lists made its full passes take a tenth of a second and more).

    >>> [[round(x, 6) for x in row] for row in count_table((2, 1), (1.0, 0.5), 1)[0]]
    [[1.0], [0.5, 2.5]]
    """
    cdef Py_ssize_t n = len(sizes), i
    cdef int j, c, size, top, left
    cdef double t, acc
    if len(theta) != n:
        raise ValueError(f"theta: {len(theta)} weights for {n} kinds")
    if not 0 < n <= MAXK:
        raise ValueError(f"sizes: {n} kinds, not 1 to {MAXK}")
    if not 0 <= k <= MAXT:
        raise ValueError(f"k: {k} is not 0 to {MAXT}")
    cdef double term[MAXK][MAXT + 1]        # comb(size, c) * theta ** c
    cdef int tops[MAXK]
    for i in range(n):
        size = sizes[i]
        if size < 0:
            raise ValueError(f"sizes[{i}]: {size} cards")
        t = theta[i]
        top = size if size < k else k
        tops[i] = top
        for c in range(top + 1):
            term[i][c] = <double>float(comb(size, c)) * pow(t, <double>c)
    # suffix[i][j]: the coefficient of x**j in the product over kinds i.. (j <= k), which is
    # also the last entry of row j of kind i: one backward pass makes both
    cdef double suffix[MAXK + 1][MAXT + 1]
    for j in range(k + 1):
        suffix[n][j] = 0.0
    suffix[n][0] = 1.0
    cdef list cum = [None] * n, rows, row
    for i in range(n - 1, -1, -1):
        rows = []
        for left in range(k + 1):
            acc = 0.0
            row = []
            for c in range((tops[i] if tops[i] < left else left) + 1):
                acc = acc + term[i][c] * suffix[i + 1][left - c]
                row.append(acc)
            rows.append(tuple(row))
            suffix[i][left] = acc
        cum[i] = tuple(rows)
    return tuple(cum)


cdef tuple _sorted_tuple(int* count):
    """The faces counted in ``count`` (NF entries), in order, as a tuple of ints."""
    cdef int f, c, n = 0, at = 0
    for f in range(NF):
        n += count[f]
    cdef tuple out = PyTuple_New(n)
    cdef object face
    for f in range(NF):
        c = count[f]
        if c:
            face = f
            while c:
                Py_INCREF(face)
                PyTuple_SET_ITEM(out, at, face)
                at += 1
                c -= 1
    return out


cdef class Splitter:
    """The redraw of one view's maker's split: ``kinds[f]`` is the kind of
    face ``f`` (the index of its weight), or -1 for a face of a suit the
    maker showed void in (forced into the kitty, as it cannot be in the
    hand); ``nkinds`` kinds in all."""

    cdef int kind[NF]
    cdef int nkinds
    cdef int groups[MAXK][MAXC]
    cdef int sizes[MAXK]
    cdef int forced[NF]
    cdef int k
    cdef int ready

    def __init__(self, kinds, int nkinds):
        if len(kinds) != NF:
            raise ValueError(f"kinds: {len(kinds)} faces, not {NF}")
        if not 0 < nkinds <= MAXK:
            raise ValueError(f"nkinds: {nkinds} is not 1 to {MAXK}")
        cdef int f
        for f in range(NF):
            if not -1 <= kinds[f] < nkinds:
                raise ValueError(f"kinds[{f}]: {kinds[f]} is not -1 to {nkinds - 1}")
            self.kind[f] = kinds[f]
        self.nkinds = nkinds
        self.ready = 0

    def prepare(self, object hand, object kitty):
        """Take the maker's ``hand`` and ``kitty`` (faces) as the cards to
        split: returns the cards of each kind and how many of them the kitty
        takes, ``(sizes, k)`` (``k`` below 0: the forced cards alone overfill
        the kitty, and no split is drawn)."""
        cdef int i, f, g, n_forced = 0
        cdef tuple part
        if not isinstance(hand, tuple) or not isinstance(kitty, tuple):
            raise TypeError("prepare() takes the hand and the kitty as tuples of faces (Cards)")
        for g in range(self.nkinds):
            self.sizes[g] = 0
        for f in range(NF):
            self.forced[f] = 0
        if len(hand) + len(kitty) > MAXC:
            raise ValueError(f"{len(hand) + len(kitty)} cards: at most {MAXC}")
        for obj in (hand, kitty):
            part = <tuple>obj
            for i in range(len(part)):
                f = part[i]
                if not 0 <= f < NF:
                    raise ValueError(f"no card face {f}")
                g = self.kind[f]
                if g < 0:
                    self.forced[f] += 1
                    n_forced += 1
                else:
                    self.groups[g][self.sizes[g]] = f
                    self.sizes[g] += 1
        self.k = len(kitty) - n_forced
        self.ready = 1
        return tuple(self.sizes[g] for g in range(self.nkinds)), self.k

    def split(self, tuple cum, object r):
        """One redraw of the prepared cards: ``(keep, kitty)`` as sorted
        tuples of faces, or None when rounding left the count draw short.
        ``cum``: the count table of the prepared ``(sizes, k)``
        (``cum[i][left]`` the cumulative odds of each count of kind ``i``
        with ``left`` cards still to take); ``r``: a uniform draw in [0, 1)."""
        if not self.ready:
            raise ValueError("split() before prepare()")
        cdef int taken[MAXK]
        cdef int i, left = self.k, size, t, j, tmp, f
        cdef Py_ssize_t c, n = self.nkinds
        cdef tuple row
        cdef double top
        if len(cum) != n:
            raise ValueError(f"cum: {len(cum)} kinds, not {n}")
        for i in range(n):
            taken[i] = 0
        for i in range(n):
            if left == 0:
                break
            row = cum[i][left]
            top = PyFloat_AS_DOUBLE(<object>PyTuple_GET_ITEM(row, PyTuple_GET_SIZE(row) - 1))
            c = bisect_right_tuple(row, <double>r() * top)
            if c >= PyTuple_GET_SIZE(row):      # rounding at the very top
                c = PyTuple_GET_SIZE(row) - 1
            if c > self.sizes[i]:
                raise ValueError(f"cum: a count of {c} for {self.sizes[i]} cards")
            taken[i] = <int>c
            left -= <int>c
        if left:
            return None
        cdef int keep_count[NF]
        cdef int kitty_count[NF]
        cdef int g[MAXC]
        for f in range(NF):
            keep_count[f] = 0
            kitty_count[f] = self.forced[f]
        for i in range(n):
            size = self.sizes[i]
            t = taken[i]
            for j in range(size):
                g[j] = self.groups[i][j]
            for j in range(t):                  # the first t of a partial shuffle go to the kitty
                c = j + <int>(<double>r() * (size - j))
                tmp = g[j]
                g[j] = g[c]
                g[c] = tmp
            for j in range(t):
                kitty_count[g[j]] += 1
            for j in range(t, size):
                keep_count[g[j]] += 1
        return _sorted_tuple(keep_count), _sorted_tuple(kitty_count)
