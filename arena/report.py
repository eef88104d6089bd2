"""HTML reports: a run, an SPRT or a tuning run as one self-contained page.

:func:`run_report` gathers a stored run's numbers from the one owner of each
(:func:`arena.tournament.standings.run_standings`, the fit kept in the file,
for Elo, duplicate scores and the head-to-head table, :func:`arena.stats.ratings.role_margins` for the margins by seat
and by role, the store for faults, :func:`arena.tournament.sprt.saved_state` for an
SPRT's LLR path) and :func:`tune_report` a tuning run's trajectory
(:func:`arena.tournament.tune.trajectory_figure`). The page is rendered through the page
kit (:mod:`arena.render.html`: templates with autoescape on, so every name,
spec, note and fault message is escaped as it is printed). The Elo intervals
and the ladder's rating history are the drawings the ladder's pages use
(:mod:`arena.render.charts`); the other plots (the head-to-head heat map, an
SPRT's LLR path, a tuning trajectory) are drawn by matplotlib, whose SVG
writer escapes the text it is given, and put inline, so the page needs no
network and no other file. The games with faults get a viewer page each
(:mod:`arena.render.viewer`) in a folder next to the report, linked from the
faults' table. A deal a fault forfeited is told as a forfeit, in the games
table and on its page: who faulted, how, at which decision, and the score
the deal was given, not the referee's random finish.

A run that holds a sequential test is shown as the test's page, the answer
first (the verdict in words, hypotheses, LLR and bounds, the LLR's path),
then the standings with the test's own Elo and margin, the games last; a
tuning run's page leads with its final test. Those parts, the page kit and
the plots of a test are :mod:`arena.render.report_pages`'s. The games table
is paged by the page's own script (50 rows at a time), and every table
scrolls in a box of its own, so no page is wider than the window.
"""

from __future__ import annotations

import dataclasses
import io
import math
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, Optional

from markupsafe import Markup

from .render.charts import EloScale, HistorySeries, history_chart, interval_bar, scale_axis
from .render.numbers import signed
from .render.viewer import forfeit_fault, with_forfeits
from .render.report_pages import GAMES_PAGE, pyplot, report_page, report_part, svg_of, sprt_estimates, sprt_summary
from .stats.ratings import ROLES, Interval, Standings, role_margins
from .types import FAULT_KINDS, ArenaError, Entrant

__all__ = ["run_report", "ladder_report", "tune_report", "write_report"]


#: Job keys that may name a game's page file (the arena writes keys like ``g3-l1-r0``).
_SAFE_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


_DASH = Markup("&ndash;")


def _num(x: Optional[float], digits: int = 1) -> Any:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return _DASH
    return f"{x:+.{digits}f}" if digits >= 0 else str(x)


def _interval(iv: Interval, digits: int = 1) -> Any:
    if iv.n == 0:
        return _DASH
    if not math.isfinite(iv.lo):
        return f"{iv.mean:+.{digits}f}"
    return f"{iv.mean:+.{digits}f} [{iv.lo:+.{digits}f}, {iv.hi:+.{digits}f}]"


#: The heat map's colours span at least this many card points each way, so
#: that a small difference between two close bots is drawn pale, not as
#: strongly as the largest margin a table can show.
HEAT_FLOOR = 20.0


def _ranked(st: Standings, names: Sequence[str]) -> tuple[list[int], list[str]]:
    """The entrant indices best first (the standings' order) and their names."""
    order = [r.index for r in st.rows if 0 <= r.index < len(names)]
    return order, [names[i] for i in order]


def _heat_plot(st: Standings, names: Sequence[str]) -> str:
    plt = pyplot()
    order, labels = _ranked(st, names)
    n = len(order)
    grid = [[math.nan] * n for _ in range(n)]
    for a, i in enumerate(order):
        for b, j in enumerate(order):
            cell = st.cross.get((i, j))
            if cell is not None and cell.n:
                grid[a][b] = cell.margin
    fig, ax = plt.subplots(figsize=(1.1 * n + 2.5, 0.9 * n + 1.5))
    finite = [abs(v) for row in grid for v in row if math.isfinite(v)]
    lim = max(finite + [HEAT_FLOOR])
    im = ax.imshow(grid, cmap="RdBu", vmin=-lim, vmax=lim)
    for i in range(n):
        for j in range(n):
            if math.isfinite(grid[i][j]):
                ax.text(j, i, signed(grid[i][j], 1), ha="center", va="center", fontsize=9,
                        color="white" if abs(grid[i][j]) > 0.6 * lim else "black")
    ax.set_xticks(range(n), labels, rotation=30, ha="right")
    ax.set_yticks(range(n), labels)
    ax.set_xlabel("against")
    fig.colorbar(im, ax=ax, label="mean card margin of the row's seats")
    return svg_of(fig)


def _standings_table(st: Standings, status: Optional[Mapping[str, str]] = None) -> Markup:
    """The standings, each rated Elo with its interval drawn as the ladder's leaderboard draws it."""
    scale = EloScale.of_bars([(r.elo, r.elo_lo, r.elo_hi) for r in st.rows if r.rated])
    rows = [{"name": r.name, "spec": r.spec, "elo": r.elo, "elo_lo": r.elo_lo, "elo_hi": r.elo_hi,
             "bar": interval_bar(r.name, r.elo, r.elo_lo, r.elo_hi, scale) if r.rated else "",
             "deals": r.deals, "dup": _interval(r.dup), "margin": r.margin, "game_points": r.game_points,
             "faults": sum(r.faults.values())} for r in st.rows]
    note = (f"{st.deals} deals in {st.groups} duplicate groups; maker-side edge {st.maker_edge:+.0f} Elo; Elo "
            f"intervals from {st.samples} bootstrap resamples of the groups; the duplicate score is a seat's card "
            "margin against the mean of the same seat on the same cards.")
    return report_part("standings_table", rows=rows, status=status, axis=scale_axis(scale), note=note)


def _duplicate_table(st: Standings) -> Markup:
    return report_part("duplicate_table", rows=[(r.name, _interval(r.dup), r.dup.n) for r in st.rows])


def _cross_table(st: Standings, names: Sequence[str]) -> Markup:
    """The head-to-head table, its rows and columns in the standings' order."""
    order, labels = _ranked(st, names)
    cells = [[None if (c := st.cross.get((i, j))) is None or not c.n else c for j in order] for i in order]
    return report_part("cross_table", names=labels, cells=cells)


def _faults_section(entrants: Sequence[Entrant], faults: Sequence[tuple[str, Any]], links: Mapping[str, str]
                    ) -> Markup:
    kinds = list(FAULT_KINDS)
    counts = [[0] * len(kinds) for _ in entrants]
    for _, f in faults:
        if 0 <= f.entrant < len(entrants) and f.kind in kinds:
            counts[f.entrant][kinds.index(f.kind)] += 1
    items = [{"key": key, "link": links.get(key), "seat": f.seat, "kind": f.kind, "decision": f.decision,
              "message": f.message,
              "name": entrants[f.entrant].name if 0 <= f.entrant < len(entrants) else str(f.entrant)}
             for key, f in faults[:200]]
    return report_part("faults_section", kinds=kinds, counts=[(e.name, counts[i]) for i, e in enumerate(entrants)],
                 items=items, more=max(0, len(faults) - 200))


def _roles_section(entrants: Sequence[Entrant], results: Sequence[Any], players: int) -> Markup:
    margins = role_margins(results, len(entrants), players)

    def told(iv: Interval) -> Any:              # a narrow column breaks before the interval, never inside it
        return _interval(iv).replace(", ", ",\u00a0")

    rows = [(e.name, [(r, told(m.by_role[r]), m.by_role[r].n) for r in ROLES],
             [(told(iv), iv.n) for iv in m.by_seat]) for e, m in zip(entrants, margins)]
    return report_part("roles_section", roles=list(ROLES), players=players, rows=rows)


#: The longest fault message the games table prints (the faults' list has it whole).
_TOLD_MESSAGE = 120


def _forfeit_told(res: Any, deal: Any, entrants: Sequence[Entrant]) -> str:
    """A forfeited deal in the games table: who faulted, how, at which
    decision, and the score the deal was given (not the random finish's)."""
    s = deal.forfeit
    seats = deal.seats or res.seats
    e = seats[s] if 0 <= s < len(seats) else -1
    name = entrants[e].name if 0 <= e < len(entrants) else "?"
    f = forfeit_fault(res, s)
    how = ""
    if f is not None:
        msg = f.message if len(f.message) <= _TOLD_MESSAGE else f.message[:_TOLD_MESSAGE - 3] + "..."
        how = f" ({f.kind} at decision {f.decision}: {msg})"
    side = [k for k, who in enumerate(seats) if who == e]
    return (f"forfeit: seat {s} ({name}) faulted{how}; scored {deal.game_points[s]:+d} game points and a card "
            f"margin of {deal.margins[s]:+g} for seats {' '.join(map(str, side))}, the others the opposite; "
            "the page's finish is the referee's, at random, and does not count")


def _games_section(results: Sequence[Any], entrants: Sequence[Entrant], links: Mapping[str, str],
                   listed: str = "") -> Markup:
    rows = []
    for res in results:
        seats = " ".join(f"{s}:{entrants[e].name}" if 0 <= e < len(entrants) else f"{s}:?"
                         for s, e in enumerate(res.seats))
        told = "; ".join(_forfeit_told(res, d, entrants) if d.forfeit >= 0 else
                         f"seat {d.maker} made trump, the opponents took {d.opponents_points}"
                         for d in res.deals[:3]) + (" ..." if len(res.deals) > 3 else "")
        forfeits = " ".join(str(d.forfeit) for d in res.deals if d.forfeit >= 0)
        rows.append({"key": res.key, "link": links.get(res.key), "seats": seats, "deals": len(res.deals),
                     "told": told, "faults": len(res.faults), "forfeits": forfeits})
    unlinked = sum(1 for r in results if r.key not in links)
    return report_part("games_section", rows=rows, unlinked=unlinked, listed=listed, page_size=GAMES_PAGE)


def _viewer_pages(keys: Sequence[str], record_of: Any, title_of: Any, games_dir: Optional[str],
                  games: int, result_of: Any = None) -> tuple[dict[str, str], dict[str, str]]:
    """Viewer pages (``{relative path: page}``) and links (``{key: path}``)
    for the first ``games`` of ``keys`` that have a record (``record_of(key)``,
    "" for none), in ``games_dir``; none without ``games_dir``. ``result_of(key)``:
    the job's stored result, whose forfeits an older record lacks."""
    from core.records import read_records

    from .render.viewer import page as viewer_page

    pages: dict[str, str] = {}
    links: dict[str, str] = {}
    if not games_dir:
        return pages, links
    for key in keys:
        if len(links) >= games:
            break
        if key in links or not _SAFE_KEY.fullmatch(key):
            continue                             # (a key that is not a plain name never becomes a path)
        record = record_of(key)
        if not record:
            continue
        rel = f"{games_dir}/{key}.html"
        records = read_records(io.StringIO(record))
        if result_of is not None:
            records = with_forfeits(records, result_of(key))
        pages[rel] = viewer_page(records, title_of(key))
        links[key] = rel
    return pages, links


def _result_sections(st: Standings, entrants: Sequence[Entrant], results: Sequence[Any],
                     faults: Sequence[tuple[str, Any]], players: int, links: Mapping[str, str],
                     status: Optional[Mapping[str, str]] = None,
                     shown: Optional[Sequence[Any]] = None) -> list[tuple[str, str, Markup]]:
    """The sections every page of results has: standings (with a status
    column when ``status`` is given), duplicate scores, head to head, faults,
    margins by role and seat, and the games (``shown``, default all)."""
    names = [e.name for e in entrants]
    table = _standings_table(st, status)
    return [
        ("standings", "Standings", table),
        ("duplicate", "Duplicate scores", _duplicate_table(st)),
        ("head-to-head", "Head to head", _cross_table(st, names) + (Markup(_heat_plot(st, names)) if results else "")),
        ("faults", "Faults", _faults_section(entrants, faults, links)),
        ("roles", "Margins by role and by seat", _roles_section(entrants, results, players)),
        ("games", "Games", _games_section(results if shown is None else shown, entrants, links,
                                          f"The newest {len(shown)} of {len(results)} games are listed."
                                          if shown is not None and len(shown) < len(results) else "")),
    ]


def run_report(db: str, run_id: Optional[int] = None, samples: int = 1000,
               games_dir: Optional[str] = None, games: int = 200) -> tuple[str, dict[str, str]]:
    """The report page of a stored run (the latest by default), and viewer
    pages of its games as ``{relative path: page}`` to write next to it (into
    ``games_dir``, a folder name relative to the report): the faulting games
    first, then the others, ``games`` pages at most."""
    from .tournament.sprt import saved_state
    from .tournament.standings import run_standings
    from .store import Store

    with Store(db, read_only=True) as store:
        runs = store.runs()
        if not runs:
            raise ArenaError(f"{db}: no runs yet; start one with `pengyou arena run`")
        if run_id is None:
            run_id = max(r.id for r in runs)
        if run_id not in {r.id for r in runs}:
            raise ArenaError(f"{db}: no run {run_id} (`pengyou arena runs` lists them)")
        info = store.run(run_id)
        spec = store.spec_json(run_id)
        entrants = store.entrants(run_id)
        results = store.results(run_id)
        faults = store.faults(run_id)
        st = run_standings(store, run_id, samples)            # the fit `arena standings` shows, kept in the file
    players = int(spec.get("players") or max((len(r.seats) for r in results), default=0))
    by_key = {r.key: r for r in results}
    pages, links = _viewer_pages([k for k, _ in faults] + [r.key for r in results],
                                 lambda key: by_key[key].record if key in by_key else "",
                                 lambda key: f"run {run_id}, job {key}", games_dir, games, by_key.get)
    sections = _result_sections(st, entrants, results, faults, players, links)
    subtitle = (f"run {info.id} of {os.path.basename(db)}: {info.status}, {info.done} of {info.jobs} jobs; "
                f"{spec.get('preset')} rules, {players} players; updated {info.updated}")
    tests = saved_state(db, run_id)
    if not tests:
        return report_page(f"{info.name}: report", subtitle, sections), pages
    return _sprt_page(run_id, entrants, tests, sections, subtitle, st.deals), pages


def _sprt_page(run_id: int, entrants: Sequence[Entrant], tests: Sequence[Mapping[str, Any]],
               sections: list[tuple[str, str, Markup]], subtitle: str, run_deals: int) -> str:
    """A run that holds a test, as the test's page: the answer first (each
    test's verdict, hypotheses, LLR and bounds, groups played and the LLR's
    path), then the standings headed by the test's own Elo and margin, and
    the other sections, the games last."""
    a, b = (entrants[0].name, entrants[1].name) if len(entrants) >= 2 else ("A", "B")
    top = [(f"sprt-{k}", "SPRT" + (f" {k + 1}" if len(tests) > 1 else "") + ": the verdict",
            sprt_summary(k, t["state"], t["path"], a, b, run_deals)) for k, t in enumerate(tests)]
    sid, _, table = sections[0]
    sections[0] = (sid, "Elo and margins", sprt_estimates([t["state"] for t in tests], a, b) + table)
    specs = "; ".join(f"{e.name} = {e.spec}" for e in entrants[:2])
    return report_page(f"SPRT test {run_id}: {a} against {b}", f"{specs}; {subtitle}", top + sections)


def _history_plot(snapshots: Sequence[tuple[float, int, Sequence[Mapping[str, Any]]]],
                  labels: Mapping[int, str]) -> Markup:
    """Each entrant version's Elo after every refit, against the ladder's
    games: the rating history the ladder's entrant pages draw."""
    series: dict[int, HistorySeries] = {}
    for _, n, rows in snapshots:
        for r in rows:
            elo = r.get("elo")
            if isinstance(elo, (int, float)) and math.isfinite(elo) and r.get("id") in labels:
                eid = int(r["id"])
                points = series.setdefault(eid, HistorySeries(labels[eid], [])).points
                assert isinstance(points, list)
                points.append({"games": n, "elo": float(elo), "lo": r.get("lo"), "hi": r.get("hi"),
                               "deals": r.get("deals")})
    return history_chart([series[k] for k in sorted(series)], x_label="games in the ladder at the refit")


def ladder_report(folder: str, samples: int = 200, games_dir: Optional[str] = None,
                  games: int = 200, listed: int = 500) -> tuple[str, dict[str, str]]:
    """The report page of a ladder (its folder), and viewer pages of its
    games as :func:`run_report` gives them: the faulting games first, then the
    newest, ``games`` pages at most. The ratings are the ladder's own fit
    (:func:`arena.ladder.fits.fit` with the ladder's
    :data:`~arena.ladder.fits.SAMPLES` and seed, whatever ``samples``
    says: the numbers the runner kept and the leaderboard shows); the page
    adds each version's rating history and lists the ``listed`` newest
    games."""
    from .ladder import Ladder
    from .ladder.fits import SAMPLES, fit

    ladder = Ladder(folder)
    f = fit(ladder, SAMPLES)
    if not f.entrants:
        raise ArenaError(f"the ladder {folder} has no entrants yet; submit one with `pengyou ladder submit`")
    # a submission's spec is a path in the ladder's storage: the page names its kind and code instead
    entrants = [Entrant(e.label, e.spec if e.kind == "builtin" else f"{e.kind}, code {e.code_hash[:16]}")
                for e in f.entrants]
    rated = {r.label: r for r in f.rows}
    status = {e.label: ", ".join(x for x in ("retired" if e.retired is not None else "active",
                                              "provisional" if rated[e.label].provisional else "")
                                 if x) for e in f.entrants}
    faults = [(res.key, fl) for res in reversed(f.results) for fl in res.faults]
    newest = list(reversed(f.results))
    by_key = {r.key: r for r in newest}

    def title_of(key: str) -> str:
        pair = " vs ".join(dict.fromkeys(entrants[e].name for e in by_key[key].seats))
        return f"ladder game {f.game_ids[key]}: {pair}"

    with ladder.store(read_only=True) as st:
        snapshots = st.rating_snapshots()
        rounds = st.rounds()
        pages, links = _viewer_pages([k for k, _ in faults] + [r.key for r in newest],
                                     lambda key: st.game(f.game_ids[key])[1] if key in f.game_ids else "",
                                     title_of, games_dir, games, by_key.get)
    shown_as = {e.name: e.spec for e in entrants}
    table = dataclasses.replace(f.standings, rows=tuple(dataclasses.replace(r, spec=shown_as.get(r.name, r.spec))
                                                        for r in f.standings.rows))
    sections = _result_sections(table, entrants, f.results, faults, ladder.rules.players, links,
                                status=status, shown=newest[:listed])
    labels = {e.id: e.label for e in f.entrants}
    sections.insert(1, ("history", "Rating history", _history_plot(snapshots, labels) if snapshots else
                        Markup("<p>No ratings yet: the ladder has not finished a round.</p>")))
    r = ladder.rules
    subtitle = (f"ladder {os.path.basename(os.path.abspath(folder))}: {len(f.results)} games in {rounds} rounds, "
                f"{len(f.entrants)} entrant versions; {r.preset} rules, {r.players} players; "
                f"{r.time_limit:g} s a decision with {r.overage:g} s overage; a rating is provisional "
                f"under {r.provisional} deals")
    return report_page(f"ladder {os.path.basename(os.path.abspath(folder))}: report", subtitle, sections), pages


def _final_test(db: str, tune_id: int) -> Optional[tuple[int, Mapping[str, Any]]]:
    """The test ``pengyou tune`` ran of tuning run ``tune_id``'s tuned values
    against its start values (the run ``tune-ID-sprt`` of the same database,
    the latest such): its run's id and its last stored test, or None."""
    from .store import Store
    from .tournament.sprt import saved_state

    with Store(db, read_only=True) as store:
        ids = [r.id for r in store.runs() if r.name == f"tune-{tune_id}-sprt"]
    for run_id in reversed(ids):
        tests = saved_state(db, run_id)
        if tests:
            return run_id, tests[-1]
    return None


def tune_report(db: str, tune_id: int) -> str:
    """The report page of a stored tuning run: its final test's verdict (or
    why there is none), the tuned bot ready to copy, the SPSA schedule, the
    parameters in their types, and the trajectory."""
    from .render.report_pages import tune_sections
    from .tournament.tune import load_tune, trajectory_figure

    spec, run, status = load_tune(db, tune_id)
    found = _final_test(db, tune_id)
    done = len(run.trajectory) >= spec.iterations
    if found is not None:
        note = ("", f"The test's own page: pengyou report --sprt {found[0]} --db {db}")
    elif not done:
        note = ("not run yet", f"the tuning has played {len(run.trajectory)} of its {spec.iterations} iterations; "
                "pengyou tune tests the tuned values against the start values when they are done.")
    elif spec.spec_at([round(v) if p.integer else v for p, v in zip(spec.params, run.trajectory[-1])]) == \
            spec.spec_at([round(p.start) if p.integer else p.start for p in spec.params]):
        note = ("not run", "the tuned values are the start values, so there was nothing to test.")
    else:
        note = ("skipped", "pengyou tune was run with --no-sprt (or stopped before its test), so the tuned values "
                "have not been tested against the start values; the command below plays them.")
    sections = tune_sections(spec, run.spsa, run.trajectory, None if found is None else found[1], note,
                             svg_of(trajectory_figure(spec, run.trajectory)))
    subtitle = f"tuning run {tune_id} of {os.path.basename(db)}: {status}, {len(run.trajectory)} of " \
               f"{spec.iterations} iterations of {spec.bot}"
    return report_page(f"tuning run {tune_id}: {spec.bot}", subtitle, sections)


def write_report(out: str, text: str, pages: Mapping[str, str]) -> list[str]:
    """Write the report and its game pages (paths relative to the report's folder); the files written."""
    written = []
    base = os.path.dirname(os.path.abspath(out))
    try:
        for rel, page in pages.items():
            path = os.path.join(base, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(page)
            written.append(path)
        with open(out, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise ArenaError(f"{out}: {exc.strerror or exc}") from None
    return [out] + written
