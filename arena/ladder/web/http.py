"""What every part of the ladder's web server shares about HTTP: a refusal
(a status and one line), JSON and HTML answers, the pages' content security
policies, and the limits on what a client sends. A leaf: it imports nothing
else of the server.
"""

from __future__ import annotations

import json
import os
from typing import Any, Optional

from aiohttp import web

__all__ = ["Refusal", "unauthorized", "one_line", "json_response", "html_response", "PAGE_CSP", "VIEWER_CSP",
           "FIELD_BYTES", "FORM_FIELDS"]

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


def json_response(obj: Any, status: int = 200, headers: Optional[dict[str, str]] = None) -> web.Response:
    """``obj`` as compact JSON (no NaN)."""
    return web.Response(text=json.dumps(obj, separators=(",", ":"), allow_nan=False), status=status,
                        content_type="application/json", headers=headers)


def html_response(text: str, status: int = 200, headers: Optional[dict[str, str]] = None) -> web.Response:
    """A rendered page (UTF-8 HTML)."""
    return web.Response(text=text, status=status, content_type="text/html", charset="utf-8", headers=headers)
