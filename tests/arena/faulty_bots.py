"""Bots that misbehave on purpose, for the arena's fault handling tests.

Load them by path, like any user bot: ``tests/arena/faulty_bots.py:CrashBot?at=2``.
Each plays random legal actions until its ``at``-th step (counted from 1 over
the bot's life, so over a whole match) and misbehaves on that step and every
later one, so a seat that keeps such a bot after its first fault would fault
again.

>>> import random
>>> from core.rules import Rules
>>> from core.state import State
>>> s = State(Rules.preset("pagat", players=5), seed=1)
>>> bot = IllegalBot(at=1)
>>> bot.restart(s.rules, s.current_player(), random.Random(0))
>>> s.action_error(bot.step(s.view(s.current_player()))) is not None
True
"""

from __future__ import annotations

import random
import time
from typing import Any, Optional

from core.actions import Action
from core.cards import Cards
from core.rules import Rules
from core.state import PlayerView


class _RandomUntil:
    """Random legal actions until step ``at``; then :meth:`misbehave`."""

    def __init__(self, at: int = 3) -> None:
        self.at = int(at)
        self.steps = 0
        self.seat = 0
        self.rng = random.Random(0)

    def restart(self, rules: Rules, seat: int, rng: random.Random) -> None:
        """Take the seat and the random stream."""
        self.seat = seat
        self.rng = rng

    def step(self, view: PlayerView) -> Any:
        """A random legal action, or the misbehaviour from step ``at`` on."""
        self.steps += 1
        if self.steps >= self.at:
            return self.misbehave(view)
        return view.random_action(self.rng)

    def misbehave(self, view: PlayerView) -> Any:
        raise NotImplementedError


class CrashBot(_RandomUntil):
    """Raises ``RuntimeError`` from its ``at``-th step on."""

    def misbehave(self, view: PlayerView) -> Any:
        raise RuntimeError(f"boom at step {self.steps}\nsecond line")


class HangBot(_RandomUntil):
    """Never answers its ``at``-th step.

    ``how``: ``"sleep"`` sleeps in short naps, ``"spin"`` loops without
    sleeping, ``"block"`` makes one single ``time.sleep`` call. ``seconds``
    bounds the hang (0: forever for ``sleep`` and ``spin``, an hour for
    ``block``), so a broken time limit shows as a slow test, not a stuck one.
    """

    def __init__(self, at: int = 3, how: str = "sleep", seconds: float = 0.0) -> None:
        super().__init__(at)
        if how not in ("sleep", "spin", "block"):
            raise ValueError("how must be 'sleep', 'spin' or 'block'")
        self.how = how
        self.seconds = float(seconds)

    def misbehave(self, view: PlayerView) -> Any:
        if self.how == "block":
            time.sleep(self.seconds or 3600.0)
            return view.random_action(self.rng)
        end = time.monotonic() + self.seconds if self.seconds > 0 else float("inf")
        x = 0
        while time.monotonic() < end:
            if self.how == "sleep":
                time.sleep(0.01)
            else:
                x += 1
        return view.random_action(self.rng)


class IllegalBot(_RandomUntil):
    """Plays a card it does not hold from its ``at``-th step on (illegal in
    every phase: outside the play phase any play is illegal)."""

    def misbehave(self, view: PlayerView) -> Any:
        held = set(view.hand)
        missing = next(f for f in range(54) if f not in held)
        return Action.play(Cards((missing,)))


class NotAnActionBot(_RandomUntil):
    """Answers its ``at``-th step (by default the first) with the text of an
    action instead of an :class:`~core.actions.Action`."""

    def __init__(self, at: int = 1) -> None:
        super().__init__(at)

    def misbehave(self, view: PlayerView) -> Any:
        return str(view.random_action(self.rng))


class CrashOnRestartBot(_RandomUntil):
    """Raises in ``restart`` from its ``deal``-th deal on (counted from 1)."""

    def __init__(self, deal: int = 1) -> None:
        super().__init__(at=10 ** 9)
        self.deal = int(deal)
        self.deals = 0

    def restart(self, rules: Rules, seat: int, rng: random.Random) -> None:
        """Fail from deal ``deal`` on."""
        self.deals += 1
        if self.deals >= self.deal:
            raise ValueError(f"cannot start deal {self.deals}")
        super().restart(rules, seat, rng)


class CrashOnInformBot(_RandomUntil):
    """Plays randomly; raises in ``inform`` from its ``at``-th call on."""

    def __init__(self, at: int = 5) -> None:
        super().__init__(at=10 ** 9)
        self.inform_at = int(at)
        self.informs = 0

    def inform(self, view: PlayerView, seat: int, action: Action) -> None:
        """Fail from call ``at`` on."""
        self.informs += 1
        if self.informs >= self.inform_at:
            raise KeyError("no such thing")


class LoggingBot(_RandomUntil):
    """A well-behaved random bot that notes every call in the class-level
    ``LOG`` as ``(bot id, method, seat, detail)`` (for checking who plays a
    seat after a fault)."""

    LOG: list[tuple[int, str, int, Optional[str]]] = []

    def __init__(self) -> None:
        super().__init__(at=10 ** 9)

    def restart(self, rules: Rules, seat: int, rng: random.Random) -> None:
        """Note the restart."""
        super().restart(rules, seat, rng)
        self.LOG.append((id(self), "restart", seat, None))

    def step(self, view: PlayerView) -> Any:
        """Note the view's key, then play randomly."""
        self.LOG.append((id(self), "step", view.seat, str(view)))
        return super().step(view)


class ExitBot(_RandomUntil):
    """Ends its own process at its ``at``-th step: ``how`` is ``"exit"``
    (``os._exit(7)``), ``"segv"`` (reads address 0), ``"kill"`` (SIGKILL to
    itself: in the referee's own process only) or ``"sysexit"`` (raises ``SystemExit(7)``, which the arena
    catches like any exception: a plain crash)."""

    def __init__(self, at: int = 3, how: str = "exit") -> None:
        super().__init__(at)
        if how not in ("exit", "segv", "kill", "sysexit"):
            raise ValueError("how must be 'exit', 'segv', 'kill' or 'sysexit'")
        self.how = how

    def misbehave(self, view: PlayerView) -> Any:
        import os

        if self.how == "exit":
            os._exit(7)
        if self.how == "segv":
            import ctypes
            import faulthandler

            faulthandler.disable()          # no report on stderr: the death is the point
            ctypes.string_at(0)
        if self.how == "kill":
            import signal

            os.kill(os.getpid(), signal.SIGKILL)
        raise SystemExit(7)
