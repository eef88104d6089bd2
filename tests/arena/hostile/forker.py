"""Attack 7: leave processes behind (daemons in sessions of their own)."""

from __future__ import annotations

import os
import time


class ForkerBot:
    """At its first step forks ``children`` daemons that sleep forever: half
    stay Python (``os.fork`` + ``os.setsid``), half exec ``/bin/sh`` with the
    ``marker`` in their command line."""

    def __init__(self, marker: str = "hostile-fork", children: int = 4) -> None:
        self.marker = marker
        self.children = int(children)
        self.done = False
        self.rng = None

    def restart(self, rules, seat, rng) -> None:
        self.rng = rng

    def _daemon(self, i: int) -> None:
        try:
            pid = os.fork()
        except OSError:
            return
        if pid:
            try:
                os.waitpid(pid, 0)
            except OSError:
                pass
            return
        try:                                  # the child: a session of its own, forked again
            os.setsid()
            if os.fork():
                os._exit(0)
            for fd in range(3):
                try:
                    os.close(fd)
                except OSError:
                    pass
            if i % 2:
                os.execv("/bin/sh", ["/bin/sh", "-c", f"while :; do sleep 1000; done # {self.marker}"])
            while True:
                time.sleep(1000)
        finally:
            os._exit(0)

    def step(self, view):
        if not self.done:
            self.done = True
            for i in range(self.children):
                self._daemon(i)
        return view.random_action(self.rng)
