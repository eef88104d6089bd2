"""``pengyou report``: a run, an SPRT and a tuning run as one page, with the run's own numbers.

The numbers in the page are checked against the commands that print them
(``arena standings --json``) and against a count made here from the stored
results; the page is opened in a real browser in ``test_browser.py``.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from arena.commands import main
from arena.store import Store

ROOT = Path(__file__).resolve().parents[2]
CRASH = f"crash={ROOT / 'tests' / 'arena' / 'faulty_bots.py'}:CrashBot"


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(code, err):
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("pengyou: error: "), err
    return lines[0]


@pytest.fixture(scope="module")
def run_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("report") / "r.db"
    code = main(["arena", "run", "--bots", "random", "heuristic", CRASH, "--players", "5", "--deals", "2",
                 "--db", str(db), "--no-progress", "--samples", "50", "--secret", "report"])
    assert code == 0
    return db


def _cells(text: str, table: str) -> dict[str, list[str]]:
    """Each row of a table of the page, by its entrant, as the cells' text."""
    body = re.search(rf"<table id={table}>(.*?)</table>", text, re.S).group(1)
    out = {}
    for name, row in re.findall(r'<tr data-entrant="([^"]+)">(.*?)</tr>', body, re.S):
        out[name] = [re.sub(r"<[^>]+>", " ", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
    return out


def test_a_run_report_has_every_section_with_the_runs_numbers(run_db, tmp_path, capsys):
    out = tmp_path / "rep.html"
    code, printed, err = _run(capsys, "report", "--db", str(run_db), "-o", str(out), "--samples", "50")
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    for section in ("standings", "duplicate", "head-to-head", "faults", "roles", "games"):
        assert f'<section id="{section}">' in text
    assert text.count("<svg") >= 2                           # the Elo bars and the heat map
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
    code, js, err = _run(capsys, "arena", "standings", "--db", str(run_db), "--json", "--samples", "50")
    assert code == 0, err
    rows = {r["name"]: r for r in json.loads(js)["standings"]["rows"]}
    cells = _cells(text, "standings-table")
    assert set(cells) == set(rows) == {"random", "heuristic", "crash"}
    assert text.count("<svg class='ci'") == sum(1 for r in rows.values() if r["elo"] is not None)   # the Elo bars
    for name, r in rows.items():
        assert cells[name][3] == f"{r['elo']:+.0f}"
        assert cells[name][6] == str(r["deals"])
        assert cells[name][7].startswith(f"{r['dup']['mean']:+.1f}")
        assert cells[name][10] == str(sum(r["faults"].values()))
    # faults: the table's counts and one linked viewer page per faulting game
    with Store(str(run_db), read_only=True) as store:
        faults = store.faults(1)
        results = store.results(1)
        entrants = [e.name for e in store.entrants(1)]
    fault_cells = _cells(text, "fault-table")
    assert fault_cells["crash"][1] == str(sum(1 for _, f in faults if f.kind == "crash")) != "0"
    fault_part = re.search(r'<section id="faults">(.*?)</section>', text, re.S).group(1)
    links = re.findall(r'<a class=game href="([^"]+)">', fault_part)
    assert len(set(links)) == len({k for k, _ in faults})
    games_part = re.search(r'<section id="games">(.*?)</section>', text, re.S).group(1)
    every = re.findall(r'<a class=game href="([^"]+)">', games_part)
    assert len(every) == len(results) == 30 and printed.startswith(f"wrote {out} and 30 game page(s)")
    for link in every:
        page = (tmp_path / link).read_text(encoding="utf-8")
        assert page.startswith("<!DOCTYPE html>") and link.split("/")[-1][:-5] in page
    # the margins by role, counted here from the stored results
    role_cells = _cells(text, "roles-table")
    for e, name in enumerate(entrants):
        by = {"maker": [], "friend": [], "opponent": []}
        for res in results:
            for d in res.deals:
                if d.forfeit >= 0:
                    continue
                for s, who in enumerate(d.seats or res.seats):
                    if who == e:
                        role = "maker" if s == d.maker else "friend" if s in d.maker_side else "opponent"
                        by[role].append(d.margins[s])
        for k, role in enumerate(("maker", "friend", "opponent")):
            cell = role_cells[name][k + 1]
            assert cell.endswith(f"n={len(by[role])}")
            if by[role]:
                assert cell.startswith(f"{math.fsum(by[role]) / len(by[role]):+.1f}")


def test_an_sprt_report_draws_its_llr_path(tmp_path, capsys):
    db = tmp_path / "s.db"
    code, _, err = _run(capsys, "sprt", "heuristic", "random", "--elo0", "0", "--elo1", "40", "--max-deals", "6",
                        "--db", str(db), "--secret", "r")
    assert code in (0, 1), err
    out = tmp_path / "sprt.html"
    code, _, err = _run(capsys, "report", "--sprt", "1", "--db", str(db), "-o", str(out), "--samples", "20")
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    from arena.tournament.sprt import saved_state

    state = saved_state(str(db), 1)[0]["state"]
    summary = re.search(r"<p id=sprt-summary-0>(.*?)</p>", text).group(1)
    assert f"LLR {state['llr']:.3f} after {state['groups']} groups" in summary
    assert '<section id="sprt-0">' in text and text.count("<svg") >= 3
    code, _, err = _run(capsys, "report", "--sprt", "7", "--db", str(db), "-o", str(tmp_path / "x.html"))
    assert "not an SPRT" in _one_line_error(code, err)


def test_a_tuning_report_draws_each_parameters_trajectory(tmp_path, capsys):
    db = tmp_path / "t.db"
    code, _, err = _run(capsys, "tune", "heuristic", "--param", "throw_risk=0.5,0,1,0.2,0.5", "--iterations", "4",
                        "--players", "5", "--time-limit", "0", "--no-sprt", "--no-progress", "--db", str(db),
                        "--secret", "t", "--out", str(tmp_path / "traj"))
    assert code == 0, err
    out = tmp_path / "tune.html"
    code, _, err = _run(capsys, "report", "--tune", "1", "--db", str(db), "-o", str(out))
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    traj = json.loads((tmp_path / "traj" / "trajectory.json").read_text())
    row = re.search(r'<tr data-param="throw_risk">(.*?)</tr>', text).group(1)
    assert f"<td class=now>{traj['theta'][-1][0]:.6g}</td>" in row and "after 4 iterations" in text
    assert '<section id="trajectory">' in text and "<svg" in text


def test_bad_report_requests_get_one_line(run_db, tmp_path, capsys):
    out = str(tmp_path / "x.html")
    code, _, err = _run(capsys, "report", "9", "--db", str(run_db), "-o", out)
    assert "no run 9" in _one_line_error(code, err)
    code, _, err = _run(capsys, "report", "--tune", "3", "--db", str(run_db), "-o", out)
    assert "no tuning run 3" in _one_line_error(code, err)
    code, _, err = _run(capsys, "report", "--db", str(tmp_path / "missing.db"), "-o", out)
    assert "no such database" in _one_line_error(code, err)
    code, _, err = _run(capsys, "report", "1", "--tune", "1", "--db", str(run_db), "-o", out)
    assert "not several" in _one_line_error(code, err)
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not a database" * 100)
    code, _, err = _run(capsys, "report", "--db", str(bad), "-o", out)
    _one_line_error(code, err)
    assert bad.read_bytes() == b"this is not a database" * 100          # left as it was
    code, _, err = _run(capsys, "report", "--db", str(run_db), "-o", str(tmp_path / "no" / "such" / "dir" / "r.html"))
    _one_line_error(code, err)


def test_games_caps_the_viewer_pages_written(run_db, tmp_path, capsys):
    out = tmp_path / "few.html"
    code, printed, err = _run(capsys, "report", "--db", str(run_db), "-o", str(out), "--samples", "20",
                              "--games", "3")
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    assert printed.startswith(f"wrote {out} and 3 game page(s)") and "27 game(s) without a page" in text
    assert len(list((tmp_path / "few_games").iterdir())) == 3


def test_a_stored_key_never_becomes_a_path_outside_the_report(run_db, tmp_path, capsys):
    import shutil
    import sqlite3

    db = tmp_path / "crafted.db"
    shutil.copy(run_db, db)
    con = sqlite3.connect(db)
    key, text = con.execute("SELECT key, result_json FROM results WHERE run_id = 1 ORDER BY job_idx LIMIT 1").fetchone()
    result = json.loads(text)
    result["key"] = "../../escaped"                      # a result whose key is a path
    con.execute("UPDATE results SET result_json = ? WHERE key = ?", (json.dumps(result), key))
    con.commit()
    con.close()
    out = tmp_path / "deep" / "r.html"
    out.parent.mkdir()
    code, _, err = _run(capsys, "report", "--db", str(db), "-o", str(out), "--samples", "20")
    assert code == 0, err
    assert not list(tmp_path.glob("**/escaped*")) and not (tmp_path.parent / "escaped.html").exists()
    assert "../../escaped" in out.read_text(encoding="utf-8")          # listed, but without a page


def test_hostile_names_and_fault_messages_are_escaped(run_db, tmp_path, capsys):
    import shutil
    import sqlite3

    hostile = ("<script>alert(1)</script>", '"><img src=x onerror=alert(1)>')
    db = tmp_path / "hostile.db"
    shutil.copy(run_db, db)
    con = sqlite3.connect(db)
    with con:
        con.execute("UPDATE entrants SET name = ? WHERE name = 'crash'", (hostile[0],))
        con.execute("UPDATE entrants SET spec = ? WHERE name = 'random'", (hostile[1],))
        con.execute("UPDATE faults SET message = ?", (hostile[1],))
    con.close()
    out = tmp_path / "hostile.html"
    code, _, err = _run(capsys, "report", "--db", str(db), "-o", str(out), "--samples", "20", "--games", "2")
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    assert "<script>alert(1)" not in text and "<img src=x" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in text
    for page in (tmp_path / "hostile_games").iterdir():
        assert "<script>alert(1)" not in page.read_text(encoding="utf-8")


def test_the_head_to_head_follows_the_standings_order(run_db, tmp_path, capsys):
    """Rows and columns of the head-to-head table come best first, as the
    standings rank them (not in the order the entrants were given)."""
    out = tmp_path / "h2h.html"
    code, _, err = _run(capsys, "report", "--db", str(run_db), "-o", str(out), "--samples", "50")
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    code, js, err = _run(capsys, "arena", "standings", "--db", str(run_db), "--json", "--samples", "50")
    ranked = [r["name"] for r in json.loads(js)["standings"]["rows"]]
    table = re.search(r"<table id=cross-table>(.*?)</table>", text, re.S).group(1)
    header = re.findall(r"<th>([^<]+)</th>", table.split("</tr>", 1)[0])
    rows = re.findall(r"<tr><td class=name>([^<]+)</td>", table)
    assert header == rows == ranked
