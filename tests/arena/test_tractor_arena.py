"""The four-player ``tractor`` preset through every command that runs bots:
``--preset tractor`` alone sets the table to four (as ``--preset stack`` sets
six), sandboxed bots play it, and the stored records replay."""

from __future__ import annotations

import json
from pathlib import Path

from arena.commands import main
from core.records import replay_deal

ROOT = Path(__file__).resolve().parents[2]
HIGH_CARD = f"high={ROOT / 'docs' / 'examples' / 'high_card_bot.py'}:HighCardBot"


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_arena_run_on_tractor_with_a_sandboxed_module(tmp_path, capsys):
    db = str(tmp_path / "t.db")
    code, out, err = _run(capsys, "arena", "run", "--bots", HIGH_CARD, "heuristic", "--preset", "tractor",
                          "--deals", "3", "--db", db, "--no-progress", "--samples", "20", "--trusted", "none")
    assert code == 0, err
    assert "0 fault(s)" in out, out
    code, out, err = _run(capsys, "arena", "standings", "--db", db, "--json", "--samples", "20")
    assert code == 0, err
    data = json.loads(out)
    assert {r["name"] for r in data["standings"]["rows"]} == {"high", "heuristic"}
    assert all(r["faults"] == {} or not any(r["faults"].values()) for r in data["standings"]["rows"])
    code, out, err = _run(capsys, "arena", "show", "--db", db, "--json")
    assert code == 0, err
    shown = json.loads(out)
    assert shown["spec"]["preset"] == "tractor" and shown["spec"]["players"] == 4
    for job in shown["jobs"]:
        assert len(job["seats"]) == 4 and job["faults"] == 0
        side = set(job["winners"])
        assert side in (set(), {0, 2}, {1, 3})          # partners across the table win or lose together
    for records in _records(tmp_path, capsys, [j["key"] for j in shown["jobs"]], db):
        state = replay_deal(records)
        assert state.rules.players == 4 and state.rules.partners == "fixed"
        assert state.result.maker_side == {state.maker, (state.maker + 2) % 4}


def _records(tmp_path: Path, capsys, keys: list[str], db: str) -> list[list[dict]]:
    """The stored deal record of each job (``arena record KEY``)."""
    assert keys
    out_recs = []
    for key in keys:
        f = tmp_path / f"{key}.jsonl"
        code, _, err = _run(capsys, "arena", "record", key, "--db", db, "--out", str(f))
        assert code == 0, err
        out_recs.append([json.loads(line) for line in f.read_text().splitlines()])
    return out_recs


def test_duel_and_sprt_take_four_players_from_the_preset(tmp_path, capsys):
    code, out, err = _run(capsys, "duel", "heuristic", "random", "--preset", "tractor", "--deals", "2",
                          "--workers", "1", "--no-progress")
    assert code == 0, err
    assert out.startswith("tractor, 4 players"), out
    db = str(tmp_path / "s.db")
    code, out, err = _run(capsys, "sprt", "heuristic", "random", "--preset", "tractor", "--elo0", "0",
                          "--elo1", "40", "--max-deals", "4", "--batch", "2", "--db", db, "--workers", "1")
    assert code == 0, err
    assert "tractor, 4 players" in out, out


def test_ladder_create_takes_four_players_from_the_preset(tmp_path, capsys):
    code, out, err = _run(capsys, "ladder", "create", str(tmp_path / "lad"), "--preset", "tractor")
    assert code == 0, err
    assert "tractor, 4 players" in out
