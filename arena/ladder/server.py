"""The ladder's web server: its standings and entrants for people, a JSON
API for programs, and submissions from owners holding a token.

:func:`make_app` builds the :mod:`aiohttp` application of a
:class:`~arena.ladder.ladder.Ladder` and :func:`serve` runs it. Pages:

- ``/``: the leaderboard, best first, each Elo with its 95 % interval
  drawn to one scale; retired versions below;
- ``/entrants/NAME``: every version of an entrant, its rating history,
  its faults by kind and its latest games;
- ``/games/ID``: the replay viewer of one game (:mod:`arena.viewer`).

The API (JSON; an error is ``{"error": "one line"}`` with its status):

- ``GET /api/ladder``: the rules and counts;
- ``GET /api/standings``: the ratings, best first;
- ``GET /api/entrants``: every version with its rating;
- ``GET /api/entrants/NAME``: its versions, rating history, faults, games;
- ``GET /api/games/ID``: one game's summary; ``GET /api/games/ID/record``
  its record (JSON lines, as :mod:`core.records` writes them);
- ``POST /api/submit`` (``Authorization: Bearer TOKEN``; a
  ``multipart/form-data`` form with ``name``, optional ``class`` and
  ``note``, and the ``file``): ``201`` with the new version;
- ``POST /api/entrants/NAME/retire`` (the token; optional JSON body
  ``{"version": N}``): ``200`` with the retired versions.

A token names its owner (:meth:`LadderStore.owner_of_token`); a missing or
unknown token is answered ``401``, acting on another owner's name ``403``,
and a refused action changes nothing. An upload is read as it streams in,
at most the ladder's ``upload_mb`` (``413`` past it), kept in memory or an
unnamed temporary file, and handed to :meth:`Ladder.submit_file`, which
checks every name in it and validates the bot in the sandbox. Library
calls run on worker threads, never on the event loop. Each validation runs
in a process of its own (its sandboxed bots, its memory and its failures
are its own), :data:`VALIDATORS` of them at once; an owner has at most one
submission queued or being validated (a second is answered ``429``), and
at most :data:`MAX_WAITING` are in all (``503`` past it), so no owner's
slow bot holds up the others' submissions for long. Ratings are refitted
only when games or entrants change.

A request aiohttp cannot even parse (a header too long, too many headers,
a broken chunk or compressed body) is the client's doing: it is logged on
one line without a traceback, at most :data:`BAD_REQUEST_LINES` lines a
minute.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import html
import io
import json
import logging
import math
import multiprocessing
import os
import re
import signal
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from importlib import resources
from typing import Any, BinaryIO, Optional, TypeVar

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.multipart import BadContentDispositionHeader, BadContentDispositionParam, BodyPartReader
from aiohttp.web_protocol import RequestPayloadError

from ..types import ArenaError
from .folder import NAME_RE, Ladder, validate_name
from .rounds import RatingRow, Refitter
from .store import EntrantRow, GameRow, LadderStore

__all__ = ["make_app", "serve", "SAMPLES", "RECENT_GAMES"]

log = logging.getLogger("pengyou.ladder.server")

#: Bootstrap samples of the served ratings.
SAMPLES = 200

#: Games shown per entrant version.
RECENT_GAMES = 20

#: Largest text field of the submission form (bytes), and largest retire body.
FIELD_BYTES = 4096

#: Seconds a retire body may take to arrive (a client that never ends it
#: does not hold its request open for ever).
BODY_SECONDS = 30

#: The form's fields besides the file.
FORM_FIELDS = ("name", "class", "note", "entry")

#: Validations run at once, each a whole deal of sandboxed bot processes:
#: more than the machine's few cores would only slow every one of them.
VALIDATORS = 2

#: Submissions queued or being validated at most, of all owners (more: 503,
#: try later); one owner has at most one of them (a second: 429).
MAX_WAITING = 8

#: Lines logged a minute at most about requests aiohttp could not parse
#: (the rest are counted, and the count logged with the next line).
BAD_REQUEST_LINES = 20

_T = TypeVar("_T")

_GAME_ID = r"{id:[0-9]{1,15}}"


class _Refusal(Exception):
    """An answer other than success: a status and a one-line message."""

    def __init__(self, status: int, message: str, headers: Optional[dict[str, str]] = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def _unauthorized(message: str, invalid: bool = False) -> _Refusal:
    challenge = 'Bearer realm="ladder"' + (', error="invalid_token"' if invalid else "")
    return _Refusal(401, message, {"WWW-Authenticate": challenge})


def one_line(text: str, folder: str = "", limit: int = 400) -> str:
    """``text`` on one line, at most ``limit`` characters, with the ladder's
    ``folder`` left out of any path in it (a client never sees the server's files).

    >>> one_line("crash:\\n  /srv/lad/bots/3/b.py line 2", "/srv/lad")
    'crash: bots/3/b.py line 2'
    """
    if folder:
        text = text.replace(folder.rstrip(os.sep) + os.sep, "")
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


# ---------------------------------------------------------------------- the data


class _Service:
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
        self._fit = threading.Lock()
        self._cache: Optional[tuple[tuple[tuple[int, bool], ...], tuple[int, list[RatingRow]]]] = None
        self._refit = Refitter(ladder, samples)
        self._checked = False

    def close(self) -> None:
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
        """The ratings: refitted when the entrants changed, or when games
        came and a refit is due (:class:`~arena.ladder.run.Refitter`)."""
        with self._store() as st:
            games = st.count_games()
            versions = tuple((e.id, e.retired is not None) for e in st.entrants())
            with self._fit:
                if self._cache is None or self._cache[0] != versions or (
                        self._refit.games != games and self._refit.due()):
                    f = self._refit.fit(st)
                    self._cache = (versions, (len(f.results), f.rows))
                return self._cache[1]

    def info(self) -> dict[str, Any]:
        with self._store() as st:
            games = st.count_games()
            rows = st.entrants()
        return {"rules": self.ladder.rules.to_json(), "games": games, "versions": len(rows),
                "active": sum(1 for r in rows if r.retired is None),
                "names": len({r.name for r in rows})}

    def entrants(self) -> dict[str, Any]:
        games, table = self.standings()
        by_id = {r.id: r for r in table}
        with self._store() as st:
            rows = st.entrants()
        return {"games": games, "entrants": [dict(r.to_json(), rating=_rating_json(by_id.get(r.id))) for r in rows]}

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
                out.append(dict(v.to_json(), rating=_rating_json(by_id.get(v.id)), history=history,
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

        from ..render.viewer import page

        found = self.game(game_id)
        if found is None or not found[1].strip():
            return None
        summary, record = found
        names = " vs ".join(str(s["label"]) for s in summary["entrants"])
        return page(read_records(io.StringIO(record)), f"ladder game {game_id}: {names}")

    # ---------------------------------------------------------------- acting

    def owner_of(self, token: str) -> Optional[str]:
        with self._store() as st:
            return st.owner_of_token(token)

    def versions(self, name: str) -> list[EntrantRow]:
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
                                             initializer=_validation_process)
            self.processes.add(validation)
            future = None
            try:
                future = validation.submit(_validate, self.ladder.folder, payload, filename, name, owner, cls,
                                           note, entry)
                del payload
                return await asyncio.wrap_future(future)
            finally:
                if future is None or future.done():       # else (cancelled) close() waits for it
                    self.processes.discard(validation)
                validation.shutdown(wait=False)

    def retire(self, name: str, owner: str, version: Optional[int]) -> list[EntrantRow]:
        return self.ladder.retire(name, owner, version)


def _validation_process() -> None:
    """A validation's process: an interrupt of the server's terminal does not
    cut its validation short (the server waits for it as it stops)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _validate(folder: str, data: bytes, filename: str, name: str, owner: str, cls: Optional[str], note: str,
              entry: Optional[str]) -> EntrantRow:
    """:meth:`Ladder.submit_file` in a validation's process."""
    return Ladder(folder).submit_file(io.BytesIO(data), filename, name=name, owner=owner, cls=cls, note=note,
                                      entry=entry)


def _rating_json(row: Optional[RatingRow]) -> Optional[dict[str, Any]]:
    if row is None:
        return None
    d = row.to_json()
    return {k: d[k] for k in ("elo", "lo", "hi", "deals", "provisional", "faults")}


# ---------------------------------------------------------------------- the app

_SERVICE = web.AppKey("service", _Service)
_LADDER = web.AppKey("ladder", Ladder)


def _service(request: web.Request) -> _Service:
    return request.app[_SERVICE]


async def _run(request: web.Request, fn: Callable[..., _T], *args: Any) -> _T:
    """``fn(*args)`` on a reading thread."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_service(request).reads, functools.partial(fn, *args))


def _json(obj: Any, status: int = 200, headers: Optional[dict[str, str]] = None) -> web.Response:
    return web.Response(text=json.dumps(obj, separators=(",", ":"), allow_nan=False), status=status,
                        content_type="application/json", headers=headers)


_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
_VIEWER_CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
               "base-uri 'none'; form-action 'none'")


@web.middleware
async def _guard(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                 ) -> web.StreamResponse:
    """Every answer: errors as one line (JSON for the API, a page for people),
    no traceback to a client, and the headers that keep pages to themselves."""
    api = request.path.startswith("/api/") or request.path == "/api"
    try:
        resp = await handler(request)
    except _Refusal as exc:
        resp = _error(api, exc.status, exc.message, exc.headers)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        message = {404: f"no such page: {request.path[:80]}",
                   405: f"{request.method} is not allowed here",
                   413: "the request is too large"}.get(exc.status, exc.reason)
        headers = {"Allow": exc.headers["Allow"]} if "Allow" in exc.headers else None
        resp = _error(api, exc.status, message, headers)
    except asyncio.CancelledError:
        raise
    except ArenaError as exc:            # one line by design (a damaged database, say)
        log.error("%s %s failed: %s", request.method, request.path[:200], one_line(str(exc)))
        resp = _error(api, 500, "the server failed to answer; the error is in its log")
    except Exception:
        log.exception("%s %s failed", request.method, request.path[:200])
        resp = _error(api, 500, "the server failed to answer; the error is in its log")
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("Referrer-Policy", "no-referrer")
    resp.headers.setdefault("X-Frame-Options", "DENY")
    resp.headers.setdefault("Cache-Control", "no-store")
    if resp.content_type == "text/html":
        resp.headers.setdefault("Content-Security-Policy", _PAGE_CSP)
    return resp


class _RequestLog(logging.LoggerAdapter):  # type: ignore[type-arg]
    """aiohttp's log of the requests it handles, with a request it could not
    parse (a header too long, too many headers, a broken chunk or compressed
    body) on one line without its traceback, at most
    :data:`BAD_REQUEST_LINES` of those a minute: such a request is the
    client's doing, and anyone may send any number of them."""

    def __init__(self, logger: logging.Logger) -> None:
        super().__init__(logger, {})
        self._minute = -math.inf
        self._lines = 0
        self._dropped = 0

    def log(self, level: int, msg: Any, *args: Any, exc_info: Any = None, **kwargs: Any) -> None:
        exc = exc_info if isinstance(exc_info, BaseException) else (
            exc_info[1] if isinstance(exc_info, tuple) else sys.exc_info()[1] if exc_info is True else None)
        if not isinstance(exc, (HttpProcessingError, RequestPayloadError)):
            super().log(level, msg, *args, exc_info=exc_info, **kwargs)
            return
        level = min(level, logging.WARNING)
        if not self.isEnabledFor(level):
            return
        now = time.monotonic()
        if now - self._minute >= 60:
            self._minute, self._lines = now, 0
        if self._lines >= BAD_REQUEST_LINES:
            self._dropped += 1
            return
        self._lines += 1
        cause = exc.__cause__ if isinstance(exc, RequestPayloadError) and exc.__cause__ is not None else exc
        detail = one_line(str(getattr(cause, "message", "") or cause), limit=120)
        peer = f" from {args[0]}" if msg == "Error handling request from %s" and args else ""
        more = f" (and {self._dropped} more not logged)" if self._dropped else ""
        self._dropped = 0
        super().log(level, "a bad request%s: %s: %s%s", peer, type(cause).__name__, detail, more, **kwargs)


def _error(api: bool, status: int, message: str, headers: Optional[dict[str, str]] = None) -> web.Response:
    message = one_line(message)
    if api:
        return _json({"error": message}, status, headers)
    title = {404: "Not found", 500: "Server error"}.get(status, f"Error {status}")
    body = f"<h1>{_e(title)}</h1><div class='box'><p>{_e(message)}</p><p><a href='/'>The leaderboard</a></p></div>"
    return web.Response(text=_page(title, body), status=status, content_type="text/html", headers=headers)


def make_app(ladder: Ladder, samples: int = SAMPLES) -> web.Application:
    """The ladder's web application (its worker threads end with it).

    >>> import os, tempfile
    >>> from arena.ladder import LadderRules
    >>> lad = Ladder.create(os.path.join(tempfile.mkdtemp(), "lad"), LadderRules())
    >>> sorted(r.resource.canonical for r in make_app(lad).router.routes() if r.method == "POST")
    ['/api/entrants/{name}/retire', '/api/submit']
    """
    limit = ladder.rules.upload_mb << 20
    app = web.Application(middlewares=[_guard], client_max_size=limit + 64 * FIELD_BYTES,
                          handler_args={"logger": _RequestLog(logging.getLogger("pengyou.ladder.http"))})
    service = _Service(ladder, samples)
    app[_SERVICE] = service
    app[_LADDER] = ladder

    async def close(_app: web.Application) -> None:
        await asyncio.get_running_loop().run_in_executor(None, service.close)

    app.on_cleanup.append(close)
    app.router.add_get("/", _leaderboard)
    app.router.add_get("/entrants/{name}", _entrant_page)
    app.router.add_get(f"/games/{_GAME_ID}", _game_page)
    app.router.add_get("/api/ladder", _api_ladder)
    app.router.add_get("/api/standings", _api_standings)
    app.router.add_get("/api/entrants", _api_entrants)
    app.router.add_get("/api/entrants/{name}", _api_entrant)
    app.router.add_get(f"/api/games/{_GAME_ID}", _api_game)
    app.router.add_get(f"/api/games/{_GAME_ID}/record", _api_record)
    app.router.add_post("/api/submit", _api_submit)
    app.router.add_post("/api/entrants/{name}/retire", _api_retire)
    return app


# ---------------------------------------------------------------------- the API: reading


async def _api_ladder(request: web.Request) -> web.Response:
    return _json(await _run(request, _service(request).info))


async def _api_standings(request: web.Request) -> web.Response:
    games, rows = await _run(request, _service(request).standings)
    return _json({"games": games, "rows": [r.to_json() for r in rows]})


async def _api_entrants(request: web.Request) -> web.Response:
    return _json(await _run(request, _service(request).entrants))


async def _api_entrant(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    found = await _run(request, _service(request).entrant, name)
    if found is None:
        raise _Refusal(404, f"no entrant named {name[:40]!r}")
    return _json(found)


async def _game_or_404(request: web.Request) -> tuple[int, tuple[dict[str, Any], str]]:
    game_id = int(request.match_info["id"])
    found = await _run(request, _service(request).game, game_id)
    if found is None:
        raise _Refusal(404, f"no game {game_id}")
    return game_id, found


async def _api_game(request: web.Request) -> web.Response:
    _, (summary, _record) = await _game_or_404(request)
    return _json(summary)


async def _api_record(request: web.Request) -> web.Response:
    game_id, (_summary, record) = await _game_or_404(request)
    if not record.strip():
        raise _Refusal(404, f"game {game_id} has no record")
    return web.Response(text=record, content_type="text/plain", charset="utf-8",
                        headers={"Content-Disposition": f'inline; filename="game-{game_id}.jsonl"'})


# ---------------------------------------------------------------------- the API: acting

_TOKEN = re.compile(r"[A-Za-z0-9._~+/-]{1,512}=*")


async def _owner(request: web.Request) -> str:
    """The owner whose token the request carries (else 401)."""
    value = request.headers.get("Authorization", "")
    scheme, _, token = value.strip().partition(" ")
    token = token.strip()
    if not value.strip():
        raise _unauthorized("this needs your owner token: send the header 'Authorization: Bearer TOKEN'")
    if scheme.lower() != "bearer" or not _TOKEN.fullmatch(token):
        raise _unauthorized("the Authorization header must be 'Bearer TOKEN'", invalid=True)
    owner = await _run(request, _service(request).owner_of, token)
    if owner is None:
        raise _unauthorized("the token is not valid", invalid=True)
    return owner


async def _check_owner(request: web.Request, name: str, owner: str, must_exist: bool) -> list[EntrantRow]:
    rows = await _run(request, _service(request).versions, name)
    if rows and rows[0].owner != owner:
        raise _Refusal(403, f"the name {name!r} belongs to another owner")
    if must_exist and not rows:
        raise _Refusal(404, f"no entrant named {name!r}")
    return rows


class _Upload:
    """The file part of a submission, spooled (memory, then an unnamed temporary file)."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.size = 0
        self.data: Any = tempfile.SpooledTemporaryFile(max_size=1 << 20)

    def close(self) -> None:
        self.data.close()


async def _read_form(request: web.Request, limit: int) -> tuple[dict[str, str], Optional[_Upload]]:
    """The submission form's fields and its file, read as they stream in
    (the caller closes the upload)."""
    if request.content_type != "multipart/form-data":
        raise _Refusal(415, "send the submission as multipart/form-data (fields name, class, note and the file)")
    too_large = _Refusal(413, f"the upload is larger than this ladder takes ({limit >> 20} MiB)")
    if request.content_length is not None and request.content_length > limit + len(FORM_FIELDS) * 2 * FIELD_BYTES:
        raise too_large
    fields: dict[str, str] = {}
    upload: Optional[_Upload] = None
    try:
        reader = await request.multipart()
        for _ in range(len(FORM_FIELDS) + 2):
            part = await reader.next()
            if part is None:
                return fields, upload
            if not isinstance(part, BodyPartReader):
                raise _Refusal(400, "the form has a nested multipart part: send name, class, note and one file")
            what = part.name or ""
            if what == "file":
                if upload is not None:
                    raise _Refusal(400, "send one file")
                if not part.filename:
                    raise _Refusal(400, "the file part has no file name")
                upload = _Upload(part.filename)
                while chunk := await part.read_chunk(1 << 16):
                    upload.size += len(chunk)
                    if upload.size > limit:
                        raise too_large
                    upload.data.write(chunk)
            elif what in FORM_FIELDS:
                if what in fields:
                    raise _Refusal(400, f"the form has the field {what!r} twice")
                data = bytearray()
                while chunk := await part.read_chunk(FIELD_BYTES):
                    data += chunk
                    if len(data) > FIELD_BYTES:
                        raise _Refusal(400, f"the field {what!r} is longer than {FIELD_BYTES} bytes")
                try:
                    fields[what] = data.decode("utf-8")
                except UnicodeDecodeError:
                    raise _Refusal(400, f"the field {what!r} is not UTF-8 text") from None
            else:
                raise _Refusal(400, f"the form has an unknown field {what[:40]!r}: send name, class, note and file")
        raise _Refusal(400, "the form has too many parts: send name, class, note and one file")
    except BaseException as exc:
        if upload is not None:
            upload.close()
        if isinstance(exc, web.HTTPRequestEntityTooLarge):
            raise too_large from None
        if isinstance(exc, Exception) and not isinstance(exc, _Refusal):
            raise _Refusal(400, f"the form could not be read ({type(exc).__name__})") from None
        raise


async def _api_submit(request: web.Request) -> web.Response:
    service = _service(request)
    owner = await _owner(request)
    if owner in service.owners:
        raise _Refusal(429, "your earlier submission is still being validated: wait for its answer before you "
                            "send another")
    service.owners.add(owner)            # until this one is answered (from before its upload is read)
    try:
        return await _submit(request, service, owner)
    finally:
        service.owners.discard(owner)


async def _submit(request: web.Request, service: _Service, owner: str) -> web.Response:
    fields, upload = await _read_form(request, service.ladder.rules.upload_mb << 20)
    try:
        name = fields.get("name", "").strip()
        if not name:
            raise _Refusal(400, "the form has no name: send the field 'name'")
        if upload is None:
            raise _Refusal(400, "the form has no file: send the bot as the file part 'file'")
        try:
            validate_name(name)
        except ArenaError as exc:
            raise _Refusal(400, str(exc)) from None
        await _check_owner(request, name, owner, must_exist=False)
        cls = fields.get("class", "").strip() or None
        note = fields.get("note", "")
        entry = fields.get("entry", "").strip() or None
        if service.waiting >= MAX_WAITING:
            raise _Refusal(503, "too many submissions are being validated; try again in a minute")
        service.waiting += 1
        try:
            row = await service.submit(upload.data, upload.filename, name, owner, cls, note, entry)
        except ArenaError as exc:
            await _check_owner(request, name, owner, must_exist=False)      # taken meanwhile: 403
            raise _Refusal(400, one_line(str(exc), service.ladder.folder)) from None
        except BrokenProcessPool:
            log.error("the validation of %s's %s ended without an answer: its process was killed", owner, name)
            raise _Refusal(500, "the validation ended without an answer; the error is in the server's log") from None
        finally:
            service.waiting -= 1
    finally:
        if upload is not None:
            upload.close()
    log.info("%s submitted %s (entrant %d)", owner, row.label, row.id)
    return _json(row.to_json(), 201, {"Location": f"/entrants/{row.name}"})


async def _read_body(request: web.Request, limit: int) -> bytes:
    """The whole body, however it arrives (in one piece or many), at most
    ``limit`` bytes (else 413) within :data:`BODY_SECONDS` (else 408); a
    body that cannot be read is a 400."""
    too_large = _Refusal(413, f"send a JSON body of at most {limit} bytes")
    if request.content_length is not None and request.content_length > limit:
        raise too_large
    body = bytearray()
    try:
        async with asyncio.timeout(BODY_SECONDS):
            while chunk := await request.content.read(limit + 1 - len(body)):
                body += chunk
                if len(body) > limit:
                    raise too_large
    except TimeoutError:
        raise _Refusal(408, f"the body did not arrive within {BODY_SECONDS} s") from None
    except (RequestPayloadError, HttpProcessingError) as exc:
        raise _Refusal(400, f"the body could not be read ({type(exc).__name__})") from None
    except ConnectionError:              # the client went away: nobody reads the answer
        raise _Refusal(400, "the body ended before it was whole") from None
    return bytes(body)


async def _api_retire(request: web.Request) -> web.Response:
    service = _service(request)
    name = request.match_info["name"]
    owner = await _owner(request)
    body = await _read_body(request, FIELD_BYTES)
    version: Optional[int] = None
    if body:                             # only an empty body retires every version
        try:
            obj = json.loads(body)
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise _Refusal(400, 'the body is not JSON: send {"version": N} or nothing') from None
        if not isinstance(obj, dict) or set(obj) - {"version"}:
            raise _Refusal(400, 'send {"version": N} or nothing')
        v = obj.get("version")
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            raise _Refusal(400, f"version: {str(v)[:20]!r} is not a version number")
        version = v
    if not NAME_RE.fullmatch(name):
        raise _Refusal(404, f"no entrant named {name[:40]!r}")
    rows = await _check_owner(request, name, owner, must_exist=True)
    if version is not None and all(r.version != version for r in rows):
        raise _Refusal(404, f"{name!r} has no version {version}")
    try:
        retired = await _run(request, service.retire, name, owner, version)
    except ArenaError as exc:
        raise _Refusal(400, one_line(str(exc), service.ladder.folder)) from None
    log.info("%s retired %s", owner, ", ".join(r.label for r in retired))
    return _json({"retired": [r.to_json() for r in retired]})


# ---------------------------------------------------------------------- pages


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


@functools.lru_cache(maxsize=1)
def _css() -> str:
    return resources.files("arena.ladder").joinpath("web", "ladder.css").read_text(encoding="utf-8")


def _page(title: str, body: str, facts: str = "") -> str:
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{_e(title)}</title><style>{_css()}</style></head><body>"
            "<header><a class='home' href='/'>Zhao Pengyou ladder</a>"
            "<nav><a href='/'>Leaderboard</a><a href='/api/standings'>API</a></nav>"
            f"<span class='facts'>{facts}</span></header><main>{body}</main></body></html>\n")


def _elo(x: Optional[float]) -> str:
    return "&ndash;" if x is None or not math.isfinite(x) else f"{x:+.0f}"


def _when(t: Optional[float]) -> str:
    return "" if t is None else time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t))


def _finite(*xs: Optional[float]) -> list[float]:
    return [float(x) for x in xs if x is not None and math.isfinite(x)]


class _Scale:
    """Elo to pixels, the same for every row of a page.

    >>> s = _Scale([-100.0, 300.0], 0, 200)
    >>> s.x(s.lo), s.x(s.hi), s.ticks()[0] >= s.lo
    (0.0, 200.0, True)
    """

    def __init__(self, values: list[float], left: float, right: float) -> None:
        lo, hi = (min(values), max(values)) if values else (-100.0, 100.0)
        lo, hi = min(lo, 0.0), max(hi, 0.0)
        if hi - lo < 50:
            lo, hi = lo - 25, hi + 25
        pad = (hi - lo) * 0.04
        self.lo, self.hi = lo - pad, hi + pad
        self.left, self.right = left, right

    def x(self, v: float) -> float:
        v = min(max(v, self.lo), self.hi)
        return round(self.left + (v - self.lo) / (self.hi - self.lo) * (self.right - self.left), 1)

    def ticks(self, most: int = 6) -> list[float]:
        span = self.hi - self.lo
        step = next((s for s in (10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000) if span / s <= most), 10000)
        first = math.ceil(self.lo / step) * step
        return [float(first + k * step) for k in range(int((self.hi - first) // step) + 1)]


_BAR_W, _BAR_H = 240, 18


def _axis_svg(scale: _Scale) -> str:
    marks = "".join(f"<text x='{scale.x(t)}' y='12' text-anchor='middle'>{t:+.0f}</text>" if t else
                    f"<text x='{scale.x(t)}' y='12' text-anchor='middle'>0</text>" for t in scale.ticks())
    return (f"<svg class='axis' width='{_BAR_W}' height='16' viewBox='0 0 {_BAR_W} 16' aria-hidden='true' "
            f"font-size='10' fill='#6b7786'>{marks}</svg>")


def _bar_svg(r: RatingRow, scale: _Scale) -> str:
    """The row's 95 % interval as a bar and its Elo as a dot (an open end: an arrow to the edge)."""
    if not math.isfinite(r.elo):
        return ""
    lo = r.lo if math.isfinite(r.lo) else -math.inf
    hi = r.hi if math.isfinite(r.hi) else math.inf
    x0, x1, xe = scale.x(lo if math.isfinite(lo) else scale.lo), scale.x(hi if math.isfinite(hi) else scale.hi), \
        scale.x(r.elo)
    grid = "".join(f"<line x1='{scale.x(t)}' x2='{scale.x(t)}' y1='0' y2='{_BAR_H}' stroke='"
                   f"{'#9aa5b1' if t == 0 else '#e3e7ec'}'/>" for t in scale.ticks())
    color = "#c9b46a" if r.provisional else "#8fb8de"
    shown = f"{_elo(r.elo)} [{_elo(lo)}, {_elo(hi)}]".replace("&ndash;", "open")
    return (f"<svg class='ci' width='{_BAR_W}' height='{_BAR_H}' viewBox='0 0 {_BAR_W} {_BAR_H}' role='img' "
            f"data-lo='{_e(lo)}' data-hi='{_e(hi)}' data-elo='{r.elo:.2f}'>"
            f"<title>{_e(r.label)}: Elo {_e(shown)} (95 % interval)</title>{grid}"
            f"<rect class='interval' x='{x0}' y='5' width='{max(x1 - x0, 1.0):.1f}' height='8' rx='3' "
            f"fill='{color}'/><circle class='elo' cx='{xe}' cy='9' r='4' fill='#1f4d8a'/></svg>")


def _fault_cell(r: RatingRow) -> str:
    total = sum(r.faults.values())
    if not total:
        return "<td class='num muted'>0</td>"
    kinds = ", ".join(f"{k} {n}" for k, n in r.faults.items() if n)
    return (f"<td class='num'><a class='faults' title='{_e(kinds)}' href='/entrants/{_e(r.name)}#v{r.version}'>"
            f"{total}</a></td>")


def _rows_html(rows: list[RatingRow], scale: _Scale, ranked: bool, provisional: int) -> str:
    out = []
    rank = 0
    for r in rows:
        rated = math.isfinite(r.elo)
        if ranked and rated:
            rank += 1
        badges = ""
        if r.retired:
            badges += "<span class='badge retired'>retired</span>"
        if not rated:
            badges += "<span class='badge'>unrated</span>"
        elif r.provisional:
            badges += (f"<span class='badge prov' title='fewer than {provisional} deals: the rating may still move "
                       "a lot'>provisional</span>")
        interval = "&ndash;" if not rated else f"{_elo(r.lo)}&thinsp;&hellip;&thinsp;{_elo(r.hi)}"
        out.append(
            f"<tr data-entrant='{_e(r.label)}' data-id='{r.id}'>"
            f"<td class='rank num'>{rank if ranked and rated else ''}</td>"
            f"<td class='label'><a href='/entrants/{_e(r.name)}#v{r.version}'>{_e(r.label)}</a>{badges}</td>"
            f"<td class='owner'>{_e(r.owner)}</td><td class='num elo'>{_elo(r.elo)}</td>"
            f"<td class='num interval'>{interval}</td><td class='bar'>{_bar_svg(r, scale)}</td>"
            f"<td class='num deals'>{r.deals}</td>{_fault_cell(r)}</tr>")
    return "".join(out)


def _table_html(table_id: str, rows: list[RatingRow], scale: _Scale, ranked: bool, provisional: int) -> str:
    return (f"<table id='{table_id}'><thead><tr><th class='num'>#</th><th>Entrant</th><th>Owner</th>"
            "<th class='num'>Elo</th><th class='num'>95 % interval</th>"
            f"<th class='bar'>{_axis_svg(scale)}</th><th class='num'>Deals</th><th class='num'>Faults</th></tr>"
            f"</thead><tbody>{_rows_html(rows, scale, ranked, provisional)}</tbody></table>")


def _facts(info: dict[str, Any]) -> str:
    rules = info["rules"]
    return _e(f"{rules['preset']}, {rules['players']} players, {rules['time_limit']:g} s a move; "
              f"{info['games']} games")


def _leaderboard_html(info: dict[str, Any], games: int, rows: list[RatingRow], origin: str) -> str:
    provisional = int(info["rules"]["provisional"])
    scale = _Scale([v for r in rows for v in _finite(r.elo, r.lo, r.hi)], 8, _BAR_W - 8)
    active = [r for r in rows if not r.retired]
    retired = [r for r in rows if r.retired]
    body = ["<h1>Leaderboard</h1>",
            f"<p class='muted'>Elo from all {games} games, the mean at 0; the bar is the 95 % interval. "
            f"A rating is provisional until {provisional} deals.</p>"]
    if active:
        body.append(f"<div class='box'>{_table_html('standings', active, scale, True, provisional)}</div>")
    else:
        body.append("<div class='box'><p>No entrants yet.</p></div>")
    if retired:
        body.append("<h2>Retired versions</h2>"
                    f"<div class='box'>{_table_html('retired', retired, scale, False, provisional)}</div>")
    body.append("<h2>Submitting a bot</h2><div class='box'><p>With your owner token, send a Python module "
                "(one bot class with <code>step</code>), a program, or a zip of a folder with <code>bot.py</code>; "
                f"at most {int(info['rules']['upload_mb'])} MiB. It must play a whole validation deal in every seat "
                "before it is accepted.</p>"
                f"<pre>curl -H 'Authorization: Bearer TOKEN' -F name=mybot -F file=@mybot.py {_e(origin)}/api/submit"
                "</pre></div>")
    return _page("Ladder: leaderboard", "".join(body), _facts(info))


_PLOT_W, _PLOT_H = 640, 200
_PAD_L, _PAD_R, _PAD_T, _PAD_B = 48, 12, 10, 30


def _history_svg(label: str, history: list[dict[str, Any]]) -> str:
    """The rating history as a line of Elo over the ladder's games, with the interval as a band."""
    pts = [h for h in history if h.get("elo") is not None]
    if not pts:
        return "<p class='muted'>No rating yet: its first games are played in the next round.</p>"
    xs = [float(h["games"]) for h in pts]
    x_lo, x_hi = min(xs), max(xs)
    if x_hi - x_lo < 1:
        x_lo, x_hi = x_lo - 1, x_hi + 1
    values = [v for h in pts for v in _finite(h["elo"], h.get("lo"), h.get("hi"))]
    ys = _Scale(values, _PLOT_H - _PAD_B, _PAD_T)        # upwards: y decreases as Elo grows

    def px(g: float) -> float:
        return round(_PAD_L + (g - x_lo) / (x_hi - x_lo) * (_PLOT_W - _PAD_L - _PAD_R), 1)

    def bound(h: dict[str, Any], key: str, edge: float) -> float:
        v = h.get(key)
        return ys.x(float(v)) if v is not None and math.isfinite(v) else ys.x(edge)

    upper = [f"{px(float(h['games']))},{bound(h, 'hi', ys.hi)}" for h in pts]
    lower = [f"{px(float(h['games']))},{bound(h, 'lo', ys.lo)}" for h in reversed(pts)]
    line = " ".join(f"{px(float(h['games']))},{ys.x(float(h['elo']))}" for h in pts)
    grid = "".join(f"<line x1='{_PAD_L}' x2='{_PLOT_W - _PAD_R}' y1='{ys.x(t)}' y2='{ys.x(t)}' "
                   f"stroke='{'#9aa5b1' if t == 0 else '#e3e7ec'}'/><text x='{_PAD_L - 6}' y='{ys.x(t) + 3}' "
                   f"text-anchor='end'>{'0' if t == 0 else f'{t:+.0f}'}</text>" for t in ys.ticks(5))
    x_ticks = sorted({round(x_lo + k * (x_hi - x_lo) / 4) for k in range(5)})
    xgrid = "".join(f"<text x='{px(t)}' y='{_PLOT_H - _PAD_B + 14}' text-anchor='middle'>{t}</text>"
                    for t in x_ticks if x_lo <= t <= x_hi)
    dots = "".join(
        f"<circle cx='{px(float(h['games']))}' cy='{ys.x(float(h['elo']))}' r='3' fill='#1f4d8a'>"
        f"<title>after {h['games']} ladder games: Elo {_elo(h['elo'])} [{_elo(h.get('lo'))}, {_elo(h.get('hi'))}], "
        f"{h.get('deals')} deals</title></circle>" for h in pts)
    band = f"<polygon class='band' points='{' '.join(upper + lower)}' fill='#8fb8de' fill-opacity='.45'/>"
    return (f"<svg class='history' width='{_PLOT_W}' height='{_PLOT_H}' viewBox='0 0 {_PLOT_W} {_PLOT_H}' "
            f"role='img' font-size='10' fill='#6b7786' data-points='{len(pts)}'>"
            f"<title>{_e(label)}: Elo after each refit, with its 95 % interval</title>{grid}{xgrid}{band}"
            f"<polyline class='elo' points='{line}' fill='none' stroke='#1f4d8a' stroke-width='2'/>{dots}"
            f"<text x='{(_PLOT_W + _PAD_L) / 2}' y='{_PLOT_H - 4}' text-anchor='middle'>ladder games</text></svg>")


def _faults_html(faults: dict[str, dict[str, Any]]) -> str:
    if not faults:
        return "<p class='muted'>No faults.</p>"
    items = []
    for kind, entry in sorted(faults.items()):
        games = entry["games"]
        links = " ".join(f"<a class='game' href='/games/{g}'>#{g}</a>" for g in games[:30])
        more = f" and {len(games) - 30} more" if len(games) > 30 else ""
        items.append(f"<li data-kind='{_e(kind)}'><b>{_e(kind)}</b>: {entry['count']} &mdash; {links}{more}</li>")
    return f"<ul class='fault-kinds'>{''.join(items)}</ul>"


def _games_html(entrant_id: int, games: list[dict[str, Any]]) -> str:
    if not games:
        return "<p class='muted'>No games yet.</p>"
    rows = []
    for g in games:
        me = next((s for s in g["entrants"] if s["id"] == entrant_id), g["entrants"][0])
        other = next((s for s in g["entrants"] if s is not me), me)
        pts = me["points"]
        cls = "won" if pts > 0 else "lost" if pts < 0 else ""
        deal = g["deal"] or {}
        maker = deal.get("maker")
        who = "" if maker is None else ("its seat" if maker in me["seats"] else "the opponent's seat")
        opp = (f"<a href='/entrants/{_e(other['name'])}'>{_e(other['label'])}</a>" if other["name"]
               else _e(other["label"]))
        faults = me["faults"]
        rows.append(
            f"<tr data-game='{g['id']}'><td><a class='game' href='/games/{g['id']}'>#{g['id']}</a></td>"
            f"<td class='muted'>{_when(g['written'])}</td><td>{opp}</td>"
            f"<td class='num'>{len(me['seats'])} of {len(g['seats'])}</td>"
            f"<td>{'' if maker is None else f'seat {maker}, ' + who}</td>"
            f"<td class='num'>{deal.get('opponents_points', '')}</td>"
            f"<td class='num {cls}'>{pts:+d}</td>"
            f"<td class='num'>{faults if faults else ''}</td>"
            f"<td><a class='record' href='/api/games/{g['id']}/record'>record</a></td></tr>")
    return ("<table class='games'><thead><tr><th>Game</th><th>Played</th><th>Opponent</th>"
            "<th class='num'>Seats</th><th>Maker</th><th class='num'>Opp. points</th><th class='num'>Score</th>"
            f"<th class='num'>Faults</th><th>Record</th></tr></thead><tbody>{''.join(rows)}</tbody></table>")


def _entrant_html(info: dict[str, Any], data: dict[str, Any]) -> str:
    provisional = int(info["rules"]["provisional"])
    body = [f"<h1>{_e(data['name'])}</h1><p class='muted'>owned by {_e(data['owner'])}; "
            f"{len(data['versions'])} version{'s' if len(data['versions']) != 1 else ''}</p>"]
    for v in data["versions"]:
        rating = v["rating"] or {}
        badge = ("<span class='badge retired'>retired</span>" if v["retired"] is not None
                 else "<span class='badge active'>active</span>")
        if rating.get("elo") is not None and rating.get("provisional"):
            badge += f"<span class='badge prov' title='fewer than {provisional} deals'>provisional</span>"
        elo = rating.get("elo")
        shown = ("unrated" if elo is None else
                 f"{_elo(elo)} &nbsp;<span class='muted'>[{_elo(rating.get('lo'))}, {_elo(rating.get('hi'))}]"
                 f"</span>")
        facts = [("Kind", _e(v["kind"])), ("Created", _e(_when(v["created"]))),
                 ("Code hash", f"<code>{_e(v['code_hash'])}</code>"), ("Note", _e(v["note"]) or
                                                                        "<span class='muted'>none</span>"),
                 ("Elo", f"<span class='elo'>{shown}</span>"), ("Deals", str(rating.get("deals", 0)))]
        if v["retired"] is not None:
            facts.append(("Retired", _e(_when(v["retired"]))))
        dl = "".join(f"<dt>{k}</dt><dd>{val}</dd>" for k, val in facts)
        body.append(
            f"<section class='version box' id='v{v['version']}' data-label='{_e(v['label'])}' data-id='{v['id']}'>"
            f"<h2>{_e(v['label'])}{badge}</h2><dl class='facts'>{dl}</dl>"
            f"<h3>Rating history</h3>{_history_svg(v['label'], v['history'])}"
            f"<h3>Faults</h3>{_faults_html(v['faults'])}"
            f"<h3>Latest games</h3>{_games_html(v['id'], v['games'])}</section>")
    return _page(f"Ladder: {data['name']}", "".join(body), _facts(info))


async def _leaderboard(request: web.Request) -> web.Response:
    service = _service(request)
    info = await _run(request, service.info)
    games, rows = await _run(request, service.standings)
    origin = f"{request.scheme}://{request.host}"
    return web.Response(text=_leaderboard_html(info, games, rows, origin), content_type="text/html",
                        charset="utf-8")


async def _entrant_page(request: web.Request) -> web.Response:
    service = _service(request)
    name = request.match_info["name"]
    data = await _run(request, service.entrant, name)
    if data is None:
        raise _Refusal(404, f"no entrant named {name[:40]!r}")
    info = await _run(request, service.info)
    return web.Response(text=_entrant_html(info, data), content_type="text/html", charset="utf-8")


async def _game_page(request: web.Request) -> web.Response:
    game_id = int(request.match_info["id"])
    text = await _run(request, _service(request).viewer, game_id)
    if text is None:
        raise _Refusal(404, f"no game {game_id} (or it has no record)")
    return web.Response(text=text, content_type="text/html", charset="utf-8",
                        headers={"Content-Security-Policy": _VIEWER_CSP})


# ---------------------------------------------------------------------- serving


def serve(ladder: Ladder, host: str = "127.0.0.1", port: int = 8080, ready: Optional[Callable[[str], Any]] = None,
          *, stop: Optional[threading.Event] = None, samples: int = SAMPLES) -> None:
    """Serve the ladder on ``host:port`` until interrupted (Ctrl-C, SIGTERM)
    or until ``stop`` is set. Port 0 picks a free port; ``ready(url)`` is
    called once the server listens. A port in use is a one-line
    :class:`ArenaError`."""
    for kind in (BadContentDispositionHeader, BadContentDispositionParam):
        warnings.filterwarnings("ignore", category=kind)    # a line per distinct bad header a client sends
    try:
        asyncio.run(_serve(ladder, host, port, ready, stop, samples))
    except KeyboardInterrupt:
        log.info("the ladder server was stopped")


async def _serve(ladder: Ladder, host: str, port: int, ready: Optional[Callable[[str], Any]],
                 stop: Optional[threading.Event], samples: int) -> None:
    import signal

    runner = web.AppRunner(make_app(ladder, samples), access_log=logging.getLogger("pengyou.ladder.access"))
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        try:
            await site.start()
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise ArenaError(f"port {port} on {host} is in use") from None
            raise ArenaError(f"cannot listen on {host} port {port}: {exc.strerror or exc}") from None
        bound = runner.addresses[0][1] if runner.addresses else port
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{bound}/"
        log.info("the ladder %s is served at %s", ladder.folder, url)
        done = asyncio.Event()
        loop = asyncio.get_running_loop()
        if threading.current_thread() is threading.main_thread():
            loop.add_signal_handler(signal.SIGTERM, done.set)
        if ready is not None:
            ready(url)
        while not done.is_set():
            if stop is not None and stop.is_set():
                break
            try:
                await asyncio.wait_for(done.wait(), 0.2)
            except TimeoutError:
                pass
    finally:
        await runner.cleanup()
