"""The ladder at scale, on a small copy of the scale bench's data
(``tests/scale_bench.py``): the server never refits in a request, the
scheduler's queries never scan the games, the kept ratings are the fit's,
and the bench itself runs. Speed is measured by the bench, never here."""

from __future__ import annotations

import asyncio
import math
import os
import random
import sqlite3
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import scale_bench  # noqa: E402

from arena.ladder import Ladder  # noqa: E402
from arena.ladder.fits import Refitter, fit, ratings  # noqa: E402
from arena.ladder.rounds import schedule_round  # noqa: E402

#: Tables whose rows grow with the games: a scheduling query may only search them.
GROWING = ("games", "groups", "faults", "ratings", "met")


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("scale") / "lad")
    scale_bench.build_ladder(folder, 30, 3000)
    return Ladder(folder)


def test_server_never_refits_in_a_request(big, monkeypatch):
    from aiohttp.test_utils import TestClient, TestServer

    import arena.stats.ratings as stats
    from arena.ladder.web.app import make_app

    def refuse(*_, **__):
        raise AssertionError("refitted inside a request")

    for name in ("rate", "standings", "fit_elo", "bootstrap_elo"):
        monkeypatch.setattr(stats, name, refuse)
    games, kept = ratings(big)                      # the kept rows (they cover every game)

    async def go():
        async with TestClient(TestServer(make_app(big))) as client:
            page = await client.get("/")
            api = await client.get("/api/standings")
            return page.status, await page.text(), api.status, await api.json()

    status, text, api_status, data = asyncio.run(go())
    assert (status, api_status) == (200, 200), text[-500:]
    assert "No ratings yet" not in text and games == 3000
    best = kept[0]
    assert best.label in text
    served = {r["id"]: r for r in data["standings"]} if "standings" in data else None
    if served is not None:
        assert served[best.id]["elo"] == best.to_json()["elo"]


def test_a_ladder_without_kept_ratings_says_so(tmp_path):
    from aiohttp.test_utils import TestClient, TestServer

    from arena.ladder import LadderRules
    from arena.ladder.web.app import make_app

    lad = Ladder.create(str(tmp_path / "lad"), LadderRules(players=5))
    with lad.store() as st:
        st.add_owner("ann", "tok")
        st.add_entrant("rnd", "ann", "builtin", "random", "h", "")

    async def go():
        async with TestClient(TestServer(make_app(lad))) as client:
            page = await client.get("/")
            return page.status, await page.text()

    status, text = asyncio.run(go())
    assert status == 200 and "No ratings yet" in text and "rnd" in text


def test_scheduling_queries_only_search_the_growing_tables(big):
    plans = []
    with big.store() as st:
        con = st._db
        statements: list[str] = []
        con.set_trace_callback(statements.append)
        todo = schedule_round(st, 5, 4, random.Random(1))
        for g in todo:
            st.played_rotations(g.id)
        st.count_games()
        con.set_trace_callback(None)
        assert todo
        for sql in statements:
            if sql.lstrip().upper().startswith("SELECT"):
                for row in con.execute("EXPLAIN QUERY PLAN " + sql):
                    plans.append((sql, row[-1]))
        for g in todo:
            st.tried(g.id, 1)                          # leave the data as built
    alias = {"g": "groups", "m": "games", "o": "open_groups"}
    scans = [(sql, step) for sql, step in plans
             if step.startswith("SCAN") and alias.get(step.split()[1], step.split()[1]) in GROWING]
    assert plans and not scans, scans


def test_tallies_equal_a_count_of_the_games(big):
    with big.store() as st:
        met, deals = st.meetings(), st.deals_of_entrants()
        con = st._db
        scanned = {(a, b): n for a, b, n in con.execute(
            "SELECT min(g.a, g.b), max(g.a, g.b), count(*) FROM games m JOIN groups g ON g.id = m.group_id "
            "GROUP BY 1, 2")}
        played = {e: n for e, n in con.execute(
            "SELECT e, count(*) FROM (SELECT g.a AS e FROM games m JOIN groups g ON g.id = m.group_id "
            "UNION ALL SELECT g.b FROM games m JOIN groups g ON g.id = m.group_id) GROUP BY e")}
    assert met == scanned and deals == played


def test_an_older_ladder_gets_its_tallies_on_the_next_write(big, tmp_path):
    import shutil

    folder = tmp_path / "old"
    shutil.copytree(big.folder, folder)
    con = sqlite3.connect(folder / "ladder.db")
    with con:
        for t in ("played", "met", "open_groups"):
            con.execute(f"DROP TABLE {t}")
    con.close()
    old = Ladder(str(folder))
    with old.store(read_only=True) as st:
        assert st.deals_of_entrants() == {}             # a reader never writes
    with old.store() as st, big.store(read_only=True) as ref:
        assert st.meetings() == ref.meetings() and st.deals_of_entrants() == ref.deals_of_entrants()
        assert [g.id for g in st.open_groups()] == [g.id for g in ref.open_groups()]


def test_kept_rows_are_the_fit_of_the_same_games(big):
    f = fit(big, kept=False)
    with big.store(read_only=True) as st:
        games, rows = Refitter(big).fit(st)
    assert games == len(f.results)
    by_id = {r.id: r for r in f.rows}
    for r in rows:
        ref = by_id[r.id]
        assert (r.deals, r.provisional, r.faults) == (ref.deals, ref.provisional, ref.faults)
        for a, b in ((r.elo, ref.elo), (r.lo, ref.lo), (r.hi, ref.hi)):
            assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-6)


def test_warm_refit_equals_a_cold_one(big):
    with big.store(read_only=True) as st:
        refit = Refitter(big)
        refit.fit(st)
        refit.cache = type(refit.cache)()             # read the games again, start from the last fit
        _, warm = refit.fit(st)
        _, cold = Refitter(big).fit(st)
    for a, b in zip(warm, cold):
        assert a.id == b.id and a.elo == pytest.approx(b.elo, abs=1e-5)
        assert (a.lo, a.hi) == pytest.approx((b.lo, b.hi), abs=1e-3)


def test_the_small_scale_bench_runs(tmp_path):
    p = subprocess.run([sys.executable, scale_bench.__file__, "--small", "--check", "--dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:] + p.stdout[-2000:]
    assert "refit_s" in p.stdout and "today's dense fit" in p.stdout
