"""A bot for the report pages' tests: the heuristic, but a random legal
move with chance ``p + n / 20``, an integer ``n`` and a real ``p`` to tune.
The chance changes who wins, so SPSA moves both from the first iterations
on (a tuning of the heuristic's own parameters on a few deals may end where
it began). Seated as ``tests/arena/noisy_bot.py:NoisyBot``."""

from __future__ import annotations

import random

from bots.base import Param
from bots.heuristic import HeuristicBot
from core.actions import Action
from core.rules import Rules
from core.state import PlayerView


class NoisyBot:
    """The heuristic bot, playing a random legal move with chance p + n / 20."""

    PARAMS = {"n": Param("twentieths of chance added to p", 0, 10),
              "p": Param("chance of a random legal move", 0.0, 0.5)}

    def __init__(self, n: int = 5, p: float = 0.2) -> None:
        self.chance = min(1.0, max(0.0, float(p) + int(n) / 20))
        self.inner = HeuristicBot()
        self.coin = random.Random(0)

    def restart(self, rules: Rules, seat: int, rng: random.Random) -> None:
        self.coin = random.Random(rng.getrandbits(64))
        self.inner.restart(rules, seat, rng)

    def step(self, view: PlayerView) -> Action:
        if self.coin.random() < self.chance:
            return view.random_action(self.coin)
        return self.inner.step(view)
