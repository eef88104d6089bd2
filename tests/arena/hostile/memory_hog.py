"""Attack 6: hold 3 GiB."""

from __future__ import annotations


class MemoryHogBot:
    """Allocates ``gib`` GiB (and touches it) at its first step."""

    def __init__(self, gib: float = 3.0) -> None:
        self.gib = float(gib)
        self.hoard = []
        self.rng = None

    def restart(self, rules, seat, rng) -> None:
        self.rng = rng

    def step(self, view):
        block = bytearray(int(self.gib * (1 << 30)))
        block[::4096] = b"x" * len(block[::4096])
        self.hoard.append(block)
        return view.random_action(self.rng)
