"""One number for one thing: every surface of a run shows the one fit kept in its file.

``arena run`` keeps the standings it prints (:mod:`arena.tournament.standings`);
``arena standings`` (text and ``--json``) and ``report`` read them back, so
they agree to the digit. A fit planted in the file proves the surfaces read
the kept one rather than each fitting on its own; a result added since makes
it stale, and the standings are computed again. (The ladder's surfaces are
checked the same way in ``test_ladder_report.py``.)
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from arena.commands import main
from arena.render.html import elo_text
from arena.stats.ratings import Standings
from arena.store import Store
from arena.tournament.standings import run_standings

SAMPLES = "40"


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.fixture(scope="module")
def run_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("one") / "one.db"
    assert main(["arena", "run", "--bots", "random", "heuristic", "ismcts:iterations=10", "--players", "5", "--deals", "3",
                 "--db", str(db), "--no-progress", "--samples", SAMPLES, "--secret", "one-number"]) == 0
    return db


def _surfaces(capsys, db: Path, tmp: Path) -> dict[str, dict[str, tuple[str, str, str]]]:
    """Each surface's (Elo, low, high) of each entrant, as text rounded to the Elo."""
    out: dict[str, dict[str, tuple[str, str, str]]] = {}
    js = json.loads(_run(capsys, "arena", "standings", "--db", str(db), "--json", "--samples", SAMPLES))
    out["json"] = {r["name"]: tuple(elo_text(r[k]) for k in ("elo", "elo_lo", "elo_hi"))
                   for r in js["standings"]["rows"]}
    text = _run(capsys, "arena", "standings", "--db", str(db), "--samples", SAMPLES)
    rows = re.findall(r"^\s*\d+\s+(\S+)\s+([+-]\d+|-)\s+(?:\[([+-]\d+), ([+-]\d+)\]|-)", text, re.M)
    out["text"] = {name: (elo if elo != "-" else "&ndash;", lo or "&ndash;", hi or "&ndash;")
                   for name, elo, lo, hi in rows}
    page = tmp / "rep.html"
    _run(capsys, "report", "--db", str(db), "-o", str(page), "--samples", SAMPLES)
    html = page.read_text(encoding="utf-8")
    body = re.search(r"<table id=standings-table>(.*?)</table>", html, re.S).group(1)
    out["report"] = {}
    for name, row in re.findall(r'<tr data-entrant="([^"]+)">(.*?)</tr>', body, re.S):
        cells = [re.sub(r"<[^>]+>", " ", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        iv = re.fullmatch(r"\[(\S+), (\S+)\]", cells[4])
        out["report"][name] = (cells[3], *(iv.groups() if iv else ("&ndash;", "&ndash;")))
    return out


def test_standings_json_and_report_give_the_kept_numbers(run_db, tmp_path, capsys):
    with Store(str(run_db), read_only=True) as store:
        kept = store.kept_fit(1, int(SAMPLES), 1, store.results_stamp(1))
    assert kept is not None, "arena run keeps the standings it prints"
    want = {r["name"]: tuple(elo_text(r[k]) for k in ("elo", "elo_lo", "elo_hi")) for r in kept["rows"]}
    assert len(want) == 3 and all(w[1] != "&ndash;" for w in want.values())
    got = _surfaces(capsys, run_db, tmp_path)
    for surface, numbers in got.items():
        assert numbers == want, surface
    js = json.loads(_run(capsys, "arena", "standings", "--db", str(run_db), "--json", "--samples", SAMPLES))
    assert js["standings"] == kept                    # the JSON is the kept fit itself, every digit


def test_every_surface_reads_the_kept_fit_not_a_fit_of_its_own(run_db, tmp_path, capsys):
    db = tmp_path / "planted.db"
    shutil.copy(run_db, db)
    with Store(str(db), read_only=True) as store:
        stamp = store.results_stamp(1)
        kept = store.kept_fit(1, int(SAMPLES), 1, stamp)
    planted = json.loads(json.dumps(kept))
    for r in planted["rows"]:
        r["elo"], r["elo_lo"], r["elo_hi"] = r["elo"] + 1000, r["elo_lo"] + 1000, r["elo_hi"] + 1000
    con = sqlite3.connect(db)
    with con:
        con.execute("UPDATE fits SET fit_json = ? WHERE run_id = 1", (json.dumps(planted),))
    con.close()
    want = {r["name"]: tuple(elo_text(r[k]) for k in ("elo", "elo_lo", "elo_hi")) for r in planted["rows"]}
    for surface, numbers in _surfaces(capsys, db, tmp_path).items():
        assert numbers == want, surface


def test_a_result_added_since_makes_the_kept_fit_stale(run_db, tmp_path):
    db = tmp_path / "grown.db"
    shutil.copy(run_db, db)
    with Store(str(db)) as store:
        before = store.results_stamp(1)
        first = run_standings(store, 1, int(SAMPLES))
        job = next(j for j in store.jobs(1))
        result = next(r for r in store.results(1) if r.key == job.key)
    con = sqlite3.connect(db)             # the same job's result again, under a new row: as a replay would store it
    with con:
        text, = con.execute("SELECT result_json FROM results WHERE run_id = 1 AND key = ?", (job.key,)).fetchone()
        con.execute("DELETE FROM results WHERE run_id = 1 AND key = ?", (job.key,))
        obj = json.loads(text)
        obj["deals"][0]["margins"] = [-m for m in obj["deals"][0]["margins"]]
        obj["deals"][0]["game_points"] = [-g for g in obj["deals"][0]["game_points"]]
        obj["deals"][0]["maker_won"] = not obj["deals"][0]["maker_won"]
        con.execute("INSERT INTO results (run_id, key, job_idx, result_json, written) VALUES (1, ?, ?, ?, ?)",
                    (job.key, job.index, json.dumps(obj), "2026-01-01T00:00:00Z"))
    con.close()
    with Store(str(db), read_only=True) as store:
        after = store.results_stamp(1)
        assert after != before and store.kept_fit(1, int(SAMPLES), 1, after) is None
        again = run_standings(store, 1, int(SAMPLES))          # computed again, not kept (read-only)
        assert store.kept_fit(1, int(SAMPLES), 1, after) is None
    assert again != first and result.key == job.key
    with Store(str(db)) as store:
        assert run_standings(store, 1, int(SAMPLES)) == again
        assert Standings.from_json(store.kept_fit(1, int(SAMPLES), 1, after) or {}) == again
