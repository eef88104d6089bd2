"""The replay viewer: a deal or match record as one self-contained HTML page.

:func:`viewer_data` replays a record (checking it, as ``pengyou replay``
does) and keeps, for every step of each deal, what the page needs: who
acted and what they did, every seat's hand (the all-hands view), the
buried cards, and each seat's own view as the protocol's narrator tells it
(a whole view, then the changes of each action), so that the one-seat view
shows exactly what that seat knew. :func:`page` puts that data, the
page's script and its style into one HTML file (through the page kit,
:mod:`arena.render.html`) that opens with no server
and no network.

A deal a bot's fault forfeited (its header's ``forfeit``, see
:mod:`core.records`) says so: the page names the faulting seat, the fault,
the decision and the score the deal was given (:func:`forfeit_lines`),
above the table and in the deal's account, and marks every step of the
referee's random finish, and its result, as not counting.

Nothing here knows a rule: which cards are trumps and how a hand is
ordered come from the kernel, the captions from the deal's account
(:mod:`core.account`), told as the replay goes.

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

from collections.abc import Mapping, Sequence
from typing import Any, Optional

from core import kernel
from core.account import DealAccount
from core.cards import NUM_FACES, Trump, card_name, format_cards, points
from core.errors import InvalidActionError, PengyouError
from core.observe import Narrator, sees
from core.records import replay_deal, replay_match
from core.phases import PHASE_NAMES
from core.levels import PlayerLevel
from core.rules import Rules
from core.state import State

from ..types import Fault, JobResult
from .html import KIT

__all__ = ["viewer_data", "page", "write_page", "card_order", "forfeit_lines", "forfeit_account",
           "forfeit_fault", "with_forfeits", "RANDOM_FINISH"]

#: What the referee's random finish of a forfeited deal is.
RANDOM_FINISH = "after the fault the referee finished the deal at random; this finish does not count"


def _signed(x: float) -> str:
    return f"{x:+g}"


def _seat_name(seat: int, names: Optional[Sequence[str]]) -> str:
    return f"seat {seat} ({names[seat]})" if names and 0 <= seat < len(names) else f"seat {seat}"


def forfeit_lines(forfeit: Mapping[str, Any], names: Optional[Sequence[str]] = None,
                  actions: Optional[int] = None) -> list[str]:
    """A forfeited deal in words: who faulted, how and at which decision,
    the score the deal was given, and (when the fault came before the
    deal's last action, or ``actions``, the number of actions, is not
    known) that the rest is the referee's random finish.

    ``forfeit`` is a deal header's ``forfeit`` (:mod:`core.records`);
    ``names``: each seat's player.

    >>> f = {"seat": 1, "kind": "crash", "message": "boom", "decision": 26,
    ...      "game_points": [3, -3, 3, -3, 3], "margins": [200.0, -200.0, 200.0, -200.0, 200.0]}
    >>> for line in forfeit_lines(f, ["a", "b", "a", "b", "a"]):
    ...     print(line)
    forfeit: seat 1 (b) faulted at decision 26 of the deal (crash: boom)
    the deal is scored as a forfeit: seats 1 3 -3 game points and a card margin of -200 each; seats 0 2 4 +3 and +200 each
    after the fault the referee finished the deal at random; this finish does not count
    """
    seat = int(forfeit["seat"])
    out = [f"forfeit: {_seat_name(seat, names)} faulted at decision {forfeit['decision']} of the deal "
           f"({forfeit['kind']}: {forfeit['message']})"]
    groups: dict[tuple[int, float], list[int]] = {}
    gps, margins = list(forfeit["game_points"]), list(forfeit["margins"])
    first = (int(gps[seat]), float(margins[seat])) if 0 <= seat < len(gps) else None
    if first is not None:
        groups[first] = []
    for s, (gp, m) in enumerate(zip(gps, margins)):
        groups.setdefault((int(gp), float(m)), []).append(s)
    parts = []
    for k, ((gp, m), seats) in enumerate(groups.items()):
        who = "seats " + " ".join(str(s) for s in seats) if len(seats) > 1 else f"seat {seats[0]}"
        each = " each" if len(seats) > 1 else ""
        parts.append(f"{who} {_signed(gp)} game points and a card margin of {_signed(m)}{each}" if k == 0 else
                     f"{who} {_signed(gp)} and {_signed(m)}{each}")
    out.append("the deal is scored as a forfeit: " + "; ".join(parts))
    if actions is None or int(forfeit["decision"]) < actions:
        out.append(RANDOM_FINISH)
    return out


def first_sides(rules: Rules) -> list[list[int]]:
    """For each seat as the maker, the seats known to be on its side when
    play begins (the pages' "points taken" count them from the start).

    >>> first_sides(Rules.preset("tractor"))
    [[0, 2], [1, 3], [0, 2], [1, 3]]
    """
    return [sorted(rules.first_side(m)) for m in range(rules.players)]


def card_order(trump: Optional[Trump]) -> dict[str, list[int]]:
    """Each card's place in a hand on the page (effective suit, then order
    level), and the trump cards, from the kernel; empty before trump is made."""
    if trump is None:
        return {}
    return {card_name(f): [kernel.effective_suit(f, trump), kernel.level(f, trump)] for f in range(NUM_FACES)}


def forfeit_fault(res: JobResult, seat: int) -> Optional[Fault]:
    """The fault that forfeited a deal of ``res`` for ``seat``: that seat's
    first (a seat that faulted plays no more, so it faults once)."""
    return next((f for f in res.faults if f.seat == seat), None)


def with_forfeits(records: list[dict[str, Any]], res: Optional[JobResult]) -> list[dict[str, Any]]:
    """``records`` with the ``forfeit`` of every deal ``res`` (the job's
    stored result) says a fault forfeited, where a record kept before
    records told it lacks one (:mod:`core.records`): the page then tells the
    forfeit as a newer record would."""
    if res is None or not any(d.forfeit >= 0 for d in res.deals):
        return records
    before = 0                                   # the job's decisions in the deals before this one
    k = -1
    for rec in records:
        if rec.get("type") == "deal":
            k += 1
            if k < len(res.deals) and res.deals[k].forfeit >= 0 and "forfeit" not in rec:
                d = res.deals[k]
                f = forfeit_fault(res, d.forfeit)
                if f is not None:
                    rec["forfeit"] = {"seat": d.forfeit, "kind": f.kind, "message": f.message,
                                      "decision": max(0, f.decision - before),
                                      "game_points": list(d.game_points), "margins": list(d.margins)}
        elif "type" not in rec:
            before += 1
    return records


def forfeit_account(records: Sequence[dict[str, Any]], lines: Sequence[str]) -> list[str]:
    """A record's account (``lines``, as :func:`core.account.account` tells
    it, what ``pengyou replay`` prints) with every forfeited deal told as
    one: under the deal's first line, :func:`forfeit_lines` (who faulted,
    how, at which decision, the score the deal was given, the random
    finish); after its result line, that this result is the referee's
    random finish and does not count. A record with no forfeit keeps its
    lines as they are."""
    headers: list[tuple[dict[str, Any], int]] = []      # each deal's header, and its number of actions
    for rec in records:
        if not isinstance(rec, dict):
            continue
        if rec.get("type") == "deal":
            headers.append((rec, 0))
        elif "type" not in rec and headers:
            headers[-1] = (headers[-1][0], headers[-1][1] + 1)
    if not any(h.get("forfeit") for h, _ in headers):
        return list(lines)
    first = records[0] if records and isinstance(records[0], dict) else {}
    starts = [i for i, line in enumerate(lines) if line.startswith("deal ") and " rules, " in line]
    results = [i for i, line in enumerate(lines) if line.startswith("result: ")]
    inserts: list[tuple[int, list[str]]] = []
    for k, (header, actions) in enumerate(headers):
        f = header.get("forfeit")
        if not f or k >= len(starts) or k >= len(results):
            continue
        told = forfeit_lines(f, header.get("players") or first.get("players"), actions)
        inserts.append((starts[k] + 1, told))
        inserts.append((results[k] + 1, ["that result is the referee's random finish and does not count; " + told[1]
                                         if len(told) > 2 else "the deal was forfeited; " + told[1]]))
    out = list(lines)
    for at, more in sorted(inserts, key=lambda x: x[0], reverse=True):
        out[at:at] = more
    return out


class _Deal:
    """Follows one deal while it is replayed and keeps its steps; each step's
    notes are the lines the deal's account (:class:`core.account.DealAccount`)
    told at that step."""

    def __init__(self, state: State, levels: Sequence[PlayerLevel], names: Optional[Sequence[str]],
                 forfeit: Optional[Mapping[str, Any]] = None) -> None:
        self.s = state
        self.forfeit = forfeit
        n = state.rules.players
        self.names = list(names) if names else [f"seat {i}" for i in range(n)]
        self.narrator = Narrator(state)
        self.views: list[list[Any]] = [[msg] for msg in self.narrator.opening()]
        self.account = DealAccount(state, levels, names)
        self.account.sync(state)
        self._told = len(self.account.out)
        self._done_tricks = 0                    # tricks complete at the last step
        self.steps: list[dict[str, Any]] = [self._step(None, None, [])]

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
        self.account.sync(s)
        notes, self._told = self.account.out[self._told:], len(self.account.out)
        self.steps.append(self._step(actor, str(action), notes))
        self.steps[-1]["seen"] = [sees(seat, actor, action) for seat in range(s.rules.players)]

    def _mark_forfeit(self) -> Optional[dict[str, Any]]:
        """Mark the steps of the random finish after the fault (and the
        result's step); the forfeit as the page shows it (None: no forfeit)."""
        f = self.forfeit
        if f is None:
            return None
        lines = forfeit_lines(f, self.names, len(self.s.history))
        first = int(f["decision"]) + 1             # the step of the first action after the fault
        who = _seat_name(int(f["seat"]), self.names)
        for k in range(first, len(self.steps)):
            step = self.steps[k]
            step["random"] = True
            step["notes"] = ([f"{who} faulted here ({f['kind']}); {RANDOM_FINISH}: from this action on"]
                             if k == first else ["the referee's random finish (does not count)"]) + step["notes"]
        last = self.steps[-1]
        last["notes"] = last["notes"] + [
            ("the result below is the random finish's and does not count; " if first < len(self.steps) else
             "the deal was forfeited; ") + lines[1]]
        return {"seat": int(f["seat"]), "kind": f["kind"], "message": f["message"], "decision": int(f["decision"]),
                "game_points": list(f["game_points"]), "margins": list(f["margins"]), "lines": lines}

    def data(self) -> dict[str, Any]:
        s = self.s
        res = s.result
        assert res is not None                    # a replay ends with the deal's result
        winners = sorted(s.winners())
        forfeit = self._mark_forfeit()
        account = self.account.finish()
        return {
            "seed": s.seed, "rules": s.rules.name, "players": s.rules.players, "packs": s.rules.packs,
            "first_sides": first_sides(s.rules),
            "names": self.names, "maker": s.maker, "trump": None if s.trump is None else list(s.trump),
            "order": card_order(s.trump),
            "steps": self.steps, "views": self.views,
            "result": {"maker_side": sorted(res.maker_side), "opponents_points": res.opponents_points,
                       "total_points": s.rules.total_points, "kitty": format_cards(s.kitty),
                       "kitty_points": res.kitty_points, "kitty_multiplier": res.kitty_multiplier,
                       "kitty_to_opponents": res.kitty_to_opponents, "winner": res.winner,
                       "game_points": res.game_points, "winners": winners},
            "account": account if forfeit is None else forfeit["lines"] + account,
            "forfeit": forfeit,
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
            # the replay has checked this deal's header before building its state
            header = headers[len(deals)]
            levels = [PlayerLevel(*lv) for lv in header["levels"]]
            deals.append(_Deal(s, levels, header.get("players") or first.get("players"), header.get("forfeit")))
        else:
            deals[-1].after()

    if kind == "deal":
        replay_deal(records, observe)
    else:
        replay_match(records, observe)
    return {"kind": kind, "deals": [d.data() for d in deals]}


def page(records: Sequence[dict[str, Any]], title: str) -> str:
    """The viewer's whole page for a record: HTML with its data, script and
    style inside (the data as JSON that cannot end its script element)."""
    return KIT.render("viewer.html.j2", title=title, data=viewer_data(records))


def write_page(records: Sequence[dict[str, Any]], title: str, out: str) -> None:
    """Write :func:`page` to ``out`` (a one-line :class:`PengyouError` if it cannot be written)."""
    text = page(records, title)
    try:
        with open(out, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise PengyouError(f"{out}: {exc.strerror or exc}") from None
