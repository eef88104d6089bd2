"""The replay viewer's data and command: a record turned into the page's steps.

The page rebuilds a seat's view by applying the narrator's messages in order;
here the same messages, applied the protocol's way, must give exactly
``State.view(seat)`` at every step of a replay, and the trick shown at each
step must be the replay's. The page itself is driven in a real browser in
``test_viewer_browser.py``.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from arena.commands import main
from arena.render.viewer import page, viewer_data
from core.cards import points
from core.observe import ViewBuilder
from core.records import deal_record, match_record, write_records
from core.match import play_random_match
from core.rules import Rules
from core.state import State


def _deal(preset: str, players: int, seed: int) -> tuple[State, list[dict]]:
    s = State(Rules.preset(preset, players=players), seed=seed)
    rng = random.Random(seed)
    snapshots = [s.clone()]
    while not s.is_terminal():
        s.apply(s.random_legal_action(rng))
        snapshots.append(s.clone())
    return s, snapshots


@pytest.mark.parametrize("preset,players,seed", [("pagat", 5, 1), ("pagat", 6, 2), ("pagat", 12, 3),
                                                 ("heli", 5, 4), ("stack", 6, 5), ("thirteen", 9, 6),
                                                 ("tractor", 4, 7)])
def test_every_step_holds_each_seats_exact_view_and_the_replayed_trick(preset, players, seed):
    s, snapshots = _deal(preset, players, seed)
    data = viewer_data(deal_record(s))
    assert data["kind"] == "deal" and len(data["deals"]) == 1
    deal = data["deals"][0]
    steps = deal["steps"]
    assert len(steps) == len(snapshots)
    for seat in range(players):
        builder = ViewBuilder(s.rules)
        for k, msg in enumerate(deal["views"][seat]):
            builder.apply(json.loads(json.dumps(msg)))
            assert builder.view() == snapshots[k].view(seat), (seat, k)
    done = 0
    for k, (step, snap) in enumerate(zip(steps, snapshots)):
        assert step["hands"] == [str(snap.hand(i)) for i in range(players)]
        if k:
            assert (step["actor"], step["action"]) == (s.history[k - 1][0], str(s.history[k - 1][1]))
        trick = step["trick"]
        if trick is not None and trick["done"]:
            leader, plays = s.tricks[done]
            done += 1
            assert trick["number"] == done and trick["leader"] == leader
            assert trick["plays"] == [str(p) for p in plays]
            assert trick["points"] == sum(points(p) for p in plays)
            winner = s.tricks[done][0] if done < len(s.tricks) else s.play.last_trick[0]
            assert trick["winner"] == winner
    assert done == len(s.tricks)
    assert deal["result"]["opponents_points"] == s.result.opponents_points
    assert all(c in deal["order"] for c in ("2C", "BJ", "RJ", "AS"))


def test_a_match_record_gives_every_deal_and_names_stay():
    rules = Rules.preset("pagat", players=5)
    rng = random.Random(3)
    records = match_record(play_random_match(rules, 3, rng, 3))
    records[0]["players"] = [f"bot{i}" for i in range(5)]
    data = viewer_data(records)
    assert data["kind"] == "match" and len(data["deals"]) == 3
    assert all(d["names"] == [f"bot{i}" for i in range(5)] for d in data["deals"])
    assert all(d["account"] and d["account"][0].startswith("deal seed ") for d in data["deals"])


def test_the_page_is_one_file_that_needs_no_network(tmp_path):
    s, _ = _deal("pagat", 6, 8)
    text = page(deal_record(s), "a </script> title")
    assert text.count("<script") == 2 and "</script> title" not in text
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)     # nothing fetched
    blob = re.search(r'<script id="data" type="application/json">(.*?)</script>', text, re.S).group(1)
    assert json.loads(blob)["deals"][0]["players"] == 6


def test_hostile_names_cannot_leave_the_pages_data(tmp_path):
    hostile = ["</script><script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "<!--", "a\u2028b\u2029c",
               "&amp; <b>"]
    rules = Rules.preset("pagat", players=5)
    records = match_record(play_random_match(rules, 1, random.Random(4), 1))
    records[0]["players"] = hostile
    text = page(records, '<script>alert(1)</script> "><img src=x onerror=alert(1)>')
    assert text.count("<script") == 2 and text.count("</script>") == 2
    assert "<img src=x" not in text and "<!--" not in text and "\u2028" not in text and "\u2029" not in text
    assert "<title>&lt;script&gt;alert(1)&lt;/script&gt; &#34;&gt;&lt;img src=x onerror=alert(1)&gt;</title>" in text
    blob = re.search(r'<script id="data" type="application/json">(.*?)</script>', text, re.S).group(1)
    assert not set(blob) & set("<>&\u2028\u2029")
    assert json.loads(blob)["deals"][0]["names"] == hostile


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_view_command_writes_the_page(tmp_path, capsys):
    s, _ = _deal("pagat", 5, 9)
    rec = tmp_path / "d.jsonl"
    write_records(deal_record(s), str(rec))
    code, out, err = _run(capsys, "view", str(rec))
    assert code == 0, err
    assert out.strip() == f"wrote {tmp_path / 'd.html'}"
    assert (tmp_path / "d.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("content,msg", [
    ("not json\n", "line 1"),
    ('{"type": "tournament"}\n', "expected a deal or match header"),
    ("", "empty"),
])
def test_view_refuses_bad_records_in_one_line(tmp_path, capsys, content, msg):
    rec = tmp_path / "bad.jsonl"
    rec.write_text(content, encoding="utf-8")
    code, _, err = _run(capsys, "view", str(rec))
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("pengyou: error: ") and msg in lines[0], err
    assert not (tmp_path / "bad.html").exists()


def test_view_refuses_a_changed_record(tmp_path, capsys):
    s, _ = _deal("pagat", 5, 10)
    records = deal_record(s)
    for r in records:
        if str(r.get("action", "")).startswith("play"):
            r["action"] = "play RJ RJ RJ"
            break
    rec = tmp_path / "changed.jsonl"
    write_records(records, str(rec))
    code, _, err = _run(capsys, "view", str(rec))
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_view_of_a_missing_file_and_arena_view_of_an_unknown_job(tmp_path, capsys):
    code, _, err = _run(capsys, "view", str(tmp_path / "nope.jsonl"))
    assert code == 2 and len(err.strip().splitlines()) == 1
    db = str(tmp_path / "v.db")
    code, _, err = _run(capsys, "arena", "run", "--bots", "random", "heuristic", "--players", "5",
                        "--deals", "1", "--db", db, "--no-progress", "--samples", "10")
    assert code == 0, err
    out = tmp_path / "job.html"
    code, printed, err = _run(capsys, "arena", "view", "g0-l0-r1", "--db", db, "-o", str(out))
    assert code == 0 and out.exists() and "wrote" in printed, err
    code, _, err = _run(capsys, "arena", "view", "g7-l0-r0", "--db", db)
    assert code == 2 and "g7-l0-r0" in err and len(err.strip().splitlines()) == 1
