"""``pengyou report --ladder FOLDER``: a ladder as one self-contained page, with the ladder's own numbers.

The ladder is the server tests' (two built-ins and a submitted bot that
crashes after its validation, a few rounds played). The page's Elo, deals,
provisional marks and faults are checked against :func:`arena.ladder.ratings`
(the leaderboard's fit) and against the faults stored in the ladder; every
faulting game gets a viewer page of its own; bad requests get one line. The
page is opened in a real browser in ``test_ladder_browser.py``.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from pathlib import Path

from arena.commands import main
from arena.ladder import ratings
from arena.ladder.fits import kept_rows
from arena.render.html import elo_text

from test_ladder_server import Served, call, get_json, ladder  # noqa: F401  (a played ladder)
from test_report import _cells, _one_line_error, _run


def _report(capsys, lad, out: Path, *extra: str) -> str:
    code, printed, err = _run(capsys, "report", "--ladder", lad.folder, "-o", str(out), "--samples", "200", *extra)
    assert code == 0, err
    assert printed.startswith(f"wrote {out}")
    return out.read_text(encoding="utf-8")


def test_a_ladder_report_has_every_section_with_the_ladders_numbers(ladder, tmp_path, capsys):  # noqa: F811
    text = _report(capsys, ladder, tmp_path / "lad.html")
    for section in ("standings", "history", "duplicate", "head-to-head", "faults", "roles", "games"):
        assert f'<section id="{section}">' in text, section
    assert text.count("<svg") >= 3                 # Elo bars, rating history, heat map
    assert "<svg class='history'" in text
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
    games, fitted = ratings(ladder, samples=200)
    assert f"{games} games in " in text
    cells = _cells(text, "standings-table")
    assert set(cells) == {r.label for r in fitted}
    for r in fitted:
        row = cells[r.label]
        assert row[3] == f"{r.elo:+.0f}", (r.label, row)
        assert row[6] == str(r.deals)
        assert row[10] == str(sum(r.faults.values()))
        assert ("provisional" in row[11]) == r.provisional and ("retired" in row[11]) == r.retired
    # faults: the table counts what the ladder stored, and each faulting game has a page
    with ladder.store(read_only=True) as st:
        stored = {e.label: st.faults_of(e.id) for e in st.entrants()}
    fault_cells = _cells(text, "fault-table")
    crashes = sum(1 for _, f in stored["flaky"] if f.kind == "crash")
    assert crashes > 0 and fault_cells["flaky"][1] == str(crashes)
    fault_part = re.search(r'<section id="faults">(.*?)</section>', text, re.S).group(1)
    linked = set(re.findall(r'<a class=game href="(lad_games/game(\d+)\.html)">', fault_part))
    assert {int(g) for _, g in linked} == {g for g, _ in stored["flaky"]}
    for rel, gid in linked:
        page = (tmp_path / rel).read_text(encoding="utf-8")
        assert f"ladder game {gid}:" in page and "flaky" in page


def test_the_games_listed_and_paged_are_capped(ladder, tmp_path, capsys):  # noqa: F811
    out = tmp_path / "few.html"
    text = _report(capsys, ladder, out, "--games", "2")
    assert len(list((tmp_path / "few_games").iterdir())) == 2
    games, _ = ratings(ladder)
    assert f"{games - 2} game(s) without a page" in text


def test_bad_ladder_report_requests_get_one_line(ladder, tmp_path, capsys):  # noqa: F811
    out = str(tmp_path / "x.html")
    code, _, err = _run(capsys, "report", "--ladder", str(tmp_path / "nowhere"), "-o", out)
    assert "nowhere" in _one_line_error(code, err)
    code, _, err = _run(capsys, "report", "--ladder", ladder.folder, "2", "-o", out)
    assert "not several" in _one_line_error(code, err)
    code, _, err = _run(capsys, "report", "--ladder", ladder.folder, "--db", "x.db", "-o", out)
    assert "own database" in _one_line_error(code, err)
    empty = tmp_path / "empty"
    assert main(["ladder", "create", str(empty)]) == 0
    capsys.readouterr()
    code, _, err = _run(capsys, "report", "--ladder", str(empty), "-o", out)
    assert "no entrants yet" in _one_line_error(code, err)
    assert not Path(out).exists()


def test_a_damaged_ladder_gets_one_line_and_is_left_as_it_was(ladder, tmp_path, capsys):  # noqa: F811
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(ladder.folder, copy)
    db = next(p for p in copy.iterdir() if p.suffix == ".db")
    con = sqlite3.connect(db)
    con.execute("UPDATE games SET result_json = 'not json' WHERE id = (SELECT min(id) FROM games)")
    con.commit()
    con.close()
    before = db.read_bytes()
    code, _, err = _run(capsys, "report", "--ladder", str(copy), "-o", str(tmp_path / "d.html"))
    assert "damaged" in _one_line_error(code, err)
    assert db.read_bytes() == before


# ---------------------------------------------------------------------- one number everywhere


def _elo_interval(elo, lo, hi) -> tuple[str, str, str]:
    """An Elo and its interval as every surface prints them (rounded to the Elo)."""
    return tuple(elo_text(x) for x in (elo, lo, hi))


def test_every_surface_of_a_ladder_shows_the_kept_ratings_to_the_digit(ladder, tmp_path, capsys):  # noqa: F811
    """The leaderboard (page and JSON), each entrant's page and JSON,
    ``ladder standings`` (text and ``--json``) and ``report --ladder`` all
    show the ratings the runner kept, Elo and interval alike."""
    with ladder.store(read_only=True) as st:
        kept = kept_rows(st)
    assert kept is not None, "the runner's last refit covers every game"
    games, rows = kept
    want = {r.label: _elo_interval(r.elo, r.lo, r.hi) for r in rows if not r.retired}
    exact = {r.label: (r.elo, r.lo, r.hi) for r in rows}
    assert sum(1 for w in want.values() if w[0] != "&ndash;") >= 2      # (the flaky bot may be refused under load)
    # ladder standings --json (the kept JSON itself), and the text table
    code, out, err = _run(capsys, "ladder", "standings", "--ladder", ladder.folder, "--json")
    assert code == 0, err
    got = json.loads(out)
    assert got["games"] == games
    assert {r["label"]: (r["elo"], r["lo"], r["hi"]) for r in got["rows"]} == \
        {k: tuple(None if not math.isfinite(x) else x for x in v) for k, v in exact.items() if k in want}
    code, out, err = _run(capsys, "ladder", "standings", "--ladder", ladder.folder)
    assert code == 0, err
    for label, (elo, lo, hi) in want.items():
        line = next(x for x in out.splitlines() if f" {label} " in x)
        if elo != "&ndash;":
            assert f" {elo} " in line and f"[{lo}, {hi}]" in line, (label, line)
    # the report's standings table
    text = _report(capsys, ladder, tmp_path / "one.html")
    cells = _cells(text, "standings-table")
    with ladder.store(read_only=True) as st:
        kinds = {e.label: (e.kind, e.spec, e.code_hash) for e in st.entrants()}
    for label, (kind, spec, code) in kinds.items():          # a submission's storage path is not shown
        assert cells[label][2] == (spec if kind == "builtin" else f"{kind}, code {code[:16]}"), cells[label]
    for label, (elo, lo, hi) in want.items():
        assert cells[label][3] == elo, (label, cells[label])
        if elo != "&ndash;":
            assert cells[label][4] == f"[{lo}, {hi}]", (label, cells[label])
    # the server: the leaderboard's page and JSON, each entrant's page and JSON
    served = Served(ladder)
    try:
        _, api = get_json(served, "/api/standings")
        assert {r["label"]: (r["elo"], r["lo"], r["hi"]) for r in api["rows"]} == \
            {k: tuple(None if not math.isfinite(x) else x for x in v) for k, v in exact.items()}
        status, _, body = call(served, "GET", "/")
        page = body.decode()
        board = re.findall(r"<tr data-entrant='([^']*)'.*?<td class='num elo'>([^<]*)</td>"
                           r"<td class='num interval'>([^<]*)</td>", page, re.S)
        assert {label: (elo, iv) for label, elo, iv in board} == \
            {k: (e, f"{lo}&thinsp;&hellip;&thinsp;{hi}" if e != "&ndash;" else "&ndash;")
             for k, (e, lo, hi) in want.items()}
        for r in rows:
            if r.retired or not math.isfinite(r.elo):
                continue
            _, data = get_json(served, f"/api/entrants/{r.name}")
            mine = next(v for v in data["versions"] if v["id"] == r.id)["rating"]
            assert (mine["elo"], mine["lo"], mine["hi"]) == exact[r.label]
            _, _, body = call(served, "GET", f"/entrants/{r.name}")
            elo, lo, hi = want[r.label]
            assert f"{elo} &nbsp;<span class='muted'>[{lo}, {hi}]</span>" in body.decode()
    finally:
        served.stop()


def test_the_ladders_surfaces_read_the_kept_ratings_not_a_fit_of_their_own(ladder, tmp_path, capsys):  # noqa: F811
    """Ratings planted in a copy's newest snapshot are what ``ladder
    standings`` and ``report --ladder`` show: neither fits on its own."""
    import shutil

    copy = tmp_path / "planted"
    shutil.copytree(ladder.folder, copy)
    db = next(p for p in copy.iterdir() if p.suffix == ".db")
    con = sqlite3.connect(db)
    with con:
        rid, text = con.execute("SELECT id, rows_json FROM ratings ORDER BY id DESC LIMIT 1").fetchone()
        rows = json.loads(text)
        for r in rows:
            if r["elo"] is not None:
                r["elo"], r["lo"], r["hi"] = (round(r[k] + 1000, 2) for k in ("elo", "lo", "hi"))
        con.execute("UPDATE ratings SET rows_json = ? WHERE id = ?", (json.dumps(rows), rid))
    con.close()
    planted = {r["label"]: (r["elo"], r["lo"], r["hi"]) for r in rows if not r["retired"]}
    assert any(v[0] is not None for v in planted.values())
    code, out, err = _run(capsys, "ladder", "standings", "--ladder", str(copy), "--json")
    assert code == 0, err
    assert {r["label"]: (r["elo"], r["lo"], r["hi"]) for r in json.loads(out)["rows"]} == planted
    out_page = tmp_path / "planted.html"
    code, _, err = _run(capsys, "report", "--ladder", str(copy), "-o", str(out_page))
    assert code == 0, err
    cells = _cells(out_page.read_text(encoding="utf-8"), "standings-table")
    for label, (elo, lo, hi) in planted.items():
        assert cells[label][3] == elo_text(elo), (label, cells[label])
        if elo is not None:
            assert cells[label][4] == f"[{elo_text(lo)}, {elo_text(hi)}]"


# ---------------------------------------------------------------------- forfeits of games stored before records told them


def test_a_ladder_game_stored_before_records_told_forfeits_shows_its_forfeit(ladder, tmp_path):  # noqa: F811
    """The game page of a forfeited deal whose stored record has no ``forfeit``
    (kept by an older pengyou) still tells the fault and the score given,
    from the game's stored result, as a newer record's page does."""
    import io
    import shutil

    from core.records import read_records, write_records

    copy = tmp_path / "old"
    shutil.copytree(ladder.folder, copy)
    db = next(p for p in copy.iterdir() if p.suffix == ".db")
    con = sqlite3.connect(db)
    forfeited = {}
    with con:
        for gid, text, result in con.execute("SELECT id, record, result_json FROM games").fetchall():
            seats = [d.get("forfeit", -1) for d in json.loads(result)["deals"]]
            if not any(s >= 0 for s in seats):
                continue
            records = read_records(io.StringIO(text))
            assert any("forfeit" in r for r in records)              # a newer record tells it itself
            for r in records:
                r.pop("forfeit", None)
            buf = io.StringIO()
            write_records(records, buf)
            con.execute("UPDATE games SET record = ? WHERE id = ?", (buf.getvalue(), gid))
            forfeited[gid] = [s for s in seats if s >= 0]
    con.close()
    assert forfeited, "the flaky bot's crashes forfeit deals"
    from arena.ladder import Ladder

    served = Served(Ladder(str(copy)))
    try:
        for gid, seats in list(forfeited.items())[:3]:
            status, _, body = call(served, "GET", f"/games/{gid}")
            page = body.decode()
            assert status == 200
            boxes = re.findall(r'<div class="forfeit" id="forfeit-\d+" data-seat="(\d+)" data-kind="(\w+)"', page)
            assert [int(s) for s, _ in boxes] == seats and all(k == "crash" for _, k in boxes), (gid, boxes)
            assert "the deal is scored as a forfeit" in page
    finally:
        served.stop()
