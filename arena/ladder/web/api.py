"""The ladder's JSON API: reading the ladder, and acting on it with an
owner's bearer token (submitting a bot as a multipart upload, retiring
versions).

- ``GET /api/ladder``: the rules and counts;
- ``GET /api/standings``: the ratings, best first;
- ``GET /api/entrants``: every version with its rating;
- ``GET /api/entrants/NAME``: its versions, rating history, faults, games;
- ``GET /api/games/ID``: one game's summary; ``GET /api/games/ID/record``
  its record (JSON lines, as :mod:`core.records` writes them);
- ``POST /api/submit`` (``Authorization: Bearer TOKEN``; a
  ``multipart/form-data`` form with ``name``, optional ``class``, ``entry``
  and ``note``, and the ``file``): ``202`` at once, with the submission's
  status (its ``id``, ``state`` ``validating``, its page ``url`` and its
  JSON ``api``; ``Location`` is the page), while it is validated in the
  background; with ``?wait=1``, the answer waits for the validation, as
  the server answered before: ``201`` with the new version, or the refusal;
- ``GET /api/submissions/ID``: a submission's status, ``validating``,
  then ``accepted`` (with its ``entrant``) or ``refused`` (with the
  one-line ``reason``); ``/submissions/ID`` is its page;
- ``GET /api/entrants/NAME/logs`` (the owner's token; optional
  ``?version=N``): what the owner's versions wrote to stderr in their games,
  the latest games first, at most :data:`~arena.ladder.web.service.LOG_BYTES`
  in all; another owner's name is ``403``;
- ``POST /api/entrants/NAME/retire`` (the token; optional JSON body
  ``{"version": N}``): ``200`` with the retired versions.

Every time in the answers is ISO 8601 UTC text (``2026-12-03T18:45:21Z``).

A token names its owner; a missing or unknown token is answered ``401``,
acting on another owner's name ``403``, and a refused action changes
nothing. An upload is read as it streams in, at most the ladder's
``upload_mb`` (``413`` past it), kept in memory or an unnamed temporary
file, and handed to the service, which validates it in a process of its
own; an owner has one submission in the server at a time (``429``, until
the earlier one is answered), and
at most :data:`~arena.ladder.web.service.MAX_WAITING` are waiting in all
(``503``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import tempfile
from typing import Any, Optional

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.multipart import BodyPartReader
from aiohttp.web_protocol import RequestPayloadError

from ...types import ArenaError
from ..folder import NAME_RE, validate_name
from ..store import EntrantRow
from .http import FIELD_BYTES, FORM_FIELDS, Refusal, json_response, one_line, unauthorized
from .service import LOG_BYTES, Service, Submission, run, service_of

__all__ = ["add_routes", "BODY_SECONDS", "GAME_ID", "SUBMISSION_ID"]

log = logging.getLogger("pengyou.ladder.server")

#: Seconds a retire body may take to arrive (a client that never ends it
#: does not hold its request open for ever).
BODY_SECONDS = 30

#: A game's id in a route.
GAME_ID = r"{id:[0-9]{1,15}}"

#: A submission's id in a route.
SUBMISSION_ID = r"{id:[A-Za-z0-9_-]{1,40}}"


def add_routes(app: web.Application) -> None:
    """The API's routes on ``app``."""
    app.router.add_get("/api/ladder", _api_ladder)
    app.router.add_get("/api/standings", _api_standings)
    app.router.add_get("/api/entrants", _api_entrants)
    app.router.add_get("/api/entrants/{name}", _api_entrant)
    app.router.add_get(f"/api/games/{GAME_ID}", _api_game)
    app.router.add_get(f"/api/games/{GAME_ID}/record", _api_record)
    app.router.add_post("/api/submit", _api_submit)
    app.router.add_get(f"/api/submissions/{SUBMISSION_ID}", _api_submission)
    app.router.add_get("/api/entrants/{name}/logs", _api_logs)
    app.router.add_post("/api/entrants/{name}/retire", _api_retire)


# ---------------------------------------------------------------------- reading


async def _api_ladder(request: web.Request) -> web.Response:
    return json_response(await run(request, service_of(request).info))


async def _api_standings(request: web.Request) -> web.Response:
    games, rows = await run(request, service_of(request).standings)
    return json_response({"games": games, "rows": [r.to_json() for r in rows]})


async def _api_entrants(request: web.Request) -> web.Response:
    return json_response(await run(request, service_of(request).entrants))


async def _api_entrant(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    found = await run(request, service_of(request).entrant, name)
    if found is None:
        raise Refusal(404, f"no entrant named {name[:40]!r}")
    return json_response(found)


async def _game_or_404(request: web.Request) -> tuple[int, tuple[dict[str, Any], str]]:
    game_id = int(request.match_info["id"])
    found = await run(request, service_of(request).game, game_id)
    if found is None:
        raise Refusal(404, f"no game {game_id}")
    return game_id, found


async def _api_game(request: web.Request) -> web.Response:
    _, (summary, _record) = await _game_or_404(request)
    return json_response(summary)


async def _api_record(request: web.Request) -> web.Response:
    game_id, (_summary, record) = await _game_or_404(request)
    if not record.strip():
        raise Refusal(404, f"game {game_id} has no record")
    return web.Response(text=record, content_type="text/plain", charset="utf-8",
                        headers={"Content-Disposition": f'inline; filename="game-{game_id}.jsonl"'})


# ---------------------------------------------------------------------- acting

_TOKEN = re.compile(r"[A-Za-z0-9._~+/-]{1,512}=*")


async def _owner(request: web.Request) -> str:
    """The owner whose token the request carries (else 401)."""
    value = request.headers.get("Authorization", "")
    scheme, _, token = value.strip().partition(" ")
    token = token.strip()
    if not value.strip():
        raise unauthorized("this needs your owner token: send the header 'Authorization: Bearer TOKEN'")
    if scheme.lower() != "bearer" or not _TOKEN.fullmatch(token):
        raise unauthorized("the Authorization header must be 'Bearer TOKEN'", invalid=True)
    owner = await run(request, service_of(request).owner_of, token)
    if owner is None:
        raise unauthorized("the token is not valid", invalid=True)
    return owner


async def _check_owner(request: web.Request, name: str, owner: str, must_exist: bool) -> list[EntrantRow]:
    rows = await run(request, service_of(request).versions, name)
    if rows and rows[0].owner != owner:
        raise Refusal(403, f"the name {name!r} belongs to another owner")
    if must_exist and not rows:
        raise Refusal(404, f"no entrant named {name!r}")
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
        raise Refusal(415, "send the submission as multipart/form-data (fields name, class, note and the file)")
    too_large = Refusal(413, f"the upload is larger than this ladder takes ({limit >> 20} MiB)")
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
                raise Refusal(400, "the form has a nested multipart part: send name, class, note and one file")
            what = part.name or ""
            if what == "file":
                if upload is not None:
                    raise Refusal(400, "send one file")
                if not part.filename:
                    raise Refusal(400, "the file part has no file name")
                upload = _Upload(part.filename)
                while chunk := await part.read_chunk(1 << 16):
                    upload.size += len(chunk)
                    if upload.size > limit:
                        raise too_large
                    upload.data.write(chunk)
            elif what in FORM_FIELDS:
                if what in fields:
                    raise Refusal(400, f"the form has the field {what!r} twice")
                data = bytearray()
                while chunk := await part.read_chunk(FIELD_BYTES):
                    data += chunk
                    if len(data) > FIELD_BYTES:
                        raise Refusal(400, f"the field {what!r} is longer than {FIELD_BYTES} bytes")
                try:
                    fields[what] = data.decode("utf-8")
                except UnicodeDecodeError:
                    raise Refusal(400, f"the field {what!r} is not UTF-8 text") from None
            else:
                raise Refusal(400, f"the form has an unknown field {what[:40]!r}: send name, class, note and file")
        raise Refusal(400, "the form has too many parts: send name, class, note and one file")
    except BaseException as exc:
        if upload is not None:
            upload.close()
        if isinstance(exc, web.HTTPRequestEntityTooLarge):
            raise too_large from None
        if isinstance(exc, Exception) and not isinstance(exc, Refusal):
            raise Refusal(400, f"the form could not be read ({type(exc).__name__})") from None
        raise


async def _api_submit(request: web.Request) -> web.Response:
    service = service_of(request)
    owner = await _owner(request)
    wait = request.query.get("wait", "") not in ("", "0", "false", "no")
    if owner in service.owners:
        raise Refusal(429, "your earlier submission is still being validated: wait for its answer before you "
                            "send another")
    service.owners.add(owner)            # until this one is answered (from before its upload is read)
    started = False
    try:
        sub = await _submit(request, service, owner)
        started = True
    finally:
        if not started:
            service.owners.discard(owner)
    if not wait:
        return json_response(sub.to_json(), 202, {"Location": f"/submissions/{sub.id}"})
    assert sub.task is not None
    await asyncio.shield(sub.task)      # a client that goes away leaves the validation running
    if sub.state != "accepted" or sub.entrant is None:
        raise Refusal(sub.status or 400, sub.reason)
    row = sub.entrant
    return json_response(row.to_json(), 201, {"Location": f"/entrants/{row.name}"})


async def _api_submission(request: web.Request) -> web.Response:
    sub = service_of(request).submissions.get(request.match_info["id"])
    if sub is None:
        raise Refusal(404, "no such submission (the server forgets old ones, and every one when it restarts)")
    return json_response(sub.to_json())


async def _api_logs(request: web.Request) -> web.Response:
    service = service_of(request)
    name = request.match_info["name"]
    owner = await _owner(request)
    version: Optional[int] = None
    if "version" in request.query:
        text = request.query["version"]
        if not text.isdigit() or not 1 <= int(text) <= 1_000_000:
            raise Refusal(400, f"version: {text[:20]!r} is not a version number")
        version = int(text)
    if not NAME_RE.fullmatch(name):
        raise Refusal(404, f"no entrant named {name[:40]!r}")
    rows = await _check_owner(request, name, owner, must_exist=True)
    if version is not None:
        rows = [r for r in rows if r.version == version]
        if not rows:
            raise Refusal(404, f"{name!r} has no version {version}")
    versions = await run(request, service.logs, [r for r in rows if r.kind != "builtin"])
    return json_response({"name": name, "owner": owner, "limit": LOG_BYTES, "versions": versions})


async def _submit(request: web.Request, service: Service, owner: str) -> Submission:
    """Read and check the form, then start its validation (the caller keeps
    ``owner`` in the service's owners until that ends)."""
    fields, upload = await _read_form(request, service.ladder.rules.upload_mb << 20)
    try:
        name = fields.get("name", "").strip()
        if not name:
            raise Refusal(400, "the form has no name: send the field 'name'")
        if upload is None:
            raise Refusal(400, "the form has no file: send the bot as the file part 'file'")
        try:
            validate_name(name)
        except ArenaError as exc:
            raise Refusal(400, str(exc)) from None
        await _check_owner(request, name, owner, must_exist=False)
        cls = fields.get("class", "").strip() or None
        note = fields.get("note", "")
        entry = fields.get("entry", "").strip() or None
        if service.full():
            raise Refusal(503, "too many submissions are being validated; try again in a minute")

        def done() -> None:
            service.waiting -= 1
            service.owners.discard(owner)

        service.waiting += 1
        return service.start(upload.data, upload.filename, name, owner, cls, note, entry, done)
    finally:
        if upload is not None:
            upload.close()


async def _read_body(request: web.Request, limit: int) -> bytes:
    """The whole body, however it arrives (in one piece or many), at most
    ``limit`` bytes (else 413) within :data:`BODY_SECONDS` (else 408); a
    body that cannot be read is a 400."""
    too_large = Refusal(413, f"send a JSON body of at most {limit} bytes")
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
        raise Refusal(408, f"the body did not arrive within {BODY_SECONDS} s") from None
    except (RequestPayloadError, HttpProcessingError) as exc:
        raise Refusal(400, f"the body could not be read ({type(exc).__name__})") from None
    except ConnectionError:              # the client went away: nobody reads the answer
        raise Refusal(400, "the body ended before it was whole") from None
    return bytes(body)


async def _api_retire(request: web.Request) -> web.Response:
    service = service_of(request)
    name = request.match_info["name"]
    owner = await _owner(request)
    body = await _read_body(request, FIELD_BYTES)
    version: Optional[int] = None
    if body:                             # only an empty body retires every version
        try:
            obj = json.loads(body)
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise Refusal(400, 'the body is not JSON: send {"version": N} or nothing') from None
        if not isinstance(obj, dict) or set(obj) - {"version"}:
            raise Refusal(400, 'send {"version": N} or nothing')
        v = obj.get("version")
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            raise Refusal(400, f"version: {str(v)[:20]!r} is not a version number")
        version = v
    if not NAME_RE.fullmatch(name):
        raise Refusal(404, f"no entrant named {name[:40]!r}")
    rows = await _check_owner(request, name, owner, must_exist=True)
    if version is not None and all(r.version != version for r in rows):
        raise Refusal(404, f"{name!r} has no version {version}")
    try:
        retired = await run(request, service.retire, name, owner, version)
    except ArenaError as exc:
        raise Refusal(400, one_line(str(exc), service.ladder.folder)) from None
    log.info("%s retired %s", owner, ", ".join(r.label for r in retired))
    return json_response({"retired": [r.to_json() for r in retired]})
