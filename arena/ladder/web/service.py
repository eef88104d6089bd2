"""The ladder as the web server's handlers ask for it: every read (the
ratings the runner kept after its last refit, never refitted here; the entrants; a game
and its record; a game's replay page), the owners' tokens, and the
submissions, each validated in a process of its own, :data:`VALIDATORS` of
them at once, at most :data:`MAX_WAITING` in all.

The reading methods are blocking and run on the service's worker threads
(:func:`run`), never on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import logging
import multiprocessing
import dataclasses
import math
import os
import re
import secrets
import signal
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, BinaryIO, Optional, TypeVar

from aiohttp import web

from ...types import ArenaError
from ..folder import NAME_RE, Ladder
from ..fits import RatingRow
from ..store import EntrantRow, GameRow, LadderStore
from ..files import remove
from .http import one_line

__all__ = ["Service", "Submission", "SERVICE", "service_of", "run", "rating_json", "validate", "validation_process",
           "SAMPLES", "RECENT_GAMES", "VALIDATORS", "MAX_WAITING", "KEPT_SUBMISSIONS", "LOG_BYTES"]

log = logging.getLogger("pengyou.ladder.server")

#: Bootstrap samples of the served ratings.
SAMPLES = 200

#: Games shown per entrant version.
RECENT_GAMES = 20

#: Validations run at once, each a whole deal of sandboxed bot processes:
#: more than the machine's few cores would only slow every one of them.
VALIDATORS = 2

#: Submissions queued or being validated at most, of all owners (more: 503,
#: try later); one owner has at most one of them (a second: 429).
MAX_WAITING = 8

#: Answered submissions whose status the server remembers (the oldest are forgotten first).
KEPT_SUBMISSIONS = 500

#: The most bytes of bot logs one answer of the logs endpoint holds.
LOG_BYTES = 256 << 10

_T = TypeVar("_T")

_JOB = re.compile(r"^--- job g([0-9]+)-r([0-9]+) ---$", re.M)


@dataclasses.dataclass
class Submission:
    """One submission the server took: validating, then accepted (its
    entrant) or refused (one line, the reason the validation gives)."""

    id: str
    name: str
    owner: str
    submitted: float
    state: str = "validating"                 #: ``validating``, ``accepted`` or ``refused``
    reason: str = ""                          #: why it was refused
    entrant: Optional[EntrantRow] = None      #: the version it became
    finished: Optional[float] = None
    status: int = 0                           #: the HTTP status of its answer, once answered (201, 400, ...)
    task: Optional[asyncio.Task[None]] = dataclasses.field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        """The status as the API gives it (times as epoch seconds; the API writes them as ISO 8601)."""
        out: dict[str, Any] = {"id": self.id, "state": self.state, "name": self.name, "owner": self.owner,
                               "submitted": self.submitted, "finished": self.finished,
                               "url": f"/submissions/{self.id}", "api": f"/api/submissions/{self.id}"}
        if self.entrant is not None:
            out["entrant"] = self.entrant.to_json()
            out["page"] = f"/entrants/{self.entrant.name}#v{self.entrant.version}"
            out["logs"] = f"/api/entrants/{self.entrant.name}/logs"
        if self.state == "refused":
            out["reason"] = self.reason
            out["http_status"] = self.status      # what ``?wait=1`` answers: 400, 403 or 500
        return out


class Service:
    """What the handlers ask of the ladder: every method is blocking and
    runs on a worker thread."""

    def __init__(self, ladder: Ladder, samples: int) -> None:
        self.ladder = ladder
        self.samples = samples
        self.reads = ThreadPoolExecutor(max_workers=4, thread_name_prefix="ladder-read")
        # the rest is used on the event loop only
        self.waiting = 0                                  # submissions queued or being validated
        self.owners: set[str] = set()                     # the owners of those (and of uploads coming in)
        self.slots = asyncio.Semaphore(VALIDATORS)
        self.processes: set[ProcessPoolExecutor] = set()  # validations under way
        self.submissions: OrderedDict[str, Submission] = OrderedDict()
        self._checked = False

    async def stop(self) -> None:
        """Cancel every submission still queued or being validated: kill its
        validation's process (its bots die with it) and remove its files."""
        tasks = [s.task for s in self.submissions.values() if s.task is not None and not s.task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def close(self) -> None:
        """End the reading threads (and any validation left: :meth:`stop` ends them first)."""
        self.reads.shutdown(wait=True, cancel_futures=True)
        for validation in list(self.processes):
            _kill(validation)

    # ---------------------------------------------------------------- ratings

    @contextlib.contextmanager
    def _store(self) -> Iterator[LadderStore]:
        """The ladder's database, read-only, for one request. The first
        opening checks every page; later ones skip that (it reads the whole
        file, so every request would cost more the more games it holds)."""
        with LadderStore(self.ladder.db, create=False, read_only=True, quick_check=not self._checked) as st:
            self._checked = True
            yield st

    def standings(self) -> tuple[int, list[RatingRow]]:
        """(games, rows): the ratings the runner kept after its last refit
        (the games they cover, 0 before any), best first; a version entered
        since (every version, before any ratings) is listed unrated, and a
        version retired since, as retired. Nothing is fitted here."""
        with self._store() as st:
            games, kept = st.latest_ratings()
            entrants = st.entrants()
            played = st.deals_of_entrants()
        rows = {int(r["id"]): RatingRow.from_json(r) for r in kept}
        out = []
        for e in entrants:
            r = rows.get(e.id)
            if r is None:
                r = RatingRow(e.id, e.label, e.name, e.version, e.owner, math.nan, -math.inf, math.inf,
                              played.get(e.id, 0), True, False, {})
            out.append(dataclasses.replace(r, label=e.label, name=e.name, version=e.version, owner=e.owner,
                                           retired=e.retired is not None))
        out.sort(key=lambda x: (math.isnan(x.elo), -x.elo if not math.isnan(x.elo) else 0.0, x.id))
        return games, out

    def info(self) -> dict[str, Any]:
        """The ladder's rules and counts (games, versions, active ones, names)."""
        with self._store() as st:
            games = st.count_games()
            rows = st.entrants()
        return {"rules": self.ladder.rules.to_json(), "games": games, "versions": len(rows),
                "active": sum(1 for r in rows if r.retired is None),
                "names": len({r.name for r in rows})}

    def entrants(self) -> dict[str, Any]:
        """Every version with its rating."""
        games, table = self.standings()
        by_id = {r.id: r for r in table}
        with self._store() as st:
            rows = st.entrants()
        return {"games": games, "entrants": [dict(r.to_json(), rating=rating_json(by_id.get(r.id))) for r in rows]}

    # ---------------------------------------------------------------- entrants and games

    def entrant(self, name: str) -> Optional[dict[str, Any]]:
        """Everything about ``name``'s versions (None: no such entrant)."""
        if not NAME_RE.fullmatch(name):
            return None
        games, table = self.standings()
        by_id = {r.id: r for r in table}
        with self._store() as st:
            versions = st.versions(name)
            if not versions:
                return None
            everyone = {e.id: e for e in st.entrants()}
            out = []
            for v in reversed(versions):                  # the newest first
                faults: dict[str, dict[str, Any]] = {}
                for game_id, f in st.faults_of(v.id):
                    entry = faults.setdefault(f.kind, {"count": 0, "games": []})
                    entry["count"] += 1
                    if game_id not in entry["games"]:
                        entry["games"].append(game_id)
                history = [{"at": at, "games": n, "elo": r.get("elo"), "lo": r.get("lo"), "hi": r.get("hi"),
                            "deals": r.get("deals")} for at, n, r in st.rating_history(v.id)]
                recent = [self.game_json(g, everyone) for g in st.games_of(v.id, RECENT_GAMES)]
                out.append(dict(v.to_json(), rating=rating_json(by_id.get(v.id)), history=history,
                                faults=faults, games=recent))
        return {"name": name, "owner": versions[0].owner, "games": games, "versions": out}

    def game_json(self, g: GameRow, everyone: dict[int, EntrantRow]) -> dict[str, Any]:
        """A game's summary: seats, the deal's outcome, each entrant's score, faults."""
        def label(eid: int) -> Optional[str]:
            e = everyone.get(eid)
            return None if e is None else e.label

        deal = g.result.deals[0] if g.result.deals else None
        sides = []
        for k, eid in enumerate(g.pair):
            seats = [s for s, x in enumerate(g.seats) if x == eid]
            points = sum(deal.game_points[s] for s in seats) if deal is not None else 0
            e = everyone.get(eid)
            sides.append({"id": eid, "label": label(eid), "name": None if e is None else e.name, "seats": seats,
                          "points": points,
                          "faults": sum(1 for f in g.result.faults if f.entrant == k)})
        faults = [{"seat": f.seat, "entrant": g.pair[f.entrant] if 0 <= f.entrant < 2 else None,
                   "label": label(g.pair[f.entrant]) if 0 <= f.entrant < 2 else None,
                   "kind": f.kind, "message": one_line(f.message, self.ladder.folder), "decision": f.decision}
                  for f in g.result.faults]
        outcome = None if deal is None else {
            "maker": deal.maker, "maker_side": list(deal.maker_side), "maker_won": deal.maker_won,
            "opponents_points": deal.opponents_points, "total_points": deal.total_points,
            "game_points": list(deal.game_points), "forfeit": deal.forfeit if deal.forfeit >= 0 else None}
        return {"id": g.id, "group": g.group_id, "rotation": g.rotation, "written": g.written,
                "seats": [{"seat": s, "entrant": eid, "label": label(eid)} for s, eid in enumerate(g.seats)],
                "entrants": sides, "deal": outcome, "faults": faults,
                "viewer": f"/games/{g.id}", "record": f"/api/games/{g.id}/record"}

    def _stored_game(self, game_id: int) -> Optional[tuple[GameRow, str, dict[int, EntrantRow]]]:
        """(game, record text, every entrant version by id) of a game, or None."""
        with self._store() as st:
            try:
                g, record = st.game(game_id)
            except ArenaError as exc:
                if str(exc) == f"no game {game_id}":
                    return None
                raise
            return g, record, {e.id: e for e in st.entrants()}

    def game(self, game_id: int) -> Optional[tuple[dict[str, Any], str]]:
        """(summary, record text) of a game, or None."""
        found = self._stored_game(game_id)
        return None if found is None else (self.game_json(found[0], found[2]), found[1])

    def viewer(self, game_id: int) -> Optional[str]:
        """The replay page of a game, or None (no such game, or no record)."""
        from core.records import read_records

        from ...render.viewer import page, with_forfeits

        found = self._stored_game(game_id)
        if found is None or not found[1].strip():
            return None
        g, record, everyone = found
        summary = self.game_json(g, everyone)
        names = " vs ".join(str(s["label"]) for s in summary["entrants"])
        # a game stored before records told their forfeits gets them from its stored result
        records = with_forfeits(read_records(io.StringIO(record)), g.result)
        return page(records, f"ladder game {game_id}: {names}")

    # ---------------------------------------------------------------- acting

    def owner_of(self, token: str) -> Optional[str]:
        """The owner holding ``token`` (None: no one)."""
        with self._store() as st:
            return st.owner_of_token(token)

    def versions(self, name: str) -> list[EntrantRow]:
        """The versions of ``name``, oldest first."""
        with self._store() as st:
            return st.versions(name)

    async def submit(self, data: BinaryIO, filename: str, name: str, owner: str, cls: Optional[str],
                     note: str, entry: Optional[str] = None) -> EntrantRow:
        """Validate and enter a submission, once one of the :data:`VALIDATORS`
        slots is free, in a fresh process: the referee's pool of bot processes
        is one per process, and a submission that exhausts or kills its
        process fails alone. Cancelled, it kills that process (and so its
        bots) and removes the files it had taken in."""
        async with self.slots:
            data.seek(0)
            payload = data.read()
            key = secrets.token_hex(8)
            validation = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=validation_process)
            self.processes.add(validation)
            future = None
            try:
                future = validation.submit(validate, self.ladder.folder, payload, filename, name, owner, cls,
                                           note, entry, key)
                del payload
                return await asyncio.wrap_future(future)
            finally:
                if future is not None and not future.done():      # cancelled: the server stops
                    await asyncio.get_running_loop().run_in_executor(None, _kill, validation)
                    remove(self.ladder.staging(key))
                self.processes.discard(validation)
                validation.shutdown(wait=False)

    def start(self, data: BinaryIO, filename: str, name: str, owner: str, cls: Optional[str], note: str,
              entry: Optional[str], done: Callable[[], None]) -> Submission:
        """Take a submission and validate it in the background (:meth:`submit`);
        its :class:`Submission`, ``validating`` until it is answered. ``data``
        is read before this returns; ``done()`` is called once it is answered
        or cancelled."""
        data.seek(0)
        payload = io.BytesIO(data.read())
        sub = Submission(secrets.token_urlsafe(12), name, owner, time.time())

        async def validating() -> None:
            try:
                row = await self.submit(payload, filename, name, owner, cls, note, entry)
            except ArenaError as exc:
                sub.reason, sub.status = one_line(str(exc), self.ladder.folder), 400
                rows = await asyncio.get_running_loop().run_in_executor(self.reads, self.versions, name)
                if rows and rows[0].owner != owner:     # taken by another owner meanwhile
                    sub.reason, sub.status = f"the name {name!r} belongs to another owner", 403
                sub.state = "refused"
            except BrokenProcessPool:
                log.error("the validation of %s's %s ended without an answer: its process was killed", owner, name)
                sub.state, sub.status = "refused", 500
                sub.reason = "the validation ended without an answer; the error is in the server's log"
            except asyncio.CancelledError:
                sub.state, sub.status, sub.reason = "refused", 503, "the server stopped before the validation ended"
                raise
            else:
                sub.state, sub.status, sub.entrant = "accepted", 201, row
                log.info("%s submitted %s (entrant %d)", owner, row.label, row.id)
            finally:
                sub.finished = time.time()
                payload.close()
                done()

        self.submissions[sub.id] = sub
        while len(self.submissions) > KEPT_SUBMISSIONS:
            oldest = next(iter(self.submissions.values()))
            if oldest.state == "validating":
                break
            self.submissions.popitem(last=False)
        sub.task = asyncio.get_running_loop().create_task(validating(), name=f"submission {sub.id}")
        return sub

    def full(self) -> bool:
        """Whether :data:`MAX_WAITING` submissions are queued or being validated."""
        return self.waiting >= MAX_WAITING

    def retire(self, name: str, owner: str, version: Optional[int]) -> list[EntrantRow]:
        """Retire ``version`` of ``name`` (every version for None)."""
        return self.ladder.retire(name, owner, version)

    def logs(self, rows: list[EntrantRow], limit: int = LOG_BYTES) -> list[dict[str, Any]]:
        """What the versions ``rows`` wrote to stderr in their games, the
        newest version and the latest games first, each game's piece with
        its seat and game id, at most ``limit`` bytes in all (the rest is
        left out and said to be)."""
        from ...table.remote import log_name

        left = limit
        out = []
        with self._store() as st:
            for row in sorted(rows, key=lambda r: -r.version):
                folder = os.path.join(self.ladder.folder, "logs", log_name(row.label))
                pieces: list[tuple[int, int, int, bytes]] = []     # (group, rotation, seat, text)
                try:
                    names = sorted(os.listdir(folder))
                except OSError:
                    names = []
                for fn in names:
                    m = re.fullmatch(r"seat-([0-9]+)\.log", fn)
                    if not m:
                        continue
                    try:
                        with open(os.path.join(folder, fn), "rb") as fh:
                            text = fh.read().decode("utf-8", "replace")
                    except OSError:
                        continue
                    heads = list(_JOB.finditer(text))
                    for k, h in enumerate(heads):
                        end = heads[k + 1].start() if k + 1 < len(heads) else len(text)
                        pieces.append((int(h[1]), int(h[2]), int(m[1]), text[h.end():end].strip("\n").encode()))
                pieces.sort(key=lambda p: (-p[0], -p[1], p[2]))
                games = []
                truncated = False
                for group, rotation, seat, data in pieces:
                    if left <= 0:
                        truncated = True
                        break
                    cut = data[:left]
                    left -= len(cut)
                    games.append({"game": st.game_of(group, rotation), "group": group, "rotation": rotation,
                                  "seat": seat, "text": cut.decode("utf-8", "replace"),
                                  "truncated": len(cut) < len(data)})
                out.append({"id": row.id, "label": row.label, "version": row.version, "games": games,
                            "truncated": truncated or any(g["truncated"] for g in games)})
        return out


def _kill(validation: ProcessPoolExecutor) -> None:
    """Kill a validation's process (its sandbox and bots die with it) and wait for it to end."""
    procs = list((getattr(validation, "_processes", None) or {}).values())
    for p in procs:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            p.kill()
    for p in procs:
        with contextlib.suppress(OSError, ValueError, AttributeError, AssertionError):
            p.join(10)
    validation.shutdown(wait=True, cancel_futures=True)


def validation_process() -> None:
    """A validation's process: an interrupt of the server's terminal does not
    cut its validation short (the server ends it as it stops)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def validate(folder: str, data: bytes, filename: str, name: str, owner: str, cls: Optional[str], note: str,
             entry: Optional[str], key: Optional[str] = None) -> EntrantRow:
    """:meth:`Ladder.submit_file` in a validation's process (``key``: its staging folder's name)."""
    return Ladder(folder).submit_file(io.BytesIO(data), filename, name=name, owner=owner, cls=cls, note=note,
                                      entry=entry, key=key)


def rating_json(row: Optional[RatingRow]) -> Optional[dict[str, Any]]:
    """The API's rating of a version (None: not rated)."""
    if row is None:
        return None
    d = row.to_json()
    return {k: d[k] for k in ("elo", "lo", "hi", "deals", "provisional", "faults")}


#: Where the application keeps its :class:`Service`.
SERVICE = web.AppKey("service", Service)


def service_of(request: web.Request) -> Service:
    """The service of the request's application."""
    return request.app[SERVICE]


async def run(request: web.Request, fn: Callable[..., _T], *args: Any) -> _T:
    """``fn(*args)`` on one of the service's reading threads."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(service_of(request).reads, functools.partial(fn, *args))
