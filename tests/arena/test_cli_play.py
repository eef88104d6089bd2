"""``pengyou play`` and ``pengyou replay``: a seeded deal or match between
random players, told trick by trick, written as a record and replayed.

Most runs call :func:`arena.commands.main` in-process (fast); a few run
``python -m arena`` in a subprocess to see the real exit status and that no
traceback escapes.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.commands import main
from core.cards import format_cards, parse_cards
from core.levels import start_levels
from core.records import deal_record
from core.rules import Rules
from core.state import State

ROOT = Path(__file__).resolve().parents[2]


def cli(capsys, *args: str) -> tuple[int, list[str], str]:
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out.splitlines(), err


def ok(capsys, *args: str) -> list[str]:
    rc, out, err = cli(capsys, *args)
    assert rc == 0 and err == "", (rc, err)
    return out


def fails(capsys, *args: str) -> str:
    """A command that must fail with one ``pengyou: error:`` line and exit 2."""
    rc, out, err = cli(capsys, *args)
    assert rc == 2, (rc, out, err)
    assert out == []
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("pengyou: error: "), err
    assert "Traceback" not in err
    return lines[0]


def run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONUTF8="1")
    return subprocess.run([sys.executable, "-m", "arena", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


TRICK = re.compile(r"^trick +(\d+)  (.*)  -> seat (\d+) \+(\d+)$")


def tricks(lines: list[str]) -> list[tuple[int, list[tuple[int, str]], int, int]]:
    out = []
    for line in lines:
        m = TRICK.match(line)
        if m:
            plays = [(int(p.split(":")[0]), p.split(":")[1]) for p in m.group(2).split("  ")]
            out.append((int(m.group(1)), plays, int(m.group(3)), int(m.group(4))))
    return out


# --------------------------------------------------------------------------
# play


def test_play_default_deal(capsys):
    lines = ok(capsys, "play")
    assert lines[0] == ("deal seed 1: pagat rules, 6 players, 2 packs with 2 red and 2 black jokers, "
                        "17 cards each, kitty of 6")
    assert lines[1] == "levels: " + "  ".join(f"{i}:active 2" for i in range(6))
    assert lines[2] == "seat 0 draws first"
    assert any(re.match(r"^seat \d exposes 2[CDHS]$", x) for x in lines)
    trump = [x for x in lines if x.startswith("trump: ")]
    assert len(trump) == 1 and re.match(r"^trump: rank 2, suit \w+ \(2[CDHS]\); seat \d made trump$", trump[0])
    assert any(re.match(r"^seat \d takes the kitty and buries 6 cards \(hidden\)$", x) for x in lines)
    assert any(re.match(r"^seat \d calls the (1st|2nd) \S+, the (1st|2nd) \S+$", x) for x in lines)
    ts = tricks(lines)
    assert [t[0] for t in ts] == list(range(1, len(ts) + 1))
    # every card of the hands is played once: 6 x 17 cards
    assert sum(len(parse_cards(p)) for _, plays, _, _ in ts for _, p in plays) == 6 * 17
    for k, (_, plays, winner, pts) in enumerate(ts):
        seats = [s for s, _ in plays]
        assert seats == [(seats[0] + j) % 6 for j in range(6)]
        assert pts == sum(parse_cards(p).points() for _, p in plays)
        if k + 1 < len(ts):
            assert ts[k + 1][1][0][0] == winner          # the winner leads next
    assert any(x.startswith("maker side: ") for x in lines)
    assert any(re.match(r"^opponents' points: \d+ of 200$", x) for x in lines)
    assert any(x.startswith("result: ") for x in lines)
    assert lines[-1].startswith("levels: ") and "->" in lines[-1]


def test_play_is_deterministic_and_seeded(capsys):
    a = ok(capsys, "play", "--seed", "5")
    assert a == ok(capsys, "play", "--seed", "5")
    assert a != ok(capsys, "play", "--seed", "6")


def test_play_matches_the_engine(capsys, tmp_path):
    """The account is the deal the engine plays with random.Random(seed)."""
    rules = Rules.preset("pagat", players=7)
    s = State(rules, seed=4)
    rng = random.Random(4)
    while not s.is_terminal():
        s.apply(s.random_legal_action(rng))
    lines = ok(capsys, "play", "--players", "7", "--seed", "4", "--record", str(tmp_path / "d.jsonl"))
    recs = [json.loads(x) for x in (tmp_path / "d.jsonl").read_text(encoding="utf-8").splitlines()]
    assert recs == deal_record(s, start_levels(rules))
    ts = tricks(lines)
    assert len(ts) == len(s.tricks)
    for (_, plays, _, _), (leader, cards) in zip(ts, s.tricks):
        assert plays[0][0] == leader
        assert [p for _, p in plays] == [format_cards(c) for c in cards]
    res = s.result
    assert f"opponents' points: {res.opponents_points} of 200" in lines
    side = " ".join(str(x) for x in sorted(res.maker_side))
    assert any(x.startswith(f"maker side: {side}") for x in lines)


def test_kitty_hidden_unless_the_opponents_take_it(capsys):
    shown = hidden = 0
    for seed in range(1, 40):
        s = State(Rules.preset("pagat", players=6), seed=seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            s.apply(s.random_legal_action(rng))
        to_opp = s.result.kitty_to_opponents
        if (to_opp and shown) or (not to_opp and hidden):
            continue
        text = "\n".join(ok(capsys, "play", "--seed", str(seed)))
        kitty = format_cards(s.kitty)
        if to_opp:
            shown += 1
            assert f"the opponents win the last trick and the kitty: {kitty} (" in text
        else:
            hidden += 1
            assert kitty not in text
            assert "the maker side wins the last trick and keeps the kitty (hidden)" in text
        assert "bury" not in text
        if shown and hidden:
            break
    assert shown and hidden


def test_friends_and_failed_throws_are_told(capsys):
    friend = throw = False
    for seed in range(1, 30):
        lines = ok(capsys, "play", "--seed", str(seed))
        for x in lines:
            if re.match(r"^  seat \d plays the (1st|2nd) \S+: revealed as the maker's friend$", x):
                friend = True
            m = re.match(r"^  seat (\d) tried to throw (.+): it fails, (.+) is led instead \(penalty (\d+)\)$", x)
            if m:
                throw = True
                assert len(parse_cards(m.group(3))) < len(parse_cards(m.group(2)))
        if friend and throw:
            break
    assert friend and throw


@pytest.mark.parametrize("args,first", [
    (["--preset", "heli", "--players", "5"], "deal seed 1: heli rules, 5 players"),
    (["--preset", "thirteen", "--players", "9"], "deal seed 1: thirteen rules, 9 players, 3 packs"),
    (["--preset", "bottom-eight"], "deal seed 1: bottom-eight rules, 5 players"),
    (["--preset", "stack"], "deal seed 1: stack rules, 6 players"),
    (["--players", "12", "--set", "throw_penalty=5"], "deal seed 1: pagat rules, 12 players, 4 packs"),
])
def test_play_presets_and_replay(capsys, tmp_path, args, first):
    path = tmp_path / "deal.jsonl"
    lines = ok(capsys, "play", *args, "--record", str(path))
    assert lines[0].startswith(first)
    assert ok(capsys, "replay", str(path)) == lines


def test_play_match_and_replay(capsys, tmp_path):
    path = tmp_path / "match.jsonl"
    lines = ok(capsys, "play", "--match", "--seed", "3", "--set", "target_rank=4", "--record", str(path))
    assert lines[0] == "match seed 3: pagat rules, 6 players, no deal limit"
    deals = [x for x in lines if re.match(r"^== deal \d+ ==$", x)]
    assert deals == [f"== deal {k} ==" for k in range(1, len(deals) + 1)]
    assert lines[-3] == f"match over after {len(deals)} deals"
    assert lines[-2].startswith("levels: ") and re.search(r"active 4", lines[-2])
    assert lines[-1].startswith("game points won: ")
    starters = [x for x in lines if re.match(r"^seat \d+ draws first$", x)]
    assert starters == [f"seat {k % 6} draws first" for k in range(len(deals))]
    assert ok(capsys, "replay", str(path)) == lines
    recs = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert recs[0]["type"] == "match" and recs[-1]["type"] == "match_result"


def test_play_heli_match_max_deals(capsys, tmp_path):
    path = tmp_path / "heli.jsonl"
    lines = ok(capsys, "play", "--match", "--preset", "heli", "--players", "5", "--max-deals", "3",
               "--seed", "2", "--record", str(path))
    assert lines[0] == "match seed 2: heli rules, 5 players, up to 3 deals"
    assert "== deal 3 ==" in lines and "== deal 4 ==" not in lines
    assert sum(1 for x in lines if x.endswith("is the trump maker (predetermined)")) == 2
    assert lines[-3] == "match over after 3 deals"
    assert ok(capsys, "replay", str(path)) == lines


def test_subprocess_play_and_replay(tmp_path):
    path = tmp_path / "d.jsonl"
    p = run("play", "--seed", "9", "--preset", "stack", "--record", str(path))
    assert p.returncode == 0 and p.stderr == "", p.stderr
    q = run("replay", str(path))
    assert q.returncode == 0 and q.stderr == "" and q.stdout == p.stdout


# --------------------------------------------------------------------------
# bad input


@pytest.fixture
def record(tmp_path, capsys) -> Path:
    path = tmp_path / "deal.jsonl"
    ok(capsys, "play", "--seed", "2", "--record", str(path))
    return path


def test_replay_missing_file(capsys, tmp_path):
    msg = fails(capsys, "replay", str(tmp_path / "nope.jsonl"))
    assert msg == f"pengyou: error: cannot read {tmp_path / 'nope.jsonl'}: no such file"
    msg = fails(capsys, "replay", str(tmp_path))
    assert "cannot read" in msg


def test_replay_corrupt_json(capsys, record):
    lines = record.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3][:-5]
    record.write_text("\n".join(lines) + "\n", encoding="utf-8")
    msg = fails(capsys, "replay", str(record))
    assert msg.startswith(f"pengyou: error: {record}: line 4: bad JSON")


def test_replay_truncated(capsys, record):
    lines = record.read_text(encoding="utf-8").splitlines()
    record.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    msg = fails(capsys, "replay", str(record))
    assert f"line {len(lines) - 1}:" in msg and "truncated" in msg


def test_replay_mismatched_record(capsys, record):
    lines = record.read_text(encoding="utf-8").splitlines()
    res = json.loads(lines[-1])
    res["game_points"] += 1
    lines[-1] = json.dumps(res)
    record.write_text("\n".join(lines) + "\n", encoding="utf-8")
    msg = fails(capsys, "replay", str(record))
    assert f"line {len(lines)}: result field 'game_points'" in msg


def test_replay_unknown_rules_field_and_wrong_type(capsys, record, tmp_path):
    lines = record.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    head["rules"]["house_rule"] = True
    record.write_text("\n".join([json.dumps(head)] + lines[1:]) + "\n", encoding="utf-8")
    assert "line 1: rules: unknown rules field 'house_rule'" in fails(capsys, "replay", str(record))
    other = tmp_path / "other.jsonl"
    other.write_text('{"type": "hand"}\n', encoding="utf-8")
    assert "line 1: expected a deal or match header" in fails(capsys, "replay", str(other))
    other.write_text("", encoding="utf-8")
    assert "empty" in fails(capsys, "replay", str(other))


@pytest.mark.parametrize("args,fragment", [
    (["play", "--max-deals", "3"], "--max-deals: only with --match"),
    (["play", "--match", "--max-deals", "0"], "--max-deals: 0"),
    (["play", "--preset", "nope"], "unknown preset"),
    (["play", "--players", "13"], "players"),
    (["play", "--set", "bogus=1"], "bogus: no such rule setting"),
    (["play", "--set", "throw_penalty"], "is not key=value"),
    (["play", "--preset", "stack", "--players", "7"], "is for 6 players"),
])
def test_play_bad_options(capsys, args, fragment):
    assert fragment in fails(capsys, *args)


def test_play_record_to_a_bad_place(capsys, tmp_path):
    msg = fails(capsys, "play", "--record", str(tmp_path / "no" / "such" / "dir.jsonl"))
    assert "cannot write" in msg


def test_subprocess_bad_record(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "deal", "version": 1}\n', encoding="utf-8")
    p = run("replay", str(bad))
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.splitlines() == [f"pengyou: error: {bad}: line 1: deal header: missing field 'rules'"]
    p = run("replay", str(tmp_path / "missing.jsonl"))
    assert p.returncode == 2 and "Traceback" not in p.stderr and len(p.stderr.splitlines()) == 1


@pytest.mark.parametrize("args", [[], ["--preset", "heli", "--players", "5"], ["--players", "12"],
                                  ["--preset", "stack"]])
def test_replay_hands_shows_every_card_once(capsys, tmp_path, args):
    from collections import Counter

    from core.cards import Cards
    from core.rules import Rules

    path = tmp_path / "deal.jsonl"
    plain = ok(capsys, "play", *args, "--seed", "5", "--record", str(path))
    lines = ok(capsys, "replay", "--hands", str(path))
    start = lines.index(next(x for x in lines if x.startswith("hands after the draw")))
    players = int(re.search(r"(\d+) players", lines[0]).group(1))
    hands = lines[start + 1:start + 1 + players]
    assert [h.split(":")[0] for h in hands] == [f"  seat {i}" for i in range(players)]
    cards = Counter()
    for h in hands:
        cards.update(Cards.from_str(h.split(": ", 1)[1]))
    rec = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    rules = Rules(**rec["rules"])
    assert sum(cards.values()) == rules.players * rules.hand_size + rules.kitty_size
    assert max(cards.values()) <= rules.packs          # no card more often than the packs hold
    buried = [x for x in lines if " takes the kitty and buries " in x]
    if rules.kitty_size:
        kitty = Cards.from_str(buried[0].split(" buries ", 1)[1])
        assert len(kitty) == rules.kitty_size and "hidden" not in buried[0]
        maker = int(re.search(r"seat (\d+) takes", buried[0]).group(1))
        assert not Counter(kitty) - Counter(Cards.from_str(hands[maker].split(": ", 1)[1]))
    else:
        assert not buried
    # without --hands nothing of that is told, and the rest of the account is the same
    assert not any(x.startswith("hands after the draw") for x in plain)
    assert [x for x in lines if x not in hands and not x.startswith("hands after")
            and " buries " not in x and "keeps the kitty" not in x] == \
        [x for x in plain if " buries " not in x and "keeps the kitty" not in x]
