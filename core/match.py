"""A match: a sequence of deals with levels, starters and predetermined makers.

:class:`Match` holds what carries over from one deal to the next (the
players' levels, each player's game points over the match, the next starter
and, for ``heli`` and ``stack``, the next deal's predetermined trump maker)
and makes each deal's :class:`~core.state.State`. The level rules themselves
are the pure functions of :mod:`core.levels`.

Seeds are derived, not drawn: deal ``i`` (counting from 0) of a match with
seed ``S`` is shuffled with seed ``S * 1_000_003 + i``.

>>> import random
>>> from core.rules import Rules
>>> m = play_random_match(Rules.preset("pagat", players=6, target_rank=4), seed=5,
...                       rng=random.Random(5))
>>> m.is_over(), max(lv.level for lv in m.levels) >= 4
(True, True)
>>> [s.starter for s in m.deals] == [i % 6 for i in range(len(m.deals))]
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Optional

from .errors import PengyouError
from .levels import (
    PlayerLevel, apply_deal, defended_at_target, match_over, next_maker, next_starter, start_levels,
)
from .rules import Rules
from .scoring import MAKER
from .state import State

__all__ = ["Match", "play_random_match", "deal_seed", "JOKER_LEVEL_DEALS", "SEED_STRIDE"]

#: deal ``i`` of a match with seed ``S`` uses seed ``S * SEED_STRIDE + i``
SEED_STRIDE = 1_000_003

#: the number of deals a match lasts when its levels can never end it (rules
#: with ``joker_level`` and no ``target_points``, e.g. ``heli``) and no
#: ``max_deals`` is given
JOKER_LEVEL_DEALS = 20


def deal_seed(seed: int, index: int) -> int:
    """The shuffle seed of deal ``index`` (from 0) of a match seeded ``seed``.

    >>> deal_seed(7, 0), deal_seed(7, 2)
    (7000021, 7000023)
    """
    return seed * SEED_STRIDE + index


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Match:
    """A match under ``rules``: deals one after another until it is over.

    Use :meth:`new_deal` to get the next deal's :class:`~core.state.State`,
    play it to the end, then hand it to :meth:`finish_deal`.

    - ``levels``: every seat's :class:`~core.levels.PlayerLevel` now;
    - ``starter``: the seat that draws first in the next deal (seat 0 first,
      then the next seat in play order after every deal, redeals included);
    - ``maker_next``: the predetermined trump maker of the next deal
      (``heli`` and ``stack`` after the first deal), else None;
    - ``game_points_total``: game points each seat has won over the match
      (the winners of a deal each add its game points; losers add nothing);
    - ``deals``: the finished deals (their ``State`` objects);
    - ``level_history``: the levels each finished deal started with.

    The match is over when :func:`core.levels.match_over` says so, or after
    ``max_deals`` deals. Rules whose levels never end a match (``joker_level``
    without ``target_points``, as in ``heli``) stop after
    :data:`JOKER_LEVEL_DEALS` deals unless ``max_deals`` is given.

    >>> import random
    >>> from core.rules import Rules
    >>> m = Match(Rules.preset("heli", players=5), seed=1)
    >>> m.max_deals, m.maker_next, m.starter
    (20, None, 0)
    >>> rng = random.Random(1)
    >>> s = m.new_deal()
    >>> while not s.is_terminal():
    ...     s.apply(s.random_legal_action(rng))
    >>> m.finish_deal(s)
    >>> m.starter, m.maker_next is not None, len(m.deals)
    (1, True, 1)
    """

    def __init__(self, rules: Rules, seed: int = 0, max_deals: Optional[int] = None) -> None:
        if not isinstance(rules, Rules):
            raise PengyouError("rules: expected a Rules value (see Rules.preset)")
        if not _whole(seed):
            raise PengyouError(f"seed: expected a whole number, got {seed!r}")
        if max_deals is not None and not (_whole(max_deals) and max_deals >= 1):
            raise PengyouError(f"max_deals: expected a whole number, at least 1, got {max_deals!r}")
        if max_deals is None and rules.joker_level and rules.target_points == 0:
            max_deals = JOKER_LEVEL_DEALS
        self.rules = rules
        self.seed = seed
        self.max_deals = max_deals
        self.levels: list[PlayerLevel] = start_levels(rules)
        self.starter = 0
        self.maker_next: Optional[int] = None
        self.game_points_total = [0] * rules.players
        self.deals: list[State] = []
        self.level_history: list[list[PlayerLevel]] = []
        self._pending: Optional[State] = None
        self._pending_levels: list[PlayerLevel] = []
        #: the maker's side has won a deal at the target rank (``rules.match_end`` ``defend``)
        self.defended = False

    def is_over(self) -> bool:
        """True when the match has ended (a target reached, or ``max_deals`` played)."""
        if self.max_deals is not None and len(self.deals) >= self.max_deals:
            return True
        return match_over(self.rules, self.levels, self.game_points_total, self.defended)

    def next_seed(self) -> int:
        """The shuffle seed of the next deal."""
        return deal_seed(self.seed, len(self.deals))

    def new_deal(self, decks: Optional[Sequence[Sequence[int]]] = None) -> State:
        """The next deal, ready to play (``decks`` replays recorded shuffles)."""
        if self._pending is not None:
            raise PengyouError("match: finish the deal in progress before starting another")
        if self.is_over():
            raise PengyouError(f"match: the match is over after {len(self.deals)} deals")
        levels = list(self.levels)
        state = State(self.rules, seed=self.next_seed(), levels=levels, starter=self.starter,
                      maker=self.maker_next, decks=decks)
        self._pending = state
        self._pending_levels = levels
        return state

    def finish_deal(self, state: State) -> None:
        """Apply a finished deal (the one :meth:`new_deal` returned) to the match.

        The levels the deal ended with (``state.levels``: a redeal makes
        everyone active) climb by :func:`core.levels.apply_deal`; a deal with
        no score changes no level.
        """
        if state is not self._pending:
            raise PengyouError("match: finish_deal needs the deal that new_deal returned")
        res = state.result
        if res is None:
            raise PengyouError(f"match: the deal is not over (seat {state.current_player()} to act)")
        winners = state.winners()
        self.defended = self.defended or defended_at_target(self.rules, state.levels[res.maker],
                                                            res.winner == MAKER)
        self.levels = apply_deal(self.rules, state.levels, winners, res.game_points, res.maker_side,
                                 jack=res.jack_last, maker=res.maker)
        if res.winner is not None:
            for seat in winners:
                self.game_points_total[seat] += res.game_points
        self.maker_next = (next_maker(self.rules, res.maker, res.maker_side, res.next_side == MAKER)
                           if self.rules.predetermined_maker else None)
        self.starter = next_starter(self.rules, self.starter)
        self.deals.append(state)
        self.level_history.append(self._pending_levels)
        self._pending = None
        self._pending_levels = []

    def __repr__(self) -> str:
        return (f"<Match {self.rules.name} {self.rules.players}p seed={self.seed} "
                f"deals={len(self.deals)} over={self.is_over()}>")


def play_random_match(rules: Rules, seed: int = 0, rng: Optional[random.Random] = None,
                      max_deals: Optional[int] = None) -> Match:
    """A whole match between random players (``rng`` makes their choices;
    ``random.Random(seed)`` by default).

    >>> from core.rules import Rules
    >>> m = play_random_match(Rules.preset("stack"), seed=2, max_deals=3)
    >>> len(m.deals), m.is_over(), all(s.is_terminal() for s in m.deals)
    (3, True, True)
    >>> [s.fixed_maker for s in m.deals][1:] == [s.maker for s in m.deals][1:]
    True
    """
    if rng is None:
        rng = random.Random(seed)
    match = Match(rules, seed, max_deals)
    while not match.is_over():
        state = match.new_deal()
        while not state.is_terminal():
            state.apply(state.random_legal_action(rng))
        match.finish_deal(state)
    return match
