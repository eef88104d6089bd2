"""Attack 14: starve the other bots of CPU (``tests/arena/test_starvation.py``).

At its first decision the bot starts ``children`` processes that live
until the bot ends (they check that their parent still lives); at every
decision they spin for ``hold`` seconds, within its time limit, while the
bot sleeps, and then rest (a shared page says when) so that the bot itself
gets the CPU to answer. The referee stops all its processes between its turns, so they
spin only during its own turns, but then they take the machine's CPUs from
the bots of the other worker's table. A referee that charges the wall clock
made those bots time out; one that charges each bot its own CPU time, with
each bot's processes in a CPU group of their own, does not (the burner's
own CPU time stays within its limit: its group is bounded to one CPU).
"""

from __future__ import annotations

import mmap
import os
import time


class BurnerBot:
    """Plays at random; ``children`` spinning processes burn for ``hold`` seconds of each turn."""

    def __init__(self, children: int = 40, hold: float = 0.25) -> None:
        self.children = int(children)
        self.hold = float(hold)
        self.rng = None
        self.started = False
        self.flag = mmap.mmap(-1, 1)        # shared with the children: 1 while they burn

    def restart(self, rules, seat, rng) -> None:
        self.rng = rng

    def _burn(self) -> None:
        parent = os.getpid()
        for _ in range(self.children):
            try:
                pid = os.fork()
            except OSError:
                return                      # the process wall: as many as it allows
            if pid == 0:
                while os.getppid() == parent:
                    if self.flag[0]:
                        for _ in range(100_000):
                            pass
                    else:
                        time.sleep(0.005)
                os._exit(0)

    def step(self, view):
        if not self.started:
            self.started = True
            self._burn()
        self.flag[0] = 1
        time.sleep(self.hold)
        self.flag[0] = 0
        return view.random_action(self.rng)
