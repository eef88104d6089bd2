"""``pengyou report --ladder FOLDER``: a ladder as one self-contained page, with the ladder's own numbers.

The ladder is the server tests' (two built-ins and a submitted bot that
crashes after its validation, a few rounds played). The page's Elo, deals,
provisional marks and faults are checked against :func:`arena.ladder.ratings`
(the leaderboard's fit) and against the faults stored in the ladder; every
faulting game gets a viewer page of its own; bad requests get one line. The
page is opened in a real browser in ``test_ladder_browser.py``.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from arena.commands import main
from arena.ladder import ratings

from test_ladder_server import ladder  # noqa: F401  (a played ladder)
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
