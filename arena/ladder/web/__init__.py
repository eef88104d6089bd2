"""The ladder's web server (guide: ``docs/ladder.md``), in the parts it has:

- :mod:`.app`: the application, its guard (one-line errors, headers), the
  log of bad requests, and :func:`serve`;
- :mod:`.http`: refusals, JSON and HTML answers, content security
  policies, limits (a leaf);
- :mod:`.service`: the ladder as the handlers ask for it (reads, the
  ratings' cache, the queue of submissions and their validation processes);
- :mod:`.api`: the JSON API, bearer tokens and uploads;
- :mod:`.pages`: the leaderboard, entrant and game pages, on the page kit
  (:mod:`arena.render.html`).
"""

from .app import make_app, serve

__all__ = ["make_app", "serve"]
