# Header of the compiled play engine: the play phase's C state and the
# C-level functions that a search (in bots/) calls without Python objects.
# The engine holds only the game; what to play is the bots' business.

from libc.stdint cimport uint64_t, int8_t

from core._kernel cimport NF, MAXU, RAINBOW, Ctx, CLead, Flags, cnt_t, c_beats, c_takes_all, c_rainbow_combo

cdef enum:
    MAXP = 12
    MAXCALLS = 8

cdef struct PlayS:
    Ctx ctx
    Flags fl
    int n
    int packs
    int maker
    int leader
    int turn
    int ntricks
    int done
    int throw_penalty
    int penalty_per_attempt       # rules.throw_penalty_per == "attempt"
    int first_found
    int end_deal                  # rules.failed_throw == "end_deal": a failed throw ends the play
    int call_skip_side            # rules.call_by_side == "skipped"
    cnt_t hand[MAXP][NF]
    cnt_t trick[MAXP][NF]
    CLead lead
    int points[MAXP]
    int held[MAXP]
    int trick_pts
    int penalty[MAXP]
    int side[MAXP]
    int ncalls
    int call_face[MAXCALLS]
    int call_ord[MAXCALLS]
    int call_seen[MAXCALLS]
    int call_by[MAXCALLS]
    int win_turn                  # the trick's best play so far: its turn,
    int win_s                     # its strength against the lead's shape
    int win_c                     # and its class (1 = trumps)
    int8_t win_tops[MAXU]         # under throw_winner all/longest, a throw led: its units' tops
    int last_winner
    int last_cards
    int last_unit
    int last_pairs                # sets of two or more cards in the last lead (a tractor counts each)
    cnt_t played[NF]
    cnt_t deck[NF]                # copies of each face in the deal (for throw_check "safe")
    # the last lead attempt that failed (for the Python side)
    int failed
    cnt_t attempt[NF]
    int stopper                   # the seat that showed the cards beating it
    cnt_t kept[NF]                # the unit it was reduced to (failed_throw_unit)
    # failed_throw end_deal: the play stopped at the failed throw of the leader (s.leader)
    int ended
    int left_pts                  # card points of the cards still in hands when it stopped

cdef class PlayCore:
    cdef PlayS s
    cdef readonly object rules
    cdef readonly object trump

cdef int play_error(PlayS* s, const cnt_t* cards) noexcept nogil
cdef void play_apply(PlayS* s, const cnt_t* cards_in) noexcept nogil
cdef void random_play(PlayS* s, uint64_t* rng, cnt_t* out) noexcept nogil
cdef int failing_unit(PlayS* s, int seat, const CLead* lead, int* by) noexcept nogil
cdef void random_playout(PlayS* s, uint64_t* rng) noexcept nogil
cdef int deal_opponents_points(PlayS* s, int kitty_points, int mult_code, int* mult,
                               int* to_opp) noexcept nogil

cdef inline int rainbow_above(const int8_t* a, const int8_t* b, int n) noexcept nogil:
    """Are a rainbow play's ranks ``a`` (from c_rainbow_combo) above the best ``b``?"""
    cdef int i
    for i in range(n):
        if a[i] != b[i]:
            return a[i] > b[i]
    return 0

cdef inline int beats_best(const PlayS* s, const cnt_t* play, int st, int cl) noexcept nogil:
    """Would ``play``, of this strength and class (c_strength), take the trick
    from the best so far? (Under throw_winner all or longest with a throw led, unit by unit.)"""
    cdef int8_t tops[MAXU]
    if s.lead.esuit == RAINBOW:
        return c_rainbow_combo(play, &s.lead, tops) and rainbow_above(tops, s.win_tops, s.lead.nu)
    if s.fl.throw_win >= 2 and s.lead.nu >= 2:
        return c_takes_all(&s.ctx, play, &s.lead, st, cl, s.win_c, s.win_tops, tops, s.fl.throw_win)
    return c_beats(st, cl, s.win_s, s.win_c)

cdef inline void settle_done(PlayS* s) noexcept nogil:
    """A play rebuilt in progress (new hands, a trick under way) is over when
    the player to move holds nothing: the one statement for every rebuild."""
    s.done = 0 if s.held[(s.leader + s.turn) % s.n] > 0 else 1

cdef inline int call_fills(const PlayS* s, int i, int seat, int copies) noexcept nogil:
    """Would ``copies`` copies of call ``i``'s face, played now by ``seat``,
    fill that call (the one statement of the rule: :func:`reveal` applies it,
    a search asks it)? An ordinal call is filled by its ordinal-th copy,
    counted in play order (under ``call_by_side`` "skipped" the maker's
    side's copies do not count); "the other" (ordinal 0) by the first copy
    of anyone but the maker."""
    if s.call_by[i] >= 0:
        return 0
    if s.call_ord[i] == 0:
        return seat != s.maker and not (s.call_skip_side and s.side[seat])
    if s.call_skip_side and s.side[seat]:
        return 0
    return s.call_seen[i] < s.call_ord[i] <= s.call_seen[i] + copies

cdef const int* points_table() noexcept nogil   # card points by face, from core.cards
