"""``pengyou play --human``: a person's seat at a table of bots, over the table's
HTTP API (a real server process on 127.0.0.1) and at the terminal prompt.

The person here is a script that reads the seat's state like the page does and
answers with a legal action worked out from the view alone (and with a wrong
one now and then, which must be refused with the engine's reason while the
deal waits). The page itself is clicked through in ``test_browser.py``.
"""

from __future__ import annotations

import json
import random
import re
import socket
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from arena.commands import main
from arena.human import server
from core.observe import view_from_json
from core.records import read_records, replay_deal
from core.rules import Rules
from core.state import State

ROOT = Path(__file__).resolve().parents[2]


def _start(*args: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "arena", "play", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    found = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
    if not found:
        proc.kill()
        raise AssertionError(f"no address: {line!r} {proc.stderr.read()}")
    return proc, found.group(1)


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.load(r)


def _post(url: str, body: bytes, kind: str = "application/json") -> tuple[int, dict]:
    req = urllib.request.Request(url + "api/action", data=body, method="POST", headers={"Content-Type": kind})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc)


def _wrong(view) -> str:
    """An action the rules refuse now (the page's misclick): too many cards to
    follow with, or cards the seat does not hold."""
    if view.phase == "play" and view.lead is not None and len(view.hand) > len(view.lead):
        return "play " + " ".join(str(view.hand).split()[:len(view.lead) + 1])
    return "play RJ RJ RJ RJ"


@pytest.mark.parametrize("players,seat,seed", [(5, 0, 3), (6, 4, 8)])
def test_a_whole_deal_through_the_api_with_refusals(tmp_path, players, seat, seed):
    record = tmp_path / "deal.jsonl"
    bots = (["random", "heuristic"] * players)[:players - 1]
    proc, url = _start("--human", str(seat), "--bots", *bots, "--players", str(players),
                       "--seed", str(seed), "--port", "0", "--pace", "0", "--no-open", "--record", str(record),
                       "--linger", "0")
    try:
        rng = random.Random(seed)
        version, decisions, refused = -1, 0, 0
        while True:
            snap = _get(f"{url}api/state?since={version}")
            version = snap["version"]
            if snap["done"]:
                break
            if not snap["waiting"]:
                continue
            view = view_from_json(snap["view"], Rules(**snap["rules"]))
            assert view.seat == seat and view.to_move
            if decisions % 3 == 0:                       # a wrong one first: refused, and the turn stays
                code, body = _post(url, json.dumps({"action": _wrong(view)}).encode())
                assert code == 400 and not body["ok"] and body["error"], body
                refused += 1
                again = _get(f"{url}api/state?since=-1")
                assert again["waiting"] and again["error"] == body["error"]
                version = again["version"]
            code, body = _post(url, json.dumps({"action": str(view.random_action(rng))}).encode())
            assert code == 200 and body == {"ok": True, "error": ""}
            decisions += 1
            after = _get(f"{url}api/state?since=-1")             # the turn is over at once, for every poller
            assert not after["waiting"] or after["version"] > version + 1
            if after["done"]:                                     # (then the server may go at once)
                snap = after
                break
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert decisions >= 10 and refused >= 3
    assert f"its record: {record}" in out and snap["record"] == str(record)
    state = replay_deal(read_records(str(record)))              # the saved record replays
    assert state.result.opponents_points == snap["result"]["opponents_points"]
    assert read_records(str(record))[0]["players"][seat] == f"you (seat {seat})"


def test_bad_requests_get_clear_answers(tmp_path):
    proc, url = _start("--human", "1", "--bots", "random", "--players", "5", "--seed", "2", "--port", "0",
                       "--pace", "0", "--no-open", "--record", str(tmp_path / "d.jsonl"), "--linger", "0")
    try:
        code, body = _post(url, b"not json")
        assert code == 400 and body["error"] == "the body is not JSON"
        code, body = _post(url, b'{"action": 7}')
        assert code == 400 and "send an action" in body["error"]
        code, body = _post(url, b"x" * 5000)
        assert code == 400 and "at most" in body["error"]
        with pytest.raises(urllib.error.HTTPError) as exc:
            _get(url + "nothing-here")
        assert exc.value.code == 404
        with pytest.raises(urllib.error.HTTPError) as exc:
            _get(url + "api/state?since=abc")
        assert exc.value.code == 400
        page = urllib.request.urlopen(url, timeout=30).read().decode()
        assert page.startswith("<!DOCTYPE html>") and "function cardEl" in page
        # another site's page: a form post (no JSON type), a foreign Origin, a name pointing here
        code, body = _post(url, b'{"action": "pass"}', kind="text/plain")
        assert code == 415 and "application/json" in body["error"]
        port = url.rsplit(":", 1)[1].strip("/")
        for headers in ({"Origin": "http://evil.example"}, {"Host": f"evil.example:{port}"}):
            req = urllib.request.Request(url + "api/state?since=-1", headers=headers)
            with pytest.raises(urllib.error.HTTPError) as exc:
                urllib.request.urlopen(req, timeout=30)
            assert exc.value.code == 403
    finally:
        proc.kill()
        proc.communicate()


def _one_line_error(capsys, *argv: str) -> str:
    code = main(list(argv))
    _, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("pengyou: error: "), err
    return lines[0]


def test_bad_options_get_one_line(tmp_path, capsys):
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    port = busy.getsockname()[1]
    try:
        assert "in use" in _one_line_error(capsys, "play", "--human", "0", "--port", str(port), "--no-open",
                                           "--record", str(tmp_path / "a.jsonl"), "--players", "5")
    finally:
        busy.close()
    existing = tmp_path / "kept.jsonl"
    existing.write_text("keep me")
    assert "exists" in _one_line_error(capsys, "play", "--human", "0", "--record", str(existing), "--no-open")
    assert existing.read_text() == "keep me"
    assert "not a seat" in _one_line_error(capsys, "play", "--human", "7", "--players", "5", "--port", "0",
                                           "--no-open", "--record", str(tmp_path / "b.jsonl"))
    assert "one bot for every other seat" in _one_line_error(
        capsys, "play", "--human", "0", "--players", "5", "--bots", "random", "random", "--port", "0", "--no-open",
        "--record", str(tmp_path / "c.jsonl"))
    assert "unknown bot" in _one_line_error(capsys, "play", "--human", "0", "--players", "5", "--bots", "nosuch",
                                            "--port", "0", "--no-open", "--record", str(tmp_path / "d.jsonl"))
    assert "one deal at a time" in _one_line_error(capsys, "play", "--human", "0", "--match", "--no-open")


def test_the_terminal_table_plays_a_whole_deal(tmp_path, monkeypatch, capsys):
    """--tui: the prompts read the person's actions; a wrong one is refused and asked again."""
    from arena.commands import deals
    from arena.human.table import Session

    rng = random.Random(5)
    made: list[Session] = []
    real = deals._terminal

    def terminal(session: Session) -> None:
        made.append(session)
        real(session)

    asked = {"n": 0}

    def fake_input(prompt: str = "") -> str:
        snap = made[0].snapshot()
        view = view_from_json(snap["view"], Rules(**snap["rules"]))
        asked["n"] += 1
        if asked["n"] % 4 == 1:
            return "play RJ RJ RJ RJ"                     # refused: asked again
        return str(view.random_action(rng))

    monkeypatch.setattr(deals, "_terminal", terminal)
    monkeypatch.setattr("builtins.input", fake_input)
    record = tmp_path / "tui.jsonl"
    assert main(["play", "--human", "2", "--tui", "--players", "5", "--seed", "6", "--bots", "random",
                 "--pace", "0", "--record", str(record)]) == 0
    out = capsys.readouterr().out
    assert "refused: " in out and f"its record: {record}" in out
    replay_deal(read_records(str(record)))


# ------------------------------------------------------------------ a page that goes away

def _play_until(url: str, tricks: int, seed: int) -> int:
    """Answer the person's turns through the API until ``tricks`` tricks are
    played and it is the person's turn again; the snapshot's version then."""
    rng = random.Random(seed)
    version = -1
    while True:
        snap = _get(f"{url}api/state?since={version}")
        version = snap["version"]
        assert not snap["done"]
        if not snap["waiting"]:
            continue
        view = view_from_json(snap["view"], Rules(**snap["rules"]))
        if len(view.tricks) >= tricks:
            return version
        code, body = _post(url, json.dumps({"action": str(view.random_action(rng))}).encode())
        assert code == 200, body


def _pending_poll(url: str, version: int, abrupt: bool) -> socket.socket:
    """A state request left waiting (nothing newer than ``version`` comes while
    the table waits for the person), as a page's poll is."""
    port = int(url.rsplit(":", 1)[1].strip("/"))
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    if abrupt:                                    # close with a reset, as a killed tab may
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.sendall(f"GET /api/state?since={version}&client=tab HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    return sock


@pytest.mark.parametrize("abrupt", [False, True], ids=["closed", "reset"])
def test_a_closed_page_ends_the_table_with_one_line(tmp_path, abrupt):
    """Three polls of a tab left waiting, then the tab closes mid-deal: no
    traceback, one line saying how far the deal went, and the process ends."""
    proc, url = _start("--human", "0", "--bots", "random", "--players", "5", "--seed", "3", "--port", "0",
                       "--pace", "0", "--no-open", "--record", str(tmp_path / "d.jsonl"), "--linger", "0")
    socks: list[socket.socket] = []
    try:
        version = _play_until(url, 2, 3)
        socks = [_pending_poll(url, version, abrupt) for _ in range(3)]
        time.sleep(0.5)                           # the requests are read and wait
        for s in socks:
            s.close()
        out, err = proc.communicate(timeout=60)
    finally:
        for s in socks:
            s.close()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert re.fullmatch(r"pengyou: error: the table's page was closed: the game ends after 2 tricks, "
                        r"with \d+ cards left in your hand", lines[0]), lines
    assert proc.returncode == 2 and not (tmp_path / "d.jsonl").exists()


def test_a_reloaded_page_keeps_the_table(tmp_path):
    """A poll dropped and a new one at once (a reload): the deal goes on to its end."""
    record = tmp_path / "d.jsonl"
    proc, url = _start("--human", "1", "--bots", "random", "--players", "5", "--seed", "4", "--port", "0",
                       "--pace", "0", "--no-open", "--record", str(record), "--linger", "0")
    try:
        version = _play_until(url, 1, 4)
        sock = _pending_poll(url, version, True)
        time.sleep(0.5)
        sock.close()
        time.sleep(0.2)
        again = _get(f"{url}api/state?since={version}")     # the reloaded page: its poll waits 10 s
        assert not again["done"] and proc.poll() is None and 10 > server.GONE_AFTER
        rng = random.Random(4)
        while True:
            snap = _get(f"{url}api/state?since={version}")
            version = snap["version"]
            if snap["done"]:
                break
            if snap["waiting"]:
                view = view_from_json(snap["view"], Rules(**snap["rules"]))
                _post(url, json.dumps({"action": str(view.random_action(rng))}).encode())
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0 and err == "", err
    assert f"its record: {record}" in out


# ------------------------------------------------------------------ the table's words

def test_plurals_and_how_far_the_deal_went():
    from arena.human.table import Session, how_far, plural

    assert (plural(1, "card"), plural(2, "card"), plural(1, "trick"), plural(0, "trick")) == \
        ("1 card", "2 cards", "1 trick", "0 tricks")
    rules = Rules.preset("pagat", players=5)
    session = Session(rules, 0, ["you"] + ["random"] * 4)
    assert session.ended() == "the table was closed: the game ends before the deal started"
    state = State(rules, seed=3)
    session.publish(state)
    session.close(server.PAGE_CLOSED)
    session.close("another reason")                       # the first reason said counts
    assert session.ended() == "the table's page was closed: the game ends during the draw"
    rng = random.Random(3)
    while not (state.play is not None and len(state.tricks) == 1 and not state.current_trick()[1]):
        state.apply(state.random_legal_action(rng))
    left = len(state.hand(0))
    assert how_far(state, 0) == f"after 1 trick, with {left} cards left in your hand"


@pytest.mark.parametrize("seed", [3, 7, 14])
def test_the_log_says_who_played_what_and_who_won_each_trick(seed):
    """The log's lines, as the person's seat sees them, against the deal's own account."""
    from arena.human.table import Session

    rules = Rules.preset("pagat", players=5)
    session = Session(rules, 2, ["a", "b", "you", "d", "e"])
    state, rng = State(rules, seed=seed), random.Random(seed)
    while not state.is_terminal():
        seat, action = state.current_player(), state.random_legal_action(rng)
        state.apply(action)
        session.event(seat, action, state)             # as HumanTable.played tells it
    events = session._events
    patterns = [r"passed", r"exposed [0-9JQKAHCDSRB ]+", r"buried ([0-9JQKACDHS]+|a card)",
                r"called the (1st|2nd|3rd|\dth|other) \S+ as a friend", r"(led|played) [0-9JQKACDHSRB ]+",
                r"tried to throw [0-9JQKACDHSRB ]+, which fails: [0-9JQKACDHSRB ]+ (is|are) led instead",
                r"won trick \d+, worth (1 point|\d+ points|no points)"]
    for e in events:
        assert any(re.fullmatch(p, e["action"]) for p in patterns), e
        assert "(hidden)" not in e["action"] and "card(s)" not in e["action"]
    hidden = [e for e in events if e["move"] is None and not e["action"].startswith("won")]
    assert all(e["seat"] != 2 and e["action"] in ("passed", "buried a card") for e in hidden)
    # every trick: the winner and points the deal's account gives
    from core.account import deal_account
    from core.records import deal_record

    told = [(e["seat"], e["action"]) for e in events if e["action"].startswith("won trick")]
    tricks = [line for line in deal_account(deal_record(state)) if line.startswith("trick ")]
    assert len(told) == len(tricks) == len(state.tricks)
    for (seat, line), trick in zip(told, tricks):
        winner, pts = re.search(r"-> seat (\d+) \+(\d+)$", trick).groups()
        worth = "no points" if pts == "0" else "1 point" if pts == "1" else f"{pts} points"
        assert seat == int(winner) and line.endswith(f", worth {worth}")
    plays = [e for e in events if e["move"] and e["move"].startswith("play")]
    assert sum(e["action"].startswith("led ") or e["action"].startswith("tried to throw") for e in plays) == \
        len(state.tricks)
