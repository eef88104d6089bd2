"""The Python host of sandboxed bot classes, spoken to in this process.

A fault of the bot's own calls is a ``crash`` that names the call; a message
the host cannot take (not JSON, fields missing, out of order) is a
``protocol`` error about the message, never blamed on the bot's code; every
ending is one error line and a non-zero status, never a traceback.
"""

from __future__ import annotations

import io
import json
import os

import pytest

from arena.sandbox import protocol
from arena.sandbox.host import serve
from core.observe import Narrator
from core.rules import Rules
from core.state import State

FAULTY = os.path.join(os.path.dirname(__file__), "faulty_bots.py")
HELLO = protocol.hello({"move": 1.0})
REQUEST = protocol.request(1, 1.0, 1.0)


def _deal_line(first: bool = True) -> str:
    rules = Rules.preset("pagat", players=5)
    state = State(rules, seed=3)
    seat = state.current_player()
    view = Narrator(state).opening()[seat]["view"]
    return protocol.deal(rules, seat, 11, first, 30.0, view)


def _serve(spec: str, *lines: str) -> tuple[int, list[dict]]:
    out = io.BytesIO()
    status = serve(spec, io.BytesIO("".join(lines).encode()), out)
    return status, [json.loads(x) for x in out.getvalue().splitlines()]


def test_a_deal_and_a_request_get_an_action():
    status, msgs = _serve("random", HELLO, _deal_line(), REQUEST, protocol.quit_())
    assert status == 0
    assert msgs[0]["type"] == "ready" and msgs[0]["want"] == [protocol.COALESCE]
    assert msgs[1]["type"] == "action" and msgs[1]["id"] == 1 and msgs[1]["action"]


@pytest.mark.parametrize("lines, words", [
    ([REQUEST], "'request' before any deal"),
    (['{"type":"update","set":{"hand":"AS"}}\n'], "'update' before any deal"),
    (["not json\n"], "bad message from the referee"),
    (["[1, 2]\n"], "must be a JSON object"),
    (['{"type":"deal","seat":0}\n'], "no field 'rules'"),
    ([_deal_line().replace('"seat":', '"seat":"x",' + '"z":', 1)], "bad message from the referee"),
    ([_deal_line(), '{"type":"update","set":{"nonsense":1}}\n'], "unknown view field 'nonsense'"),
    ([_deal_line(), '{"type":"update","set":{"hand":"AS 1X"}}\n', REQUEST], "bad card '1X'"),
])
def test_a_message_the_host_cannot_take_is_a_protocol_error(lines, words):
    status, msgs = _serve("random", HELLO, *lines)
    assert status == 3
    assert msgs[-1]["type"] == "error" and msgs[-1]["kind"] == "protocol", msgs[-1]
    assert words in msgs[-1]["message"] and "raised" not in msgs[-1]["message"]


def test_the_first_message_must_be_hello():
    status, msgs = _serve("random", _deal_line())
    assert status == 3 and msgs == [{"type": "error", "kind": "protocol",
                                     "message": "bad message from the referee: the first message must be hello"}]


@pytest.mark.parametrize("bot, lines, call, words", [
    ("CrashBot?at=1", [REQUEST], "step()", "RuntimeError: boom at step 1 second line"),
    ("CrashOnRestartBot", [], "restart()", "ValueError: cannot start deal 1"),
])
def test_what_the_bot_raises_is_a_crash_naming_the_call(bot, lines, call, words):
    status, msgs = _serve(f"{FAULTY}:{bot}", HELLO, _deal_line(), *lines)
    assert status == 3
    last = msgs[-1]
    assert last["type"] == "error" and last["kind"] == "crash"
    assert last["message"].startswith(f"{call} raised {words}") and "faulty_bots.py:" in last["message"]


def test_a_bot_that_returns_no_action_is_told_so_and_the_host_goes_on():
    status, msgs = _serve(f"{FAULTY}:NotAnActionBot?at=1", HELLO, _deal_line(), REQUEST, protocol.quit_())
    assert status == 0
    assert msgs[1]["kind"] == "illegal" and "not an Action" in msgs[1]["message"]
