# cython: language_level=3
"""The play phase of a deal in C: hands, tricks, throws, friends, points.

:class:`PlayCore` is what :class:`core.state.State` uses once the friend cards
are called; its random playout runs without touching Python objects. The C
state and functions are exported by ``core/_play.pxd`` for the search in
``bots/search``, which owns every choice of what to play (core holds only the game).
"""

from libc.string cimport memset, memcpy
from libc.stdint cimport uint64_t

from core._kernel cimport (
    NF, CLead, CUnit, cnt_t, TrumpContext,
    c_read_lead, c_read_play_lead, c_rainbow_combo, c_rainbow_cards, RAINBOW, c_lead_rule, c_follow_ok, c_random_follow, c_random_lead, c_kept_unit, c_throw_penalty, c_strength,
    multiplier_code, c_kitty_multiplier, c_opponents_points,
    seed_from, to_counts, from_counts, ctx_of, flags_of, deck_of,
)

from .cards import Cards, card_name, parse_cards, points as card_points
from ._kernel import follow_error, make_lead, LEAD_RULE_ERRORS
from .errors import IllegalActionError, InvalidActionError


cdef int POINTS[NF]
for _f in range(NF):
    POINTS[_f] = card_points([_f]) if _f < 52 else 0


cdef const int* points_table() noexcept nogil:
    """Card points by face (filled from :func:`core.cards.points`, their one owner)."""
    return POINTS


cdef int play_error(PlayS* s, const cnt_t* cards) noexcept nogil:
    """0 if the current player may play these cards, else an error code."""
    cdef int seat = (s.leader + s.turn) % s.n
    cdef int f, n = 0, code
    cdef CLead tmp
    cdef cnt_t unseen[NF]
    if s.done:
        return 1
    for f in range(NF):
        if cards[f] > s.hand[seat][f]:
            return 2
        n += cards[f]
    if s.turn == 0:
        if n == 0:
            return 3
        if c_read_play_lead(&s.ctx, cards, s.fl, &tmp) != 0:
            return 4
        if s.fl.no_trump_throws or s.fl.safe or s.fl.equal_throw:
            unseen_of(s, seat, unseen)
            code = c_lead_rule(&s.ctx, &tmp, cards, s.fl, unseen)
            if code:
                return 6 + code
        return 0
    if n != s.lead.n:
        return 5
    if not c_follow_ok(&s.ctx, s.hand[seat], cards, &s.lead, s.fl):
        return 6
    return 0


cdef inline void unseen_of(const PlayS* s, int seat, cnt_t* out) noexcept nogil:
    """The cards ``seat`` cannot see: the deal's but its hand and the cards played so far."""
    cdef int f, x
    for f in range(NF):
        x = s.deck[f] - s.hand[seat][f] - s.played[f]
        out[f] = x if x > 0 else 0


cdef void reveal(PlayS* s, int seat, const cnt_t* cards) noexcept nogil:
    """Count ``seat``'s copies of each called face and fill the calls they fill (:func:`call_fills`)."""
    cdef int i, f
    for i in range(s.ncalls):
        f = s.call_face[i]
        if s.call_by[i] >= 0 or not cards[f]:
            continue
        if call_fills(s, i, seat, cards[f]):
            s.call_by[i] = seat
            s.side[seat] = 1
            if s.call_ord[i]:
                s.call_seen[i] = s.call_ord[i]
        elif s.call_ord[i] and not (s.call_skip_side and s.side[seat]):
            s.call_seen[i] += cards[f]


cdef void track(PlayS* s) noexcept nogil:
    """Update the trick's best play with the play just put at s.trick[s.turn]
    (the lead holds the trick until a later play beats it, as c_winner says)."""
    cdef int cl = 0, st = c_strength(&s.ctx, s.trick[s.turn], &s.lead, &cl, s.fl.throw_win,
                                                s.fl.bombs)
    cdef int8_t tops[MAXU]
    if s.lead.esuit == RAINBOW:
        if c_rainbow_combo(s.trick[s.turn], &s.lead, tops):
            if s.turn == 0 or rainbow_above(tops, s.win_tops, s.lead.nu):
                s.win_turn = s.turn
                memcpy(s.win_tops, tops, MAXU)
        elif s.turn == 0:
            s.win_turn = 0
            memset(s.win_tops, -1, MAXU)
        return
    if s.fl.throw_win >= 2 and s.lead.nu >= 2:
        if c_takes_all(&s.ctx, s.trick[s.turn], &s.lead, st, cl, -1 if s.turn == 0 else s.win_c,
                       s.win_tops, tops, s.fl.throw_win):
            s.win_turn = s.turn
            s.win_s = st
            s.win_c = cl
            memcpy(s.win_tops, tops, MAXU)
        return
    if s.turn == 0 or c_beats(st, cl, s.win_s, s.win_c):
        s.win_turn = s.turn
        s.win_s = st
        s.win_c = cl


cdef inline void note_last_lead(PlayS* s) noexcept nogil:
    """Keep what the kitty multiplier reads of the last lead: cards, largest unit, sets of 2+ (a tractor's each)."""
    cdef int i
    s.last_cards = s.lead.n
    s.last_unit = s.lead.u[0].k * s.lead.u[0].L
    s.last_pairs = 0
    for i in range(s.lead.nu):
        if s.lead.u[i].k >= 2:
            s.last_pairs += s.lead.u[i].L


cdef void end_at_failed_throw(PlayS* s) noexcept nogil:
    """``failed_throw`` ``end_deal``: the leader's throw failed (``s.lead`` is the unit kept) and the play
    stops, every card in its hand; ``deal_opponents_points`` gives them and the kitty to the thrower's opponents."""
    cdef int seat, f, pts = 0
    for seat in range(s.n):
        for f in range(NF):
            pts += POINTS[f] * s.hand[seat][f]
    s.left_pts = pts
    note_last_lead(s)
    s.ended = 1
    s.done = 1


cdef void play_apply(PlayS* s, const cnt_t* cards_in) noexcept nogil:
    """Apply a legal play (checked by the caller)."""
    cdef int seat = (s.leader + s.turn) % s.n
    cdef int f, i, j, w, pts, best, by
    cdef cnt_t cards[NF]
    cdef CUnit* u
    memcpy(cards, cards_in, NF)
    if s.turn == 0:
        s.failed = 0
        c_read_play_lead(&s.ctx, cards, s.fl, &s.lead)
        if s.lead.nu >= 2:
            best = failing_unit(s, seat, &s.lead, &by)
            if best >= 0:
                s.failed = 1
                s.stopper = (seat + 1 + by) % s.n
                memcpy(s.attempt, cards, NF)
                memset(cards, 0, NF)
                u = &s.lead.u[best]
                if s.lead.esuit == RAINBOW:
                    c_rainbow_cards(s.attempt, u, cards)
                else:
                    for i in range(u.L):
                        cards[u.faces[i]] += u.k
                s.penalty[seat] += c_throw_penalty(s.lead.n, u.k * u.L, s.throw_penalty, s.penalty_per_attempt)
                c_read_play_lead(&s.ctx, cards, s.fl, &s.lead)
                memcpy(s.kept, cards, NF)
                if s.end_deal:
                    end_at_failed_throw(s)
                    return
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
    note_last_lead(s)
    s.leader = w
    s.turn = 0
    if s.held[w] == 0:
        s.done = 1


cdef int deal_opponents_points(PlayS* s, int kitty_points, int mult_code, int* mult,
                               int* to_opp) noexcept nogil:
    """The opponents' card points of a finished play phase (the kitty holding
    ``kitty_points``), with the kitty multiplier and whether the opponents took
    the last trick: the engine's result and the search's reward both come from here.
    With no trick played the multiplier is 2 and the kitty goes to the opponents. After a failed throw
    ended the play, the cards left in hands and the kitty (its multiplier reading the unit kept as the last
    lead) go to the side the thrower ``s.leader`` is not on, as the sides stand."""
    cdef int cards_n = s.last_cards if s.last_cards > 1 else 1
    cdef int unit_n = s.last_unit if s.last_unit > 1 else 1
    if s.ended:
        mult[0] = c_kitty_multiplier(mult_code, cards_n, unit_n, cards_n, s.last_pairs)
        to_opp[0] = s.side[s.leader]
        return c_opponents_points(s.n, s.points, s.penalty, s.side, kitty_points * mult[0] + s.left_pts,
                                  to_opp[0], 1)
    if s.last_winner < 0:
        mult[0] = 2
        to_opp[0] = 1
    else:
        mult[0] = c_kitty_multiplier(mult_code, cards_n, unit_n, cards_n, s.last_pairs)
        to_opp[0] = not s.side[s.last_winner]
    return c_opponents_points(s.n, s.points, s.penalty, s.side, kitty_points, to_opp[0], mult[0])


cdef void random_play(PlayS* s, uint64_t* rng, cnt_t* out) noexcept nogil:
    """A random legal play for the player to move (the one distribution of
    :func:`core.view.random_legal`)."""
    cdef cnt_t unseen[NF]
    if s.turn == 0:
        if s.fl.safe:
            unseen_of(s, s.leader, unseen)
        c_random_lead(&s.ctx, s.hand[s.leader], s.held[s.leader], s.fl, unseen, rng, out)
    else:
        c_random_follow(&s.ctx, s.hand[(s.leader + s.turn) % s.n], &s.lead, s.fl, rng, out)


cdef int failing_unit(PlayS* s, int seat, const CLead* lead, int* by) noexcept nogil:
    """The one reading of a throw's fate against the hands as they are: the unit (index in ``lead.u``) a lead
    by ``seat`` is cut back to as another hand beats it (``by``: that seat's place after the leader), or -1."""
    cdef const cnt_t* others[MAXP]
    cdef int j
    if lead.nu < 2:
        return -1
    for j in range(1, s.n):
        others[j - 1] = s.hand[(seat + j) % s.n]
    return c_kept_unit(&s.ctx, others, s.n - 1, lead, s.first_found, by)


cdef void random_playout(PlayS* s, uint64_t* rng) noexcept nogil:
    """Random legal plays to the end of the deal."""
    cdef cnt_t out[NF]
    while not s.done:
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
        ctx = ctx_of(trump, rules.tractor_past_ace, rules.tractor_min_width, rules.tractor_min_length)
        pc.rules = rules
        pc.trump = ctx.trump
        pc.s.ctx = ctx.c
        pc.s.fl = flags_of(rules)
        pc.s.n = n
        pc.s.packs = rules.packs
        pc.s.maker = maker
        pc.s.leader = maker
        pc.s.throw_penalty = rules.throw_penalty
        pc.s.penalty_per_attempt = rules.throw_penalty_per == "attempt"
        pc.s.first_found = rules.failed_throw_unit == "first_found"
        pc.s.end_deal = rules.failed_throw == "end_deal"
        pc.s.stopper = -1
        pc.s.call_skip_side = rules.call_by_side == "skipped"
        deck_of(rules, pc.s.deck)
        if rules.partners == "called":
            pc.s.side[maker] = 1
        else:
            for i in rules.first_side(maker):
                pc.s.side[i] = 1
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
    def calls_after(rules, trump, int maker, calls, plays):
        """The friend calls after ``plays`` (``(seat, cards)`` in the order
        played): the seat that filled each call (or None) and the copies of
        each called face that counted, by the one rule the engine plays by.

        >>> from core.rules import Rules
        >>> from core.cards import Trump, parse_card
        >>> r = Rules.preset("pagat", players=5, friend_calls=1)
        >>> ac = [(parse_card("AC"), 1)]
        >>> PlayCore.calls_after(r, Trump(2, 0), 0, ac, [(0, "AC"), (3, "AC")])
        ([0], [1])
        >>> PlayCore.calls_after(r.replace(call_by_side="skipped"), Trump(2, 0), 0, ac, [(0, "AC"), (3, "AC")])
        ([3], [1])
        """
        cdef int n = rules.players, seat
        cdef PlayCore pc = PlayCore.start(rules, trump, maker, [Cards() for _ in range(n)], calls)
        cdef cnt_t tmp[NF]
        for seat, cards in plays:
            if not 0 <= seat < n:
                raise InvalidActionError(f"seat {seat} is not a seat from 0 to {n - 1}")
            to_counts(parse_cards(cards), tmp, rules, f"the play of seat {seat}")
            reveal(&pc.s, seat, tmp)
        return pc.calls_filled, [pc.s.call_seen[i] for i in range(pc.s.ncalls)]

    @staticmethod
    def resume(rules, trump, int maker, hands, calls, calls_filled, call_seen, points, penalties,
               int tricks_done, int leader, trick_plays, played=()):
        """Rebuild a play phase in progress (for a determinized world).

        ``hands`` are the current holdings; ``trick_plays`` the plays of the
        trick under way, from ``leader``; ``calls_filled`` the seat that filled
        each call (or None) and ``call_seen`` the copies of each called face
        played so far. No throw is re-checked: the trick stands as it was.
        ``played``: the cards of the earlier tricks (what the leader has seen,
        read under ``throw_check`` ``safe``).
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
        to_counts(parse_cards(played), pc.s.played, rules, "played")
        pc.s.leader = leader
        pc.s.turn = len(trick_plays)
        for i, p in enumerate(trick_plays):
            to_counts(p, pc.s.trick[i], None, "trick")
            for f in p:
                pc.s.played[f] += 1
            for f in p:
                pc.s.trick_pts += POINTS[f]
        if trick_plays:
            to_counts(trick_plays[0], tmp, None, "lead")
            if c_read_play_lead(&pc.s.ctx, tmp, pc.s.fl, &pc.s.lead) != 0:
                raise InvalidActionError("the trick's lead is not one suit")
            for i in range(pc.s.turn):
                pc.s.turn = i
                track(&pc.s)
            pc.s.turn = len(trick_plays)
        settle_done(&pc.s)
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
        """True when the play is over: every card has been played, or a failed throw ended it
        (:attr:`ended`)."""
        return bool(self.s.done)

    @property
    def ended(self) -> bool:
        """True when a failed throw ended the play (``failed_throw`` ``end_deal``), cards left in hands."""
        return bool(self.s.ended)

    @property
    def left_points(self) -> int:
        """Card points left in hands when a failed throw ended the play (0 otherwise), the thrower's opponents'."""
        return self.s.left_pts

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
    def calls_seen(self) -> list:
        """For each friend call, the copies of its face that have counted toward it."""
        return [self.s.call_seen[i] for i in range(self.s.ncalls)]

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
    def holder(self) -> int:
        """The seat whose play holds the trick under way so far (the engine's
        running best play), or -1 before its lead."""
        if self.s.turn == 0 or self.s.done:
            return -1
        return (self.s.leader + self.s.win_turn) % self.s.n

    @property
    def last_trick(self):
        """(winner seat, cards per play, cards of the largest unit) of the last trick played (once a failed
        throw ended the play, :attr:`ended`, the cards read the unit it kept as the last lead)."""
        return (self.s.last_winner, self.s.last_cards, self.s.last_unit)

    @property
    def lead_units(self) -> list:
        """The current trick's lead read into units (empty before the lead)."""
        from .cards import Unit
        cdef int i, j
        if self.s.turn == 0:
            return []
        if self.s.lead.esuit == RAINBOW:
            return make_lead(from_counts(self.s.trick[0]), self.trump, self.rules).units
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
        if code in (7, 8, 9):
            return LEAD_RULE_ERRORS[code - 6]
        if code in (5, 6):
            return follow_error(from_counts(self.s.hand[seat]), from_counts(self.s.trick[0]), cards,
                                self.trump, self.rules)
        return _ERRORS[code]

    @property
    def last_stopper(self) -> int:
        """The seat that showed the cards beating the last failed throw (the
        first seat after the leader able to beat its kept unit, or under
        ``failed_throw_unit`` ``first_found`` the seat it was found in), or
        -1 if no throw has failed. Views name it only under ``throw_stopper``
        ``shown``."""
        return self.s.stopper

    def can_play(self, cards) -> bool:
        """True when the current player may play ``cards``."""
        cdef cnt_t c[NF]
        to_counts(cards, c, None, "play")
        return play_error(&self.s, c) == 0

    def play(self, cards, bint check=True):
        """Play ``cards`` for the current player.

        Returns ``(seat, cards actually played, attempted throw or None)``: a
        throw that fails is replaced by the unit that must be led instead (under ``failed_throw``
        ``end_deal`` that unit is returned but nothing is played: the play has :attr:`ended`).
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
        if self.s.ended:                # the throw failed and ended the play: its kept unit, never played
            return seat, from_counts(self.s.kept), from_counts(self.s.attempt)
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

    def playout(self, rng) -> None:
        """Finish the play in C with random legal plays (the policies a search
        plays out with live in :mod:`bots.search`)."""
        cdef uint64_t r = seed_from(rng)
        with nogil:
            random_playout(&self.s, &r)


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
            random_playout(&s, &r)
            total += s.points[0]
    return total
