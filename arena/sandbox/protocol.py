"""The bot protocol, version 1: JSON lines between the referee and a bot.

The referee writes one JSON object per line to the bot's standard input and
reads one per line from its standard output; ``docs/protocol.md`` is the
whole description. This module is its one owner on the referee's side
(building messages, reading answers) and on the host's (reading messages).

>>> line = request(3, 1.5, 20.0)
>>> line
'{"type":"request","id":3,"time":1.5,"overage":20.0}\\n'
>>> read_answer('{"type": "action", "id": 3, "action": "play AS AS"}', 3)
('action', 'play AS AS')
>>> read_answer('{"type": "action", "id": 2, "action": "pass"}', 3)
Traceback (most recent call last):
...
arena.sandbox.protocol.ProtocolError: answered request 2, but request 3 was asked
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Optional

import orjson

from core.errors import PengyouError
from core.observe import Changes
from core.records import rules_json
from core.rules import Rules

__all__ = ["VERSION", "ProtocolError", "hello", "deal", "changes", "request", "quit_", "end", "stop",
           "MAX_LEGAL", "COALESCE", "Pending",
           "read_answer", "read_ready", "MAX_LINE"]

#: The protocol's version, in every ``hello``.
VERSION = 1

#: Longest line a bot may write (bytes, newline included); longer is a ``protocol`` fault.
MAX_LINE = 1 << 16


class ProtocolError(PengyouError):
    """A bot's line that breaks the protocol (the message says how)."""


def _encode(obj: Any) -> str:
    """Compact JSON text, the one encoder of every message (orjson: a bot
    deal is hundreds of messages, and it writes them ten times faster
    than the standard library)."""
    return orjson.dumps(obj).decode()


def _dump(obj: Any) -> str:
    return orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE).decode()


def hello(limits: Mapping[str, Any]) -> str:
    """The first message to a new bot process."""
    return _dump({"type": "hello", "protocol": VERSION, "limits": dict(limits)})


@functools.lru_cache(maxsize=64)
def _rules_json(rules: Rules) -> dict[str, Any]:
    return rules_json(rules)          # the same for every seat and deal of a run: read once


def deal(rules: Rules, seat: int, seed: int, first: bool, overage: float, view: Mapping[str, Any]) -> str:
    """A new deal: the rules, the bot's seat, its random seed and its view."""
    return _dump({"type": "deal", "first": first, "seat": seat, "rules": _rules_json(rules),
                  "seed": seed, "overage": overage, "view": view})


#: The ``want`` word of a bot that takes a seat's view changes in one
#: ``update`` before each request, instead of in every ``event``.
COALESCE = "coalesce"


def changes(ch: Changes, actor: int, coalesced: Optional[Sequence[bool]] = None) -> list[str]:
    """One line per seat for one action: a whole ``view`` or an ``event``
    (seats told the same get the same string). A seat marked in
    ``coalesced`` gets an event with the action only: what changed in its
    view waits in a :class:`Pending` for the ``update`` before its next request."""
    n = len(ch.seen)
    action = _encode(ch.action)
    bare = (f'{{"type":"event","seat":{actor},"action":null}}\n',
            f'{{"type":"event","seat":{actor},"action":{action}}}\n')
    heads = (f'{{"type":"event","seat":{actor},"action":null,"set":{{',
             f'{{"type":"event","seat":{actor},"action":{action},"set":{{')
    plain: list[Optional[str]] = [None, None]
    shared: Optional[str] = None
    tail = ""
    out = []
    for s in range(n):
        seen = 1 if ch.seen[s] else 0
        if coalesced is not None and coalesced[s]:
            out.append(bare[seen])
            continue
        if ch.whole is not None:
            whole = ch.whole[s]             # None: a seat not told (it is in this process)
            out.append("" if whole is None else _dump({"type": "view", "seat": actor,
                                                        "action": ch.action if seen else None,
                                                        "view": whole["view"]}))
            continue
        if shared is None:
            shared = _encode(ch.set)[1:-1]
            tail = f'}},"add":{_encode(ch.add)}}}\n'
        own = ch.own[s]
        if own:
            mine = _encode(own)[1:-1]
            out.append(f"{heads[seen]}{shared},{mine}{tail}" if shared else f"{heads[seen]}{mine}{tail}")
            continue
        line = plain[seen]
        if line is None:
            line = plain[seen] = heads[seen] + shared + tail
        out.append(line)
    return out


class Pending:
    """What a coalescing seat has not been told of its view yet: changed
    fields (``set`` values overwrite, ``add`` items append, as the bot
    applies them), or that its whole view is due (the phase changed).

    >>> from core.observe import Changes
    >>> p = Pending()
    >>> p.note(Changes("play AS", [True, True], {"hand_sizes": [3, 2]}, {"tricks": [1]}, [{"hand": "KS"}, {}], None), 0)
    >>> p.note(Changes("play KD", [True, True], {"hand_sizes": [2, 2]}, {"tricks": [2]}, [{}, {}], None), 0)
    >>> p.take(dict)
    '{"type":"update","set":{"hand_sizes":[2,2],"hand":"KS"},"add":{"tricks":[1,2]}}\\n'
    >>> p.take(dict) is None
    True
    >>> p.note(Changes("call AC 1", [True, True], {}, {}, [], [None, None]), 0)
    >>> p.take(lambda: {"phase": "play"})
    '{"type":"update","view":{"phase":"play"}}\\n'
    """

    __slots__ = ("set", "add", "whole")

    def __init__(self) -> None:
        self.set: dict[str, Any] = {}
        self.add: dict[str, list] = {}
        self.whole = False

    def note(self, ch: Changes, seat: int) -> None:
        """Take one action's changes for ``seat``."""
        if self.whole:
            return
        if ch.whole is not None:
            self.whole = True
            self.set.clear()
            self.add.clear()
            return
        if ch.set:
            self.set.update(ch.set)
        own = ch.own[seat]
        if own:
            self.set.update(own)
        for key, items in ch.add.items():
            have = self.add.get(key)
            if have is None:
                self.add[key] = list(items)
            else:
                have.extend(items)

    def take(self, view: Callable[[], Mapping[str, Any]]) -> Optional[str]:
        """The ``update`` line of everything pending (then nothing is), or
        None; ``view()`` gives the seat's whole view when that is due."""
        if self.whole:
            self.whole = False
            return _dump({"type": "update", "view": view()})
        if not self.set and not self.add:
            return None
        line = _dump({"type": "update", "set": self.set, "add": self.add})
        self.set = {}
        self.add = {}
        return line


#: Most legal actions a request lists (for a bot that asked for ``legal``).
MAX_LEGAL = 100


def request(rid: int, seconds: float, overage: float, legal: Optional[Sequence[str]] = None,
            complete: bool = True) -> str:
    """Ask the bot to act now: ``seconds`` for this decision, then ``overage``
    banked; ``legal`` lists legal actions (``complete``: all of them)."""
    if legal is None:                   # the common line, written without building it as a dict
        return f'{{"type":"request","id":{int(rid)},"time":{float(round(seconds, 3))!r},' \
               f'"overage":{float(round(overage, 3))!r}}}\n'
    msg: dict[str, Any] = {"type": "request", "id": rid, "time": round(seconds, 3), "overage": round(overage, 3)}
    if legal is not None:
        msg["legal"] = list(legal)
        msg["complete"] = complete
    return _dump(msg)


def quit_() -> str:
    """The process is done: it should exit now."""
    return _dump({"type": "quit"})


def end(result: Mapping[str, Any]) -> str:
    """The deal is over."""
    return _dump({"type": "end", "result": dict(result)})


def stop(kind: str, message: str) -> str:
    """The bot is being stopped, and why (sent before it is killed)."""
    return _dump({"type": "error", "kind": kind, "message": message})


def _object(line: str | bytes) -> dict[str, Any]:
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError:
            raise ProtocolError("wrote a line that is not UTF-8") from None
    try:
        obj = orjson.loads(line)
    except (ValueError, RecursionError):
        shown = line.strip()
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise ProtocolError(f"wrote {shown!r}, which is not a JSON object") from None
    if not isinstance(obj, dict):
        raise ProtocolError("wrote a JSON value that is not an object")
    return obj


def _bot_error(obj: Mapping[str, Any]) -> tuple[str, str]:
    kind = obj.get("kind")
    message = obj.get("message")
    kind = kind if kind in ("crash", "memory", "illegal", "protocol") else "crash"
    text = message if isinstance(message, str) else "gave up"
    return kind, " ".join(text.split())[:200]


def _reply(line: str | bytes, want: str, to: str) -> dict[str, Any] | tuple[str, str]:
    """A bot's line as the object of type ``want``, or the ``(kind, message)``
    of an ``error`` it sent instead; :class:`ProtocolError` for anything else."""
    obj = _object(line)
    t = obj.get("type")
    if t == "error":
        return _bot_error(obj)
    if t != want:
        raise ProtocolError(f"answered {to} with type {str(t)[:40]!r}, not {want!r}")
    return obj


def read_ready(line: str | bytes) -> tuple[str, Any]:
    """The bot's answer to ``hello``: ``("ready", options)`` or
    ``(kind, message)`` for a bot that reports it cannot play."""
    obj = _reply(line, "ready", "hello")
    if isinstance(obj, tuple):
        return obj
    want = obj.get("want", [])
    if not isinstance(want, list) or not all(isinstance(w, str) for w in want):
        raise ProtocolError("'want' in ready must be a list of words")
    return "ready", {"want": tuple(want), "name": str(obj.get("name", ""))[:80]}


def read_answer(line: str | bytes, rid: int) -> tuple[str, str]:
    """The bot's answer to request ``rid``: ``("action", text)``, or
    ``(kind, message)`` when the bot reports a ``crash``, ``memory``,
    ``illegal`` or ``protocol`` error; :class:`ProtocolError` for anything else."""
    obj = _reply(line, "action", "a request")
    if isinstance(obj, tuple):
        return obj
    if obj.get("id") != rid:
        raise ProtocolError(f"answered request {str(obj.get('id'))[:20]}, but request {rid} was asked")
    text = obj.get("action")
    if not isinstance(text, str):
        raise ProtocolError("an action must be text such as \"play AS AS\"")
    return "action", text
