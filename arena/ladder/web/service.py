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
import multiprocessing
import dataclasses
import math
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any, BinaryIO, Optional, TypeVar

from aiohttp import web

from ...types import ArenaError
from ..folder import NAME_RE, Ladder
from ..rounds import RatingRow
from ..store import EntrantRow, GameRow, LadderStore
from .http import one_line

__all__ = ["Service", "SERVICE", "service_of", "run", "rating_json", "validate", "validation_process", "SAMPLES",
           "RECENT_GAMES", "VALIDATORS", "MAX_WAITING"]

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

_T = TypeVar("_T")


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
        self._checked = False

    def close(self) -> None:
        """End the reading threads; a validation under way finishes first."""
        self.reads.shutdown(wait=True, cancel_futures=True)
        for validation in list(self.processes):           # a validation under way finishes
            validation.shutdown(wait=True, cancel_futures=True)

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

    def game(self, game_id: int) -> Optional[tuple[dict[str, Any], str]]:
        """(summary, record text) of a game, or None."""
        with self._store() as st:
            try:
                g, record = st.game(game_id)
            except ArenaError as exc:
                if str(exc) == f"no game {game_id}":
                    return None
                raise
            everyone = {e.id: e for e in st.entrants()}
        return self.game_json(g, everyone), record

    def viewer(self, game_id: int) -> Optional[str]:
        """The replay page of a game, or None (no such game, or no record)."""
        from core.records import read_records

        from ...render.viewer import page

        found = self.game(game_id)
        if found is None or not found[1].strip():
            return None
        summary, record = found
        names = " vs ".join(str(s["label"]) for s in summary["entrants"])
        return page(read_records(io.StringIO(record)), f"ladder game {game_id}: {names}")

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
        process fails alone."""
        async with self.slots:
            data.seek(0)
            payload = data.read()
            validation = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=validation_process)
            self.processes.add(validation)
            future = None
            try:
                future = validation.submit(validate, self.ladder.folder, payload, filename, name, owner, cls,
                                           note, entry)
                del payload
                return await asyncio.wrap_future(future)
            finally:
                if future is None or future.done():       # else (cancelled) close() waits for it
                    self.processes.discard(validation)
                validation.shutdown(wait=False)

    def full(self) -> bool:
        """Whether :data:`MAX_WAITING` submissions are queued or being validated."""
        return self.waiting >= MAX_WAITING

    def retire(self, name: str, owner: str, version: Optional[int]) -> list[EntrantRow]:
        """Retire ``version`` of ``name`` (every version for None)."""
        return self.ladder.retire(name, owner, version)


def validation_process() -> None:
    """A validation's process: an interrupt of the server's terminal does not
    cut its validation short (the server waits for it as it stops)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def validate(folder: str, data: bytes, filename: str, name: str, owner: str, cls: Optional[str], note: str,
              entry: Optional[str]) -> EntrantRow:
    """:meth:`Ladder.submit_file` in a validation's process."""
    return Ladder(folder).submit_file(io.BytesIO(data), filename, name=name, owner=owner, cls=cls, note=note,
                                      entry=entry)


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
