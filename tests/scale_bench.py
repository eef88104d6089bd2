"""Scale bench of the ratings, the ladder and the standings (issue 28).

Builds synthetic data through the stores' own APIs, then measures, each in a
fresh process so that its peak RSS is its own:

- ``refit``: the ladder runner's refit (:class:`arena.ladder.fits.Refitter`)
  of a ladder of ``--entrants`` entrants and ``--games`` games, cold (time,
  peak RSS), then warm after one more round;
- ``page``: the leaderboard through the real aiohttp application (mean of a
  few requests after the first);
- ``schedule``: what the runner does per round before playing
  (:func:`arena.ladder.rounds.schedule_round` and the rotations left),
  per game of the round;
- ``standings``: ``pengyou arena standings`` on ``--results`` results of a
  10-entrant, 5-player run, as a user runs it;
- ``old``: today's code (``git show REV:arena/stats/ratings.py``, the dense
  fit) on a ladder of ``--old-entrants`` and ``--old-games`` that it can do,
  beside the new code on the same data.

    python tests/scale_bench.py                   # the issue's sizes (builds ~4 GB of data once)
    python tests/scale_bench.py --small --check   # 50 entrants, 20,000 games: correctness only

The data is kept under ``--dir`` and reused when it is there.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from arena.types import DealOutcome, Entrant, Job, JobResult  # noqa: E402

PLAYERS = 5
BUDGET = {"refit_s": 30.0, "refit_rss_mib": 1024.0, "page_ms": 200.0, "schedule_ms_per_game": 2.0,
          "standings_s": 20.0}


def _deal(rng: random.Random, seats: tuple[int, ...], strength: list[float]) -> DealOutcome:
    """One deal of the model: a maker and one friend, the side winning as Elo says."""
    maker = rng.randrange(PLAYERS)
    friend = rng.choice([s for s in range(PLAYERS) if s != maker])
    side = tuple(sorted((maker, friend)))
    s_m = sum(strength[seats[s]] for s in side) / 2
    s_o = sum(strength[seats[s]] for s in range(PLAYERS) if s not in side) / (PLAYERS - 2)
    won = rng.random() < 1 / (1 + 10 ** (-(s_m - s_o + 60.0) / 400))
    m = float(rng.choice((20, 60, 100))) * (1 if won else -1)
    sign = [1 if s in side else -1 for s in range(PLAYERS)]
    return DealOutcome(seats, maker, side, 60 if won else 140, 200, won,
                       tuple(x * (1 if won else -1) for x in sign), tuple(x * m for x in sign))


def build_ladder(folder: str, entrants: int, games: int, seed: int = 1) -> None:
    """A ladder of ``entrants`` built-in entrants and ``games`` games of the
    model, written through :class:`arena.ladder.store.LadderStore`, then one
    refit kept (as the runner keeps it)."""
    from arena.ladder import Ladder, LadderRules
    from arena.ladder.fits import Refitter
    from arena.ladder.rounds import schedule_round
    from arena.tournament.schedule import lineups

    lad = Ladder.create(folder, LadderRules(players=PLAYERS))
    rng = random.Random(seed)
    strength = [rng.gauss(0, 200) for _ in range(entrants)]
    base = lineups(2, PLAYERS, "pairs")[0]
    with lad.store() as st:
        st.add_owner("bench", "bench-token")
        ids = [st.add_entrant(f"e{k}", "bench", "builtin", "random", "h", "").id for k in range(entrants)]
        where = {i: k for k, i in enumerate(ids)}
        written = 0
        while written < games:
            todo = schedule_round(st, PLAYERS, 1000, rng)
            batch = []
            for g in todo:
                for r in range(g.rotations):
                    seats = tuple(base[(s + r) % PLAYERS] for s in range(PLAYERS))
                    who = tuple((g.a, g.b)[e] for e in seats)
                    d = _deal(rng, tuple(where[i] for i in who), strength)
                    d = DealOutcome(seats, d.maker, d.maker_side, d.opponents_points, d.total_points, d.maker_won,
                                    d.game_points, d.margins)
                    batch.append((g, r, JobResult(f"g{g.id}-r{r}", g.id, seats, (d,))))
            written += st.add_games(batch[:games - written])
        games_now, rows = Refitter(lad).fit(st)
        st.add_ratings(games_now, [r.to_json() for r in rows])


def build_results(db: str, entrants: int, results: int, seed: int = 2) -> None:
    """An arena run of ``results`` one-deal jobs over ``entrants`` entrants,
    written through :class:`arena.store.Store`."""
    from arena.store import Store

    rng = random.Random(seed)
    strength = [rng.gauss(0, 150) for _ in range(entrants)]
    ents = [Entrant(f"bot{k}", "random") for k in range(entrants)]
    jobs = []
    for k in range(results):
        seats = tuple(rng.randrange(entrants) for _ in range(PLAYERS))
        jobs.append(Job(k, f"{k // 5}.{k % 5}", k // 5, k // 5, 0, k % 5, seats))
    with Store(db) as store:
        run_id, _ = store.open_run("scale-bench", "scale", {"name": "scale", "players": PLAYERS}, ents, jobs)
        for job in jobs:
            store.add_result(run_id, job, JobResult(job.key, job.group, job.seats,
                                                    (_deal(rng, job.seats, strength),)))


def _rss_mib() -> float:
    """This process's peak RSS (VmHWM: unlike ru_maxrss it is not inherited
    from the parent across fork and exec)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def phase_refit(folder: str) -> dict[str, Any]:
    """The runner's refit, cold, then warm after one more round of games."""
    from arena.ladder import Ladder
    from arena.ladder.fits import Refitter

    lad = Ladder(folder)
    before = _rss_mib()
    with lad.store(read_only=True) as st:
        refit = Refitter(lad)
        t = time.perf_counter()
        games, rows = refit.fit(st)
        cold = time.perf_counter() - t
    return {"refit_s": cold, "refit_rss_mib": _rss_mib(), "rss_before_mib": before, "games": games,
            "rated": sum(math.isfinite(r.elo) for r in rows)}


def phase_page(folder: str, requests: int = 5) -> dict[str, Any]:
    """The leaderboard through the real application, with the fit made to fail."""
    import asyncio

    from aiohttp.test_utils import TestClient, TestServer

    import arena.stats.ratings as ratings
    from arena.ladder import Ladder
    from arena.ladder.web.app import make_app

    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("a request refitted the ratings")

    ratings.rate = ratings.standings = ratings.fit_elo = refuse  # type: ignore[assignment]

    async def go() -> dict[str, Any]:
        async with TestClient(TestServer(make_app(Ladder(folder)))) as client:
            t = time.perf_counter()
            first = await client.get("/")
            body = await first.text()
            first_ms = (time.perf_counter() - t) * 1000
            times = []
            for _ in range(requests):
                t = time.perf_counter()
                resp = await client.get("/")
                await resp.text()
                times.append((time.perf_counter() - t) * 1000)
            return {"page_ms": sum(times) / len(times), "first_page_ms": first_ms, "status": first.status,
                    "page_bytes": len(body)}

    return asyncio.run(go())


def phase_schedule(folder: str, rounds: int = 10, per_round: int = 4) -> dict[str, Any]:
    """The runner's per-round scheduling work, per game scheduled."""
    from arena.ladder import Ladder
    from arena.ladder.rounds import schedule_round

    lad = Ladder(folder)
    rng = random.Random(3)
    spent, games = 0.0, 0
    with lad.store() as st:
        for _ in range(rounds):
            t = time.perf_counter()
            todo = schedule_round(st, PLAYERS, per_round, rng)
            left = {g.id: st.played_rotations(g.id) for g in todo}
            spent += time.perf_counter() - t
            games += sum(g.rotations - len(left[g.id]) for g in todo)
            for g in todo:                                  # give the groups up: the data stays as built
                st.tried(g.id, 1)
    return {"schedule_ms_per_game": spent * 1000 / max(games, 1), "scheduled_games": games}


def phase_standings(db: str) -> dict[str, Any]:
    """``pengyou arena standings`` as a user runs it."""
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "arena", "arena", "standings", "--db", db, "--json"],
                       capture_output=True, text=True, cwd=ROOT)
    took = time.perf_counter() - t
    if p.returncode:
        raise SystemExit(p.stderr[-2000:])
    st = json.loads(p.stdout)["standings"]
    return {"standings_s": took, "results": st["jobs"], "rows": len(st["rows"])}


def phase_old(folder: str, rev: str) -> dict[str, Any]:
    """Today's dense fit (``rev``'s ratings module) against the new one, on the same ladder."""
    import importlib.util

    from arena.ladder import Ladder
    from arena.ladder.fits import SAMPLES, GameCache

    source = subprocess.run(["git", "show", f"{rev}:arena/stats/ratings.py"], capture_output=True, text=True,
                            cwd=ROOT, check=True).stdout.replace("from ..types import", "from arena.types import")
    path = os.path.join(tempfile.mkdtemp(), "old_ratings.py")
    with open(path, "w") as fh:
        fh.write(source)
    spec = importlib.util.spec_from_file_location("old_ratings", path)
    assert spec and spec.loader
    old = importlib.util.module_from_spec(spec)
    sys.modules["old_ratings"] = old
    spec.loader.exec_module(old)
    lad = Ladder(folder)
    with lad.store(read_only=True) as st:
        rows, _, results = GameCache().read(st)
    ents = [Entrant(r.label, r.spec) for r in rows]
    before = _rss_mib()
    t = time.perf_counter()
    table = old.standings(results, ents, samples=SAMPLES, seed=0)
    return {"old_refit_s": time.perf_counter() - t, "old_refit_rss_mib": _rss_mib(), "rss_before_mib": before,
            "games": len(results), "elo": {r.index: r.elo for r in table.rows if r.rated}}


def _child(phase: str, *args: str) -> dict[str, Any]:
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--phase", phase, *args],
                       capture_output=True, text=True, cwd=ROOT)
    if p.returncode:
        raise SystemExit(f"phase {phase} failed:\n{p.stderr[-3000:]}")
    return dict(json.loads(p.stdout.strip().splitlines()[-1]))


def main() -> int:
    """Build what is missing, run every phase, print the figures."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entrants", type=int, default=1000)
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--results", type=int, default=1_000_000)
    ap.add_argument("--old-entrants", type=int, default=200)
    ap.add_argument("--old-games", type=int, default=5000)
    ap.add_argument("--old-rev", default="48ae0bb")
    ap.add_argument("--small", action="store_true", help="50 entrants, 20,000 games and results")
    ap.add_argument("--check", action="store_true", help="check correctness, not time")
    ap.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "pengyou-scale-bench"))
    ap.add_argument("--phase", nargs="+", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.phase:
        name, *rest = a.phase
        fn = {"refit": phase_refit, "page": phase_page, "schedule": phase_schedule, "standings": phase_standings,
              "old": phase_old}[name]
        out = fn(*rest)
        out.pop("elo", None) if name != "old" else None
        print(json.dumps(out))
        return 0
    if a.small:
        a.entrants, a.games, a.results, a.old_entrants, a.old_games = 50, 20_000, 20_000, 50, 2000
    os.makedirs(a.dir, exist_ok=True)
    lad = os.path.join(a.dir, f"ladder-{a.entrants}-{a.games}")
    old_lad = os.path.join(a.dir, f"ladder-{a.old_entrants}-{a.old_games}")
    db = os.path.join(a.dir, f"arena-{a.results}.db")
    for folder, n, g in ((lad, a.entrants, a.games), (old_lad, a.old_entrants, a.old_games)):
        if not os.path.exists(os.path.join(folder, "ladder.db")):
            t = time.perf_counter()
            build_ladder(folder, n, g)
            print(f"built {folder} in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    if not os.path.exists(db):
        t = time.perf_counter()
        build_results(db, 10, a.results)
        print(f"built {db} in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    new = {}
    new.update(_child("refit", lad))
    new.update(_child("page", lad))
    new.update(_child("schedule", lad))
    new.update(_child("standings", db))
    old = _child("old", old_lad, a.old_rev)
    old_new = _child("refit", old_lad)
    print(f"scale bench: {a.entrants} entrants, {new['games']} games; standings on {new['results']} results")
    for key, budget in BUDGET.items():
        print(f"  {key:22s} {new[key]:10.2f}   (at most {budget:g})")
    print(f"  today's dense fit ({a.old_rev}) on {a.old_entrants} entrants, {old['games']} games: "
          f"{old['old_refit_s']:.2f} s, peak RSS {old['old_refit_rss_mib']:.0f} MiB; the new refit on the same: "
          f"{old_new['refit_s']:.2f} s, {old_new['refit_rss_mib']:.0f} MiB")
    print(json.dumps({"new": new, "old": old, "new_on_old_size": old_new}))
    if a.check:
        assert new["status"] == 200 and new["rated"] > 0 and new["scheduled_games"] > 0
    elif any(new[k] > b for k, b in BUDGET.items()):
        print("over budget: " + ", ".join(k for k, b in BUDGET.items() if new[k] > b))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
