"""A soak of the two databases under their readers: a tournament and a ladder
written while other processes read them, as users do.

One ``pengyou arena run`` plays a tournament (its lease heartbeat made to
beat every 0.1 s with ``PENGYOU_LEASE_SECONDS``) while a reader process
runs ``arena show``, ``arena standings`` and ``arena runs`` in a loop; at
the same time ``pengyou ladder run --until-stopped`` plays a ladder that
``pengyou ladder serve`` serves to a client fetching its pages and API in a
loop. When the tournament is complete (and at least ``--seconds`` have
passed), everything is stopped and both files are checked:
``PRAGMA integrity_check`` is ``ok``, every job of the run has exactly one
result, every result's faults are stored with it, every game the ladder
runner said it played is stored once, and no reader ever failed.

    python tests/soak_store.py --seconds 180 --deals 24

prints one line per check and exits 1 if any fails. The test suite runs a
short one (``tests/arena/test_store_soak.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[1]


def _pengyou(*args: str) -> list[str]:
    return [sys.executable, "-m", "arena", *args]


class _Loop(threading.Thread):
    """Calls ``once`` until stopped; counts the calls and keeps the failures."""

    def __init__(self, name: str, once: Any) -> None:
        super().__init__(name=name, daemon=True)
        self.once, self.stop = once, threading.Event()
        self.calls, self.failures = 0, []      # type: int, list[str]

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.once()
            except Exception as exc:            # kept, reported at the end
                self.failures.append(f"{type(exc).__name__}: {exc}")
            self.calls += 1


def _cli(env: dict[str, str], cwd: str, *args: str) -> str:
    done = subprocess.run(_pengyou(*args), cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} exited {done.returncode}: {done.stderr.strip()[-300:]}")
    return done.stdout


def _check(con: sqlite3.Connection, what: str, query: str, want: Any, lines: list[tuple[bool, str]]) -> None:
    got = con.execute(query).fetchall()
    lines.append((got == want, f"{what}: {got if len(str(got)) < 120 else str(got)[:120] + '...'}"
                               f"{'' if got == want else f' (expected {want})'}"))


def soak(folder: str, seconds: float, deals: int, bots: list[str], say: Any = print) -> bool:
    """Run the soak in ``folder``; True if every check passed."""
    env = dict(os.environ, PENGYOU_LEASE_SECONDS="0.3", PYTHONPATH=str(ROOT))
    db = os.path.join(folder, "arena.db")
    lad = os.path.join(folder, "lad")
    procs: list[subprocess.Popen[str]] = []
    loops: list[_Loop] = []
    lines: list[tuple[bool, str]] = []
    start = time.monotonic()
    try:
        _cli(env, folder, "ladder", "create", lad, "--players", "5", "--time-limit", "2")
        for name, spec in (("rnd", "random"), ("heur", "heuristic")):
            _cli(env, folder, "ladder", "submit", "--ladder", lad, "--builtin", spec, "--name", name)
        ladder_run = subprocess.Popen(_pengyou("ladder", "run", "--ladder", lad, "--until-stopped", "--groups", "1"),
                                      cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(ladder_run)
        server = subprocess.Popen(_pengyou("ladder", "serve", "--ladder", lad, "--port", "0"), cwd=folder, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(server)
        assert server.stdout is not None
        first = server.stdout.readline()
        found = re.search(r"at (http://\S+)", first)
        if not found:
            raise RuntimeError(f"the ladder server did not start: {first!r} {server.stderr.read() if server.stderr else ''}")
        url = found.group(1).rstrip("/")

        def fetch_pages() -> None:
            for path in ("/", "/api/standings", "/api/entrants", "/entrants/rnd"):
                with urllib.request.urlopen(url + path, timeout=60) as resp:
                    resp.read()
            data = json.loads(urllib.request.urlopen(url + "/api/entrants/heur", timeout=60).read())
            for g in [g for v in data["versions"] for g in v["games"]][:3]:
                with urllib.request.urlopen(f"{url}/games/{g['id']}", timeout=60) as resp:
                    resp.read()
            time.sleep(0.05)

        arena = subprocess.Popen(_pengyou("arena", "run", "--bots", *bots, "--deals", str(deals), "--players", "5",
                                          "--workers", "1", "--trusted", "builtins", "--no-progress",
                                          "--secret", "soak"),
                                 cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(arena)
        seen_done: list[int] = []

        def read_run() -> None:
            if not os.path.exists(db):
                time.sleep(0.1)
                return
            try:
                shown = json.loads(_cli(env, folder, "arena", "show", "--json"))
            except RuntimeError as exc:
                if "no runs" in str(exc) or "is empty" in str(exc):      # the run is not stored yet
                    return
                raise
            seen_done.append(shown["run"]["done"])
            _cli(env, folder, "arena", "standings")
            _cli(env, folder, "arena", "runs")

        loops = [_Loop("arena-reader", read_run), _Loop("ladder-reader", fetch_pages)]
        for loop in loops:
            loop.start()
        out, err = arena.communicate(timeout=max(seconds * 20, 3600))
        ran = time.monotonic() - start
        lines.append((arena.returncode == 0, f"arena run exited {arena.returncode} after {ran:.0f} s"
                                             + ("" if arena.returncode == 0 else f": {err.strip()[-300:]}")))
        while time.monotonic() - start < seconds:
            time.sleep(0.5)
        for loop in loops:
            loop.stop.set()
        for loop in loops:
            loop.join(600)
        server.send_signal(signal.SIGTERM)
        ladder_run.send_signal(signal.SIGTERM)
        lout, lerr = ladder_run.communicate(timeout=600)
        server.communicate(timeout=60)
        lines.append((ladder_run.returncode == 0, f"ladder run exited {ladder_run.returncode}"
                                                  + ("" if ladder_run.returncode == 0 else f": {lerr.strip()[-300:]}")))
        played = re.search(r"run (\d+) started: (\d+) job\(s\) played now, 0 before, (\d+) in all", out)
        lines.append((played is not None, f"arena run said: {out.strip().splitlines()[0] if out.strip() else '-'}"))
        games = re.search(r"(\d+) round\(s\), (\d+) game\(s\)", lout)
        lines.append((games is not None, f"ladder run said: {games.group(0) if games else lout.strip()[:200]}"))
        for loop in loops:
            ok = loop.calls > 0 and not loop.failures
            lines.append((ok, f"{loop.name}: {loop.calls} passes, {len(loop.failures)} failed"
                              + (f" (first: {loop.failures[0][:300]})" if loop.failures else "")))
        lines.append((seen_done == sorted(seen_done), f"the run's done count as read, never going back: "
                                                      f"{seen_done[:1]} ... {seen_done[-1:]} ({len(seen_done)} reads)"))
        con = sqlite3.connect(Path(db).resolve().as_uri() + "?mode=ro", uri=True)
        try:
            _check(con, "arena.db integrity_check", "PRAGMA integrity_check", [("ok",)], lines)
            if played:
                n = int(played.group(2))
                _check(con, "jobs and results of the run", "SELECT (SELECT count(*) FROM jobs), "
                       "(SELECT count(*) FROM results), (SELECT count(DISTINCT key) FROM results)", [(n, n, n)], lines)
                _check(con, "results without a job", "SELECT count(*) FROM results r LEFT JOIN jobs j "
                       "ON j.run_id = r.run_id AND j.key = r.key WHERE j.key IS NULL", [(0,)], lines)
                faults = sum(len(json.loads(t)["faults"]) for (t,) in con.execute("SELECT result_json FROM results"))
                _check(con, "faults stored with their results", "SELECT count(*) FROM faults", [(faults,)], lines)
                _check(con, "the run's status", "SELECT status FROM runs", [("complete",)], lines)
        finally:
            con.close()
        con = sqlite3.connect(Path(lad, "ladder.db").resolve().as_uri() + "?mode=ro", uri=True)
        try:
            _check(con, "ladder.db integrity_check", "PRAGMA integrity_check", [("ok",)], lines)
            if games:
                g = int(games.group(2))
                _check(con, "ladder games, each once", "SELECT count(*), count(DISTINCT group_id || '.' || rotation) "
                       "FROM games", [(g, g)], lines)
        finally:
            con.close()
    finally:
        for loop in loops:
            loop.stop.set()
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(30)
    for ok, text in lines:
        say(f"{'ok  ' if ok else 'FAIL'} {text}")
    return all(ok for ok, _ in lines)


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=180.0, help="the least time readers and writers overlap")
    ap.add_argument("--deals", type=int, default=24, help="deal seeds of the tournament")
    ap.add_argument("--bots", nargs="+", default=["heuristic", "ismcts:iterations=300"])
    ap.add_argument("--folder", default=None, help="work here (default: a new temporary folder, removed)")
    args = ap.parse_args(argv)
    if args.folder:
        os.makedirs(args.folder, exist_ok=True)
        return 0 if soak(args.folder, args.seconds, args.deals, args.bots) else 1
    with tempfile.TemporaryDirectory(prefix="pengyou-soak-") as folder:
        return 0 if soak(folder, args.seconds, args.deals, args.bots) else 1


if __name__ == "__main__":
    sys.exit(main())
