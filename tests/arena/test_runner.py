"""The tournament runner: resume after an interruption, faults, executors.

Results are compared without their timings (``seconds``), which are the only
part of a job's result that depends on the machine.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.tournament.runner import run_tournament
from arena.tournament.spec import spec_from_options
from arena.store import Store

ROOT = Path(__file__).resolve().parents[2]
FAULTY = str(ROOT / "tests" / "arena" / "faulty_bots.py")


def _timeless(results):
    return [dataclasses.replace(r, seconds=()) for r in results]


def _results(db):
    with Store(str(db), create=False) as store:
        run_id = store.latest_run()
        return store.results(run_id), store.runs()


def _spec(**kw):
    base = dict(players=5, suite="dev", deals=3)
    base.update(kw)
    return spec_from_options(["random", "heuristic"], **base)


def test_interrupted_run_resumes_to_the_same_results(tmp_path):
    spec = _spec()
    whole = run_tournament(spec, str(tmp_path / "whole.db"), progress=False, secret="t")
    assert whole.played == whole.jobs == 3 * 5       # 3 seeds, 1 pair, 5 rotations at 5 seats
    first = run_tournament(spec, str(tmp_path / "cut.db"), progress=False, max_jobs=4, secret="t")
    assert first.played == 4
    rest = run_tournament(spec, str(tmp_path / "cut.db"), progress=False, workers=2)
    assert rest.resumed and rest.done_before == 4 and rest.played == whole.jobs - 4
    a, _ = _results(tmp_path / "whole.db")
    b, runs = _results(tmp_path / "cut.db")
    assert _timeless(a) == _timeless(b)
    assert [r.record for r in a] == [r.record for r in b]
    assert len(runs) == 1 and runs[0].done == whole.jobs and runs[0].status == "complete"
    again = run_tournament(spec, str(tmp_path / "cut.db"), progress=False)
    assert again.played == 0 and len(_results(tmp_path / "cut.db")[0]) == whole.jobs


def test_killed_run_loses_nothing_and_counts_nothing_twice(tmp_path):
    """kill -9 in the middle of a run of the real command, then the same command again."""
    db = tmp_path / "k.db"
    cmd = [sys.executable, "-m", "arena", "arena", "run", "--bots", "random", "heuristic",
           "--players", "6", "--deals", "12", "--workers", "2", "--db", str(db), "--no-progress",
           "--samples", "10", "--secret", "t"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    deadline = time.time() + 120
    done = 0
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
        if db.exists():
            try:
                with Store(str(db), create=False) as store:
                    run_id = store.latest_run()
                    done = len(store.done_keys(run_id)) if run_id is not None else 0
            except Exception:
                continue
            if done >= 3:
                break
    assert proc.poll() is None, "the run finished before it could be killed; make it longer"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "resumed" in out.stdout
    got, runs = _results(db)
    assert len(got) == 24 and len({r.key for r in got}) == 24
    ref = run_tournament(spec_from_options(["random", "heuristic"], players=6, deals=12),
                         str(tmp_path / "ref.db"), progress=False, secret="t")
    assert ref.played == 24
    want, _ = _results(tmp_path / "ref.db")
    assert _timeless(got) == _timeless(want)


@pytest.mark.parametrize("bot, kind", [("CrashBot", "crash"), ("HangBot", "timeout"),
                                       ("IllegalBot", "illegal")])
def test_faulty_bots_are_recorded_and_the_run_completes(tmp_path, bot, kind):
    # a little overage: a bot that sleeps (HangBot) is timed out by the wall bound, 3 times its budget plus 5 s
    spec = spec_from_options([f"{FAULTY}:{bot}", "random"], players=5, deals=1, time_limit=0.3, overage=1.0)
    summary = run_tournament(spec, str(tmp_path / "f.db"), progress=False, workers=2)
    assert summary.played == summary.jobs == 5 and summary.failed == 0
    with Store(str(tmp_path / "f.db"), create=False) as store:
        faults = store.faults(summary.run_id)
        results = store.results(summary.run_id)
    assert faults and {f.kind for _, f in faults} == {kind}
    assert all(f.entrant == 0 for _, f in faults)
    for r in results:
        for d in r.deals:
            assert d.opponents_points >= 0 and d.total_points == spec.rules().total_points


# (a SIGKILL a bot sends itself is no case: a sandboxed bot is the first
# process of its PID namespace, and the kernel drops the signals it sends itself)
@pytest.mark.parametrize("how, why", [("exit", "(exit code 7)"), ("segv", "(signal SIGSEGV)")])
def test_a_bot_that_ends_its_process_is_a_fault_like_a_crash(tmp_path, how, why):
    """The job is played again with the fallback from the fatal call on: the
    same deals as when the bot raises at that step instead."""
    def run(h):
        spec = spec_from_options([f"{FAULTY}:ExitBot?at=4,how={h}", "random"], players=5, deals=2)
        summary = run_tournament(spec, str(tmp_path / f"{h}.db"), progress=False, workers=2, secret="t")
        assert summary.played == summary.jobs == 10 and summary.failed == 0
        with Store(str(tmp_path / f"{h}.db"), create=False) as store:
            return store.results(summary.run_id)

    died, crashed = run(how), run("sysexit")
    faults = [f for r in died for f in r.faults]
    assert faults and all(f.kind == "died" and f.entrant == 0 for f in faults)
    assert all(f.message == f"its process ended {why}" for f in faults)
    assert all(f.kind == "crash" and "SystemExit: 7" in f.message for r in crashed for f in r.faults)
    assert [[(f.seat, f.decision) for f in r.faults] for r in died] == \
        [[(f.seat, f.decision) for f in r.faults] for r in crashed]
    assert [r.deals for r in died] == [r.deals for r in crashed]
    assert [_anonymous(r.record) for r in died] == [_anonymous(r.record) for r in crashed]


def _anonymous(record: str) -> str:
    """A record without the names of its players, nor the words of its
    forfeit's fault (the runs compared differ only in them)."""
    import json

    head, _, rest = record.partition("\n")
    obj = json.loads(head)
    obj.pop("players", None)
    for key in ("kind", "message"):
        obj.get("forfeit", {}).pop(key, None)
    return json.dumps(obj) + "\n" + rest


def _double_or_die(x):
    if x == 5:
        os._exit(9)
    return 2 * x


def test_a_dead_pool_worker_loses_only_the_jobs_in_flight():
    from arena.tournament.executors import Lost, PoolExecutor

    with PoolExecutor(2) as ex:
        out = list(ex.imap_unordered(_double_or_die, range(40)))
    lost = [o for o in out if isinstance(o, Lost)]
    got = [o for o in out if not isinstance(o, Lost)]
    assert len(lost) == 1 and 5 in lost[0].items
    assert len(lost[0].items) <= 4                     # two batches of one per worker in flight
    assert sorted(got + [2 * x for x in lost[0].items]) == [2 * x for x in range(40)]


def test_local_dask_cluster_gives_the_pool_results(tmp_path):
    import distributed  # a test dependency: its absence is a failure, not a skip

    assert distributed.__version__
    spec = _spec(deals=2)
    pool = run_tournament(spec, str(tmp_path / "pool.db"), progress=False, workers=2, secret="t")
    dask = run_tournament(spec, str(tmp_path / "dask.db"), progress=False, workers=2, cluster="local",
                          secret="t")
    assert pool.played == dask.played == pool.jobs
    a, _ = _results(tmp_path / "pool.db")
    b, _ = _results(tmp_path / "dask.db")
    assert _timeless(a) == _timeless(b)


def test_on_dask_a_job_whose_workers_die_is_played_again_here(tmp_path):
    spec = spec_from_options([f"{FAULTY}:ExitBot?at=4,how=exit", "random"], players=5, deals=1)
    summary = run_tournament(spec, str(tmp_path / "d.db"), progress=False, workers=2, cluster="local")
    assert summary.played == summary.jobs == 5 and summary.failed == 0
    with Store(str(tmp_path / "d.db"), create=False) as store:
        faults = [f for _, f in store.faults(summary.run_id)]
    assert faults and {(f.kind, f.message) for f in faults} == {("died", "its process ended (exit code 7)")}


def test_warnings_go_to_the_stderr_of_the_moment(monkeypatch):
    """The arena's warnings are written to whatever sys.stderr is when they
    come: one that was closed since logging was set up is not written to
    (that printed '--- Logging error ---' with a traceback)."""
    import io
    import logging

    from arena.tournament.runner import setup_logging

    first = io.StringIO()
    monkeypatch.setattr(sys, "stderr", first)
    setup_logging(None)
    try:
        logging.getLogger("pengyou.arena").warning("one")
        first.close()
        second = io.StringIO()
        monkeypatch.setattr(sys, "stderr", second)
        logging.getLogger("pengyou.arena").warning("two")
        assert second.getvalue() == "pengyou: WARNING: two\n"
    finally:
        for h in list(logging.getLogger("pengyou").handlers):
            logging.getLogger("pengyou").removeHandler(h)
