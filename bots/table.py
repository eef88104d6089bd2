"""The one loop that seats bots at a table and plays a deal to its end.

:func:`play_table` asks whoever holds the seats (a :class:`Seats`) for
each decision, applies it, and says it was played; the arena's referee
(sandboxed processes, faults, fallbacks, forfeits) and :func:`play_deal`
(trusted bots in this process, an illegal answer raises) are two holders of
the same loop. Who learns of an action is :func:`core.observe.sees`, and
what makes a bot's answer unplayable is :func:`answer_error`, for both.

>>> import random
>>> from core.rules import Rules
>>> from bots.base import make_bot
>>> s = play_deal(Rules.preset("pagat", players=5), 4, [make_bot("random")] * 5, random.Random(0))
>>> s.is_terminal()
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Optional, Protocol, cast

from core.actions import Action
from core.cards import Cards
from core.observe import sees
from core.rules import Rules
from core.state import State

from .protocol import Bot, BotError, BotMoveError

__all__ = ["Seats", "play_table", "answer_error", "exception_line", "fresh_action", "BotSeats", "play_deal",
           "MESSAGE_CHARS"]

#: The longest fault or error line an answer produces (characters).
MESSAGE_CHARS = 200


class Peeking(Protocol):
    """A bot whose class says ``cheats = True``: it is shown the state before each decision."""

    def peek(self, state: State) -> None:
        """See the whole state (every hand)."""


class Seats(Protocol):
    """Whoever holds the seats of a table, as :func:`play_table` asks it."""

    def start(self, state: State) -> None:
        """A new deal begins (bots restart)."""

    def choose(self, state: State, seat: int) -> Action:
        """A legal action for ``seat``, the player to move."""

    def played(self, state: State, seat: int, action: Action) -> None:
        """``seat`` took ``action`` (already applied to ``state``)."""

    def end(self, state: State) -> None:
        """The deal is over."""


def play_table(state: State, seats: Seats) -> State:
    """Play ``state`` to its end with ``seats`` choosing; returns ``state``."""
    seats.start(state)
    while not state.is_terminal():
        seat = state.current_player()
        action = seats.choose(state, seat)
        state.apply(action, check=False)
        seats.played(state, seat, action)
    seats.end(state)
    return state


def _short(text: str, limit: int = MESSAGE_CHARS) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def answer_error(state: State, answer: Any) -> Optional[str]:
    """Why a bot's answer to ``step`` cannot be played in ``state``, or None;
    a one-line reason, whatever the answer is (it never raises).

    >>> from core.rules import Rules
    >>> s = State(Rules.preset("pagat", players=5), seed=1)
    >>> answer_error(s, None)
    'step returned None, not an Action'
    >>> answer_error(s, Action.from_str("AS"))
    'played play AS: during the draw the only choices are expose and pass'
    >>> answer_error(s, Action.pass_()) is None
    True
    """
    if not isinstance(answer, Action):
        try:
            text = repr(answer)
        except Exception:
            text = f"a {type(answer).__name__}"
        return f"step returned {_short(text, 80)}, not an Action"
    try:
        err = state.action_error(answer)
    except Exception as exc:  # an Action built with nonsense fields
        err = exception_line(exc)
    if err is None:
        return None
    try:
        shown = str(answer)
    except Exception:
        shown = "an unreadable action"
    return _short(f"played {shown}: {err}")


def exception_line(exc: BaseException) -> str:
    """``"ExceptionType: message"`` on one line, truncated (a bot's exception
    whose ``str()`` fails gives its type alone).

    >>> exception_line(ValueError("no\\nway"))
    'ValueError: no way'
    """
    name = type(exc).__name__
    try:
        text = " ".join(str(exc).split())
    except Exception:
        text = ""
    return _short(f"{name}: {text}" if text else name)


def fresh_action(answer: Action) -> Action:
    """A plain copy of a checked answer (a subclass's tricks stay behind)."""
    return Action(answer.kind, Cards(answer.cards), answer.ordinal)


class BotSeats:
    """Trusted bots in this process, one per seat; an unplayable answer
    raises :class:`BotMoveError` naming the seat."""

    def __init__(self, rules: Rules, bots: Sequence[Bot], rng: random.Random) -> None:
        if len(bots) != rules.players:
            raise BotError(f"need {rules.players} bots, got {len(bots)}")
        self.rules = rules
        self.bots = list(bots)
        self.rng = rng
        self.informs = [getattr(b, "inform", None) for b in self.bots]

    def start(self, state: State) -> None:
        """Restart every bot, each with its own random stream drawn from ``rng``."""
        for seat, bot in enumerate(self.bots):
            bot.restart(self.rules, seat, random.Random(self.rng.getrandbits(64)))

    def choose(self, state: State, seat: int) -> Action:
        """The bot's answer, checked."""
        bot = self.bots[seat]
        if getattr(bot, "cheats", False):
            cast(Peeking, bot).peek(state)            # only the clearly named oracle bot asks for this
        answer = bot.step(state.view(seat))
        err = answer_error(state, answer)
        if err is not None:
            raise BotMoveError(seat, f"seat {seat}: {err}")
        return fresh_action(answer)

    def played(self, state: State, seat: int, action: Action) -> None:
        """Tell every bot that sees the action, with its own view after it."""
        for other, inform in enumerate(self.informs):
            if inform is not None and sees(other, seat, action):
                inform(state.view(other), seat, action)

    def end(self, state: State) -> None:
        """Nothing to do: the bots keep no process."""


def play_deal(rules: Rules, seed: int, bots: Sequence[Bot], rng: random.Random,
              state: Optional[State] = None) -> State:
    """Play one deal between ``bots`` (one per seat); returns the finished state.

    Each bot gets its own random stream drawn from ``rng``. An illegal action
    raises :class:`BotMoveError` (an :class:`IllegalActionError`) naming the seat.
    """
    seats = BotSeats(rules, bots, rng)
    return play_table(state if state is not None else State(rules, seed=seed), seats)
