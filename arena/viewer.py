"""The replay viewer: a deal or match record as one self-contained HTML page.

:func:`viewer_data` replays a record (checking it, as ``pengyou replay``
does) and keeps, for every step of each deal, what the page needs: who
acted and what they did, every seat's hand (the all-hands view), the
buried cards, and each seat's own view as the protocol's narrator tells it
(a whole view, then the changes of each action), so that the one-seat view
shows exactly what that seat knew. :func:`page` puts that data, the
page's script and its style into one HTML file that opens with no server
and no network.

Nothing here knows a rule: which cards are trumps and how a hand is
ordered come from the kernel, the captions' wording from the deal's
account (:mod:`core.account`).

>>> import random
>>> from core.records import deal_record
>>> from core.rules import Rules
>>> from core.state import State
>>> s = State(Rules.preset("pagat", players=5), seed=3)
>>> rng = random.Random(3)
>>> while not s.is_terminal():
...     s.apply(s.random_legal_action(rng))
>>> data = viewer_data(deal_record(s))
>>> deal = data["deals"][0]
>>> len(deal["steps"]) == len(s.history) + 1, len(deal["views"]) == 5
(True, True)
>>> all(len(v) == len(deal["steps"]) for v in deal["views"])
True
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from importlib import resources
from typing import Any, Optional

from core import kernel
from core.account import account
from core.cards import NUM_FACES, Trump, card_name, format_cards, points
from core.errors import InvalidActionError, PengyouError
from core.observe import Narrator, sees
from core.records import replay_deal, replay_match
from core.phases import PHASE_NAMES
from core.state import PLAY_PHASE, State

__all__ = ["viewer_data", "page", "write_page", "card_order"]


def card_order(trump: Optional[Trump]) -> dict[str, list[int]]:
    """Each card's place in a hand on the page (effective suit, then order
    level), and the trump cards, from the kernel; empty before trump is made."""
    if trump is None:
        return {}
    return {card_name(f): [kernel.effective_suit(f, trump), kernel.level(f, trump)] for f in range(NUM_FACES)}


class _Deal:
    """Follows one deal while it is replayed and keeps its steps."""

    def __init__(self, state: State, names: Optional[Sequence[str]]) -> None:
        self.s = state
        n = state.rules.players
        self.names = list(names) if names else [f"seat {i}" for i in range(n)]
        self.narrator = Narrator(state)
        self.views: list[list[Any]] = [[msg] for msg in self.narrator.opening()]
        self._done_tricks = 0                    # tricks complete at the last step
        self.steps: list[dict[str, Any]] = [self._step(None, None, [])]
        self._tricks = 0
        self._filled: list[Optional[int]] = []
        self._throws = 0

    def _step(self, actor: Optional[int], action: Optional[str], notes: list[str]) -> dict[str, Any]:
        s = self.s
        n = s.rules.players
        kitty = None if s.maker is None else s.view(s.maker).kitty     # what the maker has buried so far
        return {"actor": -1 if actor is None else actor, "action": action, "phase": PHASE_NAMES[s.phase],
                "hands": [format_cards(s.hand(i)) for i in range(n)],
                "buried": "" if kitty is None else format_cards(kitty),
                "trick": self._trick(), "points": list(s.play.points) if s.play is not None else [0] * n,
                "notes": notes}

    def _trick(self) -> Optional[dict[str, Any]]:
        """The trick to show after this step: the one just completed (with its
        winner), or the one under way (with the seat holding it so far)."""
        s = self.s
        pc = s.play
        if pc is None:
            return None
        done = len(s.tricks) > self._done_tricks
        self._done_tricks = len(s.tricks)
        if done:
            leader, plays = s.tricks[-1]
            winner = pc.last_trick[0] if pc.done else pc.leader
        elif not pc.is_leading:
            leader, plays = s.current_trick()
            winner = pc.holder
        else:
            return None
        return {"number": len(s.tricks) if done else len(s.tricks) + 1, "leader": leader, "done": done,
                "plays": [format_cards(p) for p in plays], "winner": winner,
                "points": sum(points(p) for p in plays)}

    def after(self) -> None:
        s = self.s
        actor, action = s.history[-1]
        msgs = self.narrator.after(actor, action)
        for seat, msg in enumerate(msgs):
            self.views[seat].append(msg)
        self.steps.append(self._step(actor, str(action), self._notes()))
        self.steps[-1]["seen"] = [sees(seat, actor, action) for seat in range(s.rules.players)]

    def _notes(self) -> list[str]:
        """What the last action settled: a failed throw, a friend shown, a trick won."""
        s = self.s
        out: list[str] = []
        if s.phase < PLAY_PHASE or s.play is None:
            return out
        pc = s.play
        for seat, attempt, played in s.failed_throws[self._throws:]:
            out.append(f"seat {seat} tried to throw {format_cards(attempt)}: it fails, "
                       f"{format_cards(played)} is led instead")
        self._throws = len(s.failed_throws)
        if not self._filled:
            self._filled = [None] * len(s.calls)
        for i, who in enumerate(pc.calls_filled):
            if who is not None and self._filled[i] is None:
                self._filled[i] = who
                face, ordinal = s.calls[i]
                out.append(f"seat {who} plays the called {card_name(face)}"
                           + (": the maker itself, no friend joins" if who == s.maker else
                              ": revealed as the maker's friend"))
        while self._tricks < len(s.tricks):
            leader, plays = s.tricks[self._tricks]
            self._tricks += 1
            last = self._tricks == len(s.tricks) and pc.done
            winner = pc.last_trick[0] if last else pc.leader
            out.append(f"trick {self._tricks} to seat {winner}, {sum(points(p) for p in plays)} points")
        return out

    def data(self, lines: list[str]) -> dict[str, Any]:
        s = self.s
        res = s.result
        assert res is not None                    # a replay ends with the deal's result
        winners = sorted(s.winners())
        return {
            "seed": s.seed, "rules": s.rules.name, "players": s.rules.players, "packs": s.rules.packs,
            "names": self.names, "maker": s.maker, "trump": None if s.trump is None else list(s.trump),
            "order": card_order(s.trump),
            "steps": self.steps, "views": self.views,
            "result": {"maker_side": sorted(res.maker_side), "opponents_points": res.opponents_points,
                       "total_points": s.rules.total_points, "kitty": format_cards(s.kitty),
                       "kitty_points": res.kitty_points, "kitty_multiplier": res.kitty_multiplier,
                       "kitty_to_opponents": res.kitty_to_opponents, "winner": res.winner,
                       "game_points": res.game_points, "winners": winners},
            "account": lines,
        }


def viewer_data(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Replay a deal or match record (checking it) into the page's data:
    ``{"kind": "deal" | "match", "deals": [...]}``, one entry per deal."""
    if not records or not isinstance(records[0], dict):
        raise InvalidActionError("line 1: the record is empty")
    kind = records[0].get("type")
    if kind not in ("deal", "match"):
        raise InvalidActionError(f"line 1: expected a deal or match header, got type {kind!r}")
    first = records[0]
    headers = [r for r in records if isinstance(r, dict) and r.get("type") == "deal"]
    deals: list[_Deal] = []

    def observe(s: State) -> None:
        if not deals or deals[-1].s is not s:
            names = headers[len(deals)].get("players") or first.get("players")
            deals.append(_Deal(s, names))
        else:
            deals[-1].after()

    if kind == "deal":
        replay_deal(records, observe)
    else:
        replay_match(records, observe)
    text = account(records, hands=True)
    if kind == "match":              # the account's deals, each after its "== deal k ==" line
        parts: list[list[str]] = []
        for line in text:
            if line.startswith("== deal "):
                parts.append([])
            elif parts and line:
                parts[-1].append(line)
    else:
        parts = [text]
    return {"kind": kind, "deals": [d.data(parts[i] if i < len(parts) else []) for i, d in enumerate(deals)]}


def _asset(name: str) -> str:
    return resources.files("arena").joinpath("web", name).read_text(encoding="utf-8")


def page(records: Sequence[dict[str, Any]], title: str) -> str:
    """The viewer's whole page for a record: HTML with its data, script and style inside."""
    data = viewer_data(records)
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")   # never ends the script early
    return (_asset("viewer.html")
            .replace("{{TITLE}}", html.escape(title))
            .replace("/*{{BASE}}*/", _asset("base.css"))
            .replace("/*{{STYLE}}*/", _asset("viewer.css"))
            .replace("/*{{CARDS}}*/", _asset("cards.js"))
            .replace("/*{{SCRIPT}}*/", _asset("viewer.js"))
            .replace("{{DATA}}", blob))


def write_page(records: Sequence[dict[str, Any]], title: str, out: str) -> None:
    """Write :func:`page` to ``out`` (a one-line :class:`PengyouError` if it cannot be written)."""
    text = page(records, title)
    try:
        with open(out, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise PengyouError(f"{out}: {exc.strerror or exc}") from None
