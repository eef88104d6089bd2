"""``kill -9`` of the referee (the ``pengyou arena run`` process) at random
moments: nothing stored is lost, doubled or changed, and no worker, fork
server or bot process outlives it. SIGTERM ends a run as Ctrl-C does."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.sandbox.jail import UID_BASE
from arena.tournament.runner import run_tournament
from arena.tournament.spec import spec_from_options
from arena.store import Store

ROOT = Path(__file__).resolve().parents[2]
BOTS = ["random", "heuristic"]
ARGS = ["--players", "5", "--deals", "4", "--workers", "2", "--no-progress", "--samples", "10",
        "--secret", "kill-test"]
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: only then do bots run as users of their own, "
                             "by which these tests find every bot process left behind")


def _cmd(db: Path) -> list[str]:
    return [sys.executable, "-m", "arena", "arena", "run", "--bots", *BOTS, "--db", str(db), *ARGS]


def _descendants_alive(marker: str) -> list[int]:
    """Processes whose command line names ``marker`` (the run's database),
    or that run as a sandboxed bot's user."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().decode(errors="replace")
            with open(f"/proc/{entry}/status") as f:
                uid = next(int(line.split()[1]) for line in f if line.startswith("Uid:"))
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, StopIteration, IndexError):
            continue
        if state == "Z":
            continue
        if marker in cmd or uid >= UID_BASE:
            out.append(int(entry))
    return out


def _describe(pids: list[int]) -> str:
    """Who the processes left behind are: pid, parent, state and command line."""
    out = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            out.append(f"{pid} (parent {fields[1]}, state {fields[0]}): {cmd[:200]}")
        except OSError:
            out.append(f"{pid} (gone)")
    return "; ".join(out)


def _results(db: Path) -> dict:
    with Store(str(db), create=False) as store:
        run = store.latest_run()
        return {r.key: r for r in store.results(run)} if run is not None else {}


def _timeless(r):
    import dataclasses

    return dataclasses.replace(r, seconds=())


@as_root
def test_kill_9_of_the_referee_at_random_moments(tmp_path):
    ref_db = tmp_path / "ref.db"
    spec = spec_from_options(BOTS, players=5, deals=4)
    ref = run_tournament(spec, str(ref_db), workers=2, progress=False, secret="kill-test")
    want = _results(ref_db)
    assert len(want) == ref.jobs == 20
    db = tmp_path / "k.db"
    rng = random.Random(20261201)
    seen: dict = {}
    trials = 0
    while trials < 20:
        proc = subprocess.Popen(_cmd(db), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.2, 2.5))
        finished = proc.poll() is not None
        if not finished:
            proc.send_signal(signal.SIGKILL)
        proc.wait()
        trials += 1
        deadline = time.monotonic() + 5
        while _descendants_alive(str(db)) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = _descendants_alive(str(db))
        assert left == [], f"trial {trials}: processes outlived the referee: {_describe(left)}"
        # killed before its first commit, the referee leaves no file or an empty one (the next
        # run fills it; reading commands call it "no results database")
        got = _results(db) if db.exists() and db.stat().st_size > 0 else {}
        for key, res in seen.items():                 # nothing stored before is lost or changed
            assert key in got and _timeless(got[key]) == _timeless(res), key
        for key, res in got.items():                  # every stored result is the reference's
            assert _timeless(res) == _timeless(want[key]), key
        seen = got
        if len(got) == len(want):
            db.unlink()                               # start over: more kills at every stage
            for extra in ("-wal", "-shm"):
                Path(str(db) + extra).unlink(missing_ok=True)
            seen = {}
    proc = subprocess.run(_cmd(db), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    got = _results(db)
    assert sorted(got) == sorted(want)
    assert all(_timeless(got[k]) == _timeless(want[k]) for k in want)


@as_root
def test_sigterm_stops_a_run_like_ctrl_c(tmp_path):
    db = tmp_path / "t.db"
    cmd = _cmd(db)
    cmd[cmd.index("4")] = "2000"                      # long enough to be stopped on a fast machine
    cmd += ["--suite", "gen:sigterm"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(3.0)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2, err
    assert "interrupted; the results so far are saved" in err.strip().splitlines()[-1]
    deadline = time.monotonic() + 5
    while _descendants_alive(str(db)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _descendants_alive(str(db)) == []
    with Store(str(db), create=False) as store:
        run = store.latest_run()
        assert store.run(run).status == "interrupted"


def _played_now(out: str) -> int:
    line = next(ln for ln in out.splitlines() if "job(s) played now" in ln)
    return int(line.split(": ", 1)[1].split()[0])


def test_two_runners_on_one_run_never_play_the_same_job(tmp_path):
    """Two `arena run` of the same command on one database, started at the
    same moment: every job is played by exactly one of them (the leases),
    the one that finds every job taken says so, and the run completes."""
    db = tmp_path / "two.db"
    cmd = [sys.executable, "-m", "arena", "arena", "run", "--bots", *BOTS, "--db", str(db),
           "--players", "5", "--deals", "6", "--workers", "1", "--no-progress", "--samples", "10",
           "--secret", "two-runners"]
    # the first creates the run; both are then started together on it
    first = subprocess.run(cmd[:-4] + ["--max-jobs", "0", "--secret", "two-runners"], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    procs = [subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
        assert "stored meanwhile by another runner" not in out      # no job was played by both
    played = [_played_now(out) for out, _ in outs]
    results = _results(db)
    total = int(first.stdout.split(" in all")[0].rsplit(" ", 1)[1])
    assert sum(played) == len(results) == total == 30, (played, [o for o, _ in outs])
    if min(played) == 0:            # one claimed everything first: it was told why it had nothing to do
        idle = outs[played.index(0)][0]
        assert "being played by another runner" in idle or f"0 job(s) played now, {total} before" in idle
    with Store(str(db), create=False) as store:
        assert store.run(store.latest_run()).status == "complete"
        assert store.leased_elsewhere(store.latest_run(), __import__("arena.store").store.Owner.me()) == 0
    assert _descendants_alive(str(db)) == []
