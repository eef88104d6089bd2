# cython: language_level=3
"""The ISMCTS statistics tree of :class:`bots.ismcts.IsmctsBot` in C, on the
play engine that ``core/_play.pxd`` exports; its playouts and widening are the
policies of :mod:`bots.search._policy`.
"""

from libc.string cimport memset, memcpy, memcmp
from libc.stdint cimport uint64_t
from libc.stdlib cimport malloc, realloc, free
from libc.math cimport sqrt, log, pow, ceil

from core._kernel cimport NF, cnt_t, c_card_margin, multiplier_code, seed_from, from_counts, to_counts
from core._play cimport PlayS, PlayCore, play_error, play_apply, deal_opponents_points

from bots.search._policy cimport choose, playout_with, check_policy, race_units, random_standing_play

from core.errors import InvalidActionError


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

    >>> import random
    >>> from core import Phase, Rules, State
    >>> s = State(Rules.preset("pagat", players=5), seed=1)
    >>> while s.phase != Phase.PLAY:
    ...     s.apply(s.random_legal_action(random.Random(0)))
    >>> tree = SearchTree(s.rules, s.play.current_player, 0.7, 1.0, 0.5, 2)
    >>> rng = random.Random(3)
    >>> for _ in range(50):
    ...     tree.iterate(s.play.clone(), rng, 0)
    >>> tree.visits, sum(v for _, v, _, _ in tree.root_children()) == 50
    (50, True)
    >>> all(s.play.can_play(cards) for cards, *_ in tree.root_children())
    True
    """

    cdef TNode* nodes
    cdef int count
    cdef int capacity
    cdef double c
    cdef double widen_c
    cdef double widen_alpha
    cdef int policy
    cdef int others_policy
    cdef int race
    cdef int standing
    cdef int me
    cdef int game_reward
    cdef int total_points
    cdef int mult_kind
    cdef object game_value
    cdef int path_node[MAXPATH]
    cdef int path_player[MAXPATH]

    def __cinit__(self, rules, int me, double c, double widen_c, double widen_alpha, int policy,
                  bint others_policy=False, game_value=None, double race=0.0, int standing=0):
        check_policy(policy)
        if standing < 0:
            raise ValueError("standing: redraws cannot be negative")
        self.race = race_units(race)
        self.standing = standing
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

    def seed(self, cards) -> None:
        """Add ``cards`` as a root child before the search (a prior's play,
        searched whatever widening draws); nothing if it is there already."""
        cdef cnt_t c[NF]
        to_counts(cards, c, None, "play")
        if self._find_child(0, c) < 0:
            self._add_child(0, c)

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
            random_standing_play(s, &r, out, self.standing)
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
            random_standing_play(s, &r, out, self.standing)
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
                choose(s, &r, self.policy, self.race, out)
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
            playout_with(s, &r, self.policy, self.race)
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
