"""A forfeit is shown as a forfeit, on every surface that shows a deal.

A real ``pengyou arena run`` with a bot that crashes: every deal its seat
plays is forfeited. The stored record, ``pengyou replay``, the viewer's page
(``pengyou view``) and the report's game pages and games table must each say
which seat faulted, how, at which decision, and the score the deal was given
(the forfeit's, the numbers rated), and mark the referee's random finish as
not counting. A record kept before records told forfeits still reads,
replays and views, and the report's page of it tells the forfeit from the
stored result.
"""

from __future__ import annotations

import html
import io
import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from arena.commands import main
from arena.store import Store
from arena.table.settings import TableSettings
from arena.table.table import play_job
from arena.types import Entrant, Job
from core.errors import InvalidActionError
from core.records import read_deal, read_match, read_records, replay_deal, replay_match, write_records
from core.rules import Rules

ROOT = Path(__file__).resolve().parents[2]
FAULTY = ROOT / "tests" / "arena" / "faulty_bots.py"
CRASH = f"crash={FAULTY}:CrashBot"
FINISH = "after the fault the referee finished the deal at random; this finish does not count"


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def run_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("forfeit") / "r.db"
    code = main(["arena", "run", "--bots", "random", CRASH, "--players", "5", "--deals", "1",
                 "--db", str(db), "--no-progress", "--samples", "20", "--secret", "forfeit-shown"])
    assert code == 0
    return db


def _stored(db):
    """Every stored result of run 1 that a fault forfeited, with its record."""
    with Store(str(db), read_only=True) as store:
        results = store.results(1)
        entrants = [e.name for e in store.entrants(1)]
    forfeited = [r for r in results if any(d.forfeit >= 0 for d in r.deals)]
    assert forfeited and all(r.record for r in forfeited)
    return forfeited, entrants


def _score_text(deal, seat):
    """The forfeit's score as the surfaces print it (the faulting seat's side first)."""
    side = [s for s, e in enumerate(deal.seats) if e == deal.seats[seat]]
    others = [s for s in range(len(deal.seats)) if s not in side]
    return (f"seats {' '.join(map(str, side))} {deal.game_points[seat]:+d} game points and a card margin of "
            f"{deal.margins[seat]:+g} each; seats {' '.join(map(str, others))} "
            f"{deal.game_points[others[0]]:+d} and {deal.margins[others[0]]:+g} each")


def _fault_text(fault, name):
    return (f"forfeit: seat {fault.seat} ({name}) faulted at decision {fault.decision} of the deal "
            f"({fault.kind}: {fault.message})")


def _record_file(tmp_path, res):
    path = tmp_path / f"{res.key}.jsonl"
    path.write_text(res.record, encoding="utf-8")
    return path


def test_the_stored_record_carries_the_fault_and_the_forfeits_score(run_db, capsys):
    forfeited, _ = _stored(run_db)
    for res in forfeited:
        (deal,) = res.deals
        fault = res.faults[0]
        code, text, err = _run(capsys, "arena", "record", res.key, "--db", run_db)
        assert code == 0, err
        records = read_deal(io.StringIO(text))
        f = records[0]["forfeit"]
        assert f == {"seat": deal.forfeit, "kind": "crash", "message": fault.message, "decision": fault.decision,
                     "game_points": list(deal.game_points), "margins": list(deal.margins)}
        assert fault.seat == deal.forfeit and "boom" in fault.message
        state = replay_deal(records)                 # the record, random finish included, replays
        assert f["decision"] <= len(state.history)
        # the score is the forfeit's: the faulting entrant's seats lose the most a side can lose
        guilty = [s for s, e in enumerate(deal.seats) if e == deal.seats[deal.forfeit]]
        assert all(deal.game_points[s] < 0 and deal.margins[s] == -deal.total_points for s in guilty)


def test_replay_tells_the_forfeit_and_marks_the_random_finish(run_db, tmp_path, capsys):
    forfeited, entrants = _stored(run_db)
    res = forfeited[0]
    (deal,) = res.deals
    code, out, err = _run(capsys, "replay", _record_file(tmp_path, res))
    assert code == 0, err
    lines = out.splitlines()
    fault_line = _fault_text(res.faults[0], entrants[deal.seats[deal.forfeit]])
    assert lines[1] == fault_line
    assert lines[2] == "the deal is scored as a forfeit: " + _score_text(deal, deal.forfeit)
    assert lines[3] == FINISH
    at = next(i for i, line in enumerate(lines) if line.startswith("result: "))
    assert lines[at + 1] == ("that result is the referee's random finish and does not count; the deal is scored "
                             "as a forfeit: " + _score_text(deal, deal.forfeit))


def _forfeit_box(page: str) -> tuple[dict[str, str], list[str]]:
    """The page's forfeit box: its attributes and its lines as text."""
    m = re.search(r'<div class="forfeit" ([^>]*)>(.*?)</div>', page, re.S)
    assert m, "no forfeit box on the page"
    attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', m.group(1)))
    lines = [html.unescape(re.sub(r"<[^>]+>", "", p)) for p in re.findall(r"<p[^>]*>(.*?)</p>", m.group(2), re.S)]
    return attrs, lines


def _page_data(page: str) -> dict:
    return json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S).group(1))


def _check_page(page: str, res, entrants) -> None:
    (deal,) = res.deals
    fault = res.faults[0]
    attrs, lines = _forfeit_box(page)
    assert attrs["data-seat"] == str(deal.forfeit) and attrs["data-kind"] == "crash"
    assert attrs["data-decision"] == str(fault.decision)
    assert lines == [_fault_text(fault, entrants[deal.seats[deal.forfeit]]),
                     "the deal is scored as a forfeit: " + _score_text(deal, deal.forfeit), FINISH]
    assert '<p class="finish">' + FINISH + "</p>" in page
    d = _page_data(page)["deals"][0]
    assert d["forfeit"]["seat"] == deal.forfeit and d["forfeit"]["game_points"] == list(deal.game_points)
    assert d["account"][:3] == lines                       # the page's account opens with it too
    steps = d["steps"]
    first = fault.decision + 1                              # the step of the first action after the fault
    assert not any(s.get("random") for s in steps[:first])
    assert all(s.get("random") for s in steps[first:]) and len(steps) > first
    assert steps[first]["notes"][0].endswith(FINISH + ": from this action on")
    assert all("does not count" in s["notes"][0] for s in steps[first:])
    assert steps[-1]["notes"][-1].startswith("the result below is the random finish's and does not count")


def test_the_viewer_page_shows_the_fault_and_the_score(run_db, tmp_path, capsys):
    forfeited, entrants = _stored(run_db)
    res = forfeited[0]
    out = tmp_path / "page.html"
    code, printed, err = _run(capsys, "view", _record_file(tmp_path, res), "-o", out)
    assert code == 0, err
    _check_page(out.read_text(encoding="utf-8"), res, entrants)


def test_the_reports_games_table_and_game_pages_show_the_forfeit(run_db, tmp_path, capsys):
    forfeited, entrants = _stored(run_db)
    out = tmp_path / "rep.html"
    code, printed, err = _run(capsys, "report", "--db", run_db, "-o", out, "--samples", "20")
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    games = re.search(r"<table id=games-table>(.*?)</table>", text, re.S).group(1)
    rows = {re.search(r'<a class=game href="[^"]+">([^<]+)</a>', row).group(1): (attrs, row)
            for attrs, row in re.findall(r"<tr([^>]*)>(.*?)</tr>", games, re.S) if "class=game" in row}
    for res in forfeited:
        (deal,) = res.deals
        fault = res.faults[0]
        attrs, row = rows[res.key]
        assert "class=forfeit" in attrs and f'data-forfeit="{deal.forfeit}"' in attrs
        told = html.unescape(re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)[3])
        assert told.startswith(f"forfeit: seat {deal.forfeit} ({entrants[deal.seats[deal.forfeit]]}) faulted "
                               f"(crash at decision {fault.decision}: {fault.message})")
        assert f"scored {deal.game_points[deal.forfeit]:+d} game points and a card margin of " \
               f"{deal.margins[deal.forfeit]:+g}" in told
        assert "random" in told and "does not count" in told
        link = re.search(r'<a class=game href="([^"]+)">', row).group(1)
        _check_page((tmp_path / link).read_text(encoding="utf-8"), res, entrants)


def _old_db(run_db, tmp_path) -> Path:
    """A copy of the run as a store kept before records told forfeits: the same results, their
    records without the header's ``forfeit``."""
    db = tmp_path / "old.db"
    shutil.copy(run_db, db)
    con = sqlite3.connect(db)
    with con:
        for key, text in con.execute("SELECT key, result_json FROM results WHERE run_id = 1").fetchall():
            obj = json.loads(text)
            records = read_records(io.StringIO(obj["record"]))
            for rec in records:
                rec.pop("forfeit", None)
            buf = io.StringIO()
            write_records(records, buf)
            obj["record"] = buf.getvalue()
            con.execute("UPDATE results SET result_json = ? WHERE run_id = 1 AND key = ?", (json.dumps(obj), key))
    con.close()
    return db


def test_an_old_record_without_the_forfeit_reads_replays_and_its_report_page_tells_it(run_db, tmp_path, capsys):
    forfeited, entrants = _stored(run_db)
    old = _old_db(run_db, tmp_path)
    res = forfeited[0]
    code, text, err = _run(capsys, "arena", "record", res.key, "--db", old)
    assert code == 0, err
    records = read_deal(io.StringIO(text))
    assert "forfeit" not in records[0]
    replay_deal(records)
    path = tmp_path / "old.jsonl"
    path.write_text(text, encoding="utf-8")
    code, told, err = _run(capsys, "replay", path)
    assert code == 0, err
    assert "forfeit" not in told and FINISH not in told
    code, _, err = _run(capsys, "view", path, "-o", tmp_path / "old.html")
    assert code == 0, err
    assert 'class="forfeit"' not in (tmp_path / "old.html").read_text(encoding="utf-8")
    # the report knows the forfeit from the stored result, and its game page tells it as a new record would
    out = tmp_path / "rep.html"
    code, _, err = _run(capsys, "report", "--db", old, "-o", out, "--samples", "20")
    assert code == 0, err
    link = re.search(rf'<a class=game href="([^"]+)">{re.escape(res.key)}</a>', out.read_text(encoding="utf-8"))
    _check_page((tmp_path / link.group(1)).read_text(encoding="utf-8"), res, entrants)


def test_a_match_record_marks_each_forfeited_deal_at_its_own_decision():
    entrants = [Entrant("rnd", "random"), Entrant("crash", f"{FAULTY}:CrashBot?at=40")]
    job = Job(index=0, key="g0-l0-r0", group=0, seed=7, lineup=0, rotation=0, seats=(0, 1, 0, 1, 0))
    settings = TableSettings(Rules.preset("pagat", players=5), trusted="none", record=True, mode="matches")
    res = play_job(job, entrants, settings)
    records = read_match(io.StringIO(res.record))
    replay_match(records)
    headers, actions = [], []
    for rec in records:
        if rec.get("type") == "deal":
            headers.append(rec)
            actions.append(0)
        elif "type" not in rec:
            actions[-1] += 1
    assert len(headers) == len(res.deals)
    forfeited = [k for k, d in enumerate(res.deals) if d.forfeit >= 0]
    assert forfeited and [k for k, h in enumerate(headers) if "forfeit" in h] == forfeited
    for k in forfeited:
        d, f = res.deals[k], headers[k]["forfeit"]
        fault = next(x for x in res.faults if x.seat == d.forfeit)
        assert f["seat"] == d.forfeit and f["kind"] == fault.kind and f["message"] == fault.message
        assert f["decision"] == fault.decision - sum(actions[:k]) <= actions[k]
        assert f["game_points"] == list(d.game_points) and f["margins"] == list(d.margins)


def _with_forfeit(tmp_path, res, change) -> list[dict]:
    records = read_deal(io.StringIO(res.record))
    change(records[0]["forfeit"], records[0])
    return records


@pytest.mark.parametrize("change,msg", [
    (lambda f, h: f.update(seat=9), "line 1: forfeit: seat: 9 is not a seat from 0 to 4"),
    (lambda f, h: f.update(decision=10_000), "line 1: forfeit: decision 10000 is past the deal's"),
    (lambda f, h: f.update(decision=-1), "line 1: forfeit: decision: -1 is not a decision index"),
    (lambda f, h: f.pop("kind"), "line 1: forfeit: missing field 'kind'"),
    (lambda f, h: f.update(extra=1), "line 1: forfeit: unknown field 'extra'"),
    (lambda f, h: f.update(game_points=[1, 2]), "line 1: forfeit: game_points: expected a list of 5 numbers"),
    (lambda f, h: h.update(forfeit="crash"), "line 1: forfeit: expected an object"),
])
def test_a_bad_forfeit_is_refused_in_one_line(run_db, tmp_path, change, msg):
    forfeited, _ = _stored(run_db)
    records = _with_forfeit(tmp_path, forfeited[0], change)
    with pytest.raises(InvalidActionError) as exc:
        replay_deal(records)
    assert str(exc.value).startswith(msg) and "\n" not in str(exc.value)


def test_a_match_header_takes_no_forfeit():
    entrants = [Entrant("rnd", "random"), Entrant("crash", f"{FAULTY}:CrashBot?at=40")]
    job = Job(index=0, key="g0-l0-r0", group=0, seed=7, lineup=0, rotation=0, seats=(0, 1, 0, 1, 0))
    settings = TableSettings(Rules.preset("pagat", players=5), trusted="none", record=True, mode="matches")
    records = read_match(io.StringIO(play_job(job, entrants, settings).record))
    records[0]["forfeit"] = next(r["forfeit"] for r in records if "forfeit" in r)
    with pytest.raises(InvalidActionError, match="line 1: match header: unknown field 'forfeit'"):
        replay_match(records)
