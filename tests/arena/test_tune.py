"""pengyou tune on real bots: a planted weakness is tuned away and the final
SPRT confirms it; the command resumes after kill -9 to the same trajectory."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from arena.stats.spsa import TuneParam
from arena.stats.sprt import Hypotheses
from arena.tournament.sprt import SprtTest, run_sprt
from arena.tournament.tune import TuneSpec, load_tune, run_tune
from arena.types import ArenaError
from arena.tournament.spec import spec_from_options

sys.path.insert(0, os.path.dirname(__file__))
from planted import PlantedBot  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PLANTED = os.path.join(HERE, "planted.py") + ":PlantedBot"


@pytest.fixture
def planted_registered():
    """``planted`` as a built-in name for one test (played in this process)."""
    from bots import base

    base._REGISTRY["planted"] = PlantedBot
    try:
        yield
    finally:
        del base._REGISTRY["planted"]


def test_spsa_drives_a_planted_weakness_out_and_the_final_sprt_confirms_the_gain(tmp_path, planted_registered):
    spec = TuneSpec(bot="planted", params=(TuneParam.parse("p=0.5,0,1,0.1,1.0"),), iterations=60, players=5,
                    time_limit=0.0, trusted="builtins", seeds="planted")
    db = str(tmp_path / "t.db")
    run = run_tune(spec, db, workers=1, progress=False, secret="k")
    p = run.spsa.theta[0]
    assert run.spsa.done == 60 and len(run.trajectory) == 60
    assert p < 0.25, [round(t[0], 2) for t in run.trajectory]
    assert sum(t[0] for t in run.trajectory[-10:]) / 10 < sum(t[0] for t in run.trajectory[:10]) / 10
    test = SprtTest(spec_from_options([f"tuned=planted:p={p:.4f}", "start=planted:p=0.5"], name="final",
                                      players=5, suite="gen:planted-final", deals=400, trusted="builtins",
                                      time_limit=0.0), Hypotheses(0.0, 10.0))
    assert run_sprt(test, db, workers=1, secret="k").verdict == "H1"
    again = run_tune(spec, db, workers=1, progress=False, secret="k")       # done: nothing more to play
    assert again.resumed and again.spsa.theta == run.spsa.theta and again.trajectory == run.trajectory


_KILL = {"marker": "", "play": None}


def _killing_play_item(item, died=None):
    """Play a job in a worker, but kill the worker (SIGKILL, once) at iteration 3."""
    if item.tag[0] == 3 and not os.path.exists(_KILL["marker"]):
        with open(_KILL["marker"], "w") as fh:
            fh.write(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return _KILL["play"](item, died)


def test_a_worker_killed_mid_batch_changes_nothing(tmp_path, monkeypatch, planted_registered):
    """A worker process killed with SIGKILL while it plays (as the OOM killer
    or an operator would) loses no iteration: its jobs are played again, and
    the trajectory is the one of a run where nothing died."""
    from arena.tournament import jobs

    spec = TuneSpec(bot="planted", params=(TuneParam.parse("p=0.5,0,1,0.1,1.0"),), iterations=8, players=5,
                    time_limit=0.0, trusted="builtins", seeds="killed", batch=4)
    calm = run_tune(spec, str(tmp_path / "calm.db"), workers=2, progress=False, secret="k")
    marker = tmp_path / "killed"
    monkeypatch.setitem(_KILL, "marker", str(marker))
    monkeypatch.setitem(_KILL, "play", jobs.play_item)
    monkeypatch.setattr(jobs, "play_item", _killing_play_item)      # the workers fork with it
    run = run_tune(spec, str(tmp_path / "killed.db"), workers=2, progress=False, secret="k")
    assert marker.exists() and int(marker.read_text()) != os.getpid()      # a worker died, not this process
    assert run.spsa.done == 8 and run.trajectory == calm.trajectory and run.spsa.theta == calm.spsa.theta


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, timeout=900)


TUNE = ["tune", PLANTED, "--param", "p=0.5,0,1,0.1,1.0", "--iterations", "24", "--batch", "2", "--players", "5",
        "--time-limit", "0", "--seeds", "cli", "--secret", "k", "--no-sprt", "--no-progress"]


def _iterations_stored(db: str) -> int:
    """How many iterations the tuning run in ``db`` has stored (0 before it stores any)."""
    try:
        return len(load_tune(db, 1)[1].trajectory)
    except ArenaError:                  # not created yet
        return 0


def test_the_command_writes_the_trajectory_and_resumes_after_kill_9_to_the_same_one(tmp_path):
    whole = _cli(*TUNE, "--db", str(tmp_path / "w.db"), "--out", str(tmp_path / "w"))
    assert whole.returncode == 0, whole.stderr
    assert "p 0.5 -> " in whole.stdout and "tuned bot: " in whole.stdout
    with open(tmp_path / "w" / "trajectory.json") as fh:
        want = json.load(fh)
    assert len(want["theta"]) == 24 and want["params"] == ["p"]
    csv = (tmp_path / "w" / "trajectory.csv").read_text().splitlines()
    assert csv[0] == "iteration,p" and len(csv) == 26
    assert (tmp_path / "w" / "trajectory.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    db = str(tmp_path / "k.db")
    proc = subprocess.Popen([sys.executable, "-m", "arena", *TUNE, "--db", db, "--out", str(tmp_path / "k")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    end = time.monotonic() + 300        # killed once a third of the iterations are stored, not after a delay
    while _iterations_stored(db) < 8 and proc.poll() is None and time.monotonic() < end:
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL
    assert 8 <= _iterations_stored(db) < 24                 # stopped part of the way
    rerun = _cli(*TUNE, "--db", db, "--out", str(tmp_path / "k"))
    assert rerun.returncode == 0, rerun.stderr
    with open(tmp_path / "k" / "trajectory.json") as fh:
        assert json.load(fh) == want


@pytest.mark.parametrize("args, text", [
    (["nosuchbot", "--param", "p=0.5,0,1,0.1,1", "--iterations", "5"], "nosuchbot"),
    (["heuristic", "--param", "nosuch=0.5,0,1,0.1,1", "--iterations", "5"], "no such parameter"),
    (["heuristic", "--param", "throw_risk=2,0,1,0.1,1", "--iterations", "5"], "outside its range"),
    (["heuristic", "--param", "throw_risk=0.5,1,0,0.1,1", "--iterations", "5"], "must be below"),
    (["ismcts", "--param", "reward=1,0,2,0.1,1", "--iterations", "5"], "only numbers"),
    (["heuristic", "--param", "throw_risk=0.5,0,1,0.1,1"], "--iterations"),
    (["heuristic", "--iterations", "5"], "--param"),
    (["heuristic", "--param", "throw_risk=0.5,0,1,0.1,1", "--iterations", "0"], "--iterations"),
    (["heuristic", "--param", "throw_risk=0.5,0,1,0.1,1", "--iterations", "5", "--sprt-elo0", "5",
      "--sprt-elo1", "1"], "must be below"),
])
def test_bad_input_is_one_line(tmp_path, args, text):
    res = _cli("tune", *args, "--db", str(tmp_path / "t.db"))
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1 and text in lines[0], res.stderr


def test_the_command_ends_with_an_sprt_of_the_tuned_values_against_the_start(tmp_path):
    res = _cli("tune", "heuristic", "--param", "ruff_risk_max=0.4,0,1,0.3,2", "--iterations", "6", "--players", "5",
               "--time-limit", "0", "--secret", "k", "--no-progress", "--sprt-elo1", "200", "--sprt-max-deals", "40",
               "--db", str(tmp_path / "t.db"), "--out", str(tmp_path / "o"))
    assert res.returncode == 0, res.stderr
    assert "SPRT tuned against start on fresh deals" in res.stdout
    with open(tmp_path / "o" / "sprt.json") as fh:
        state = json.load(fh)
    assert state["verdict"] in ("H0", "H1", "limit") and state["groups"] >= 1
    assert state["hypotheses"]["high"] == 200.0
