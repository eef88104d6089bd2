"""What the maker's choices say about the cards a seat cannot see.

:class:`core.sample.Sampler` deals the unseen cards uniformly among the deals
that agree with the view's *facts* (voids, shown cards, throws, follows). It
reads nothing into *choices*: a seat that is not the maker sees sampled
kitties as full of trumps and points as any other six cards, and the maker
holding the card it called as often as anyone. Real makers do neither.
:class:`MakerModel` is a model of those two choices, and
:class:`InferredSampler` draws worlds from the posterior it gives:

- *Burial.* The maker picked the kitty out of its hand and the kitty
  together (``U``). The model: each card of ``U`` has a weight ``theta`` by
  its kind (trumps, point cards and aces low, small plain cards high), and a
  kitty ``K`` of ``k`` cards is buried with probability proportional to the
  product of its cards' weights (a conditional Bernoulli draw, normalised
  over the ``k``-card subsets of ``U``). Given a uniform world, the split of
  its ``U`` into hand and kitty is redrawn from that model (cards of a suit
  the maker has shown void in stay in the kitty), and kept when the world
  still agrees with every fact of the view (:meth:`core.sample.Sampler.agrees`),
  else redrawn a few times and at worst left as dealt. As burial carries no
  news about ``U`` itself, this is the exact posterior of the model when the
  maker's hand has no facts beyond its voids (the view's facts about it
  otherwise bias it slightly).
- *Calls.* A maker that calls the ``o``-th copy of a face rarely holds ``o``
  copies itself when it calls (it could only fill the call itself). A world
  in which it did (its hand now plus the copies it played since) is kept
  with probability ``call_odds`` (rejection sampling: exact).
- *Races passed up* (with ``pass_odds`` below 1, ``TABLE_MODEL``). At a real
  table a seat off the maker's side that holds a copy of a called card which
  would fill a live call plays it at its first good chance (the friendship
  goes to whoever plays first): it leads it, or follows a one-card lead with
  it. Each time a seat led, or followed a one-card lead, with other cards
  where one copy played instead would have filled an open call (the play
  engine says whether, :func:`bots.heuristic_friends.fills`), a world in
  which that seat held such a copy then (its hand now plus the copies it
  played since) is kept with probability ``pass_odds``: seats that let
  chances go by are likelier to hold no copy, so the hidden friends are
  looked for elsewhere.

Nothing here applies to a seat's own choices: a seat that is the maker (or
knows the kitty) samples as before. The weights are fitted to the burials
of the built-in bots (``scripts`` in the docs: :file:`docs/bots.md`) and
floored, so a maker that buries trumps now and then is still sampled.

>>> import random
>>> from core.rules import Rules
>>> from core.state import State, PLAY_PHASE
>>> s = State(Rules.preset("pagat", players=6), seed=3)
>>> rng = random.Random(0)
>>> while s.phase != PLAY_PHASE:
...     s.apply(s.random_legal_action(rng))
>>> seat = (s.maker + 1) % 6
>>> inferred = InferredSampler(s.view(seat))
>>> w = inferred.sample(rng)
>>> inferred.sampler.agrees(w), len(w.kitty) == len(s.kitty)
(True, True)
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from typing import Optional

from core.cards import Cards, card_points, is_joker, parse_card, parse_cards, rank_of
from core.history import suits
from core.play import PlayCore
from core.sample import Sampler, World
from core.state import PlayerView

from bots.heuristic_friends import fills

from bots.search import Splitter, count_table

__all__ = ["MakerModel", "MAKER_MODEL", "TABLE_MODEL", "MODELS", "InferredSampler", "races_passed", "KINDS", "card_kind", "log_likelihood_gain",
           "measure_gain"]

#: The kinds of card the burial model tells apart, from most to least often buried.
KINDS = ("plain", "face", "five", "ace", "count", "trump", "high_trump")


def card_kind(face: int, esuit: list[int], trump_rank: Optional[int]) -> int:
    """The index in :data:`KINDS` of a card for the burial model: trumps
    (``high_trump``: jokers and cards of the trump rank), point cards (``five``;
    ``count``: tens and kings), aces, jacks and queens (``face``), the rest;
    ``esuit``: each face's effective suit (:func:`core.history.suits`, 4 for trumps).

    >>> from core.rules import Rules
    >>> from core.cards import Trump
    >>> esuit, _, _ = suits(Trump(2, 0), Rules.preset("pagat", players=6))
    >>> [KINDS[card_kind(parse_card(c), esuit, 2)] for c in ("3H", "QH", "5H", "AH", "KH", "4C", "2H", "BJ")]
    ['plain', 'face', 'five', 'ace', 'count', 'trump', 'high_trump', 'high_trump']
    """
    if esuit[face] == 4:
        return 6 if is_joker(face) or rank_of(face) == trump_rank else 5
    pts = card_points(face)
    if pts == 10:
        return 4
    if pts == 5:
        return 2
    r = rank_of(face)
    return 3 if r == 14 else 1 if r >= 11 else 0


@dataclass(frozen=True)
class MakerModel:
    """Weights of the maker's choices: ``theta[kind]`` (by :data:`KINDS`),
    how likely a card of that kind is buried relative to a small plain card;
    ``call_odds``, the weight of a world in which the maker held as many
    copies of a face it called as the call's ordinal; ``pass_odds``, the
    weight of a world for each lead in which a seat held a copy it could
    have led to fill an open call and led something else (1: not read)."""

    theta: tuple[float, ...] = (1.0, 0.11, 0.17, 0.01, 0.01, 0.01, 0.01)
    call_odds: float = 0.1
    pass_odds: float = 1.0


#: The model :class:`InferredSampler` uses by default (fitted to the
#: built-in bots' burials and calls over 200 deals of 6-player ``pagat``:
#: no trump, 1 ace in 225 and 13 tens or kings in 473 buried; 396 of 400
#: calls of a first copy by a maker holding none).
MAKER_MODEL = MakerModel()

#: The maker model and the races passed up (``infer="table"``): a seat that
#: let a chance to fill a call go by is kept as a holder of a filling copy at
#: odds 0.3 (fitted: see :file:`docs/bots.md`).
TABLE_MODEL = MakerModel(pass_odds=0.3)

#: The models by the name ``infer`` and ``--model`` give them.
MODELS = {"maker": MAKER_MODEL, "table": TABLE_MODEL}


def races_passed(view: PlayerView) -> list[tuple[int, int, int]]:
    """``(seat, face, later)`` for each chance so far that ``seat`` (not the
    maker, the view's own seat, or a seat already revealed on the maker's
    side) let go to fill an open call with one copy of ``face``: a lead, or a
    follow of a one-card lead (of its suit, or after showing itself void in
    it), with cards other than ``face`` where that copy played alone would
    have filled the call (the play engine says,
    :func:`bots.heuristic_friends.fills`); ``later``: the copies of ``face``
    that seat played from then on (a world gives it a copy at that chance when
    its hand now holds one or ``later`` is positive)."""
    maker = view.maker
    if view.phase != "play" or maker is None or not view.calls or view.trump is None:
        return []
    rules, trump, n = view.rules, view.trump, view.players
    esuit, _, _ = suits(trump, rules)
    calls = [(parse_card(c), o) for c, o in view.calls]
    faces = sorted({f for f, _ in calls})
    tricks = list(view.tricks)
    if view.current_trick[1]:
        tricks.append(view.current_trick)
    order = [((leader + j) % n, parse_cards(p)) for leader, ps in tricks for j, p in enumerate(ps)]
    out = []
    at = 0
    for leader, ps in tricks:
        lead = order[at][1]
        for j in range(len(ps) if len(lead) == 1 else 1):
            seat, cards = order[at + j]
            if seat in (maker, view.seat) or all(f in cards for f in faces):
                continue
            filled, seen = PlayCore.calls_after(rules, trump, maker, calls, order[:at + j])
            if seat in filled:
                continue
            led = esuit[lead[0]]
            for f in faces:
                if f in cards or (j and esuit[f] != led and esuit[cards[0]] == led):
                    continue            # played it, or could not (it had to follow the led suit)
                trick = [c for _, c in order[at:at + j]]
                if fills(rules, trump, maker, seat, calls, filled, seen, leader, trick, Cards([f])):
                    later = sum(c.count(f) for p, c in order[at + j:] if p == seat)
                    out.append((seat, f, later))
        at += len(ps)
    return out


class InferredSampler:
    """Worlds for ``view`` drawn from the posterior of ``model`` (see the
    module docstring): :meth:`sample` has the signature of
    :meth:`core.sample.Sampler.sample`. ``sampler``: the view's uniform
    sampler (made here when not given)."""

    #: redraws of the kitty's split before the world is kept as dealt
    SPLIT_TRIES = 8
    #: worlds drawn for one sample before the last one is kept whatever the calls say
    CALL_TRIES = 64

    def __init__(self, view: PlayerView, sampler: Optional[Sampler] = None,
                 model: MakerModel = MAKER_MODEL) -> None:
        self.view = view
        self.sampler = sampler if sampler is not None else Sampler(view)
        self.model = model
        maker = view.maker
        me = view.seat
        self._maker = maker
        #: whether the kitty's split and the calls are read (they say nothing to the maker itself)
        self.burial = (view.phase == "play" and maker is not None and maker != me and view.kitty is None
                       and self.sampler.burier == maker and view.trump is not None)
        self.calls = view.phase == "play" and maker is not None and maker != me and bool(view.calls)
        #: ``(seat, face)`` of the races passed up that weigh a world (:func:`races_passed`) by
        #: whether the seat holds the face now; one it played later weighs every world alike, so
        #: it is left out (it would only reject more worlds, the distribution unchanged)
        self.passes = ([(seat, face) for seat, face, later in races_passed(view) if not later]
                       if model.pass_odds < 1.0 else [])
        if view.trump is not None:
            esuit, _, _ = suits(view.trump, view.rules)
            # kinds of equal weight are drawn as one (fewer, smaller tables)
            self._theta = tuple(sorted(set(model.theta), reverse=True))
            group = [self._theta.index(t) for t in model.theta]
            self._kind = [group[card_kind(f, esuit, view.trump.rank)] for f in range(54)]
            void = {e for s, e in view.voids if s == maker}
            self._void = [esuit[f] in void for f in range(54)]
            self._splitter = Splitter([-1 if self._void[f] else self._kind[f] for f in range(54)],
                                      len(self._theta))
        played = [0] * 54
        if maker is not None:
            plays = list(view.tricks)
            if view.current_trick[1]:
                plays.append(view.current_trick)
            for leader, ps in plays:
                for j, p in enumerate(ps):
                    if (leader + j) % view.players == maker:
                        for f in parse_cards(p):
                            played[f] += 1
        self._tables = _TABLES.setdefault(self._theta, {}) if view.trump is not None else {}
        self._called = [(parse_card(c), o, played[parse_card(c)]) for c, o in view.calls]

    def sample(self, rng: random.Random) -> World:
        """One world: a uniform one from the sampler, its kitty's split redrawn
        by the burial model, kept by the calls' odds."""
        draw = self.sampler.sample
        world = draw(rng)
        weighed = self.calls or bool(self.passes)
        for _ in range(self.CALL_TRIES):
            if self.burial:
                world = self._resplit(world, rng)
            if not weighed or rng.random() < self.weight(world):
                return world
            world = draw(rng)
        return world

    def weight(self, world: World) -> float:
        """The weight of ``world`` by the calls (:meth:`call_weight`) and the
        races passed up (``pass_odds`` for each that it gave a copy to)."""
        w = self.call_weight(world) if self.calls else 1.0
        hands = world.hands
        odds = self.model.pass_odds
        for seat, face in self.passes:
            if face in hands[seat]:
                w *= odds
        return w

    def call_weight(self, world: World) -> float:
        """The calls' weight of ``world``: ``call_odds`` for each call whose
        face the maker held at least ``ordinal`` copies of when it called."""
        if self._maker is None:
            return 1.0
        hand = world.hands[self._maker]
        w = 1.0
        for face, ordinal, played in self._called:
            if hand.count(face) + played >= ordinal:
                w *= self.model.call_odds
        return w

    def split_log_odds(self, hand: Cards, kitty: Cards) -> float:
        """``log P(kitty | hand + kitty)`` under the burial model, less the
        log of the same under a uniform split (the voids' forced cards
        taken out of both): how much likelier the model finds this burial."""
        import math

        free, k = self._free(list(hand) + list(kitty), kitty)
        if k < 0:
            return 0.0
        theta = self._theta
        e = _elementary([theta[self._kind[f]] for f in free], k)
        logp = sum(math.log(theta[self._kind[f]]) for f in kitty if not self._void[f]) - math.log(e)
        return logp + math.log(math.comb(len(free), k))

    def _free(self, both: list[int], kitty: Cards) -> tuple[list[int], int]:
        forced = sum(1 for f in both if self._void[f])
        return [f for f in both if not self._void[f]], len(kitty) - forced

    def _resplit(self, world: World, rng: random.Random) -> World:
        """The world with the maker's cards split anew between its hand and
        the kitty by the burial model (the first of ``SPLIT_TRIES`` redraws
        that agrees with the view; the world as it was when none does). The
        redraw itself is compiled (:class:`bots.search.Splitter`)."""
        maker = self._maker
        assert maker is not None
        split = self._splitter
        sizes, k = split.prepare(world.hands[maker], world.kitty)
        if k < 0:
            return world
        cum = _count_table(sizes, self._theta, k, self._tables)
        agrees = self.sampler.agrees
        r = rng.random
        new_cards = tuple.__new__           # a Cards and a World without their Python-level __new__
        for _ in range(self.SPLIT_TRIES):
            got = split.split(cum, r)
            if got is None:
                continue
            hands = list(world.hands)
            hands[maker] = new_cards(Cards, got[0])
            new = new_cards(World, (hands, new_cards(Cards, got[1]), world.stock))
            if agrees(new, (maker,)):
                return new
        return world


def log_likelihood_gain(view: PlayerView, hands: list[Cards], kitty: Cards, rng: random.Random,
                        samples: int = 200, model: MakerModel = MAKER_MODEL) -> float:
    """How much likelier (in nats) the true deal (``hands``, ``kitty``) is
    under :class:`InferredSampler` than under the uniform sampler, for the
    seat of ``view``: the burial model's log odds of the true kitty
    (:meth:`InferredSampler.split_log_odds`, with the voids as its only facts
    about the maker's hand) plus the calls' log weight of the true deal less
    the log of their mean weight over ``samples`` worlds of the burial model
    (their normaliser, estimated), the races passed up weighed with the calls
    when ``model`` reads them. 0 for a seat the model tells nothing (the
    maker itself)."""
    import math

    inferred = InferredSampler(view, model=model)
    gain = 0.0
    maker = view.maker
    if inferred.burial and maker is not None:
        gain += inferred.split_log_odds(hands[maker], kitty)
    if inferred.calls or inferred.passes:
        calls, passes = inferred.calls, inferred.passes
        inferred.calls, inferred.passes = False, []     # the burial model's worlds, unweighted
        try:
            worlds = [inferred.sample(rng) for _ in range(samples)]
        finally:
            inferred.calls, inferred.passes = calls, passes
        mean = sum(inferred.weight(w) for w in worlds) / samples
        gain += math.log(inferred.weight(World(list(hands), kitty, Cards()))) - math.log(mean)
    return gain


def measure_gain(preset: str = "pagat", players: int = 6, deals: int = 120, bot: str = "heuristic",
                 seed: int = 0, per_deal: int = 2, model: MakerModel = MAKER_MODEL) -> list[float]:
    """:func:`log_likelihood_gain` at ``per_deal`` random play positions of
    each of ``deals`` deals played by ``bot`` at every seat, each for a random
    seat other than the maker's: the gains under ``model``, one per position."""
    from bots.base import seated_deal
    from core.rules import Rules
    from core.state import PLAY_PHASE

    rules = Rules.preset(preset, players=players)
    n = rules.players
    gains: list[float] = []
    for d in range(deals):
        s, bots, rng = seated_deal(bot, rules, seed, d)
        stops = set(rng.sample(range(rules.hand_size // 2), per_deal))
        while not s.is_terminal():
            if s.phase == PLAY_PHASE and len(s.tricks) in stops:
                stops.discard(len(s.tricks))
                maker = s.maker
                seat = rng.choice([x for x in range(n) if x != maker])
                gains.append(log_likelihood_gain(s.view(seat), [s.hand(i) for i in range(n)], s.kitty, rng,
                                                 model=model))
            p = s.current_player()
            s.apply(bots[p].step(s.view(p)))
    return gains


#: a count table of :func:`bots.search.count_table`: ``cum[i][left]``, a row of cumulative odds
CountTable = tuple[tuple[tuple[float, ...], ...], ...]
#: the kind-count tables of :func:`_count_table`, per weights, kept across views and deals
#: (thousands a deal, up to ``_MAX_TABLES``: they depend only on how many cards of each
#: kind there are); tuples of floats, which the cycle collector soon stops tracking
_TABLES: dict[tuple[float, ...], dict[tuple[tuple[int, ...], int], CountTable]] = {}
_MAX_TABLES = 50_000


def _elementary(weights: list[float], k: int) -> float:
    """The k-th elementary symmetric polynomial of ``weights``."""
    e = [1.0] + [0.0] * k
    for w in weights:
        for j in range(k, 0, -1):
            e[j] += w * e[j - 1]
    return e[k]


def _count_table(sizes: tuple[int, ...], theta: tuple[float, ...], k: int,
                 tables: dict[tuple[tuple[int, ...], int], CountTable]) -> CountTable:
    """The table a conditional Bernoulli draw of ``k`` cards draws its
    counts from, kind by kind, where kind ``i`` has ``sizes[i]`` cards of
    weight ``theta[i]``: ``cum[i][left]``, the cumulative odds of each count
    of kind ``i`` with ``left`` cards still to take (the exact split of the
    polynomial ``prod (1 + theta_i x) ** sizes_i``). ``tables`` caches them
    by ``(sizes, k)``; :meth:`bots.search.Splitter.split` draws from them."""
    cum = tables.get((sizes, k))
    if cum is not None:
        return cum
    built: CountTable = count_table(sizes, theta, k)
    if len(tables) >= _MAX_TABLES:
        tables.clear()
    tables[(sizes, k)] = built
    return built


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m bots.search.belief [--preset P] [--players N] [--deals D] [--bot SPEC] [--seed S]
    [--model maker|table]``: the mean log-likelihood gain of the true deal with its 95 % interval."""
    import argparse
    import math
    import statistics

    ap = argparse.ArgumentParser(prog="python -m bots.search.belief", description=main.__doc__)
    ap.add_argument("--preset", default="pagat")
    ap.add_argument("--players", type=int, default=6)
    ap.add_argument("--deals", type=int, default=120)
    ap.add_argument("--bot", default="heuristic")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model", choices=tuple(MODELS), default="maker",
                    help="the maker's burial and calls, or those and the races passed up")
    a = ap.parse_args(argv)
    from core.errors import PengyouError

    from bots.protocol import BotError

    if a.deals < 1:
        ap.error(f"--deals: {a.deals} is not at least 1")
    try:
        gains = measure_gain(a.preset, a.players, a.deals, a.bot, a.seed,
                             model=MODELS[a.model])
    except (PengyouError, BotError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    m = statistics.mean(gains)
    h = 1.96 * statistics.stdev(gains) / math.sqrt(len(gains)) if len(gains) > 1 else float("nan")
    print(f"{a.preset} {a.players} players, {a.bot} at every seat, the {a.model} model: {len(gains)} positions, "
          f"the true deal "
          f"{m:+.3f} nats [{m - h:+.3f}, {m + h:+.3f}] likelier than under the uniform sampler")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
