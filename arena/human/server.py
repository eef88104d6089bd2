"""The local web table of ``pengyou play --human``: a page and a small JSON API
on 127.0.0.1 for one person's seat (:class:`arena.human.table.Session`).

``GET /`` is the table's page; ``GET /api/state?since=V&client=ID`` the
seat's latest state (waiting up to 10 s for one newer than version ``V``;
when the deal ends the server waits until each page seen lately was sent
the end); ``POST
/api/action`` with ``{"action": "play AS AS"}`` the person's decision,
answered ``200 {"ok": true}`` or ``400 {"ok": false, "error": "..."}`` with
the engine's reason. The standard library's threading HTTP server is enough
here: one person, on this machine only, a handful of requests a second.

A page that goes away (its tab closed, its connection dropped) is noticed
where it happens: a state request whose connection closes while it waits,
or an answer that cannot be written, counts as a dropped page, quietly. When
no page has asked again :data:`GONE_AFTER` seconds after a drop (a reload
asks at once), the page is gone and the session is closed with
:data:`PAGE_CLOSED`: the deal ends with one line, never a traceback.
"""

from __future__ import annotations

import errno
import json
import select
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional
from urllib.parse import parse_qs, urlparse

from .table import Session
from ..render.html import KIT
from ..types import ArenaError

__all__ = ["TableServer", "GONE_AFTER", "PAGE_CLOSED"]

#: Largest request body taken (an action is a line of text).
MAX_BODY = 4096

#: Seconds after a dropped page with no page asking again before the page counts as closed.
GONE_AFTER = 3.0

#: Why the session ends when the page is gone (the start of the one line the terminal shows).
PAGE_CLOSED = "the table's page was closed"

#: What a connection the other end dropped raises on this side.
_DROPPED = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)


def _page() -> bytes:
    """The table's page, through the page kit (:mod:`arena.render.html`)."""
    return KIT.render("table.html.j2").encode()


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:      # quiet: the terminal shows the game
        pass

    def handle(self) -> None:
        """Answer the connection's request; a connection dropped by the page
        (a closed tab) is noted, never reported."""
        try:
            super().handle()
        except _DROPPED:
            self.server.dropped()

    def finish(self) -> None:
        try:
            super().finish()
        except _DROPPED:                         # what was left to send has nowhere to go
            self.server.dropped()

    def _peer_gone(self) -> bool:
        """Whether the page closed this request's connection while it waited."""
        try:
            ready, _, _ = select.select([self.connection], [], [], 0)
            return bool(ready) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:                          # reset: gone as well
            return True

    def _wait_newer(self, version: int, timeout: float) -> Optional[dict[str, Any]]:
        """The session's snapshot once newer than ``version`` (or after
        ``timeout`` seconds); None when the page dropped the request first."""
        session = self.server.session
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            snap = session.wait_newer(version, max(0.0, min(0.25, left)))
            if snap["version"] > version or session.closed or left <= 0:
                return snap
            if self._peer_gone():
                return None

    def _send(self, code: int, body: bytes, kind: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, code: int, obj: Any) -> None:
        self._send(code, json.dumps(obj).encode(), "application/json")

    def _ours(self) -> bool:
        """Whether the request names this table as its host (no other site's
        page may reach it through a name that points here) and, if it says
        where it comes from, comes from the table's own page."""
        want = f"127.0.0.1:{self.server.server_address[1]}"
        host = self.headers.get("Host", "")
        origin = self.headers.get("Origin")
        if host not in (want, f"localhost:{self.server.server_address[1]}") or (
                origin is not None and origin not in (f"http://{host}",)):
            self._json(403, {"ok": False, "error": "this table only answers its own page on 127.0.0.1"})
            return False
        return True

    def do_GET(self) -> None:
        if not self._ours():
            return
        self.server.asked()
        url = urlparse(self.path)
        if url.path in ("/", "/index.html"):
            self._send(200, self.server.page, "text/html; charset=utf-8")
        elif url.path == "/api/state":
            since = parse_qs(url.query).get("since", ["-1"])[0]
            try:
                version = int(since)
            except ValueError:
                self._json(400, {"ok": False, "error": "since must be a whole number"})
                return
            client = parse_qs(url.query).get("client", [""])[0][:40]
            self.server.seen(client)
            self.server.waiting(+1)
            try:
                snap = self._wait_newer(version, 10.0)
                if snap is None:
                    self.server.dropped()
                    return
                self._json(200, snap)
            finally:
                self.server.waiting(-1)
            self.server.sent(client, snap["version"])
        else:
            self._json(404, {"ok": False, "error": f"no such page: {url.path[:80]}"})

    def do_POST(self) -> None:
        if not self._ours():
            return
        self.server.asked()
        if urlparse(self.path).path != "/api/action":
            self._json(404, {"ok": False, "error": "only /api/action takes a POST"})
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if (self.headers.get("Content-Type") or "").split(";")[0].strip() != "application/json":
            # a form another site's page could post without asking first is not taken
            self._json(415, {"ok": False, "error": "send the action as application/json"})
            return
        if not 0 < length <= MAX_BODY:
            self._json(400, {"ok": False, "error": f"send a JSON body of at most {MAX_BODY} bytes"})
            return
        try:
            body = json.loads(self.rfile.read(length))
        except (ValueError, UnicodeDecodeError):
            self._json(400, {"ok": False, "error": "the body is not JSON"})
            return
        text = body.get("action") if isinstance(body, dict) else None
        ok, why = self.server.session.submit(text)
        self._json(200 if ok else 400, {"ok": ok, "error": why})


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, addr: tuple[str, int], session: Session) -> None:
        self.session = session
        self.page = _page()
        self.clients: dict[str, list[float]] = {}      # client id -> [version sent, last seen]
        self.cond = threading.Condition()
        self.pending = 0                               # state requests waiting now
        self.drop: Optional[float] = None              # when a page last dropped, if none asked since
        super().__init__(addr, _Handler)

    def asked(self) -> None:
        """A page asked the table: it is there (a reload after a drop, say)."""
        with self.cond:
            self.drop = None

    def waiting(self, step: int) -> None:
        """A state request starts (+1) or ends (-1) waiting."""
        with self.cond:
            self.pending += step

    def dropped(self) -> None:
        """A page dropped its connection (a closed tab, say)."""
        with self.cond:
            self.drop = time.monotonic()

    def gone(self) -> bool:
        """Whether the page is gone: it dropped a connection :data:`GONE_AFTER`
        seconds ago, and no page has asked since."""
        with self.cond:
            return self.drop is not None and self.pending == 0 and time.monotonic() - self.drop >= GONE_AFTER

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A request that failed: a dropped connection is noted quietly,
        anything else is one line on stderr (the game goes on)."""
        exc = sys.exc_info()[1]
        if isinstance(exc, _DROPPED):
            self.dropped()
            return
        print(f"pengyou: the table could not answer a request: {type(exc).__name__}: {exc}"[:300],
              file=sys.stderr, flush=True)

    def seen(self, client: str) -> None:
        with self.cond:
            self.clients.setdefault(client, [-1.0, 0.0])[1] = time.monotonic()

    def sent(self, client: str, version: int) -> None:
        with self.cond:
            entry = self.clients.setdefault(client, [-1.0, 0.0])
            entry[0] = max(entry[0], version)
            entry[1] = time.monotonic()
            self.cond.notify_all()

    def all_have(self, version: int) -> bool:
        """Whether every page seen in the last 15 s has been sent ``version``."""
        now = time.monotonic()
        return all(v >= version for v, t in self.clients.values() if now - t < 15.0)


class TableServer:
    """The table's server on ``host:port`` (port 0: any free port), served from a thread."""

    def __init__(self, session: Session, port: int = 8765, host: str = "127.0.0.1") -> None:
        try:
            self._server = _Server((host, port), session)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise ArenaError(f"--port {port}: the port is in use; choose another (0 picks a free one)") from None
            raise ArenaError(f"--port {port}: {exc.strerror or exc}") from None
        self.session = session
        self._thread: Optional[threading.Thread] = None
        self._watch: Optional[threading.Thread] = None
        self._stopped = threading.Event()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/" if isinstance(host, str) else f"http://127.0.0.1:{port}/"

    def start(self) -> None:
        """Serve from a background thread."""
        self._thread = threading.Thread(target=self._server.serve_forever, name="table-server", daemon=True)
        self._thread.start()
        self._watch = threading.Thread(target=self._watch_page, name="table-watch", daemon=True)
        self._watch.start()

    def _watch_page(self) -> None:
        """Close the session (the deal ends at its next step) once the page is gone."""
        while not self._stopped.wait(0.25):
            if self._server.gone() and not self.session.snapshot()["done"]:
                self.session.close(PAGE_CLOSED)
                return

    def wait_delivered(self, timeout: float) -> bool:
        """Wait until the page has been sent the session's latest state (the
        deal's end, say); False after ``timeout`` seconds without it."""
        version = self.session.snapshot()["version"]
        srv = self._server
        with srv.cond:
            return srv.cond.wait_for(lambda: srv.all_have(version), timeout)

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._stopped.set()
        self.session.close()
        self._server.shutdown()
        self._server.server_close()
        for thread in (self._thread, self._watch):
            if thread is not None:
                thread.join(5)
