"""``arena run --lineups gauntlet``, ``arena run --verbose``, ``arena export``
and ``replay``/``view`` of an exported file of many records."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_arena_cli import _one_line_error, _run

from arena.store import Store
from arena.tournament.schedule import lineups, period, seat_counts

BOTS = ["random", "heuristic", "r2=random", "h2=heuristic"]



def _arena_run(capsys, db, *extra, bots=BOTS, players="5"):
    return _run(capsys, "arena", "run", "--bots", *bots, "--players", players, "--deals", "1",
                "--workers", "1", "--trusted", "builtins", "--samples", "20", "--db", str(db), *extra)


def _show_json(capsys, db):
    code, out, err = _run(capsys, "arena", "show", "--db", str(db), "--json", "--jobs")
    assert code == 0, err
    return json.loads(out)


# ------------------------------------------------------------------ gauntlet line-ups
def test_gauntlet_lineups_alternate_the_gauntlet_entrant_with_each_other_one():
    assert lineups(4, 6, "gauntlet", 1) == [(1, 0, 1, 0, 1, 0), (1, 2, 1, 2, 1, 2), (1, 3, 1, 3, 1, 3)]
    assert lineups(3, 5, "gauntlet") == [(0, 1, 0, 1, 0), (0, 2, 0, 2, 0)]


@pytest.mark.parametrize("players, flags, focus", [
    ("5", ["--lineups", "gauntlet"], 0),
    ("6", ["--gauntlet", "h2"], 3),
    ("6", ["--lineups", "gauntlet:heuristic"], 1),
])
def test_a_gauntlet_run_stores_its_line_ups(tmp_path, capsys, players, flags, focus):
    db = tmp_path / "g.db"
    code, out, err = _arena_run(capsys, db, "--no-progress", *flags, players=players)
    assert code == 0, err
    n = int(players)
    with Store(str(db), read_only=True) as store:
        run_id = store.latest_run()
        jobs = store.jobs(run_id)
        spec = store.spec_json(run_id)
        assert store.done_keys(run_id) == {j.key for j in jobs}
    assert spec["lineups"].startswith("gauntlet")
    met = set()
    by_lineup: dict[int, list] = {}
    for job in jobs:
        present = set(job.seats)
        assert focus in present and len(present) == 2, job
        met.add(frozenset(present))
        by_lineup.setdefault(job.lineup, []).append(job)
    # the gauntlet entrant meets each other entrant; the others never meet each other
    assert met == {frozenset({focus, o}) for o in range(len(BOTS)) if o != focus}
    assert len(by_lineup) == len(BOTS) - 1
    for group in by_lineup.values():
        base = group[0].seats
        assert base[0::2] == (focus,) * len(base[0::2])          # alternating, the gauntlet entrant first
        other = base[1]
        assert other != focus and base[1::2] == (other,) * len(base[1::2])
        assert len(group) == period(base)
        counts = seat_counts(group, len(BOTS), n)
        # over the rotations, each of the two holds every seat equally often
        assert len(set(counts[focus])) == 1 and len(set(counts[other])) == 1
        assert counts[focus] == [len(base[0::2]) * len(group) // n] * n
        assert counts[other] == [len(base[1::2]) * len(group) // n] * n
    json_jobs = _show_json(capsys, db)["jobs"]
    assert len(json_jobs) == len(jobs) == (len(BOTS) - 1) * (2 if n % 2 == 0 else n)


def test_a_gauntlet_run_resumes_with_its_line_ups(tmp_path, capsys):
    db = tmp_path / "g.db"
    code, out, err = _arena_run(capsys, db, "--no-progress", "--gauntlet", "heuristic", "--max-jobs", "4")
    assert code == 0, err
    assert "4 job(s) played now" in out
    with Store(str(db), read_only=True) as store:
        before = store.jobs(store.latest_run())
    code, out, err = _arena_run(capsys, db, "--no-progress", "--gauntlet", "heuristic")
    assert code == 0, err
    assert "resumed" in out and "4 before" in out
    with Store(str(db), read_only=True) as store:
        assert len(store.runs()) == 1
        run_id = store.latest_run()
        assert store.jobs(run_id) == before
        assert store.spec_json(run_id)["lineups"] == "gauntlet:heuristic"
        assert len(store.done_keys(run_id)) == len(before)


@pytest.mark.parametrize("flags, needle", [
    (["--lineups", "bogus"], "lineups: 'bogus' is not one of pairs, table, gauntlet"),
    (["--gauntlet", "nosuch"], "'nosuch' is not an entrant"),
    (["--lineups", "gauntlet:nosuch"], "'nosuch' is not an entrant"),
    (["--lineups", "table", "--gauntlet", "random"], "--gauntlet"),
])
def test_bad_line_ups_are_one_line_errors(tmp_path, capsys, flags, needle):
    db = tmp_path / "x.db"
    code, _, err = _arena_run(capsys, db, "--no-progress", *flags)
    assert needle in _one_line_error(code, err)
    assert not db.exists()


def test_a_spec_file_takes_a_gauntlet(tmp_path, capsys):
    spec = tmp_path / "t.toml"
    spec.write_text('players = 5\ndeals = 1\nlineups = "gauntlet:h"\ntrusted = "builtins"\n'
                    '[[entrant]]\nbot = "random"\n[[entrant]]\nname = "h"\nbot = "heuristic"\n'
                    '[[entrant]]\nname = "r"\nbot = "random"\n')
    db = tmp_path / "t.db"
    code, out, err = _run(capsys, "arena", "run", str(spec), "--db", str(db), "--no-progress", "--samples", "20")
    assert code == 0, err
    assert "10 job(s) played now" in out
    bad = tmp_path / "bad.toml"
    bad.write_text(spec.read_text().replace('"gauntlet:h"', '"gauntlet:zz"'))
    code, _, err = _run(capsys, "arena", "run", str(bad), "--db", str(tmp_path / "b.db"), "--no-progress")
    assert "bad.toml" in _one_line_error(code, err)


# ------------------------------------------------------------------ --verbose
LINE = re.compile(r"^\[(\d+)/(\d+)\] (g\d+-l\d+-r\d+)  suite seed \S+  seats (.*?)  .*?margin +(\S+)  "
                  r"won by (.*?)  game +\S+  faults (.*)$")


def test_verbose_prints_a_line_per_job_and_the_standings_every_n(tmp_path, capsys):
    db = tmp_path / "v.db"
    code, out, err = _arena_run(capsys, db, "--lineups", "gauntlet", "--verbose", "--report-every", "4",
                                bots=BOTS[:3])
    assert code == 0, err
    lines = out.splitlines()
    job_lines = [m for m in map(LINE.match, lines) if m]
    assert len(job_lines) == 10 == len([ln for ln in lines if ln.startswith("[")])
    assert [int(m.group(1)) for m in job_lines] == list(range(1, 11))
    assert {m.group(2) for m in job_lines} == {"10"}
    jobs = {j["key"]: j for j in _show_json(capsys, db)["jobs"]}
    assert {m.group(3) for m in job_lines} == set(jobs)
    for m in job_lines:
        job = jobs[m.group(3)]
        assert m.group(4) == " ".join(f"{s}:{name}" for s, name in enumerate(job["seats"]))
        assert m.group(5) == f"{job['margin']:+.0f}"
        assert m.group(6).startswith({"maker": "makers", "defenders": "defenders",
                                      "forfeit": "the others"}[job["winner_side"]])
        assert f"({', '.join(job['winner_entrants'])})" in m.group(6)
        assert m.group(7) == ("-" if not job["fault_list"] else m.group(7))
    # the standings after 4 and after 8 jobs, each where its turn came, then the final ones
    heads = [i for i, ln in enumerate(lines) if ln.startswith("standings after")]
    assert [lines[i] for i in heads] == ["standings after 4 of 10 jobs:", "standings after 8 of 10 jobs:"]
    for i, done in zip(heads, (4, 8)):
        assert LINE.match(lines[i - 1]).group(1) == str(done)
        assert lines[i + 1] == f"run 1 (arena): {done} of 10 jobs, running"
        assert "Elo" in lines[i + 2] and "dup score" in lines[i + 2]
    assert sum("head to head" in ln for ln in lines) == 3
    # without the flag: no job lines
    code, out, err = _arena_run(capsys, tmp_path / "q.db", "--lineups", "gauntlet", "--no-progress",
                                bots=BOTS[:3])
    assert code == 0 and not any(ln.startswith("[") or ln.startswith("standings after")
                                 for ln in out.splitlines())


def test_verbose_with_json_is_a_one_line_error(tmp_path, capsys):
    code, _, err = _arena_run(capsys, tmp_path / "x.db", "--verbose", "--json")
    assert "--verbose" in _one_line_error(code, err)
    code, _, err = _arena_run(capsys, tmp_path / "x.db", "--report-every", "-1")
    assert "--report-every" in _one_line_error(code, err)


# ------------------------------------------------------------------ export, replay, view
def _headers(path: Path):
    """The first line of each record of an exported file, with its line number."""
    out, in_match = [], False
    for i, text in enumerate(path.read_text().splitlines(), 1):
        rec = json.loads(text)
        kind = rec.get("type")
        if kind == "match" or (kind == "deal" and not in_match):
            out.append((i, rec))
            in_match = kind == "match"
        if kind == "match_result":
            in_match = False
    return out


def test_export_writes_every_stored_game_with_names_and_replay_and_view_read_it(tmp_path, capsys):
    db = tmp_path / "e.db"
    code, _, err = _arena_run(capsys, db, "--no-progress", "--gauntlet", "heuristic", bots=BOTS[:3])
    assert code == 0, err
    out = tmp_path / "all.jsonl"
    code, text, err = _run(capsys, "arena", "export", "--db", str(db), "-o", str(out))
    assert code == 0, err
    shown = _show_json(capsys, db)["jobs"]
    heads = _headers(out)
    assert len(heads) == len(shown) == 10 and "10 game(s) of run 1" in text
    assert [h["players"] for _, h in heads] == [j["seats"] for j in shown]
    assert {h["type"] for _, h in heads} == {"deal"}
    # each exported record is the stored one
    for (_, _), job in zip(heads, shown):
        code, rec, _ = _run(capsys, "arena", "record", job["key"], "--db", str(db))
        assert code == 0 and rec.splitlines()[0] in out.read_text()
    # on the terminal: the same lines
    code, text, err = _run(capsys, "arena", "export", "--db", str(db))
    assert code == 0 and text == out.read_text() and "10 game(s)" in err

    code, told, err = _run(capsys, "replay", str(out))
    assert code == 0, err
    titles = [ln for ln in told.splitlines() if ln.startswith("== game ")]
    assert len(titles) == 10
    assert titles[0] == f"== game 1 of 10 (line 1): {', '.join(shown[0]['seats'])}"
    assert titles[3].startswith(f"== game 4 of 10 (line {heads[3][0]}): ")
    code, one, err = _run(capsys, "replay", str(out), "--game", "4")
    assert code == 0 and one.splitlines()[0] == titles[3]
    assert one.splitlines()[1:] == told.split(titles[3] + "\n")[1].split("\n\n== game 5")[0].splitlines()

    code, said, err = _run(capsys, "view", str(out))
    assert code == 0, err
    assert said.strip() == f"wrote {tmp_path / 'all-game1.html'} (game 1 of 10; --game N draws another)"
    page = tmp_path / "p.html"
    code, said, err = _run(capsys, "view", str(out), "--game", "10", "-o", str(page))
    assert code == 0, err
    assert "game 10 of 10" in page.read_text() and shown[9]["seats"][0] in page.read_text()


def test_matches_export_as_match_records(tmp_path, capsys):
    db = tmp_path / "m.db"
    code, _, err = _arena_run(capsys, db, "--no-progress", "--mode", "matches", "--max-jobs", "2",
                              bots=BOTS[:2])
    assert code == 0, err
    out = tmp_path / "m.jsonl"
    code, text, err = _run(capsys, "arena", "export", "--db", str(db), "-o", str(out))
    assert code == 0, err
    played = [j for j in _show_json(capsys, db)["jobs"] if j["played"]]
    heads = _headers(out)
    assert [h["type"] for _, h in heads] == ["match", "match"]
    assert [h["players"] for _, h in heads] == [j["seats"] for j in played]
    code, told, err = _run(capsys, "replay", str(out))
    assert code == 0, err
    assert [ln for ln in told.splitlines() if ln.startswith("== game ")] == [
        f"== game {k} of 2 (line {line}): {', '.join(j['seats'])}" for k, (line, j) in
        enumerate(zip([ln for ln, _ in heads], played), 1)]
    code, said, err = _run(capsys, "view", str(out), "--game", "2")
    assert code == 0 and "game 2 of 2" in said and (tmp_path / "m-game2.html").exists()


def test_a_ladder_exports_its_games(tmp_path, capsys):
    from arena.ladder.folder import Ladder, LadderRules
    from arena.ladder.rounds import run_ladder

    lad = Ladder.create(str(tmp_path / "lad"), LadderRules(players=5), secret="test")
    lad.submit_builtin("random", name="rnd", owner="admin")
    lad.submit_builtin("heuristic", name="heu", owner="admin")
    summary = run_ladder(lad, workers=1, games=4, seed=1, pin=False)
    out = tmp_path / "lad.jsonl"
    code, text, err = _run(capsys, "arena", "export", "--ladder", str(tmp_path / "lad"), "-o", str(out))
    assert code == 0, err
    heads = _headers(out)
    assert len(heads) == summary.games
    assert all(set(h["players"]) == {"rnd", "heu"} for _, h in heads)
    code, told, err = _run(capsys, "replay", str(out))
    assert code == 0 and told.count("== game ") == summary.games
    code, _, err = _run(capsys, "arena", "export", "--ladder", str(tmp_path / "lad"),
                        "-o", str(tmp_path / "lad" / "ladder.db"))
    assert "is the database" in _one_line_error(code, err)
    code, _, err = _run(capsys, "arena", "export", "--ladder", str(tmp_path / "nolad"))
    assert "no ladder" in _one_line_error(code, err)


def test_export_and_replay_errors_are_one_line(tmp_path, capsys):
    db = tmp_path / "e.db"
    code, _, err = _arena_run(capsys, db, "--no-progress", bots=BOTS[:2], players="6")
    assert code == 0, err
    data = db.read_bytes()
    code, _, err = _run(capsys, "arena", "export", "--db", str(db), "-o", str(db))
    assert "is the database" in _one_line_error(code, err)
    assert db.read_bytes() == data
    out = tmp_path / "x.jsonl"
    out.write_text("keep\n")
    code, _, err = _run(capsys, "arena", "export", "--db", str(db), "-o", str(out))
    assert "exists" in _one_line_error(code, err)
    assert out.read_text() == "keep\n"
    code, _, err = _run(capsys, "arena", "export", "--db", str(tmp_path / "none.db"))
    assert "none.db" in _one_line_error(code, err)
    code, _, err = _run(capsys, "arena", "export", "--db", str(db), "--run", "7")
    assert "7" in _one_line_error(code, err)
    # a run played without records has nothing to export
    code, _, err = _arena_run(capsys, tmp_path / "n.db", "--no-progress", "--no-record", bots=BOTS[:2])
    assert code == 0, err
    code, _, err = _run(capsys, "arena", "export", "--db", str(tmp_path / "n.db"))
    assert "--no-record" in _one_line_error(code, err)

    good = tmp_path / "good.jsonl"
    code, _, err = _run(capsys, "arena", "export", "--db", str(db), "-o", str(good))
    assert code == 0, err
    for argv in (["replay", str(good), "--game", "0"], ["view", str(good), "--game", "99"]):
        code, _, err = _run(capsys, *argv)
        assert "choose from 1 to 2" in _one_line_error(code, err)
    # a broken line in the second record is named by its line in the file
    lines = good.read_text().splitlines()
    second = _headers(good)[1][0]
    lines[second] = json.dumps({"seat": 99, "action": "pass"})
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    code, _, err = _run(capsys, "replay", str(bad))
    assert f"bad.jsonl: line {second + 1}: " in _one_line_error(code, err)
    code, _, err = _run(capsys, "view", str(bad), "--game", "2")
    assert f"bad.jsonl: line {second + 1}: " in _one_line_error(code, err)
