"""Attack 11: leave by the back door (KeyboardInterrupt, os._exit, sys.exit)."""

from __future__ import annotations

import os
import sys


class ExitBot:
    """``how``: ``interrupt`` raises KeyboardInterrupt, ``exit`` calls
    ``os._exit(3)``, ``sysexit`` calls ``sys.exit()``, ``crash`` raises
    RuntimeError; at every step from ``at`` on."""

    def __init__(self, how: str = "crash", at: int = 1) -> None:
        self.how = how
        self.at = int(at)
        self.steps = 0
        self.rng = None

    def restart(self, rules, seat, rng) -> None:
        self.rng = rng

    def step(self, view):
        self.steps += 1
        if self.steps >= self.at:
            if self.how == "interrupt":
                raise KeyboardInterrupt
            if self.how == "exit":
                os._exit(3)
            if self.how == "sysexit":
                sys.exit()
            raise RuntimeError("always crashes")
        return view.random_action(self.rng)
