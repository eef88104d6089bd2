"""``pengyou arena`` and ``pengyou seeds`` from the command line: the main job's
output, and one-line errors (exit status 2, data untouched) for bad input."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from arena.commands import main

ROOT = Path(__file__).resolve().parents[2]


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(code, err):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pengyou: error: "), err
    assert "Traceback" not in err
    return lines[0]


def test_run_prints_standings_then_standings_and_show_read_them(tmp_path, capsys):
    db = str(tmp_path / "a.db")
    code, out, err = _run(capsys, "arena", "run", "--bots", "random", "heuristic", "--players", "6",
                          "--deals", "4", "--db", db, "--no-progress", "--samples", "50")
    assert code == 0, err
    assert "Elo" in out and "random" in out and "heuristic" in out
    assert "8 job(s) played now" in out
    code, out, err = _run(capsys, "arena", "standings", "--db", db, "--json", "--samples", "50")
    assert code == 0, err
    data = json.loads(out)
    names = {row["name"] for row in data["standings"]["rows"]}
    assert names == {"random", "heuristic"}
    code, out, _ = _run(capsys, "arena", "show", "--db", db)
    assert code == 0 and "8 of 8 jobs" in out and "faults: 0" in out
    code, out, _ = _run(capsys, "arena", "runs", "--db", db)
    assert code == 0 and "complete" in out
    # the same command again resumes: nothing is played twice
    code, out, _ = _run(capsys, "arena", "run", "--bots", "random", "heuristic", "--players", "6",
                        "--deals", "4", "--db", db, "--no-progress", "--samples", "50")
    assert code == 0 and "0 job(s) played now, 8 before" in out


def test_toml_spec_runs(tmp_path, capsys):
    spec = tmp_path / "t.toml"
    spec.write_text('name = "t"\nplayers = 5\ndeals = 1\n[[entrant]]\nbot = "random"\n'
                    '[[entrant]]\nname = "h"\nbot = "heuristic"\n')
    code, out, err = _run(capsys, "arena", "run", str(spec), "--db", str(tmp_path / "t.db"),
                          "--no-progress", "--samples", "20")
    assert code == 0, err
    assert "5 job(s) played now" in out and " h " in out


@pytest.mark.parametrize("argv, needle", [
    (["--bots", "random", "nosuchbot"], "unknown bot 'nosuchbot'"),
    (["--bots", "random", "ismcts:iterations=0"], "iterations"),
    (["--bots", "random", "ismcts:bogus=1"], "bad parameters"),
    (["--bots", "random", "heuristic", "--suite", "nosuchsuite"], "nosuchsuite"),
    (["--bots", "random", "heuristic", "--deals", "65"], "65"),
    (["--bots", "random", "heuristic", "r2=random", "h2=heuristic", "ismcts", "oracle", "ismcts:c=1",
      "--lineups", "table"], "too few seats"),
    (["--bots", "random"], "at least 2 entrants"),
    (["--bots", "random", "heuristic", "--players", "4"], "players"),
    (["--bots", "random", "heuristic", "--workers", "0"], "workers"),
    (["--bots", "random", "heuristic", "--set", "nosuchrule=1"], "nosuchrule"),
    (["nosuch.toml"], "nosuch.toml"),
    (["--bots", "random", "heuristic", "--cluster", "foo"], "--cluster"),
])
def test_bad_run_options_are_one_line_errors(tmp_path, capsys, argv, needle):
    db = tmp_path / "x.db"
    code, _, err = _run(capsys, "arena", "run", *argv, "--db", str(db), "--no-progress")
    line = _one_line_error(code, err)
    assert needle in line
    assert not db.exists()          # nothing was started


def test_missing_and_corrupt_seed_files(tmp_path, capsys):
    bad = tmp_path / "bad.seeds"
    code, _, err = _run(capsys, "arena", "run", "--bots", "random", "heuristic", "--suite", str(bad),
                        "--db", str(tmp_path / "x.db"), "--no-progress")
    assert "bad.seeds" in _one_line_error(code, err)
    text = (ROOT / "seeds" / "dev.seeds").read_text().replace("\n7", "\n8", 1)
    bad.write_text(text)
    code, _, err = _run(capsys, "arena", "run", "--bots", "random", "heuristic", "--suite", str(bad),
                        "--db", str(tmp_path / "x.db"), "--no-progress")
    assert "bad.seeds" in _one_line_error(code, err)
    assert bad.read_text() == text


def test_corrupt_database_is_refused_and_untouched(tmp_path, capsys):
    db = tmp_path / "c.db"
    junk = b"this is not a database\n" * 100
    db.write_bytes(junk)
    for argv in (["arena", "run", "--bots", "random", "heuristic", "--deals", "1"],
                 ["arena", "standings"], ["arena", "show"]):
        code, _, err = _run(capsys, *argv, "--db", str(db))
        assert "c.db" in _one_line_error(code, err)
    assert db.read_bytes() == junk


def test_locked_database_is_refused_and_loses_nothing(tmp_path, capsys):
    db = str(tmp_path / "l.db")
    base = ["arena", "run", "--bots", "random", "heuristic", "--players", "5", "--db", db,
            "--no-progress", "--samples", "10"]
    code, _, err = _run(capsys, *base, "--deals", "1")
    assert code == 0, err
    holder = sqlite3.connect(db, timeout=0.1)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        code, _, err = _run(capsys, *base, "--deals", "2")
        assert "locked" in _one_line_error(code, err)
    finally:
        holder.rollback()
        holder.close()
    code, out, err = _run(capsys, "arena", "show", "--db", db)
    assert code == 0 and "5 of 5 jobs" in out


def test_standings_of_a_missing_database_or_run(tmp_path, capsys):
    code, _, err = _run(capsys, "arena", "standings", "--db", str(tmp_path / "none.db"))
    assert "none.db" in _one_line_error(code, err)
    assert not (tmp_path / "none.db").exists()


def test_seeds_verify_and_generate(tmp_path, capsys):
    code, out, err = _run(capsys, "seeds", "verify", "dev")
    assert code == 0, err
    assert "64" in out
    path = tmp_path / "mine.seeds"
    code, out, err = _run(capsys, "seeds", "generate", "mine", "--count", "5", "--master", "x",
                          "--out", str(path))
    assert code == 0, err
    code, _, err = _run(capsys, "seeds", "generate", "mine", "--count", "5", "--master", "y",
                        "--out", str(path))
    _one_line_error(code, err)


def test_every_workers_log_reaches_the_log_file(tmp_path, capsys):
    log = tmp_path / "run.log"
    code, _, err = _run(capsys, "arena", "run", "--bots", "random", "heuristic", "--players", "6",
                        "--deals", "6", "--workers", "2", "--db", str(tmp_path / "w.db"),
                        "--log", str(log), "--no-progress", "--samples", "10")
    assert code == 0, err
    lines = log.read_text().splitlines()
    done = [ln for ln in lines if " done in pid " in ln]
    assert len(done) == 12
    workers = {ln.split()[2] for ln in done}
    assert 1 <= len(workers) <= 2 and all(w.startswith("ForkProcess-") for w in workers), workers
    assert len({ln.split(" done in pid ")[1].split(":")[0] for ln in done}) >= 1
    assert any("MainProcess" in ln and "12 to play" in ln for ln in lines)


def test_a_stored_record_replays(tmp_path, capsys):
    db = str(tmp_path / "r.db")
    code, _, err = _run(capsys, "arena", "run", "--bots", "random", "heuristic", "--players", "5",
                        "--deals", "1", "--db", db, "--no-progress", "--samples", "10")
    assert code == 0, err
    out_file = tmp_path / "g0.jsonl"
    code, _, err = _run(capsys, "arena", "record", "g0-l0-r2", "--db", db, "--out", str(out_file))
    assert code == 0, err
    code, out, err = _run(capsys, "replay", str(out_file))
    assert code == 0, err
    assert "opponents" in out.lower() or "maker" in out.lower()
    code, _, err = _run(capsys, "arena", "record", "g0-l0-r2", "--db", db, "--out", str(out_file))
    assert "exists" in _one_line_error(code, err)
    code, _, err = _run(capsys, "arena", "record", "g9-l0-r0", "--db", db)
    assert "g9-l0-r0" in _one_line_error(code, err)


def test_a_parameter_sweep_makes_one_entrant_per_value(tmp_path, capsys):
    db = str(tmp_path / "s.db")
    code, out, err = _run(capsys, "arena", "run", "--bots", "ismcts:iterations={20,40}", "random",
                          "--players", "6", "--deals", "1", "--db", db, "--no-progress", "--samples", "10",
                          "--json")
    assert code == 0, err
    names = {row["name"] for row in json.loads(out)["standings"]["rows"]}
    assert names == {"ismcts:iterations=20", "ismcts:iterations=40", "random"}
    for bad in ("ismcts:c={0.5,1.0", "ismcts:c=0.5}", "ismcts:c={0.5,}"):
        code, _, err = _run(capsys, "arena", "run", "--bots", bad, "random", "--db", db)
        assert "bot spec" in _one_line_error(code, err)


@pytest.fixture
def read_only_folder(tmp_path):
    """A folder holding one finished run, then made read-only: a read-only
    mount of it when run as root (root ignores permission bits), else the
    folder's write permission taken away."""
    import os
    import subprocess

    src = tmp_path / "src"
    src.mkdir()
    db = src / "r.db"
    assert main(["arena", "run", "--bots", "random", "heuristic", "--deals", "2", "--db", str(db),
                 "--no-progress", "--samples", "20"]) == 0
    assert not (src / "r.db-wal").exists()      # the run closed the log: the file is whole
    if os.geteuid() == 0:
        ro = tmp_path / "ro"
        ro.mkdir()
        subprocess.run(["mount", "--bind", str(src), str(ro)], check=True)
        try:
            subprocess.run(["mount", "-o", "remount,ro,bind", str(ro)], check=True)
            yield ro
        finally:
            subprocess.run(["umount", str(ro)], check=True)
    else:
        os.chmod(src, 0o555)
        try:
            yield src
        finally:
            os.chmod(src, 0o755)


def test_a_read_only_database_is_read_by_every_reading_command(read_only_folder, capsys):
    db = str(read_only_folder / "r.db")
    before = (read_only_folder / "r.db").read_bytes()
    code, out, err = _run(capsys, "arena", "standings", "--db", db, "--samples", "20")
    assert code == 0, err
    assert "random" in out and "heuristic" in out
    code, out, err = _run(capsys, "arena", "show", "--db", db)
    assert code == 0 and "4 of 4 jobs" in out, err
    code, out, err = _run(capsys, "arena", "runs", "--db", db)
    assert code == 0 and "complete" in out, err
    code, out, err = _run(capsys, "arena", "record", "g0-l0-r0", "--db", db)
    assert code == 0 and out.startswith('{"type": "deal"'), err
    code, out, err = _run(capsys, "arena", "run", "--bots", "random", "heuristic", "--deals", "3",
                          "--db", db, "--no-progress")
    line = _one_line_error(code, err)
    assert "read-only" in line.lower()
    assert (read_only_folder / "r.db").read_bytes() == before


def test_editing_a_bot_module_starts_a_new_run_instead_of_resuming(tmp_path, capsys):
    bot = tmp_path / "mybot.py"
    bot.write_text("from bots.random_bot import RandomBot\n\n\nclass Mine(RandomBot):\n    pass\n")
    db = str(tmp_path / "e.db")
    argv = ["arena", "run", "--bots", f"{bot}:Mine", "random", "--deals", "1", "--players", "5",
            "--db", db, "--no-progress", "--samples", "20"]
    code, out, err = _run(capsys, *argv)
    assert code == 0, err
    assert "run 1 started" in out
    code, out, err = _run(capsys, *argv)              # unchanged: resumed, nothing played again
    assert code == 0 and "run 1 resumed: 0 job(s) played now" in out, out
    bot.write_text(bot.read_text() + "\n# a changed line\n")
    code, out, err = _run(capsys, *argv)
    assert code == 0, err
    assert "run 2 started" in out                     # a new version: a new run, not a merge
    code, out, _ = _run(capsys, "arena", "runs", "--db", db)
    assert code == 0 and len([ln for ln in out.splitlines() if "complete" in ln]) == 2


def test_show_lists_jobs_with_their_line_ups_and_replay_names_the_seats(tmp_path, capsys):
    db = str(tmp_path / "j.db")
    code, _, err = _run(capsys, "arena", "run", "--bots", "r=random", "h=heuristic", "--players", "5",
                        "--deals", "2", "--db", db, "--no-progress", "--samples", "10", "--max-jobs", "3")
    assert code == 0, err
    code, out, err = _run(capsys, "arena", "show", "--db", db, "--json")
    assert code == 0, err
    jobs = json.loads(out)["jobs"]
    assert len(jobs) == 10 and sum(j["played"] for j in jobs) == 3
    assert all(sorted(set(j["seats"])) == ["h", "r"] and len(j["seats"]) == 5 for j in jobs)
    code, out, err = _run(capsys, "arena", "show", "--db", db)
    assert code == 0, err
    listed = [line.strip() for line in out.splitlines() if line.startswith("  g")]
    assert "jobs: 3 of 10 played" in out and len(listed) == 10
    for job, line in zip(jobs, listed):
        seats = " ".join(f"{s}:{name}" for s, name in enumerate(job["seats"]))
        assert line.startswith(f"{job['key']}  suite seed {job['seed']}  seats {seats}  ")
        assert line.endswith("not played") != job["played"]
    played = next(j for j in jobs if j["played"])
    record = tmp_path / "one.jsonl"
    code, _, err = _run(capsys, "arena", "record", played["key"], "--db", db, "--out", str(record))
    assert code == 0, err
    code, out, err = _run(capsys, "replay", str(record))
    assert code == 0, err
    seats = " ".join(f"{s}:{name}" for s, name in enumerate(played["seats"]))
    assert f"seats: {seats.replace(' ', '  ')}" in out.splitlines()


def _job_lines_of(out):
    """The job lines of `arena show` text, by job key."""
    return {line.split()[0]: line.strip() for line in out.splitlines() if line.startswith("  g")}


def _shown(capsys, db):
    """`arena show` of ``db`` both ways: its JSON jobs and its text job lines, by job key."""
    code, out, err = _run(capsys, "arena", "show", "--db", db, "--json")
    assert code == 0, err
    jobs = {j["key"]: j for j in json.loads(out)["jobs"]}
    code, out, err = _run(capsys, "arena", "show", "--db", db)
    assert code == 0, err
    return jobs, _job_lines_of(out)


def _stored(db):
    from arena.store import Store

    with Store(db, read_only=True) as store:
        return store.entrants(1), {r.key: r for r in store.results(1)}


def test_show_tells_each_jobs_margin_winner_and_game_points_as_stored(tmp_path, capsys):
    import re

    db = str(tmp_path / "o.db")
    long_name = "heuristic_with_a_rather_long_name"
    code, _, err = _run(capsys, "arena", "run", "--bots", "random", f"{long_name}=heuristic", "--players", "6",
                        "--deals", "3", "--workers", "1", "--max-jobs", "4", "--db", db, "--no-progress",
                        "--samples", "10")
    assert code == 0, err
    entrants, stored = _stored(db)
    assert len(stored) == 4
    by_key, lines = _shown(capsys, db)
    jobs = list(by_key.values())
    assert len(jobs) == 6
    assert set(lines) == {j["key"] for j in jobs}
    assert long_name not in "".join(lines.values()) and "heuristic_wit..." in lines[jobs[0]["key"]]
    for job in jobs:
        line = lines[job["key"]]
        res = stored.get(job["key"])
        assert job["played"] == (res is not None)
        if res is None:
            assert job["status"] == "pending" and job["margin"] is None and job["winners"] == []
            assert line.endswith("pending: not played")
            continue
        (deal,) = res.deals
        winners = (list(deal.maker_side) if deal.maker_won
                   else [s for s in range(len(res.seats)) if s not in deal.maker_side])
        assert job["status"] == "played" and job["deals"] == 1
        assert job["maker"] == deal.maker and job["margin"] == deal.margins[deal.maker]
        assert job["margin"] == deal.total_points - 2 * deal.opponents_points
        assert job["winner_side"] == ("maker" if deal.maker_won else "defenders")
        assert job["winners"] == winners
        assert job["winner_entrants"] == list(dict.fromkeys(entrants[res.seats[s]].name for s in winners))
        assert job["game_points"] == list(deal.game_points) and job["margins"] == list(deal.margins)
        assert job["fault_list"] == [] and job["faults"] == 0
        m = re.search(r"  maker seat (\d+) +margin +([+-]\d+)  won by (makers|defenders) ([\d,]+) \((.*?)\) +"
                      r"game +([+-]\d+)  faults -$", line)
        assert m, line
        assert int(m[1]) == deal.maker and int(m[2]) == round(deal.margins[deal.maker])
        assert m[3] == ("makers" if deal.maker_won else "defenders")
        assert [int(s) for s in m[4].split(",")] == winners
        assert int(m[6]) == deal.game_points[deal.maker]
    played = [lines[j["key"]] for j in jobs if j["played"]]
    assert len({line.index(" margin ") for line in played}) == 1      # the columns line up
    assert len({line.index(" game ") for line in played}) == 1


def test_show_puts_each_fault_on_its_job(tmp_path, capsys):
    db = str(tmp_path / "f.db")
    crash = f"crash={ROOT / 'tests' / 'arena' / 'faulty_bots.py'}:CrashBot?at=3"
    code, _, err = _run(capsys, "arena", "run", "--bots", "random", crash, "--players", "5", "--deals", "1",
                        "--workers", "1", "--db", db, "--no-progress", "--samples", "10")
    assert code == 0, err
    entrants, stored = _stored(db)
    assert any(r.faults for r in stored.values())
    jobs, lines = _shown(capsys, db)
    for key, res in stored.items():
        job, line = jobs[key], lines[key]
        assert job["fault_list"] == [dict(f.to_json(), name=entrants[f.entrant].name) for f in res.faults]
        assert job["faults"] == len(res.faults)
        for f in res.faults:
            assert entrants[f.entrant].name == "crash" and f.kind == "crash"
            assert f"crash at seat {f.seat} (crash)" in line
        (deal,) = res.deals
        if deal.forfeit >= 0:
            others = [s for s, e in enumerate(res.seats) if entrants[e].name != "crash"]
            assert job["winner_side"] == "forfeit" and job["maker"] == deal.forfeit
            assert job["winners"] == others and job["winner_entrants"] == ["random"]
            assert job["margin"] == -deal.total_points
            assert f"seat {deal.forfeit} forfeited" in line
            assert f"won by the others {','.join(map(str, others))} (random)" in line
        if not res.faults:
            assert line.endswith("faults -")


def test_show_tells_a_matchs_winners(tmp_path, capsys):
    import re

    db = str(tmp_path / "m.db")
    code, _, err = _run(capsys, "arena", "run", "--bots", "random", "heuristic", "--players", "5", "--deals", "1",
                        "--mode", "matches", "--trusted", "builtins", "--workers", "1", "--max-jobs", "2",
                        "--db", db, "--no-progress", "--samples", "10")
    assert code == 0, err
    entrants, stored = _stored(db)
    jobs, lines = _shown(capsys, db)
    assert len(stored) == 2 and len(jobs) == 5
    for key, job in jobs.items():
        res = stored.get(key)
        if res is None:
            assert job["status"] == "pending" and lines[key].endswith("pending: not played")
            continue
        winners = list(res.match_winners)
        assert job["winner_side"] == "match" and job["winners"] == winners and job["deals"] == len(res.deals)
        assert job["game_points"] == [sum(d.game_points[s] for d in res.deals) for s in range(len(res.seats))]
        names = ", ".join(dict.fromkeys(entrants[res.seats[s]].name for s in winners))
        assert f"match, {len(res.deals)} deals" in lines[key]
        assert f"won by match winners {','.join(map(str, winners))} ({names})" in lines[key]
        m = re.search(r"  margin +([+-]\d+)  won by .*  game +([+-]\d+)  faults -$", lines[key])
        assert m, lines[key]
        assert int(m[1]) == round(sum(d.margins[winners[0]] for d in res.deals))
        assert int(m[2]) == job["game_points"][winners[0]]
