"""Bots across the OpenSpiel border, both ways (``pip install .[openspiel]``).

*OpenSpiel's bots in our arena*: the specs ``openspiel:ismcts``,
``openspiel:mcts`` and ``openspiel:random`` (parameters after ``?``:
``openspiel:ismcts?sims=200,c=2.0``) name :class:`IsmctsEntrant` (OpenSpiel's
Python ``ISMCTSBot``, searching worlds our sampler draws, through
:meth:`~arena.adapters.openspiel.PengyouState.resample_from_infostate`),
:class:`MctsEntrant` (its ``MCTSBot``, on one world the sampler draws: a
determinization) and :class:`RandomEntrant` (its uniform random bot, uniform
over the action ids of each step). Each plays the play phase through the
adapter, from the view alone (:func:`~arena.adapters.openspiel.state_from_view`),
and hands exposing, burying and calling to ``fallback`` as our ``ismcts``
does; a play is the ids the OpenSpiel bot chooses one after another (the
cards, then the end of the selection).

*Our bots in OpenSpiel*: :class:`PengyouBot` is a ``pyspiel.Bot`` that asks one
of our bots (any spec) for the action of its seat's view and answers with
its ids one step at a time.
"""

from __future__ import annotations

import random
import time
from typing import Any, Optional

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from bots.protocol import Bot, Param, keep_params
from bots.registry import make_bot
from core.actions import Action
from core.rules import Rules
from core.view import PlayerView

from .openspiel import PengyouGame, PengyouState, action_ids, game_for, state_from_view

__all__ = ["ENTRANTS", "OpenSpielEntrant", "IsmctsEntrant", "TimedISMCTSBot", "MctsEntrant", "RandomEntrant", "PengyouBot"]


class OpenSpielEntrant:
    """An OpenSpiel bot playing the play phase; ``fallback`` the rest."""

    PARAMS = {
        "sims": Param("simulations per step of a play", 1, 10_000),
        "c": Param("UCT exploration constant", 0.0, 5.0),
        "rollouts": Param("random rollouts per evaluation", 1, 16),
        "fallback": Param("bot spec for exposing, burying and calling", bot=True),
    }
    sims: int
    c: float
    rollouts: int

    def __init__(self, sims: int = 100, c: float = 2.0, rollouts: int = 1, fallback: Any = "heuristic") -> None:
        if sims < 1 or rollouts < 1:
            raise ValueError("sims and rollouts must be at least 1")
        keep_params(self, {"sims": sims, "c": c, "rollouts": rollouts})
        self.fallback: Bot = make_bot(fallback) if isinstance(fallback, str) else fallback
        self._games: dict[Rules, PengyouGame] = {}
        self.game: Optional[PengyouGame] = None
        self.seat = 0
        self.rng = random.Random(0)
        self.bot: Any = None

    def restart(self, rules: Rules, seat: int, rng: random.Random) -> None:
        """A new deal in ``seat``: the game of ``rules`` and a fresh OpenSpiel bot."""
        self.seat, self.rng = seat, rng
        self.fallback.restart(rules, seat, rng)
        game = self._games.get(rules)
        if game is None:
            # returns on the scale OpenSpiel's UCT constants are meant for (about -1 to 1)
            game = self._games[rules] = game_for(rules, "card_share")
        self.game = game
        self.bot = self.make(game, seat, np.random.RandomState(rng.getrandbits(32)))

    def make(self, game: PengyouGame, seat: int, random_state: np.random.RandomState) -> Any:
        """The OpenSpiel bot (each kind its own)."""
        raise NotImplementedError

    def evaluator(self, random_state: np.random.RandomState) -> Any:
        """OpenSpiel's random-rollout evaluator."""
        return mcts.RandomRolloutEvaluator(n_rollouts=self.rollouts, random_state=random_state)

    def step(self, view: PlayerView) -> Action:
        """The fallback's action before the play; in the play, the OpenSpiel bot's ids."""
        if view.phase != "play":
            return self.fallback.step(view)
        assert self.game is not None
        state = state_from_view(self.game, view, self.rng)
        deadline = time.perf_counter() + getattr(self, "seconds", 0.0)
        while True:
            done = len(state.actions)
            self.budget(deadline, state.steps_left())
            state.apply_action(int(self.bot.step(state)))
            if len(state.actions) > done:
                return state.actions[-1]

    def budget(self, deadline: float, steps: int) -> None:
        """Set the time the next step may take (a bot with a time budget),
        ``steps`` the steps of the decision that may still be choices."""


class TimedISMCTSBot(ismcts.ISMCTSBot):  # type: ignore[misc]
    """OpenSpiel's ISMCTSBot whose search runs for :attr:`seconds` (when
    positive) instead of a number of simulations; at least two (the first
    only opens the root)."""

    seconds = 0.0

    def run_search(self, state: Any) -> Any:
        """Its search, as written in OpenSpiel, with a deadline for a count."""
        if self.seconds <= 0:
            return super().run_search(state)
        self.reset()
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)]
        self._root_node = self.create_new_node(state)
        deadline, sims = time.perf_counter() + self.seconds, 0
        while sims < 2 or time.perf_counter() < deadline:     # its first simulation only opens the root
            self.run_simulation(self.sample_root_state(state))
            sims += 1
        return self.get_final_policy(state, self._root_node)


class IsmctsEntrant(OpenSpielEntrant):
    """OpenSpiel's ISMCTSBot, resampling worlds with our sampler."""

    PARAMS = {**OpenSpielEntrant.PARAMS,
              "seconds": Param("a time budget per decision used instead of sims when positive "
                               "(shared among the steps of a play that may still be choices)")}
    seconds: float

    def __init__(self, sims: int = 100, c: float = 2.0, rollouts: int = 1, seconds: float = 0.0,
                 fallback: Any = "heuristic") -> None:
        super().__init__(sims, c, rollouts, fallback)
        if seconds < 0:
            raise ValueError("seconds must not be negative")
        if sims < 2:
            raise ValueError("sims must be at least 2 (the first simulation only opens the root)")
        keep_params(self, {"seconds": seconds})

    def make(self, game: PengyouGame, seat: int, random_state: np.random.RandomState) -> Any:
        bot = TimedISMCTSBot(game, self.evaluator(random_state), self.c, self.sims, random_state=random_state)
        # its default resampler seeds each world from the system's entropy: ours draws from the bot's stream,
        # so that a deal replays the same
        draw = random.Random(int(random_state.randint(2 ** 31))).random
        bot.set_resampler(lambda state, player: state.resample_from_infostate(player, draw))
        return bot

    def budget(self, deadline: float, steps: int) -> None:
        if self.seconds > 0:
            self.bot.seconds = max(0.0, (deadline - time.perf_counter()) / steps)


class MctsEntrant(OpenSpielEntrant):
    """OpenSpiel's MCTSBot on one sampled world (a determinization)."""

    def make(self, game: PengyouGame, seat: int, random_state: np.random.RandomState) -> Any:
        return mcts.MCTSBot(game, self.c, self.sims, self.evaluator(random_state), solve=False,
                            random_state=random_state)


class RandomEntrant(OpenSpielEntrant):
    """OpenSpiel's uniform random bot (uniform over each step's action ids)."""

    def make(self, game: PengyouGame, seat: int, random_state: np.random.RandomState) -> Any:
        return pyspiel.make_uniform_random_bot(seat, int(random_state.randint(2 ** 31)))


#: spec name -> entrant class (the registry's ``openspiel:`` names)
ENTRANTS: dict[str, type[OpenSpielEntrant]] = {
    "openspiel:ismcts": IsmctsEntrant,
    "openspiel:mcts": MctsEntrant,
    "openspiel:random": RandomEntrant,
}


class PengyouBot(pyspiel.Bot):  # type: ignore[misc]
    """One of our bots (a spec or a bot) as an OpenSpiel bot for ``player``:
    it is restarted at each new deal and asked for its seat's action, whose
    ids it then returns one per step."""

    def __init__(self, player: int, bot: Any = "heuristic", seed: int = 0) -> None:
        pyspiel.Bot.__init__(self)
        self.player = player
        self.bot: Bot = make_bot(bot) if isinstance(bot, str) else bot
        self.rng = random.Random(seed)
        self._deal: Any = None
        self._seen = 0                      # the deal's actions when this bot last moved
        self._queue: list[int] = []

    def restart_at(self, state: PengyouState) -> None:
        """Forget the deal (the next step restarts the bot)."""
        self._deal, self._queue = None, []

    def step(self, state: PengyouState) -> int:
        """The next id of this seat's action."""
        engine = state.engine
        if engine is None or state.current_player() != self.player:
            raise pyspiel.SpielError(f"PengyouBot: seat {self.player} is not to move")
        deal = (tuple(state.decks[0]), engine.rules)
        if deal != self._deal or len(engine.history) < self._seen:
            self.bot.restart(engine.rules, self.player, self.rng)
            self._deal, self._queue = deal, []
        self._seen = len(engine.history)
        if not state.picked or not self._queue:
            if state.picked:
                raise pyspiel.SpielError(f"PengyouBot: seat {self.player} did not start this selection")
            self._queue = action_ids(self.bot.step(engine.view(self.player)))
        return self._queue.pop(0)
