"""The random bot: a uniformly random choice among small option lists, and a
random legal play (built directly, never listed) in the play phase."""

from __future__ import annotations

import random

from core.actions import Action
from core.rules import Rules
from core.view import PlayerView

__all__ = ["RandomBot"]


class RandomBot:
    """Plays a random legal action.

    >>> RandomBot().restart(None, 0, random.Random(1)) is None
    True
    """

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.seat = 0

    def restart(self, rules: Rules, seat: int, rng: random.Random) -> None:
        """Take the deal's random stream."""
        self.rng = rng
        self.seat = seat

    def step(self, view: PlayerView) -> Action:
        """A random legal action from the view."""
        return view.random_action(self.rng)
