"""The ladder's pages for people, rendered through the page kit
(:mod:`arena.render.html`: templates with autoescape on, in
``arena/ladder/web/templates``):

- ``/``: the leaderboard, best first, each Elo with its 95 % interval drawn
  to one scale (:func:`arena.render.charts.interval_bar`, as the reports
  draw theirs); retired versions below;
- ``/entrants/NAME``: every version of an entrant, its rating history
  (:func:`arena.render.charts.history_chart`), its faults by kind and its
  latest games;
- ``/games/ID``: the replay viewer of one game (:mod:`arena.render.viewer`);
- ``/submissions/ID``: a submission's status, reloaded every
  :data:`REFRESH_SECONDS` (a meta refresh: the pages run no script) while it
  is validated, then its entrant or the reason it was refused, and where its
  owner reads its bots' logs.

Every name, owner, note and message on them is escaped by the templates.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from aiohttp import web

from ...render.charts import EloScale, HistorySeries, history_chart, interval_bar, scale_axis
from ...render.html import Pages
from ..fits import RatingRow
from .http import VIEWER_CSP, Refusal, html_response, iso_time, one_line
from .service import Submission, run, service_of

__all__ = ["PAGES", "add_routes", "leaderboard_html", "entrant_html", "error_html", "submission_html",
           "REFRESH_SECONDS"]

#: The ladder's templates, with the kit's own.
PAGES = Pages("arena.ladder.web")

#: How often a submission's page reloads itself while it is validated (seconds).
REFRESH_SECONDS = 2


def add_routes(app: web.Application, game_id: str, submission_id: str) -> None:
    """The pages' routes on ``app`` (``game_id``, ``submission_id``: the route
    patterns of a game's and a submission's ids)."""
    app.router.add_get("/", _leaderboard)
    app.router.add_get("/entrants/{name}", _entrant_page)
    app.router.add_get(f"/games/{game_id}", _game_page)
    app.router.add_get(f"/submissions/{submission_id}", _submission_page)


def _facts(info: Mapping[str, Any]) -> str:
    rules = info["rules"]
    return f"{rules['preset']}, {rules['players']} players, {rules['time_limit']:g} s a move; {info['games']} games"


def error_html(status: int, message: str) -> str:
    """The page of a refused or failed request: its title and one line."""
    title = {404: "Not found", 500: "Server error"}.get(status, f"Error {status}")
    return PAGES.render("error.html.j2", title=title, message=one_line(message))


def _row(r: RatingRow, scale: EloScale, rank: int) -> dict[str, Any]:
    rated = math.isfinite(r.elo)
    total = sum(r.faults.values())
    return {"id": r.id, "label": r.label, "name": r.name, "version": r.version, "owner": r.owner,
            "elo": r.elo, "lo": r.lo, "hi": r.hi, "deals": r.deals, "rated": rated, "rank": rank if rated else 0,
            "provisional": r.provisional, "retired": r.retired, "fault_total": total,
            "fault_kinds": ", ".join(f"{k} {n}" for k, n in r.faults.items() if n),
            "bar": interval_bar(r.label, r.elo, r.lo, r.hi, scale, r.provisional)}


def leaderboard_html(info: Mapping[str, Any], games: int, rows: Sequence[RatingRow], origin: str) -> str:
    """The leaderboard: the active versions ranked, then the retired ones,
    every interval on one scale (the ratings the runner kept; before any,
    the page says so)."""
    scale = EloScale.of_bars([(r.elo, r.lo, r.hi) for r in rows])
    active, rank = [], 0
    for r in rows:
        if not r.retired:
            rank += math.isfinite(r.elo)
            active.append(_row(r, scale, rank))
    retired = [_row(r, scale, 0) for r in rows if r.retired]
    return PAGES.render("leaderboard.html.j2", title="Ladder: leaderboard", facts=_facts(info), games=games,
                        provisional=int(info["rules"]["provisional"]), upload_mb=int(info["rules"]["upload_mb"]),
                        active=active, retired=retired, axis=scale_axis(scale), origin=origin,
                        versions=int(info.get("versions", 0)), kept=any(math.isfinite(r.elo) for r in rows))


def _game_row(entrant_id: int, g: Mapping[str, Any]) -> dict[str, Any]:
    me = next((s for s in g["entrants"] if s["id"] == entrant_id), g["entrants"][0])
    other = next((s for s in g["entrants"] if s is not me), me)
    deal = g["deal"] or {}
    maker = deal.get("maker")
    pts = me["points"]
    return {"id": g["id"], "written": g["written"], "opponent_name": other["name"],
            "opponent_label": other["label"], "own_seats": len(me["seats"]), "seats": len(g["seats"]),
            "maker": "" if maker is None else
            f"seat {maker}, " + ("its seat" if maker in me["seats"] else "the opponent's seat"),
            "opponents_points": deal.get("opponents_points", ""), "points": pts,
            "outcome": "won" if pts > 0 else "lost" if pts < 0 else "", "faults": me["faults"]}


def entrant_html(info: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    """An entrant's page: each version, newest first, with its facts, its
    rating history, its faults (linked to the games) and its latest games."""
    versions = []
    for v in data["versions"]:
        rating = {"elo": None, "lo": None, "hi": None, "deals": 0, "provisional": False, **(v["rating"] or {})}
        versions.append(dict(v, rating=rating, chart=history_chart([HistorySeries(v["label"], v["history"])]),
                             game_rows=[_game_row(v["id"], g) for g in v["games"]]))
    return PAGES.render("entrant.html.j2", title=f"Ladder: {data['name']}", facts=_facts(info), name=data["name"],
                        owner=data["owner"], versions=versions, provisional=int(info["rules"]["provisional"]))


async def _leaderboard(request: web.Request) -> web.Response:
    service = service_of(request)
    info = await run(request, service.info)
    games, rows = await run(request, service.standings)
    origin = f"{request.scheme}://{request.host}"
    return html_response(leaderboard_html(info, games, rows, origin))


async def _entrant_page(request: web.Request) -> web.Response:
    service = service_of(request)
    name = request.match_info["name"]
    data = await run(request, service.entrant, name)
    if data is None:
        raise Refusal(404, f"no entrant named {name[:40]!r}")
    info = await run(request, service.info)
    return html_response(entrant_html(info, data))


async def _game_page(request: web.Request) -> web.Response:
    game_id = int(request.match_info["id"])
    text = await run(request, service_of(request).viewer, game_id)
    if text is None:
        raise Refusal(404, f"no game {game_id} (or it has no record)")
    return html_response(text, headers={"Content-Security-Policy": VIEWER_CSP})


def submission_html(sub: Submission, origin: str) -> str:
    """A submission's page: its state, reloading itself while it is
    validated; then its entrant (and the owner's command for its bots' logs,
    on this server's ``origin``) or the reason it was refused."""
    data = sub.to_json()
    return PAGES.render("submission.html.j2", title=f"Ladder: submission of {sub.name}", sub=data, origin=origin,
                        refresh=REFRESH_SECONDS if sub.state == "validating" else 0,
                        submitted=iso_time(sub.submitted),
                        finished="" if sub.finished is None else iso_time(sub.finished),
                        seconds=round((sub.finished or sub.submitted) - sub.submitted))


async def _submission_page(request: web.Request) -> web.Response:
    sub = service_of(request).submissions.get(request.match_info["id"])
    if sub is None:
        raise Refusal(404, "no such submission (the server forgets old ones, and every one when it restarts)")
    return html_response(submission_html(sub, f"{request.scheme}://{request.host}"))
