# cython: language_level=3
"""The playout policies of the search in C, on the play engine that
``core/_play.pxd`` exports (the tree, :mod:`bots.search._tree`, calls them
through ``_policy.pxd``).

Policies (the ``policy`` numbers): 0 plays at random (the engine's random
legal play), 1 follows greedily (of a few random legal follows, win a trick
worth points cheaply, else give away little), 2 also leads greedily (a card
or pair no opponent can beat) and feeds points to a partner known to hold the trick.

With ``race`` (a chance; greedy policies only) the playouts model the friend
race for every seat: a seat off the maker's side that can play, alone, a copy
filling an open call (a lead, or a follow of one card) plays it with that
chance, and a seat on the maker's side keeps back a copy that would fill
another call. Whether a copy fills a call is the play engine's rule
(``call_fills`` in ``core/_play.pxd``).
"""

from libc.string cimport memset, memcpy
from libc.stdint cimport uint64_t

from core._kernel cimport (NF, NSUIT, cnt_t, CLead, c_read_play_lead, c_random_follow, c_strength, c_card_margin,
                           suit_total, xbelow, seed_from, from_counts, held_faces, low_bit)
from core._play cimport PlayS, PlayCore, play_apply, random_play, failing_unit, beats_best, points_table, call_fills

from core.cards import Cards
from core.errors import IllegalActionError, InvalidActionError

cdef enum:
    GREEDY_CANDIDATES = 4     # random follows weighed when several cards were led

cdef const int* POINTS = points_table()

POLICIES = (0, 1, 2)
_POLICY_ERROR = "policy: 0 (random), 1 (greedy follows) or 2 (greedy leads too)"


cdef inline int tie_wins(uint64_t* rng, int* ties) noexcept nogil:
    """One more play scores as well as the best: does it take the best's place?
    (Each of the tied plays ends up chosen with the same chance.)"""
    ties[0] += 1
    return xbelow(rng, ties[0]) == 0


cdef inline int greedy_score(PlayS* s, const cnt_t* play, int st, int cl, int pts, int cost, int mate) noexcept nogil:
    """Win a trick worth points, paying little; otherwise give away little.
    With ``mate`` (the trick's holder is known to be on the player's side),
    feed it points instead."""
    if mate:
        return 4 * pts - cost
    if beats_best(s, play, st, cl) and s.trick_pts + pts > 0:
        return 4 * (s.trick_pts + pts) - cost
    return -4 * pts - cost


cdef inline int face_cost(PlayS* s, int f) noexcept nogil:
    return s.ctx.lvl[f] + (16 if s.ctx.esuit[f] == 4 else 0)


cdef int known_mates(PlayS* s, int a, int b) noexcept nogil:
    """Are seats ``a`` and ``b`` known to be on one side? Known when both have
    shown they are on the maker's side, or when every friend is found (then an
    unrevealed seat is an opponent); with fixed partners (no calls) always."""
    cdef int i
    if s.side[a] and s.side[b]:
        return 1
    for i in range(s.ncalls):
        if s.call_by[i] < 0:
            return 0
    return s.side[a] == s.side[b]


cdef inline int mate_holds(PlayS* s, int seat) noexcept nogil:
    """Is the trick's best play so far known to be by the seat's own side?"""
    return known_mates(s, (s.leader + s.win_turn) % s.n, seat)


cdef int fills_call(PlayS* s, int seat, int f) noexcept nogil:
    """Would one copy of ``f`` played now by ``seat`` fill an open call (the
    engine's rule, :func:`core._play.call_fills`)?"""
    cdef int i
    for i in range(s.ncalls):
        if s.call_face[i] == f and call_fills(s, i, seat, 1):
            return 1
    return 0


cdef inline int on_side(PlayS* s, int seat) noexcept nogil:
    """Is ``seat`` on the maker's side already (the maker or a revealed friend)?"""
    return seat == s.maker or s.side[seat] != 0


cdef int race_play(PlayS* s, uint64_t* rng, int race, cnt_t* out) noexcept nogil:
    """The friend race in a playout: a seat off the maker's side that can
    play, alone, a copy filling an open call (a lead, or a follow of a single
    card) plays it, with chance ``race`` / 65536, the lowest such face first.
    Returns 1 when it does (the play in ``out``)."""
    cdef int seat = (s.leader + s.turn) % s.n, f, i, e = -1, pick = -1
    cdef const cnt_t* hand = s.hand[seat]
    if on_side(s, seat):
        return 0
    if s.turn > 0:
        if s.lead.n != 1:
            return 0
        if suit_total(&s.ctx, hand, s.lead.esuit) > 0:
            e = s.lead.esuit
    for i in range(s.ncalls):           # the lowest called face held that fills its call
        f = s.call_face[i]
        if (pick < 0 or f < pick) and hand[f] and (e < 0 or s.ctx.esuit[f] == e) and call_fills(s, i, seat, 1):
            pick = f
    if pick < 0 or <int> xbelow(rng, 65536) >= race:
        return 0
    memset(out, 0, NF)
    out[pick] = 1
    return 1


cdef inline int kept_back(PlayS* s, int seat, int f, int race) noexcept nogil:
    """With the race modelled: a copy that would fill a call for a seat on the
    maker's side already (its side would lose a member) is played last."""
    return race and on_side(s, seat) and fills_call(s, seat, f)


cdef void greedy_single(PlayS* s, const cnt_t* hand, uint64_t* rng, cnt_t* out, int sides,
                        int race) noexcept nogil:
    """A single card led: score every legal card, take a best one (ties at random)."""
    cdef int e = s.lead.esuit, f, i, x, st, cl, score, best = -1000000, ties = 0, pick = -1
    cdef int follow = suit_total(&s.ctx, hand, e) > 0
    cdef int seat = (s.leader + s.turn) % s.n
    cdef int mate = sides and mate_holds(s, seat)
    cdef uint64_t m = held_faces(hand)
    while m:
        f = low_bit(m)
        m &= m - 1
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
        # one card led: no throw, so the play's cards are not looked at
        score = greedy_score(s, NULL, st, cl, POINTS[f], face_cost(s, f), mate)
        if kept_back(s, seat, f, race):
            score -= 100000
        if score > best:
            best = score
            pick = f
            ties = 1
        elif score == best and tie_wins(rng, &ties):
            pick = f
    memset(out, 0, NF)
    out[pick] = 1


cdef void greedy_follow(PlayS* s, uint64_t* rng, cnt_t* out, int sides, int race) noexcept nogil:
    """Follow greedily: win a trick worth points cheaply, else give away the
    fewest points and low cards. Every card is scored when one card was led;
    otherwise the best of a few random legal follows is taken."""
    cdef int seat = (s.leader + s.turn) % s.n
    cdef cnt_t cand[NF]
    cdef int c, f, st, cl, pts, cost, score, best = -1000000
    cdef int mate
    cdef uint64_t m
    if s.lead.n == 1:
        greedy_single(s, s.hand[seat], rng, out, sides, race)
        return
    mate = sides and mate_holds(s, seat)
    for c in range(GREEDY_CANDIDATES):
        c_random_follow(&s.ctx, s.hand[seat], &s.lead, s.fl, rng, cand)
        cl = 0
        st = c_strength(&s.ctx, cand, &s.lead, &cl, s.fl.throw_win, s.fl.bombs)
        pts = 0
        cost = 0
        m = held_faces(cand)
        while m:
            f = low_bit(m)
            m &= m - 1
            pts += POINTS[f] * cand[f]
            cost += face_cost(s, f) * cand[f]
        score = greedy_score(s, cand, st, cl, pts, cost, mate)
        if score > best:
            best = score
            memcpy(out, cand, NF)


cdef void greedy_lead(PlayS* s, uint64_t* rng, cnt_t* out, int race) noexcept nogil:
    """Lead in a known world: a single or a pair that no opponent can beat
    (no higher card of its suit, no void seat to trump it), the more points
    the better; with none, the cheapest card without points. A seat known to
    be a partner (:func:`known_mates`: always with fixed partners) is no
    threat: if it wins the trick, the points stay with the side, and its own
    greedy follow feeds the trick rather than taking it over."""
    cdef const cnt_t* hand = s.hand[s.leader]
    cdef int me = s.leader, p, f, e, i, k, c, x, pts, score, best = -1000000, ties = 0, pick = -1, size = 1
    cdef int top1[NSUIT]
    cdef int top2[NSUIT]
    cdef int ruff1[NSUIT]
    cdef int ruff2[NSUIT]
    cdef int cnt[NSUIT]
    cdef int tpair
    cdef uint64_t m
    for e in range(NSUIT):
        top1[e] = -1
        top2[e] = -1
        ruff1[e] = 0
        ruff2[e] = 0
    for p in range(s.n):
        if p == me or s.held[p] == 0 or known_mates(s, p, me):
            continue
        for e in range(NSUIT):
            cnt[e] = 0
        tpair = 0
        m = held_faces(s.hand[p])
        while m:
            f = low_bit(m)
            m &= m - 1
            c = s.hand[p][f]
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
    m = held_faces(hand)
    while m:
        f = low_bit(m)
        m &= m - 1
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
            if kept_back(s, me, f, race):
                score -= 100000
            if score > best:
                best = score
                pick = f
                size = k
                ties = 1
            elif score == best and tie_wins(rng, &ties):
                pick = f
                size = k
    out[pick] = size


cdef void choose(PlayS* s, uint64_t* rng, int policy, int race, cnt_t* out) noexcept nogil:
    """The play ``policy`` makes for the player to move (the one place a policy
    number is read); with ``race`` (a chance in 65536, greedy policies only)
    the friend race and copies kept back are modelled too."""
    if policy >= 1 and race and s.ncalls and race_play(s, rng, race, out):
        return
    if policy >= 1 and s.turn > 0:
        greedy_follow(s, rng, out, policy == 2, race)
    elif policy == 2:
        greedy_lead(s, rng, out, race)
    else:
        random_play(s, rng, out)


cdef void playout_with(PlayS* s, uint64_t* rng, int policy, int race) noexcept nogil:
    """Play the deal to its end with ``policy`` (and ``race``: :func:`choose`)."""
    cdef cnt_t out[NF]
    while not s.done:
        choose(s, rng, policy, race, out)
        play_apply(s, out)


cdef int check_policy(int policy) except -1:
    if policy not in POLICIES:
        raise InvalidActionError(_POLICY_ERROR)
    return 0


cdef int race_units(double race) except -1:
    """The race's chance as a threshold out of 65536 (checked: 0 to 1)."""
    if not 0.0 <= race <= 1.0:
        raise InvalidActionError(f"race: a chance from 0 to 1, not {race}")
    return <int> (race * 65536 + 0.5)


cdef void random_standing_play(PlayS* s, uint64_t* rng, cnt_t* out, int tries) noexcept nogil:
    """A random legal play (the engine's ``random_play``), where a lead that
    is a throw failing against the hands as they are (``failing_unit``) is
    drawn again, up to ``tries`` times (the last draw is kept whatever it is)."""
    cdef CLead tmp
    cdef int by, seat = s.leader
    random_play(s, rng, out)
    if s.turn != 0:
        return
    while tries > 0:
        c_read_play_lead(&s.ctx, out, s.fl, &tmp)
        if tmp.nu < 2 or failing_unit(s, seat, &tmp, &by) < 0:
            return
        tries -= 1
        random_play(s, rng, out)


def standing_play(PlayCore pc, rng, int tries=0) -> Cards:
    """A random legal play for the current player of ``pc``, a throw that
    fails against the hands as they are drawn again up to ``tries`` times
    (the search's widening with ``standing``; 0 draws as ``pc.random_play``)."""
    cdef cnt_t out[NF]
    cdef uint64_t r = seed_from(rng)
    if pc.s.done:
        raise InvalidActionError("the deal is over")
    if tries < 0:
        raise ValueError("standing: redraws cannot be negative")
    random_standing_play(&pc.s, &r, out, tries)
    return from_counts(out)


def policy_play(PlayCore pc, rng, int policy=0, double race=0.0) -> Cards:
    """The play a playout with ``policy`` would make now in ``pc``, without making it
    (``race``: the chance a seat off the maker's side plays a copy that fills
    an open call at once, and whether seats on it hold such copies back).

    >>> import random
    >>> from core import Phase, Rules, State
    >>> s = State(Rules.preset("pagat", players=5), seed=1)
    >>> while s.phase != Phase.PLAY:
    ...     s.apply(s.random_legal_action(random.Random(0)))
    >>> play = policy_play(s.play, random.Random(2), 2)
    >>> s.play.can_play(play)
    True
    """
    cdef cnt_t out[NF]
    cdef uint64_t r = seed_from(rng)
    check_policy(policy)
    cdef int units = race_units(race)
    if pc.s.done:
        raise IllegalActionError("the deal is over")
    choose(&pc.s, &r, policy, units, out)
    return from_counts(out)


def playout(PlayCore pc, rng, int policy=0, double race=0.0) -> None:
    """Finish the play of ``pc`` in C with ``policy`` (random: 0; greedy
    follows: 1; greedy leads and partner-aware follows too: 2) and ``race``
    (:func:`policy_play`)."""
    cdef uint64_t r = seed_from(rng)
    check_policy(policy)
    cdef int units = race_units(race)
    with nogil:
        playout_with(&pc.s, &r, policy, units)
