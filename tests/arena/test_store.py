"""The SQLite results store: round trips, resume, bad files, locks and kill -9.

Every refusal is a one-line :class:`ArenaError` naming the file, and a file
that is refused is left byte for byte as it was.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from arena.store import DEFAULT_DB, SCHEMA_VERSION, RunInfo, Store
from arena.types import ArenaError, DealOutcome, Entrant, Fault, Job, JobResult

ROOT = Path(__file__).resolve().parents[2]

ENTRANTS = [Entrant("rnd", "random"), Entrant("heu", "heuristic"), Entrant("mc", "ismcts:iterations=50")]
SPEC = {"name": "t", "players": 4, "suite": "dev", "settings": [["x", 1]]}


def make_jobs(n: int, seed0: int = 1000) -> list[Job]:
    """n jobs over 4 seats: two rotations per deal seed."""
    out = []
    for i in range(n):
        seats = tuple((s + i) % 3 for s in range(4))
        out.append(Job(i, f"{i // 2}.0.{i % 2}", i // 2, seed0 + i // 2, 0, i % 2, seats))
    return out


def make_result(job: Job, faults: int = 0, record: str | None = None) -> JobResult:
    """A synthetic result of ``job`` with ``faults`` faults and a multi-line record."""
    n = len(job.seats)
    deal = DealOutcome(seats=job.seats, maker=job.index % n, maker_side=(job.index % n, (job.index + 2) % n),
                       opponents_points=5 * (job.index % 40), total_points=200,
                       maker_won=job.index % 3 != 0,
                       game_points=tuple(1 if s % 2 == job.index % 2 else -1 for s in range(n)),
                       margins=tuple(float(10 * s - 15) + 0.25 for s in range(n)))
    fl = tuple(Fault(seat=k % n, entrant=job.seats[k % n], kind=("crash", "timeout", "illegal")[k % 3],
                     message=f"job {job.key} fault {k}: ü ValueError('x')", decision=7 + k)
               for k in range(faults))
    if record is None:
        lines = (json.dumps({"job": job.key, "line": i, "text": "ä" * 20}, ensure_ascii=False)
                 for i in range(3))
        record = "\n".join(lines) + "\n"
    return JobResult(job.key, job.group, job.seats, (deal, deal), fl,
                     seconds=tuple(0.125 * s for s in range(n)), decisions=tuple(range(n)),
                     match_winners=(0, 2) if job.index % 2 else (), record=record)


def one_line_error(exc_info, path, *fragments: str) -> str:
    msg = str(exc_info.value)
    assert "\n" not in msg and "\r" not in msg, msg
    assert str(path) in msg, msg
    for f in fragments:
        assert f in msg, (f, msg)
    return msg


def fresh(tmp_path, jobs, name="r.db", **kw):
    """A database with one run of ``jobs``; returns (path, run_id)."""
    path = tmp_path / name
    with Store(path, **kw) as s:
        run_id, resumed = s.open_run("ident-1", "first", SPEC, ENTRANTS, jobs)
    assert not resumed
    return path, run_id


def raw_count(path, sql, *args) -> int:
    con = sqlite3.connect(path)
    try:
        return con.execute(sql, args).fetchone()[0]
    finally:
        con.close()


def snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


# --------------------------------------------------------------------------
# round trips and resume


def test_results_round_trip_with_records_and_faults(tmp_path):
    jobs = make_jobs(10)
    path, run_id = fresh(tmp_path, jobs)
    sent = {}
    with Store(path) as s:
        for j in reversed(jobs):              # written out of order, read back by job index
            r = make_result(j, faults=j.index % 3)
            assert s.add_result(run_id, j, r) is True
            sent[j.key] = r
    with Store(path, create=False) as s:
        got = s.results(run_id)
        assert got == [sent[j.key] for j in jobs]
        assert [r.record for r in got] == [sent[j.key].record for j in jobs]
        assert got[0].record.count("\n") == 3 and "ä" in got[0].record
        assert s.faults(run_id) == [(j.key, f) for j in jobs for f in sent[j.key].faults]
        assert s.entrants(run_id) == ENTRANTS
        assert s.spec_json(run_id) == SPEC
        assert s.jobs(run_id) == jobs
        assert s.done_keys(run_id) == {j.key for j in jobs}


def test_record_can_be_empty_and_equality_ignores_it(tmp_path):
    jobs = make_jobs(2)
    path, run_id = fresh(tmp_path, jobs)
    with Store(path) as s:
        s.add_result(run_id, jobs[0], make_result(jobs[0], record=""))
        s.add_result(run_id, jobs[1], make_result(jobs[1], record="x\ny"))
        a, b = s.results(run_id)
    assert a.record == "" and b.record == "x\ny"


def test_seeds_beyond_64_bits_round_trip(tmp_path):
    jobs = [Job(0, "a", 0, 2 ** 64 - 1, 0, 0, (0, 1, 2, 0)), Job(1, "b", 1, -(2 ** 70), 0, 0, (1, 2, 0, 1)),
            Job(2, "c", 2, 2 ** 63 - 1, 0, 0, (2, 0, 1, 2))]
    path, run_id = fresh(tmp_path, jobs)
    with Store(path) as s:
        assert s.jobs(run_id) == jobs
        assert s.open_run("ident-1", "first", SPEC, ENTRANTS, jobs) == (run_id, True)


def test_resume_returns_the_same_run_and_its_done_keys(tmp_path):
    jobs = make_jobs(6)
    path, run_id = fresh(tmp_path, jobs)
    with Store(path) as s:
        for j in jobs[:4]:
            s.add_result(run_id, j, make_result(j))
    with Store(path) as s:
        assert s.open_run("ident-1", "first", SPEC, ENTRANTS, jobs) == (run_id, True)
        assert s.done_keys(run_id) == {j.key for j in jobs[:4]}
        other, resumed = s.open_run("ident-2", "second", {"name": "u"}, ENTRANTS[:2], make_jobs(3))
        assert other != run_id and not resumed
        assert s.done_keys(other) == set()
    assert raw_count(path, "SELECT count(*) FROM runs") == 2
    assert raw_count(path, "SELECT count(*) FROM jobs WHERE run_id = ?", run_id) == 6


def test_second_add_of_a_result_is_ignored_with_its_faults(tmp_path):
    jobs = make_jobs(3)
    path, run_id = fresh(tmp_path, jobs)
    first = make_result(jobs[1], faults=2)
    with Store(path) as s:
        assert s.add_result(run_id, jobs[1], first) is True
        other = make_result(jobs[1], faults=3, record="different")
        assert s.add_result(run_id, jobs[1], other) is False
        assert s.add_result(run_id, jobs[1], first) is False
        assert s.results(run_id) == [first] and s.results(run_id)[0].record == first.record
        assert len(s.faults(run_id)) == 2
        assert s.run(run_id).done == 1 and s.run(run_id).faults == 2
    assert raw_count(path, "SELECT count(*) FROM results") == 1
    assert raw_count(path, "SELECT count(*) FROM faults") == 2


@pytest.mark.parametrize("change", ["seed", "seats", "missing", "extra", "key", "order"])
def test_a_different_job_list_for_the_same_identity_is_refused(tmp_path, change):
    jobs = make_jobs(6)
    path, run_id = fresh(tmp_path, jobs)
    other = list(jobs)
    if change == "seed":
        other[3] = Job(3, jobs[3].key, jobs[3].group, jobs[3].seed + 1, 0, 1, jobs[3].seats)
    elif change == "seats":
        other[3] = Job(3, jobs[3].key, jobs[3].group, jobs[3].seed, 0, 1, (0, 0, 0, 0))
    elif change == "missing":
        other = other[:-1]
    elif change == "extra":
        other = make_jobs(7)
    elif change == "key":
        other[0] = Job(0, "zz", 0, jobs[0].seed, 0, 0, jobs[0].seats)
    else:
        other[0], other[1] = (Job(0, jobs[1].key, 0, jobs[0].seed, 0, 1, jobs[1].seats),
                              Job(1, jobs[0].key, 0, jobs[0].seed, 0, 0, jobs[0].seats))
    before = path.read_bytes()
    with Store(path) as s:
        with pytest.raises(ArenaError) as e:
            s.open_run("ident-1", "first", SPEC, ENTRANTS, other)
        one_line_error(e, path, f"run {run_id} in ", "different job list", "use a new database")
        assert s.jobs(run_id) == jobs
    assert raw_count(path, "SELECT count(*) FROM runs") == 1
    assert path.read_bytes() == before


def test_a_growing_run_takes_more_jobs_but_never_a_different_start(tmp_path):
    jobs = make_jobs(4)
    path, run_id = fresh(tmp_path, jobs)
    with Store(path) as s:
        s.add_result(run_id, jobs[0], make_result(jobs[0]))
        assert s.open_run("ident-1", "first", dict(SPEC, deals=5), ENTRANTS, make_jobs(10), grow=True) == (run_id, True)
        assert s.jobs(run_id) == make_jobs(10) and s.done_keys(run_id) == {jobs[0].key}
        assert s.run(run_id).jobs == 10
        changed = make_jobs(12, seed0=2000)          # other seeds: not the run's start
        with pytest.raises(ArenaError, match="different job list"):
            s.open_run("ident-1", "first", SPEC, ENTRANTS, changed, grow=True)
        with pytest.raises(ArenaError, match="different job list"):   # without grow, more jobs are refused
            s.open_run("ident-1", "first", SPEC, ENTRANTS, make_jobs(12))
        assert s.open_run("ident-1", "first", SPEC, ENTRANTS, make_jobs(10), grow=True) == (run_id, True)
        assert s.jobs(run_id) == make_jobs(10)


def test_different_entrants_for_the_same_identity_are_refused(tmp_path):
    jobs = make_jobs(2)
    path, _ = fresh(tmp_path, jobs)
    with Store(path) as s, pytest.raises(ArenaError) as e:
        s.open_run("ident-1", "first", SPEC, [Entrant("rnd", "random"), Entrant("x", "y"), ENTRANTS[2]], jobs)
    one_line_error(e, path, "different entrants")


def test_a_job_not_in_the_run_or_a_mismatched_result_is_refused(tmp_path):
    jobs = make_jobs(2)
    path, run_id = fresh(tmp_path, jobs)
    stranger = Job(5, "nope", 9, 1, 0, 0, (0, 1, 2, 0))
    with Store(path) as s:
        with pytest.raises(ArenaError) as e:
            s.add_result(run_id, stranger, make_result(stranger))
        one_line_error(e, path, "'nope'", f"run {run_id}")
        with pytest.raises(ArenaError):
            s.add_result(run_id, jobs[0], make_result(jobs[1]))
        with pytest.raises(ArenaError) as e:
            s.add_result(run_id + 5, jobs[0], make_result(jobs[0]))
        one_line_error(e, path, f"no run {run_id + 5} in")
        assert s.done_keys(run_id) == set()


# --------------------------------------------------------------------------
# runs, status, counts


def test_runs_run_and_latest_run_report_counts(tmp_path):
    path = tmp_path / "c.db"
    with Store(path) as s:
        assert s.runs() == [] and s.latest_run() is None
        with pytest.raises(ArenaError) as e:
            s.run(1)
        assert one_line_error(e, path) == f"no run 1 in {path} (no runs yet)"
        a, _ = s.open_run("A", "alpha", SPEC, ENTRANTS, make_jobs(5))
        b, _ = s.open_run("B", "beta", SPEC, ENTRANTS[:2], make_jobs(3))
        assert (a, b) == (1, 2) and s.latest_run() == 2
        for j in make_jobs(5)[:3]:
            s.add_result(a, j, make_result(j, faults=j.index))
        s.set_status(a, "interrupted")
        s.set_status(b, "complete")
        runs = s.runs()
        assert [(r.id, r.name, r.identity, r.status, r.jobs, r.done, r.faults) for r in runs] == [
            (1, "alpha", "A", "interrupted", 5, 3, 3), (2, "beta", "B", "complete", 3, 0, 0)]
        assert s.run(1) == runs[0] and isinstance(runs[0], RunInfo)
        assert runs[0].created <= runs[0].updated and runs[0].created.endswith("Z")
        with pytest.raises(ArenaError) as e:
            s.run(3)
        assert one_line_error(e, path) == f"no run 3 in {path} (runs: 1, 2)"
        with pytest.raises(ArenaError):
            s.set_status(a, "finished")
        with pytest.raises(ArenaError):
            s.set_status(7, "complete")
        for call in (s.results, s.faults, s.entrants, s.spec_json, s.done_keys):
            with pytest.raises(ArenaError):
                call(9)
        assert s.run(1).status == "interrupted"


def test_default_database_name_and_schema_pragmas(tmp_path):
    assert DEFAULT_DB == "arena.db"
    path, _ = fresh(tmp_path, make_jobs(1))
    con = sqlite3.connect(path)
    try:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        con.close()
    assert {"runs", "entrants", "jobs", "results", "faults"} <= tables


# --------------------------------------------------------------------------
# bad files: refused in one line, never changed


def test_random_bytes_are_not_a_database_and_stay_unchanged(tmp_path):
    path = tmp_path / "arena.db"
    path.write_bytes(os.urandom(8192))
    before = snapshot(tmp_path)
    for create in (True, False):
        with pytest.raises(ArenaError) as e:
            Store(path, create=create)
        assert one_line_error(e, path) == f"{path} is not a pengyou results database (file is not a database)"
    assert snapshot(tmp_path) == before


def test_a_short_text_file_is_not_a_database(tmp_path):
    path = tmp_path / "notes.db"
    path.write_text("hello\n")
    with pytest.raises(ArenaError) as e:
        Store(path)
    one_line_error(e, path, "not a pengyou results database")
    assert path.read_text() == "hello\n"


@pytest.mark.parametrize("fraction", [0.3, 0.5, 0.8])
def test_a_truncated_database_is_refused_and_left_as_it_is(tmp_path, fraction):
    jobs = make_jobs(40)
    path, run_id = fresh(tmp_path, jobs, name="whole.db")
    with Store(path) as s:
        for j in jobs:
            s.add_result(run_id, j, make_result(j, faults=1, record="r" * 3000))
    data = path.read_bytes()
    cut = tmp_path / "cut.db"
    cut.write_bytes(data[:int(len(data) * fraction)])
    before = cut.read_bytes()
    for create in (True, False):
        with pytest.raises(ArenaError) as e:
            Store(cut, create=create)
        one_line_error(e, cut, "damaged")
    assert cut.read_bytes() == before


def test_a_damaged_page_inside_the_file_is_found_on_open(tmp_path):
    jobs = make_jobs(40)
    path, run_id = fresh(tmp_path, jobs, name="whole.db")
    with Store(path) as s:
        for j in jobs:
            s.add_result(run_id, j, make_result(j, faults=1, record="r" * 3000))
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    middle = (len(data) // page // 2) * page
    data[middle:middle + page] = os.urandom(page)
    path.write_bytes(bytes(data))
    for create in (True, False):
        with pytest.raises(ArenaError) as e:
            Store(path, create=create)
        one_line_error(e, path, "damaged")
    assert path.read_bytes() == bytes(data)


def test_header_only_garbage_after_a_valid_header_is_refused(tmp_path):
    path = tmp_path / "g.db"
    path.write_bytes(b"SQLite format 3\x00" + os.urandom(4096))
    before = path.read_bytes()
    with pytest.raises(ArenaError) as e:
        Store(path)
    one_line_error(e, path)
    assert path.read_bytes() == before


@pytest.mark.parametrize("kind", ["tables", "no tables", "our version other app", "same table names"])
def test_another_applications_sqlite_file_is_refused_untouched(tmp_path, kind):
    path = tmp_path / "other.db"
    con = sqlite3.connect(path)
    if kind == "tables":
        con.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
        con.execute("INSERT INTO customers (name) VALUES ('ann')")
    elif kind == "no tables":
        con.execute("PRAGMA user_version = 3")
    elif kind == "our version other app":
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        con.execute("CREATE TABLE t (x)")
    else:
        for t in ("runs", "entrants", "jobs", "results", "faults"):
            con.execute(f"CREATE TABLE {t} (x)")
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    con.commit()
    con.close()
    before = snapshot(tmp_path)
    for create in (True, False):
        with pytest.raises(ArenaError) as e:
            Store(path, create=create)
        one_line_error(e, path, "not a pengyou results database", "another application")
    assert snapshot(tmp_path) == before


def test_a_results_database_of_another_schema_version_is_refused(tmp_path):
    path, _ = fresh(tmp_path, make_jobs(1))
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.commit()
    con.close()
    before = path.read_bytes()
    with pytest.raises(ArenaError) as e:
        Store(path)
    one_line_error(e, path, f"schema version {SCHEMA_VERSION + 1}")
    assert path.read_bytes() == before


def test_damaged_content_and_a_changed_schema_give_one_line_errors(tmp_path):
    jobs = make_jobs(3)
    path, run_id = fresh(tmp_path, jobs)
    with Store(path) as s:
        for j in jobs:
            s.add_result(run_id, j, make_result(j, faults=1))
        con = sqlite3.connect(path)
        con.execute("UPDATE results SET result_json = '{not json' WHERE key = ?", (jobs[1].key,))
        con.commit()
        with pytest.raises(ArenaError) as e:
            s.results(run_id)
        one_line_error(e, path, "damaged", jobs[1].key)
        con.execute("DROP TABLE faults")
        con.commit()
        con.close()
        with pytest.raises(ArenaError) as e:
            s.faults(run_id)
        one_line_error(e, path, "faults")
    with pytest.raises(ArenaError) as e:
        Store(path)
    one_line_error(e, path, "damaged", "faults")


def test_a_locked_database_is_refused_in_one_line_and_readers_still_read(tmp_path):
    jobs = make_jobs(4)
    path, run_id = fresh(tmp_path, jobs)
    with Store(path) as s:
        s.add_result(run_id, jobs[0], make_result(jobs[0]))
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("UPDATE runs SET name = 'held'")
    try:
        with Store(path, busy_timeout=0.2) as s:
            assert s.run(run_id).name == "first"            # WAL: reading goes on
            for write in (lambda: s.add_result(run_id, jobs[1], make_result(jobs[1])),
                          lambda: s.set_status(run_id, "complete"),
                          lambda: s.open_run("ident-9", "x", SPEC, ENTRANTS, jobs)):
                t = time.monotonic()
                with pytest.raises(ArenaError) as e:
                    write()
                assert time.monotonic() - t < 3
                assert one_line_error(e, path) == (f"{path} is locked by another process; "
                                                   "wait for it or use another --db")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with Store(path) as s:
        assert s.done_keys(run_id) == {jobs[0].key}
        assert [r.id for r in s.runs()] == [run_id]
        assert s.add_result(run_id, jobs[1], make_result(jobs[1])) is True


def test_missing_file_with_create_false(tmp_path):
    path = tmp_path / "arena.db"
    with pytest.raises(ArenaError) as e:
        Store(path, create=False)
    assert one_line_error(e, path) == f"no results database {path}; run `pengyou arena run` first"
    assert not path.exists()
    path.write_bytes(b"")
    with pytest.raises(ArenaError) as e:
        Store(path, create=False)
    one_line_error(e, path, "no results database")
    assert path.read_bytes() == b""
    with Store(path) as s:                      # an empty file may become a database
        assert s.runs() == []


def test_a_directory_or_a_missing_directory_is_refused(tmp_path):
    with pytest.raises(ArenaError) as e:
        Store(tmp_path)
    one_line_error(e, tmp_path, "is a directory")
    missing = tmp_path / "nope" / "arena.db"
    with pytest.raises(ArenaError) as e:
        Store(missing)
    one_line_error(e, missing, "does not exist")
    assert not (tmp_path / "nope").exists()
    afile = tmp_path / "plain"
    afile.write_text("x")
    with pytest.raises(ArenaError) as e:
        Store(afile / "arena.db")
    one_line_error(e, afile / "arena.db")
    assert afile.read_text() == "x"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="file permissions do not bind the superuser")
def test_a_read_only_file_can_be_read_but_not_written(tmp_path):
    jobs = make_jobs(2)
    path, run_id = fresh(tmp_path, jobs)
    os.chmod(path, 0o444)
    try:
        before = path.read_bytes()
        with Store(path) as s:
            assert s.run(run_id).jobs == 2
            with pytest.raises(ArenaError) as e:
                s.add_result(run_id, jobs[0], make_result(jobs[0]))
            one_line_error(e, path, "read-only")
        assert path.read_bytes() == before
    finally:
        os.chmod(path, 0o644)


def test_a_closed_store_refuses_calls(tmp_path):
    path, run_id = fresh(tmp_path, make_jobs(1))
    s = Store(path)
    s.close()
    s.close()
    with pytest.raises(ArenaError) as e:
        s.runs()
    one_line_error(e, path, "closed")


# --------------------------------------------------------------------------
# kill -9 and concurrent readers

_CHILD = r"""
import json, sys
from arena.store import Store
from arena.types import Entrant, Job, JobResult
data = json.load(open(sys.argv[1], encoding="utf-8"))
entrants = [Entrant.from_json(e) for e in data["entrants"]]
jobs = [Job.from_json(j) for j in data["jobs"]]
results = [JobResult.from_json(r) for r in data["results"]]
handshake = data["handshake"]
s = Store(sys.argv[2])
run_id, _ = s.open_run("ident-1", "first", {"name": "t"}, entrants, jobs)
print("open", run_id, flush=True)
for job, res in zip(jobs, results):
    if handshake:
        cmd = sys.stdin.readline().strip()
        if cmd == "hold":          # an uncommitted write in flight when the kill comes
            con = s._con
            con.execute("BEGIN IMMEDIATE")
            con.execute("INSERT INTO results (run_id, key, job_idx, result_json, written) "
                        "VALUES (?, ?, ?, ?, 'x')", (run_id, job.key, job.index, json.dumps(res.to_json())))
            con.execute("INSERT INTO faults (run_id, key, seat, entrant, kind, message, decision) "
                        "VALUES (?, ?, 0, 0, 'crash', 'held', 0)", (run_id, job.key))
            print("holding", flush=True)
            sys.stdin.readline()
            raise SystemExit("not killed")
    assert s.add_result(run_id, job, res)
    print("done", job.key, flush=True)
print("finished", flush=True)
"""


def _start_child(tmp_path, path, jobs, results, handshake):
    data = {"entrants": [e.to_json() for e in ENTRANTS], "jobs": [j.to_json() for j in jobs],
            "results": [r.to_json() for r in results], "handshake": handshake}
    feed = tmp_path / "feed.json"
    feed.write_text(json.dumps(data), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(feed), str(path)], cwd=ROOT, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("open "), (line, proc.stderr.read() if proc.poll() is not None else "")
    return proc, int(line.split()[1])


def _kill(proc):
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    for f in (proc.stdin, proc.stdout, proc.stderr):
        try:
            f.close()
        except OSError:
            pass


def test_kill_9_after_k_commits_keeps_exactly_those_results(tmp_path):
    jobs = make_jobs(12)
    results = [make_result(j, faults=j.index % 3) for j in jobs]
    path = tmp_path / "kill.db"
    k = 5
    proc, run_id = _start_child(tmp_path, path, jobs, results, handshake=True)
    try:
        for i in range(k):
            proc.stdin.write("go\n")
            proc.stdin.flush()
            assert proc.stdout.readline().split() == ["done", jobs[i].key]
        proc.stdin.write("hold\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "holding"
    finally:
        _kill(proc)
    with Store(path, create=False) as s:
        assert s.done_keys(run_id) == {j.key for j in jobs[:k]}
        got = s.results(run_id)
        assert got == results[:k]
        assert [r.record for r in got] == [r.record for r in results[:k]]
        assert s.faults(run_id) == [(r.key, f) for r in results[:k] for f in r.faults]
        info = s.run(run_id)
        assert (info.jobs, info.done, info.faults) == (12, k, sum(len(r.faults) for r in results[:k]))
    with Store(path) as s:                         # resume: the rest, nothing twice
        assert s.open_run("ident-1", "first", {"name": "t"}, ENTRANTS, jobs) == (run_id, True)
        added = [s.add_result(run_id, j, r) for j, r in zip(jobs, results)]
        assert added == [False] * k + [True] * (12 - k)
        assert s.results(run_id) == results
    assert raw_count(path, "SELECT count(*) FROM faults") == sum(len(r.faults) for r in results)


def test_kill_9_while_writing_flat_out_loses_no_committed_result(tmp_path):
    n, k = 3000, 20
    jobs = make_jobs(n)
    results = [make_result(j, faults=j.index % 2, record="x" * 500) for j in jobs]
    path = tmp_path / "flat.db"
    proc, run_id = _start_child(tmp_path, path, jobs, results, handshake=False)
    printed = 0
    try:
        while printed < k:
            line = proc.stdout.readline()
            assert line.startswith("done "), line
            printed += 1
    finally:
        _kill(proc)
    with Store(path, create=False) as s:
        done = s.done_keys(run_id)
        assert k <= len(done) < n, "the writer finished before it was killed; make it longer"
        assert done == {j.key for j in jobs[:len(done)]}          # written in order: a prefix
        assert s.results(run_id) == results[:len(done)]
        assert len(s.faults(run_id)) == sum(len(r.faults) for r in results[:len(done)])
    with Store(path) as s:
        assert s.open_run("ident-1", "first", {"name": "t"}, ENTRANTS, jobs) == (run_id, True)
        assert sum(s.add_result(run_id, j, r) for j, r in zip(jobs, results)) == n - len(done)
        assert s.run(run_id).done == n
    assert raw_count(path, "SELECT count(*) FROM results") == n


def test_a_reader_reads_while_a_writer_writes(tmp_path):
    jobs = make_jobs(60)
    path, run_id = fresh(tmp_path, jobs)
    seen: list[int] = []
    errors: list[BaseException] = []
    stop = threading.Event()

    def read():
        try:
            with Store(path, create=False, busy_timeout=0.5) as r:
                while not stop.is_set():
                    seen.append(len(r.done_keys(run_id)))
                    assert len(r.results(run_id)) >= seen[-1]
                    if seen[-1] == len(jobs):
                        break
        except BaseException as exc:      # reported by the main thread
            errors.append(exc)

    with Store(path) as w:
        reader = threading.Thread(target=read)
        reader.start()
        try:
            for j in jobs:
                assert w.add_result(run_id, j, make_result(j, record="y" * 2000))
                time.sleep(0.002)
        finally:
            reader.join(timeout=30)
            stop.set()
    assert not errors, errors
    assert seen and seen == sorted(seen) and seen[-1] == len(jobs)
    assert len(set(seen)) > 2                           # it saw the run in progress


def test_a_reader_sees_only_committed_results_during_a_write(tmp_path):
    jobs = make_jobs(3)
    path, run_id = fresh(tmp_path, jobs)
    with Store(path) as w:
        w.add_result(run_id, jobs[0], make_result(jobs[0]))
        writer = sqlite3.connect(path, isolation_level=None)
        writer.execute("BEGIN IMMEDIATE")
        text = json.dumps(make_result(jobs[1]).to_json())
        writer.execute("INSERT INTO results (run_id, key, job_idx, result_json, written) "
                       "VALUES (?, ?, 1, ?, 'x')", (run_id, jobs[1].key, text))
        try:
            with Store(path, create=False, busy_timeout=0.2) as r:
                assert r.done_keys(run_id) == {jobs[0].key}
                writer.execute("COMMIT")
                assert r.done_keys(run_id) == {jobs[0].key, jobs[1].key}
                assert r.results(run_id) == [make_result(jobs[0]), make_result(jobs[1])]
        finally:
            if writer.in_transaction:
                writer.execute("ROLLBACK")
            writer.close()
        assert w.add_result(run_id, jobs[1], make_result(jobs[1])) is False


def _open_at_once(path, barrier, queue):
    barrier.wait()
    try:
        with Store(path) as s:
            s.open_run("same", "t", SPEC, ENTRANTS, make_jobs(3))
            queue.put("ok")
    except BaseException as exc:      # reported to the test, which names it
        queue.put(f"{type(exc).__name__}: {exc}")


def test_processes_creating_one_new_database_at_once_all_open_it(tmp_path):
    """Six processes open the same missing file at the same moment, each
    opening the same run: none is refused (before, one often read the file
    half made and called it another application's database)."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    for trial in range(12):
        path = tmp_path / f"new{trial}.db"
        barrier, queue = ctx.Barrier(6), ctx.Queue()
        procs = [ctx.Process(target=_open_at_once, args=(path, barrier, queue)) for _ in range(6)]
        for p in procs:
            p.start()
        answers = [queue.get(timeout=60) for _ in procs]
        for p in procs:
            p.join(timeout=60)
        assert answers == ["ok"] * 6, (trial, answers)
        with Store(path, create=False) as s:
            assert [r.jobs for r in s.runs()] == [3]


def test_leases_keep_a_live_runners_jobs_and_free_a_dead_or_late_ones(tmp_path):
    from arena.store import Owner

    jobs = make_jobs(6)
    path, run_id = fresh(tmp_path, jobs)
    keys = [j.key for j in jobs]
    me = Owner.me()
    other = Owner(me.host, os.getppid(), "other-live")           # a live process of this host
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    gone = Owner(me.host, dead.pid, "other-dead")                 # a process that has ended
    far = Owner("another-host", 1, "far")
    with Store(path) as s:
        s.add_result(run_id, jobs[0], make_result(jobs[0]))
        assert s.claim(run_id, keys[:3], other, 60) == keys[1:3]    # done jobs are never leased
        assert s.claim(run_id, keys[3:4], gone, 60) == keys[3:4]
        assert s.claim(run_id, keys[4:5], far, 0.2) == keys[4:5]
        assert s.leased_elsewhere(run_id, me) == 3
        time.sleep(0.3)                                             # far's lease runs out
        assert s.leased_elsewhere(run_id, me) == 2
        assert s.claim(run_id, keys, me, 60, limit=2) == [keys[3], keys[4]]
        assert s.claim(run_id, keys, me, 60) == [keys[3], keys[4], keys[5]]
        assert s.claim(run_id, keys, other, 60) == keys[1:3]        # its own stay its own
        s.release(run_id, other)
        assert s.leased_elsewhere(run_id, me) == 0
        assert s.claim(run_id, keys, far, 60) == keys[1:3]          # mine are kept from far
