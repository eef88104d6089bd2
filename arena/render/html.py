"""The one kit every page of the project is rendered with.

Pages are Jinja2 templates with autoescape on: whatever a template prints is
escaped unless it is already markup the kit built (a rendered fragment, an
asset of the package, JSON made safe by :func:`json_script`), so escaping is
the default rather than a call to remember. Text that came from a user (an
entrant's name, an owner, a note, a fault message, a file name) is handed to
a template as plain text and never marked safe.

A :class:`Pages` is a set of templates: the kit's own
(``arena/render/templates``) and, optionally, those of one more package (its
``templates`` folder), found through the import system, so an installed wheel
finds them as a checkout does.

>>> KIT.render_string("<p>{{ name }}</p>", name='<script>alert(1)</script>')
'<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>'
>>> str(json_script({"name": "</script><b>", "line": "\\u2028"}))
'{"name":"\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e","line":"\\\\u2028"}'
"""

from __future__ import annotations

import functools
import json
import math
import time
from importlib import resources
from typing import Any, Optional

import jinja2
from markupsafe import Markup

from .numbers import signed

__all__ = ["Pages", "KIT", "json_script", "asset", "elo_text", "when", "fmt"]

#: Characters a JSON text may hold that would end or confuse a ``<script>``
#: element (or a JavaScript parser older than ES2019), with their escapes.
_JSON_SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}

_DASH = Markup("&ndash;")


def json_script(obj: Any) -> Markup:
    """``obj`` as compact JSON that is safe inside a ``<script>`` element:
    ``<``, ``>``, ``&`` and the line and paragraph separators are written as
    ``\\u`` escapes, so no string in it can close the element (``</script>``)
    or open a comment. The result parses back to ``obj``."""
    text = json.dumps(obj, separators=(",", ":"))
    for ch, esc in _JSON_SCRIPT_ESCAPES.items():
        text = text.replace(ch, esc)
    return Markup(text)  # every character that could leave the element is escaped above


@functools.cache
def _asset_text(package: str, name: str) -> str:
    return resources.files(package).joinpath(name).read_text(encoding="utf-8")


def asset(name: str, package: str = "arena.render") -> Markup:
    """A style sheet or script of the package (``web/NAME`` of
    :mod:`arena.render` by default), to put inline in a page. These files
    are the package's own, never a user's."""
    path = name if package != "arena.render" else f"web/{name}"
    return Markup(_asset_text(package, path))


def elo_text(x: Optional[float], digits: int = 0) -> Any:
    """An Elo (or any signed number) as the pages print it: ``+12``, or an
    en dash for none or a non-finite value."""
    if x is None or not isinstance(x, (int, float)) or not math.isfinite(x):
        return _DASH
    return signed(x, digits)


def fmt(x: Optional[float], digits: int = 1) -> Any:
    """A signed number with ``digits`` decimals, or an en dash for none."""
    return elo_text(x, digits)


def when(t: Optional[float]) -> str:
    """A Unix time as ``YYYY-MM-DD HH:MM UTC`` ("" for none)."""
    return "" if t is None else time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t))


class Pages:
    """A set of templates, rendered with autoescape on.

    ``package`` (optional) adds that package's ``templates`` folder before
    the kit's own, so its pages may extend or import the kit's templates
    (the SVG charts, say). Every template sees :func:`asset`,
    :func:`elo_text`, :func:`fmt` and :func:`when` as globals and
    :func:`json_script` as a filter.
    """

    def __init__(self, package: Optional[str] = None) -> None:
        loaders: list[jinja2.BaseLoader] = []
        if package is not None:
            loaders.append(jinja2.PackageLoader(package, "templates"))
        loaders.append(jinja2.PackageLoader("arena.render", "templates"))
        self.env = jinja2.Environment(loader=jinja2.ChoiceLoader(loaders), autoescape=True,
                                      undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                                      keep_trailing_newline=True)
        self.env.filters["json_script"] = json_script
        self.env.globals.update(asset=asset, elo_text=elo_text, fmt=fmt, when=when, isfinite=_isfinite)

    def render(self, template: str, **context: Any) -> str:
        """The whole page ``template`` (a file name) rendered with ``context``."""
        return self.env.get_template(template).render(**context)

    def fragment(self, template: str, **context: Any) -> Markup:
        """A piece of a page (a table, a chart) rendered by ``template``, as
        markup to put into another template: it was escaped as it was built."""
        return Markup(self.render(template, **context))  # built by an autoescaping template

    def macro(self, template: str, name: str) -> Any:
        """The macro ``name`` of ``template``, callable from Python; it
        returns markup escaped as it was built."""
        return getattr(self.env.get_template(template).module, name)

    def render_string(self, source: str, **context: Any) -> str:
        """A template given as text (tests and examples), with the same escaping."""
        return self.env.from_string(source).render(**context)


def _isfinite(x: Any) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x)


#: The kit's own templates: the viewer's and the table's pages, the report,
#: the charts.
KIT = Pages()
