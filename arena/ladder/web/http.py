"""What every part of the ladder's web server shares about HTTP: a refusal
(a status and one line), JSON and HTML answers, the pages' content security
policies, and the limits on what a client sends. A leaf: it imports nothing
else of the server.

Every time in the API's JSON is ISO 8601 UTC text (``2026-12-03T18:45:21Z``):
:func:`json_response` writes the fields of :data:`TIME_FIELDS` so, wherever
they are in the answer.
"""

from __future__ import annotations

import json
import math
import os
import time
from typing import Any, Optional

from aiohttp import web

__all__ = ["Refusal", "unauthorized", "one_line", "json_response", "html_response", "PAGE_CSP", "VIEWER_CSP",
           "FIELD_BYTES", "FORM_FIELDS", "TIME_FIELDS", "iso_time", "iso_times"]

#: The fields of the API's JSON that are times (epoch seconds inside, ISO 8601 UTC text outside).
TIME_FIELDS = frozenset({"created", "retired", "written", "at", "submitted", "finished"})

#: Largest text field of the submission form (bytes), and largest retire body.
FIELD_BYTES = 4096

#: The form's fields besides the file.
FORM_FIELDS = ("name", "class", "note", "entry")

#: The policy of the server's own pages: inline style and data images, no script.
PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

#: The replay viewer's policy: its own inline script too.
VIEWER_CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
              "base-uri 'none'; form-action 'none'")


class Refusal(Exception):
    """An answer other than success: a status and a one-line message."""

    def __init__(self, status: int, message: str, headers: Optional[dict[str, str]] = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def unauthorized(message: str, invalid: bool = False) -> Refusal:
    """A 401 with the bearer challenge (``invalid``: the token sent is not valid)."""
    challenge = 'Bearer realm="ladder"' + (', error="invalid_token"' if invalid else "")
    return Refusal(401, message, {"WWW-Authenticate": challenge})


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


def iso_time(t: float) -> str:
    """Epoch seconds as ISO 8601 UTC text, to the second.

    >>> iso_time(1796323521.7)
    '2026-12-03T18:45:21Z'
    """
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def iso_times(obj: Any) -> Any:
    """A copy of ``obj`` (JSON data) with every :data:`TIME_FIELDS` number
    written by :func:`iso_time` (None stays None).

    >>> iso_times({"id": 1, "created": 0.0, "games": [{"written": 60, "at": None}], "time_limit": 1.0})
    {'id': 1, 'created': '1970-01-01T00:00:00Z', 'games': [{'written': '1970-01-01T00:01:00Z', 'at': None}], \
'time_limit': 1.0}
    """
    if isinstance(obj, dict):
        return {k: iso_time(v) if k in TIME_FIELDS and isinstance(v, (int, float)) and not isinstance(v, bool)
                and math.isfinite(v) else iso_times(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [iso_times(v) for v in obj]
    return obj


def json_response(obj: Any, status: int = 200, headers: Optional[dict[str, str]] = None) -> web.Response:
    """``obj`` as compact JSON (no NaN), its times as ISO 8601 UTC text (:func:`iso_times`)."""
    return web.Response(text=json.dumps(iso_times(obj), separators=(",", ":"), allow_nan=False), status=status,
                        content_type="application/json", headers=headers)


def html_response(text: str, status: int = 200, headers: Optional[dict[str, str]] = None) -> web.Response:
    """A rendered page (UTF-8 HTML)."""
    return web.Response(text=text, status=status, content_type="text/html", charset="utf-8", headers=headers)
