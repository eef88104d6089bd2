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
import secrets
import sqlite3
import stat
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, UTC
from pathlib import Path
from typing import Any, Optional, TypeVar, Union
from collections.abc import Iterator, Sequence

from ..types import ArenaError, Entrant, Fault, Job, JobResult

__all__ = ["DEFAULT_DB", "SCHEMA_VERSION", "STATUSES", "RunInfo", "SQLiteFile", "Store", "Owner",
           "log_path_for", "refuse_database_path"]

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


@dataclass(frozen=True)
class Owner:
    """A runner holding leases: this host, this process, and a random part
    (a pid can be reused)."""

    host: str
    pid: int
    id: str

    @classmethod
    def me(cls) -> Owner:
        """The owner that is this process."""
        import socket

        host = socket.gethostname()
        return cls(host, os.getpid(), f"{host}:{os.getpid()}:{secrets.token_hex(6)}")

    def kept_from(self, owner: str, host: str, pid: int, expires: float, now: float) -> bool:
        """Whether a lease (its owner's id, host, pid and end) keeps its job
        from this owner at ``now``: another owner's, not run out, and that
        owner not known to be gone."""
        return owner != self.id and expires > now and self.alive(host, pid)

    def alive(self, host: str, pid: int) -> bool:
        """Whether the owner on ``host`` with ``pid`` may still be running
        (always true of another host's: only its lease's time says)."""
        if host != self.host:
            return True
        if pid == self.pid:
            return True
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return _is_zombie(pid) is not True


def _is_zombie(pid: int) -> Optional[bool]:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (OSError, IndexError):
        return None


# Primary SQLite result codes (the low byte of an extended code).
_PERM, _BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 3, 5, 6, 8, 10, 11, 13, 14, 26

_INT64 = range(-(2 ** 63), 2 ** 63)


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


def _read_only_mount(folder: str) -> bool:
    """Whether ``folder`` is on a file system mounted read-only."""
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def refuse_database_path(out: Union[str, os.PathLike[str]], db: Union[str, os.PathLike[str]],
                         what: str) -> None:
    """A one-line :class:`~arena.types.ArenaError` if writing the file
    ``out`` (a page, a log, an output named by ``what``) would write into the
    database ``db`` or one of SQLite's files beside it. Only ``stat`` is
    used: nothing is opened.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> db = os.path.join(folder, "arena.db")
    >>> Store(db).close()
    >>> refuse_database_path(os.path.join(folder, "page.html"), db, "-o")
    >>> refuse_database_path(os.path.join(folder, ".", "arena.db"), db, "-o")
    Traceback (most recent call last):
    arena.types.ArenaError: -o ....db is the database ....db; choose another name
    """
    db = os.fspath(db)
    for name in (db, f"{db}-wal", f"{db}-shm", f"{db}-journal"):
        try:
            same = os.path.samefile(out, name)
        except OSError:                             # one of them does not exist
            same = os.path.abspath(out) == os.path.abspath(name)
        if same:
            raise ArenaError(f"{what} {os.fspath(out)} is the database {db}"
                             f"{name[len(db):] and f' (its {name[len(db) + 1:]} file)'}; choose another name")


def log_path_for(db: Union[str, os.PathLike[str]]) -> str:
    """The log file a command on the database ``db`` writes by default:
    ``DB`` with ``.log`` for its extension, never the database itself.

    >>> log_path_for("arena.db"), log_path_for("runs/t.sqlite"), log_path_for("x.log")
    ('arena.log', 'runs/t.log', 'x.log.log')
    """
    db = os.fspath(db)
    path = os.path.splitext(db)[0] + ".log"
    return path if path != db else db + ".log"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _seed_value(seed: int) -> Union[int, str]:
    return seed if seed in _INT64 else str(seed)


_F = TypeVar("_F", bound="SQLiteFile")


class SQLiteFile:
    """One pengyou SQLite file, opened (and created if missing when ``create``).

    The opening, checking and error rules every database of the project
    shares; a subclass names its kind and schema (:class:`Store`, the
    ladder's store). ``busy_timeout`` is how long, in seconds, to wait for
    another process's write lock before giving up with "... is locked by
    another process". ``read_only``: the caller only reads; the connection
    is SQLite's read-only one, which changes nothing in the file (no journal
    mode, no checkpoint), and a file this process may not write (or on
    read-only media) can be read too. Only SQLite ever opens the file: on
    POSIX, closing any other descriptor of it would drop the locks this
    process's other connections hold. Use it as a context manager, or call :meth:`close`. Every
    method raises :class:`~arena.types.ArenaError` with a one-line message
    naming the file when the database cannot be used. ``quick_check``:
    whether opening reads every page (SQLite's ``quick_check``), which costs
    more the more the file holds; a long-lived process that has checked the
    file once may open it again without it (a damaged page still fails the
    query that meets it, with the same one line).
    """

    #: What the file is, in messages ("results database").
    KIND = "results database"
    #: What to do when the file is missing.
    CREATE_HINT = "run `pengyou arena run` first"
    #: What to do instead of using this file.
    OTHER = "use another --db"
    #: ``PRAGMA application_id`` and ``user_version`` of the kind.
    APPLICATION_ID = _APPLICATION_ID
    SCHEMA_VERSION = SCHEMA_VERSION
    #: The schema written into a new file, and the tables an intact one has.
    SCHEMA = _SCHEMA
    TABLES: tuple[str, ...] = _TABLES

    def __init__(self, path: Union[str, os.PathLike[str]] = DEFAULT_DB, create: bool = True,
                 busy_timeout: float = 5.0, read_only: bool = False, quick_check: bool = True) -> None:
        self.path = os.fspath(path)
        self.read_only = read_only
        self._check_pages = quick_check
        self._con: Optional[sqlite3.Connection] = None
        self._con = self._open(create and not read_only, busy_timeout)

    # ------------------------------------------------------------------ opening

    def _open(self, create: bool, busy_timeout: float) -> sqlite3.Connection:
        # Only SQLite opens the file: on POSIX, closing any other descriptor of it would drop
        # every lock this process's connections hold on it (and a writer's log could then be
        # checkpointed and deleted under it by another process). What is learnt before the
        # connection exists comes from stat(), which opens nothing.
        p = self.path
        target = Path(p)
        try:
            st: Optional[os.stat_result] = os.stat(p)
        except FileNotFoundError:
            st = None
        except OSError as exc:
            raise ArenaError(f"cannot read {p}: {_one_line(exc.strerror or str(exc))}") from None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise ArenaError(f"{p} is a directory, not a {self.KIND}")
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise ArenaError(f"{p} is not a pengyou {self.KIND} (not a regular file)")
        exists = st is not None
        if not exists:
            if not create:
                raise ArenaError(f"no {self.KIND} {p}; {self.CREATE_HINT}")
            parent = target.parent
            if not parent.exists():
                raise ArenaError(f"cannot create {p}: directory {parent} does not exist")
            if not parent.is_dir():
                raise ArenaError(f"cannot create {p}: {parent} is not a directory")
            if not os.access(parent, os.W_OK | os.X_OK):
                raise ArenaError(f"cannot create {p}: directory {parent} is not writable")
        elif not os.access(p, os.R_OK):
            raise ArenaError(f"cannot read {p}: Permission denied")
        empty = st is not None and st.st_size == 0
        if empty and not create:
            raise ArenaError(f"no {self.KIND} {p} (the file is empty); {self.CREATE_HINT}")
        if self.read_only:
            # a reader never writes: not the file, not its journal mode, not a checkpoint
            uri, prepare = self._read_only_uri(), self._validate
        else:
            uri = target.resolve().as_uri() + ("?mode=rwc" if create else "?mode=rw")

            def prepare() -> None:
                fresh = not exists or empty or (create and self._blank())
                if fresh:
                    fresh = self._create()
                if not fresh:
                    self._validate()
                self._wal(busy_timeout)
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._db.execute("PRAGMA foreign_keys=ON")
        try:
            con = sqlite3.connect(uri, uri=True, timeout=busy_timeout, isolation_level=None)
        except sqlite3.Error as exc:
            raise self._error(exc, check=False) from None
        self._con = con
        try:
            with self._errors(check=False):
                prepare()
        except BaseException:
            self._con = None
            con.close()
            raise
        return con

    def _read_only_uri(self) -> str:
        """How a reader opens the file: ``mode=ro``, so that it can change
        nothing (SQLite still shares the writer's log and index). One on
        read-only media, or in a folder this process cannot write (where
        SQLite cannot make its index file), is read as immutable: no writer
        of this user can be changing it there."""
        folder = os.path.dirname(os.path.abspath(self.path)) or "."
        writable = os.access(folder, os.W_OK) and not _read_only_mount(folder)
        return Path(self.path).resolve().as_uri() + ("?mode=ro" if writable else "?mode=ro&immutable=1")

    def _blank(self) -> bool:
        """Whether the file is an SQLite database with nothing in it yet (one
        another process is creating now, or an empty one): ours to fill."""
        con = self._db
        return (con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
                and con.execute("PRAGMA application_id").fetchone()[0] == 0
                and con.execute("PRAGMA user_version").fetchone()[0] == 0)

    def _wal(self, busy_timeout: float) -> None:
        """Switch to write-ahead logging (once per file); another process
        switching at the same moment is waited for, not reported."""
        con = self._db
        deadline = time.monotonic() + busy_timeout
        while True:
            try:
                mode = con.execute("PRAGMA journal_mode").fetchone()[0]
                if str(mode).lower() != "wal":
                    con.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                code = getattr(exc, "sqlite_errorcode", None)
                busy = isinstance(code, int) and (code & 0xFF) in (_BUSY, _LOCKED)
                if not busy or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _create(self) -> bool:
        """Write the schema into a new (empty) file; False if another process just did."""
        con = self._db
        with self._transaction():
            if con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                return False
            con.execute(f"PRAGMA application_id={self.APPLICATION_ID}")
            con.execute(f"PRAGMA user_version={self.SCHEMA_VERSION}")
            for statement in self.SCHEMA.split(";"):
                if statement.strip():
                    con.execute(statement)
        return True

    def _validate(self) -> None:
        """Check an existing file is an intact database of this kind, without writing to it."""
        con = self._db
        p = self.path
        problem = self._quick_check() if self._check_pages else None
        if problem is not None:
            raise ArenaError(f"{p} is damaged ({problem}); it was left as it is: "
                             f"restore a copy or {self.OTHER}")
        app = con.execute("PRAGMA application_id").fetchone()[0]
        version = con.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if app == 0 and version == 0 and not tables:       # being created by another process, or blank
            raise ArenaError(f"no {self.KIND} {p} (the file is empty); {self.CREATE_HINT}")
        if app != self.APPLICATION_ID:
            raise ArenaError(f"{p} is not a pengyou {self.KIND} "
                             "(an SQLite database of another application); it was left as it is")
        if version != self.SCHEMA_VERSION:
            raise ArenaError(f"{p} is a pengyou {self.KIND} of schema version {version}, "
                             f"but this version reads {self.SCHEMA_VERSION}; {self.OTHER}")
        missing = [t for t in self.TABLES if t not in tables]
        if missing:
            raise ArenaError(f"{p} is damaged (table {missing[0]} is missing); it was left as it is: "
                             f"restore a copy or {self.OTHER}")

    def _quick_check(self) -> Optional[str]:
        """None if ``PRAGMA quick_check`` passes, else its first complaint."""
        rows = self._db.execute("PRAGMA quick_check(1)").fetchall()
        if rows and rows[0][0] == "ok":
            return None
        return _one_line(rows[0][0]) if rows else "quick_check gave no answer"

    # ------------------------------------------------------------------ errors

    @property
    def _db(self) -> sqlite3.Connection:
        if self._con is None:
            raise ArenaError(f"{self.path} is closed")
        return self._con

    def _error(self, exc: sqlite3.Error, check: bool = True) -> ArenaError:
        """The one-line error for an SQLite failure on this file."""
        p = self.path
        msg = _one_line(str(exc)) or type(exc).__name__
        code = getattr(exc, "sqlite_errorcode", None)
        primary = code & 0xFF if isinstance(code, int) else None
        low = msg.lower()
        if primary in (_BUSY, _LOCKED) or "locked" in low or "busy" in low:
            return ArenaError(f"{p} is locked by another process; wait for it or {self.OTHER}")
        if primary in (_READONLY, _PERM) or "readonly" in low or "read-only" in low:
            return ArenaError(f"{p} is read-only (the file or its directory); "
                              f"change its permissions or {self.OTHER}")
        if primary == _FULL or "full" in low:
            return ArenaError(f"{p}: the disk is full ({msg})")
        if primary == _CANTOPEN or "unable to open" in low:
            return ArenaError(f"cannot open {p} ({msg})")
        if primary == _NOTADB or "not a database" in low:
            return ArenaError(f"{p} is not a pengyou {self.KIND} (file is not a database)")
        if isinstance(exc, sqlite3.IntegrityError):
            return ArenaError(f"{p}: {msg}")
        if primary in (_CORRUPT, _IOERR) or "malformed" in low or "corrupt" in low:
            return ArenaError(f"{p} is damaged ({msg}); it was left as it is: "
                              f"restore a copy or {self.OTHER}")
        if check and isinstance(exc, sqlite3.DatabaseError) and self._con is not None:
            try:
                problem = self._quick_check()
            except sqlite3.Error as again:
                problem = _one_line(str(again)) or msg
            if problem is not None:
                return ArenaError(f"{p} is damaged ({problem}); it was left as it is: "
                                  f"restore a copy or {self.OTHER}")
        return ArenaError(f"{p}: {msg}")

    @contextmanager
    def _errors(self, check: bool = True) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise self._error(exc, check) from None

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``), rolled back on any error."""
        con = self._db
        con.execute("BEGIN IMMEDIATE")
        try:
            yield con
            con.execute("COMMIT")
        except BaseException:
            if con.in_transaction:
                try:
                    con.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            raise

    # ------------------------------------------------------------------ lifetime

    def close(self) -> None:
        """Close the database (idempotent)."""
        con, self._con = self._con, None
        if con is not None:
            try:
                if con.in_transaction:
                    con.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            con.close()

    def __enter__(self: _F) -> _F:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.path!r})"


class Store(SQLiteFile):
    """A results database (the tournaments' runs, jobs and results), opened
    and checked as every :class:`SQLiteFile`; ``path`` is the file
    (:data:`DEFAULT_DB` by default)."""

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
                                (_dumps(spec_json), _now(), run_id))
                return run_id, True
            now = _now()
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
            con.execute("UPDATE runs SET status = ?, updated = ? WHERE id = ?", (status, _now(), run_id))

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
            raise ArenaError(f"{self.path} is damaged (run {run_id} spec: {_one_line(str(exc))})") from None
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
            tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "leases" not in tables:
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
            now = _now()
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
                                 f"{_one_line(str(exc))})") from None
        return out

    def faults(self, run_id: int) -> list[tuple[str, Fault]]:
        """The bot faults of a run as ``(job key, fault)``, in job index order."""
        with self._errors():
            self._require(run_id)
            rows = self._db.execute(
                "SELECT f.key, f.seat, f.entrant, f.kind, f.message, f.decision FROM faults f "
                "JOIN results r ON r.run_id = f.run_id AND r.key = f.key "
                "WHERE f.run_id = ? ORDER BY r.job_idx, f.id", (run_id,)).fetchall()
        return [(str(k), Fault(int(s), int(e), str(kind), str(m), int(d))) for k, s, e, kind, m, d in rows]
