"""SQLite's locks in a process that holds a connection: nothing else opens the file.

On POSIX, closing *any* descriptor of a file drops every advisory lock the
process holds on it, SQLite's included. A process that keeps a WAL
connection open and then reads the file by other means (a header check, a
copy, a log handler) leaves its connection unprotected: the next connection
another process closes believes it is the last one, checkpoints and deletes
the write-ahead log under the writer. These tests hold a writer open, run
the project's own code paths beside it, let another process open and close
a connection, and check that the log and every committed row survive; an
audit hook checks that no Python-level ``open`` of a database file happens in
the whole life of a run, a ladder and their readers.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from arena.ladder.store import LadderStore
from arena.store import Store
from arena.types import ArenaError, DealOutcome, Entrant, Job, JobResult

ROOT = Path(__file__).resolve().parents[2]

ENTRANTS = [Entrant("a", "random"), Entrant("b", "heuristic")]


def _jobs(n: int) -> list[Job]:
    return [Job(i, f"{i}.0.0", i, 100 + i, 0, 0, (0, 1, 0, 1)) for i in range(n)]


def _result(job: Job) -> JobResult:
    deal = DealOutcome(seats=job.seats, maker=0, maker_side=(0, 2), opponents_points=40, total_points=200,
                       maker_won=True, game_points=(1, -1, 1, -1), margins=(120.0, -120.0, 120.0, -120.0))
    return JobResult(job.key, job.group, job.seats, (deal,), (), record="x" * 2000)


def _close_a_connection_elsewhere(path: Path, how: str) -> None:
    """Another process opens the file, reads it and closes its connection:
    ``plain`` as any SQLite client would (read-write, checkpointing on close
    when it thinks it is the last), ``store`` as the project's readers do."""
    code = {
        "plain": "import sqlite3, sys\n"
                 "c = sqlite3.connect(sys.argv[1])\n"
                 "c.execute('SELECT count(*) FROM sqlite_master').fetchone()\n"
                 "c.close()\n",
        "store": "import sys\n"
                 "from arena.store import Store\n"
                 "with Store(sys.argv[1], read_only=True) as s:\n"
                 "    s.runs()\n",
    }[how]
    subprocess.run([sys.executable, "-c", code, str(path)], check=True, cwd=ROOT, timeout=60)


OWN_PATHS = {
    # what a process holding a connection does with the same file, the way the project does it
    "heartbeat": lambda p: Store(p, create=False).close(),          # the runner's lease renewal
    "reader": lambda p: Store(p, read_only=True).close(),           # standings, show, report
    "writer": lambda p: Store(p).close(),                           # sprt / tune batches
}


@pytest.mark.parametrize("how", ["plain", "store"])
@pytest.mark.parametrize("path_of", sorted(OWN_PATHS))
def test_a_writer_keeps_its_log_and_rows_when_its_own_process_opens_the_file_again(tmp_path, path_of, how):
    path = tmp_path / "arena.db"
    jobs = _jobs(60)
    with Store(path) as writer:
        run_id, _ = writer.open_run("spec", "t", {"name": "t"}, ENTRANTS, jobs)
        for j in jobs[:30]:
            assert writer.add_result(run_id, j, _result(j))
        wal = Path(f"{path}-wal")
        assert wal.exists()
        OWN_PATHS[path_of](path)
        _close_a_connection_elsewhere(path, how)
        # the writer's connection still holds its locks: the other process was not the last
        assert wal.exists(), "the -wal file was deleted under a live writer"
        for j in jobs[30:]:
            assert writer.add_result(run_id, j, _result(j))
        _close_a_connection_elsewhere(path, how)
        assert wal.exists(), "the -wal file was deleted under a live writer"
        assert len(writer.done_keys(run_id)) == 60
    con = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert con.execute("SELECT count(*) FROM results").fetchone()[0] == 60
    finally:
        con.close()


def test_the_ladder_store_keeps_a_writers_log_too(tmp_path):
    path = tmp_path / "ladder.db"
    with LadderStore(path) as st:
        st.init({"preset": "pagat"}, "s")
        wal = Path(f"{path}-wal")
        assert wal.exists()
        LadderStore(path, create=False, read_only=True).close()
        LadderStore(path, create=False).close()
        _close_a_connection_elsewhere(path, "plain")
        assert wal.exists(), "the -wal file was deleted under a live writer"


def test_readers_never_change_the_file(tmp_path):
    path = tmp_path / "arena.db"
    jobs = _jobs(10)
    with Store(path) as s:
        run_id, _ = s.open_run("spec", "t", {"name": "t"}, ENTRANTS, jobs)
        for j in jobs:
            s.add_result(run_id, j, _result(j))
    before = path.read_bytes(), path.stat().st_mtime_ns
    with Store(path, read_only=True) as r:
        assert r.runs()[0].done == 10
        with pytest.raises(ArenaError) as e:
            r.set_status(run_id, "complete")
        assert "read-only" in str(e.value)
    with Store(path, create=False, read_only=True) as r:
        r.results(run_id)
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_a_reader_beside_a_live_writer_sees_what_is_committed_and_writes_nothing(tmp_path):
    path = tmp_path / "arena.db"
    jobs = _jobs(20)
    with Store(path) as w:
        run_id, _ = w.open_run("spec", "t", {"name": "t"}, ENTRANTS, jobs)
        for j in jobs[:10]:
            w.add_result(run_id, j, _result(j))
        size = path.stat().st_size
        with Store(path, read_only=True) as r:
            assert len(r.done_keys(run_id)) == 10
            for j in jobs[10:]:
                w.add_result(run_id, j, _result(j))
            assert len(r.done_keys(run_id)) == 20
        assert path.stat().st_size == size          # everything is still in the log: no reader checkpointed


# --------------------------------------------------------------------------
# no Python-level open() of a database file, anywhere in the life of a run

_WATCHED: list[str] = []
_SEEN: list[tuple[str, str]] = []


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _WATCHED or event not in ("open", "os.open", "shutil.copyfile", "os.truncate"):
        return
    target = args[0]
    if isinstance(target, int) or target is None:
        return
    try:
        name = os.fsdecode(target)
    except TypeError:
        return
    full = os.path.abspath(name)
    for db in _WATCHED:
        if full in (db, f"{db}-wal", f"{db}-shm", f"{db}-journal"):
            _SEEN.append((event, name))


sys.addaudithook(_audit)


class _Watch:
    def __init__(self, *paths: Path) -> None:
        self.paths = [os.path.abspath(p) for p in paths]

    def __enter__(self) -> list[tuple[str, str]]:
        _SEEN.clear()
        _WATCHED[:] = self.paths
        return _SEEN

    def __exit__(self, *exc: object) -> None:
        _WATCHED.clear()


def test_a_run_and_its_readers_open_the_database_only_through_sqlite(tmp_path, monkeypatch, capsys):
    from arena.tournament import runner
    from arena.commands import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner, "LEASE_SECONDS", 0.3)      # a heartbeat every 0.1 s
    db = tmp_path / "arena.db"
    with _Watch(db) as seen:
        assert main(["arena", "run", "--bots", "random", "heuristic", "--deals", "4", "--players", "5",
                     "--workers", "1", "--trusted", "builtins", "--no-progress", "--secret", "s"]) == 0
        for argv in (["arena", "standings"], ["arena", "show"], ["arena", "runs"], ["arena", "show", "--json"]):
            assert main(argv) == 0
        assert main(["report", "-o", str(tmp_path / "r.html")]) == 0
    capsys.readouterr()
    assert seen == []


def test_a_ladder_and_its_server_open_the_database_only_through_sqlite(tmp_path, capsys):
    import urllib.request

    from arena.ladder.folder import Ladder, LadderRules
    from arena.ladder.rounds import run_ladder
    from arena.ladder.web import serve

    folder = tmp_path / "lad"
    db = folder / "ladder.db"
    with _Watch(db) as seen:
        lad = Ladder.create(str(folder), LadderRules(players=5, time_limit=1.0))
        lad.submit_builtin("random", name="rnd", owner="ann")
        lad.submit_builtin("heuristic", name="heur", owner="bob")
        run_ladder(lad, workers=1, games=10, groups_per_round=1)
        stop, ready = threading.Event(), threading.Event()
        where: list[str] = []

        def listening(url: str) -> None:
            where.append(url.rstrip("/"))
            ready.set()

        server = threading.Thread(target=serve, args=(lad, "127.0.0.1", 0),
                                  kwargs={"ready": listening, "stop": stop}, daemon=True)
        server.start()
        try:
            assert ready.wait(30), "the server did not start"
            for path in ("/", "/entrants/rnd", "/games/1", "/api/standings", "/api/entrants",
                         "/api/games/1/record"):
                with urllib.request.urlopen(where[0] + path, timeout=30) as resp:
                    assert resp.status == 200
                    resp.read()
        finally:
            stop.set()
            server.join(30)
        assert not server.is_alive(), "the server did not stop"
    capsys.readouterr()
    assert seen == []


def test_no_output_and_no_log_is_written_into_a_database(tmp_path, monkeypatch, capsys):
    from arena.commands import main

    monkeypatch.chdir(tmp_path)
    db = tmp_path / "runs.log"                  # a database whose default log would be itself
    assert main(["arena", "run", "--bots", "random", "heuristic", "--deals", "1", "--players", "5",
                 "--workers", "1", "--trusted", "builtins", "--no-progress", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "log in " + str(db) + ".log" in out
    key = next(line.split()[0] for line in _lines(main, capsys, ["arena", "show", "--db", str(db)])
               if line.startswith("  g"))
    before = db.read_bytes()
    for argv, flag in ((["arena", "view", key, "--db", str(db), "-o", str(db)], "-o"),
                       (["arena", "record", key, "--db", str(db), "--out", str(db)], "--out"),
                       (["arena", "view", key, "--db", str(db), "-o", f"{db}-wal"], "-o"),
                       (["report", "--db", str(db), "-o", str(db)], "-o"),
                       (["arena", "run", "--bots", "random", "heuristic", "--deals", "1", "--players", "5",
                         "--db", str(db), "--log", str(tmp_path / "." / "runs.log")], "--log")):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"pengyou: error: {flag} ") and "is the database" in err, err
        assert len(err.splitlines()) == 1
    assert db.read_bytes() == before
    with Store(db, read_only=True) as s:
        assert s.runs()[0].done == s.runs()[0].jobs


def _lines(main: Any, capsys: Any, argv: list[str]) -> list[str]:
    assert main(argv) == 0
    return capsys.readouterr().out.splitlines()
