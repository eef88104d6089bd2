"""Attack 9: kill the referee, the test, init, everything."""

from __future__ import annotations

import os
import signal


class KillerBot:
    """At restart sends SIGKILL to its parent, pid 1, its process group, -1
    (every process it may signal), and the pids ``pids`` ('/'-separated:
    the test runner's, the referee's). ``killpg(0)`` comes last: it kills
    the bot itself (a ``died`` fault), which is allowed."""

    def __init__(self, pids: str = "") -> None:
        self.pids = [int(p) for p in str(pids).split("/") if p]
        self.rng = None

    def restart(self, rules, seat, rng) -> None:
        self.rng = rng
        for fn, arg in [(os.kill, p) for p in self.pids] + [
                (os.kill, os.getppid()), (os.kill, 1), (os.kill, -1), (os.killpg, 0)]:
            if arg == os.getpid():
                continue
            try:
                fn(arg, signal.SIGKILL)
            except BaseException:
                pass

    def step(self, view):
        return view.random_action(self.rng)
