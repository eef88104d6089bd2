"""Attack 2: claim to be a cheating bot (``cheats = True``) and hope ``peek`` is called."""

from __future__ import annotations


class CheaterBot:
    """If ``peek(state)`` is ever called it writes the marker and then crashes on purpose."""

    cheats = True

    def __init__(self, marker: str = "") -> None:
        self.marker = marker
        self.peeked = False
        self.rng = None

    def restart(self, rules, seat, rng) -> None:
        self.rng = rng

    def peek(self, state) -> None:
        self.peeked = True
        try:
            with open(self.marker, "w") as fh:
                fh.write(repr(getattr(state, "hands", state)))
        except OSError:
            pass

    def step(self, view):
        if self.peeked:
            raise RuntimeError("ATTACK WORKED: peek() was called with the state")
        return view.random_action(self.rng)
