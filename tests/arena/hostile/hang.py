"""Attack 10: never answer, in ways a signal-based time limit would miss."""

from __future__ import annotations

import os
import signal
import time


class HangBot:
    """``how``: ``spin`` (while True: pass, in C-free Python), ``noalarm``
    (ignores SIGALRM, blocks every signal it can, then sleeps), ``stop``
    (SIGSTOPs itself), ``sleep`` (one ``time.sleep(1000)``)."""

    def __init__(self, how: str = "spin") -> None:
        self.how = how
        self.rng = None

    def restart(self, rules, seat, rng) -> None:
        self.rng = rng

    def step(self, view):
        if self.how == "spin":
            while True:
                pass
        if self.how == "noalarm":
            for sig in (signal.SIGALRM, signal.SIGINT, signal.SIGTERM, signal.SIGVTALRM, signal.SIGPROF):
                signal.signal(sig, signal.SIG_IGN)
            signal.pthread_sigmask(signal.SIG_BLOCK, set(signal.Signals) - {signal.SIGKILL, signal.SIGSTOP})
            while True:
                try:
                    time.sleep(1000)
                except BaseException:
                    pass
        if self.how == "stop":
            os.kill(os.getpid(), signal.SIGSTOP)
        time.sleep(1000)
        return view.random_action(self.rng)
