# cython: language_level=3
"""Compiled rules kernel: trump contexts, lead decomposition, follow legality,
random follows, trick winners and throw checks over per-face count arrays.

The exact definitions live in ``docs/kernel.md``; ``core/reference.py`` is the
naive implementation the tests compare this one with. Public names are
re-exported by :mod:`core.kernel`.
"""

from libc.string cimport memset, memcpy
import itertools
import random
from libc.stdint cimport uint8_t, int8_t, uint64_t
from cpython.object cimport PyObject
from cpython.list cimport PyList_GET_SIZE


cdef extern from "Python.h":
    ctypedef struct PyListObject:
        PyObject** ob_item

from .cards import Cards, Trump, Unit, ThrowResult, parse_cards, card_name
from .errors import IllegalActionError, InvalidActionError

cdef enum:
    MAXPLAYS = 16

# ----------------------------------------------------------------------------
# random numbers: xorshift64*, seeded from Python
# ----------------------------------------------------------------------------

cdef uint64_t xrand(uint64_t* s) noexcept nogil:
    cdef uint64_t x = s[0]
    x ^= x >> 12
    x ^= x << 25
    x ^= x >> 27
    s[0] = x
    return x * <uint64_t>2685821657736338717ULL

cdef uint64_t seed_from(object rng) except? 0:
    """A nonzero 64-bit seed drawn from ``rng`` (random.Random, numpy Generator or int)."""
    cdef uint64_t v
    if rng is None:
        raise InvalidActionError("rng: pass a random.Random, a numpy Generator or an int seed")
    if isinstance(rng, int):
        v = <uint64_t>((rng * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF)
    elif hasattr(rng, "getrandbits"):
        v = <uint64_t>rng.getrandbits(64)
    elif hasattr(rng, "integers"):
        v = <uint64_t>int(rng.integers(0, 2**63))
    else:
        raise InvalidActionError(f"rng: cannot draw from {type(rng).__name__}")
    return v if v != 0 else <uint64_t>0x9E3779B97F4A7C15ULL

# ----------------------------------------------------------------------------
# trump context
# ----------------------------------------------------------------------------

cdef class TrumpContext:
    """Effective suit, order level and tractor eligibility of every face."""

    def __init__(self, trump, bint past_ace=False, int min_width=2, int min_length=2):
        cdef int r, s, face, fr, fs, es, lv, e, t, i
        if min_width < 2 or min_length < 2:
            raise InvalidActionError(f"a tractor needs sets of two or more, two or more of them, "
                                     f"not {min_width} and {min_length}")
        rank, suit = trump
        if rank is not None and not (isinstance(rank, int) and 2 <= rank <= 14):
            raise InvalidActionError(f"trump rank {rank!r} is not a rank from 2 to 14 or None")
        if suit is not None and not (isinstance(suit, int) and 0 <= suit <= 3):
            raise InvalidActionError(f"trump suit {suit!r} is not a suit from 0 to 3 or None")
        self.trump = Trump(rank, suit)
        self.past_ace = past_ace
        r = -1 if rank is None else rank
        s = -1 if suit is None else suit
        memset(&self.c, 0, sizeof(Ctx))
        self.min_width = min_width
        self.min_length = min_length
        self.c.tk = min_width
        self.c.tl = min_length
        for face in range(NF):
            if face >= 52:
                es = 4
                lv = 14 if face == 52 else 15
                self.c.elig[face] = past_ace
            else:
                fr = face % 13 + 2
                fs = face // 13
                if r != -1 and fr == r:
                    es = 4
                    lv = 13 if (s == -1 or fs == s) else 12
                    self.c.elig[face] = past_ace
                else:
                    es = 4 if fs == s else fs
                    lv = fr - 2 - (1 if (r != -1 and fr > r) else 0)
                    self.c.elig[face] = 1
            self.c.esuit[face] = es
            self.c.lvl[face] = lv
            i = self.c.nlf[es][lv]
            self.c.lf[es][lv][i] = face
            self.c.nlf[es][lv] = i + 1
        for e in range(NSUIT):
            for t in range(NLVL):
                for i in range(self.c.nlf[e][t]):
                    self.c.sf[e][self.c.nsf[e]] = self.c.lf[e][t][i]
                    self.c.nsf[e] += 1

    def level(self, int face):
        """Order level of a face inside its effective suit."""
        _check_face(face)
        return self.c.lvl[face]

    def effective_suit(self, int face):
        """0..3 for a plain suit, 4 for trumps."""
        _check_face(face)
        return self.c.esuit[face]

    def is_trump(self, int face):
        """True when the face belongs to the trump suit."""
        _check_face(face)
        return self.c.esuit[face] == 4

    def __repr__(self):
        return (f"TrumpContext({self.trump!r}, past_ace={self.past_ace}, min_width={self.min_width}, "
                f"min_length={self.min_length})")


cdef dict _CTX_CACHE = {}


cdef object _NO_TRUMP_YET = object()
cdef object _last_trump = _NO_TRUMP_YET
cdef bint _last_pa = False
cdef int _last_tk = 2
cdef int _last_tl = 2
cdef TrumpContext _last_ctx = None


cdef TrumpContext ctx_of(object trump, bint past_ace, int tk=2, int tl=2):
    global _last_trump, _last_pa, _last_tk, _last_tl, _last_ctx
    if trump is _last_trump and past_ace == _last_pa and tk == _last_tk and tl == _last_tl:
        return _last_ctx
    if not isinstance(trump, tuple) or len(trump) != 2:
        raise InvalidActionError(f"trump {trump!r} is not a (rank, suit) pair")
    key = (trump[0], trump[1], past_ace, tk, tl)
    ctx = _CTX_CACHE.get(key)
    if ctx is None:
        ctx = TrumpContext(trump, past_ace, tk, tl)
        _CTX_CACHE[key] = ctx
    _last_trump = trump
    _last_pa = past_ace
    _last_tk = tk
    _last_tl = tl
    _last_ctx = ctx
    return ctx


def context(trump, bint past_ace=False, int min_width=2, int min_length=2) -> TrumpContext:
    """The cached :class:`TrumpContext` of a trump rank and suit (and the
    tractor requirements, ``rules.tractor_min_width`` and ``tractor_min_length``)."""
    return ctx_of(trump, past_ace, min_width, min_length)


def _check_face(face):
    if not 0 <= face < NF:
        raise InvalidActionError(f"no card face {face!r}: faces are 0..53")

# ----------------------------------------------------------------------------
# small helpers over count arrays
# ----------------------------------------------------------------------------

cdef int suit_total(const Ctx* c, const cnt_t* cnt, int e) noexcept nogil:
    cdef int i, t = 0
    for i in range(c.nsf[e]):
        t += cnt[c.sf[e][i]]
    return t

cdef inline int best_face(const Ctx* c, const cnt_t* cnt, int e, int t, int k) noexcept nogil:
    """Highest face on level t of suit e held at least k times, or -1."""
    cdef int i, f, b = -1
    if t < 0 or t >= NLVL:
        return -1
    for i in range(c.nlf[e][t]):
        f = c.lf[e][t][i]
        if cnt[f] >= k and f > b:
            b = f
    return b

cdef inline int key_gt(int k1, int L1, int t1, int k2, int L2, int t2) noexcept nogil:
    if k1 * L1 != k2 * L2:
        return k1 * L1 > k2 * L2
    if (L1 >= 2) != (L2 >= 2):
        return L1 >= 2
    if k1 != k2:
        return k1 > k2
    return t1 > t2

cdef int c_decompose(const Ctx* c, cnt_t* cnt, CLead* out) noexcept nogil:
    """Greedy canonical decomposition of the cards of out.esuit in cnt (consumed)."""
    cdef int e = out.esuit
    cdef int total = suit_total(c, cnt, e)
    cdef int k, t, f, g, L, i, bk, bL, bt
    cdef int8_t bf[MAXLEN]
    cdef int8_t cf[MAXLEN]
    cdef int occ[NLVL]
    cdef int nocc, maxc, j, x
    out.nu = 0
    while total > 0:
        bk = 0
        bL = 0
        bt = -1
        # occupied levels (descending) and the largest count present
        nocc = 0
        maxc = 0
        for t in range(NLVL - 1, -1, -1):
            x = 0
            for j in range(c.nlf[e][t]):
                if cnt[c.lf[e][t][j]] > x:
                    x = cnt[c.lf[e][t][j]]
            if x:
                occ[nocc] = t
                nocc += 1
                if x > maxc:
                    maxc = x
        for k in range(1, maxc + 1):
            for j in range(nocc):
                t = occ[j]
                f = best_face(c, cnt, e, t, k)
                if f < 0:
                    continue
                cf[0] = f
                L = 1
                if k >= c.tk and c.elig[f]:
                    while L < MAXLEN:
                        g = best_face(c, cnt, e, t - L, k)
                        if g < 0 or not c.elig[g]:
                            break
                        cf[L] = g
                        L += 1
                    if L < c.tl:
                        L = 1           # too short for a tractor: the set alone
                if bk == 0 or key_gt(k, L, t, bk, bL, bt):
                    bk = k
                    bL = L
                    bt = t
                    memcpy(bf, cf, L)
        if bk == 0 or out.nu >= MAXU:
            return -1
        out.u[out.nu].k = bk
        out.u[out.nu].L = bL
        out.u[out.nu].top = bt
        memcpy(out.u[out.nu].faces, bf, bL)
        out.nu += 1
        for i in range(bL):
            cnt[bf[i]] -= bk
        total -= bk * bL
    return 0

# ----------------------------------------------------------------------------
# run placements: all ways to put a (k, L) component with top level t
# ----------------------------------------------------------------------------

cdef struct RunOpts:
    int n                   # number of combinations (0: impossible)
    int L
    int8_t opt[MAXLEN][4]
    int8_t nopt[MAXLEN]

cdef inline int run_options(const Ctx* c, const cnt_t* cnt, const cnt_t* restr, int e,
                            int t, int L, int k, RunOpts* ro) noexcept nogil:
    """Fill ro with the faces that can stand on each level of the run."""
    cdef int i, j, f, lv, m
    ro.n = 1
    ro.L = L
    if t - L + 1 < 0:
        ro.n = 0
        return 0
    for i in range(L):
        lv = t - i
        m = 0
        for j in range(c.nlf[e][lv]):
            f = c.lf[e][lv][j]
            if cnt[f] < k:
                continue
            if L >= 2 and not c.elig[f]:
                continue
            if restr != NULL and restr[f] != k:
                continue
            ro.opt[i][m] = f
            m += 1
        ro.nopt[i] = m
        ro.n *= m
        if m == 0:
            ro.n = 0
            return 0
    return ro.n

cdef inline void run_pick(const RunOpts* ro, int combo, int8_t* faces) noexcept nogil:
    cdef int i
    for i in range(ro.L):
        faces[i] = ro.opt[i][combo % ro.nopt[i]]
        combo //= ro.nopt[i]

# ----------------------------------------------------------------------------
# follow obligations
# ----------------------------------------------------------------------------

cdef enum:
    MAXCLS = 160

cdef struct Match:
    const Ctx* c
    int e
    int ncls
    int ck[MAXCLS]
    int cl[MAXCLS]
    int nu
    int uk[MAXU]
    int uL[MAXU]
    int cap[MAXU]
    int cards                     # room counted in cards (ladder=cards), else in levels
    int free_short                # a unit takes no tractor shorter than itself
    int exact                     # the default rule: a unit takes sets of its own width only
    const cnt_t* restr
    cnt_t cnt[NF]
    int cur[MAXCLS]
    int best[MAXCLS]
    int has_best
    # placements made on the current path and at the best leaf
    int depth
    int8_t pf[64]
    int8_t pk[64]
    int bdepth
    int8_t bpf[64]
    int8_t bpk[64]

cdef inline int lex_cmp(const int* a, const int* b, int n) noexcept nogil:
    cdef int i
    for i in range(n):
        if a[i] != b[i]:
            return 1 if a[i] > b[i] else -1
    return 0

cdef void ladder_classes(const CLead* lead, Match* m, Flags fl) noexcept nogil:
    """Component shapes in priority order. ``subset``: widths 2..K and lengths up
    to the longest led unit, tractors before sets, bigger first, wider first.
    ``cards``: every width 2..K and length whose cards fit the roomiest led
    unit, more cards first, wider first. No tractor shapes when a throw owes
    none (tractor_owed=lone), nor any below the tractor requirements. Without
    follow_ladder (the default rule, read here with more than four packs):
    one set shape per led width, widest first."""
    cdef int K = 0, Lm = 0, room = 0, i, k, l, j, tk, tl, lmax
    for i in range(lead.nu):
        if lead.u[i].k >= 2:
            if lead.u[i].k > K:
                K = lead.u[i].k
            if lead.u[i].L > Lm:
                Lm = lead.u[i].L
            if lead.u[i].k * lead.u[i].L > room:
                room = lead.u[i].k * lead.u[i].L
    m.ncls = 0
    if not fl.ladder:
        # the default rule (used here with more than four packs): sets of
        # exactly each led width, widest first
        for k in range(K, 1, -1):
            for i in range(lead.nu):
                if lead.u[i].k == k:
                    m.ck[m.ncls] = k
                    m.cl[m.ncls] = 1
                    m.ncls += 1
                    break
        return
    for k in range(2, K + 1):
        lmax = room // k if fl.cards else Lm
        if lmax > MAXLEN:
            lmax = MAXLEN
        if fl.lone and lead.nu >= 2:
            lmax = 1
        for l in range(1, lmax + 1):
            if l >= 2 and (k < m.c.tk or l < m.c.tl):
                continue                # no tractor of this shape exists
            if m.ncls < MAXCLS:
                m.ck[m.ncls] = k
                m.cl[m.ncls] = l
                m.ncls += 1
    # insertion sort, highest priority first
    for i in range(1, m.ncls):
        tk = m.ck[i]
        tl = m.cl[i]
        j = i - 1
        while j >= 0 and _cls_lt(m.ck[j], m.cl[j], tk, tl, fl.cards):
            m.ck[j + 1] = m.ck[j]
            m.cl[j + 1] = m.cl[j]
            j -= 1
        m.ck[j + 1] = tk
        m.cl[j + 1] = tl

cdef inline int _cls_lt(int k1, int l1, int k2, int l2, int cards) noexcept nogil:
    """Is shape (k1, l1) of lower priority than (k2, l2)? ``subset``: by
    (l >= 2, k*l, k); ``cards``: by (k*l, k)."""
    if not cards and (l1 >= 2) != (l2 >= 2):
        return l2 >= 2
    if k1 * l1 != k2 * l2:
        return k1 * l1 < k2 * l2
    return k1 < k2

cdef inline int unit_takes(const Match* m, int u, int k, int l) noexcept nogil:
    """Can lead unit u take a (k, l) component? Units equal to an earlier one
    (same width, same room left, and with free_short the same length) are
    skipped: trying one of them is enough."""
    cdef int v
    if m.uk[u] < k or m.cap[u] < (k * l if m.cards else l) or m.depth + l > 64:
        return 0
    if m.exact and m.uk[u] != k:
        return 0
    if m.free_short and l >= 2 and l < m.uL[u]:
        return 0
    for v in range(u):
        if m.uk[v] == m.uk[u] and m.cap[v] == m.cap[u] and (not m.free_short or m.uL[v] == m.uL[u]):
            return 0
    return 1


cdef void match_dfs(Match* m, int ci, int pos) noexcept nogil:
    cdef int k, l, p, f, u, t, combo, i, cost
    cdef RunOpts ro
    cdef int8_t faces[MAXLEN]
    if ci == m.ncls:
        if not m.has_best or lex_cmp(m.cur, m.best, m.ncls) > 0:
            memcpy(m.best, m.cur, m.ncls * sizeof(int))
            m.has_best = 1
            m.bdepth = m.depth
            memcpy(m.bpf, m.pf, m.depth)
            memcpy(m.bpk, m.pk, m.depth)
        return
    if pos == 0 and m.has_best and ci > 0 and lex_cmp(m.cur, m.best, ci) < 0:
        return
    k = m.ck[ci]
    l = m.cl[ci]
    cost = k * l if m.cards else l
    if l == 1:
        for p in range(pos, m.c.nsf[m.e]):
            f = m.c.sf[m.e][p]
            if m.cnt[f] < k:
                continue
            if m.restr != NULL and m.restr[f] != k:
                continue
            for u in range(m.nu):
                if not unit_takes(m, u, k, 1):
                    continue
                m.cnt[f] -= k
                m.cap[u] -= cost
                m.cur[ci] += 1
                m.pf[m.depth] = f
                m.pk[m.depth] = k
                m.depth += 1
                match_dfs(m, ci, p)
                m.depth -= 1
                m.cur[ci] -= 1
                m.cap[u] += cost
                m.cnt[f] += k
    else:
        for t in range(pos, NLVL):
            if run_options(m.c, m.cnt, m.restr, m.e, t, l, k, &ro) == 0:
                continue
            for combo in range(ro.n):
                run_pick(&ro, combo, faces)
                for u in range(m.nu):
                    if not unit_takes(m, u, k, l):
                        continue
                    for i in range(l):
                        m.cnt[faces[i]] -= k
                        m.pf[m.depth + i] = faces[i]
                        m.pk[m.depth + i] = k
                    m.depth += l
                    m.cap[u] -= cost
                    m.cur[ci] += 1
                    match_dfs(m, ci, t)
                    m.cur[ci] -= 1
                    m.cap[u] += cost
                    m.depth -= l
                    for i in range(l):
                        m.cnt[faces[i]] += k
    match_dfs(m, ci + 1, 0)

cdef void ladder_value(const Ctx* c, const cnt_t* cnt, const cnt_t* restr, const CLead* lead,
                       Flags fl, Match* m) noexcept nogil:
    """Lexicographically best matching under follow_ladder (value in m.best).
    ``restr``: only faces held exactly as many times there as the component's width."""
    cdef int i
    m.c = c
    m.e = lead.esuit
    ladder_classes(lead, m, fl)
    m.cards = fl.cards
    m.free_short = fl.free_short
    m.exact = not fl.ladder
    m.nu = 0
    for i in range(lead.nu):
        if lead.u[i].k >= 2:
            m.uk[m.nu] = lead.u[i].k
            m.uL[m.nu] = lead.u[i].L
            m.cap[m.nu] = lead.u[i].k * lead.u[i].L if fl.cards else lead.u[i].L
            m.nu += 1
    m.restr = restr
    memcpy(m.cnt, cnt, NF)
    memset(m.cur, 0, sizeof(m.cur))
    memset(m.best, 0, sizeof(m.best))
    m.has_best = 0
    m.depth = 0
    m.bdepth = 0
    match_dfs(m, 0, 0)

cdef void demand(const CLead* lead, int* d) noexcept nogil:
    """d[k] = number of sets of width k the lead asks for (default rule)."""
    cdef int i
    for i in range(5):
        d[i] = 0
    for i in range(lead.nu):
        if lead.u[i].k >= 2:
            d[lead.u[i].k] += lead.u[i].L

cdef void greedy_value(const Ctx* c, const cnt_t* cnt, const cnt_t* restr, const CLead* lead,
                       int* vec) noexcept nogil:
    """Default-rule value (sets of width 4, 3, 2 matched) of the suit cards in
    cnt; with ``restr``, only sets of faces held exactly their width's number
    of times there. A closed form for at most four copies of a face: with
    more packs (``Flags.wide``) the matcher reads the rule instead."""
    cdef int d[5]
    cdef int e = lead.esuit
    cdef int i, f, n4 = 0, n3 = 0, n3b = 0, n2 = 0, m4, m3, use3, x
    cdef int have[5]
    demand(lead, d)
    if restr != NULL:
        for i in range(5):
            have[i] = 0
        for i in range(c.nsf[e]):
            f = c.sf[e][i]
            x = restr[f]
            if 2 <= x <= 4 and cnt[f] >= x:
                have[x] += 1
        vec[0] = d[4] if d[4] < have[4] else have[4]
        vec[1] = d[3] if d[3] < have[3] else have[3]
        vec[2] = d[2] if d[2] < have[2] else have[2]
        return
    # faces by count class
    for i in range(c.nsf[e]):
        x = cnt[c.sf[e][i]]
        if x >= 4:
            n4 += 1
        elif x == 3:
            n3 += 1
        elif x == 2:
            n2 += 1
    m4 = d[4] if d[4] < n4 else n4
    n4 -= m4
    # width 3: faces of 3 first (leave nothing), then faces of 4 (leave a single)
    m3 = 0
    use3 = d[3] if d[3] < n3 else n3
    m3 += use3
    n3 -= use3
    x = d[3] - use3
    if x > n4:
        x = n4
    m3 += x
    n4 -= x
    # width 2: every remaining face gives count // 2 pairs
    x = n2 + n3 + 2 * n4
    vec[0] = m4
    vec[1] = m3
    vec[2] = d[2] if d[2] < x else x

cdef int c_bomb_face(const cnt_t* play, int n) noexcept nogil:
    """``bombs``: the face of a bomb, a play of 4 or more copies of one face
    (``n`` cards, the lead's count), or -1. The one owner of what a bomb is."""
    cdef int f, g
    if n < 4:
        return -1
    for f in range(NF):
        if play[f]:
            if play[f] != n:
                return -1
            for g in range(f + 1, NF):
                if play[g]:
                    return -1
            return f
    return -1

cdef inline int bomb_allowed(const Ctx* c, const cnt_t* play, int n, int e, int hs, int bombs) noexcept nogil:
    """Is ``play`` a bomb that ``bombs`` lets a seat holding ``hs`` cards of
    the led suit ``e`` play whatever the follow rules say? ``any_suit`` (1):
    every bomb; ``follow_suit`` (2): a bomb of the led suit or of trumps, or
    any bomb from a seat void in the led suit. The one owner of the rule."""
    cdef int f = c_bomb_face(play, n)
    if f < 0:
        return 0
    return bombs == 1 or c.esuit[f] == e or c.esuit[f] == 4 or hs == 0

cdef int c_follow_ok(const Ctx* c, const cnt_t* hand, const cnt_t* play,
                     const CLead* lead, Flags fl) noexcept nogil:
    """Is ``play`` a legal follow to ``lead`` from ``hand``? (docs/kernel.md, Following)"""
    cdef int f, tot = 0, hs, ps, e = lead.esuit, n = lead.n
    cdef int gv[3]
    cdef int pv[3]
    for f in range(NF):
        if play[f] > hand[f]:
            return 0
        tot += play[f]
    if tot != n:
        return 0
    if e == RAINBOW:
        return rainbow_follow_ok(hand, play, lead)
    hs = suit_total(c, hand, e)
    if fl.bombs and bomb_allowed(c, play, n, e, hs, fl.bombs):
        return 1
    ps = suit_total(c, play, e)
    if hs <= n:
        return ps == hs
    if ps != n:
        return 0
    if fl.count:
        return 1
    if fl.decompose:
        return decompose_ok(c, hand, play, lead)
    if not fl.ladder and not fl.wide:
        greedy_value(c, hand, hand if fl.protect else NULL, lead, gv)
        greedy_value(c, play, hand if fl.genuine else NULL, lead, pv)
        return lex_cmp(pv, gv, 3) >= 0
    return ladder_ok(c, hand, play, lead, fl)

cdef int ladder_ok(const Ctx* c, const cnt_t* hand, const cnt_t* play, const CLead* lead,
                   Flags fl) noexcept nogil:
    cdef Match a
    cdef Match b
    ladder_value(c, hand, hand if fl.protect else NULL, lead, fl, &a)
    ladder_value(c, play, hand if fl.genuine else NULL, lead, fl, &b)
    return lex_cmp(b.best, a.best, a.ncls) >= 0

# ----------------------------------------------------------------------------
# ladder=decompose: rbtying/shengji's weakening order (docs/kernel.md, Following).
# Python-level (called with the GIL) since only this value reads it; the
# orders are cached per card count and per lead shape.
# ----------------------------------------------------------------------------

_RUNS_CACHE = {}
_GROUPINGS_CACHE = {}
_SEQ_CACHE = {}


def _decreasing_partitions(n, most=None):
    """Partitions of n as non-increasing tuples, in decreasing lexicographic order."""
    if most is None:
        most = n
    if n == 0:
        return [()]
    out = []
    for p in range(min(n, most), 0, -1):
        for rest in _decreasing_partitions(n - p, p):
            out.append((p,) + rest)
    return out


def _run_splits(m):
    """The ways of cutting set indices 0..m-1 into runs (lists of indices), in
    the order of docs/kernel.md: each index joins an earlier run or opens a
    new last one; then longest run first, then fewer runs (stable)."""
    hit = _RUNS_CACHE.get(m)
    if hit is not None:
        return hit
    if m == 1:
        res = [((0,),)]
    else:
        res = []
        for split in _run_splits(m - 1):
            for i in range(len(split)):
                res.append(split[:i] + (split[i] + (m - 1,),) + split[i + 1:])
            res.append(split + ((m - 1,),))
        res.sort(key=lambda s: (-max(len(r) for r in s), len(s)))
        dedup = []
        for s in res:
            if not dedup or dedup[len(dedup) - 1] != s:
                dedup.append(s)
        res = dedup
    _RUNS_CACHE[m] = res
    return res


def _first_seen(items):
    seen = set()
    out = []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def _orders_of_run(run):
    return _first_seen(itertools.permutations(run))


def _groupings(n):
    """Every way to weaken n cards into groups (docs/kernel.md): a tuple of
    groups, each a tuple of set widths on adjacent levels, lowest level first."""
    hit = _GROUPINGS_CACHE.get(n)
    if hit is not None:
        return hit
    out = []
    for part in _decreasing_partitions(n):
        wide = [p for p in part if p > 1]
        ones = [(1,)] * (len(part) - len(wide))
        if not wide:
            out.append(tuple(ones))
            continue
        runs = []
        for split in _run_splits(len(wide)):
            vals = [tuple(wide[i] for i in r) for r in split]
            if all(len(set(v)) == 1 for v in vals):
                runs.append(tuple(vals))
            else:
                runs.extend(itertools.product(*[_orders_of_run(v) for v in vals]))
        for g in _first_seen(runs):
            out.append(tuple(sorted(list(g) + ones, reverse=True)))
    res = _first_seen(out)
    _GROUPINGS_CACHE[n] = res
    return res


def weakening_order(shapes):
    """The requirements a lead of unit ``shapes`` ((width, length) pairs) owes
    under ``ladder=decompose``, strongest first: the lead's own groups, then
    each step of the weakening order (docs/kernel.md, Following)."""
    shapes = tuple(shapes)
    hit = _SEQ_CACHE.get(shapes)
    if hit is not None:
        return hit
    units = [(k,) * L for k, L in sorted(shapes, key=lambda s: (-s[0] * s[1], -s[0]))]
    steps = []
    for u in units:
        allg = _groupings(sum(u))
        try:
            at = allg.index((u,))
            steps.append(allg[at + 1:])
        except ValueError:
            steps.append([])
    cur = [(u,) for u in units]
    used = [0] * len(units)
    order = list(range(len(units)))
    seq = [tuple(sorted(units, reverse=True))]
    while True:
        order.sort(key=lambda i: -(len(steps[i]) - used[i]))
        i = order[0]
        if used[i] == len(steps[i]):
            break
        cur[i] = steps[i][used[i]]
        used[i] += 1
        seq.append(tuple(sorted([g for j in order for g in cur[j]], reverse=True)))
    if len(_SEQ_CACHE) > 4096:
        _SEQ_CACHE.clear()
    _SEQ_CACHE[shapes] = seq
    return seq


cdef list _group_spots(const Ctx* c, list cnt, int e, tuple group):
    """Every placement of ``group`` on the free counts: a list of faces, one
    per set, on adjacent levels going up (any face for a single set)."""
    cdef int m = len(group), t, i, j, f, lv
    out = []
    if m == 1:
        for j in range(c.nsf[e]):
            f = c.sf[e][j]
            if cnt[f] >= group[0]:
                out.append((f,))
        return out
    for t in range(NLVL - m + 1):
        opts = []
        for i in range(m):
            lv = t + i
            here = [c.lf[e][lv][j] for j in range(c.nlf[e][lv])
                    if c.elig[c.lf[e][lv][j]] and cnt[c.lf[e][lv][j]] >= group[i]]
            if not here:
                break
            opts.append(here)
        else:
            out.extend(itertools.product(*opts))
    return out


cdef object _meet(const Ctx* c, list cnt, int e, tuple req, int gi, tuple low, object rng):
    """A placement (list of (face, width)) of req[gi:] on cnt, or None.
    Equal groups in a row take placements in non-decreasing face order."""
    if gi == len(req):
        return []
    group = req[gi]
    spots = _group_spots(c, cnt, e, group)
    if rng is not None:
        rng.shuffle(spots)
    for spot in spots:
        if spot < low:
            continue
        for f, w in zip(spot, group):
            cnt[f] -= w
        nxt = spot if gi + 1 < len(req) and req[gi + 1] == group and rng is None else ()
        rest = _meet(c, cnt, e, req, gi + 1, nxt, rng)
        for f, w in zip(spot, group):
            cnt[f] += w
        if rest is not None:
            return list(zip(spot, group)) + rest
    return None


cdef list _lead_shapes(const CLead* lead):
    return [(lead.u[i].k, lead.u[i].L) for i in range(lead.nu)]


cdef int decompose_ok(const Ctx* c, const cnt_t* hand, const cnt_t* play, const CLead* lead) noexcept with gil:
    """ladder=decompose: the play meets the first requirement of the weakening
    order that the led-suit holding meets (or the holding meets none)."""
    cdef int e = lead.esuit, f
    hc = [hand[f] if c.esuit[f] == e else 0 for f in range(NF)]
    pc = [play[f] for f in range(NF)]
    for req in weakening_order(_lead_shapes(lead)):
        if _meet(c, pc, e, req, 0, (), None) is not None:
            return 1
        if _meet(c, hc, e, req, 0, (), None) is not None:
            return 0
    return 1


cdef int decompose_pick(const Ctx* c, const cnt_t* hand, const CLead* lead, uint64_t seed,
                        cnt_t* out) noexcept with gil:
    """Put into ``out`` a random placement of the requirement the led-suit
    holding owes under ladder=decompose; the cards placed."""
    cdef int e = lead.esuit, f, used = 0
    hc = [hand[f] if c.esuit[f] == e else 0 for f in range(NF)]
    rng = random.Random(seed)
    for req in weakening_order(_lead_shapes(lead)):
        got = _meet(c, hc, e, req, 0, (), rng)
        if got is not None:
            for f, w in got:
                out[f] += w
                used += w
            return used
    return 0


# ----------------------------------------------------------------------------
# random legal follow (no enumeration)
# ----------------------------------------------------------------------------

cdef int fill_random(const Ctx* c, const cnt_t* src, cnt_t* out, int need, int e,
                     uint64_t* rng) noexcept nogil:
    """Add `need` random card copies of src minus out (suit e, or all if e < 0)."""
    cdef int8_t pool[256]
    cdef int np = 0, f, i, j, left
    cdef int8_t tmp
    cdef uint64_t m
    if need <= 0:
        return 0 if need == 0 else -1
    if e >= 0:
        for j in range(c.nsf[e]):
            f = c.sf[e][j]
            left = src[f] - out[f]
            for i in range(left):
                pool[np] = f
                np += 1
    else:
        m = held_faces(src)
        while m:
            f = low_bit(m)
            m &= m - 1
            left = src[f] - out[f]
            for i in range(left):
                if np < 256:
                    pool[np] = f
                    np += 1
    if need > np:
        return -1
    for i in range(need):
        j = i + xbelow(rng, np - i)
        tmp = pool[i]
        pool[i] = pool[j]
        pool[j] = tmp
        out[pool[i]] += 1
    return 0


cdef inline int take_sets(const int8_t* cand, int ncand, int width, int want, cnt_t* out,
                          cnt_t* left) noexcept nogil:
    """Move sets of ``width`` from the first ``want`` candidates into out; cards moved."""
    cdef int i, used = 0
    for i in range(ncand):
        if want <= 0:
            break
        out[cand[i]] += width
        left[cand[i]] -= width
        used += width
        want -= 1
    return used


cdef void shuffle_faces(int8_t* a, int n, uint64_t* rng) noexcept nogil:
    cdef int i, j
    cdef int8_t tmp
    for i in range(n - 1, 0, -1):
        j = xbelow(rng, i + 1)
        tmp = a[i]
        a[i] = a[j]
        a[j] = tmp

cdef int c_random_follow(const Ctx* c, const cnt_t* hand, const CLead* lead,
                         Flags fl, uint64_t* rng, cnt_t* out) noexcept nogil:
    cdef int e = lead.esuit, n = lead.n, hs, f, i, used = 0, x, want
    cdef int d[5]
    cdef int8_t c4[NF]
    cdef int8_t c3[NF]
    cdef int8_t slots[NF * 2]
    cdef int n4 = 0, n3 = 0, ns = 0
    cdef cnt_t left[NF]
    cdef Match m
    memset(out, 0, NF)
    if e == RAINBOW:
        if rainbow_random_follow(hand, lead, rng, out):
            return 0
        return fill_random(c, hand, out, n, -1, rng)
    hs = suit_total(c, hand, e)
    if fl.bombs and n >= 4:
        # bombs: each bomb the hand may play is drawn as often as a follow of the rules'
        for f in range(NF):
            if hand[f] >= n and (fl.bombs == 1 or c.esuit[f] == e or c.esuit[f] == 4 or hs == 0):
                c4[n4] = f
                n4 += 1
        if n4:
            x = xbelow(rng, n4 + 1)
            if x < n4:
                out[c4[x]] = n
                return 0
            n4 = 0
    if hs <= n:
        for i in range(c.nsf[e]):
            f = c.sf[e][i]
            out[f] = hand[f]
        return fill_random(c, hand, out, n - hs, -1, rng)
    if fl.count:
        return fill_random(c, hand, out, n, e, rng)
    if fl.decompose:
        used = decompose_pick(c, hand, lead, xrand(rng), out)
        return fill_random(c, hand, out, n - used, e, rng)
    if fl.ladder or fl.wide:
        ladder_value(c, hand, hand if fl.protect else NULL, lead, fl, &m)
        for i in range(m.bdepth):
            out[m.bpf[i]] += m.bpk[i]
            used += m.bpk[i]
        return fill_random(c, hand, out, n - used, e, rng)
    demand(lead, d)
    if d[2] == 0 and d[3] == 0 and d[4] == 0:
        return fill_random(c, hand, out, n, e, rng)
    memcpy(left, hand, NF)
    # width 4
    for i in range(c.nsf[e]):
        f = c.sf[e][i]
        if left[f] == 4 or (left[f] > 4 and not fl.protect):
            c4[n4] = f
            n4 += 1
    shuffle_faces(c4, n4, rng)
    used += take_sets(c4, n4, 4, d[4], out, left)
    # width 3: exact triples first, then (unprotected) faces of four
    n3 = 0
    for i in range(c.nsf[e]):
        f = c.sf[e][i]
        if left[f] == 3 and hand[f] == 3:
            c3[n3] = f
            n3 += 1
    shuffle_faces(c3, n3, rng)
    if not fl.protect:
        n4 = 0
        for i in range(c.nsf[e]):
            f = c.sf[e][i]
            if left[f] >= 4:
                c4[n4] = f
                n4 += 1
        shuffle_faces(c4, n4, rng)
        for i in range(n4):
            c3[n3] = c4[i]
            n3 += 1
    used += take_sets(c3, n3, 3, d[3], out, left)
    # width 2: pair slots
    for i in range(c.nsf[e]):
        f = c.sf[e][i]
        if fl.protect:
            if hand[f] == 2 and left[f] == 2:
                slots[ns] = f
                ns += 1
        else:
            x = left[f] // 2
            while x > 0:
                slots[ns] = f
                ns += 1
                x -= 1
    shuffle_faces(slots, ns, rng)
    used += take_sets(slots, ns, 2, d[2], out, left)
    return fill_random(c, hand, out, n - used, e, rng)

# ----------------------------------------------------------------------------
# trick winner
# ----------------------------------------------------------------------------

cdef int first_fit(const Ctx* c, cnt_t* cnt, int es, const CLead* lead, int i) noexcept nogil:
    """The highest top level at which lead unit i can stand in cnt with units
    i+1.. still placeable after it, or -1."""
    cdef int k = lead.u[i].k, L = lead.u[i].L, t, combo, j, ok
    cdef RunOpts ro
    cdef int8_t faces[MAXLEN]
    for t in range(NLVL - 1, -1, -1):
        if run_options(c, cnt, NULL, es, t, L, k, &ro) == 0:
            continue
        for combo in range(ro.n):
            run_pick(&ro, combo, faces)
            for j in range(L):
                cnt[faces[j]] -= k
            ok = place_rest(c, cnt, es, lead, i + 1)
            for j in range(L):
                cnt[faces[j]] += k
            if ok:
                return t
    return -1


cdef int place_rest(const Ctx* c, cnt_t* cnt, int es, const CLead* lead, int i) noexcept nogil:
    """Can lead units i.. (non-singles; singles take whatever is left) all be placed in cnt?"""
    while i < lead.nu and lead.u[i].k < 2:
        i += 1
    if i >= lead.nu:
        return 1
    return first_fit(c, cnt, es, lead, i) >= 0

cdef int c_strength(const Ctx* c, const cnt_t* play, const CLead* lead, int* cls, int throw_win,
                    int bombs) noexcept nogil:
    """Strength of a play against the lead's shape, or -1 if it cannot win.
    The one owner of what a play's strength is: the top level of the unit
    matching the lead's biggest unit, or with ``throw_win`` 1
    (``throw_winner`` ``highest``) and a lead of two or more units, the
    highest level among the play's cards. With ``bombs`` a bomb (the lead's
    too) is of class 2, above every other play, of strength its face's
    level, plus 16 for a trump face."""
    cdef int f, e = lead.esuit, es, all_e = 1, all_t = 1, n = 0, best = -1
    cdef int x
    cdef cnt_t cnt[NF]
    cdef uint64_t m
    if e == RAINBOW:                # never with bombs (Rules refuses the two together)
        return -1
    if bombs:
        f = c_bomb_face(play, lead.n)
        if f >= 0:
            cls[0] = 2
            return c.lvl[f] + (16 if c.esuit[f] == 4 else 0)
    m = held_faces(play)
    while m:
        f = low_bit(m)
        m &= m - 1
        x = c.esuit[f]
        n += play[f]
        if x != e:
            all_e = 0
            if x != 4:
                return -1
        if x != 4:
            all_t = 0
        if c.lvl[f] > best:
            best = c.lvl[f]
    if n != lead.n or n == 0:
        return -1
    if all_e:
        es = e
        cls[0] = 1 if e == 4 else 0
    elif all_t:
        es = 4
        cls[0] = 1
    else:
        return -1
    if lead.nu == 0:
        return -1
    if lead.u[0].k == 1:
        return best
    memcpy(cnt, play, NF)
    if throw_win == 1 and lead.nu >= 2:
        return best if place_rest(c, cnt, es, lead, 0) else -1
    return first_fit(c, cnt, es, lead, 0)

cdef int all_fit(const Ctx* c, cnt_t* cnt, int es, const CLead* lead, int i, const int8_t* thr,
                 int8_t* tops) noexcept nogil:
    """Place lead units i.. in cnt, each on a top level above ``thr`` (-1: any):
    1 with ``tops`` the lexicographically greatest such tops, or 0. Sets and
    tractors are tried from the highest top down; the singles (last in a
    lead) take what is left, highest first, which beats their thresholds
    (never rising along the units) if any order does."""
    cdef int k, L, t, combo, j, f, x, lv
    cdef RunOpts ro
    cdef int8_t faces[MAXLEN]
    if i < lead.nu and lead.u[i].k >= 2:
        k = lead.u[i].k
        L = lead.u[i].L
        for t in range(NLVL - 1, thr[i], -1):
            if run_options(c, cnt, NULL, es, t, L, k, &ro) == 0:
                continue
            for combo in range(ro.n):
                run_pick(&ro, combo, faces)
                for j in range(L):
                    cnt[faces[j]] -= k
                x = all_fit(c, cnt, es, lead, i + 1, thr, tops)
                for j in range(L):
                    cnt[faces[j]] += k
                if x:
                    tops[i] = t
                    return 1
        return 0
    j = i
    for x in range(c.nsf[es] - 1, -1, -1):
        f = c.sf[es][x]
        lv = c.lvl[f]
        for combo in range(cnt[f]):
            if j >= lead.nu or lv <= thr[j]:
                return 0
            tops[j] = lv
            j += 1
    return j == lead.nu

cdef int c_takes_all(const Ctx* c, const cnt_t* play, const CLead* lead, int st, int cl, int best_cl,
                     const int8_t* best_tops, int8_t* tops, int throw_win) noexcept nogil:
    """``throw_winner`` ``all`` (``throw_win`` 2) or ``longest`` (3), a throw
    led: does a play (``st`` and ``cl`` from c_strength) take the trick from
    the best so far (class ``best_cl``, its units' tops ``best_tops``;
    ``best_cl`` -1: nothing yet, the play is the lead)? It must match the
    lead's shape and be of a higher class, or of the same class and: under
    ``all`` with every unit above the best's unit of the same place; under
    ``longest`` with its greatest tops above the best's, compared
    lexicographically over the lead's sets and tractors only (over every unit
    if the lead is all singles). On 1 ``tops`` holds the play's own tops: the
    greatest (lexicographically) of those that take it. The one owner of the
    rule."""
    cdef cnt_t cnt[NF]
    cdef int8_t none[MAXU]
    cdef int i, m = 0
    if st < 0 or cl < best_cl:
        return 0
    if cl == 2:
        # a bomb (bombs): above any other play; against a bomb, by strength, kept in tops[0]
        if best_cl == 2 and st <= best_tops[0]:
            return 0
        tops[0] = st
        return 1
    memcpy(cnt, play, NF)
    if cl > best_cl or throw_win == 3:
        memset(none, -1, MAXU)
        if not all_fit(c, cnt, 4 if cl else lead.esuit, lead, 0, none, tops):
            return 0
        if cl > best_cl:
            return 1
        while m < lead.nu and lead.u[m].k >= 2:
            m += 1
        if m == 0:
            m = lead.nu
        for i in range(m):
            if tops[i] != best_tops[i]:
                return tops[i] > best_tops[i]
        return 0
    return all_fit(c, cnt, 4 if cl else lead.esuit, lead, 0, best_tops, tops)

cdef int c_winner(const Ctx* c, const cnt_t* plays, int nplays, const CLead* lead, int throw_win,
                  int bombs) noexcept nogil:
    cdef int i, s, cl = 0, bs, bc = 0, best = 0
    cdef int8_t tops[MAXU]
    cdef int8_t cand[MAXU]
    if lead.esuit == RAINBOW:
        return rainbow_winner(plays, nplays, lead)
    bs = c_strength(c, plays, lead, &bc, throw_win, bombs)
    if throw_win >= 2 and lead.nu >= 2:
        c_takes_all(c, plays, lead, bs, bc, -1, NULL, tops, throw_win)
        for i in range(1, nplays):
            s = c_strength(c, plays + i * NF, lead, &cl, throw_win, bombs)
            if c_takes_all(c, plays + i * NF, lead, s, cl, bc, tops, cand, throw_win):
                best = i
                bc = cl
                memcpy(tops, cand, MAXU)
        return best
    for i in range(1, nplays):
        s = c_strength(c, plays + i * NF, lead, &cl, throw_win, bombs)
        if c_beats(s, cl, bs, bc):
            best = i
            bs = s
            bc = cl
    return best

# ----------------------------------------------------------------------------
# throws
# ----------------------------------------------------------------------------

cdef int beats_unit(const Ctx* c, const cnt_t* cnt, int e, const CUnit* u) noexcept nogil:
    cdef int f, i, t
    cdef RunOpts ro
    if e == RAINBOW:
        return rainbow_beats(cnt, u)
    if u.L == 1:
        for i in range(c.nsf[e]):
            f = c.sf[e][i]
            if cnt[f] >= u.k and c.lvl[f] > u.top:
                return 1
        return 0
    for t in range(u.top + 1, NLVL):
        if run_options(c, cnt, NULL, e, t, u.L, u.k, &ro) > 0:
            return 1
    return 0

# ----------------------------------------------------------------------------
# Python API
# ----------------------------------------------------------------------------

cdef class Lead:
    """A lead read into units (canonical, or the leader's explicit choice)."""

    cdef CLead cl
    cdef readonly TrumpContext ctx
    cdef readonly object cards

    @property
    def units(self):
        """The units, biggest first, as :class:`core.cards.Unit` values."""
        out = []
        cdef int i, j
        if self.cl.esuit == RAINBOW:
            for i in range(self.cl.nu):
                faces = [f for f in self.cards if f < 52 and f % 13 == self.cl.u[i].top]
                out.append(Unit(self.cl.u[i].k, 1, self.cl.u[i].top, Cards(faces)))
            return out
        for i in range(self.cl.nu):
            faces = []
            for j in range(self.cl.u[i].L):
                faces.extend([self.cl.u[i].faces[j]] * self.cl.u[i].k)
            out.append(Unit(self.cl.u[i].k, self.cl.u[i].L, self.cl.u[i].top, Cards(faces)))
        return out

    @property
    def is_throw(self):
        """True when the lead has two or more units."""
        return self.cl.nu >= 2

    def kept_before(self, kept) -> list:
        """Indexes of the units a failed throw of this lead would keep in
        preference to ``kept`` under ``smallest_lowest`` (``c_unit_before``).
        ``kept`` is one of the units' cards; other cards count as a unit of
        that many cards on level 0 with their lowest face.
        """
        cdef CUnit k
        cdef int i
        kept = parse_cards(kept)
        units = self.units
        for i in range(self.cl.nu):
            if units[i].cards == kept:
                k = self.cl.u[i]
                break
        else:
            k.k, k.L, k.top = len(kept), 1, 0
            k.faces[0] = min(kept)
        return [i for i in range(self.cl.nu) if c_unit_before(&self.cl.u[i], &k)]

    @property
    def suit(self):
        """Effective suit of the lead (4 = trumps; 5 = a rainbow, which has none)."""
        return self.cl.esuit

    @property
    def is_rainbow(self):
        """True when the lead is a rainbow (``rules.rainbow``): its units are sets by rank."""
        return self.cl.esuit == RAINBOW

    def __len__(self):
        return self.cl.n

    def __repr__(self):
        return f"Lead({str(self.cards)!r}, units={[str(u.cards) for u in self.units]})"


cdef int c_unit_before(const CUnit* a, const CUnit* b) noexcept nogil:
    """The failed-throw tie-break (``smallest_lowest``), written once: whether a
    failed throw keeps unit ``a`` in preference to ``b``: fewer cards, then a
    lower top level, then a lower lowest face."""
    cdef int na = a.k * a.L, nb = b.k * b.L, fa = 99, fb = 99, i
    if na != nb:
        return na < nb
    if a.top != b.top:
        return a.top < b.top
    for i in range(a.L):
        if a.faces[i] < fa:
            fa = a.faces[i]
    for i in range(b.L):
        if b.faces[i] < fb:
            fb = b.faces[i]
    return fa < fb


cdef int c_kept_unit(const Ctx* c, const cnt_t** hands, int nh, const CLead* lead, int first_found,
                     int* by) noexcept nogil:
    """The failed-throw rule, written once: -1 when ``lead`` stands against the
    hands (in seat order after the leader); otherwise the index of the unit it
    shrinks to, and in ``by`` the index of the hand that showed the beating cards.
    ``first_found``: the first hand that beats a unit, and its first such unit
    in reading order; otherwise the unit first by :func:`c_unit_before` among
    the beaten ones, shown by the first hand that beats it."""
    cdef int i, j, best = -1, e = lead.esuit
    by[0] = -1
    if lead.nu < 2:
        return -1
    for j in range(nh):
        for i in range(lead.nu):
            if beats_unit(c, hands[j], e, &lead.u[i]):
                if best < 0 or (not first_found and c_unit_before(&lead.u[i], &lead.u[best])):
                    best = i
                    by[0] = j
                if first_found:
                    return best
    return best


cdef struct RInfo:
    int packs
    cnt_t deck[NF]              # the copies of each face in a deal (Rules.copies)
    int tk
    int tl
    int bj
    int rj
    Flags fl

cdef object _last_rules = None
cdef RInfo _last_info
# the settings read for recent rules objects: id -> (rules, the RInfo as bytes);
# callers often alternate between a few tables, and reading the fields again
# for each call would cost more than the kernel's work on small positions
cdef dict _INFO_CACHE = {}


cdef RInfo* rinfo(object rules) except NULL:
    """Settings the kernel reads, fetched once per rules object."""
    global _last_rules
    cdef tuple hit
    cdef bytes raw
    cdef int f
    if rules is _last_rules:
        return &_last_info
    hit = _INFO_CACHE.get(id(rules))
    if hit is not None and hit[0] is rules:
        raw = hit[1]
        memcpy(&_last_info, <const char*>raw, sizeof(RInfo))
        _last_rules = rules
        return &_last_info
    _last_info.packs = rules.packs
    for f in range(NF):
        _last_info.deck[f] = rules.copies(f)
    _last_info.tk = rules.tractor_min_width
    _last_info.tl = rules.tractor_min_length
    _last_info.bj = rules.black_jokers
    _last_info.rj = rules.red_jokers
    _last_info.fl.ladder = rules.follow_ladder
    _last_info.fl.protect = rules.protect_longer_sets
    _last_info.fl.past_ace = rules.tractor_past_ace
    _last_info.fl.count = rules.follow_format == "count"
    _last_info.fl.genuine = rules.set_reading == "genuine"
    _last_info.fl.cards = rules.ladder == "cards"
    _last_info.fl.lone = rules.tractor_owed == "lone"
    _last_info.fl.free_short = rules.shorter_tractor == "free"
    _last_info.fl.no_trump_throws = not rules.trump_throws
    _last_info.fl.safe = rules.throw_check == "safe"
    _last_info.fl.equal_throw = rules.throw_counts == "equal"
    _last_info.fl.wide = rules.packs > 4
    _last_info.fl.throw_win = ("largest", "highest", "all", "longest").index(rules.throw_winner)
    _last_info.fl.bombs = ("none", "any_suit", "follow_suit").index(rules.bombs)
    _last_info.fl.rainbow = rules.rainbow
    _last_info.fl.decompose = rules.ladder == "decompose"
    if len(_INFO_CACHE) >= 64:
        _INFO_CACHE.clear()
    _INFO_CACHE[id(rules)] = (rules, (<char*>&_last_info)[:sizeof(RInfo)])
    _last_rules = rules
    return &_last_info


cdef TrumpContext ctx_rules(object trump, object rules):
    """The context of ``trump`` under ``rules`` (tractor_past_ace and the tractor requirements)."""
    cdef RInfo* ri = rinfo(rules)
    return ctx_of(trump, ri.fl.past_ace, ri.tk, ri.tl)


cdef inline object as_cards(object x):
    if type(x) is Cards:
        return x
    return parse_cards(x)


cdef int to_counts(object cards, cnt_t* out, object rules, str what) except -1:
    cdef int f, i, lim, packs, bj, rj
    cdef RInfo* ri
    memset(out, 0, NF)
    for f in cards:
        if not 0 <= f < NF:
            raise InvalidActionError(f"no card face {f!r}: faces are 0..53")
        if out[f] == 250:
            raise InvalidActionError(f"{what}: {card_name(f)} appears far more often than any deal holds")
        out[f] += 1
    if rules is not None:
        ri = rinfo(rules)
        packs = ri.packs
        bj = ri.bj
        rj = ri.rj
        for i in range(NF):
            if out[i]:
                lim = bj if i == 52 else (rj if i == 53 else packs)
                if out[i] > lim:
                    raise InvalidActionError(
                        f"{what}: {card_name(i)} appears {out[i]} times but only {lim} are in play"
                    )
    return 0


cdef object from_counts(const cnt_t* cnt):
    """A :class:`Cards` from a count array (already sorted, so no re-sort)."""
    cdef list out = []
    cdef int f, j
    for f in range(NF):
        for j in range(cnt[f]):
            out.append(f)
    return tuple.__new__(Cards, out)


cdef Flags flags_of(object rules) except *:
    return rinfo(rules).fl


cdef int deck_of(object rules, cnt_t* out) except -1:
    """The copies of each face in a deal under ``rules`` into ``out`` (read once per rules object)."""
    memcpy(out, rinfo(rules).deck, NF)
    return 0


cdef int c_read_lead(const Ctx* c, const cnt_t* cards, CLead* out) noexcept nogil:
    """Read cards as a lead into ``out``: 0, or why it is not one (1: no card,
    2: more than one effective suit, 3: too many units). The one lead reader."""
    cdef cnt_t tmp[NF]
    cdef int f, e = -1, n = 0
    for f in range(NF):
        if cards[f]:
            n += cards[f]
            if e == -1:
                e = c.esuit[f]
            elif c.esuit[f] != e:
                return 2
    if n == 0:
        return 1
    out.esuit = e
    out.n = n
    memcpy(tmp, cards, NF)
    return 3 if c_decompose(c, tmp, out) != 0 else 0


# ----------------------------------------------------------------------------
# rainbows (rules.rainbow; docs/kernel.md, Rainbows): read and played by rank
# ----------------------------------------------------------------------------

cdef inline void rank_counts(const cnt_t* cnt, int* out) noexcept nogil:
    """The cards of each rank (0: twos .. 12: aces) in ``cnt``; jokers have no rank."""
    cdef int f
    memset(out, 0, 13 * sizeof(int))
    for f in range(52):
        out[f % 13] += cnt[f]


cdef int c_read_rainbow(const Ctx* c, const cnt_t* cards, CLead* out) noexcept nogil:
    """Read ``cards`` as a rainbow into ``out``: 0, or 2 when they are none
    (a joker; a rank held fewer than four times or in fewer than four
    effective suits). One unit per rank, a set of all its cards (``top``: the
    rank, ``faces[0]``: its lowest face), more cards first, then the higher rank."""
    cdef int f, r, i, j, n = 0, ns
    cdef int rc[13]
    cdef int seen[NSUIT]
    if cards[52] or cards[53]:
        return 2
    rank_counts(cards, rc)
    for r in range(13):
        if rc[r] == 0:
            continue
        if rc[r] < 4:
            return 2
        memset(seen, 0, sizeof(seen))
        ns = 0
        for i in range(4):
            f = i * 13 + r
            if cards[f] and not seen[c.esuit[f]]:
                seen[c.esuit[f]] = 1
                ns += 1
        if ns < 4:
            return 2
        n += rc[r]
    if n == 0:
        return 1
    out.esuit = RAINBOW
    out.n = n
    out.nu = 0
    for r in range(12, -1, -1):
        if rc[r] == 0:
            continue
        j = out.nu
        while j > 0 and out.u[j - 1].k < rc[r]:
            out.u[j] = out.u[j - 1]
            j -= 1
        out.u[j].k = rc[r]
        out.u[j].L = 1
        out.u[j].top = r
        for i in range(4):
            if cards[i * 13 + r]:
                out.u[j].faces[0] = i * 13 + r
                break
        out.nu += 1
    return 0


cdef int c_read_play_lead(const Ctx* c, const cnt_t* cards, Flags fl, CLead* out) noexcept nogil:
    """:func:`c_read_lead`, and under ``rainbow`` a play of several effective
    suits read as a rainbow (:func:`c_read_rainbow`) when it is one: the one
    reader of what the play engine accepts as a lead."""
    cdef int code = c_read_lead(c, cards, out)
    if code == 2 and fl.rainbow and c_read_rainbow(c, cards, out) == 0:
        return 0
    return code


cdef void c_rainbow_cards(const cnt_t* src, const CUnit* u, cnt_t* out) noexcept nogil:
    """The cards of rainbow unit ``u`` among ``src``: every card of its rank."""
    cdef int i
    memset(out, 0, NF)
    for i in range(4):
        out[i * 13 + u.top] = src[i * 13 + u.top]


cdef int rainbow_fit(int* rc, const CLead* lead, int i) noexcept nogil:
    """Can the ranks' cards ``rc`` give units i.. of the rainbow ``lead`` each
    as many cards of one rank (two units may share a rank with enough cards)?"""
    cdef int r, k, ok
    if i >= lead.nu:
        return 1
    k = lead.u[i].k
    for r in range(13):
        if rc[r] >= k:
            rc[r] -= k
            ok = rainbow_fit(rc, lead, i + 1)
            rc[r] += k
            if ok:
                return 1
    return 0


cdef int rainbow_follow_ok(const cnt_t* hand, const cnt_t* play, const CLead* lead) noexcept nogil:
    """A follow to a rainbow (of the right number of cards, from the hand):
    legal when it gives every unit its cards by rank, or the hand cannot."""
    cdef int rc[13]
    rank_counts(play, rc)
    if rainbow_fit(rc, lead, 0):
        return 1
    rank_counts(hand, rc)
    return not rainbow_fit(rc, lead, 0)


cdef int c_rainbow_combo(const cnt_t* play, const CLead* lead, int8_t* combo) noexcept nogil:
    """A play's ranks against a rainbow lead, the one owner of how a rainbow
    trick is won: the units (more cards first) each take the highest rank
    with that many cards left; 1 with ``combo`` those ranks, highest first,
    or 0 when some unit finds none (the play cannot win)."""
    cdef int rc[13]
    cdef int i, j, r
    cdef int8_t x
    rank_counts(play, rc)
    for i in range(lead.nu):
        r = 12
        while r >= 0 and rc[r] < lead.u[i].k:
            r -= 1
        if r < 0:
            return 0
        rc[r] -= lead.u[i].k
        x = <int8_t>r
        j = i
        while j > 0 and combo[j - 1] < x:
            combo[j] = combo[j - 1]
            j -= 1
        combo[j] = x
    return 1


cdef inline int combo_cmp(const int8_t* a, const int8_t* b, int n) noexcept nogil:
    cdef int i
    for i in range(n):
        if a[i] != b[i]:
            return 1 if a[i] > b[i] else -1
    return 0


cdef int rainbow_winner(const cnt_t* plays, int nplays, const CLead* lead) noexcept nogil:
    """The play that takes a rainbow trick: the lead, until a later play's
    ranks (:func:`c_rainbow_combo`) are higher than the best so far."""
    cdef int8_t best[MAXU]
    cdef int8_t cand[MAXU]
    cdef int i, w = 0
    if not c_rainbow_combo(plays, lead, best):
        memset(best, -1, MAXU)
    for i in range(1, nplays):
        if c_rainbow_combo(plays + i * NF, lead, cand) and combo_cmp(cand, best, lead.nu) > 0:
            w = i
            memcpy(best, cand, MAXU)
    return w


cdef int rainbow_beats(const cnt_t* cnt, const CUnit* u) noexcept nogil:
    """Could ``cnt`` beat rainbow unit ``u``: as many cards of one higher rank?"""
    cdef int rc[13]
    cdef int r
    rank_counts(cnt, rc)
    for r in range(u.top + 1, 13):
        if rc[r] >= u.k:
            return 1
    return 0


cdef int rainbow_random_follow(const cnt_t* hand, const CLead* lead, uint64_t* rng,
                               cnt_t* out) noexcept nogil:
    """A random follow to a rainbow that gives every unit its rank when the
    hand can (the ranks tried from a random one up), else 0 with ``out`` untouched."""
    cdef int rc[13]
    cdef int rank_of_unit[MAXU]
    cdef int i, j, r, start, f, tot, x
    rank_counts(hand, rc)
    if not rainbow_fit(rc, lead, 0):
        return 0
    for i in range(lead.nu):
        start = xbelow(rng, 13)
        for j in range(13):
            r = (start + j) % 13
            if rc[r] >= lead.u[i].k:
                rc[r] -= lead.u[i].k
                if rainbow_fit(rc, lead, i + 1):
                    rank_of_unit[i] = r
                    break
                rc[r] += lead.u[i].k
    for i in range(lead.nu):
        r = rank_of_unit[i]
        for j in range(lead.u[i].k):
            tot = 0
            for x in range(4):
                tot += hand[x * 13 + r] - out[x * 13 + r]
            x = xbelow(rng, tot)
            for f in range(r, 52, 13):
                x -= hand[f] - out[f]
                if x < 0:
                    out[f] += 1
                    break
    return 1


cdef int add_random_rainbow(const Ctx* c, const cnt_t* hand, uint64_t* rng, cnt_t* out) noexcept nogil:
    """Add to ``out`` a random rainbow of ``hand`` at a rank ``out`` lacks:
    one card of each of the four faces, and each further copy one time in
    two; 0 when the hand holds no such rank (all four faces, in four effective suits)."""
    cdef int ok[13]
    cdef int r, i, j, m = 0, f
    cdef int seen[NSUIT]
    for r in range(13):
        memset(seen, 0, sizeof(seen))
        for i in range(4):
            f = i * 13 + r
            if not hand[f] or out[f] or seen[c.esuit[f]]:
                break
            seen[c.esuit[f]] = 1
        else:
            ok[m] = r
            m += 1
    if m == 0:
        return 0
    r = ok[xbelow(rng, m)]
    for i in range(4):
        f = i * 13 + r
        out[f] = 1
        for j in range(1, hand[f]):
            if xbelow(rng, 2):
                out[f] += 1
    return 1


cdef int read_lead(object cards, TrumpContext ctx, object rules, CLead* out) except -1:
    """Check a lead is one effective suit and decompose it into out."""
    cdef cnt_t cnt[NF]
    cdef RInfo* ri = rinfo(rules)
    to_counts(cards, cnt, rules, "lead")
    code = c_read_play_lead(&ctx.c, cnt, ri.fl, out)
    if code == 1:
        raise IllegalActionError("a lead needs at least one card")
    if code == 2 and ri.fl.rainbow:
        raise IllegalActionError(f"lead {cards} mixes suits and is no rainbow: a lead must be all one suit "
                                 "(trumps count as one), or a rainbow (docs/kernel.md, Rainbows)")
    if code == 2:
        raise IllegalActionError(f"lead {cards} mixes suits: a lead must be all one suit (trumps count as one)")
    if code == 3:
        raise IllegalActionError(f"lead {cards} has too many units")
    return 0


def make_lead(cards, trump, rules, units=None) -> Lead:
    """Read a lead: check it is one effective suit, then decompose it.

    ``units`` (a list of card lists) is the leader's own reading; it must split
    the lead exactly into valid units, and is ordered biggest first.
    """
    cdef Lead ld = Lead.__new__(Lead)
    cards = as_cards(cards)
    ld.ctx = ctx_rules(trump, rules)
    ld.cards = cards
    read_lead(cards, ld.ctx, rules, &ld.cl)
    if units is not None:
        _set_units(ld, [parse_cards(u) for u in units], rules)
    return ld


cdef _set_units(Lead ld, list units, object rules):
    cdef Ctx* c = &ld.ctx.c
    cdef int i, j, k, L, top
    if sum(len(u) for u in units) != ld.cl.n or sorted(f for u in units for f in u) != list(ld.cards):
        raise IllegalActionError("the units given do not split the lead exactly")
    if len(units) > MAXU:
        raise IllegalActionError("too many units in the lead")
    if ld.cl.esuit == RAINBOW:
        if sorted(sorted(u) for u in units) != sorted(sorted(u.cards) for u in ld.units):
            raise IllegalActionError("a rainbow is read by rank: one unit holds every card of one rank")
        return
    keyed = []
    for u in units:
        if len(u) == 0:
            raise IllegalActionError("a unit needs at least one card")
        faces = sorted(set(u), key=lambda f: -c.lvl[f])
        k = len(u) // len(faces)
        L = len(faces)
        if any(u.count(f) != k for f in faces):
            raise IllegalActionError(f"{u} is not a unit: every face must appear equally often")
        if L >= 2:
            if k < c.tk:
                raise IllegalActionError(f"{u} is not a unit: a tractor is made of sets of {_word(c.tk)} or more")
            if L < c.tl:
                raise IllegalActionError(f"{u} is not a unit: a tractor has {_word(c.tl)} or more sets")
            for j in range(L):
                if not c.elig[faces[j]] or (j and c.lvl[faces[j]] != c.lvl[faces[j - 1]] - 1):
                    raise IllegalActionError(f"{u} is not a tractor: its sets are not on adjacent ranks")
        top = c.lvl[faces[0]]
        keyed.append(((k * L, L >= 2, k, top, tuple(sorted(u, reverse=True))), k, L, top, faces))
    keyed.sort(key=lambda x: x[0], reverse=True)
    ld.cl.nu = len(keyed)
    for i, (_, k, L, top, faces) in enumerate(keyed):
        ld.cl.u[i].k = k
        ld.cl.u[i].L = L
        ld.cl.u[i].top = top
        for j in range(L):
            ld.cl.u[i].faces[j] = faces[j]


def _word(int n) -> str:
    """A small count in words, for messages."""
    return ("two", "three", "four", "five", "six", "seven", "eight")[n - 2] if 2 <= n <= 8 else str(n)


cdef Lead as_lead(object lead, object trump, object rules):
    if isinstance(lead, Lead):
        return <Lead>lead
    return make_lead(lead, trump, rules)


def _held_faces(counts) -> int:
    """The bits :func:`held_faces` makes of 54 card counts (each 0 to 255), for
    the tests: bit ``f`` set where ``counts[f]`` is not zero.

    >>> _held_faces([0] * 53 + [3]) == 1 << 53
    True
    """
    cdef cnt_t cnt[NF]
    cdef int f
    if len(counts) != NF:
        raise ValueError(f"{NF} counts, not {len(counts)}")
    for f in range(NF):
        cnt[f] = counts[f]
    return held_faces(cnt)


def level(int face, trump) -> int:
    """Order level of a face in its effective suit (docs/kernel.md)."""
    return context(trump).level(face)


def effective_suit(int face, trump) -> int:
    """Effective suit of a face: 0..3, or 4 for trumps."""
    return context(trump).effective_suit(face)


def decompose(lead, trump, rules) -> list:
    """Canonical reading of a lead into units, biggest first.

    >>> from core.cards import parse_cards, Trump, format_cards
    >>> from core.rules import Rules
    >>> units = decompose(parse_cards("3S 3S 2S 2S 2S"), Trump(5, 2), Rules.preset("pagat", players=8))
    >>> [(u.width, u.length, format_cards(u.cards)) for u in units]
    [(2, 2, '2S 2S 3S 3S'), (1, 1, '2S')]
    """
    return make_lead(lead, trump, rules).units


def follow_error(hand, lead, play, trump, rules):
    """The reason a play breaks the follow rules, or None when it is legal."""
    cdef cnt_t h[NF]
    cdef cnt_t p[NF]
    cdef Lead ld = as_lead(lead, trump, rules)
    cdef Flags fl = flags_of(rules)
    cdef int f, hs, ps
    hand = parse_cards(hand)
    play = parse_cards(play)
    to_counts(hand, h, rules, "hand")
    to_counts(play, p, rules, "play")
    for f in range(NF):
        if p[f] > h[f]:
            return f"{card_name(f)} is not in the hand"
    if len(play) != ld.cl.n:
        return (f"the lead has {ld.cl.n} {'card' if ld.cl.n == 1 else 'cards'}, "
                f"so the play must have {ld.cl.n}, not {len(play)}")
    if c_follow_ok(&ld.ctx.c, h, p, &ld.cl, fl):
        return None
    if ld.cl.esuit == RAINBOW:
        return ("must follow the rainbow by rank: give each of its sets as many cards of one rank, "
                "as the hand can")
    hs = suit_total(&ld.ctx.c, h, ld.cl.esuit)
    ps = suit_total(&ld.ctx.c, p, ld.cl.esuit)
    if ps < min(hs, ld.cl.n):
        need = min(hs, ld.cl.n)
        return f"must play {need} {'card' if need == 1 else 'cards'} of the led suit, not {ps}"
    return "must follow the led shape: play the sets (or tractors) of the led suit the rules ask for"


def check_follow(hand, lead, play, trump, rules) -> None:
    """Raise :class:`IllegalActionError` naming the broken rule if the play is illegal."""
    err = follow_error(hand, lead, play, trump, rules)
    if err is not None:
        raise IllegalActionError(err)


def is_legal_follow(hand, lead, play, trump, rules) -> bool:
    """True when ``play`` (from ``hand``) is a legal answer to ``lead``."""
    cdef cnt_t h[NF]
    cdef cnt_t p[NF]
    cdef CLead cl
    cdef const CLead* lp
    cdef TrumpContext ctx
    if type(lead) is Lead:
        lp = &(<Lead>lead).cl
        ctx = (<Lead>lead).ctx
    else:
        ctx = ctx_rules(trump, rules)
        read_lead(as_cards(lead), ctx, rules, &cl)
        lp = &cl
    to_counts(as_cards(hand), h, rules, "hand")
    to_counts(as_cards(play), p, None, "play")
    return bool(c_follow_ok(&ctx.c, h, p, lp, rinfo(rules).fl))


def free_bomb(lead, play, trump, rules) -> bool:
    """Under ``bombs``: whether ``play`` is a bomb that a seat may play to
    ``lead`` even while holding cards of the led suit (so playing it shows no
    void; the rule itself: ``bomb_allowed``)."""
    cdef cnt_t p[NF]
    cdef Lead ld = as_lead(lead, trump, rules)
    cdef int bombs = rinfo(rules).fl.bombs
    if not bombs:
        return False
    to_counts(as_cards(play), p, None, "play")
    return bool(bomb_allowed(&ld.ctx.c, p, ld.cl.n, ld.cl.esuit, 1, bombs))


cdef int _pick_card(const cnt_t* cnt, int total, uint64_t* rng) noexcept nogil:
    """A face drawn with probability proportional to its count."""
    cdef int r = xbelow(rng, total), f
    for f in range(NF):
        r -= cnt[f]
        if r < 0:
            return f
    return -1


cdef void _add_unit_at(const Ctx* c, const cnt_t* hand, int f, uint64_t* rng, cnt_t* out) noexcept nogil:
    """Add to out a random unit holding face f: a single, its whole set, or a
    tractor through that set (only cards not already in out)."""
    cdef int e = c.esuit[f], k = hand[f] - out[f], t, g, lo, hi, i, j
    if k <= 0:
        return
    if xbelow(rng, 4) == 0:
        k = 1
    if k >= c.tk and c.elig[f] and xbelow(rng, 2) == 0:
        # extend over adjacent levels holding a free set of k
        t = c.lvl[f]
        lo = t
        hi = t
        while True:
            g = _free_face(c, hand, out, e, lo - 1, k)
            if g < 0:
                break
            lo -= 1
        while True:
            g = _free_face(c, hand, out, e, hi + 1, k)
            if g < 0:
                break
            hi += 1
        if hi - lo + 1 >= c.tl:
            for j in range(lo, hi + 1):
                g = f if j == t else _free_face(c, hand, out, e, j, k)
                out[g] += k
            return
    out[f] += k


cdef inline int _free_face(const Ctx* c, const cnt_t* hand, const cnt_t* out, int e, int t, int k) noexcept nogil:
    cdef int i, f, b = -1
    if t < 0 or t >= 16:
        return -1
    for i in range(c.nlf[e][t]):
        f = c.lf[e][t][i]
        if c.elig[f] and hand[f] - out[f] >= k and f > b:
            b = f
    return b


cdef int c_lead_rule(const Ctx* c, const CLead* lead, const cnt_t* cards, Flags fl,
                     const cnt_t* unseen) noexcept nogil:
    """The lead rules past the reading, written once: 0 when ``lead`` (read by
    :func:`c_read_play_lead` from ``cards``, counts by face) may be led; 1 when
    it is a throw in trumps and ``trump_throws`` is off; 3 when
    ``throw_counts`` is ``equal`` and the throw holds some card more times
    than another (:func:`c_equal_counts`); 2 when ``throw_check`` is ``safe``
    and the cards the leader cannot see (``unseen``: counts by face) could
    beat one of its units with their cards of the led suit. Asked in that
    order. A single unit is always allowed."""
    cdef int i
    if lead.nu < 2:
        return 0
    if fl.no_trump_throws and lead.esuit == 4:
        return 1
    if fl.equal_throw and not c_equal_counts(cards):
        return 3
    if fl.safe:
        for i in range(lead.nu):
            if beats_unit(c, unseen, lead.esuit, &lead.u[i]):
                return 2
    return 0


cdef inline int c_equal_counts(const cnt_t* cards) noexcept nogil:
    """Whether every face held in ``cards`` (counts by face) is held as many
    times as each other one (``throw_counts`` ``equal``): over the whole
    lead, whatever its units, a rainbow's too."""
    cdef int f, k = 0
    for f in range(NF):
        if cards[f]:
            if k == 0:
                k = cards[f]
            elif cards[f] != k:
                return 0
    return 1


cdef void c_random_lead(const Ctx* c, const cnt_t* hand, int held, Flags fl, const cnt_t* unseen,
                        uint64_t* rng, cnt_t* out) noexcept nogil:
    """The random lead of ``hand`` (``held`` cards): a unit around a card drawn
    with its copies' weight, and one time in eight a second unit of the same
    suit (a throw), kept only if :func:`c_lead_rule` allows it (``unseen``: the
    cards the leader cannot see, read under ``throw_check`` ``safe`` only).
    Under ``rainbow``, one time in two when the hand holds a rank in four
    effective suits, a random rainbow of one such rank instead
    (:func:`add_random_rainbow`), and one time in four a second rank with it
    (a rainbow throw, kept as the other throws are).
    The one random lead of the engine and of every random player."""
    cdef int f, g, i, e, left
    cdef cnt_t rest[NF]
    cdef cnt_t first[NF]
    cdef CLead ld
    memset(out, 0, NF)
    if fl.rainbow and xbelow(rng, 2) == 0 and add_random_rainbow(c, hand, rng, out):
        if xbelow(rng, 4) == 0:
            memcpy(first, out, NF)
            if add_random_rainbow(c, hand, rng, out) and (fl.safe or fl.equal_throw) and (
                    c_read_play_lead(c, out, fl, &ld) != 0 or c_lead_rule(c, &ld, out, fl, unseen) != 0):
                memcpy(out, first, NF)
        return
    f = _pick_card(hand, held, rng)
    _add_unit_at(c, hand, f, rng, out)
    if xbelow(rng, 8) == 0:
        e = c.esuit[f]
        memset(rest, 0, NF)
        left = 0
        for i in range(c.nsf[e]):
            g = c.sf[e][i]
            rest[g] = hand[g] - out[g]
            left += rest[g]
        if left > 0:
            if fl.no_trump_throws or fl.safe or fl.equal_throw:
                memcpy(first, out, NF)
            g = _pick_card(rest, left, rng)
            _add_unit_at(c, hand, g, rng, out)
            if (fl.no_trump_throws or fl.safe or fl.equal_throw) and (
                    c_read_lead(c, out, &ld) != 0 or c_lead_rule(c, &ld, out, fl, unseen) != 0):
                memcpy(out, first, NF)


def lead_error(cards, hand, played, trump, rules):
    """Why ``cards`` may not be led from ``hand`` (``played``: every card played
    in the deal's earlier tricks), or None when they may: the reading of
    :func:`make_lead`, then :func:`c_lead_rule` (``trump_throws``, ``throw_counts``, ``throw_check``).

    >>> from core.cards import parse_cards, Trump
    >>> from core.rules import Rules
    >>> r = Rules.preset("pagat", trump_throws=False)
    >>> lead_error("AH KH", "AH KH 3C", "", Trump(2, 1), r) is None
    True
    >>> lead_error("AH KH", "AH KH 3C", "", Trump(2, 2), r)
    'a throw may not be led in trumps (trump_throws is off)'
    """
    cdef cnt_t h[NF]
    cdef cnt_t p[NF]
    cdef cnt_t u[NF]
    cdef CLead cl
    cdef TrumpContext ctx
    cdef RInfo* ri
    cdef int f, code
    cards = as_cards(cards)
    to_counts(parse_cards(hand), h, rules, "hand")
    to_counts(cards, p, rules, "lead")
    for f in range(NF):
        if p[f] > h[f]:
            return f"{card_name(f)} is not in the hand"
    ctx = ctx_rules(trump, rules)
    try:
        read_lead(cards, ctx, rules, &cl)
    except IllegalActionError as exc:
        return str(exc)
    unseen_counts(rules, h, parse_cards(played), u)
    code = c_lead_rule(&ctx.c, &cl, p, rinfo(rules).fl, u)
    return LEAD_RULE_ERRORS.get(code)


#: What :func:`c_lead_rule`'s codes mean, in the play engine's words too.
LEAD_RULE_ERRORS = {
    1: "a throw may not be led in trumps (trump_throws is off)",
    2: "a throw may be led only when no unseen card could beat one of its units (throw_check is safe)",
    3: "a throw may be led only when it holds each of its cards as many times (throw_counts is equal)",
}


cdef int unseen_counts(object rules, const cnt_t* hand, object played, cnt_t* out) except -1:
    """Counts by face of the cards of a deal under ``rules`` that are neither
    in ``hand`` nor among ``played``."""
    cdef cnt_t p[NF]
    cdef int f, x
    to_counts(played, p, rules, "played")
    for f in range(NF):
        x = rules.copies(f) - hand[f] - p[f]
        if x < 0:
            raise InvalidActionError(f"{card_name(f)}: the hand and the played cards hold more than the deal")
        out[f] = x
    return 0


def random_lead(hand, trump, rules, rng, played=()) -> Cards:
    """A random lead of ``hand`` (see ``c_random_lead``), built directly: the
    cards drawn from ``rng`` are the ones the play engine draws for the same
    hand (``played``: the cards of the deal's earlier tricks, read under
    ``throw_check`` ``safe``)."""
    cdef cnt_t h[NF]
    cdef cnt_t out[NF]
    cdef cnt_t u[NF]
    cdef TrumpContext ctx
    cdef uint64_t s = seed_from(rng)
    cdef Flags fl = flags_of(rules)
    hand = parse_cards(hand)
    if not hand:
        raise IllegalActionError("an empty hand cannot lead")
    to_counts(hand, h, rules, "hand")
    if fl.safe:
        unseen_counts(rules, h, parse_cards(played), u)
    ctx = ctx_rules(trump, rules)
    c_random_lead(&ctx.c, h, len(hand), fl, u, &s, out)
    return from_counts(out)


def random_follow(hand, lead, trump, rules, rng) -> Cards:
    """A random legal follow, built directly (the legal set is never listed)."""
    cdef cnt_t h[NF]
    cdef cnt_t out[NF]
    cdef Lead ld = as_lead(lead, trump, rules)
    cdef uint64_t s = seed_from(rng)
    hand = parse_cards(hand)
    to_counts(hand, h, rules, "hand")
    if len(hand) < ld.cl.n:
        raise IllegalActionError(f"the hand has {len(hand)} {'card' if len(hand) == 1 else 'cards'}, "
                                 f"fewer than the {ld.cl.n} led")
    if c_random_follow(&ld.ctx.c, h, &ld.cl, flags_of(rules), &s, out) != 0:
        raise IllegalActionError("no legal follow exists")
    return from_counts(out)


def legal_follows(hand, lead, trump, rules):
    """Lazily yield every distinct legal follow (as :class:`Cards`)."""
    cdef Lead ld = as_lead(lead, trump, rules)
    cdef cnt_t h[NF]
    cdef int f, e = ld.cl.esuit, n = ld.cl.n, hs
    hand = parse_cards(hand)
    to_counts(hand, h, rules, "hand")
    if e == RAINBOW:
        yield from _rainbow_follows(ld, hand)
        return
    hs = suit_total(&ld.ctx.c, h, e)
    suit_faces = [(f, h[f]) for f in range(NF) if h[f] and ld.ctx.c.esuit[f] == e]
    other_faces = [(f, h[f]) for f in range(NF) if h[f] and ld.ctx.c.esuit[f] != e]
    if hs <= n:
        base = [f for f, k in suit_faces for _ in range(k)]
        for extra in _multisets(other_faces, n - hs):
            yield Cards(base + extra)
    else:
        buf = bytearray(2 * NF)
        for combo in _multisets(suit_faces, n):
            if _check_counts(ld, h, combo, buf, rules):
                yield Cards(combo)
    if hs and rinfo(rules).fl.bombs:
        # bombs outside the led suit, which neither list above holds (c_follow_ok says which may be played)
        buf = bytearray(2 * NF)
        for f, k in other_faces:
            if k >= n and _check_counts(ld, h, [f] * n, buf, rules):
                yield Cards([f] * n)


def _rainbow_follows(Lead ld, hand):
    """Every distinct legal follow to a rainbow lead: when the hand can give
    each unit its cards by rank, each way of doing so; else any cards."""
    cdef int rc[13]
    cdef int n = ld.cl.n
    faces = [(f, hand.count(f)) for f in sorted(set(hand))]
    counts = [0] * 13
    for f, k in faces:
        if f < 52:
            counts[f % 13] += k
    for r in range(13):
        rc[r] = counts[r]
    if not rainbow_fit(rc, &ld.cl, 0):
        for combo in _multisets(faces, n):
            yield Cards(combo)
        return
    sizes = [ld.cl.u[i].k for i in range(ld.cl.nu)]
    seen = set()
    left = {f: k for f, k in faces}

    def place(int i, list taken):
        if i == len(sizes):
            key = tuple(sorted(taken))
            if key not in seen:
                seen.add(key)
                yield Cards(key)
            return
        for r in range(13):
            pool = [(f, left.get(f, 0)) for f in range(r, 52, 13) if left.get(f, 0)]
            if sum(k for _, k in pool) < sizes[i]:
                continue
            for part in _multisets(pool, sizes[i]):
                for f in part:
                    left[f] -= 1
                yield from place(i + 1, taken + part)
                for f in part:
                    left[f] += 1

    yield from place(0, [])


cdef bint _check_counts(Lead ld, cnt_t* h, list combo, bytearray buf, object rules):
    cdef cnt_t* p = <cnt_t*><char*>buf
    cdef int f
    memset(p, 0, NF)
    for f in combo:
        p[f] += 1
    return c_follow_ok(&ld.ctx.c, h, p, &ld.cl, flags_of(rules))


def _multisets(list faces, int n, int start=0):
    """Every multiset of n cards drawn from (face, copies) pairs, as face lists:
    the first pair's face as often as it can first, then fewer (depth first,
    without recursion)."""
    cdef int m = len(faces) - start, i, j, r, lo
    if n < 0:
        return
    if n == 0:
        yield []
        return
    if m <= 0:
        return
    cdef list fs = [int(faces[start + j][0]) for j in range(m)]
    cdef list ks = [max(0, int(faces[start + j][1])) for j in range(m)]
    cdef list suffix = [0] * (m + 1)            # copies left from pair j on
    for j in range(m - 1, -1, -1):
        suffix[j] = suffix[j + 1] + ks[j]
    if suffix[0] < n:
        return
    cdef list take = [0] * m, rem = [0] * m     # the copies taken at each pair, and the cards still wanted there
    cdef list out
    i = 0
    rem[0] = n
    take[0] = min(ks[0], n)
    while True:
        r = rem[i] - take[i]
        while r > 0:                            # the rest from the next pairs, as many as possible first
            i += 1
            rem[i] = r
            take[i] = min(ks[i], r)
            r -= take[i]
        out = []
        for j in range(i + 1):
            if take[j]:
                out.extend([fs[j]] * take[j])
        yield out
        while i >= 0:                           # one fewer at the deepest pair that can spare it
            lo = rem[i] - suffix[i + 1]
            if take[i] > lo and take[i] > 0:
                take[i] -= 1
                break
            i -= 1
        if i < 0:
            return


def trick_winner(plays, trump, rules, lead=None) -> int:
    """Index of the play that wins the trick (``plays[0]`` is the lead).

    ``lead`` may pass the leader's own reading (a :class:`Lead`).
    """
    cdef Lead ld
    cdef int i, nplays = len(plays)
    cdef cnt_t buf[MAXPLAYS * NF]
    if nplays == 0:
        raise IllegalActionError("a trick needs at least the lead")
    if nplays > MAXPLAYS:
        raise IllegalActionError(f"a trick has at most {MAXPLAYS} plays, not {nplays}")
    plays = [as_cards(x) for x in plays]
    ld = lead if lead is not None else make_lead(plays[0], trump, rules)
    for i in range(nplays):
        if len(plays[i]) != ld.cl.n:
            raise IllegalActionError(f"play {i} has {len(plays[i])} {'card' if len(plays[i]) == 1 else 'cards'}; "
                                     f"the lead has {ld.cl.n}")
        to_counts(plays[i], buf + i * NF, rules, "play")
    return c_winner(&ld.ctx.c, buf, nplays, &ld.cl, rinfo(rules).fl.throw_win, rinfo(rules).fl.bombs)


def check_throw(lead, others, trump, rules) -> ThrowResult:
    """Check a lead against the other hands (seat order after the leader).

    A single unit always stands. A throw fails if any other hand, using its
    cards of the led suit only, beats one of its units; the lead then shrinks
    to one beatable unit, as ``rules.failed_throw_unit`` says (``c_kept_unit``).
    """
    cdef Lead ld = as_lead(lead, trump, rules)
    cdef cnt_t h[MAXH][NF]
    cdef const cnt_t* hp[MAXH]
    cdef int i, j, by
    if ld.cl.nu < 2:
        return ThrowResult(True, None, 0, 0, None)
    if len(others) > MAXH:
        raise InvalidActionError(f"others: {len(others)} hands; a throw is checked against at most {MAXH}")
    for i, hand in enumerate(others):
        to_counts(parse_cards(hand), h[i], rules, f"hand {i}")
        hp[i] = h[i]
    j = c_kept_unit(&ld.ctx.c, hp, len(others), &ld.cl, rules.failed_throw_unit == "first_found", &by)
    if j < 0:
        return ThrowResult(True, None, 0, 0, None)
    kept = ld.units[j].cards
    withdrawn = ld.cl.n - len(kept)
    return ThrowResult(False, kept, withdrawn, c_throw_penalty(ld.cl.n, len(kept), rules.throw_penalty,
                                                                 rules.throw_penalty_per == "attempt"), by)


def throw_penalty(attempt, kept, rules) -> int:
    """The card points a failed throw of ``attempt`` that shrank to ``kept`` costs.

    >>> from core.rules import Rules
    >>> throw_penalty("AS KS QS", "QS", Rules.preset("pagat"))
    20
    """
    return c_throw_penalty(len(parse_cards(attempt)), len(parse_cards(kept)), rules.throw_penalty,
                           rules.throw_penalty_per == "attempt")


# ----------------------------------------------------------------------------
# End-of-deal scoring: the kitty multiplier and the opponents' card points
# ----------------------------------------------------------------------------

#: The kitty multiplier settings, in the order of their codes.
MULTIPLIERS = ("double", "by_cards", "unit_double", "unit_power", "cards_per_player", "pairs_power")


cdef int multiplier_code(object kind) except -1:
    """The code of a ``rules.kitty_multiplier`` setting."""
    try:
        return MULTIPLIERS.index(kind)
    except ValueError:
        raise InvalidActionError(f"kitty_multiplier: unknown setting {kind!r}") from None


cdef int c_kitty_multiplier(int code, int winning_cards, int unit_cards, int per_player, int pairs) noexcept nogil:
    """How many times the kitty counts (``core.scoring.kitty_multiplier``, on
    checked arguments): the one definition, for the engine and the search."""
    if code == 0:
        return 2
    if code == 1:
        return 1 + (winning_cards if winning_cards < 3 else 3)
    if code == 2:
        return 2 * unit_cards
    if code == 3:
        return 1 << unit_cards
    if code == 5:
        return 2 << pairs
    return 2 * per_player


cdef int c_opponents_points(int n, const int* points, const int* penalty, const int* side,
                            int kitty_points, int to_opponents, int mult) noexcept nogil:
    """The opponents' card points (``core.scoring.opponents_points`` on checked
    arguments): their tricks, plus the maker side's throw penalties, minus their
    own, plus the kitty ``mult`` times when they took the last trick; never below 0."""
    cdef int seat, total = 0
    for seat in range(n):
        if side[seat]:
            total += penalty[seat]
        else:
            total += points[seat] - penalty[seat]
    if to_opponents:
        total += kitty_points * mult
    return total if total > 0 else 0


def kitty_multiplier_of(kind, int winning_cards, int unit_cards, int per_player, int pairs=0) -> int:
    """:c:func:`c_kitty_multiplier` for a ``rules.kitty_multiplier`` setting (unchecked counts)."""
    return c_kitty_multiplier(multiplier_code(kind), winning_cards, unit_cards, per_player, pairs)


def card_margin(int total_points, int opponents_points) -> int:
    """:c:func:`c_card_margin`: the maker side's card points minus the opponents'."""
    return c_card_margin(total_points, opponents_points)


def opponents_total(points, side, int kitty_points, bint to_opponents, int mult, penalties) -> int:
    """:c:func:`c_opponents_points` for Python sequences (``side`` holds the maker side's seats)."""
    cdef int n = len(points), i
    cdef int p[MAXH], q[MAXH], m[MAXH]
    if n > MAXH or len(penalties) != n:
        raise InvalidActionError(f"points: {n} seats and {len(penalties)} penalties do not fit a table")
    for i in range(n):
        p[i] = points[i]
        q[i] = penalties[i]
        m[i] = i in side
    return c_opponents_points(n, p, q, m, kitty_points, to_opponents, mult)


def shuffled_lists(list pools, double u):
    """Each list of ``pools`` copied into uniform random order (Fisher-Yates on
    the kernel's generator, seeded from ``u``, a uniform draw in [0, 1))."""
    cdef uint64_t s = xseed(u)
    cdef list out = [], lst
    cdef Py_ssize_t i, j
    cdef PyObject** items
    cdef PyObject* tmp
    for pool in pools:
        lst = list(pool)
        # the list owns every item before and after: swapping its slots moves no reference
        items = (<PyListObject*>lst).ob_item
        for i in range(PyList_GET_SIZE(lst) - 1, 0, -1):
            j = xbelow(&s, <int>(i + 1))
            tmp = items[i]
            items[i] = items[j]
            items[j] = tmp
        out.append(lst)
    return out
