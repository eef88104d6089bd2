# cython: language_level=3
"""The play phase of a deal in C: hands, tricks, throws, friends, points.

:class:`PlayCore` is what :class:`core.state.State` uses once the friend cards
are called; its random playout runs without touching Python objects.
"""

from libc.string cimport memset, memcpy, memcmp
from libc.stdint cimport uint64_t
from libc.stdlib cimport malloc, realloc, free
from libc.math cimport sqrt, log, pow, ceil

from core._kernel cimport (
    NF, NSUIT, MAXU, Ctx, CLead, CUnit, Flags, cnt_t, TrumpContext,
    c_decompose, c_follow_ok, c_random_follow, c_random_lead, c_kept_unit, c_throw_penalty, c_strength,
    multiplier_code, c_kitty_multiplier, c_opponents_points, c_card_margin,
    suit_total,
    xrand, xbelow, seed_from, to_counts, from_counts, ctx_of, flags_of,
)

from .cards import Cards, card_name, points as card_points
from ._kernel import follow_error
from .errors import IllegalActionError, InvalidActionError


cdef enum:
    GREEDY_CANDIDATES = 4     # random follows weighed when several cards were led
    MAXP = 12
    MAXCALLS = 8

cdef int POINTS[NF]
for _f in range(NF):
    POINTS[_f] = card_points([_f]) if _f < 52 else 0


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
    int first_found
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
    int last_winner
    int last_cards
    int last_unit
    cnt_t played[NF]
    # the last lead attempt that failed (for the Python side)
    int failed
    cnt_t attempt[NF]


cdef int lead_of(PlayS* s, const cnt_t* cards, CLead* out) noexcept nogil:
    """Read cards as a lead: -1 if empty or of mixed suits."""
    cdef cnt_t tmp[NF]
    cdef int f, e = -1, n = 0
    for f in range(NF):
        if cards[f]:
            n += cards[f]
            if e == -1:
                e = s.ctx.esuit[f]
            elif s.ctx.esuit[f] != e:
                return -1
    if n == 0:
        return -1
    out.esuit = e
    out.n = n
    memcpy(tmp, cards, NF)
    return c_decompose(&s.ctx, tmp, out)


cdef int play_error(PlayS* s, const cnt_t* cards) noexcept nogil:
    """0 if the current player may play these cards, else an error code."""
    cdef int seat = (s.leader + s.turn) % s.n
    cdef int f, n = 0
    cdef CLead tmp
    if s.done:
        return 1
    for f in range(NF):
        if cards[f] > s.hand[seat][f]:
            return 2
        n += cards[f]
    if s.turn == 0:
        if n == 0:
            return 3
        if lead_of(s, cards, &tmp) != 0:
            return 4
        return 0
    if n != s.lead.n:
        return 5
    if not c_follow_ok(&s.ctx, s.hand[seat], cards, &s.lead, s.fl):
        return 6
    return 0


cdef void reveal(PlayS* s, int seat, const cnt_t* cards) noexcept nogil:
    cdef int i, f, j
    for i in range(s.ncalls):
        if s.call_by[i] >= 0:
            continue
        f = s.call_face[i]
        if not cards[f]:
            continue
        if s.call_ord[i] == 0:          # "the other": first copy by anyone but the maker
            if seat != s.maker:
                s.call_by[i] = seat
                s.side[seat] = 1
            continue
        for j in range(cards[f]):
            s.call_seen[i] += 1
            if s.call_seen[i] == s.call_ord[i]:
                s.call_by[i] = seat
                s.side[seat] = 1
                break


cdef inline int beats_best(PlayS* s, int st, int cl) noexcept nogil:
    """Would a play of this strength and class take the trick from the best so far?"""
    return st >= 0 and (cl > s.win_c or (cl == s.win_c and st > s.win_s))


cdef void track(PlayS* s) noexcept nogil:
    """Update the trick's best play with the play just put at s.trick[s.turn]
    (the lead holds the trick until a later play beats it, as c_winner says)."""
    cdef int cl = 0, st = c_strength(&s.ctx, s.trick[s.turn], &s.lead, &cl)
    if s.turn == 0 or beats_best(s, st, cl):
        s.win_turn = s.turn
        s.win_s = st
        s.win_c = cl


cdef void play_apply(PlayS* s, const cnt_t* cards_in) noexcept nogil:
    """Apply a legal play (checked by the caller)."""
    cdef int seat = (s.leader + s.turn) % s.n
    cdef int f, i, j, w, pts, best, by
    cdef cnt_t cards[NF]
    cdef const cnt_t* others[MAXP]
    cdef CUnit* u
    memcpy(cards, cards_in, NF)
    if s.turn == 0:
        s.failed = 0
        lead_of(s, cards, &s.lead)
        if s.lead.nu >= 2:
            for j in range(1, s.n):
                others[j - 1] = s.hand[(seat + j) % s.n]
            best = c_kept_unit(&s.ctx, others, s.n - 1, &s.lead, s.first_found, &by)
            if best >= 0:
                s.failed = 1
                memcpy(s.attempt, cards, NF)
                memset(cards, 0, NF)
                u = &s.lead.u[best]
                for i in range(u.L):
                    cards[u.faces[i]] += u.k
                s.penalty[seat] += c_throw_penalty(s.lead.n, u.k * u.L, s.throw_penalty)
                lead_of(s, cards, &s.lead)
    for f in range(NF):
        if cards[f]:
            s.hand[seat][f] -= cards[f]
            s.played[f] += cards[f]
            s.held[seat] -= cards[f]
            s.trick_pts += POINTS[f] * cards[f]
    memcpy(s.trick[s.turn], cards, NF)
    track(s)
    reveal(s, seat, cards)
    s.turn += 1
    if s.turn < s.n:
        return
    w = (s.leader + s.win_turn) % s.n
    s.points[w] += s.trick_pts
    s.trick_pts = 0
    s.ntricks += 1
    s.last_winner = w
    s.last_cards = s.lead.n
    s.last_unit = s.lead.u[0].k * s.lead.u[0].L
    s.leader = w
    s.turn = 0
    if s.held[w] == 0:
        s.done = 1


cdef inline void random_lead(PlayS* s, uint64_t* rng, cnt_t* out) noexcept nogil:
    c_random_lead(&s.ctx, s.hand[s.leader], s.held[s.leader], rng, out)


cdef int deal_opponents_points(PlayS* s, int kitty_points, int mult_code, int* mult,
                               int* to_opp) noexcept nogil:
    """The opponents' card points of a finished play phase (the kitty holding
    ``kitty_points``), with the kitty multiplier and whether the opponents took
    the last trick: the engine's result and the search's reward both come from here.
    With no trick played the multiplier is 2 and the kitty goes to the opponents."""
    cdef int cards_n = s.last_cards if s.last_cards > 1 else 1
    cdef int unit_n = s.last_unit if s.last_unit > 1 else 1
    if s.last_winner < 0:
        mult[0] = 2
        to_opp[0] = 1
    else:
        mult[0] = c_kitty_multiplier(mult_code, cards_n, unit_n, cards_n)
        to_opp[0] = not s.side[s.last_winner]
    return c_opponents_points(s.n, s.points, s.penalty, s.side, kitty_points, to_opp[0], mult[0])


cdef void random_play(PlayS* s, uint64_t* rng, cnt_t* out) noexcept nogil:
    if s.turn == 0:
        random_lead(s, rng, out)
    else:
        c_random_follow(&s.ctx, s.hand[(s.leader + s.turn) % s.n], &s.lead, s.fl, rng, out)


cdef inline int greedy_score(PlayS* s, int st, int cl, int pts, int cost, int mate) noexcept nogil:
    """Win a trick worth points, paying little; otherwise give away little.
    With ``mate`` (the trick's holder is known to be on the player's side),
    feed it points instead."""
    if mate:
        return 4 * pts - cost
    if beats_best(s, st, cl) and s.trick_pts + pts > 0:
        return 4 * (s.trick_pts + pts) - cost
    return -4 * pts - cost


cdef inline int face_cost(PlayS* s, int f) noexcept nogil:
    return s.ctx.lvl[f] + (16 if s.ctx.esuit[f] == 4 else 0)


cdef int mate_holds(PlayS* s, int seat) noexcept nogil:
    """Is the trick's best play so far known to be by the seat's own side?
    Known when both have shown they are on the maker's side, or when every
    friend is found (then an unrevealed seat is an opponent)."""
    cdef int w = (s.leader + s.win_turn) % s.n, i
    if s.side[w] and s.side[seat]:
        return 1
    for i in range(s.ncalls):
        if s.call_by[i] < 0:
            return 0
    return s.side[w] == s.side[seat]


cdef void greedy_single(PlayS* s, const cnt_t* hand, uint64_t* rng, cnt_t* out, int sides) noexcept nogil:
    """A single card led: score every legal card, take a best one (ties at random)."""
    cdef int e = s.lead.esuit, f, i, x, st, cl, score, best = -1000000, ties = 0, pick = -1
    cdef int follow = suit_total(&s.ctx, hand, e) > 0
    cdef int mate = sides and mate_holds(s, (s.leader + s.turn) % s.n)
    for f in range(NF):
        if not hand[f]:
            continue
        x = s.ctx.esuit[f]
        if follow and x != e:
            continue
        if x == e:
            cl = 1 if e == 4 else 0
            st = s.ctx.lvl[f]
        elif x == 4:
            cl = 1
            st = s.ctx.lvl[f]
        else:
            cl = 0
            st = -1
        score = greedy_score(s, st, cl, POINTS[f], face_cost(s, f), mate)
        if score > best:
            best = score
            pick = f
            ties = 1
        elif score == best:
            ties += 1
            if xbelow(rng, ties) == 0:
                pick = f
    memset(out, 0, NF)
    out[pick] = 1


cdef void greedy_follow(PlayS* s, uint64_t* rng, cnt_t* out, int sides=0) noexcept nogil:
    """Follow greedily: win a trick worth points cheaply, else give away the
    fewest points and low cards. Every card is scored when one card was led;
    otherwise the best of a few random legal follows is taken."""
    cdef int seat = (s.leader + s.turn) % s.n
    cdef cnt_t cand[NF]
    cdef int c, f, st, cl, pts, cost, score, best = -1000000
    cdef int mate
    if s.lead.n == 1:
        greedy_single(s, s.hand[seat], rng, out, sides)
        return
    mate = sides and mate_holds(s, seat)
    for c in range(GREEDY_CANDIDATES):
        c_random_follow(&s.ctx, s.hand[seat], &s.lead, s.fl, rng, cand)
        cl = 0
        st = c_strength(&s.ctx, cand, &s.lead, &cl)
        pts = 0
        cost = 0
        for f in range(NF):
            if cand[f]:
                pts += POINTS[f] * cand[f]
                cost += face_cost(s, f) * cand[f]
        score = greedy_score(s, st, cl, pts, cost, mate)
        if score > best:
            best = score
            memcpy(out, cand, NF)


cdef void greedy_lead(PlayS* s, uint64_t* rng, cnt_t* out) noexcept nogil:
    """Lead in a known world: a single or a pair that no other seat can beat
    (no higher card of its suit, no void seat to trump it), the more points
    the better; with none, the cheapest card without points."""
    cdef const cnt_t* hand = s.hand[s.leader]
    cdef int me = s.leader, p, f, e, i, k, c, x, pts, score, best = -1000000, ties = 0, pick = -1, size = 1
    cdef int top1[NSUIT]
    cdef int top2[NSUIT]
    cdef int ruff1[NSUIT]
    cdef int ruff2[NSUIT]
    cdef int cnt[NSUIT]
    cdef int tpair
    for e in range(NSUIT):
        top1[e] = -1
        top2[e] = -1
        ruff1[e] = 0
        ruff2[e] = 0
    for p in range(s.n):
        if p == me or s.held[p] == 0:
            continue
        for e in range(NSUIT):
            cnt[e] = 0
        tpair = 0
        for f in range(NF):
            c = s.hand[p][f]
            if c == 0:
                continue
            e = s.ctx.esuit[f]
            cnt[e] += c
            x = s.ctx.lvl[f]
            if x > top1[e]:
                top1[e] = x
            if c >= 2:
                if x > top2[e]:
                    top2[e] = x
                if e == 4:
                    tpair = 1
        if cnt[4] > 0:
            for e in range(4):
                if cnt[e] == 0:
                    ruff1[e] = 1
                    if tpair:
                        ruff2[e] = 1
    memset(out, 0, NF)
    for f in range(NF):
        if not hand[f]:
            continue
        e = s.ctx.esuit[f]
        x = s.ctx.lvl[f]
        pts = POINTS[f]
        for k in range(1, 3):
            if k > hand[f]:
                break
            if k == 1:
                if x >= top1[e] and (e == 4 or not ruff1[e]):
                    score = 1000 + 8 * pts - face_cost(s, f)
                else:
                    score = -8 * pts - face_cost(s, f)
            else:
                if x >= top2[e] and (e == 4 or not ruff2[e]):
                    score = 1000 + 8 * pts - face_cost(s, f) + 20
                else:
                    continue
            if score > best:
                best = score
                pick = f
                size = k
                ties = 1
            elif score == best:
                ties += 1
                if xbelow(rng, ties) == 0:
                    pick = f
                    size = k
    out[pick] = size


cdef void playout(PlayS* s, uint64_t* rng, int policy=0) noexcept nogil:
    """Random play to the end (policy 0), or greedy follows (policy 1)."""
    cdef cnt_t out[NF]
    while not s.done:
        if policy >= 1 and s.turn > 0:
            greedy_follow(s, rng, out, policy == 2)
        elif policy == 2:
            greedy_lead(s, rng, out)
        else:
            random_play(s, rng, out)
        play_apply(s, out)


_ERRORS = {
    1: "the deal is over",
    3: "a lead needs at least one card",
    4: "a lead must be all one suit (trumps count as one suit)",
}


cdef class PlayCore:
    """The play phase of one deal (C state behind a small Python API).

    Seats play in increasing order mod ``players``; the maker leads first.
    Friend calls are ``(face, ordinal)`` pairs, ordinal 0 meaning "the other".
    """

    cdef PlayS s
    cdef readonly object rules
    cdef readonly object trump

    @staticmethod
    def start(rules, trump, int maker, hands, calls=()):
        """Begin play: ``hands`` in seat order, the maker leads the first trick."""
        cdef PlayCore pc = PlayCore.__new__(PlayCore)
        cdef TrumpContext ctx
        cdef int i, n = rules.players
        if len(hands) != n:
            raise InvalidActionError(f"expected {n} hands, got {len(hands)}")
        if not 0 <= maker < n:
            raise InvalidActionError(f"maker seat {maker} is not a seat from 0 to {n - 1}")
        if len(calls) > MAXCALLS:
            raise InvalidActionError(f"at most {MAXCALLS} friend calls")
        memset(&pc.s, 0, sizeof(PlayS))
        ctx = ctx_of(trump, rules.tractor_past_ace)
        pc.rules = rules
        pc.trump = ctx.trump
        pc.s.ctx = ctx.c
        pc.s.fl = flags_of(rules)
        pc.s.n = n
        pc.s.packs = rules.packs
        pc.s.maker = maker
        pc.s.leader = maker
        pc.s.throw_penalty = rules.throw_penalty
        pc.s.first_found = rules.failed_throw_unit == "first_found"
        pc.s.side[maker] = 1
        for i in range(n):
            to_counts(hands[i], pc.s.hand[i], rules, f"hand {i}")
        pc.s.ncalls = len(calls)
        for i, (face, ordinal) in enumerate(calls):
            pc.s.call_face[i] = face
            pc.s.call_ord[i] = ordinal
            pc.s.call_by[i] = -1
        pc.s.last_winner = -1
        for i in range(n):
            pc.s.held[i] = len(hands[i])
        pc.s.done = pc.s.held[maker] == 0
        return pc

    @staticmethod
    def resume(rules, trump, int maker, hands, calls, calls_filled, call_seen, points, penalties,
               int tricks_done, int leader, trick_plays):
        """Rebuild a play phase in progress (for a determinized world).

        ``hands`` are the current holdings; ``trick_plays`` the plays of the
        trick under way, from ``leader``; ``calls_filled`` the seat that filled
        each call (or None) and ``call_seen`` the copies of each called face
        played so far. No throw is re-checked: the trick stands as it was.
        """
        cdef PlayCore pc = PlayCore.start(rules, trump, maker, hands, calls)
        cdef int i, n = rules.players
        cdef cnt_t tmp[NF]
        if not 0 <= leader < n:
            raise InvalidActionError(f"leader {leader} is not a seat from 0 to {n - 1}")
        if len(trick_plays) >= n:
            raise InvalidActionError("a trick under way has fewer plays than players")
        for i in range(pc.s.ncalls):
            by = calls_filled[i]
            pc.s.call_by[i] = -1 if by is None else by
            pc.s.call_seen[i] = call_seen[i]
            if by is not None:
                pc.s.side[by] = 1
        for i in range(n):
            pc.s.points[i] = points[i]
            pc.s.penalty[i] = penalties[i]
        pc.s.ntricks = tricks_done
        pc.s.leader = leader
        pc.s.turn = len(trick_plays)
        for i, p in enumerate(trick_plays):
            to_counts(p, pc.s.trick[i], None, "trick")
            for f in p:
                pc.s.trick_pts += POINTS[f]
        if trick_plays:
            to_counts(trick_plays[0], tmp, None, "lead")
            if lead_of(&pc.s, tmp, &pc.s.lead) != 0:
                raise InvalidActionError("the trick's lead is not one suit")
            for i in range(pc.s.turn):
                pc.s.turn = i
                track(&pc.s)
            pc.s.turn = len(trick_plays)
        pc.s.done = 0 if pc.s.held[(leader + pc.s.turn) % n] > 0 else 1
        return pc

    def clone(self) -> PlayCore:
        """An independent copy (one memcpy)."""
        cdef PlayCore pc = PlayCore.__new__(PlayCore)
        memcpy(&pc.s, &self.s, sizeof(PlayS))
        pc.rules = self.rules
        pc.trump = self.trump
        return pc

    @property
    def done(self) -> bool:
        """True when every card has been played."""
        return bool(self.s.done)

    @property
    def current_player(self) -> int:
        """The seat to play, or -1 when the play is over."""
        return -1 if self.s.done else (self.s.leader + self.s.turn) % self.s.n

    @property
    def leader(self) -> int:
        """The seat that leads (or led) the current trick."""
        return self.s.leader

    @property
    def is_leading(self) -> bool:
        """True when the next play starts a trick."""
        return self.s.turn == 0 and not self.s.done

    @property
    def tricks_played(self) -> int:
        return self.s.ntricks

    def hand(self, int seat) -> Cards:
        """The cards a seat holds."""
        self._seat(seat)
        return from_counts(self.s.hand[seat])

    def trick(self) -> list:
        """The plays of the current trick so far, in play order from the leader."""
        return [from_counts(self.s.trick[i]) for i in range(self.s.turn)]

    def played(self) -> Cards:
        """Every card played so far."""
        return from_counts(self.s.played)

    @property
    def points(self) -> list:
        """Card points won by each seat."""
        return [self.s.points[i] for i in range(self.s.n)]

    @property
    def penalties(self) -> list:
        """Throw penalties charged to each seat (card points)."""
        return [self.s.penalty[i] for i in range(self.s.n)]

    @property
    def maker_side(self) -> frozenset:
        """The maker and every friend revealed so far."""
        return frozenset(i for i in range(self.s.n) if self.s.side[i])

    @property
    def calls_filled(self) -> list:
        """For each friend call, the seat that filled it, or None."""
        return [None if self.s.call_by[i] < 0 else self.s.call_by[i] for i in range(self.s.ncalls)]

    def opponents_points(self, rules, int kitty_points) -> tuple:
        """``(opponents' card points, kitty multiplier, kitty to the opponents)``
        of the finished play under ``rules``, the kitty holding ``kitty_points``."""
        cdef int mult, to_opp, opp
        opp = deal_opponents_points(&self.s, kitty_points, multiplier_code(rules.kitty_multiplier), &mult, &to_opp)
        return opp, mult, bool(to_opp)

    @property
    def last_trick(self):
        """(winner seat, cards per play, cards of the largest unit) of the last trick played."""
        return (self.s.last_winner, self.s.last_cards, self.s.last_unit)

    @property
    def lead_units(self) -> list:
        """The current trick's lead read into units (empty before the lead)."""
        from .cards import Unit
        cdef int i, j
        if self.s.turn == 0:
            return []
        out = []
        for i in range(self.s.lead.nu):
            faces = []
            for j in range(self.s.lead.u[i].L):
                faces.extend([self.s.lead.u[i].faces[j]] * self.s.lead.u[i].k)
            out.append(Unit(self.s.lead.u[i].k, self.s.lead.u[i].L, self.s.lead.u[i].top, Cards(faces)))
        return out

    def _seat(self, int seat):
        if not 0 <= seat < self.s.n:
            raise InvalidActionError(f"seat {seat} is not a seat from 0 to {self.s.n - 1}")

    def play_error(self, cards):
        """Why the current player may not play ``cards``, or None (a follow's
        reason in the words of :func:`core.kernel.follow_error`, as ``pengyou follow`` says it)."""
        cdef cnt_t c[NF]
        to_counts(cards, c, None, "play")
        return self._why(play_error(&self.s, c), cards)

    def _why(self, int code, cards):
        """The text of a ``play_error`` code for ``cards``."""
        cdef int seat = (self.s.leader + self.s.turn) % self.s.n, f
        cdef cnt_t c[NF]
        if code == 0:
            return None
        if code == 2:
            to_counts(cards, c, None, "play")
            for f in range(NF):
                if c[f] > self.s.hand[seat][f]:
                    return f"{card_name(f)} is not in the hand"
        if code in (5, 6):
            return follow_error(from_counts(self.s.hand[seat]), from_counts(self.s.trick[0]), cards,
                                self.trump, self.rules)
        return _ERRORS[code]

    def can_play(self, cards) -> bool:
        """True when the current player may play ``cards``."""
        cdef cnt_t c[NF]
        to_counts(cards, c, None, "play")
        return play_error(&self.s, c) == 0

    def play(self, cards, bint check=True):
        """Play ``cards`` for the current player.

        Returns ``(seat, cards actually played, attempted throw or None)``: a
        throw that fails is replaced by the unit that must be led instead.
        """
        cdef cnt_t c[NF]
        cdef int seat = (self.s.leader + self.s.turn) % self.s.n
        to_counts(cards, c, None, "play")
        if check:
            code = play_error(&self.s, c)
            if code:
                raise IllegalActionError(f"seat {seat} cannot play {Cards(cards)}: {self._why(code, cards)}")
        leading = self.s.turn == 0
        play_apply(&self.s, c)
        played = from_counts(self.s.trick[self.s.n - 1 if self.s.turn == 0 else self.s.turn - 1])
        attempt = from_counts(self.s.attempt) if (leading and self.s.failed) else None
        return seat, played, attempt

    def random_play(self, rng) -> Cards:
        """A random legal play for the current player (nothing is enumerated)."""
        cdef cnt_t out[NF]
        cdef uint64_t r = seed_from(rng)
        if self.s.done:
            raise IllegalActionError("the deal is over")
        random_play(&self.s, &r, out)
        return from_counts(out)

    def policy_play(self, rng, int policy=0) -> Cards:
        """The play a playout would make now (``policy`` as in :meth:`playout`),
        without making it."""
        cdef cnt_t out[NF]
        cdef uint64_t r = seed_from(rng)
        if policy not in (0, 1, 2):
            raise InvalidActionError("policy: 0 (random), 1 (greedy follows) or 2 (greedy leads too)")
        if self.s.done:
            raise IllegalActionError("the deal is over")
        if policy >= 1 and self.s.turn > 0:
            greedy_follow(&self.s, &r, out, policy == 2)
        elif policy == 2:
            greedy_lead(&self.s, &r, out)
        else:
            random_play(&self.s, &r, out)
        return from_counts(out)

    def playout(self, rng, int policy=0) -> None:
        """Finish the play in C: random legal plays (``policy=0``), or random
        leads with greedy follows (``policy=1``: of a few random legal follows,
        win a trick worth points cheaply, else give away little)."""
        cdef uint64_t r = seed_from(rng)
        if policy not in (0, 1, 2):
            raise InvalidActionError("policy: 0 (random), 1 (greedy follows) or 2 (greedy leads too)")
        with nogil:
            playout(&self.s, &r, policy)


def playouts(PlayCore start, int count, rng) -> int:
    """Run ``count`` random playouts from copies of ``start``; returns the
    total of the first seat's points (so the work cannot be skipped)."""
    cdef PlayS s
    cdef uint64_t r = seed_from(rng)
    cdef int i
    cdef long total = 0
    with nogil:
        for i in range(count):
            memcpy(&s, &start.s, sizeof(PlayS))
            playout(&s, &r)
            total += s.points[0]
    return total


# ---------------------------------------------------------------- search tree

cdef struct TNode:
    uint64_t key                  # a hash of the cards (a fast first test)
    cnt_t cards[NF]               # the play that leads here (as attempted)
    int first_child
    int last_child
    int next_sibling
    int nchildren
    int visits
    int avail
    double total

cdef enum:
    MAXPATH = 2048



cdef inline uint64_t cards_hash(const cnt_t* c) noexcept nogil:
    cdef uint64_t h = 1469598103934665603ULL
    cdef int f
    for f in range(NF):
        h = (h ^ c[f]) * 1099511628211ULL
    return h


cdef class SearchTree:
    """The statistics tree of :class:`bots.ismcts.IsmctsBot`'s search, in C.

    One :meth:`iterate` call is one search iteration on a determinized play
    phase: walk the tree from the root (UCB over the children available in
    this world, progressive widening with the world's random plays, or the
    playout policy for the other seats), add one node, finish the deal with
    a playout, and back up each seat's reward on its final side. Random
    numbers are drawn from the Python ``rng`` at the same points, and
    floating point is computed in the same order, as in the bot's Python
    reference loop, so both make the same choices.
    """

    cdef TNode* nodes
    cdef int count
    cdef int capacity
    cdef double c
    cdef double widen_c
    cdef double widen_alpha
    cdef int policy
    cdef int others_policy
    cdef int me
    cdef int game_reward
    cdef int total_points
    cdef int mult_kind
    cdef object game_value
    cdef int path_node[MAXPATH]
    cdef int path_player[MAXPATH]

    def __cinit__(self, rules, int me, double c, double widen_c, double widen_alpha, int policy,
                  bint others_policy=False, game_value=None):
        if policy not in (0, 1, 2):
            raise InvalidActionError("policy: 0 (random), 1 (greedy follows) or 2 (greedy leads too)")
        self.capacity = 1024
        self.nodes = <TNode*> malloc(self.capacity * sizeof(TNode))
        if self.nodes == NULL:
            raise MemoryError()
        self.count = 0
        self._new_node(NULL)
        self.c = c
        self.widen_c = widen_c
        self.widen_alpha = widen_alpha
        self.policy = policy
        self.others_policy = others_policy
        self.me = me
        self.game_reward = game_value is not None
        self.game_value = game_value
        self.total_points = rules.total_points
        self.mult_kind = multiplier_code(rules.kitty_multiplier)

    def __dealloc__(self):
        free(self.nodes)

    cdef int _new_node(self, const cnt_t* cards) except -1:
        cdef TNode* grown
        cdef TNode* nd
        if self.count == self.capacity:
            grown = <TNode*> realloc(self.nodes, 2 * self.capacity * sizeof(TNode))
            if grown == NULL:
                raise MemoryError()
            self.nodes = grown
            self.capacity *= 2
        nd = &self.nodes[self.count]
        memset(nd, 0, sizeof(TNode))
        if cards != NULL:
            memcpy(nd.cards, cards, NF)
            nd.key = cards_hash(cards)
        nd.first_child = -1
        nd.last_child = -1
        nd.next_sibling = -1
        self.count += 1
        return self.count - 1

    cdef int _add_child(self, int parent, const cnt_t* cards) except -1:
        cdef int i = self._new_node(cards)
        cdef TNode* p = &self.nodes[parent]
        if p.last_child < 0:
            p.first_child = i
        else:
            self.nodes[p.last_child].next_sibling = i
        p.last_child = i
        p.nchildren += 1
        return i

    cdef int _find_child(self, int parent, const cnt_t* cards) noexcept:
        cdef uint64_t k = cards_hash(cards)
        cdef int i = self.nodes[parent].first_child
        while i >= 0:
            if self.nodes[i].key == k and memcmp(self.nodes[i].cards, cards, NF) == 0:
                return i
            i = self.nodes[i].next_sibling
        return -1

    @property
    def node_count(self) -> int:
        """Nodes in the tree, the root included."""
        return self.count

    @property
    def visits(self) -> int:
        """Iterations backed up so far."""
        return self.nodes[0].visits

    def root_children(self) -> list:
        """``(cards, visits, reward total, availability)`` of each root child,
        in the order they were added."""
        out = []
        cdef int i = self.nodes[0].first_child
        while i >= 0:
            out.append((from_counts(self.nodes[i].cards), self.nodes[i].visits,
                        self.nodes[i].total, self.nodes[i].avail))
            i = self.nodes[i].next_sibling
        return out

    cdef double _reward_of(self, PlayS* s, int opp, int nside) except? -1e300:
        if self.game_reward:
            return <double> self.game_value(opp, nside)
        return (<double> c_card_margin(self.total_points, opp)) / self.total_points

    cdef int _select(self, PlayS* s, int node, int at_root, rng, int* expanded) except -1:
        """The child of ``node`` to walk to: a new one while widening allows
        (a random legal play of this world not yet here), else the best by
        UCB among those playable in this world (a new random one if none is);
        counts availability. Sets ``expanded[0]`` when it adds a child."""
        cdef cnt_t out[NF]
        cdef uint64_t r
        cdef int child = -1, best, other
        cdef double best_v, v
        cdef TNode* nd = &self.nodes[node]
        if nd.nchildren < ceil(self.widen_c * pow(<double> (nd.visits + 1), self.widen_alpha)):
            r = seed_from(rng)
            random_play(s, &r, out)
            if self._find_child(node, out) < 0:
                child = self._add_child(node, out)
                expanded[0] = 1
                other = self.nodes[node].first_child
                while other >= 0:
                    if at_root or other == child or play_error(s, self.nodes[other].cards) == 0:
                        self.nodes[other].avail += 1
                    other = self.nodes[other].next_sibling
                return child
        best = -1
        best_v = -1e300
        other = self.nodes[node].first_child
        while other >= 0:
            nd = &self.nodes[other]
            if at_root or play_error(s, nd.cards) == 0:
                nd.avail += 1
                if nd.visits == 0:
                    v = 1e300
                else:
                    v = nd.total / nd.visits + self.c * sqrt(log(<double> nd.avail) / nd.visits)
                if v > best_v:
                    best_v = v
                    best = other
            other = nd.next_sibling
        if best < 0:
            r = seed_from(rng)
            random_play(s, &r, out)
            best = self._add_child(node, out)
            self.nodes[best].avail += 1
            expanded[0] = 1
        return best

    def iterate(self, PlayCore pc, rng, int kitty_points) -> None:
        """One iteration on ``pc`` (a determinized play phase; it is played out)."""
        cdef PlayS* s = &pc.s
        cdef cnt_t out[NF]
        cdef uint64_t r
        cdef int node = 0, child, player, depth = 0, expanded = 0, at_root = 1
        cdef int i, seat, opp, nside, mult, to_opp
        cdef double margin
        cdef TNode* nd
        while not s.done:
            player = (s.leader + s.turn) % s.n
            if depth >= MAXPATH:
                raise InvalidActionError("search path too long")
            if self.others_policy and player != self.me:
                r = seed_from(rng)
                if self.policy >= 1 and s.turn > 0:
                    greedy_follow(s, &r, out, self.policy == 2)
                elif self.policy == 2:
                    greedy_lead(s, &r, out)
                else:
                    random_play(s, &r, out)
                child = self._find_child(node, out)
                if child < 0:
                    child = self._add_child(node, out)
                    expanded = 1
            else:
                child = self._select(s, node, at_root, rng, &expanded)
            memcpy(out, self.nodes[child].cards, NF)
            play_apply(s, out)
            self.path_node[depth] = child
            self.path_player[depth] = player
            depth += 1
            node = child
            at_root = 0
            if expanded:
                break
        if not s.done:
            r = seed_from(rng)
            playout(s, &r, self.policy)
        opp = deal_opponents_points(s, kitty_points, self.mult_kind, &mult, &to_opp)
        nside = 0
        for seat in range(s.n):
            nside += s.side[seat] != 0
        margin = self._reward_of(s, opp, nside)
        self.nodes[0].visits += 1
        for i in range(depth):
            nd = &self.nodes[self.path_node[i]]
            nd.visits += 1
            nd.total += margin if s.side[self.path_player[i]] else -margin
