"""Attack 5: an Action whose ``cards`` change every time they are read."""

from __future__ import annotations

from core.actions import Action
from core.cards import Cards, parse_cards


class _Slippery(Action):
    """First read: the legal cards; later reads: two red jokers it may not hold."""

    _reads = [0]

    @property
    def cards(self):                          # shadows the tuple field
        self._reads[0] += 1
        if self._reads[0] % 2 == 1:
            return tuple.__getitem__(self, 1)
        return parse_cards("RJ RJ")

    def __str__(self) -> str:
        text = Action.__str__(self)
        self._reads[0] += 1
        return text


class SlipperyBot:
    """Answers every request with a :class:`_Slippery` copy of a random legal action."""

    def __init__(self) -> None:
        self.rng = None

    def restart(self, rules, seat, rng) -> None:
        self.rng = rng

    def step(self, view):
        a = view.random_action(self.rng)
        return _Slippery(a.kind, Cards(a.cards), a.ordinal)
