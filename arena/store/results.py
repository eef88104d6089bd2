"""The results database of tournaments: one SQLite file (stdlib :mod:`sqlite3`).

A run is a tournament spec's job list; its results are written one
transaction per job as they arrive, so an interrupted run (Ctrl-C, or even
``kill -9``) loses only the jobs in flight and resumes with the same command:
:meth:`Store.open_run` finds the run by the spec's identity and
:meth:`Store.done_keys` says what is left to play. A result is never stored
twice.

One process writes at a time (the runner's parent); readers such as
``pengyou arena standings`` can read during a run (the file is in WAL mode).
Every problem with the file (not a database, damaged, another application's,
locked, read-only, missing) is an :class:`~arena.types.ArenaError` whose one
line names the file, and an existing file is never deleted, truncated or
recreated.

>>> import os, tempfile
>>> from arena.types import DealOutcome, Entrant, Job, JobResult
>>> tmp = tempfile.TemporaryDirectory()
>>> path = os.path.join(tmp.name, "arena.db")
>>> entrants = [Entrant("a", "random"), Entrant("b", "heuristic")]
>>> jobs = [Job(0, "0.0.0", 0, 11, 0, 0, (0, 1, 0, 1)), Job(1, "0.0.1", 0, 11, 0, 1, (1, 0, 1, 0))]
>>> deal = DealOutcome(seats=(0, 1, 0, 1), maker=0, maker_side=(0, 2), opponents_points=40,
...                    total_points=200, maker_won=True, game_points=(1, -1, 1, -1),
...                    margins=(120.0, -120.0, 120.0, -120.0))
>>> with Store(path) as store:
...     run_id, resumed = store.open_run("spec-1", "demo", {"name": "demo"}, entrants, jobs)
...     first = store.add_result(run_id, jobs[0], JobResult("0.0.0", 0, (0, 1, 0, 1), (deal,)))
...     again = store.add_result(run_id, jobs[0], JobResult("0.0.0", 0, (0, 1, 0, 1), (deal,)))
>>> (run_id, resumed, first, again)
(1, False, True, False)
>>> with Store(path, create=False) as store:           # the same spec again: resumed
...     print(store.open_run("spec-1", "demo", {"name": "demo"}, entrants, jobs))
...     print(sorted(store.done_keys(1)), store.run(1).done, store.run(1).jobs)
(1, True)
['0.0.0'] 1 2
>>> tmp.cleanup()
"""

from __future__ import annotations

import json
import os
import sqlite3
import orjson
import time
from dataclasses import dataclass
from typing import Any, Optional, Union
from collections.abc import Sequence

from ..types import ArenaError, Entrant, Fault, Job, JobResult, ResultColumns
from .leases import Owner
from .fits import KeptFits
from .sqlite import now_utc, one_line

__all__ = ["DEFAULT_DB", "SCHEMA_VERSION", "STATUSES", "RunInfo", "Store"]

#: The results database used when none is given (in the current directory).
DEFAULT_DB = "arena.db"

#: The schema version written to ``PRAGMA user_version``.
SCHEMA_VERSION = 2

#: The states of a run.
STATUSES = ("running", "complete", "interrupted")

#: ``PRAGMA application_id`` of a results database ("PGY1").
_APPLICATION_ID = 0x50475931

_TABLES = ("runs", "entrants", "jobs", "results", "faults", "secrets")

_SCHEMA = """
CREATE TABLE runs (
    id        INTEGER PRIMARY KEY,
    name      TEXT NOT NULL,
    identity  TEXT NOT NULL UNIQUE,
    spec_json TEXT NOT NULL,
    created   TEXT NOT NULL,
    updated   TEXT NOT NULL,
    status    TEXT NOT NULL CHECK (status IN ('running', 'complete', 'interrupted'))
);
CREATE TABLE entrants (
    run_id INTEGER NOT NULL REFERENCES runs (id),
    idx    INTEGER NOT NULL,
    name   TEXT NOT NULL,
    spec   TEXT NOT NULL,
    PRIMARY KEY (run_id, idx)
);
CREATE TABLE jobs (
    run_id     INTEGER NOT NULL REFERENCES runs (id),
    idx        INTEGER NOT NULL,
    key        TEXT NOT NULL,
    group_no   INTEGER NOT NULL,
    seed       NOT NULL,            -- an integer, or decimal text beyond 64 bits
    lineup     INTEGER NOT NULL,
    rotation   INTEGER NOT NULL,
    seats_json TEXT NOT NULL,
    PRIMARY KEY (run_id, idx),
    UNIQUE (run_id, key)
);
CREATE TABLE results (
    run_id      INTEGER NOT NULL,
    key         TEXT NOT NULL,
    job_idx     INTEGER NOT NULL,
    result_json TEXT NOT NULL,
    written     TEXT NOT NULL,
    PRIMARY KEY (run_id, key),
    FOREIGN KEY (run_id, key) REFERENCES jobs (run_id, key)
);
CREATE INDEX results_by_job ON results (run_id, job_idx);
CREATE TABLE faults (
    id       INTEGER PRIMARY KEY,
    run_id   INTEGER NOT NULL,
    key      TEXT NOT NULL,
    seat     INTEGER NOT NULL,
    entrant  INTEGER NOT NULL,
    kind     TEXT NOT NULL,
    message  TEXT NOT NULL,
    decision INTEGER NOT NULL,
    FOREIGN KEY (run_id, key) REFERENCES results (run_id, key)
);
CREATE INDEX faults_by_result ON faults (run_id, key);
CREATE TABLE secrets (
    run_id INTEGER PRIMARY KEY REFERENCES runs (id),
    secret TEXT NOT NULL            -- keys the bots' random seeds, never shown to a bot
);
"""

#: Which runner is playing which job (made on first use: older files lack it).
_LEASES = """CREATE TABLE IF NOT EXISTS leases (
    run_id  INTEGER NOT NULL,
    key     TEXT NOT NULL,
    owner   TEXT NOT NULL,
    host    TEXT NOT NULL,
    pid     INTEGER NOT NULL,
    expires REAL NOT NULL,
    PRIMARY KEY (run_id, key)
)"""



_INT64 = range(-(2 ** 63), 2 ** 63)


#: A sequential test's state and LLR path, one per run and hypotheses (made on first use).
_SPRT = """CREATE TABLE IF NOT EXISTS sprt (
    id         INTEGER PRIMARY KEY,
    run_id     INTEGER NOT NULL,
    hypotheses TEXT NOT NULL,
    max_groups INTEGER NOT NULL,
    state_json TEXT NOT NULL,
    path_json  TEXT NOT NULL,
    created    TEXT NOT NULL,
    updated    TEXT NOT NULL,
    UNIQUE (run_id, hypotheses)
)"""

#: Tuning runs and their SPSA steps (made on first use).
_TUNES = ("""CREATE TABLE IF NOT EXISTS tunes (
    id INTEGER PRIMARY KEY, identity TEXT NOT NULL UNIQUE, spec_json TEXT NOT NULL, secret TEXT NOT NULL,
    state_json TEXT NOT NULL, status TEXT NOT NULL, created TEXT NOT NULL, updated TEXT NOT NULL)""",
          """CREATE TABLE IF NOT EXISTS tune_steps (
    tune_id INTEGER NOT NULL, k INTEGER NOT NULL, plus_json TEXT NOT NULL, minus_json TEXT NOT NULL,
    delta_json TEXT NOT NULL, result REAL NOT NULL, theta_json TEXT NOT NULL, PRIMARY KEY (tune_id, k))""")


@dataclass(frozen=True)
class RunInfo:
    """A run in the database: its identity, state and counts.

    ``jobs`` is the length of its job list, ``done`` the results stored,
    ``faults`` the bot faults in them. ``created`` and ``updated`` are UTC
    times, ``YYYY-MM-DDTHH:MM:SSZ``; ``status`` is one of :data:`STATUSES`.
    """

    id: int
    name: str
    identity: str
    created: str
    updated: str
    status: str
    jobs: int
    done: int
    faults: int


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _seed_value(seed: int) -> Union[int, str]:
    return seed if seed in _INT64 else str(seed)



class Store(KeptFits):
    """A results database (the tournaments' runs, jobs and results), opened
    and checked as every :class:`SQLiteFile`; ``path`` is the file
    (:data:`DEFAULT_DB` by default)."""

    KIND = "results database"
    CREATE_HINT = "run `pengyou arena run` first"
    OTHER = "use another --db"
    APPLICATION_ID = _APPLICATION_ID
    SCHEMA_VERSION = SCHEMA_VERSION
    SCHEMA = _SCHEMA
    TABLES: tuple[str, ...] = _TABLES

    def __init__(self, path: Union[str, os.PathLike[str]] = DEFAULT_DB, create: bool = True,
                 busy_timeout: float = 5.0, read_only: bool = False, quick_check: bool = True) -> None:
        super().__init__(path, create, busy_timeout, read_only, quick_check)

    # ------------------------------------------------------------------ runs

    def open_run(self, identity: str, name: str, spec_json: dict[str, Any],
                 entrants: Sequence[Entrant], jobs: Sequence[Job], grow: bool = False) -> tuple[int, bool]:
        """Find the run of a spec ``identity`` or start it: ``(run id, resumed)``.

        A new run is stored with its spec, entrants and jobs in one
        transaction. An existing run must have the same entrants and job list,
        or the database belongs to another schedule of the same spec. With
        ``grow``, the stored job list may also be the start of ``jobs``
        (a run on generated seeds asked for more deals): the new jobs are
        added, and the stored spec becomes ``spec_json``.
        """
        keys = [j.key for j in jobs]
        if len(set(keys)) != len(keys):
            dup = next(k for k in keys if keys.count(k) > 1)
            raise ArenaError(f"job key {dup!r} appears twice in the job list for {self.path}")
        if len({j.index for j in jobs}) != len(jobs):
            raise ArenaError(f"job indices repeat in the job list for {self.path}")
        with self._errors(), self._transaction() as con:
            row = con.execute("SELECT id FROM runs WHERE identity = ?", (identity,)).fetchone()
            if row is not None:
                run_id = int(row[0])
                stored = self._stored_jobs(run_id)
                if stored != list(jobs) and not (grow and list(jobs[:len(stored)]) == stored):
                    raise ArenaError(f"run {run_id} in {self.path} has a different job list for the "
                                     "same spec identity; use a new database")
                if self._stored_entrants(run_id) != list(entrants):
                    raise ArenaError(f"run {run_id} in {self.path} has different entrants for the "
                                     "same spec identity; use a new database")
                if len(jobs) > len(stored):
                    self._insert_jobs(con, run_id, jobs[len(stored):])
                    con.execute("UPDATE runs SET spec_json = ?, updated = ? WHERE id = ?",
                                (_dumps(spec_json), now_utc(), run_id))
                return run_id, True
            now = now_utc()
            cur = con.execute(
                "INSERT INTO runs (name, identity, spec_json, created, updated, status) "
                "VALUES (?, ?, ?, ?, ?, 'running')", (name, identity, _dumps(spec_json), now, now))
            assert cur.lastrowid is not None           # set by the INSERT
            run_id = int(cur.lastrowid)
            con.executemany("INSERT INTO entrants (run_id, idx, name, spec) VALUES (?, ?, ?, ?)",
                            [(run_id, i, e.name, e.spec) for i, e in enumerate(entrants)])
            self._insert_jobs(con, run_id, jobs)
            return run_id, False

    @staticmethod
    def _insert_jobs(con: sqlite3.Connection, run_id: int, jobs: Sequence[Job]) -> None:
        con.executemany(
            "INSERT INTO jobs (run_id, idx, key, group_no, seed, lineup, rotation, seats_json) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(run_id, j.index, j.key, j.group, _seed_value(j.seed), j.lineup, j.rotation,
              _dumps(list(j.seats))) for j in jobs])

    def secret(self, run_id: int, wanted: Optional[str] = None) -> bytes:
        """The run's secret (made on first use, ``wanted`` or a random one):
        it keys every bot's random seed and the shuffles, so a resumed run
        deals the same cards and gives its bots the same seeds. A run that
        has another secret than ``wanted`` is refused."""
        self._require(run_id)
        with self._errors(), self._transaction() as con:
            con.execute("INSERT OR IGNORE INTO secrets (run_id, secret) VALUES (?, ?)",
                        (run_id, wanted if wanted is not None else os.urandom(16).hex()))
            row = con.execute("SELECT secret FROM secrets WHERE run_id = ?", (run_id,)).fetchone()
        if wanted is not None and str(row[0]) != wanted:
            raise ArenaError(f"run {run_id} in {self.path} was started with another --secret")
        return str(row[0]).encode()

    def _stored_jobs(self, run_id: int) -> list[Job]:
        rows = self._db.execute(
            "SELECT idx, key, group_no, seed, lineup, rotation, seats_json FROM jobs "
            "WHERE run_id = ? ORDER BY idx", (run_id,))
        return [Job(int(i), str(k), int(g), int(seed), int(lineup), int(rot),
                    tuple(int(x) for x in json.loads(seats)))
                for i, k, g, seed, lineup, rot, seats in rows]

    def _stored_entrants(self, run_id: int) -> list[Entrant]:
        rows = self._db.execute("SELECT name, spec FROM entrants WHERE run_id = ? ORDER BY idx", (run_id,))
        return [Entrant(str(n), str(s)) for n, s in rows]

    def _require(self, run_id: int) -> None:
        if self._db.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is None:
            ids = [str(r[0]) for r in self._db.execute("SELECT id FROM runs ORDER BY id")]
            known = f"runs: {', '.join(ids)}" if ids else "no runs yet"
            raise ArenaError(f"no run {run_id} in {self.path} ({known})")

    def set_status(self, run_id: int, status: str) -> None:
        """Mark a run ``running``, ``complete`` or ``interrupted``."""
        if status not in STATUSES:
            raise ArenaError(f"run status {status!r} is not one of {', '.join(STATUSES)}")
        with self._errors(), self._transaction() as con:
            self._require(run_id)
            con.execute("UPDATE runs SET status = ?, updated = ? WHERE id = ?", (status, now_utc(), run_id))

    def runs(self) -> list[RunInfo]:
        """Every run, oldest first, with its counts."""
        with self._errors():
            rows = self._db.execute(
                "SELECT r.id, r.name, r.identity, r.created, r.updated, r.status, "
                "(SELECT count(*) FROM jobs j WHERE j.run_id = r.id), "
                "(SELECT count(*) FROM results s WHERE s.run_id = r.id), "
                "(SELECT count(*) FROM faults f WHERE f.run_id = r.id) "
                "FROM runs r ORDER BY r.id").fetchall()
        return [RunInfo(int(i), str(n), str(ident), str(c), str(u), str(s), int(j), int(d), int(f))
                for i, n, ident, c, u, s, j, d, f in rows]

    def run(self, run_id: int) -> RunInfo:
        """One run (an error naming the known runs if there is none with this id)."""
        for info in self.runs():
            if info.id == run_id:
                return info
        with self._errors():
            self._require(run_id)
        raise ArenaError(f"no run {run_id} in {self.path}")   # pragma: no cover (a race)

    def latest_run(self) -> Optional[int]:
        """The id of the most recently started run, or None if there is none."""
        with self._errors():
            row = self._db.execute("SELECT max(id) FROM runs").fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def spec_json(self, run_id: int) -> dict[str, Any]:
        """The spec of a run, as given to :meth:`open_run`."""
        with self._errors():
            row = self._db.execute("SELECT spec_json FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                self._require(run_id)
        try:
            spec = json.loads(row[0])
        except ValueError as exc:
            raise ArenaError(f"{self.path} is damaged (run {run_id} spec: {one_line(str(exc))})") from None
        return spec

    def entrants(self, run_id: int) -> list[Entrant]:
        """The entrants of a run, in index order."""
        with self._errors():
            self._require(run_id)
            return self._stored_entrants(run_id)

    def jobs(self, run_id: int) -> list[Job]:
        """The job list of a run, in index order."""
        with self._errors():
            self._require(run_id)
            return self._stored_jobs(run_id)

    # ------------------------------------------------------------------ leases
    def claim(self, run_id: int, keys: Sequence[str], owner: Owner, ttl: float,
              limit: Optional[int] = None) -> list[str]:
        """Lease the jobs ``keys`` of a run to ``owner`` for ``ttl`` seconds:
        the keys now its to play, in order (at most ``limit``). A job with a
        result, or leased to another owner that is alive, is left out; a lease whose time is
        up, or whose owner was a process of this host that is gone (a
        runner killed with ``kill -9``), is taken over. Two runners on one
        run so never play the same job."""
        now = time.time()
        with self._errors(), self._transaction() as con:
            self._require(run_id)
            con.execute(_LEASES)
            done = {r[0] for r in con.execute("SELECT key FROM results WHERE run_id = ?", (run_id,))}
            held: dict[str, tuple[str, str, int, float]] = {r[0]: r[1:] for r in con.execute(
                "SELECT key, owner, host, pid, expires FROM leases WHERE run_id = ?", (run_id,))}
            mine: list[str] = []
            for key in keys:
                if key in done:
                    continue
                lease = held.get(key)
                if lease is not None and owner.kept_from(*lease, now):
                    continue
                if limit is not None and len(mine) >= limit:
                    break
                mine.append(key)
            con.executemany("INSERT OR REPLACE INTO leases (run_id, key, owner, host, pid, expires) "
                            "VALUES (?, ?, ?, ?, ?, ?)",
                            [(run_id, k, owner.id, owner.host, owner.pid, now + ttl) for k in mine])
        return mine

    def renew(self, run_id: int, owner: Owner, ttl: float) -> None:
        """Extend every lease of ``owner`` on the run by ``ttl`` seconds from now."""
        with self._errors(), self._transaction() as con:
            con.execute(_LEASES)
            con.execute("UPDATE leases SET expires = ? WHERE run_id = ? AND owner = ?",
                        (time.time() + ttl, run_id, owner.id))

    def release(self, run_id: int, owner: Owner) -> None:
        """Drop every lease of ``owner`` on the run (its jobs are free again)."""
        with self._errors(), self._transaction() as con:
            con.execute(_LEASES)
            con.execute("DELETE FROM leases WHERE run_id = ? AND owner = ?", (run_id, owner.id))

    def leased_elsewhere(self, run_id: int, owner: Owner) -> int:
        """How many jobs of the run without a result another live owner holds."""
        now = time.time()
        with self._errors():
            if not self._has_table("leases"):
                return 0
            rows: list[tuple[str, str, int, float]] = self._db.execute(
                "SELECT l.owner, l.host, l.pid, l.expires FROM leases l WHERE l.run_id = ? AND NOT EXISTS "
                "(SELECT 1 FROM results r WHERE r.run_id = l.run_id AND r.key = l.key)", (run_id,)).fetchall()
        return sum(1 for row in rows if owner.kept_from(*row, now))

    # ------------------------------------------------------------------ results

    def done_keys(self, run_id: int) -> set[str]:
        """The keys of the jobs of a run that have a result."""
        with self._errors():
            self._require(run_id)
            rows = self._db.execute("SELECT key FROM results WHERE run_id = ?", (run_id,))
            return {str(r[0]) for r in rows}

    def add_result(self, run_id: int, job: Job, result: JobResult) -> bool:
        """Store a job's result and its faults in one committed transaction.

        Returns False, and writes nothing, if the job already has a result.
        """
        if result.key != job.key:
            raise ArenaError(f"result of job {result.key!r} given for job {job.key!r} ({self.path})")
        with self._errors(), self._transaction() as con:
            row = con.execute("SELECT idx FROM jobs WHERE run_id = ? AND key = ?",
                              (run_id, job.key)).fetchone()
            if row is None:
                self._require(run_id)
                raise ArenaError(f"job {job.key!r} is not in run {run_id} of {self.path}")
            now = now_utc()
            cur = con.execute(
                "INSERT OR IGNORE INTO results (run_id, key, job_idx, result_json, written) "
                "VALUES (?, ?, ?, ?, ?)", (run_id, job.key, int(row[0]), _dumps(result.to_json()), now))
            if cur.rowcount != 1:
                return False
            con.executemany(
                "INSERT INTO faults (run_id, key, seat, entrant, kind, message, decision) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(run_id, job.key, f.seat, f.entrant, f.kind, f.message, f.decision) for f in result.faults])
            con.execute("UPDATE runs SET updated = ? WHERE id = ?", (now, run_id))
            return True

    def results(self, run_id: int) -> list[JobResult]:
        """The stored results of a run, in job index order."""
        with self._errors():
            self._require(run_id)
            rows = self._db.execute("SELECT key, result_json FROM results WHERE run_id = ? "
                                    "ORDER BY job_idx", (run_id,)).fetchall()
        out = []
        for key, text in rows:
            try:
                out.append(JobResult.from_json(json.loads(text)))
            except (ValueError, KeyError, TypeError) as exc:
                raise ArenaError(f"{self.path} is damaged (result of job {key}: "
                                 f"{one_line(str(exc))})") from None
        return out

    def result_columns(self, run_id: int) -> ResultColumns:
        """The stored results of a run as :class:`~arena.types.ResultColumns`
        (what standings read), without building each result: the fast way
        to the standings of a large run."""
        with self._errors():
            self._require(run_id)
            rows = self._db.execute("SELECT key, result_json FROM results WHERE run_id = ? "
                                    "ORDER BY job_idx", (run_id,)).fetchall()
        at = [""]                       # the key of the result being read, for the error

        def objs() -> Any:
            for key, text in rows:
                at[0] = key
                yield orjson.loads(text)
        try:
            return ResultColumns.from_json(objs())
        except (ValueError, KeyError, TypeError) as exc:
            raise ArenaError(f"{self.path} is damaged (result of job {at[0]}: {one_line(str(exc))})") from None

    def faults(self, run_id: int) -> list[tuple[str, Fault]]:
        """The bot faults of a run as ``(job key, fault)``, in job index order."""
        with self._errors():
            self._require(run_id)
            rows = self._db.execute(
                "SELECT f.key, f.seat, f.entrant, f.kind, f.message, f.decision FROM faults f "
                "JOIN results r ON r.run_id = f.run_id AND r.key = f.key "
                "WHERE f.run_id = ? ORDER BY r.job_idx, f.id", (run_id,)).fetchall()
        return [(str(k), Fault(int(s), int(e), str(kind), str(m), int(d))) for k, s, e, kind, m, d in rows]

    # ------------------------------------------------------------------ sequential tests

    def _has_table(self, name: str) -> bool:
        return self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                (name,)).fetchone() is not None

    def save_sprt(self, run_id: int, hypotheses: str, max_groups: int, state: dict[str, Any],
                  point: dict[str, Any]) -> list[dict[str, Any]]:
        """Keep the state of the sequential test ``hypotheses`` (a text key)
        on a run, and add ``point`` to its LLR path unless it is the path's
        last already (a resumed test looks again at what it saw); the path."""
        with self._errors(), self._transaction() as con:
            con.execute(_SPRT)
            row = con.execute("SELECT path_json FROM sprt WHERE run_id = ? AND hypotheses = ?",
                              (run_id, hypotheses)).fetchone()
            path: list[dict[str, Any]] = json.loads(row[0]) if row else []
            if not path or path[-1] != point:
                path.append(point)
            now = now_utc()
            con.execute(
                "INSERT INTO sprt (run_id, hypotheses, max_groups, state_json, path_json, created, updated) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, hypotheses) DO UPDATE SET "
                "max_groups = excluded.max_groups, state_json = excluded.state_json, "
                "path_json = excluded.path_json, updated = excluded.updated",
                (run_id, hypotheses, max_groups, json.dumps(state), json.dumps(path), now, now))
        return path

    def sprt_tests(self, run_id: int) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
        """Every sequential test kept on a run, oldest first: ``(state, LLR path)`` ([] if none)."""
        with self._errors():
            if not self._has_table("sprt"):
                return []
            rows = self._db.execute("SELECT state_json, path_json FROM sprt WHERE run_id = ? ORDER BY id",
                                    (run_id,)).fetchall()
        try:
            return [(json.loads(st), json.loads(pa)) for st, pa in rows]
        except ValueError as exc:
            raise ArenaError(f"{self.path} is damaged (an SPRT of run {run_id}: {one_line(exc)})") from None

    # ------------------------------------------------------------------ tuning runs

    def open_tune(self, identity: str, spec: dict[str, Any], secret: str,
                  state: dict[str, Any]) -> tuple[int, Optional[dict[str, Any]], list[list[float]]]:
        """Find the tuning run of a spec ``identity`` or start it with its
        ``spec``, ``secret`` and first SPSA ``state``: ``(id, the stored state
        or None for a new run, theta after each stored iteration)``."""
        with self._errors(), self._transaction() as con:
            for sql in _TUNES:
                con.execute(sql)
            row = con.execute("SELECT id, state_json FROM tunes WHERE identity = ?", (identity,)).fetchone()
            if row is None:
                now = now_utc()
                cur = con.execute("INSERT INTO tunes (identity, spec_json, secret, state_json, status, created, "
                                  "updated) VALUES (?, ?, ?, ?, 'running', ?, ?)",
                                  (identity, json.dumps(spec), secret, json.dumps(state), now, now))
                assert cur.lastrowid is not None       # set by the INSERT
                return int(cur.lastrowid), None, []
            tune_id = int(row[0])
            path = [json.loads(t) for (t,) in con.execute(
                "SELECT theta_json FROM tune_steps WHERE tune_id = ? ORDER BY k", (tune_id,))]
            return tune_id, json.loads(row[1]), path

    def tune(self, tune_id: int) -> Optional[tuple[dict[str, Any], dict[str, Any], str, list[list[float]]]]:
        """A tuning run: ``(spec, SPSA state, status, theta after each
        iteration)``, or None if the file has no such run."""
        with self._errors():
            if not self._has_table("tunes"):
                return None
            row = self._db.execute("SELECT spec_json, state_json, status FROM tunes WHERE id = ?",
                                   (tune_id,)).fetchone()
            if row is None:
                return None
            steps = self._db.execute("SELECT theta_json FROM tune_steps WHERE tune_id = ? ORDER BY k",
                                     (tune_id,)).fetchall()
        return json.loads(row[0]), json.loads(row[1]), str(row[2]), [json.loads(t) for (t,) in steps]

    def tune_secret(self, tune_id: int) -> str:
        """The secret that keys a tuning run's shuffles and bots' seeds."""
        with self._errors():
            row = self._db.execute("SELECT secret FROM tunes WHERE id = ?", (tune_id,)).fetchone()
        if row is None:
            raise ArenaError(f"{self.path}: no tuning run {tune_id}")
        return str(row[0])

    def add_tune_steps(self, tune_id: int, steps: Sequence[tuple[int, list[float], list[float], list[float],
                                                                  float, list[float]]],
                       state: dict[str, Any], complete: bool) -> None:
        """Keep a batch of SPSA iterations ``(k, plus, minus, delta, result,
        theta after it)`` with the run's new state, in one transaction."""
        with self._errors(), self._transaction() as con:
            con.executemany("INSERT OR REPLACE INTO tune_steps VALUES (?, ?, ?, ?, ?, ?, ?)",
                            [(tune_id, k, json.dumps(plus), json.dumps(minus), json.dumps(delta), r,
                              json.dumps(theta)) for k, plus, minus, delta, r, theta in steps])
            con.execute("UPDATE tunes SET state_json = ?, updated = ?, status = ? WHERE id = ?",
                        (json.dumps(state), now_utc(), "complete" if complete else "running", tune_id))

