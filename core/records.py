"""Records of deals and matches as JSON lines: write, read, replay (and
:mod:`core.account` tells them in words).

A **deal record** is a list of JSON objects, one per line:

1. a header ``{"type": "deal", "version": 1, "rules": {every Rules field},
   "seed": .., "starter": .., "levels": [[level, active], ...], "maker":
   null or a seat, "decks": [["AS", "2C", ...], ...]}`` with the levels the
   deal started with (before any redeal) and the deck order of each
   (re)deal, so a replay needs no shuffler (the decks must be the ones
   the seed deals: a changed header is found; decks built by hand take
   ``"seed": null``); an optional ``"players"`` lists each seat's name,
   and an optional ``"forfeit"`` tells that a bot's fault forfeited the
   deal (see *Forfeits* below);
2. one line per decision, ``{"seat": 3, "action": "play AS AS"}``, in the
   notation of :class:`~core.actions.Action`;
3. a result line ``{"type": "result", "maker": .., "maker_side": [sorted
   seats], "opponents_points": .., "kitty_points": .., "kitty_multiplier":
   .., "kitty_to_opponents": .., "winner": .., "game_points": ..,
   "next_side": .., "returns": [per seat]}``.

A **match record** is a header ``{"type": "match", "version": 1, "rules":
{...}, "seed": .., "max_deals": ..}``, then each finished deal's lines as
above, then ``{"type": "match_result", "deals": .., "levels": [...],
"game_points_total": [...], "over": ..}``.

**Forfeits.** When a bot faults (crashes, runs out of time, chooses an
illegal action, ...) the arena scores the deal as a forfeit and the referee
plays the rest of the deal with random legal actions, so that the record
still ends with a replayable result. That deal's header then carries
``"forfeit": {"seat": .., "kind": .., "message": .., "decision": ..,
"game_points": [per seat], "margins": [per seat]}``: the seat whose bot
faulted, the fault's kind and message, the index (from 0, over the deal's
action lines) of the decision at which it faulted, and the score the deal
was given (every seat's game points and card margin, the numbers rated). The
actions from ``decision`` on are the referee's random finish and the
result line is that finish's: neither counts. A record without the field
is a deal played to its end (as every record before the field was).

Replaying rebuilds every state with every action checked, and checks that
the seats, the result and the match's levels agree with the record. Any
problem (bad JSON, a missing or unknown field, an illegal action, a result
that differs, a wrong deck) raises :class:`~core.errors.InvalidActionError`
with a one-line message naming the line (counted from 1).

>>> import io, random
>>> from core.rules import Rules
>>> s = State(Rules.preset("pagat", players=5), seed=4)
>>> rng = random.Random(4)
>>> while not s.is_terminal():
...     s.apply(s.random_legal_action(rng))
>>> f = io.StringIO()
>>> write_deal(s, f)
>>> records = read_records(io.StringIO(f.getvalue()))
>>> records[0]["type"], records[1]["seat"], records[-1]["type"]
('deal', 2, 'result')
>>> t = replay_deal(records)
>>> [str(t.view(i)) for i in range(5)] == [str(s.view(i)) for i in range(5)]
True
>>> records[-1]["opponents_points"] += 5
>>> replay_deal(records)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
core.errors.InvalidActionError: line 98: result field 'opponents_points' is 105 in the record, but the replay gives 100
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Sequence
from typing import IO, Any, Optional, Union

from .actions import Action
from .cards import card_name, parse_card
from .errors import InvalidActionError, PengyouError
from .match import Match
from .levels import PlayerLevel, level_rank
from .rules import Rules
from .state import State, seed_decks

__all__ = [
    "VERSION", "rules_json", "deal_record", "match_record", "write_records", "write_deal",
    "write_match", "read_records", "read_deal", "read_match", "replay_deal", "replay_match", "record_error",
]

VERSION = 1

PathOrFile = Union[str, "os.PathLike[str]", IO[str]]
Observer = Callable[[State], None]

_DEAL_KEYS = ("type", "version", "rules", "seed", "starter", "levels", "maker", "decks")
_MATCH_KEYS = ("type", "version", "rules", "seed", "max_deals")
_ACTION_KEYS = ("seat", "action")
_MATCH_RESULT_KEYS = ("type", "deals", "levels", "game_points_total", "over")


def record_error(line: int, message: str) -> InvalidActionError:
    """The error for a bad record at ``line`` (counted from 1), the line named first.

    >>> str(record_error(3, "empty line"))
    'line 3: empty line'
    """
    return InvalidActionError(f"line {line}: {message}")


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _canon(value: object) -> str:
    """A type-strict comparison key for JSON values (so 1 differs from true)."""
    return json.dumps(value, sort_keys=True)


# ---------------------------------------------------------------- writing
def rules_json(rules: Rules) -> dict[str, Any]:
    """Every :class:`Rules` field as a JSON-ready dict (the name included).

    >>> rules_json(Rules.preset("stack"))["kitty_multiplier"]
    'unit_double'
    """
    return {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}


def _levels_json(levels: Sequence[PlayerLevel]) -> list[list[Any]]:
    return [[lv.level, lv.active] for lv in levels]


def _result_json(state: State) -> dict[str, Any]:
    r = state.result
    assert r is not None                    # asked only of a finished deal
    return {
        "type": "result", "maker": r.maker, "maker_side": sorted(r.maker_side),
        "opponents_points": r.opponents_points, "kitty_points": r.kitty_points,
        "kitty_multiplier": r.kitty_multiplier, "kitty_to_opponents": r.kitty_to_opponents,
        "winner": r.winner, "game_points": r.game_points, "next_side": r.next_side,
        "returns": state.returns(),
    }


def deal_record(state: State, levels: Optional[Sequence[PlayerLevel]] = None) -> list[dict[str, Any]]:
    """The record of a deal: header, one line per action, and the result
    line once the deal is over (an unfinished deal has none).

    ``levels``: the levels the deal started with (default: the state's
    ``initial_levels``, kept from before any redeal).
    """
    if not isinstance(state, State):
        raise PengyouError("deal_record: expected a State")
    if levels is None:
        levels = state.initial_levels
    levels = [PlayerLevel(*lv) for lv in levels]
    if len(levels) != state.rules.players:
        raise PengyouError(f"levels: expected {state.rules.players} player levels, got {len(levels)}")
    out: list[dict[str, Any]] = [{
        "type": "deal", "version": VERSION, "rules": rules_json(state.rules),
        "seed": state.seed if state.dealt_by_seed else None,
        "starter": state.starter, "levels": _levels_json(levels), "maker": state.fixed_maker,
        "decks": [[card_name(f) for f in d] for d in state.decks],
    }]
    out += [{"seat": seat, "action": str(action)} for seat, action in state.history]
    if state.result is not None:
        out.append(_result_json(state))
    return out


def match_record(match: Match) -> list[dict[str, Any]]:
    """The record of a match: header, every finished deal, the match result."""
    if not isinstance(match, Match):
        raise PengyouError("match_record: expected a Match")
    out: list[dict[str, Any]] = [{
        "type": "match", "version": VERSION, "rules": rules_json(match.rules), "seed": match.seed,
        "max_deals": match.max_deals,
    }]
    for state, levels in zip(match.deals, match.level_history):
        out += deal_record(state, levels)
    out.append({"type": "match_result", "deals": len(match.deals), "levels": _levels_json(match.levels),
                "game_points_total": list(match.game_points_total), "over": match.is_over()})
    return out


def write_records(records: Sequence[dict[str, Any]], path_or_file: PathOrFile) -> None:
    """Write records as JSON lines to a path or an open text file."""
    try:
        text = "".join(json.dumps(rec) + "\n" for rec in records)
    except (TypeError, ValueError) as exc:
        raise PengyouError(f"record: cannot write as JSON ({exc})") from None
    if hasattr(path_or_file, "write"):
        path_or_file.write(text)
        return
    try:
        with open(path_or_file, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise PengyouError(f"cannot write {os.fspath(path_or_file)}: {exc.strerror or exc}") from None


def write_deal(state: State, path_or_file: PathOrFile,
               levels: Optional[Sequence[PlayerLevel]] = None) -> None:
    """Write a deal's record (see :func:`deal_record`)."""
    write_records(deal_record(state, levels), path_or_file)


def write_match(match: Match, path_or_file: PathOrFile) -> None:
    """Write a match's record (see :func:`match_record`)."""
    write_records(match_record(match), path_or_file)


# ---------------------------------------------------------------- reading
def read_records(path_or_file: PathOrFile) -> list[dict[str, Any]]:
    """Read JSON lines: one object per line (trailing blank lines allowed)."""
    if hasattr(path_or_file, "read"):
        text = path_or_file.read()
    else:
        name = os.fspath(path_or_file)
        try:
            with open(name, encoding="utf-8") as f:
                text = f.read()
        except FileNotFoundError:
            raise InvalidActionError(f"cannot read {name}: no such file") from None
        except UnicodeDecodeError:
            raise InvalidActionError(f"cannot read {name}: not a UTF-8 text file") from None
        except OSError as exc:
            raise InvalidActionError(f"cannot read {name}: {exc.strerror or exc}") from None
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise InvalidActionError("line 1: the record is empty")
    out = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            raise record_error(i, "empty line")
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise record_error(i, f"bad JSON: {exc.msg} (column {exc.colno})") from None
        except RecursionError:
            raise record_error(i, "bad JSON (nested too deeply)") from None
        if not isinstance(rec, dict):
            raise record_error(i, "expected a JSON object")
        out.append(rec)
    return out


def _read_kind(path_or_file: PathOrFile, kind: str) -> list[dict[str, Any]]:
    recs = read_records(path_or_file)
    got = recs[0].get("type")
    if got != kind:
        raise record_error(1, f"expected a {kind} record, got type {got!r}")
    return recs


def read_deal(path_or_file: PathOrFile) -> list[dict[str, Any]]:
    """Read a deal record (its first line must be a deal header)."""
    return _read_kind(path_or_file, "deal")


def read_match(path_or_file: PathOrFile) -> list[dict[str, Any]]:
    """Read a match record (its first line must be a match header)."""
    return _read_kind(path_or_file, "match")


# ---------------------------------------------------------------- checking
#: Header fields a record may carry or not: ``players``, who held each seat (names).
_OPTIONAL = ("players",)
#: A deal header's: ``players``, and ``forfeit`` (the fault that forfeited the deal).
_DEAL_OPTIONAL = ("players", "forfeit")
#: The fields of a deal header's ``forfeit``.
_FORFEIT_KEYS = ("seat", "kind", "message", "decision", "game_points", "margins")


def _check_keys(rec: dict[str, Any], keys: Sequence[str], line: int, what: str,
                optional: Sequence[str] = ()) -> None:
    for k in keys:
        if k not in rec:
            raise record_error(line, f"{what}: missing field {k!r}")
    for k in rec:
        if k not in keys and k not in optional:
            raise record_error(line, f"{what}: unknown field {k!r}")
    names = rec.get("players")
    if "players" in optional and names is not None and not (
            isinstance(names, list) and all(isinstance(x, str) for x in names)):
        raise record_error(line, f"{what}: players: expected a list of names, one per seat")


def _forfeit_from(obj: object, players: int, line: int) -> Optional[dict[str, Any]]:
    """A deal header's checked ``forfeit`` (None when it has none)."""
    if obj is None:
        return None
    if not isinstance(obj, dict):
        raise record_error(line, "forfeit: expected an object with the fault and the deal's score")
    _check_keys(obj, _FORFEIT_KEYS, line, "forfeit")
    seat, decision = obj["seat"], obj["decision"]
    if not (_whole(seat) and 0 <= seat < players):
        raise record_error(line, f"forfeit: seat: {_short(seat)} is not a seat from 0 to {players - 1}")
    if not (_whole(decision) and decision >= 0):
        raise record_error(line, f"forfeit: decision: {_short(decision)} is not a decision index (0 or more)")
    for k in ("kind", "message"):
        if not isinstance(obj[k], str) or (k == "kind" and not obj[k]):
            raise record_error(line, f"forfeit: {k}: expected text, got {_short(obj[k])}")
    for k in ("game_points", "margins"):
        v = obj[k]
        if not (isinstance(v, list) and len(v) == players and all(
                (_whole(x) if k == "game_points" else isinstance(x, (int, float)) and not isinstance(x, bool))
                for x in v)):
            raise record_error(line, f"forfeit: {k}: expected a list of {players} numbers, one per seat")
    return dict(obj)


def _check_version(rec: dict[str, Any], line: int) -> None:
    v = rec["version"]
    if not _whole(v) or v != VERSION:
        raise record_error(line, f"record version {v!r} is not supported (this engine reads version {VERSION})")


#: Rule settings added since records began: a record without one was played
#: before the setting existed, under the value given here (the old behaviour).
LATER_SETTINGS: dict[str, Any] = {"partners": "called", "bands_above_top": "capped", "call_points": True,
                                  "call_highest": True, "self_overcall": "none", "maker_by": "standing",
                                  "must_defend": "none", "no_declaration": "redeal",
                                  "kitty_suit": "level_or_highest", "band_step": 20, "dead_zone": 1,
                                  "match_end": "reach", "jack_reset": False, "short_side_bonus": False,
                                  "call_trumps": False, "throw_penalty_per": "card",
                                  "call_by_side": "counts", "joker_bids": "none", "follow_format": "shape",
                                  "set_reading": "counting", "ladder": "subset", "tractor_owed": "always",
                                  "shorter_tractor": "owed", "trump_throws": True, "tractor_min_width": 2,
                                  "tractor_min_length": 2,
                                  "throw_check": "others_hands", "throw_counts": "free",
                                  "kitty_theft": False,
                                  "exposure_defence": True, "throw_winner": "largest",
                                  "throw_stopper": "hidden", "bombs": "none", "rainbow": False,
                                  "failed_throw": "withdraw"}


def _rules_from(obj: object, line: int) -> Rules:
    if not isinstance(obj, dict):
        raise record_error(line, "rules: expected an object of rule settings")
    names = [f.name for f in dataclasses.fields(Rules)]
    for k in obj:
        if k not in names:
            raise record_error(line, f"rules: unknown rules field {k!r}")
    obj = {**{k: v for k, v in LATER_SETTINGS.items() if k not in obj}, **obj}
    for k in names:
        if k not in obj:
            raise record_error(line, f"rules: missing rules field {k!r}")
    if not isinstance(obj["name"], str):
        raise record_error(line, f"rules: name: expected text, got {obj['name']!r}")
    try:
        return Rules(**obj)
    except PengyouError as exc:
        raise record_error(line, f"rules: {exc}") from None


def _short(value: Any) -> str:
    """A value for a message, cut to a readable length."""
    try:
        text = str(value)
    except ValueError:                  # an integer too long to print
        return "(a very long number)"
    return text if len(text) <= 24 else text[:21] + "..."


class _Header:
    """A checked deal header."""

    def __init__(self, rec: dict[str, Any], line: int) -> None:
        if rec.get("type") != "deal":
            raise record_error(line, f"expected a deal header, got type {rec.get('type')!r}")
        _check_keys(rec, _DEAL_KEYS, line, "deal header", _DEAL_OPTIONAL)
        _check_version(rec, line)
        self.line = line
        self.rules_obj = rec["rules"]
        self.rules = rules = _rules_from(rec["rules"], line)
        n = rules.players
        self.forfeit = _forfeit_from(rec.get("forfeit"), n, line)
        seed = rec["seed"]
        if not (seed is None or _whole(seed) or isinstance(seed, str)):
            raise record_error(line, f"seed: expected a whole number (or null for decks built by hand), got {seed!r}")
        self.seed = seed
        starter = rec["starter"]
        if not (_whole(starter) and 0 <= starter < n):
            raise record_error(line, f"starter: {starter!r} is not a seat from 0 to {n - 1}")
        self.starter = starter
        maker = rec["maker"]
        if maker is not None and not (_whole(maker) and 0 <= maker < n):
            raise record_error(line, f"maker: {maker!r} is not null or a seat from 0 to {n - 1}")
        self.maker = maker
        levels = rec["levels"]
        if not isinstance(levels, list) or len(levels) != n:
            raise record_error(line, f"levels: expected a list of {n} [level, active] pairs")
        self.levels = []
        for seat, lv in enumerate(levels):
            if not (isinstance(lv, list) and len(lv) == 2 and _whole(lv[0]) and isinstance(lv[1], bool)):
                raise record_error(line, f"levels: seat {seat}: expected [level, true|false], got {lv!r}")
            try:
                level_rank(lv[0], rules)
            except PengyouError as exc:
                raise record_error(line, f"levels: seat {seat}: {exc}") from None
            self.levels.append(PlayerLevel(lv[0], lv[1]))
        decks = rec["decks"]
        if not isinstance(decks, list) or not decks:
            raise record_error(line, "decks: expected a list of decks (lists of cards)")
        want = sorted(rules.deck())
        self.decks: list[list[int]] = []
        for i, d in enumerate(decks):
            if not isinstance(d, list) or not all(isinstance(c, str) for c in d):
                raise record_error(line, f"decks[{i}]: expected a list of cards like \"AS\"")
            try:
                faces = [parse_card(c) for c in d]
            except PengyouError as exc:
                raise record_error(line, f"decks[{i}]: {exc}") from None
            if sorted(faces) != want:
                raise record_error(line, f"decks[{i}]: does not hold exactly the {len(want)} cards of the deal")
            self.decks.append(faces)

    def check_decks(self) -> None:
        """The decks must be the ones the seed deals (unless it is null)."""
        if self.seed is None:
            return
        for i, (got, dealt) in enumerate(zip(self.decks, seed_decks(self.rules, self.seed, len(self.decks)))):
            if got != dealt:
                raise PengyouError(f"decks[{i}]: not the deck that seed {_short(self.seed)} deals (the "
                                   "header was changed; decks built by hand take \"seed\": null)")

    def new_state(self) -> State:
        self.check_decks()
        return State(self.rules, seed=self.seed, levels=self.levels, starter=self.starter,
                     maker=self.maker, decks=self.decks)


def _replay_one(recs: Sequence[Any], pos: int, make_state: Callable[[_Header], State],
                observer: Optional[Observer]) -> tuple[State, _Header, int]:
    """Replay the deal whose header is ``recs[pos]``; returns the finished
    state, its header and the position after its result line."""
    line = pos + 1
    rec = recs[pos]
    if not isinstance(rec, dict):
        raise record_error(line, "expected a JSON object")
    hdr = _Header(rec, line)
    try:
        state = make_state(hdr)
    except PengyouError as exc:
        raise record_error(line, str(exc)) from None
    if observer is not None:
        observer(state)
    i = pos + 1
    while True:
        if i >= len(recs):
            raise record_error(len(recs), f"the record ends before the result of the deal on line {line} (truncated?)")
        rec = recs[i]
        ln = i + 1
        if not isinstance(rec, dict):
            raise record_error(ln, "expected a JSON object")
        if "type" in rec:
            if rec["type"] != "result":
                raise record_error(ln, f"expected an action or the result of the deal on line {line}, "
                               f"got type {rec['type']!r}")
            _check_result(state, hdr, rec, ln)
            return state, hdr, i + 1
        _check_keys(rec, _ACTION_KEYS, ln, "action")
        seat, text = rec["seat"], rec["action"]
        if not _whole(seat):
            raise record_error(ln, f"seat: expected a seat number, got {seat!r}")
        if not isinstance(text, str):
            raise record_error(ln, f"action: expected text, got {text!r}")
        if state.is_terminal():
            raise record_error(ln, "an action after the end of the deal")
        to_act = state.current_player()
        if seat != to_act:
            raise record_error(ln, f"the record has seat {seat} acting, but seat {to_act} is to act")
        try:
            state.apply(Action.from_str(text), check=True)
        except PengyouError as exc:
            raise record_error(ln, str(exc)) from None
        if observer is not None:
            observer(state)
        i += 1


def _check_result(state: State, hdr: _Header, rec: dict[str, Any], line: int) -> None:
    if not state.is_terminal():
        raise record_error(line, f"the record gives a result, but the deal is not over "
                         f"(seat {state.current_player()} to act)")
    want = _result_json(state)
    _check_keys(rec, tuple(want), line, "result")
    for k, v in want.items():
        if _canon(rec[k]) != _canon(v):
            raise record_error(line, f"result field {k!r} is {_canon(rec[k])} in the record, "
                             f"but the replay gives {_canon(v)}")
    if len(state.decks) != len(hdr.decks):
        raise record_error(line, f"the header has {len(hdr.decks)} decks, but the deal used {len(state.decks)}")
    if hdr.forfeit is not None and hdr.forfeit["decision"] > len(state.history):
        raise record_error(hdr.line, f"forfeit: decision {hdr.forfeit['decision']} is past the deal's "
                                     f"{len(state.history)} actions")


# ---------------------------------------------------------------- replaying
def replay_deal(records: Sequence[dict[str, Any]], observer: Optional[Observer] = None) -> State:
    """Rebuild a deal from its record, checking every action, seat and the
    result; ``observer(state)`` is called once the deal is set up and after
    every action."""
    if not isinstance(records, Sequence) or isinstance(records, (str, bytes)) or not records:
        raise InvalidActionError("line 1: the record is empty")
    state, _, end = _replay_one(records, 0, _Header.new_state, observer)
    if end != len(records):
        raise record_error(end + 1, "a line after the result of the deal")
    return state


def replay_match(records: Sequence[dict[str, Any]], observer: Optional[Observer] = None) -> Match:
    """Rebuild a match from its record: every deal (as :func:`replay_deal`,
    and its seed, starter, levels and maker must be the match's), then the
    final levels and game points."""
    if not isinstance(records, Sequence) or isinstance(records, (str, bytes)) or not records:
        raise InvalidActionError("line 1: the record is empty")
    head = records[0]
    if not isinstance(head, dict):
        raise record_error(1, "expected a JSON object")
    if head.get("type") != "match":
        raise record_error(1, f"expected a match header, got type {head.get('type')!r}")
    _check_keys(head, _MATCH_KEYS, 1, "match header", _OPTIONAL)
    _check_version(head, 1)
    rules = _rules_from(head["rules"], 1)
    try:
        match = Match(rules, head["seed"], head["max_deals"])
    except PengyouError as exc:
        raise record_error(1, str(exc)) from None
    rules_obj = _canon(head["rules"])

    def make_state(hdr: _Header) -> State:
        k = len(match.deals) + 1
        if match.is_over():
            raise PengyouError(f"deal {k}: the match was already over")
        if _canon(hdr.rules_obj) != rules_obj:
            raise PengyouError(f"deal {k}: its rules differ from the match's")
        for name, got, want in (("seed", hdr.seed, match.next_seed()), ("starter", hdr.starter, match.starter),
                                ("maker", hdr.maker, match.maker_next),
                                ("levels", _levels_json(hdr.levels), _levels_json(match.levels))):
            if _canon(got) != _canon(want):
                raise PengyouError(f"deal {k}: {name} is {_canon(got)} in the record, "
                                   f"but the match gives {_canon(want)}")
        hdr.check_decks()
        return match.new_deal(decks=hdr.decks)

    pos = 1
    while True:
        if pos >= len(records):
            raise record_error(len(records), "the record ends before the match result (truncated?)")
        rec = records[pos]
        if not isinstance(rec, dict):
            raise record_error(pos + 1, "expected a JSON object")
        kind = rec.get("type")
        if kind == "deal":
            state, _, pos = _replay_one(records, pos, make_state, observer)
            match.finish_deal(state)
        elif kind == "match_result":
            break
        else:
            raise record_error(pos + 1, f"expected a deal header or the match result, got type {kind!r}")
    line = pos + 1
    _check_keys(rec, _MATCH_RESULT_KEYS, line, "match result")
    want = {"type": "match_result", "deals": len(match.deals), "levels": _levels_json(match.levels),
            "game_points_total": match.game_points_total, "over": match.is_over()}
    for k, v in want.items():
        if _canon(rec[k]) != _canon(v):
            raise record_error(line, f"match result field {k!r} is {_canon(rec[k])} in the record, "
                             f"but the replay gives {_canon(v)}")
    if pos + 1 != len(records):
        raise record_error(pos + 2, "a line after the match result")
    return match
