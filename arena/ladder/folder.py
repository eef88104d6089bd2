"""A ladder: a folder holding its database, its entrants' files and logs.

``FOLDER/ladder.db`` is the :class:`~arena.ladder.store.LadderStore`,
``FOLDER/bots/ID-KEY/`` the files of entrant version ``ID`` (read-only;
``KEY`` is the submission's own random name), and
``FOLDER/logs/`` what its bots wrote to stderr. The rules (preset, players,
rule settings, time per move and overage bank, memory) are fixed when the
ladder is created: every game of a ladder is played under the same ones.

Every submission is checked before it is accepted: its files are taken in
safely (:mod:`arena.ladder.files`), and it must play a whole validation
deal in the sandbox, holding every seat, within the ladder's limits and
with legal moves only; otherwise it is refused with one line and nothing of
it is kept.

>>> import tempfile, os
>>> folder = os.path.join(tempfile.mkdtemp(), "lad")
>>> lad = Ladder.create(folder, LadderRules(players=5))
>>> row = lad.submit_builtin("random", name="rnd", owner="admin")
>>> row.label, row.kind, [e.label for e in lad.entrants()]
('rnd', 'builtin', ['rnd'])
>>> Ladder(folder + "-nope")
Traceback (most recent call last):
...
arena.types.ArenaError: no ladder at ...-nope; create it with `pengyou ladder create`
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import re
import secrets
import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Optional

from core.rules import Rules

from ..table.settings import Limits, TableSettings
from ..tournament.spec import TournamentSpec
from ..types import ArenaError, Entrant
from . import files as _files
from .store import EntrantRow, LadderStore

__all__ = ["Ladder", "LadderRules", "DB_NAME", "NAME_RE", "validate_name"]

#: The database file in a ladder's folder.
DB_NAME = "ladder.db"

#: An entrant's name: letters, digits, ``_ . -``, up to 40.
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


def validate_name(name: str, what: str = "name") -> str:
    """``name`` if it is a valid entrant or owner name, else one-line :class:`ArenaError`."""
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        shown = str(name)[:40]
        raise ArenaError(f"{what} {shown!r}: use 1 to 40 letters, digits and _ . - (starting with a letter or digit)")
    return name


@dataclass(frozen=True)
class LadderRules:
    """What every game of a ladder is played under.

    ``time_limit`` seconds per decision plus ``overage`` banked per deal
    (the referee kills a bot past both); ``memory_mb`` per bot process;
    ``trusted``: ``"builtins"`` runs built-in entrants inside the referee
    (submissions are always sandboxed); ``upload_mb``: the largest upload
    the server takes; ``provisional``: deals before a rating loses its
    provisional mark; ``owner_active`` and ``owner_mb``: an owner's share,
    the most active versions of submitted bots and the most bytes of all
    its submitted versions' files (built-ins entered by the admin are not
    counted).
    """

    preset: str = "pagat"
    players: int = 6
    settings: tuple[tuple[str, Any], ...] = ()
    time_limit: float = 1.0
    overage: float = 10.0
    memory_mb: int = 1024
    trusted: str = "builtins"
    upload_mb: int = 8
    provisional: int = 40
    owner_active: int = 10
    owner_mb: int = 256

    def spec(self, entrants: tuple[Entrant, ...] = ()) -> TournamentSpec:
        """A tournament spec with these rules (for its checks and settings)."""
        return TournamentSpec(name="ladder", entrants=entrants, preset=self.preset, players=self.players,
                              settings=self.settings, time_limit=float(self.time_limit),
                              overage=float(self.overage), memory_mb=self.memory_mb, trusted=self.trusted)

    def rules(self) -> Rules:
        """The game's rules."""
        return self.spec().rules()

    def limits(self) -> Limits:
        """The sandbox's limits."""
        return self.spec().limits()

    def table_settings(self, secret: bytes) -> TableSettings:
        """The settings of the ladder's tables, with its ``secret``."""
        return self.spec().table_settings(secret)

    def validate(self) -> None:
        """Check every field (one-line :class:`ArenaError`)."""
        self.spec((Entrant("a", "random"), Entrant("b", "random"))).validate()
        if not isinstance(self.upload_mb, int) or not 1 <= self.upload_mb <= 256:
            raise ArenaError(f"upload_mb: {self.upload_mb!r} is not from 1 to 256")
        if not isinstance(self.provisional, int) or not 0 <= self.provisional <= 100_000:
            raise ArenaError(f"provisional: {self.provisional!r} is not a number of deals from 0 to 100000")
        if not isinstance(self.owner_active, int) or not 1 <= self.owner_active <= 1000:
            raise ArenaError(f"owner_active: {self.owner_active!r} is not from 1 to 1000")
        if not isinstance(self.owner_mb, int) or not 1 <= self.owner_mb <= 1 << 20:
            raise ArenaError(f"owner_mb: {self.owner_mb!r} is not a number of MiB from 1 to 1048576")
        if self.time_limit <= 0 or not math.isfinite(self.time_limit):
            raise ArenaError("time_limit: a ladder needs a time limit per move above 0")

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form."""
        d = dataclasses.asdict(self)
        d["settings"] = [list(p) for p in self.settings]
        return d

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> LadderRules:
        """Inverse of :meth:`to_json`."""
        kw = {f.name: obj[f.name] for f in dataclasses.fields(cls) if f.name in obj}
        kw["settings"] = tuple(tuple(p) for p in kw.get("settings", ()))
        return cls(**kw)


class Ladder:
    """An existing ladder's folder (:meth:`create` makes one)."""

    def __init__(self, folder: str) -> None:
        self.folder = os.path.abspath(folder)
        self.db = os.path.join(self.folder, DB_NAME)
        if not os.path.isfile(self.db):
            raise ArenaError(f"no ladder at {folder}; create it with `pengyou ladder create`")
        with self.store(read_only=True) as st:
            stored = st.rules()
        try:
            self.rules = LadderRules.from_json(stored)
            self.rules.validate()
        except (ArenaError, TypeError, ValueError) as exc:
            raise ArenaError(f"{self.db} is damaged (its rules: {str(exc).splitlines()[0] if str(exc) else exc!r}); "
                             "it was left as it is: restore a copy") from None

    @classmethod
    def create(cls, folder: str, rules: LadderRules, secret: Optional[str] = None) -> Ladder:
        """Make a new ladder in ``folder`` (which must not hold one)."""
        rules.validate()
        if os.path.exists(os.path.join(folder, DB_NAME)):
            raise ArenaError(f"{folder} holds a ladder already")
        parent = os.path.dirname(os.path.abspath(folder))
        if not os.path.isdir(parent):
            raise ArenaError(f"cannot create the ladder {folder}: {parent} is not a folder")
        os.makedirs(os.path.join(folder, "bots"), exist_ok=True)
        os.makedirs(os.path.join(folder, "logs"), exist_ok=True)
        with LadderStore(os.path.join(folder, DB_NAME)) as st:
            st.init(rules.to_json(), secret)
        return cls(folder)

    @contextlib.contextmanager
    def store(self, read_only: bool = False) -> Iterator[LadderStore]:
        """The ladder's database, open for the ``with`` block."""
        with LadderStore(self.db, create=False, read_only=read_only) as st:
            yield st

    # ------------------------------------------------------------------ entrants

    def spec_of(self, row: EntrantRow) -> str:
        """The bot spec that plays ``row`` (files found in this folder)."""
        if row.kind == "builtin":
            return row.spec
        if row.kind == "module":
            rel, _, cls = row.spec.rpartition(":")
            return f"{os.path.join(self.folder, rel)}:{cls}"
        path = shlex.quote(os.path.join(self.folder, row.spec))
        if row.spec.endswith(".py"):            # a Python script is run by this Python, in any sandbox
            return f"cmd:{shlex.quote(sys.executable)} {path}"
        return f"cmd:{path}"

    def entrant_of(self, row: EntrantRow) -> Entrant:
        """The arena entrant that plays ``row``."""
        return Entrant(row.label, self.spec_of(row))

    def entrants(self, active: bool = False) -> list[EntrantRow]:
        """Every entrant version (``active``: not retired)."""
        with self.store(read_only=True) as st:
            return st.entrants(active)

    def _check_name(self, st: LadderStore, name: str, owner: str) -> None:
        validate_name(name)
        validate_name(owner, "owner")
        have = st.name_owner(name)
        if have is not None and have != owner:
            raise ArenaError(f"the name {name!r} belongs to another owner; choose another name")

    def submit_builtin(self, spec: str, *, name: str, owner: str, note: str = "") -> EntrantRow:
        """Enter a built-in bot (``ismcts:iterations=200``); an admin's act,
        never the server's (a built-in runs in the referee)."""
        from ..table.entrants import BotRef

        ref = BotRef.parse(spec)
        if ref.kind != "builtin":
            raise ArenaError(f"{spec!r} is not a built-in bot: submit its file instead")
        entrant = Entrant(name, spec)
        self.rules.spec((entrant, Entrant("~other", "random"))).validate()
        with self.store() as st:
            self._check_name(st, name, owner)
            return st.add_entrant(name, owner, "builtin", spec, ref.code_hash(), _note(note))

    def submit(self, source: str, *, name: str, owner: str, cls: Optional[str] = None,
               entry: Optional[str] = None, note: str = "", program: Optional[bool] = None) -> EntrantRow:
        """Submit a module (``bot.py``, with ``cls`` or its one bot class), a
        program, a folder or a zip; validated, then a new version of ``name``.

        ``program``: whether the entry is a program speaking the protocol
        (None: a ``.py`` entry is a module if it defines a class with
        ``step()``, else a Python program; any other entry is a program)."""
        return self._accept(lambda folder: _files.take(source, folder, entry), name, owner, cls, note, program)

    def submit_zip(self, data: Any, *, name: str, owner: str, cls: Optional[str] = None,
                   entry: Optional[str] = None, note: str = "", program: Optional[bool] = None) -> EntrantRow:
        """:meth:`submit` for a zip archive given as a binary stream (an upload)."""
        return self._accept(lambda folder: _files.take_zip(data, folder, entry), name, owner, cls, note, program)

    def submit_file(self, data: Any, filename: str, *, name: str, owner: str, cls: Optional[str] = None,
                    note: str = "", entry: Optional[str] = None, program: Optional[bool] = None,
                    key: Optional[str] = None) -> EntrantRow:
        """:meth:`submit` for one uploaded file (a binary stream and its name).
        ``key``: the name of its staging folder, ``bots/.new-KEY`` (default:
        a random one), for a caller that may have to remove it after a kill."""
        base = _files.safe_name(os.path.basename(filename.replace("\\", "/")) or "bot")
        if base.endswith(".zip"):
            return self._accept(lambda folder: _files.take_zip(data, folder, entry), name, owner, cls, note,
                                program, key)
        return self._accept(lambda folder: _files.take_stream(data, base, folder), name, owner, cls, note,
                            program, key)

    def staging(self, key: str) -> str:
        """The staging folder of a submission's ``key`` (see :meth:`submit_file`)."""
        return os.path.join(self.folder, "bots", f".new-{key}")

    def _accept(self, take: Any, name: str, owner: str, cls: Optional[str], note: str,
                program: Optional[bool] = None, key: Optional[str] = None) -> EntrantRow:
        with self.store(read_only=True) as st:     # refused before its files are taken in
            self._check_name(st, name, owner)
            mine = [e for e in st.entrants() if e.owner == owner and e.kind != "builtin"]
        bots = os.path.join(self.folder, "bots")
        key = key or secrets.token_hex(8)
        staging = self.staging(key)
        taken = take(staging)
        try:
            kind = taken.kind
            if kind == "module":
                found = _files.bot_classes(os.path.join(staging, taken.entry), cls is not None)
                if program is None:
                    program = found == [] and cls is None
                kind = "program" if program else "module"
            elif program is False:
                raise ArenaError(f"{taken.entry} is not a Python module (.py)")
            if kind == "module":
                if cls is None:
                    if found is None or len(found) != 1:
                        raise ArenaError(f"{taken.entry}: name the bot class ({', '.join(found or []) or 'none'} "
                                         "define step()): FILE:Class")
                    cls = found[0]
                elif found is not None and cls not in found:
                    raise ArenaError(f"{taken.entry} has no class {cls!r} with a step() method")
                stored = f"{taken.entry}:{cls}"
            elif cls is not None:
                raise ArenaError(f"{taken.entry} is a program, not a Python module: it has no class to name")
            else:
                stored = taken.entry
            code = _files.folder_hash(staging)
            self._check_quota(mine, name, code, taken.size)
            probe = EntrantRow(0, name, 0, owner, kind, os.path.join("bots", f".new-{key}", stored), code, "",
                               0.0, None)
            problem = validate_entrant(self, probe)
            if problem is not None:
                raise ArenaError(f"refused: {problem}")

            def place(new_id: int) -> str:
                # called with the id reserved; the folder's name is this submission's own, so no
                # other submission can ever take it or remove it
                nonlocal staging
                final = os.path.join(bots, f"{new_id}-{key}")
                os.chmod(staging, 0o755)
                os.rename(staging, final)
                os.chmod(final, 0o555)
                staging = final
                return os.path.join("bots", f"{new_id}-{key}", stored)

            with self.store() as st:           # refuses a name another owner took meanwhile
                return st.add_entrant(name, owner, kind, "", code, _note(note), place=place)
        except BaseException:
            _files.remove(staging)
            raise

    def _check_quota(self, mine: list[EntrantRow], name: str, code: str, size: int) -> None:
        """Refuse a submission over its owner's share of the ladder: the same
        code as an active version of the name, ``owner_active`` active
        versions already, or more than ``owner_mb`` of files in all."""
        for e in mine:
            if e.name == name and e.code_hash == code and e.retired is None:
                raise ArenaError(f"refused: the same code as {e.label}, which is still playing")
        active = sum(1 for e in mine if e.retired is None)
        if active >= self.rules.owner_active:
            raise ArenaError(f"refused: its owner has {active} active versions, the ladder's most; "
                             "retire one first")
        used = size + sum(_files.folder_size(self.files_of(e)) for e in mine)
        if used > self.rules.owner_mb << 20:
            raise ArenaError(f"refused: its owner's versions would hold {used / (1 << 20):.1f} MiB, over the "
                             f"ladder's {self.rules.owner_mb} MiB an owner")

    def files_of(self, row: EntrantRow) -> str:
        """The folder of a submitted version's files ("" for a built-in)."""
        if row.kind == "builtin":
            return ""
        parts = row.spec.replace(os.sep, "/").split("/")
        return os.path.join(self.folder, *parts[:2]) if len(parts) >= 3 and parts[0] == "bots" else ""

    def retire(self, name: str, owner: str, version: Optional[int] = None) -> list[EntrantRow]:
        """Retire an owner's entrant (every version, or one)."""
        with self.store() as st:
            return st.retire(name, owner, version)


def _note(note: str) -> str:
    return " ".join(str(note).split())[:200]


def validate_entrant(ladder: Ladder, row: EntrantRow, seed: Optional[int] = None) -> Optional[str]:
    """Play one deal with ``row`` in every seat, sandboxed, under the
    ladder's limits: None if it played it through with legal moves in time,
    else one line saying why not."""
    from ..table.remote import close_pool
    from ..tournament.jobs import Failed, JobItem, executor_for, play_jobs
    from ..types import Job

    rules = ladder.rules
    settings = dataclasses.replace(rules.table_settings(secrets.token_bytes(16)), trusted="none", record=False)
    job = Job(0, "validation", 0, seed if seed is not None else secrets.randbelow(1 << 30), 0, 0,
              (0,) * rules.players)
    try:
        settings.check()
        with executor_for(settings, workers=1) as ex:
            out = next(play_jobs([JobItem(job, (ladder.entrant_of(row),))], settings, ex))
    except ArenaError as exc:
        return str(exc)
    finally:
        close_pool()
    if isinstance(out, Failed):
        return f"the validation deal: {out.reason}"
    res = out.result
    if res.faults:
        f = res.faults[0]
        return f"the validation deal: seat {f.seat}: {f.kind}: {f.message}"
    return None
