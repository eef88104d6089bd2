# Header of the compiled rules kernel: C structs and the C-level functions
# that the deal engine and the playout code call without Python objects.

from libc.stdint cimport uint8_t, int8_t, uint32_t, uint64_t

cdef enum:
    NF = 54
    NSUIT = 5          # four printed suits + trumps (4)
    NLVL = 16          # order levels 0..15
    MAXU = 64          # units in one lead
    MAXH = 32          # other hands a throw is checked against
    MAXLEN = 18        # longest tractor
    RAINBOW = 5        # CLead.esuit of a rainbow lead (rules.rainbow): read by rank, no one suit

ctypedef uint8_t cnt_t

cdef struct Ctx:
    int8_t esuit[NF]
    int8_t lvl[NF]
    uint8_t elig[NF]
    int8_t lf[NSUIT][NLVL][4]     # faces on each level of each effective suit
    int8_t nlf[NSUIT][NLVL]
    int8_t sf[NSUIT][NF]          # faces of each effective suit, ascending level
    int8_t nsf[NSUIT]
    int tk                        # rules.tractor_min_width: the narrowest sets a tractor is made of
    int tl                        # rules.tractor_min_length: the fewest sets in a tractor

cdef struct CUnit:
    int k
    int L
    int top
    int8_t faces[MAXLEN]          # faces[i] is on level top - i

cdef struct CLead:
    int esuit
    int n
    int nu
    CUnit u[MAXU]

cdef struct Flags:
    int ladder          # follow_ladder
    int protect         # protect_longer_sets
    int past_ace        # tractor_past_ace
    int count           # follow_format == "count"
    int genuine         # set_reading == "genuine"
    int cards           # ladder == "cards"
    int lone            # tractor_owed == "lone"
    int free_short      # shorter_tractor == "free"
    int no_trump_throws # not trump_throws
    int safe            # throw_check == "safe"
    int equal_throw     # throw_counts == "equal"
    int wide            # packs > 4: the default follow rule is read by the matcher (sets wider than 4)
    int throw_win       # throw_winner: 0 largest, 1 highest, 2 all, 3 longest
    int bombs           # bombs: 0 none, 1 any_suit, 2 follow_suit
    int rainbow         # rainbow
    int decompose       # ladder == "decompose": rbtying/shengji's weakening order

cdef class TrumpContext:
    cdef Ctx c
    cdef readonly object trump
    cdef readonly bint past_ace
    cdef readonly int min_width
    cdef readonly int min_length

cdef int c_decompose(const Ctx* c, cnt_t* cnt, CLead* out) noexcept nogil
cdef int c_read_lead(const Ctx* c, const cnt_t* cards, CLead* out) noexcept nogil
cdef int c_read_play_lead(const Ctx* c, const cnt_t* cards, Flags fl, CLead* out) noexcept nogil
cdef int c_rainbow_combo(const cnt_t* play, const CLead* lead, int8_t* combo) noexcept nogil
cdef void c_rainbow_cards(const cnt_t* src, const CUnit* u, cnt_t* out) noexcept nogil
cdef int c_follow_ok(const Ctx* c, const cnt_t* hand, const cnt_t* play,
                     const CLead* lead, Flags fl) noexcept nogil
cdef int c_random_follow(const Ctx* c, const cnt_t* hand, const CLead* lead,
                         Flags fl, uint64_t* rng, cnt_t* out) noexcept nogil
cdef int c_strength(const Ctx* c, const cnt_t* play, const CLead* lead, int* cls, int throw_win,
                    int bombs) noexcept nogil
cdef int c_bomb_face(const cnt_t* play, int n) noexcept nogil
cdef extern from *:
    """
    /* The faces of which a hand of NF counts holds a card, as bits (face f: bit f),
       eight counts at a time: a byte's high bit is set where the byte is not zero
       (adding 0x7f to its low seven bits carries into it), and one multiplication
       gathers the eight high bits into the top byte. */
    static inline unsigned long long kernel_gather(unsigned long long w) {
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w = __builtin_bswap64(w);
    #endif
        w = (w | ((w & 0x7f7f7f7f7f7f7f7fULL) + 0x7f7f7f7f7f7f7f7fULL)) & 0x8080808080808080ULL;
        return ((w >> 7) * 0x0102040810204080ULL) >> 56;
    }
    /* whole words, then the rest: with n a constant, each copy is one load */
    static inline unsigned long long kernel_held(const unsigned char* h, int n) {
        unsigned long long m = 0, w;
        int i;
        for (i = 0; i + 8 <= n; i += 8) {
            memcpy(&w, h + i, 8);
            m |= kernel_gather(w) << i;
        }
        if (i < n) {
            w = 0;
            memcpy(&w, h + i, (size_t)(n - i));
            m |= kernel_gather(w) << i;
        }
        return m;
    }
    static inline int kernel_low_bit(unsigned long long m) { return __builtin_ctzll(m); }
    """
    uint64_t c_held "kernel_held" (const cnt_t* h, int n) noexcept nogil
    int low_bit "kernel_low_bit" (uint64_t m) noexcept nogil


cdef inline uint64_t held_faces(const cnt_t* h) noexcept nogil:
    """The faces ``h`` holds a card of, as bits (face ``f``: bit ``f``): a loop
    visits only those, lowest first (``f = low_bit(m)``, then ``m &= m - 1``),
    in the order a loop over every face would (the same random draws are made)."""
    return c_held(h, NF)


cdef inline int c_beats(int st, int cl, int best_st, int best_cl) noexcept nogil:
    """Does a play of strength ``st`` and class ``cl`` (1: trumps) take the trick
    from the best play so far? The lead holds it until a later play is
    stronger in the same class, or any strength in a higher class."""
    return st >= 0 and (cl > best_cl or (cl == best_cl and st > best_st))

cdef int c_takes_all(const Ctx* c, const cnt_t* play, const CLead* lead, int st, int cl, int best_cl,
                     const int8_t* best_tops, int8_t* tops, int throw_win) noexcept nogil
cdef int c_winner(const Ctx* c, const cnt_t* plays, int nplays, const CLead* lead, int throw_win,
                  int bombs) noexcept nogil
cdef uint64_t xrand(uint64_t* s) noexcept nogil

cdef inline uint64_t xseed(double u) noexcept nogil:
    """The generator's state for a shuffle drawn from one uniform ``u`` in
    [0, 1) (its 53 bits spread over the word; never 0)."""
    return <uint64_t>(u * 9007199254740992.0) * <uint64_t>0x9E3779B97F4A7C15ULL + 1

cdef inline int xbelow(uint64_t* s, int n) noexcept nogil:
    """A whole number in [0, n) from the generator ``s`` (the one bounded draw).
    The top 31 bits and n both fit in 32 bits: a 32-bit remainder is the
    same number, at a fraction of a 64-bit division's cost."""
    return <int>(<uint32_t>(xrand(s) >> 33) % <uint32_t>n)

cdef int multiplier_code(object kind) except -1
cdef int c_kitty_multiplier(int code, int winning_cards, int unit_cards, int per_player, int pairs) noexcept nogil
cdef int c_opponents_points(int n, const int* points, const int* penalty, const int* side,
                            int kitty_points, int to_opponents, int mult) noexcept nogil
cdef inline int c_card_margin(int total_points, int opponents_points) noexcept nogil:
    """The maker side's card-point margin: its points minus the opponents' (the one definition)."""
    return total_points - 2 * opponents_points

cdef int c_unit_before(const CUnit* a, const CUnit* b) noexcept nogil
cdef int c_kept_unit(const Ctx* c, const cnt_t** hands, int nh, const CLead* lead, int first_found,
                     int* by) noexcept nogil

cdef inline int c_throw_penalty(int attempted, int kept, int per_card, bint per_attempt) noexcept nogil:
    """The card points a failed throw costs: ``per_card`` for each card taken
    back, or once for the attempt (``rules.throw_penalty_per`` ``attempt``)."""
    return per_card if per_attempt else (attempted - kept) * per_card

cdef int c_lead_rule(const Ctx* c, const CLead* lead, const cnt_t* cards, Flags fl,
                     const cnt_t* unseen) noexcept nogil
cdef void c_random_lead(const Ctx* c, const cnt_t* hand, int held, Flags fl, const cnt_t* unseen,
                        uint64_t* rng, cnt_t* out) noexcept nogil
cdef int beats_unit(const Ctx* c, const cnt_t* cnt, int e, const CUnit* u) noexcept nogil
cdef int suit_total(const Ctx* c, const cnt_t* cnt, int e) noexcept nogil
cdef uint64_t seed_from(object rng) except? 0
cdef int to_counts(object cards, cnt_t* out, object rules, str what) except -1
cdef object from_counts(const cnt_t* cnt)
cdef TrumpContext ctx_of(object trump, bint past_ace, int tk=*, int tl=*)
cdef Flags flags_of(object rules) except *
cdef int deck_of(object rules, cnt_t* out) except -1
