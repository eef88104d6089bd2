"""The host that runs a Python bot class behind the protocol.

In a sandboxed bot process, :func:`serve` loads the bot from its spec
(a built-in name or ``path/to/bot.py:Class?k=v``), answers ``hello``, and
turns the referee's messages back into the ``restart`` / ``inform`` /
``step`` calls of the bot API, with :class:`~core.state.PlayerView` values
rebuilt by :class:`core.observe.ViewBuilder`. A fresh bot is built for every
job (a deal message with ``"first": true``), as the in-process arena does.

What the bot prints goes to standard error (the referee keeps it in the
bot's log); the protocol has the real standard output to itself.

Run by hand (``python -m arena.sandbox.host SPEC``) it speaks the protocol on the
terminal, for trying a bot out.
"""

from __future__ import annotations

import os
import random
import sys
import traceback
from typing import Any, BinaryIO, Optional

import orjson

from bots.base import BotError, make_bot
from core.actions import Action
from core.observe import ViewBuilder
from core.rules import Rules

from .protocol import COALESCE

__all__ = ["serve", "main"]


def _where(exc: BaseException) -> str:
    tb = traceback.extract_tb(exc.__traceback__)
    if not tb:
        return ""
    last = tb[-1]
    return f" ({os.path.basename(last.filename)}:{last.lineno})"


def _problem(what: str, exc: BaseException) -> dict[str, Any]:
    kind = "memory" if isinstance(exc, MemoryError) else "crash"
    text = " ".join(str(exc).split())
    text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return {"type": "error", "kind": kind, "message": f"{what} raised {text}{_where(exc)}"[:300]}


class _Host:
    def __init__(self, spec: str, out: BinaryIO) -> None:
        self.spec = spec
        self.out = out
        self.bot: Any = None
        self.builder: Optional[ViewBuilder] = None
        self.inform: Any = None

    def write(self, obj: dict[str, Any]) -> None:
        self.out.write(orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE))
        self.out.flush()

    def build(self) -> None:
        self.bot = make_bot(self.spec)
        self.inform = getattr(self.bot, "inform", None)

    def handle(self, msg: dict[str, Any]) -> bool:
        """One message; False when the host should end. What the bot's own
        calls raise comes out as :class:`_BotRaised`; anything else raised
        here is the message's fault (the peer broke the protocol)."""
        t = msg.get("type")
        if t == "deal":
            rules = Rules(**msg["rules"])
            seat, seed = int(msg["seat"]), int(msg["seed"])
            builder = ViewBuilder(rules)
            builder.apply({"view": msg["view"]})
            self.builder = builder
            if msg.get("first") or self.bot is None:
                _bot_call("loading the bot", self.build)
            _bot_call("restart()", self.bot.restart, rules, seat, random.Random(seed))
        elif t in ("view", "event", "update"):
            builder = self._builder(t)
            if "view" in msg or "set" in msg or "add" in msg:
                builder.apply(msg)
            if t != "update" and msg.get("action") is not None and self.inform is not None:
                view, seat, action = builder.view(), int(msg["seat"]), Action.from_str(msg["action"])
                _bot_call("inform()", self.inform, view, seat, action)
        elif t == "request":
            rid, view = int(msg["id"]), self._builder(t).view()
            action = _bot_call("step()", self.bot.step, view)
            if not isinstance(action, Action):
                try:
                    shown = repr(action)
                except Exception:
                    shown = f"a {type(action).__name__}"
                shown = shown if len(shown) <= 80 else shown[:77] + "..."
                self.write({"type": "error", "kind": "illegal",
                            "message": f"step returned {shown}, not an Action"})
                return True
            try:
                text = str(action)
            except BaseException as exc:    # an Action subclass of the bot's
                raise _BotRaised("step()", exc) from None
            self.out.write(b'{"type":"action","id":%d,"action":%s}\n' % (rid, orjson.dumps(text)))
            self.out.flush()
        elif t in ("quit", "error", "stop"):
            return False
        return True

    def _builder(self, t: Any) -> ViewBuilder:
        if self.builder is None:
            raise ValueError(f"{t!r} before any deal")
        return self.builder


class _BotRaised(Exception):
    """What one of the bot's own calls raised (``what`` names the call)."""

    def __init__(self, what: str, exc: BaseException) -> None:
        super().__init__(what)
        self.what, self.exc = what, exc


def _bot_call(what: str, fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except BaseException as exc:       # anything the bot raised (KeyboardInterrupt and exit too)
        raise _BotRaised(what, exc) from None


def _bad_message(exc: BaseException) -> dict[str, Any]:
    text = " ".join(str(exc).split())[:200] or type(exc).__name__
    if isinstance(exc, KeyError):
        text = f"no field {text}"
    return {"type": "error", "kind": "protocol", "message": f"bad message from the referee: {text}"}


#: How every event line the referee writes begins (``protocol.changes``).
_EVENT = b'{"type":"event",'

def serve(spec: str, infile: BinaryIO, outfile: BinaryIO) -> int:
    """Speak the protocol for the bot ``spec`` on these streams; the exit status."""
    host = _Host(spec, outfile)
    try:
        host.build()
    except BotError as exc:
        host.write({"type": "error", "kind": "crash", "message": " ".join(str(exc).split())[:300]})
        return 2
    except BaseException as exc:       # the user's module or constructor failed
        host.write(_problem("loading the bot", exc))
        return 2
    first = infile.readline()
    if not first:
        return 0
    try:
        hello = orjson.loads(first)
        if not isinstance(hello, dict) or hello.get("type") != "hello":
            raise ValueError("the first message must be hello")
    except ValueError as exc:
        host.write(_bad_message(exc))
        return 3
    # A bot that is not told of every action needs its view only when asked to act.
    want = [] if host.inform is not None else [COALESCE]
    host.write({"type": "ready", "name": spec[:80], "want": want})
    decode = orjson.loads
    # Coalesced, an event only names an action, which a bot without inform()
    # never hears of: the referee's own event lines are passed over unread.
    skip = b"" if want == [] else _EVENT
    for line in infile:
        if skip and line.startswith(skip):
            continue
        try:
            msg = decode(line)
            if not isinstance(msg, dict):
                raise ValueError("a message must be a JSON object")
            if not host.handle(msg):
                return 0
        except _BotRaised as raised:
            try:
                host.write(_problem(raised.what, raised.exc))
            except BaseException:
                pass
            return 3
        except Exception as exc:        # the message, not the bot: the peer broke the protocol
            try:
                host.write(_bad_message(exc))
            except BaseException:
                pass
            return 3
    return 0


def run_sandboxed(spec: str) -> int:
    """In a sandboxed process: keep the protocol's stdout to the host and
    send whatever the bot prints to stderr, then serve on fds 0 and 1."""
    proto = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return serve(spec, os.fdopen(0, "rb", closefd=False), proto)


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m arena.sandbox.host SPEC``: serve one bot on this terminal."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m arena.sandbox.host BOT_SPEC", file=sys.stderr)
        return 2
    return run_sandboxed(args[0])


if __name__ == "__main__":
    sys.exit(main())
