"""Determinization: deal the cards a seat cannot see, consistently with its view.

:func:`sample_world` takes a :class:`~core.state.PlayerView` and an ``rng`` and
returns a :class:`World`: a hand for every seat (the viewer's own hand exactly
as in the view) and the kitty (or, during the draw, the undealt ``stock``),
drawn from the cards the viewer has not seen so that everything the view
knows holds. For many samples of one view build a :class:`Sampler` once (it
precomputes the per-view tables) and call :meth:`Sampler.sample`.

>>> import random
>>> from core.rules import Rules
>>> from core.state import State, PLAY_PHASE
>>> s = State(Rules.preset("pagat", players=6), seed=4)
>>> rng = random.Random(1)
>>> while s.phase != PLAY_PHASE or len(s.tricks) < 5:
...     s.apply(s.random_legal_action(rng))
>>> view = s.view(2)
>>> w = sample_world(view, rng)
>>> w.hands[2] == view.hand, [len(h) for h in w.hands] == list(view.hand_sizes), len(w.kitty)
(True, True, 6)

What the view knows, and how each fact is used:

- *Counts.* The unseen cards are the deck minus the viewer's hand, every card
  played (finished tricks and the current one) and the kitty when the viewer
  knows it (the maker, or everyone once the opponents took it). Every other
  seat gets exactly ``hand_sizes[seat]`` of them; the rest is the kitty
  (during the bury phase: what the maker has buried so far), or during the
  draw the undealt ``stock``.
- *Shown cards.* A card shown during the draw (exposure, defence, or an
  exposure later withdrawn) was in the shower's hand, and a hand only grows
  during the draw: the seat still holds it unless it played it later. The
  maker may have buried it, so for the maker it is "in the hand or in the
  kitty" while the viewer does not know the kitty. The kitty cards turned to
  find the trump suit (``heli`` / ``stack`` with nobody exposing; exposure
  kind ``"turned"``, shown as the maker's) went to the maker with the kitty,
  so they are the same kind of fact.
  With ``rules.kitty_theft``, once a seat took the kitty (a ``"steal"``
  exposure) the kitty's cards may have passed through several hands, so the
  cards shown by the maker and by every seat that took it prove nothing;
  the seat that buried last (``view.burier``) plays the maker's part above.
- *Failed throws.* The attempted cards were in the leader's hand when it led;
  those taken back stay there until played.
- *Voids* ``(seat, suit)``: no card of that effective suit.
- *No sets* ``(seat, suit, k)``: inferred at some trick, when the seat still
  held the cards it played since; so its current hand plus those cards holds
  fewer than ``k`` copies of each face of the suit (a per-face cap).
- *Throws.* A throw that stood means no other hand (at that time) could beat
  any of its units; a failed throw means some other hand could beat the unit
  kept, and (``smallest_lowest``) none could beat a smaller unit. Singles and
  sets give per-face caps; tractors, ``first_found`` and "someone could beat
  it" are checked on each sampled deal.
- *Follows* the void and no-set facts do not capture (answers to tractors
  and throws, the smaller sets a ``follow_ladder`` owes, and every set lead
  under ``protect_longer_sets``) are checked with the kernel on the sampled hands
  as they were at that trick. Under ``follow_format=count`` a follow owes
  only cards of the led suit, so the voids are all it shows.

So every sampled world is one in which replaying the public history gives
the viewer the same view (``tests/core/test_sample.py`` checks exactly that).

How it samples. Caps of 0 (voids, and faces a seat provably lacks) split the
unseen cards into classes with the same allowed destinations. How many cards
of each class go to each group of interchangeable destinations is drawn from
its exact distribution under a uniform deal: a dynamic programme over the
groups, counting completions with exact integers, built once per view
(classes that the groups still to come treat alike are merged, which keeps
it small). The cards themselves are then dealt uniformly: each class is
shuffled once and dealt from the front, with hypergeometric splits where
classes merged. Cards known to be in a hand are placed first and the deal is
kept with probability ``1 / C(copies there, copies known)`` (and likewise for
the maker's hand plus the kitty), so a face of which only some copies are
known is not over-weighted. Caps above 0, the throw and follow checks reject
the whole deal, which is redrawn. When the table would be too big to count
(many seats with different small exclusions, e.g. 12 players late in a
deal), the exclusions easiest to meet by chance are left to the per-sample
caps check instead (``Sampler.checks["demoted"]``). Either way the result is
the uniform distribution over the deals that agree with the facts above, the
one plain rejection sampling gives; what remains is floating-point rounding
(about 1e-16 on table and split probabilities, and ties among random sort
keys, about n**2 / 2**53). Only where the table is too big even then (ten
or more seats with five or six packs, late in a deal) the classes are dealt
one after another, tightest first, each card to an allowed destination with
odds by its room (:class:`core.dealing.SequentialDeal`): every fact still
holds in every world, but the worlds are no longer exactly uniform
(``Sampler.checks["sequential"]`` is 1).

Where ``Sampler.FRESH_TRIES`` fresh deals in a row all fail (twelve seats,
six packs, failed throws and follows: late in such a deal, up to two thirds of the
samples), a sample walks from the last world found instead (:mod:`core.sample_walk`: a chain of
swaps with the fresh deals' distribution; ``Sampler.walks`` counts them).

Not modelled here, as they are choices rather than facts: why a seat
exposed, passed, buried, called or played what it did. A model of choices
reweighs or moves the cards of these worlds on top (the maker's burial and
calls: :mod:`bots.search.belief`), and :meth:`Sampler.agrees` tells it
whether a world it changed still agrees with every fact.

Limits of the view itself:

- ``failed_throws`` carry no trick number. Each is matched to a trick led by
  that seat with the kept unit as lead (the earliest assignment in which
  every attempt fits the cards accounted for). When a seat led the same unit
  in two tricks and only one was a failed throw (possible with two or more
  packs), the view cannot tell which; both histories give the same view, but
  the sampler conditions on the earliest one only.
- ``no_sets`` carry no trick number; it is recomputed from the tricks the way
  the engine infers the facts (a fact not found that way is taken as of now,
  which is true but weaker).
"""

from __future__ import annotations

import random
from math import comb
from typing import TYPE_CHECKING, Any, NamedTuple, Optional, cast

from . import kernel
from .cards import Cards
from .dealing import Bounds, SequentialDeal, deal_demoting, place_known, room, sorted_hands
from .errors import SamplingError
from .history import (NF, Trick, counts, known_caps, known_holdings, lower_cap, public_history, since_table,
                      suits, unseen_cards)
from .play import no_set_width
from .sample_checks import Beat, as_cards, beaten, deal_checks, history_ok
from .sample_walk import Homes, SwapWalk

if TYPE_CHECKING:
    from .cards import Unit
    from .view import PlayerView

__all__ = ["World", "Sampler", "sample_world", "SamplingError"]


class World(NamedTuple):
    """One determinization: ``hands[seat]`` for every seat, the ``kitty``
    (empty during the draw) and the undealt ``stock`` (only during the draw)."""

    hands: list[Cards]
    kitty: Cards
    stock: Cards


class Sampler:
    """Per-view tables for drawing many :class:`World` values fast.

    ``max_tries`` bounds the redraws of the first sample (a
    :class:`SamplingError` says so when they run out); once a world is found,
    a sample whose ``FRESH_TRIES`` fresh deals all fail walks from the last
    world instead (see the module docstring). ``tries`` counts the deals and
    swaps tried, ``samples`` the samples returned and ``walks`` those of them
    that came from the walk. ``demote_from``: demotions before the first table is
    counted (:func:`core.dealing.deal_demoting`); ``rounds``: this view's, a hint for the next.
    """

    @property
    def checks(self) -> dict[str, int]:
        """How many facts each sample is checked against (the rest are built
        into the deal): ``caps`` (at most c copies of a face in a hand),
        ``known`` (weights of cards known to be in a hand or the kitty),
        ``beats`` (someone could beat a failed throw's kept unit), ``throws``
        and ``follows`` (replayed with the kernel), ``demoted`` (cards
        whose exclusions were left to the caps check to keep the table small),
        and ``sequential`` (1 when the table was too big even so, and the
        cards are dealt by :class:`core.dealing.SequentialDeal`)."""
        kinds = [k for k, _ in self._checks]
        return {"caps": len(self._cap_checks), "known": len(self._need_checks) + len(self._mk_checks),
                "beats": len(self._beats), "throws": kinds.count("throw"),
                "follows": kinds.count("follow"), "demoted": self.demoted,
                "sequential": int(isinstance(self._deal, SequentialDeal))}

    def __init__(self, view: PlayerView, max_tries: int = 100_000, demote_from: int = 0) -> None:
        self.view = view
        self.max_tries = max_tries
        self.tries = self.samples = 0
        if view.rules is None:
            raise SamplingError("the view carries no rules")
        self.rules = rules = view.rules
        self.n = n = view.players
        self.me = me = view.seat
        self._draw = view.phase == "draw"
        # the seat whose hand or kitty holds what it showed: the burier (the maker unless the kitty was taken)
        self._maker = view.burier if not self._draw else None
        others = [s for s in range(n) if s != me]
        copies = counts(rules.deck())
        esuit, lvl, suit_faces = suits(view.trump, rules)
        tricks, attempts, plays_by, played = public_history(view, copies)
        self._since = since_table(plays_by)
        unseen, rest = unseen_cards(view, copies, played, others)
        need, mk = known_holdings(view, self._maker, self._since, tricks, attempts, plays_by, others, rest)
        cap = known_caps(view, self._since, tricks, copies, esuit, suit_faces, others)
        # (kind, data) checked per sample: ("follow", (t, seat, lead, play)) or ("throw", (t, leader, lead,
        # kept or None, the sets that could beat it or None, the stopper shown or -1)), as the replay reads it
        self._checks: list[tuple[str, tuple[Any, ...]]] = []
        self._beats: list[Beat] = []                    # failed throws some other hand could beat
        self._trick_facts(tricks, attempts, cap, esuit, lvl, suit_faces, copies)
        # the facts as they stand, for agrees(): a world built another way is checked against them
        self._cap, self._need, self._sizes = cap, need, tuple(view.hand_sizes)
        #: the faces the maker's hand and the kitty must hold together, with how many
        self._mk_need = [(f, k) for f, k in enumerate(mk) if k]
        self._unseen = list(unseen)
        self._bounds: Optional[dict[int, list[tuple[int, int, int]]]] = None
        self._checks_of: dict[tuple[int, ...], list[tuple[str, tuple[Any, ...]]]] = {}
        pool, fixed, mk = place_known(unseen, need, mk, cap, self._maker)
        cap_left, dests = room(view.hand_sizes, rest, fixed, n)
        classes = self._classes(pool, mk, cap, need, dests, esuit, others)
        self._deal, demoted, self.rounds = deal_demoting(classes, dests, cap_left, demote_from)
        self.demoted = sum(len(classes[k]) for k in demoted)
        self._cap_checks, self._need_checks, self._mk_checks = deal_checks(
            classes, demoted, pool, mk, cap, need, others, self._maker)
        self._fixed_items = [(d, fx) for d, fx in fixed.items() if fx]
        self._hand_ids = tuple(others)
        self._hands0 = [view.hand if s == me else None for s in range(n)]
        self._R = n                                      # the rest pile: the kitty, or the stock in the draw
        self._known_kitty = view.kitty
        loose = {f for f, (fine, coarse, _) in self._homes.items() if (fine, coarse) in demoted}
        self._walker = SwapWalk(self._homes, loose, mk, (*others, n), self._fixed_items, self._fits, self._weight,
                                self._world, self._agrees)
        self._last: Optional[list[list[int]]] = None     # the last fresh deal's piles, where a walk starts
        self.walks = 0

    # ------------------------------------------------ the steps of __init__ (the view's tables: core.history)
    def _trick_facts(self, tricks: list[Trick], attempts: dict[int, Cards], cap: Bounds, esuit: list[int],
                     lvl: list[int], suit_faces: list[list[int]], copies: list[int]) -> None:
        """Leads and follows, trick by trick: a throw (two or more units, whether it stood or failed) lowers
        ``cap`` and adds to ``_checks`` and ``_beats`` (:meth:`_throw_facts`); a lead other than a single card
        (or a single set whose follows the no-set facts read, :func:`~core.play.no_set_width`: under ``follow_ladder``
        a pair only) adds the follows the voids and no-set facts do not capture to ``_checks`` (:meth:`_follow_facts`). Under
        ``follow_format=count`` a follow owes no shape, so the voids say all it shows."""
        rules = self.rules
        trump = self.view.trump
        by_count = rules.follow_format == "count"
        # who stopped each failed throw, where the views show it (failed_throws and attempts in trick order)
        shown = [x for x in self.view.throw_stoppers if x >= 0]
        self._stopper = dict(zip(sorted(attempts), shown)) if len(shown) == len(attempts) else {}
        for t, (ld, ps) in enumerate(tricks):
            lead = ps[0]
            attempt = attempts.get(t)
            thrown = attempt if attempt is not None else lead
            if rules.rainbow and kernel.make_lead(thrown, trump, rules).is_rainbow:
                self._rainbow_facts(t, ld, ps, thrown, attempt)
                continue
            units = kernel.decompose(thrown, trump, rules)
            e = esuit[lead[0]]
            if len(units) >= 2:
                self._throw_facts(t, ld, thrown, units, attempt, lead, lvl, suit_faces[e], cap)
            if by_count:
                continue
            lead_units = units if attempt is None else kernel.decompose(lead, trump, rules)
            # a single set's follows say no more than the no-set facts, but under follow_ladder only a
            # pair's: a wider set's ladder owes smaller sets too, which only a replay checks
            simple = len(lead_units) == 1 and lead_units[0].length == 1 and (
                lead_units[0].width == 1 or (no_set_width(lead, trump, rules) > 0
                                             and (not rules.follow_ladder or lead_units[0].width == 2)))
            if not simple:
                self._follow_facts(t, ld, ps, esuit, suit_faces[e], copies)

    def _rainbow_facts(self, t: int, ld: int, ps: list[Cards], thrown: Cards, attempt: Optional[Cards]) -> None:
        """A rainbow led at trick t (``rules.rainbow``): it has no suit, so it shows no void and no
        set; a throw of it is replayed per sample, and so is every other seat's follow (one that did
        not give each set its rank shows that the hand could not)."""
        trump = self.view.trump
        lead_obj = kernel.make_lead(thrown, trump, self.rules)
        if attempt is not None or len(lead_obj.units) >= 2:
            self._checks.append(("throw", (t, ld, lead_obj, ps[0] if attempt is not None else None, None,
                                          self._stopper.get(t, -1))))
        lead_obj = kernel.make_lead(ps[0], trump, self.rules)
        for j in range(1, len(ps)):
            if (ld + j) % self.n != self.me:
                self._checks.append(("follow", (t, (ld + j) % self.n, lead_obj, ps[j])))

    def _follow_facts(self, t: int, ld: int, ps: list[Cards], esuit: list[int], faces_e: list[int],
                      copies: list[int]) -> None:
        """The follows of trick t (led by ``ld``) as per-sample checks ``("follow", (t, seat, lead, play))``:
        every other seat that answered with at least as many cards of the led suit as the lead, unless
        (without ``protect_longer_sets``) even a hand holding every copy of the suit could play that answer,
        so that no hand can rule it out."""
        rules = self.rules
        trump = self.view.trump
        n = self.n
        me = self.me
        lead = ps[0]
        e = esuit[lead[0]]
        lead_obj = kernel.make_lead(lead, trump, rules)
        for j in range(1, len(ps)):
            s = (ld + j) % n
            p = ps[j]
            if s == me or sum(1 for f in p if esuit[f] == e) < len(lead):
                continue
            if not rules.protect_longer_sets:
                hmax = [f for f in faces_e for _ in range(copies[f])]
                hmax += [f for f in p if esuit[f] != e]
                if kernel.is_legal_follow(as_cards(hmax), lead_obj, p, trump, rules):
                    continue
            self._checks.append(("follow", (t, s, lead_obj, p)))

    def _throw_facts(self, t: int, ld: int, thrown: Cards, units: list[Unit], attempt: Optional[Cards], lead: Cards,
                     lvl: list[int], faces_e: list[int], cap: Bounds) -> None:
        """A throw (two or more units) led at trick t as caps and checks.

        A throw that stood: no other hand could beat any of its units. A single or a set caps, in every
        other hand, the faces of the suit above its level (:func:`~core.history.lower_cap` lowers ``cap``); a tractor leaves
        a per-sample ``("throw", ...)`` replay, skipped on a sample where no hand holds a set above a
        tractor's top. A failed throw (``attempt``, of which ``lead`` is the unit kept): under
        ``first_found`` it is replayed per sample; under ``smallest_lowest`` the units it would have kept
        before ``lead`` were unbeatable (caps again, or a replay for a tractor), and some other hand could
        beat ``lead``: a ``_beats`` entry, unless the viewer's hand or a set played since settles it (a
        replay instead when ``lead`` is a tractor or no unit of the attempt).
        """
        rules = self.rules
        n = self.n
        others = [(ld + j) % n for j in range(1, n)]
        if attempt is None:
            unbeatable = list(units)
            exists = None
        elif rules.failed_throw_unit == "first_found":
            lead_obj = kernel.make_lead(thrown, self.view.trump, rules)
            stopper = self._stopper.get(t, -1)
            self._checks.append(("throw", (t, ld, lead_obj, lead, None, stopper)))
            # replayed; before that, the stopper (or some seat) could beat the kept unit, the seats before it no set
            kept = [u for u in units if u.cards == lead]
            if kept and kept[0].length == 1:
                self._beatable(t, kept[0], [stopper] if stopper >= 0 else others, lvl, faces_e)
            if stopper in others:
                self._cannot_beat(t, others[:others.index(stopper)], units, lvl, faces_e, cap)
            return
        else:
            before = kernel.make_lead(thrown, self.view.trump, rules).kept_before(lead)
            unbeatable = [units[i] for i in before]
            exists = lead
        need_check = any(u.length >= 2 for u in unbeatable)
        self._cannot_beat(t, others, unbeatable, lvl, faces_e, cap)
        kept = [u for u in units if u.cards == lead] if exists is not None else []
        if exists is not None and (not kept or kept[0].length >= 2):
            need_check = True
        if need_check:
            lead_obj = kernel.make_lead(thrown, self.view.trump, rules)
            pre: Optional[tuple[list[tuple[frozenset[int], int]], list[tuple[int, dict[int, int]]]]] = None
            if exists is None:
                # a throw that stood: only a hand holding a set above a
                # tractor's top could beat it; if none does, skip the kernel
                pre = ([(frozenset(f for f in faces_e if lvl[f] > u.top), u.width)
                        for u in unbeatable if u.length >= 2], [])
                for s in others:
                    if s == self.me:
                        continue
                    sc = counts(self._since(s, t))
                    if any(sc[f] >= k for faces, k in pre[0] for f in faces):
                        pre = None
                        break
                    pre[1].append((s, {f: sc[f] for f in faces_e if sc[f]}))
            self._checks.append(("throw", (t, ld, lead_obj, exists, pre, self._stopper.get(t, -1))))
            return
        stopper = self._stopper.get(t, -1)
        if stopper >= 0:
            # the stopper shown (replayed): the first seat after the leader able to beat the kept unit
            lead_obj = kernel.make_lead(thrown, self.view.trump, rules)
            self._checks.append(("throw", (t, ld, lead_obj, lead, None, stopper)))
            if kept and stopper in others:
                self._cannot_beat(t, others[:others.index(stopper)], kept, lvl, faces_e, cap)
        if kept:
            self._beatable(t, kept[0], [stopper] if stopper in others else others, lvl, faces_e)

    def _cannot_beat(self, t: int, seats: list[int], units: list[Unit], lvl: list[int], faces_e: list[int],
                     cap: Bounds) -> None:
        """None of ``seats`` could beat a single or set of ``units`` at trick ``t``: caps (a tractor's is
        left to the replay)."""
        for u in units:
            if u.length == 1:
                higher = [f for f in faces_e if lvl[f] > u.top]
                for s in seats:
                    lower_cap(cap, self._since, self.me, s, t, higher, u.width)

    def _beatable(self, t: int, u: Unit, seats: list[int], lvl: list[int], faces_e: list[int]) -> None:
        """One of ``seats`` could beat the unit ``u`` (a single or a set) of a throw that failed at trick
        ``t``: settled if the viewer's hand could, or if one of them has played such a set since; else a
        ``_beats`` entry, checked on every sample."""
        higher = [f for f in faces_e if lvl[f] > u.top]
        entry = []
        for s in seats:
            held = counts(self._since(s, t) + (list(self.view.hand) if s == self.me else []))
            if any(held[f] >= u.width for f in higher):
                return
            if s != self.me:
                entry.append((s, {f: held[f] for f in higher if held[f]}))
        self._beats.append((frozenset(higher), u.width, entry))

    def _classes(self, pool: list[int], mk: list[int], cap: Bounds, need: Bounds, dests: list[int],
                 esuit: list[int], others: list[int]) -> dict[tuple[tuple[int, ...], tuple[int, ...]], list[int]]:
        """Caps of 0 as allowed destinations: the cards left to deal grouped into classes keyed by
        ``(fine, coarse)``. ``fine`` is where a card may go given every cap (a seat whose cap for the face is
        above the copies already placed there, and always the kitty or stock); ``coarse`` is where the voids
        alone allow it (a class may later be demoted to that). The maker-or-kitty copies ``mk`` form classes
        of their own, allowed only the maker and the rest pile. Each face's homes are kept for the walk."""
        R = self.n
        maker = self._maker
        void = {s: {e for v, e in self.view.voids if v == s} for s in others}

        def allowed_for(f: int, only: Optional[tuple[Optional[int], int]] = None) -> tuple[int, ...]:
            return tuple(d for d in dests
                         if (only is None or d in only)
                         and (d == R or cap[d][f] - need[d][f] > 0))

        def coarse_for(f: int) -> tuple[int, ...]:
            return tuple(d for d in dests if d == R or esuit[f] not in void[d])

        classes: dict[tuple[tuple[int, ...], tuple[int, ...]], list[int]] = {}
        self._homes: Homes = {}
        for f in range(NF):
            fine: tuple[int, ...] = ()
            coarse: tuple[int, ...] = ()
            a: tuple[int, ...] = ()
            if pool[f]:
                fine, coarse = allowed_for(f), coarse_for(f)
                classes.setdefault((fine, coarse), []).extend([f] * pool[f])
            if mk[f]:
                a = allowed_for(f, (maker, R))
                classes.setdefault((a, a), []).extend([f] * mk[f])
            if pool[f] or mk[f]:
                self._homes[f] = (fine, coarse, a)
        if any(not a for a, _ in classes):
            raise SamplingError("an unseen card has nowhere to go")
        return classes

    # ---------------------------------------------------------------- sample
    #: fresh draws a sample tries before walking from the last world found (once there is one)
    FRESH_TRIES = 4000
    #: swaps proposed by one step of the walk
    WALK_STEPS = 200

    def sample(self, rng: random.Random) -> World:
        """Draw one world (redrawing until every fact holds): fresh deals, up to
        ``max_tries`` while no world is found yet (then :class:`SamplingError`),
        else up to ``FRESH_TRIES`` before ``WALK_STEPS`` swaps of the walk
        from the last world (:mod:`core.sample_walk`)."""
        r = rng.random
        draw = self._deal.draw
        fixed = self._fixed_items
        caps = self._cap_checks
        beats = self._beats
        weighed = self._need_checks or self._mk_checks
        budget = self.max_tries if self._last is None else min(self.max_tries, self.FRESH_TRIES)
        # the checks of _fits and _weight, inline: this loop is the search's hot path
        for _ in range(budget):
            self.tries += 1
            base = draw(r)
            full = base
            if fixed:
                full = base[:]
                for s, fx in fixed:
                    full[s] = base[s] + fx
            if caps and any(full[s].count(f) > c for s, f, c in caps):
                continue
            if beats and not beaten(full, beats):
                continue
            if weighed:
                weight = self._weight(full)
                if weight > 1 and r() * weight >= 1:
                    continue
            w = self._world(full)
            if self._checks and not history_ok(self._checks, w.hands, self.view.trump, self.rules, self._since, self.n):
                continue
            self.samples += 1
            self._last = base                               # fresh lists: the walk may own them
            return w
        if self._last is None:
            raise SamplingError(f"no consistent deal found in {self.max_tries} tries")
        walker = self._walker
        if walker.base is not self._last:
            walker.start(self._last)
        self.tries += self.WALK_STEPS
        self.samples += 1
        self.walks += 1
        return walker.step(r, self.WALK_STEPS)

    def _fits(self, full: list[list[int]]) -> bool:
        """The caps a deal could exceed, and someone able to beat each failed throw."""
        caps = self._cap_checks
        if caps and any(full[s].count(f) > c for s, f, c in caps):
            return False
        return not self._beats or beaten(full, self._beats)

    def _weight(self, full: list[list[int]]) -> int:
        """How many ways the deal holds the cards known to be in a hand (or the maker's hand or kitty):
        a deal is kept with odds 1 / weight, so each is counted once."""
        weight = 1
        for s, f, k in self._need_checks:
            weight *= comb(full[s].count(f), k)
        if self._mk_checks:
            maker = cast(int, self._maker)
            R = self._R
            for f, k, k_hand in self._mk_checks:
                weight *= comb(full[maker].count(f) + full[R].count(f) - k_hand, k)
        return weight

    def _world(self, full: list[list[int]]) -> World:
        """The world of a deal (each pile sorted in place)."""
        hands: list[Cards]
        rest: Cards
        hands, rest = sorted_hands(full, self._hands0, self._hand_ids, self._R, Cards)
        if self._draw:
            return _new_world(World, (hands, _EMPTY, rest))
        return _new_world(World, (hands, rest if self._known_kitty is None else self._known_kitty, _EMPTY))

    @property
    def burier(self) -> Optional[int]:
        """The seat whose hand or kitty holds what it showed (the maker, or
        the last seat that took the kitty); None during the draw."""
        return self._maker

    def agrees(self, world: World, changed: Optional[tuple[int, ...]] = None) -> bool:
        """Whether ``world`` is one the view allows: the viewer's own hand,
        every hand's size, and every fact of the module docstring (voids and
        no-set caps, cards known to be in a hand or in the maker's hand or
        the kitty, failed and standing throws, follows). The samples of
        :meth:`sample` always agree; this checks a world changed afterwards
        (a model that moves cards between piles, :mod:`bots.search.belief`).
        ``changed``: the only seats whose hands differ from a world that
        agrees (cards moved among them and the kitty, none added or lost): the
        unseen cards' count and the facts about the other seats' hands alone
        are then taken as they were.

        >>> import random
        >>> from core.rules import Rules
        >>> from core.state import State, PLAY_PHASE
        >>> s = State(Rules.preset("pagat", players=5), seed=2)
        >>> rng = random.Random(0)
        >>> while s.phase != PLAY_PHASE or len(s.tricks) < 3:
        ...     s.apply(s.random_legal_action(rng))
        >>> sampler = Sampler(s.view(1))
        >>> sampler.agrees(sampler.sample(rng)), sampler.agrees(World([s.hand(i) for i in range(5)], s.kitty, Cards()))
        (True, True)
        """
        hands = world.hands
        if len(hands) != self.n or hands[self.me] != self.view.hand:
            return False
        if not self._draw and self._known_kitty is not None and world.kitty != self._known_kitty:
            return False
        if changed is None:
            pile = world.stock if self._draw else world.kitty if self._known_kitty is None else Cards()
            total = counts(pile)
            for s in self._hand_ids:
                for f in hands[s]:
                    total[f] += 1
            if total != self._unseen:           # the unseen cards, each exactly once
                return False
        bounds = self._bounds
        if bounds is None:                      # per seat, only the faces whose bounds can bind
            copies = counts(self.rules.deck())
            bounds = self._bounds = {s: [(f, self._cap[s][f], self._need[s][f]) for f in range(NF)
                                         if self._cap[s][f] < copies[f] or self._need[s][f] > 0]
                                     for s in self._hand_ids}
        for s in self._hand_ids if changed is None else changed:
            h = hands[s]
            if len(h) != self._sizes[s]:
                return False
            for f, most, least in bounds[s]:
                k = h.count(f)
                if k > most or k < least:
                    return False
        maker = self._maker
        if maker is not None and maker != self.me and self._mk_need:
            mine, kitty = hands[maker], world.kitty if self._known_kitty is None else _EMPTY
            if any(mine.count(f) + kitty.count(f) < k for f, k in self._mk_need):
                return False
        if self._beats:
            full = [list(h) for h in hands] + [list(world.stock if self._draw else world.kitty)]
            if not beaten(full, self._beats):
                return False
        return self._agrees(world, changed)

    def _agrees(self, world: World, changed: Optional[tuple[int, ...]] = None) -> bool:
        """Whether replaying the public history on the world's hands gives the same plays (after a change of the
        piles ``changed`` alone, in a world that agreed: another seat's follows, which depend on its hand only, not)."""
        checks = self._checks
        if changed is not None and checks:
            known = self._checks_of.get(changed)
            if known is None:
                known = self._checks_of[changed] = [c for c in checks if c[0] != "follow" or c[1][1] in changed]
            checks = known
        return not checks or history_ok(checks, world.hands, self.view.trump, self.rules, self._since, self.n)


_EMPTY = Cards()
#: World(...) without the Python-level __new__ of a named tuple (a sampled world's hot path)
_new_world = tuple.__new__


_CACHE: list[tuple[PlayerView, Sampler]] = []


def sample_world(view: PlayerView, rng: random.Random) -> World:
    """One world consistent with ``view`` (see :class:`Sampler`; the tables of
    the last view sampled are kept, so repeated calls on one view are fast)."""
    if _CACHE and _CACHE[0][0] is view:
        sampler = _CACHE[0][1]
    else:
        sampler = Sampler(view)
        _CACHE[:] = [(view, sampler)]
    return sampler.sample(rng)
