"""A person at the table: one seat played from a browser page (or a terminal)
against bots, through the arena's own referee.

:class:`HumanTable` is the referee's table (:class:`arena.table.table.Table`: the
bots in this process or sandboxed, their faults, their news) with one seat
kept for a person: when that seat is to act, the table asks the
:class:`Session` instead of a bot and waits. The session checks every
action the person sends against the engine (``State.action_error``, the one
owner of legality) before the table sees it, so a wrong click is refused
with the engine's message and the deal goes on; it publishes after every
action what the person's seat may know (its view, and the actions it saw),
which the page (:mod:`arena.human.server`) or the terminal shows.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Optional

from core.actions import BURY, CALL, EXPOSE, PASS, PLAY, Action
from core.cards import format_cards, points
from core.errors import InvalidActionError
from core.observe import sees
from core.records import deal_record, rules_json, write_records
from core.rules import Rules
from core.state import BURY_PHASE, DRAW, PLAY_PHASE, STEAL_PHASE, State

from ..table.table import Table
from ..table.remote import close_pool
from ..table.settings import Limits, TableSettings
from ..types import ArenaError, Entrant, Job
from ..render.viewer import card_order, first_sides

__all__ = ["Session", "HumanTable", "play_human", "plural", "action_line", "how_far"]

#: Why the session was closed when nobody said (the terminal's input ended, the server went down).
CLOSED = "the table was closed"


def plural(n: int, word: str) -> str:
    """``n`` and ``word``, in the plural unless ``n`` is 1.

    >>> plural(1, "card"), plural(2, "card"), plural(0, "point")
    ('1 card', '2 cards', '0 points')
    """
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def action_line(action: Action, seen: bool) -> str:
    """What a seat did, as a line of the table's log ("played AS AS",
    "called the 1st AC as a friend"); ``seen``: whether the person sees the
    action itself (others' passes and buried cards stay hidden).

    >>> action_line(Action.from_str("play AS AS"), True), action_line(Action.from_str("bury 3C"), False)
    ('played AS AS', 'buried a card')
    >>> action_line(Action.from_str("call AC 1"), True), action_line(Action.from_str("call AC other"), True)
    ('called the 1st AC as a friend', 'called the other AC as a friend')
    """
    kind = action.kind
    if kind == PASS:
        return "passed"
    if kind == BURY:
        return f"buried {format_cards(action.cards)}" if seen else "buried a card"
    if kind == EXPOSE:
        return f"exposed {format_cards(action.cards)}"
    if kind == CALL:
        which = "the other" if not action.ordinal else f"the {_ordinal(action.ordinal)}"
        return f"called {which} {format_cards(action.cards)} as a friend"
    assert kind == PLAY
    return f"played {format_cards(action.cards)}"


def how_far(state: Optional[State], seat: int) -> str:
    """How far the deal went, for the line that says it ended early
    ("during the draw", "after 2 tricks, with 16 cards left in your hand")."""
    if state is None:
        return "before the deal started"
    phase = state.phase
    if phase == DRAW:
        return "during the draw"
    if phase in (BURY_PHASE, STEAL_PHASE):
        return "while the kitty was being buried"
    if phase < PLAY_PHASE:
        return "while the friends were being called"
    done = len(state.tricks)
    left = len(state.hand(seat))
    return f"after {plural(done, 'trick')}, with {plural(left, 'card') if left else 'no cards'} left in your hand"


class Session:
    """What the person's seat knows, published after every action, and the
    person's pending decision. Thread-safe: the table's thread and the
    server's threads share it."""

    def __init__(self, rules: Rules, seat: int, names: Sequence[str]) -> None:
        self.rules = rules
        self.seat = seat
        self.names = list(names)
        self._cond = threading.Condition()
        self._state: Optional[State] = None
        self._snapshot: dict[str, Any] = {"version": 0, "waiting": False, "done": False}
        self._events: list[dict[str, Any]] = []
        self._pending: Optional[Action] = None
        self._error = ""
        self._waiting = False
        self.closed = False
        self.why = ""                            # why the session was closed, when it was
        self._tricks = 0                         # the tricks told in the log so far
        self._wins: list[list[int]] = []         # each trick told so far: [its winner, its points]
        self._throws = 0                         # the failed throws told so far
        self.record = ""
        self.result: Optional[dict[str, Any]] = None

    # ------------------------------------------------------------ the table's side
    def publish(self, state: State) -> None:
        """Take what the seat knows now (called by the table's thread): its
        view, the log, and ``trick_wins``, each trick done so far as
        ``[winner, points]`` (the page names the last trick's winner from it)."""
        view = state.view(self.seat).to_json()
        with self._cond:
            self._state = state
            self._snapshot = {
                "version": self._snapshot["version"] + 1, "seat": self.seat, "names": self.names,
                "rules": rules_json(self.rules), "first_sides": first_sides(self.rules), "view": view,
                "events": self._events[-300:],
                "order": card_order(state.trump), "trick_wins": [list(w) for w in self._wins],
                "waiting": self._waiting, "error": self._error, "done": self.result is not None,
                "result": self.result, "record": self.record,
            }
            self._cond.notify_all()

    def event(self, seat: int, action: Action, state: Optional[State] = None) -> None:
        """An action was taken at the table (``state``: the deal after it):
        note it as the person's seat sees it, as a line of the log ("played
        AS AS"), and then who won the trick it ended and its points. Each
        event is ``{"seat", "action", "move"}``: ``action`` the line (the
        page and the terminal show it after the seat), ``move`` the action's
        text when the seat sees it, else None."""
        seen = sees(self.seat, seat, action)
        line = action_line(action, seen)
        if state is not None and action.kind == PLAY:
            leader, plays = state.current_trick()
            if leader == seat and len(plays) == 1:
                line = "led" + line[len("played"):]
            if len(state.failed_throws) > self._throws:
                _, attempt, led = state.failed_throws[-1]
                verb = "is" if len(led) == 1 else "are"
                line = f"tried to throw {format_cards(attempt)}, which fails: {format_cards(led)} {verb} led instead"
            self._throws = len(state.failed_throws)
        with self._cond:
            self._events.append({"seat": seat, "action": line, "move": str(action) if seen else None})
            if state is None or state.play is None:
                return
            pc = state.play
            while self._tricks < len(state.tricks):
                _, plays = state.tricks[self._tricks]
                self._tricks += 1
                last = self._tricks == len(state.tricks) and pc.done
                winner = pc.last_trick[0] if last else pc.leader
                worth = sum(points(p) for p in plays)
                self._wins.append([winner, worth])
                self._events.append({"seat": winner, "move": None, "action": (
                    f"won trick {self._tricks}, worth {plural(worth, 'point') if worth else 'no points'}")})

    def ended(self) -> str:
        """The line that says the deal ended early, and why."""
        with self._cond:
            state, why = self._state, self.why or CLOSED
        return f"{why}: the game ends {how_far(state, self.seat)}"

    def ask(self, state: State) -> Action:
        """Wait for the person's action (checked when it was sent)."""
        with self._cond:
            self._waiting = True
            self._pending = None
        self.publish(state)
        with self._cond:
            while self._pending is None:
                if self.closed:
                    raise ArenaError(self.ended())
                self._cond.wait(0.5)
            action, self._pending = self._pending, None
            self._waiting = False
            self._error = ""
        return action

    def finish(self, state: State, record: str) -> None:
        """The deal is over: its result and where its record was saved."""
        res = state.result
        assert res is not None                   # asked once the deal is over
        self.record = record
        self.result = {"maker_side": sorted(res.maker_side), "opponents_points": res.opponents_points,
                       "total_points": self.rules.total_points, "winner": res.winner,
                       "game_points": res.game_points, "winners": sorted(state.winners()),
                       "kitty": str(state.kitty), "kitty_to_opponents": res.kitty_to_opponents,
                       "kitty_multiplier": res.kitty_multiplier}
        self.publish(state)

    # ------------------------------------------------------------ the person's side
    def snapshot(self) -> dict[str, Any]:
        """The latest published state of the seat (a JSON-ready dict)."""
        with self._cond:
            return self._snapshot

    def wait_newer(self, version: int, timeout: float) -> dict[str, Any]:
        """The snapshot once it is newer than ``version`` (or after ``timeout``)."""
        with self._cond:
            self._cond.wait_for(lambda: self._snapshot["version"] > version or self.closed, timeout)
            return self._snapshot

    def submit(self, text: Any) -> tuple[bool, str]:
        """The person's action as text: (True, "") when taken, else (False, why)."""
        if not isinstance(text, str) or not text.strip():
            return False, "send an action such as \"play AS AS\", \"pass\", \"bury 3C\" or \"call AC 1\""
        if len(text) > 400:
            return False, "that action is too long"
        with self._cond:
            if not self._waiting or self._state is None:
                return False, "it is not your turn"
            try:
                action = Action.from_str(text)
            except InvalidActionError as exc:
                why = str(exc)
            else:
                why = self._state.action_error(action) or ""
            state = self._state
            if why:
                self._error = why
            else:
                self._pending = action
                self._waiting = False            # from now on no poll shows the turn as still open
                self._error = ""
                self._cond.notify_all()
        self.publish(state)                      # the page shows the refusal, or that the turn is over
        return (False, why) if why else (True, "")

    def close(self, why: str = "") -> None:
        """Stop waiting for the person: the deal ends at the table's next
        step. ``why``: the reason the ending line gives (the first one said
        counts), e.g. "the table's page was closed"."""
        with self._cond:
            if not self.closed and why:
                self.why = why
            self.closed = True
            self._cond.notify_all()


class HumanTable(Table):
    """The referee's table with the person's seat asked through a session."""

    def __init__(self, session: Session, pace: float, *args: Any) -> None:
        super().__init__(*args)
        self.session = session
        self.pace = pace

    def start(self, state: State) -> None:
        super().start(state)
        self.session.publish(state)

    def choose(self, state: State, seat: int) -> Action:
        if seat == self.session.seat:
            return self.session.ask(state)
        return super().choose(state, seat)

    def played(self, state: State, seat: int, action: Action) -> None:
        super().played(state, seat, action)
        self.session.event(seat, action, state)
        self.session.publish(state)
        if self.session.closed and not state.is_terminal():
            raise ArenaError(self.session.ended())       # the page is gone: nobody to play for
        if seat != self.session.seat and self.pace > 0 and not state.is_terminal():
            time.sleep(self.pace)                # a person can follow the bots' moves


def play_human(rules: Rules, seat: int, bots: Sequence[str], seed: int, record_path: str,
               session_made: Callable[[Session], None], pace: float = 0.8, time_limit: float = 10.0,
               trusted: str = TableSettings.trusted) -> State:
    """Play one deal with the person at ``seat`` and ``bots`` at the other seats
    (one spec for all, or one per other seat, in seat order); save its record
    at ``record_path``. ``session_made(session)`` is called before the deal
    starts (to serve the session). Returns the finished state."""
    n = rules.players
    if not 0 <= seat < n:
        raise ArenaError(f"--human: seat {seat} is not a seat from 0 to {n - 1}")
    if len(bots) == 1:
        bots = list(bots) * (n - 1)
    if len(bots) != n - 1:
        raise ArenaError(f"--bots: give one bot for every other seat ({n - 1}), or one for all, not {len(bots)}")
    specs = list(bots)
    specs.insert(seat, "random")                 # the person's seat: never asked, only told
    entrants = [Entrant(f"you (seat {seat})" if s == seat else f"{specs[s]}", specs[s]) for s in range(n)]
    job = Job(0, "human", 0, seed, 0, 0, tuple(range(n)))
    settings = TableSettings(rules, limits=Limits(move=time_limit), trusted=trusted,
                             secret=random.Random(seed).randbytes(16)).check()
    session = Session(rules, seat, [e.name for e in entrants])
    table = HumanTable(session, pace, job, entrants, settings)
    session_made(session)
    try:
        state = table.play_deal(State(rules, seed=seed))
    finally:
        table.finish()
        close_pool()
    records = deal_record(state)
    records[0]["players"] = session.names
    try:
        write_records(records, record_path)
    except OSError as exc:
        raise ArenaError(f"--record {record_path}: {exc.strerror or exc}") from None
    session.finish(state, record_path)
    return state
