"""One deal as a phase machine: DRAW (with exposures), BURY (and STEAL, which
may go back to BURY: ``rules.kitty_theft``), CALL, PLAY, DONE.

:class:`State` holds the deal and steps through the phases; what each phase
allows and does is its handler's, in :mod:`core.phases`, and what a seat may
know of the state is :func:`core.view.view_of`.

The draw is the only chance event: a seeded shuffle (a fresh one after a
redeal). Every decision is an :class:`~core.actions.Action` of the player
:meth:`State.current_player` returns; decisions where nothing but passing is
possible are skipped by the engine.

>>> import random
>>> from core.cards import points
>>> from core.rules import Rules
>>> s = State(Rules.preset("pagat", players=6), seed=3)
>>> rng = random.Random(0)
>>> while not s.is_terminal():
...     s.apply(s.random_legal_action(rng))
>>> sum(s.play.points) + points(s.kitty) == s.rules.total_points   # every card point is won or buried
True
>>> s.result.winner, s.result.game_points
('opponents', 1)
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any, Optional

from .actions import Action
from .cards import Cards, Trump
from .errors import IllegalActionError, InvalidActionError
from .levels import PlayerLevel, start_levels
from .phases import (BURY_PHASE, CALL_PHASE, DONE, DRAW, HANDLERS, MAX_REDEALS, PHASE_NAMES, PLAY_PHASE,
                     STEAL_PHASE, DealResult, Exposure, Phase, shuffled, start_draw)
from .play import PlayCore
from .rules import Rules
from .scoring import MAKER
from .view import PlayerView, play_from_view, random_legal, view_of

__all__ = ["State", "DealResult", "PlayerView", "Phase", "DRAW", "BURY_PHASE", "STEAL_PHASE", "CALL_PHASE",
           "PLAY_PHASE", "DONE", "MAX_REDEALS", "PHASE_NAMES", "LegalActions", "play_from_view", "random_legal",
           "seed_decks"]

def seed_decks(rules: Rules, seed: Any, count: int) -> list[list[int]]:
    """The decks a deal seeded with ``seed`` deals, for its first ``count``
    (re)deals: the one owner of the shuffle.

    >>> r = Rules.preset("pagat", players=5)
    >>> seed_decks(r, 4, 1) == State(r, seed=4).decks
    True
    """
    rng = random.Random(seed)
    return [shuffled(rules, rng) for _ in range(count)]


class State:
    """A deal of Zhao Pengyou under ``rules``.

    ``levels`` are the players' levels (all active 2 by default); ``starter``
    draws first; ``maker`` is a predetermined trump maker (``heli`` and
    ``stack`` after the first deal) or None. ``seed`` makes the shuffle; or
    give ``decks`` (one list of faces per (re)deal) to replay a record
    (``seed`` None: decks built by hand, which no seed deals).
    """

    def __init__(self, rules: Rules, seed: Optional[int] = 0, levels: Optional[Sequence[PlayerLevel]] = None,
                 starter: int = 0, maker: Optional[int] = None,
                 decks: Optional[Sequence[Sequence[int]]] = None) -> None:
        if not isinstance(rules, Rules):
            raise InvalidActionError("rules: expected a Rules value (see Rules.preset)")
        n = rules.players
        if not (isinstance(starter, int) and 0 <= starter < n):
            raise InvalidActionError(f"starter: {starter!r} is not a seat from 0 to {n - 1}")
        if maker is not None and not (isinstance(maker, int) and 0 <= maker < n):
            raise InvalidActionError(f"maker: {maker!r} is not a seat from 0 to {n - 1}")
        self.rules = rules
        self.seed = seed
        self.starter = starter
        self.fixed_maker = maker
        self.levels = list(levels) if levels is not None else start_levels(rules)
        self.initial_levels = list(self.levels)     # before any redeal
        if len(self.levels) != n:
            raise InvalidActionError(f"levels: expected {n} player levels, got {len(self.levels)}")
        self._rng = random.Random(seed)
        self._given_decks = [list(d) for d in decks] if decks is not None else None
        self.decks: list[list[int]] = []
        self.history: list[tuple[int, Action]] = []
        self.exposures: list[tuple[int, str, Cards]] = []   # (seat, "expose"|"defend"|"withdraw"|"turned", cards)
        self.redeals = 0
        self.trump: Optional[Trump] = None
        self.maker: Optional[int] = None
        #: the seat whose buried cards are the kitty (or that is burying): the
        #: maker, or the last seat that took the kitty (``rules.kitty_theft``)
        self.burier: Optional[int] = None
        self.kitty: Cards = Cards()
        self.calls: list[tuple[int, int]] = []
        self.play: Optional[PlayCore] = None
        self.tricks: list[tuple[int, list[Cards]]] = []
        self._trick_text: list[tuple[int, tuple[str, ...]]] = []   # the same, as text for views
        self.failed_throws: list[tuple[int, Cards, Cards]] = []
        self.throw_stoppers: list[int] = []         # who stopped each failed throw (views: throw_stopper)
        self.voids: set[tuple[int, int]] = set()
        self.no_sets: set[tuple[int, int, int]] = set()
        self._result: Optional[DealResult] = None
        # the phase machine's fields, set and changed by the phases' handlers (core.phases)
        self.phase: Phase = DRAW
        self._deck: list[int] = []                   # the deck being drawn
        self._drawn = 0                              # cards drawn from it so far
        self._hands: list[list[int]] = []            # counts per face, per seat (until the play)
        self._exp: Optional[Exposure] = None         # the exposure that stands
        self._overrides = 0
        self._defender: Optional[int] = None         # seat that may defend right now
        self._challenger: Optional[Exposure] = None  # the override it may answer
        self._decider: Optional[int] = None          # the drawer with a choice
        self._kitty_left = 0                         # cards the maker has still to bury
        self._buried: list[int] = []
        self._offer: Optional[int] = None            # the seat offered the buried kitty (STEAL)
        self._trick: tuple[int, list[Cards]] = (-1, [])   # the trick under way: leader, plays
        start_draw(self)

    # ------------------------------------------------------------- interface
    def current_player(self) -> int:
        """The seat to decide now, or -1 when the deal is over."""
        return HANDLERS[self.phase].player(self)

    def is_terminal(self) -> bool:
        """True when the deal is over."""
        return self.phase == DONE

    def hand(self, seat: int) -> Cards:
        """The cards a seat holds now."""
        if not (isinstance(seat, int) and 0 <= seat < self.rules.players):
            raise InvalidActionError(f"seat {seat!r} is not a seat from 0 to {self.rules.players - 1}")
        if self.phase in (PLAY_PHASE, DONE):
            assert self.play is not None
            hand: Cards = self.play.hand(seat)
            return hand
        return Cards.from_counts(self._hands[seat])

    def legal_actions(self) -> LegalActions:
        """The legal actions, lazily: ``a in s.legal_actions()`` checks one
        without listing them; iterating lists them."""
        return LegalActions(self)

    def action_error(self, action: Action) -> Optional[str]:
        """Why ``action`` is illegal now, or None (the phase's handler says)."""
        if not isinstance(action, Action):
            return "not an Action"
        return HANDLERS[self.phase].error(self, self.current_player(), action)

    def apply(self, action: Action | str, check: bool = True) -> None:
        """Apply the current player's action (``check`` verifies it first)."""
        if isinstance(action, str):
            action = Action.from_str(action)
        if check:
            err = self.action_error(action)
            if err is not None:
                raise IllegalActionError(f"seat {self.current_player()} cannot {action}: {err}")
        seat = self.current_player()
        self.history.append((seat, action))
        HANDLERS[self.phase].apply(self, seat, action)

    def current_trick(self) -> tuple[int, list[Cards]]:
        """(leader, plays so far) of the trick in progress."""
        if self.phase != PLAY_PHASE:
            return (-1, [])
        assert self.play is not None
        if self.play.is_leading:
            return (-1, [])
        return (self._trick[0], list(self._trick[1]))

    # ------------------------------------------------------------- results
    @property
    def dealt_by_seed(self) -> bool:
        """Whether the decks are the ones :attr:`seed` deals (False for decks
        given by hand that the seed does not make)."""
        if self.seed is None:
            return False
        return self._given_decks is None or self.decks == seed_decks(self.rules, self.seed, len(self.decks))

    @property
    def result(self) -> Optional[DealResult]:
        """The deal's result once it is over."""
        return self._result

    def winners(self) -> frozenset[int]:
        """Seats on the side that won the deal (empty for no score or before the end)."""
        res = self._result
        if res is None or res.winner is None:
            return frozenset()
        if res.winner == MAKER:
            return res.maker_side
        return frozenset(range(self.rules.players)) - res.maker_side

    def returns(self) -> list[int]:
        """Game points per seat: plus for the winning side, minus for the losers."""
        res = self._result
        n = self.rules.players
        if res is None or res.winner is None:
            return [0] * n
        win = self.winners()
        return [res.game_points if s in win else -res.game_points for s in range(n)]

    def random_legal_action(self, rng: random.Random) -> Action:
        """A random legal action of the player to move: the same distribution,
        drawing the same numbers from ``rng``, as :meth:`PlayerView.random_action`
        of that player's view (see :func:`random_legal`)."""
        if self.phase == DONE:
            raise IllegalActionError("the deal is over")
        if self.phase == PLAY_PHASE:
            # the play engine draws exactly what random_legal draws here, without the conversions
            assert self.play is not None
            return Action.play(self.play.random_play(rng))
        seat = self.current_player()
        plays = self.current_trick()[1]
        return random_legal(PHASE_NAMES[self.phase], self.hand(seat), plays[0] if plays else None,
                            self.trump, self.rules, lambda: tuple(LegalActions(self)), rng)

    def clone(self) -> State:
        """An independent copy."""
        s = State.__new__(State)
        s.__dict__.update(self.__dict__)
        s._rng = random.Random()
        s._rng.setstate(self._rng.getstate())
        s.history = list(self.history)
        s.decks = list(self.decks)
        s.exposures = list(self.exposures)
        s.levels = list(self.levels)
        s.calls = list(self.calls)
        s.tricks = list(self.tricks)
        s._trick_text = list(self._trick_text)
        s.failed_throws = list(self.failed_throws)
        s.throw_stoppers = list(self.throw_stoppers)
        s.voids = set(self.voids)
        s.no_sets = set(self.no_sets)
        if self.phase == PLAY_PHASE:
            s._trick = (self._trick[0], list(self._trick[1]))
        if self.phase in (DRAW, BURY_PHASE, STEAL_PHASE, CALL_PHASE):
            s._hands = [list(h) for h in self._hands]
            if self.phase in (BURY_PHASE, STEAL_PHASE):
                s._buried = list(self._buried)
        if self.play is not None:
            s.play = self.play.clone()
        return s

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may know, and nothing more."""
        return view_of(self, seat)

    def __repr__(self) -> str:
        return (f"<State {self.rules.name} {self.rules.players}p seed={self.seed} "
                f"phase={PHASE_NAMES[self.phase]} to_play={self.current_player()}>")


class LegalActions:
    """The legal actions of a state, computed lazily.

    ``a in legal`` checks one action; iterating yields each legal action once.
    """

    def __init__(self, state: State) -> None:
        self._s = state

    def __contains__(self, action: object) -> bool:
        return isinstance(action, Action) and self._s.action_error(action) is None

    def __iter__(self) -> Iterator[Action]:
        s = self._s
        return HANDLERS[s.phase].actions(s, s.current_player())

    def texts(self) -> Iterator[str]:
        """Each legal action once in the notation (``str`` of each, faster).

        >>> from core.rules import Rules
        >>> s = State(Rules.preset("pagat", players=5), seed=1)
        >>> list(s.legal_actions().texts()) == [str(a) for a in s.legal_actions()]
        True
        """
        s = self._s
        return HANDLERS[s.phase].texts(s, s.current_player())

    def count(self) -> int:
        """How many legal actions there are (enumerates them)."""
        return sum(1 for _ in self)

    def __len__(self) -> int:
        return self.count()
