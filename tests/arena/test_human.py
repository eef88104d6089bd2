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
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from arena.commands import main
from core.observe import view_from_json
from core.records import read_records, replay_deal
from core.rules import Rules

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
