"""Attack 12: think on the other seats' time (and slow their bots down).

A bot that keeps computing while it is not its turn takes CPU from the
referee and from every other bot at the table: the others' decisions take
longer (their searches see fewer iterations in the same time, or run out
of it), and the thinker gains time it was never given.
"""

from __future__ import annotations

import mmap
import os
import struct
import sys
import threading
import time

#: [thread cpu, child cpu] of the spinners, shared with the child; one set a process
_SHARED = mmap.mmap(-1, 16)
_STARTED = [False]


def _spin(slot: int, clock) -> None:
    """Spin for ever, noting ``clock()`` (this spinner's CPU time) in ``slot``."""
    n = 0
    while True:
        n += 1
        if n % 2000 == 0:
            struct.pack_into("d", _SHARED, 8 * slot, clock())


def _spin_child() -> None:
    try:
        pid = os.fork()
    except OSError:
        return
    if pid:
        return
    try:
        os.setsid()                         # out of the bot's process group, if the walls allow
    except OSError:
        pass
    _spin(1, time.process_time)


def _used() -> float:
    a, b = struct.unpack_from("dd", _SHARED, 0)
    return a + b


class PonderBot:
    """In its first deal, a thread and a forked child (which tries to leave
    the bot's process group first) start to spin for ever, each noting the
    CPU time it has used. At every step the bot adds up the wall time since
    its last answer (while other seats decided) and what the spinners used
    in it; when they used more than ``share`` of that time (over at least
    ``least`` seconds of it) it raises ``ATTACK WORKED``. (Part of that time
    is still the bot's own turn: its host writing the answer, and reading
    the next request; the spinners may use that.)"""

    def __init__(self, share: float = 0.25, least: float = 0.3) -> None:
        self.share, self.least = float(share), float(least)
        self.rng = None
        self.cpu = self.wall = 0.0              # spinners' cpu and wall time between turns, in all
        self.last_cpu = self.last_wall = None

    def restart(self, rules, seat, rng) -> None:
        self.rng = rng
        if not _STARTED[0]:
            _STARTED[0] = True
            sys.setswitchinterval(1e-4)         # the spinning thread lets the host's own work run
            _spin_child()
            threading.Thread(target=_spin, args=(0, time.thread_time), daemon=True).start()
        self.last_cpu = self.last_wall = None

    def step(self, view):
        if self.last_wall is not None:
            self.cpu += max(0.0, _used() - self.last_cpu)
            self.wall += time.monotonic() - self.last_wall
            if self.wall >= self.least and self.cpu > self.share * self.wall:
                raise RuntimeError(f"ATTACK WORKED: {self.cpu:.2f} s of CPU used in {self.wall:.2f} s "
                                   "between turns")
        action = view.random_action(self.rng)
        self.last_cpu, self.last_wall = _used(), time.monotonic()
        return action
