"""One pengyou SQLite file: how every database of the project is opened,
checked, locked and reported on (:class:`SQLiteFile`), whatever its schema.

Only SQLite ever opens a database file, its ``-wal`` or its ``-shm``: on
POSIX, closing any other descriptor of a file drops every lock the process
holds on it, SQLite's included, and another process could then checkpoint
and delete the log under a live writer. A reader's connection is SQLite's
read-only one.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from contextlib import contextmanager
from datetime import datetime, UTC
from pathlib import Path
from typing import Optional, TypeVar, Union
from collections.abc import Iterator

from ..types import ArenaError

__all__ = ["SQLiteFile", "refuse_database_path", "log_path_for", "now_utc", "one_line"]

# Primary SQLite result codes (the low byte of an extended code).
_PERM, _BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 3, 5, 6, 8, 10, 11, 13, 14, 26


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
    >>> from arena.store import Store
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


def write_new_file(out: Union[str, os.PathLike[str]], text: str, db: Union[str, os.PathLike[str]],
                   what: str) -> None:
    """Write ``text`` to the file ``out`` (named by the option ``what``),
    which must not exist yet and must not be the database ``db`` (see
    :func:`refuse_database_path`); a one-line :class:`~arena.types.ArenaError`
    otherwise.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> out = os.path.join(folder, "game.jsonl")
    >>> write_new_file(out, "{}\\n", os.path.join(folder, "arena.db"), "-o")
    >>> write_new_file(out, "{}\\n", os.path.join(folder, "arena.db"), "-o")
    Traceback (most recent call last):
    arena.types.ArenaError: -o ...game.jsonl: the file exists; choose another name
    """
    refuse_database_path(out, db, what)
    try:
        with open(out, "x", encoding="utf-8") as fh:
            fh.write(text)
    except FileExistsError:
        raise ArenaError(f"{what} {os.fspath(out)}: the file exists; choose another name") from None
    except OSError as exc:
        raise ArenaError(f"{what} {os.fspath(out)}: {exc.strerror or exc}") from None


def log_path_for(db: Union[str, os.PathLike[str]]) -> str:
    """The log file a command on the database ``db`` writes by default:
    ``DB`` with ``.log`` for its extension, never the database itself.

    >>> log_path_for("arena.db"), log_path_for("runs/t.sqlite"), log_path_for("x.log")
    ('arena.log', 'runs/t.log', 'x.log.log')
    """
    db = os.fspath(db)
    path = os.path.splitext(db)[0] + ".log"
    return path if path != db else db + ".log"


def now_utc() -> str:
    """The time now, UTC, as ``YYYY-MM-DDTHH:MM:SSZ`` (how the stores write times)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def one_line(text: object) -> str:
    """``text`` on one line (runs of white space made one space)."""
    return " ".join(str(text).split())



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

    #: What the file is, in messages ("results database"); what to do when it is
    #: missing; what to do instead of using it. Each kind of file sets them.
    KIND: str = "database"
    CREATE_HINT: str = "create it first"
    OTHER: str = "use another file"
    #: ``PRAGMA application_id`` and ``user_version`` of the kind.
    APPLICATION_ID: int = 0
    SCHEMA_VERSION: int = 0
    #: The schema written into a new file, and the tables an intact one has.
    SCHEMA: str = ""
    TABLES: tuple[str, ...] = ()

    def __init__(self, path: Union[str, os.PathLike[str]], create: bool = True,
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
            raise ArenaError(f"cannot read {p}: {one_line(exc.strerror or str(exc))}") from None
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
        return one_line(rows[0][0]) if rows else "quick_check gave no answer"

    # ------------------------------------------------------------------ errors

    @property
    def _db(self) -> sqlite3.Connection:
        if self._con is None:
            raise ArenaError(f"{self.path} is closed")
        return self._con

    def _error(self, exc: sqlite3.Error, check: bool = True) -> ArenaError:
        """The one-line error for an SQLite failure on this file."""
        p = self.path
        msg = one_line(str(exc)) or type(exc).__name__
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
                problem = one_line(str(again)) or msg
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
