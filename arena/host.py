"""The host that runs a Python bot class behind the protocol.

In a sandboxed bot process, :func:`serve` loads the bot from its spec
(a built-in name or ``path/to/bot.py:Class?k=v``), answers ``hello``, and
turns the referee's messages back into the ``restart`` / ``inform`` /
``step`` calls of the bot API, with :class:`~core.state.PlayerView` values
rebuilt by :class:`core.observe.ViewBuilder`. A fresh bot is built for every
job (a deal message with ``"first": true``), as the in-process arena does.

What the bot prints goes to standard error (the referee keeps it in the
bot's log); the protocol has the real standard output to itself.

Run by hand (``python -m arena.host SPEC``) it speaks the protocol on the
terminal, for trying a bot out.
"""

from __future__ import annotations

import os
import random
import sys
import traceback
from typing import Any, BinaryIO, Optional, cast

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
        """One message; False when the host should end."""
        t = msg.get("type")
        if t == "deal":
            rules = Rules(**msg["rules"])
            if msg.get("first") or self.bot is None:
                self.build()
            self.builder = ViewBuilder(rules)
            self.builder.apply({"view": msg["view"]})
            self.bot.restart(rules, int(msg["seat"]), random.Random(int(msg["seed"])))
        elif t in ("view", "event", "update"):
            # The referee sends a deal first; a peer that does not gets the AttributeError on None, as ever.
            builder = cast(ViewBuilder, self.builder)
            if "view" in msg or "set" in msg or "add" in msg:
                builder.apply(msg)
            if t != "update" and msg.get("action") is not None and self.inform is not None:
                self.inform(builder.view(), int(msg["seat"]), Action.from_str(msg["action"]))
        elif t == "request":
            action = self.bot.step(cast(ViewBuilder, self.builder).view())
            if not isinstance(action, Action):
                try:
                    shown = repr(action)
                except Exception:
                    shown = f"a {type(action).__name__}"
                shown = shown if len(shown) <= 80 else shown[:77] + "..."
                self.write({"type": "error", "kind": "illegal",
                            "message": f"step returned {shown}, not an Action"})
                return True
            self.out.write(b'{"type":"action","id":%d,"action":%s}\n'
                           % (int(msg["id"]), orjson.dumps(str(action))))
            self.out.flush()
        elif t in ("quit", "error"):
            return False
        return True


#: How every event line the referee writes begins (``protocol.changes``).
_EVENT = b'{"type":"event",'

#: Which bot call a message leads to (named in the error when it raises).
_CALLS = {"deal": "restart()", "request": "step()", "view": "inform()", "event": "inform()"}


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
    # A bot that is not told of every action needs its view only when asked to act.
    want = [] if host.inform is not None else [COALESCE]
    host.write({"type": "ready", "name": spec[:80], "want": want})
    what = "the bot"
    decode = orjson.loads
    # Coalesced, an event only names an action, which a bot without inform()
    # never hears of: the referee's own event lines are passed over unread.
    skip = b"" if want == [] else _EVENT
    for line in infile:
        if skip and line.startswith(skip):
            continue
        try:
            msg = decode(line)
            t = msg.get("type")
            what = _CALLS.get(t, t)
            if not host.handle(msg):
                return 0
        except BaseException as exc:   # anything the bot raised (KeyboardInterrupt and exit too)
            try:
                host.write(_problem(what, exc))
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
    """``python -m arena.host SPEC``: serve one bot on this terminal."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m arena.host BOT_SPEC", file=sys.stderr)
        return 2
    return run_sandboxed(args[0])


if __name__ == "__main__":
    sys.exit(main())
