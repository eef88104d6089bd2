"""A seat's view of the public history read into the tables the sampler
(:mod:`core.sample`) conditions on: each face's effective suit and level,
the tricks with the failed throws matched to them, what each seat played
since a trick, the unseen cards, and the trick each no-set fact dates from.

>>> import random
>>> from core.rules import Rules
>>> from core.state import PLAY_PHASE, State
>>> s = State(Rules.preset("pagat", players=5), seed=3)
>>> rng = random.Random(3)
>>> while s.phase != PLAY_PHASE or len(s.tricks) < 2:
...     s.apply(s.random_legal_action(rng))
>>> view = s.view(0)
>>> copies = counts(view.rules.deck())
>>> tricks, attempts, plays_by, played = public_history(view, copies)
>>> len(tricks) >= 2, sum(played) == sum(len(p) for _, ps in tricks for p in ps)
(True, True)
>>> unseen, rest = unseen_cards(view, copies, played, [1, 2, 3, 4])
>>> sum(unseen) == sum(view.hand_sizes[1:]) + rest
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Optional

from . import kernel
from .cards import NUM_FACES, Cards, Trump, parse_cards
from .errors import SamplingError
from .play import holds_set, no_set_width
from .rules import Rules
from .view import PlayerView

__all__ = ["NF", "Trick", "counts", "suits", "public_history", "since_table", "unseen_cards",
           "match_failed_throws", "no_set_tricks", "known_holdings", "known_caps", "lower_cap"]

#: The number of faces (0..53).
NF = NUM_FACES

Trick = tuple[int, list[Cards]]                 # (leader, plays in seat order from the leader)


def counts(faces: Iterable[int]) -> list[int]:
    """How many copies of each face 0..53 ``faces`` hold.

    >>> counts([0, 0, 53])[:2], counts([0, 0, 53])[53]
    ([2, 0], 1)
    """
    c = [0] * NF
    for f in faces:
        c[f] += 1
    return c


def suits(trump: Optional[Trump], rules: Rules) -> tuple[list[int], list[int], list[list[int]]]:
    """Each face's effective suit (4: trumps) and level under ``trump`` (all 0 while the trump is not
    known), and the faces of each effective suit."""
    ctx = kernel.context(trump, rules.tractor_past_ace) if trump is not None else None
    esuit = [ctx.effective_suit(f) for f in range(NF)] if ctx is not None else [0] * NF
    lvl = [ctx.level(f) for f in range(NF)] if ctx is not None else [0] * NF
    suit_faces = [[f for f in range(NF) if esuit[f] == e] for e in range(5)]
    return esuit, lvl, suit_faces


def public_history(view: PlayerView, copies: list[int]) -> tuple[
        list[Trick], dict[int, Cards], list[list[tuple[int, Cards]]], list[int]]:
    """The public play history, the source of every bound that refers to a trick: the tricks as
    ``(leader, plays)`` (the current trick last, if begun), the failed throws matched to their tricks
    (trick -> attempted cards, :func:`match_failed_throws`), each seat's plays as ``(trick, cards)``
    and the copies of each face played."""
    n = view.players
    tricks = [(ld, [parse_cards(p) for p in ps]) for ld, ps in view.tricks]
    cur_leader, cur_plays = view.current_trick
    if cur_plays:
        tricks.append((cur_leader, [parse_cards(p) for p in cur_plays]))
    attempts = match_failed_throws(view, tricks, copies, n, view.seat)
    plays_by: list[list[tuple[int, Cards]]] = [[] for _ in range(n)]     # seat -> [(t, cards)]
    played = [0] * NF
    for t, (ld, ps) in enumerate(tricks):
        for j, p in enumerate(ps):
            plays_by[(ld + j) % n].append((t, p))
            for f in p:
                played[f] += 1
    return tricks, attempts, plays_by, played


def since_table(plays_by: list[list[tuple[int, Cards]]]) -> Callable[[int, int], list[int]]:
    """``since(s, t)``: the faces seat s played in tricks t, t+1, ... (what it held at trick t besides
    its current hand), each list computed once."""
    since_cache: dict[tuple[int, int], list[int]] = {}

    def since(s: int, t: int) -> list[int]:
        """Faces seat s played in tricks t, t+1, ... (what it held at trick t
        besides its current hand)."""
        key = (s, t)
        got = since_cache.get(key)
        if got is None:
            got = [f for tt, p in plays_by[s] if tt >= t for f in p]
            since_cache[key] = got
        return got

    return since


def unseen_cards(view: PlayerView, copies: list[int], played: list[int], others: list[int]) -> tuple[list[int], int]:
    """The counts the view fixes: the unseen cards (per face, the deck less the viewer's hand, the cards
    played and the kitty when the viewer knows it), and ``rest``, how many of them are left for the kitty
    (or the stock) once every other seat has its hand size; a known kitty leaves none."""
    hand = view.hand
    known_kitty = view.kitty
    unseen = list(copies)
    for src in (hand, known_kitty or ()):
        for f in src:
            unseen[f] -= 1
    for f in range(NF):
        unseen[f] -= played[f]
        if unseen[f] < 0:
            raise SamplingError(f"the view shows more copies of face {f} than the deal holds")
    sizes = view.hand_sizes
    if sizes[view.seat] != len(hand):
        raise SamplingError("the view's hand size does not match its hand")
    rest = sum(unseen) - sum(sizes[s] for s in others)
    if rest < 0 or (known_kitty is not None and rest != 0):
        raise SamplingError("the unseen cards do not fill the other hands and the kitty")
    return unseen, rest


def match_failed_throws(view: PlayerView, tricks: list[Trick], copies: list[int], n: int,
                        me: int) -> dict[int, Cards]:
    """Trick index -> the attempted cards, for each failed throw of the view.

    The view lists failed throws in order without their trick, so each is
    matched to a trick led by that seat with the kept unit as its lead, the
    earliest assignment in which every attempt fits the cards accounted for.
    """
    fts = [(s, parse_cards(a), parse_cards(p)) for s, a, p in view.failed_throws]
    if not fts:
        return {}
    T = len(tricks)
    before = [[0] * NF]                               # played before trick t
    for _ld, ps in tricks:
        c = list(before[-1])
        for p in ps:
            for f in p:
                c[f] += 1
        before.append(c)
    by_seat_since: dict[tuple[int, int], list[int]] = {}

    def since(s: int, t: int) -> list[int]:
        key = (s, t)
        if key not in by_seat_since:
            by_seat_since[key] = counts(
                f for tt in range(t, T) for j, p in enumerate(tricks[tt][1])
                if (tricks[tt][0] + j) % n == s for f in p)
        return by_seat_since[key]

    hand = counts(view.hand)
    kitty = counts(view.kitty or ())

    def fits(i: int, t: int) -> bool:
        s, a, p = fts[i]
        ld, ps = tricks[t]
        if ld != s or ps[0] != p:
            return False
        ac = counts(a)
        if s == me:
            mine = since(me, t)
            return all(ac[f] <= hand[f] + mine[f] for f in range(NF))
        withdrawn = counts(a)
        for f in p:
            withdrawn[f] -= 1
        later = since(s, t + 1)
        for f in range(NF):
            held = ac[f] - withdrawn[f] + max(withdrawn[f], later[f])
            others = sum(since(o, t)[f] for o in range(n) if o != s)
            mine_now = hand[f] if me != s else 0
            if held + others + before[t][f] + mine_now + kitty[f] > copies[f]:
                return False
        return True

    out: dict[int, Cards] = {}

    def assign(i: int, t0: int) -> bool:
        if i == len(fts):
            return True
        for t in range(t0, T):
            if fits(i, t):
                out[t] = fts[i][1]
                if assign(i + 1, t + 1):
                    return True
                del out[t]
        return False

    assign(0, 0)
    return out


def no_set_tricks(tricks: list[Trick], esuit: list[int], rules: Rules, trump: Optional[Trump],
                  n: int) -> dict[tuple[int, int, int], int]:
    """The first trick at which each no-set fact follows, as the engine
    infers them (``State._infer``); the view lists the facts without it."""
    first: dict[tuple[int, int, int], int] = {}
    for t, (ld, ps) in enumerate(tricks):
        lead = ps[0]
        k = no_set_width(lead, trump, rules)
        if not k:
            continue
        e = esuit[lead[0]]
        for j in range(1, len(ps)):
            p = ps[j]
            if sum(1 for f in p if esuit[f] == e) >= len(lead) and not holds_set(p, k):
                first.setdefault(((ld + j) % n, e, k), t)
    return first


def known_holdings(view: PlayerView, maker: Optional[int], since: Callable[[int, int], list[int]],
                   tricks: list[Trick], attempts: dict[int, Cards], plays_by: list[list[tuple[int, Cards]]],
                   others: list[int], rest: int) -> tuple[dict[int, list[int]], list[int]]:
    """Shown cards and failed throws as lower bounds: ``need[s][f]``, the copies of face f that seat s
    surely holds now, and ``mk[f]``, the copies in the maker's hand or the kitty.

    A card shown in the draw (exposed, defended, withdrawn, or a kitty card turned for the trump and
    shown as the maker's) stays in the shower's hand unless it played it since. For the maker it may
    have been buried: while the viewer does not know a kitty that is not empty it counts towards ``mk``;
    when the viewer knows the kitty, the copies there are not needed in the hand. The cards a failed
    throw attempted were in the leader's hand at its trick, so those not played since are held now.
    ``maker``: the seat whose hand or kitty holds what it showed (the burier); ``since(seat, t)``:
    the cards the seat played from trick ``t`` on (:func:`since_table`); ``rest``: the cards left
    for the kitty or stock.
    """
    me = view.seat
    known_kitty = view.kitty
    need = {s: [0] * NF for s in others}
    mk = [0] * NF
    shown: dict[int, list[int]] = {}
    for s, _kind, text in view.exposures:
        c = counts(parse_cards(text))
        m = shown.setdefault(s, [0] * NF)
        for f in range(NF):
            if c[f] > m[f]:
                m[f] = c[f]
    played_by = [counts(f for _, p in plays_by[s] for f in p) for s in range(view.players)]
    # a kitty taken (rules.kitty_theft) carried what a burier had buried into another hand, and that
    # hand may have buried it again: what the maker and the takers showed proves nothing
    moved = {s for s, kind, _ in view.exposures if kind == "steal"}
    if moved:
        moved.add(view.maker if view.maker is not None else -1)
    for s, m in shown.items():
        if s == me or s in moved:
            continue
        for f in range(NF):
            left = m[f] - played_by[s][f]
            if left <= 0:
                continue
            if s == maker:
                if known_kitty is not None:
                    left -= known_kitty.count(f)
                    if left > 0:
                        need[s][f] = max(need[s][f], left)
                elif rest > 0:
                    mk[f] = max(mk[f], left)
                else:
                    need[s][f] = max(need[s][f], left)
            else:
                need[s][f] = max(need[s][f], left)
    for t, (ld, _ps) in enumerate(tricks):
        a = attempts.get(t)
        if a is None or ld == me:
            continue
        sc = counts(since(ld, t))
        for f in set(a):
            left = a.count(f) - sc[f]
            if left > need[ld][f]:
                need[ld][f] = left
    return need, mk


def known_caps(view: PlayerView, since: Callable[[int, int], list[int]], tricks: list[Trick], copies: list[int],
               esuit: list[int], suit_faces: list[list[int]], others: list[int]) -> dict[int, list[int]]:
    """Voids and no-set facts as upper bounds: ``cap[s][f]``, the most copies of face f that seat s may
    hold now (at first the copies in the deck; the sampler's throw facts lower it further).

    A void ``(s, suit)`` caps every face of the suit at 0. A no-set fact ``(s, suit, k)`` caps each face
    of the suit at k - 1 copies in the hand as it was at the first trick where the engine infers the
    fact (now, when none does), less the copies played since (:func:`lower_cap`).
    """
    me = view.seat
    rules = view.rules
    assert rules is not None
    cap = {s: list(copies) for s in others}
    noset_t = no_set_tricks(tricks, esuit, rules, view.trump, view.players)
    for s, e in view.voids:
        if s != me:
            for f in suit_faces[e]:
                cap[s][f] = 0
    T = len(tricks)
    for (s, e, k) in view.no_sets:
        lower_cap(cap, since, me, s, noset_t.get((s, e, k), T), suit_faces[e], k)
    return cap


def lower_cap(cap: dict[int, list[int]], since: Callable[[int, int], list[int]], me: int, s: int, t: int,
              faces: Iterable[int], k: int) -> None:
    """Seat s held at most k - 1 copies of each face at trick t: lower its ``cap`` to that less the
    copies it played since (not below 0). The viewer ``me`` needs no caps."""
    if s == me:
        return
    sc = counts(since(s, t))
    cs = cap[s]
    for f in faces:
        v = k - 1 - sc[f]
        if v < cs[f]:
            cs[f] = max(v, 0)
