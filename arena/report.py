"""HTML reports: a run, an SPRT or a tuning run as one self-contained page.

:func:`run_report` gathers a stored run's numbers from the one owner of each
(:func:`arena.ratings.standings` for Elo, duplicate scores and the
head-to-head table, :func:`arena.ratings.role_margins` for the margins by seat
and by role, the store for faults, :func:`arena.sprt.saved_state` for an
SPRT's LLR path) and :func:`tune_report` a tuning run's trajectory
(:func:`arena.spsa.trajectory_figure`). The plots are drawn by matplotlib (the
plotting library the tuning plots already use: its SVG output embeds in the
page as text, so the page needs no network and no other file) and put inline.
The games with faults get a viewer page each (:mod:`arena.viewer`) in a folder
next to the report, linked from the faults' table.
"""

from __future__ import annotations

import html
import io
import math
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, Optional

from .stats.ratings import ROLES, Interval, Standings, role_margins, standings
from .types import FAULT_KINDS, ArenaError, Entrant

__all__ = ["run_report", "ladder_report", "tune_report", "write_report"]


#: Job keys that may name a game's page file (the arena writes keys like ``g3-l1-r0``).
_SAFE_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


def _esc(x: Any) -> str:
    return html.escape(str(x))


def _num(x: Optional[float], digits: int = 1) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "&ndash;"
    return f"{x:+.{digits}f}" if digits >= 0 else str(x)


def _interval(iv: Interval, digits: int = 1) -> str:
    if iv.n == 0:
        return "&ndash;"
    if not math.isfinite(iv.lo):
        return f"{iv.mean:+.{digits}f}"
    return f"{iv.mean:+.{digits}f} [{iv.lo:+.{digits}f}, {iv.hi:+.{digits}f}]"


def _svg(fig: Any) -> str:
    """A matplotlib figure as inline SVG (the figure is closed)."""
    import matplotlib.pyplot as plt

    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _elo_plot(st: Standings) -> str:
    plt = _pyplot()
    rows = [r for r in st.rows if r.rated][::-1]
    fig, ax = plt.subplots(figsize=(7, 0.45 * max(2, len(rows)) + 0.8))
    ys = range(len(rows))
    for y, r in zip(ys, rows):
        lo = r.elo_lo if math.isfinite(r.elo_lo) else r.elo
        hi = r.elo_hi if math.isfinite(r.elo_hi) else r.elo
        ax.plot([lo, hi], [y, y], color="#2f6fd6", lw=3, solid_capstyle="butt")
        ax.plot([r.elo], [y], "o", color="#1d2430")
    ax.set_yticks(list(ys), [r.name for r in rows])
    ax.axvline(0, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("Elo (mean 0), 95 % bootstrap interval")
    return _svg(fig)


def _heat_plot(st: Standings, names: Sequence[str]) -> str:
    plt = _pyplot()
    n = len(names)
    grid = [[math.nan] * n for _ in range(n)]
    for (i, j), cell in st.cross.items():
        if cell.n:
            grid[i][j] = cell.margin
    fig, ax = plt.subplots(figsize=(1.1 * n + 2.5, 0.9 * n + 1.5))
    finite = [abs(v) for row in grid for v in row if math.isfinite(v)]
    lim = max(finite) if finite else 1.0
    im = ax.imshow(grid, cmap="RdBu", vmin=-lim, vmax=lim)
    for i in range(n):
        for j in range(n):
            if math.isfinite(grid[i][j]):
                ax.text(j, i, f"{grid[i][j]:+.1f}", ha="center", va="center", fontsize=9,
                        color="white" if abs(grid[i][j]) > 0.6 * lim else "black")
    ax.set_xticks(range(n), names, rotation=30, ha="right")
    ax.set_yticks(range(n), names)
    ax.set_xlabel("against")
    fig.colorbar(im, ax=ax, label="mean card margin of the row's seats")
    return _svg(fig)


def _llr_plot(test: Mapping[str, Any]) -> str:
    plt = _pyplot()
    path = test["path"]
    lo, hi = test["state"]["bounds"]
    fig, ax = plt.subplots(figsize=(7, 3.2))
    ax.plot([p["groups"] for p in path], [p["llr"] for p in path], marker=".", lw=1.2)
    ax.axhline(lo, color="#c0262d", ls="--", lw=1, label=f"accept H0 ({lo:.2f})")
    ax.axhline(hi, color="#2d7d46", ls="--", lw=1, label=f"accept H1 ({hi:.2f})")
    ax.set_xlabel("deal groups")
    ax.set_ylabel("log-likelihood ratio")
    ax.legend(loc="best", fontsize=8)
    return _svg(fig)


_STYLE = """
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2430; margin: 0;
       background: #eef1f4; }
header { background: #1f4d3a; color: #fff; padding: 10px 18px; }
header h1 { margin: 0; font-size: 18px; }
header p { margin: 2px 0 0; opacity: .85; }
section { background: #fff; margin: 12px 18px; padding: 10px 14px; border-radius: 6px;
          box-shadow: 0 1px 2px rgba(0,0,0,.12); overflow-x: auto; }
h2 { font-size: 15px; margin: 0 0 8px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 8px; border-bottom: 1px solid #e3e7ec; text-align: right; white-space: nowrap; }
th { background: #f6f8fa; }
td.name, th.name { text-align: left; }
p.note { color: #4a5768; font-size: 12px; margin: 6px 0 0; }
svg { max-width: 100%; height: auto; }
"""


def _page(title: str, subtitle: str, sections: Sequence[tuple[str, str, str]]) -> str:
    body = "\n".join(f'<section id="{sid}"><h2>{_esc(head)}</h2>\n{content}\n</section>'
                     for sid, head, content in sections)
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{_esc(title)}</title>\n"
            f"<style>{_STYLE}</style>\n</head>\n<body>\n<header><h1>{_esc(title)}</h1><p>{_esc(subtitle)}</p>"
            f"</header>\n{body}\n</body>\n</html>\n")


def _standings_table(st: Standings, status: Optional[Mapping[str, str]] = None) -> str:
    head = ("<tr><th>#</th><th class=name>entrant</th><th class=name>bot</th><th>Elo</th><th>95 % interval</th>"
            "<th>deals</th><th>duplicate score [95 %]</th><th>margin</th><th>game points</th><th>faults</th>"
            + ("<th class=name>status</th>" if status is not None else "") + "</tr>")
    rows = []
    for rank, r in enumerate(st.rows, 1):
        elo_iv = (f"[{r.elo_lo:+.0f}, {r.elo_hi:+.0f}]" if math.isfinite(r.elo_lo) and math.isfinite(r.elo_hi)
                  else "&ndash;")
        faults = sum(r.faults.values())
        rows.append(f'<tr data-entrant="{_esc(r.name)}"><td>{rank}</td><td class=name>{_esc(r.name)}</td>'
                    f"<td class=name>{_esc(r.spec)}</td><td class=elo>{r.elo:+.0f}</td><td>{elo_iv}</td>"
                    f"<td>{r.deals}</td><td class=dup>{_interval(r.dup)}</td><td>{_num(r.margin)}</td>"
                    f"<td>{_num(r.game_points, 2)}</td><td>{faults}</td>"
                    + (f"<td class='name status'>{_esc(status.get(r.name, ''))}</td>" if status is not None else "")
                    + "</tr>")
    note = (f"<p class=note>{st.deals} deals in {st.groups} duplicate groups; maker-side edge "
            f"{st.maker_edge:+.0f} Elo; Elo intervals from {st.samples} bootstrap resamples of the groups; the "
            "duplicate score is a seat's card margin against the mean of the same seat on the same cards.</p>")
    return f"<table id=standings-table>{head}{''.join(rows)}</table>{note}"


def _duplicate_table(st: Standings) -> str:
    rows = "".join(f'<tr data-entrant="{_esc(r.name)}"><td class=name>{_esc(r.name)}</td>'
                   f"<td>{_interval(r.dup)}</td><td>{r.dup.n}</td></tr>" for r in st.rows)
    return ("<table><tr><th class=name>entrant</th><th>mean duplicate score [95 %]</th><th>groups</th></tr>"
            f"{rows}</table>")


def _cross_table(st: Standings, names: Sequence[str]) -> str:
    head = "<tr><th class=name>row against column</th>" + "".join(f"<th>{_esc(n)}</th>" for n in names) + "</tr>"
    body = []
    for i, a in enumerate(names):
        cells = []
        for j in range(len(names)):
            cell = st.cross.get((i, j))
            cells.append("<td>&ndash;</td>" if cell is None or not cell.n else
                         f"<td title='{cell.n} seat pairs, won {cell.win_rate:.0%}'>{cell.margin:+.1f}</td>")
        body.append(f"<tr><td class=name>{_esc(a)}</td>{''.join(cells)}</tr>")
    return f"<table id=cross-table>{head}{''.join(body)}</table>"


def _faults_section(entrants: Sequence[Entrant], faults: Sequence[tuple[str, Any]], links: Mapping[str, str]) -> str:
    kinds = list(FAULT_KINDS)
    counts = [[0] * len(kinds) for _ in entrants]
    for _, f in faults:
        if 0 <= f.entrant < len(entrants) and f.kind in kinds:
            counts[f.entrant][kinds.index(f.kind)] += 1
    head = "<tr><th class=name>entrant</th>" + "".join(f"<th>{k}</th>" for k in kinds) + "</tr>"
    body = "".join(f'<tr data-entrant="{_esc(e.name)}"><td class=name>{_esc(e.name)}</td>'
                   + "".join(f"<td>{c}</td>" for c in counts[i]) + "</tr>" for i, e in enumerate(entrants))
    items = []
    for key, f in faults[:200]:
        name = entrants[f.entrant].name if 0 <= f.entrant < len(entrants) else str(f.entrant)
        link = links.get(key)
        game = f'<a class=game href="{_esc(link)}">{_esc(key)}</a>' if link else _esc(key)
        items.append(f"<li>{game}: {_esc(name)} at seat {f.seat}, {_esc(f.kind)} (decision {f.decision}): "
                     f"{_esc(f.message)}</li>")
    more = f"<p class=note>... {len(faults) - 200} more</p>" if len(faults) > 200 else ""
    listing = f"<ul id=fault-list>{''.join(items)}</ul>{more}" if items else "<p>No faults.</p>"
    return f"<table id=fault-table>{head}{body}</table>{listing}"


def _roles_section(entrants: Sequence[Entrant], results: Sequence[Any], players: int) -> str:
    margins = role_margins(results, len(entrants), players)
    head = ("<tr><th class=name>entrant</th>" + "".join(f"<th>{r}</th>" for r in ROLES)
            + "".join(f"<th>seat {s}</th>" for s in range(players)) + "</tr>")
    body = []
    for e, m in zip(entrants, margins):
        cells = "".join(f"<td data-role={r}>{_interval(m.by_role[r])}<br><small>n={m.by_role[r].n}</small></td>"
                        for r in ROLES)
        seats = "".join(f"<td>{_interval(iv)}<br><small>n={iv.n}</small></td>" for iv in m.by_seat)
        body.append(f'<tr data-entrant="{_esc(e.name)}"><td class=name>{_esc(e.name)}</td>{cells}{seats}</tr>')
    return (f"<table id=roles-table>{head}{''.join(body)}</table><p class=note>Mean card margin of the entrant's "
            "seats with a 95 % normal interval over its (deal, seat) pairs; a friend is a seat on the maker's side "
            "other than the maker. Forfeited deals are left out.</p>")


def _games_section(results: Sequence[Any], entrants: Sequence[Entrant], links: Mapping[str, str]) -> str:
    rows = []
    for res in results:
        seats = " ".join(f"{s}:{entrants[e].name}" if 0 <= e < len(entrants) else f"{s}:?"
                         for s, e in enumerate(res.seats))
        link = links.get(res.key)
        key = f'<a class=game href="{_esc(link)}">{_esc(res.key)}</a>' if link else _esc(res.key)
        told = "; ".join(f"forfeit by seat {d.forfeit}" if d.forfeit >= 0 else
                         f"seat {d.maker} made trump, the opponents took {d.opponents_points}"
                         for d in res.deals[:3]) + (" ..." if len(res.deals) > 3 else "")
        rows.append(f"<tr><td class=name>{key}</td><td class=name>{_esc(seats)}</td><td>{len(res.deals)}</td>"
                    f"<td class=name>{_esc(told)}</td><td>{len(res.faults)}</td></tr>")
    unlinked = sum(1 for r in results if r.key not in links)
    note = (f"<p class=note>{unlinked} game(s) without a page here (raise --games, or "
            "<code>pengyou arena view KEY</code>).</p>" if unlinked else "")
    return ("<table id=games-table><tr><th class=name>job</th><th class=name>seats</th><th>deals</th>"
            f"<th class=name>how it went</th><th>faults</th></tr>{''.join(rows)}</table>{note}")


def _viewer_pages(keys: Sequence[str], record_of: Any, title_of: Any, games_dir: Optional[str],
                  games: int) -> tuple[dict[str, str], dict[str, str]]:
    """Viewer pages (``{relative path: page}``) and links (``{key: path}``)
    for the first ``games`` of ``keys`` that have a record (``record_of(key)``,
    "" for none), in ``games_dir``; none without ``games_dir``."""
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
        pages[rel] = viewer_page(read_records(io.StringIO(record)), title_of(key))
        links[key] = rel
    return pages, links


def _result_sections(st: Standings, entrants: Sequence[Entrant], results: Sequence[Any],
                     faults: Sequence[tuple[str, Any]], players: int, links: Mapping[str, str],
                     status: Optional[Mapping[str, str]] = None,
                     shown: Optional[Sequence[Any]] = None) -> list[tuple[str, str, str]]:
    """The sections every page of results has: standings (with a status
    column when ``status`` is given), duplicate scores, head to head, faults,
    margins by role and seat, and the games (``shown``, default all)."""
    names = [e.name for e in entrants]
    table = _standings_table(st, status)
    return [
        ("standings", "Standings", table + _elo_plot(st) if any(r.rated for r in st.rows) else table),
        ("duplicate", "Duplicate scores", _duplicate_table(st)),
        ("head-to-head", "Head to head", _cross_table(st, names) + (_heat_plot(st, names) if results else "")),
        ("faults", "Faults", _faults_section(entrants, faults, links)),
        ("roles", "Margins by role and by seat", _roles_section(entrants, results, players)),
        ("games", "Games", _games_section(results if shown is None else shown, entrants, links)
         + (f"<p class=note>The newest {len(shown)} of {len(results)} games are listed.</p>"
            if shown is not None and len(shown) < len(results) else "")),
    ]


def run_report(db: str, run_id: Optional[int] = None, samples: int = 1000,
               games_dir: Optional[str] = None, games: int = 200) -> tuple[str, dict[str, str]]:
    """The report page of a stored run (the latest by default), and viewer
    pages of its games as ``{relative path: page}`` to write next to it (into
    ``games_dir``, a folder name relative to the report): the faulting games
    first, then the others, ``games`` pages at most."""
    from .tournament.sprt import saved_state
    from .store.results import Store

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
    st = standings(results, entrants, samples=samples)
    players = int(spec.get("players") or max((len(r.seats) for r in results), default=0))
    by_key = {r.key: r for r in results}
    pages, links = _viewer_pages([k for k, _ in faults] + [r.key for r in results],
                                 lambda key: by_key[key].record if key in by_key else "",
                                 lambda key: f"run {run_id}, job {key}", games_dir, games)
    sections = _result_sections(st, entrants, results, faults, players, links)
    for k, test in enumerate(saved_state(db, run_id)):
        state = test["state"]
        hyp = state.get("hypotheses", {})
        verdict = state.get("verdict") or "running"
        elo = state.get("elo") or {}
        text = (f"<p id=sprt-summary-{k}>H0 {hyp.get('elo0')} Elo, H1 {hyp.get('elo1')} Elo; LLR {state['llr']:.3f} "
                f"after {state['groups']} groups ({state['deals']} deals); verdict: {_esc(verdict)}"
                + (f"; Elo {elo.get('mean', 0):+.1f} [{elo.get('lo', 0):+.1f}, {elo.get('hi', 0):+.1f}]"
                   if elo else "") + "</p>")
        sections.append((f"sprt-{k}", "SPRT", text + _llr_plot(test)))
    subtitle = (f"run {info.id} of {os.path.basename(db)}: {info.status}, {info.done} of {info.jobs} jobs; "
                f"{spec.get('preset')} rules, {players} players; updated {info.updated}")
    return _page(f"{info.name}: report", subtitle, sections), pages


def _history_plot(snapshots: Sequence[tuple[float, int, Sequence[Mapping[str, Any]]]],
                  labels: Mapping[int, str]) -> str:
    """Each entrant version's Elo after every refit, against the ladder's games."""
    plt = _pyplot()
    lines: dict[int, tuple[list[int], list[float]]] = {}
    for _, n, rows in snapshots:
        for r in rows:
            elo = r.get("elo")
            if isinstance(elo, (int, float)) and math.isfinite(elo) and r.get("id") in labels:
                xs, ys = lines.setdefault(int(r["id"]), ([], []))
                xs.append(n)
                ys.append(float(elo))
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    for eid, (xs, ys) in sorted(lines.items()):
        ax.plot(xs, ys, marker="." if len(xs) < 40 else None, lw=1.3, label=labels[eid])
    ax.axhline(0, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("games in the ladder at the refit")
    ax.set_ylabel("Elo (mean 0)")
    if lines:
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    return _svg(fig)


def ladder_report(folder: str, samples: int = 200, games_dir: Optional[str] = None,
                  games: int = 200, listed: int = 500) -> tuple[str, dict[str, str]]:
    """The report page of a ladder (its folder), and viewer pages of its
    games as :func:`run_report` gives them: the faulting games first, then the
    newest, ``games`` pages at most. The ratings are the ladder's own fit
    (:func:`arena.ladder.run.fit`, the leaderboard's); the page adds each
    version's rating history and lists the ``listed`` newest games."""
    from .ladder import Ladder
    from .ladder.rounds import fit

    ladder = Ladder(folder)
    f = fit(ladder, samples)
    if not f.entrants:
        raise ArenaError(f"the ladder {folder} has no entrants yet; submit one with `pengyou ladder submit`")
    entrants = [Entrant(e.label, e.spec) for e in f.entrants]
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
                                     title_of, games_dir, games)
    sections = _result_sections(f.standings, entrants, f.results, faults, ladder.rules.players, links,
                                status=status, shown=newest[:listed])
    labels = {e.id: e.label for e in f.entrants}
    sections.insert(1, ("history", "Rating history", _history_plot(snapshots, labels) if snapshots else
                        "<p>No ratings yet: the ladder has not finished a round.</p>"))
    r = ladder.rules
    subtitle = (f"ladder {os.path.basename(os.path.abspath(folder))}: {len(f.results)} games in {rounds} rounds, "
                f"{len(f.entrants)} entrant versions; {r.preset} rules, {r.players} players; "
                f"{r.time_limit:g} s a decision with {r.overage:g} s overage; a rating is provisional "
                f"under {r.provisional} deals")
    return _page(f"ladder {os.path.basename(os.path.abspath(folder))}: report", subtitle, sections), pages


def tune_report(db: str, tune_id: int) -> str:
    """The report page of a stored tuning run: its parameters and trajectory."""
    from .tournament.tune import load_tune, trajectory_figure

    spec, run, status = load_tune(db, tune_id)
    last = run.trajectory[-1] if run.trajectory else [p.start for p in spec.params]
    rows = "".join(f"<tr data-param={_esc(p.name)}><td class=name>{_esc(p.name)}</td><td>{p.start:g}</td>"
                   f"<td>{p.low:g}</td><td>{p.high:g}</td><td class=now>{v:.6g}</td></tr>"
                   for p, v in zip(spec.params, last))
    table = ("<table id=params-table><tr><th class=name>parameter</th><th>start</th><th>low</th><th>high</th>"
             f"<th>after {len(run.trajectory)} iterations</th></tr>{rows}</table>")
    sections = [("parameters", "Parameters", table),
                ("trajectory", "Trajectory", _svg(trajectory_figure(spec, run.trajectory)))]
    subtitle = f"tuning run {tune_id} of {os.path.basename(db)}: {status}, {len(run.trajectory)} of " \
               f"{spec.iterations} iterations of {spec.bot}"
    return _page(f"tuning {spec.bot}: report", subtitle, sections)


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
