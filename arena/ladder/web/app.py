"""The ladder's web server: its standings and entrants for people
(:mod:`.pages`), a JSON API for programs and submissions from owners holding
a token (:mod:`.api`), on the ladder's data (:mod:`.service`).

:func:`make_app` builds the :mod:`aiohttp` application of a
:class:`~arena.ladder.folder.Ladder` and :func:`serve` runs it. Every answer
passes :func:`guard`: an error is one line (``{"error": "..."}`` for the
API, a page for people) without a traceback, and every answer carries the
headers that keep the pages to themselves (a content security policy, no
sniffing, no framing, no referrer, no caching).

A request aiohttp cannot even parse (a header too long, too many headers,
a broken chunk or compressed body) is the client's doing: it is logged on
one line without a traceback, at most :data:`BAD_REQUEST_LINES` lines a
minute (:class:`RequestLog`).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import math
import signal
import sys
import threading
import time
import warnings
from collections.abc import Awaitable, Callable
from typing import Any, Optional

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.multipart import BadContentDispositionHeader, BadContentDispositionParam
from aiohttp.web_protocol import RequestPayloadError

from ...types import ArenaError
from ..folder import Ladder
from . import api, pages
from .http import FIELD_BYTES, PAGE_CSP, Refusal, html_response, json_response, one_line
from .pages import error_html
from .service import SAMPLES, SERVICE, Service

__all__ = ["make_app", "serve", "guard", "RequestLog", "BAD_REQUEST_LINES"]

log = logging.getLogger("pengyou.ladder.server")

#: Lines logged a minute at most about requests aiohttp could not parse
#: (the rest are counted, and the count logged with the next line).
BAD_REQUEST_LINES = 20


@web.middleware
async def guard(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                ) -> web.StreamResponse:
    """Every answer: errors as one line (JSON for the API, a page for people),
    no traceback to a client, and the headers that keep pages to themselves."""
    is_api = request.path.startswith("/api/") or request.path == "/api"
    try:
        resp = await handler(request)
    except Refusal as exc:
        resp = _error(is_api, exc.status, exc.message, exc.headers)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        message = {404: f"no such page: {request.path[:80]}",
                   405: f"{request.method} is not allowed here",
                   413: "the request is too large"}.get(exc.status, exc.reason)
        headers = {"Allow": exc.headers["Allow"]} if "Allow" in exc.headers else None
        resp = _error(is_api, exc.status, message, headers)
    except asyncio.CancelledError:
        raise
    except ArenaError as exc:            # one line by design (a damaged database, say)
        log.error("%s %s failed: %s", request.method, request.path[:200], one_line(str(exc)))
        resp = _error(is_api, 500, "the server failed to answer; the error is in its log")
    except Exception:
        log.exception("%s %s failed", request.method, request.path[:200])
        resp = _error(is_api, 500, "the server failed to answer; the error is in its log")
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("Referrer-Policy", "no-referrer")
    resp.headers.setdefault("X-Frame-Options", "DENY")
    resp.headers.setdefault("Cache-Control", "no-store")
    if resp.content_type == "text/html":
        resp.headers.setdefault("Content-Security-Policy", PAGE_CSP)
    return resp


class RequestLog(logging.LoggerAdapter):  # type: ignore[type-arg]
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


def _error(is_api: bool, status: int, message: str, headers: Optional[dict[str, str]] = None) -> web.Response:
    """A refusal or failure as one line: JSON for the API, a page for people."""
    message = one_line(message)
    if is_api:
        return json_response({"error": message}, status, headers)
    return html_response(error_html(status, message), status, headers)


def make_app(ladder: Ladder, samples: int = SAMPLES) -> web.Application:
    """The ladder's web application (its worker threads end with it, and
    the validations under way are cancelled, their processes killed).

    >>> import os, tempfile
    >>> from arena.ladder import LadderRules
    >>> lad = Ladder.create(os.path.join(tempfile.mkdtemp(), "lad"), LadderRules())
    >>> sorted(r.resource.canonical for r in make_app(lad).router.routes() if r.method == "POST")
    ['/api/entrants/{name}/retire', '/api/submit']
    """
    limit = ladder.rules.upload_mb << 20
    app = web.Application(middlewares=[guard], client_max_size=limit + 64 * FIELD_BYTES,
                          handler_args={"logger": RequestLog(logging.getLogger("pengyou.ladder.http"))})
    service = Service(ladder, samples)
    app[SERVICE] = service

    async def stop(_app: web.Application) -> None:
        await service.stop()

    async def close(_app: web.Application) -> None:
        await asyncio.get_running_loop().run_in_executor(None, service.close)

    app.on_shutdown.append(stop)
    app.on_cleanup.append(close)
    pages.add_routes(app, api.GAME_ID, api.SUBMISSION_ID)
    api.add_routes(app)
    return app


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
