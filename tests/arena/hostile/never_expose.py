"""Attack 15: stall the deal by never making trump (pass every chance in the draw)."""

from __future__ import annotations

from core.actions import Action


class NeverExposeBot:
    """Passes whenever it may during the draw; otherwise a random legal action."""

    def restart(self, rules, seat, rng) -> None:
        self.rng = rng

    def step(self, view):
        if view.phase == "draw":
            return Action.pass_()
        return view.random_action(self.rng)


class NeverExposeToo(NeverExposeBot):
    """The same, as a second entrant."""
