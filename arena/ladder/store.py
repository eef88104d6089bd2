"""The ladder's database: one SQLite file in the ladder's folder.

It holds the ladder's rules (set once, when it is created) and its secret, the owners and
their hashed tokens, every entrant version (name, version, owner, kind, the spec it runs, the
hash of its code, note, when it was created and retired), every duplicate group scheduled (a
deal seed and the two entrants), every game (one rotation of a group: its seats, its outcome
and record, its faults) and the ratings after each scheduling round.

Only the process that runs the ladder writes games; the server and the submit command write
owners and entrants. Each write is one transaction, and a game is unique by (group, rotation),
so a runner killed at any moment and started again never loses a written game nor counts one
twice. Opening follows :class:`arena.store.SQLiteFile`: a foreign, damaged or locked file gets
one line and is left as it is.

>>> import os, tempfile
>>> tmp = tempfile.TemporaryDirectory()
>>> with LadderStore(os.path.join(tmp.name, "ladder.db")) as st:
...     st.init({"preset": "pagat", "players": 5}, "s3cret")
...     st.add_owner("ann", "tok-ann")
...     first = st.add_entrant("rnd", "ann", "builtin", "random", "h1", "")
...     again = st.add_entrant("rnd", "ann", "builtin", "random", "h2", "second")
...     print(first.version, again.version, st.owner_of_token("tok-ann"), st.owner_of_token("nope"))
1 2 ann None
>>> tmp.cleanup()
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any, Optional
from collections.abc import Callable, Iterable, Sequence

from ..store import SQLiteFile
from ..types import ArenaError, Fault, JobResult

__all__ = ["LadderStore", "EntrantRow", "GroupRow", "GameRow", "hash_token", "KINDS"]

#: What an entrant is: a built-in bot spec, a Python module, a program.
KINDS = ("builtin", "module", "program")

_SCHEMA = """
CREATE TABLE ladder (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    rules_json TEXT NOT NULL,
    secret     TEXT NOT NULL,             -- keys deals and bot seeds, never shown to a bot or client
    created    REAL NOT NULL
);
CREATE TABLE owners (
    name       TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    created    REAL NOT NULL
);
CREATE TABLE entrants (
    id        INTEGER PRIMARY KEY,
    name      TEXT NOT NULL,
    version   INTEGER NOT NULL,
    owner     TEXT NOT NULL,
    kind      TEXT NOT NULL CHECK (kind IN ('builtin', 'module', 'program')),
    spec      TEXT NOT NULL,              -- as stored: a built-in spec, or a path in the ladder folder
    code_hash TEXT NOT NULL,
    note      TEXT NOT NULL,
    created   REAL NOT NULL,
    retired   REAL,
    UNIQUE (name, version)
);
CREATE TABLE groups (
    id        INTEGER PRIMARY KEY,
    seed      INTEGER NOT NULL,
    a         INTEGER NOT NULL REFERENCES entrants (id),
    b         INTEGER NOT NULL REFERENCES entrants (id),
    rotations INTEGER NOT NULL,
    round     INTEGER NOT NULL,
    tries     INTEGER NOT NULL DEFAULT 0,
    created   REAL NOT NULL,
    abandoned INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE games (
    id          INTEGER PRIMARY KEY,
    group_id    INTEGER NOT NULL REFERENCES groups (id),
    rotation    INTEGER NOT NULL,
    seats_json  TEXT NOT NULL,            -- entrant ids, seat by seat
    result_json TEXT NOT NULL,            -- the JobResult, entrant indices 0 (group's a) and 1 (b)
    record      TEXT NOT NULL,
    written     REAL NOT NULL,
    UNIQUE (group_id, rotation)
);
CREATE TABLE faults (
    game_id INTEGER NOT NULL REFERENCES games (id),
    entrant INTEGER NOT NULL REFERENCES entrants (id),
    seat    INTEGER NOT NULL,
    kind    TEXT NOT NULL,
    message TEXT NOT NULL
);
CREATE INDEX faults_by_entrant ON faults (entrant);
CREATE TABLE ratings (
    id        INTEGER PRIMARY KEY,
    at        REAL NOT NULL,
    games     INTEGER NOT NULL,
    rows_json TEXT NOT NULL               -- one row per entrant id (elo, interval, deals, faults)
);
CREATE TABLE played (                     -- games per entrant id, kept with each game
    entrant INTEGER PRIMARY KEY,
    games   INTEGER NOT NULL
);
CREATE TABLE met (                        -- games per pair of entrant ids, both ways round
    a     INTEGER NOT NULL,
    b     INTEGER NOT NULL,
    games INTEGER NOT NULL,
    PRIMARY KEY (a, b)
) WITHOUT ROWID;
CREATE TABLE open_groups (                -- groups with rotations left to play, not abandoned
    id INTEGER PRIMARY KEY
);
CREATE TABLE runner (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    owner   TEXT NOT NULL,
    host    TEXT NOT NULL,
    pid     INTEGER NOT NULL,
    expires REAL NOT NULL
);
"""


#: The tallies the scheduler reads instead of scanning every game: a ladder
#: made before them gets them, counted once, when it is next opened to write.
_TALLIES = """
CREATE TABLE IF NOT EXISTS played (entrant INTEGER PRIMARY KEY, games INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS met (a INTEGER NOT NULL, b INTEGER NOT NULL, games INTEGER NOT NULL,
                                PRIMARY KEY (a, b)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS open_groups (id INTEGER PRIMARY KEY);
INSERT INTO played SELECT e, count(*) FROM (SELECT g.a AS e FROM games m JOIN groups g ON g.id = m.group_id
    UNION ALL SELECT g.b FROM games m JOIN groups g ON g.id = m.group_id) GROUP BY e;
INSERT INTO met SELECT g.a, g.b, count(*) FROM games m JOIN groups g ON g.id = m.group_id GROUP BY 1, 2
    ON CONFLICT (a, b) DO UPDATE SET games = games + excluded.games;
INSERT INTO met SELECT g.b, g.a, count(*) FROM games m JOIN groups g ON g.id = m.group_id WHERE g.a != g.b
    GROUP BY 1, 2 ON CONFLICT (a, b) DO UPDATE SET games = games + excluded.games;
INSERT INTO open_groups SELECT g.id FROM groups g LEFT JOIN games m ON m.group_id = g.id WHERE g.abandoned = 0
    GROUP BY g.id HAVING count(m.id) < g.rotations
"""


def hash_token(token: str) -> str:
    """How a token is kept: its SHA-256 (tokens are 256 random bits, so no
    salt or slow hash is needed to keep them from being guessed).

    >>> hash_token("abc") == hash_token("abc") != hash_token("abd")
    True
    """
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


@dataclass(frozen=True)
class EntrantRow:
    """One entrant version of the ladder."""

    id: int
    name: str
    version: int
    owner: str
    kind: str
    spec: str
    code_hash: str
    note: str
    created: float
    retired: Optional[float]

    @property
    def label(self) -> str:
        """``name`` for version 1, ``name@v2`` after: its name in tables."""
        return self.name if self.version == 1 else f"{self.name}@v{self.version}"

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form (the code hash shortened to 16 hex digits)."""
        return {"id": self.id, "name": self.name, "version": self.version, "label": self.label,
                "owner": self.owner, "kind": self.kind, "code_hash": self.code_hash[:16],
                "note": self.note, "created": self.created, "retired": self.retired}


@dataclass(frozen=True)
class GroupRow:
    """One duplicate group: a deal seed, two entrants, every rotation."""

    id: int
    seed: int
    a: int
    b: int
    rotations: int
    round: int
    tries: int
    played: int


@dataclass(frozen=True)
class GameRow:
    """One stored game (a rotation of a group)."""

    id: int
    group_id: int
    rotation: int
    seats: tuple[int, ...]
    result: JobResult
    written: float
    pair: tuple[int, int]         #: the group's entrant ids (result indices 0 and 1)


_ENTRANT_COLS = "id, name, version, owner, kind, spec, code_hash, note, created, retired"


class LadderStore(SQLiteFile):
    """A ladder's database, opened and checked as every :class:`SQLiteFile`."""

    KIND = "ladder database"
    CREATE_HINT = "create the ladder with `pengyou ladder create`"
    OTHER = "use another --ladder"
    APPLICATION_ID = 0x5047594C          # "PGYL"
    SCHEMA_VERSION = 1
    SCHEMA = _SCHEMA
    TABLES = ("ladder", "owners", "entrants", "groups", "games", "faults", "ratings", "runner")

    def __init__(self, path: Any, create: bool = True, busy_timeout: float = 5.0, read_only: bool = False,
                 quick_check: bool = True) -> None:
        super().__init__(path, create, busy_timeout, read_only, quick_check)
        if not read_only:
            with self._errors(), self._transaction() as con:
                if con.execute("SELECT 1 FROM sqlite_master WHERE name = 'open_groups'").fetchone() is None:
                    for statement in _TALLIES.split(";"):
                        con.execute(statement)

    def _json(self, text: Any, what: str) -> Any:
        """``text`` decoded, or the one-line "damaged" error naming ``what``."""
        try:
            return json.loads(text)
        except (TypeError, ValueError):
            raise ArenaError(f"{self.path} is damaged ({what} is not JSON); it was left as it is: "
                             "restore a copy") from None

    # ------------------------------------------------------------------ the ladder

    def init(self, rules: dict[str, Any], secret: Optional[str] = None) -> None:
        """Set the ladder's rules and secret, once."""
        with self._errors(), self._transaction() as con:
            if con.execute("SELECT 1 FROM ladder").fetchone():
                raise ArenaError(f"{self.path}: the ladder exists already")
            con.execute("INSERT INTO ladder VALUES (1, ?, ?, ?)",
                        (json.dumps(rules, sort_keys=True), secret or secrets.token_hex(32), time.time()))

    def rules(self) -> dict[str, Any]:
        """The ladder's rules as set at its creation."""
        with self._errors():
            row = self._db.execute("SELECT rules_json FROM ladder").fetchone()
        if row is None:
            raise ArenaError(f"{self.path}: the ladder was never set up; {self.CREATE_HINT}")
        rules = self._json(row[0], "the ladder's rules")
        if not isinstance(rules, dict):
            raise ArenaError(f"{self.path} is damaged (the ladder's rules are not an object); it was left as it "
                             "is: restore a copy")
        return rules

    def secret(self) -> bytes:
        """The ladder's secret (keys the shuffles and the bots' seeds)."""
        with self._errors():
            row = self._db.execute("SELECT secret FROM ladder").fetchone()
        if row is None:
            raise ArenaError(f"{self.path}: the ladder was never set up; {self.CREATE_HINT}")
        return str(row[0]).encode()

    # ------------------------------------------------------------------ owners

    def add_owner(self, name: str, token: str) -> None:
        """Give ``name`` the token ``token`` (kept hashed); replaces an owner's old token."""
        with self._errors(), self._transaction() as con:
            con.execute("INSERT INTO owners VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET "
                        "token_hash = excluded.token_hash", (name, hash_token(token), time.time()))

    def owner_of_token(self, token: str) -> Optional[str]:
        """The owner whose token this is, or None."""
        want = hash_token(token)
        with self._errors():
            rows = self._db.execute("SELECT name, token_hash FROM owners").fetchall()
        found = None
        for name, have in rows:                 # compare every row, in constant time each
            if hmac.compare_digest(str(have), want):
                found = str(name)
        return found

    def owners(self) -> list[str]:
        """Every owner's name."""
        with self._errors():
            return [str(r[0]) for r in self._db.execute("SELECT name FROM owners ORDER BY name")]

    # ------------------------------------------------------------------ entrants

    def add_entrant(self, name: str, owner: str, kind: str, spec: str, code_hash: str, note: str,
                    place: Optional[Callable[[int], str]] = None) -> EntrantRow:
        """A new version of ``name`` (version 1 if new). Raises
        :class:`ArenaError` if another owner has the name.

        ``place(id)``, if given, is called inside the write transaction with
        the id the row gets (no other writer can take it meanwhile) and
        returns the spec to store: it puts the version's files where the
        spec says; if it raises, nothing is stored."""
        if kind not in KINDS:
            raise ArenaError(f"kind {kind!r} is not one of {', '.join(KINDS)}")
        with self._errors(), self._transaction() as con:
            row = con.execute("SELECT owner, max(version) FROM entrants WHERE name = ?", (name,)).fetchone()
            if row is not None and row[0] is not None and row[0] != owner:
                raise ArenaError(f"the name {name!r} belongs to another owner; choose another name")
            version = 1 if row is None or row[1] is None else int(row[1]) + 1
            new_id = 1 + int(con.execute("SELECT max(id) FROM entrants").fetchone()[0] or 0)
            if place is not None:
                spec = place(new_id)
            con.execute(f"INSERT INTO entrants ({_ENTRANT_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
                        (new_id, name, version, owner, kind, spec, code_hash, note, time.time()))
        return self.entrant(new_id)

    def name_owner(self, name: str) -> Optional[str]:
        """Who owns the entrant name ``name`` (None: nobody yet)."""
        with self._errors():
            row = self._db.execute("SELECT owner FROM entrants WHERE name = ? LIMIT 1", (name,)).fetchone()
        return None if row is None else str(row[0])

    def entrant(self, entrant_id: int) -> EntrantRow:
        """One entrant version by id."""
        with self._errors():
            row = self._db.execute(f"SELECT {_ENTRANT_COLS} FROM entrants WHERE id = ?", (entrant_id,)).fetchone()
        if row is None:
            raise ArenaError(f"no entrant with id {entrant_id}")
        return EntrantRow(*row)

    def entrants(self, active: bool = False) -> list[EntrantRow]:
        """Every entrant version, oldest first (``active``: not retired)."""
        where = " WHERE retired IS NULL" if active else ""
        with self._errors():
            rows = self._db.execute(f"SELECT {_ENTRANT_COLS} FROM entrants{where} ORDER BY id").fetchall()
        return [EntrantRow(*r) for r in rows]

    def versions(self, name: str) -> list[EntrantRow]:
        """Every version of ``name``, oldest first."""
        with self._errors():
            rows = self._db.execute(f"SELECT {_ENTRANT_COLS} FROM entrants WHERE name = ? ORDER BY version",
                                    (name,)).fetchall()
        return [EntrantRow(*r) for r in rows]

    def retire(self, name: str, owner: str, version: Optional[int] = None) -> list[EntrantRow]:
        """Retire ``name`` (every active version, or only ``version``) for
        its owner; the retired rows. Raises :class:`ArenaError` for an
        unknown name or version, or another owner's name."""
        rows = self.versions(name)
        if not rows:
            raise ArenaError(f"no entrant named {name!r}")
        if rows[0].owner != owner:
            raise ArenaError(f"the entrant {name!r} belongs to another owner")
        chosen = [r for r in rows if version is None or r.version == version]
        if not chosen:
            raise ArenaError(f"{name!r} has no version {version}")
        now = time.time()
        with self._errors(), self._transaction() as con:
            for r in chosen:
                con.execute("UPDATE entrants SET retired = ? WHERE id = ? AND retired IS NULL", (now, r.id))
        return [self.entrant(r.id) for r in chosen]

    # ------------------------------------------------------------------ groups and games

    def add_groups(self, pairs: Sequence[tuple[int, int]], rotations: int, round_no: int) -> list[GroupRow]:
        """Schedule one group per pair, in one transaction; their seeds are
        their ids (the secret keys the shuffle)."""
        now = time.time()
        ids = []
        with self._errors(), self._transaction() as con:
            for a, b in pairs:
                cur = con.execute("INSERT INTO groups (seed, a, b, rotations, round, created) "
                                  "VALUES (0, ?, ?, ?, ?, ?)", (a, b, rotations, round_no, now))
                gid = int(cur.lastrowid or 0)
                con.execute("UPDATE groups SET seed = id WHERE id = ?", (gid,))
                con.execute("INSERT INTO open_groups VALUES (?)", (gid,))
                ids.append(gid)
        new = set(ids)
        return [g for g in self.open_groups() if g.id in new]

    def open_groups(self) -> list[GroupRow]:
        """Groups with rotations left to play (not abandoned), oldest first."""
        with self._errors():
            rows = self._db.execute(
                "SELECT g.id, g.seed, g.a, g.b, g.rotations, g.round, g.tries, "
                "(SELECT count(*) FROM games m WHERE m.group_id = g.id) FROM open_groups o "
                "CROSS JOIN groups g ON g.id = o.id ORDER BY o.id").fetchall()
        return [GroupRow(*r) for r in rows]

    def played_rotations(self, group_id: int) -> set[int]:
        """The rotations of a group that have a game."""
        with self._errors():
            return {int(r[0]) for r in self._db.execute("SELECT rotation FROM games WHERE group_id = ?",
                                                         (group_id,))}

    def tried(self, group_id: int, abandon_after: int) -> bool:
        """Count one more try of a group; True if it is abandoned now."""
        with self._errors(), self._transaction() as con:
            con.execute("UPDATE groups SET tries = tries + 1 WHERE id = ?", (group_id,))
            con.execute("UPDATE groups SET abandoned = 1 WHERE id = ? AND tries >= ?", (group_id, abandon_after))
            row = con.execute("SELECT abandoned FROM groups WHERE id = ?", (group_id,)).fetchone()
            if row and row[0]:
                con.execute("DELETE FROM open_groups WHERE id = ?", (group_id,))
        return bool(row and row[0])

    def rounds(self) -> int:
        """The last scheduling round's number (0: none yet)."""
        with self._errors():
            row = self._db.execute("SELECT round FROM groups WHERE id = (SELECT max(id) FROM groups)").fetchone()
        return int(row[0] or 0) if row else 0

    def add_game(self, group: GroupRow, rotation: int, result: JobResult) -> bool:
        """Store one game; False if that rotation of the group was stored already."""
        return self.add_games([(group, rotation, result)]) == 1

    def add_games(self, games: Sequence[tuple[GroupRow, int, JobResult]]) -> int:
        """Store games (group, rotation, result) in one transaction, with the
        tallies the scheduler reads; how many were new (a rotation stored
        already is skipped)."""
        added = 0
        with self._errors(), self._transaction() as con:
            for group, rotation, result in games:
                pair = (group.a, group.b)
                seats = [pair[e] for e in result.seats]
                data = result.to_json()
                record = str(data.pop("record", ""))
                cur = con.execute("INSERT OR IGNORE INTO games (group_id, rotation, seats_json, result_json, "
                                  "record, written) VALUES (?, ?, ?, ?, ?, ?)",
                                  (group.id, rotation, json.dumps(seats), json.dumps(data), record, time.time()))
                if cur.rowcount == 0:
                    continue
                added += 1
                gid = int(cur.lastrowid or 0)
                for e in pair:
                    con.execute("INSERT INTO played VALUES (?, 1) ON CONFLICT (entrant) DO UPDATE SET "
                                "games = games + 1", (e,))
                for a, b in {pair, pair[::-1]}:
                    con.execute("INSERT INTO met VALUES (?, ?, 1) ON CONFLICT (a, b) DO UPDATE SET "
                                "games = games + 1", (a, b))
                if con.execute("SELECT count(*) FROM games WHERE group_id = ?", (group.id,)).fetchone()[0] >= \
                        group.rotations:
                    con.execute("DELETE FROM open_groups WHERE id = ?", (group.id,))
                for f in result.faults:
                    con.execute("INSERT INTO faults VALUES (?, ?, ?, ?, ?)",
                                (gid, pair[f.entrant] if 0 <= f.entrant < 2 else -1, f.seat, f.kind, f.message))
        return added

    def _game_rows(self, where: str, args: tuple) -> list[GameRow]:
        with self._errors():
            rows = self._db.execute(
                "SELECT m.id, m.group_id, m.rotation, m.seats_json, m.result_json, m.written, g.a, g.b "
                f"FROM games m JOIN groups g ON g.id = m.group_id {where}", args).fetchall()
        out = []
        for gid, group_id, rot, seats, res, written, a, b in rows:
            try:
                result = JobResult.from_json(json.loads(res))
                seat_ids = tuple(int(x) for x in json.loads(seats))
            except (ValueError, KeyError, TypeError) as exc:
                raise ArenaError(f"{self.path} is damaged (game {gid}: {type(exc).__name__}); "
                                 "it was left as it is: restore a copy") from None
            out.append(GameRow(int(gid), int(group_id), int(rot), seat_ids, result, float(written), (int(a), int(b))))
        return out

    def games(self) -> list[GameRow]:
        """Every game, in the order written."""
        return self._game_rows("ORDER BY m.id", ())

    def games_of(self, entrant_id: int, limit: int = 20) -> list[GameRow]:
        """The latest games ``entrant_id`` sat in, newest first."""
        return self._game_rows("WHERE g.a = ? OR g.b = ? ORDER BY m.id DESC LIMIT ?",
                               (entrant_id, entrant_id, limit))

    def game(self, game_id: int) -> tuple[GameRow, str]:
        """One game and its record."""
        found = self._game_rows("WHERE m.id = ?", (game_id,))
        if not found:
            raise ArenaError(f"no game {game_id}")
        with self._errors():
            row = self._db.execute("SELECT record FROM games WHERE id = ?", (game_id,)).fetchone()
        return found[0], str(row[0])

    def game_of(self, group_id: int, rotation: int) -> Optional[int]:
        """The id of the game of a group's rotation (None: not played)."""
        with self._errors():
            row = self._db.execute("SELECT id FROM games WHERE group_id = ? AND rotation = ?",
                                   (group_id, rotation)).fetchone()
        return None if row is None else int(row[0])

    def meetings(self) -> dict[tuple[int, int], int]:
        """How many games each pair of entrant ids (lower id first) has played
        (from the kept tallies: one row a pair, however many games)."""
        with self._errors():
            rows = self._db.execute("SELECT a, b, games FROM met WHERE a <= b").fetchall()
        return {(int(a), int(b)): int(n) for a, b, n in rows}

    def meetings_of(self, entrant_id: int) -> dict[int, int]:
        """How many games ``entrant_id`` has played with each other entrant id
        (one indexed lookup, whatever the games stored)."""
        with self._errors():
            rows = self._db.execute("SELECT b, games FROM met WHERE a = ?", (entrant_id,)).fetchall()
        return {int(b): int(n) for b, n in rows}

    def deals_of_entrants(self) -> dict[int, int]:
        """How many games (deals) each entrant id has played (the kept tallies)."""
        with self._errors():
            if self._db.execute("SELECT 1 FROM sqlite_master WHERE name = 'played'").fetchone() is None:
                return {}                   # a ladder made before the tallies, opened read-only
            rows = self._db.execute("SELECT entrant, games FROM played").fetchall()
        return {int(e): int(n) for e, n in rows}

    def games_after(self, game_id: int) -> list[GameRow]:
        """The games written after game ``game_id``, in the order written."""
        return self._game_rows("WHERE m.id > ? ORDER BY m.id", (game_id,))

    def raw_games_after(self, game_id: int, limit: int) -> list[tuple[int, int, int, int, str]]:
        """(id, group id, entrant id a, entrant id b, result JSON) of at most
        ``limit`` games written after game ``game_id``, in the order written:
        what a refit reads, a batch at a time, without making objects."""
        with self._errors():
            rows = self._db.execute("SELECT m.id, m.group_id, g.a, g.b, m.result_json FROM games m JOIN groups g "
                                    "ON g.id = m.group_id WHERE m.id > ? ORDER BY m.id LIMIT ?",
                                    (game_id, limit)).fetchall()
        return [(int(i), int(gr), int(a), int(b), str(t)) for i, gr, a, b, t in rows]

    def fault_counts(self) -> dict[int, dict[str, int]]:
        """Each entrant id's faults by kind."""
        with self._errors():
            rows = self._db.execute("SELECT entrant, kind, count(*) FROM faults GROUP BY 1, 2").fetchall()
        out: dict[int, dict[str, int]] = {}
        for e, kind, n in rows:
            out.setdefault(int(e), {})[str(kind)] = int(n)
        return out

    def count_games(self) -> int:
        """How many games are stored."""
        with self._errors():          # ids are given in order and games never deleted: the largest is the count
            return int(self._db.execute("SELECT coalesce(max(id), 0) FROM games").fetchone()[0])

    def faults_of(self, entrant_id: int) -> list[tuple[int, Fault]]:
        """(game id, fault) of every fault of an entrant version."""
        with self._errors():
            rows = self._db.execute("SELECT game_id, seat, kind, message FROM faults WHERE entrant = ? "
                                    "ORDER BY game_id", (entrant_id,)).fetchall()
        return [(int(g), Fault(int(s), entrant_id, str(k), str(m))) for g, s, k, m in rows]

    # ------------------------------------------------------------------ ratings

    def add_ratings(self, games: int, rows: Iterable[dict[str, Any]]) -> None:
        """Keep the ratings after a round (``rows``: one dict per entrant, with ``id``)."""
        with self._errors(), self._transaction() as con:
            con.execute("INSERT INTO ratings (at, games, rows_json) VALUES (?, ?, ?)",
                        (time.time(), games, json.dumps(list(rows))))

    def latest_ratings(self) -> tuple[int, list[dict[str, Any]]]:
        """(games, rows) of the newest ratings; (0, []) before any."""
        with self._errors():
            row = self._db.execute("SELECT games, rows_json FROM ratings WHERE id = (SELECT max(id) FROM ratings)"
                                   ).fetchone()
        return (0, []) if row is None else (int(row[0]), self._rating_rows(row[1]))

    def rating_snapshots(self) -> list[tuple[float, int, list[dict[str, Any]]]]:
        """(time, games, rows) of every ratings snapshot, oldest first."""
        with self._errors():
            rows = self._db.execute("SELECT at, games, rows_json FROM ratings ORDER BY id").fetchall()
        return [(float(at), int(games), self._rating_rows(text)) for at, games, text in rows]

    def _rating_rows(self, text: str) -> list[dict[str, Any]]:
        rows = self._json(text, "a ratings snapshot")
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise ArenaError(f"{self.path} is damaged (a ratings snapshot is not a list of rows); it was left as "
                             "it is: restore a copy")
        return rows

    def rating_history(self, entrant_id: int) -> list[tuple[float, int, dict[str, Any]]]:
        """(time, games, row) of ``entrant_id`` in every ratings snapshot that has it."""
        return [(at, games, r) for at, games, rows in self.rating_snapshots() for r in rows
                if r.get("id") == entrant_id]

    # ------------------------------------------------------------------ the runner's claim

    def claim_runner(self, owner: str, host: str, pid: int, seconds: float,
                     alive: Any) -> Optional[tuple[str, int]]:
        """Become the ladder's one runner: None, or (host, pid) of the live
        runner that holds it (``alive(host, pid)`` says whether one lives)."""
        now = time.time()
        with self._errors(), self._transaction() as con:
            row = con.execute("SELECT owner, host, pid, expires FROM runner").fetchone()
            if row is not None and row[0] != owner and row[3] > now and alive(str(row[1]), int(row[2])):
                return str(row[1]), int(row[2])
            con.execute("INSERT OR REPLACE INTO runner VALUES (1, ?, ?, ?, ?)", (owner, host, pid, now + seconds))
        return None

    def release_runner(self, owner: str) -> None:
        """Give the runner's claim up."""
        with self._errors(), self._transaction() as con:
            con.execute("DELETE FROM runner WHERE owner = ?", (owner,))
