"""A bot with a planted weakness: with chance ``p`` it plays a random legal
move, else the heuristic's. Tuning ``p`` must drive it towards 0.

Not registered on import (the registry is the built-ins'): a test seats it
as ``tests/arena/planted.py:PlantedBot`` or registers it for its own run."""

from __future__ import annotations

import random

from bots.base import Param
from bots.heuristic import HeuristicBot
from core.actions import Action
from core.rules import Rules
from core.state import PlayerView


class PlantedBot:
    """The heuristic bot, playing a random legal move with chance p."""

    PARAMS = {"p": Param("chance of a random legal move instead of the heuristic's", 0.0, 1.0)}

    def __init__(self, p: float = 0.5) -> None:
        if not 0.0 <= p <= 1.0:
            raise ValueError("0 <= p <= 1 is required")
        self.p = float(p)
        self.inner = HeuristicBot()
        self.coin = random.Random(0)

    def restart(self, rules: Rules, seat: int, rng: random.Random) -> None:
        self.coin = random.Random(rng.getrandbits(64))
        self.inner.restart(rules, seat, rng)

    def step(self, view: PlayerView) -> Action:
        if self.coin.random() < self.p:
            return view.random_action(self.coin)
        return self.inner.step(view)
