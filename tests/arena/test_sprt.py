"""The sequential test: its error rates on simulated scores, and real tests
that stop, resume and continue with the same verdict."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from arena.stats.sprt import MIN_GROUPS, Hypotheses, counts_llr, decide, elo_to_score, group_scores, verdict
from arena.tournament.sprt import SprtTest, run_sprt, saved_state
from arena.tournament.spec import spec_from_options
from arena.types import ArenaError

#: Simulated tests per hypothesis, and the seed of the simulations.
TESTS = 2000
SEED = 20261201


def _simulate(support: np.ndarray, probs: np.ndarray, hyp: Hypotheses, tests: int,
              rng: np.random.Generator) -> tuple[float, float, float]:
    """``tests`` simulated tests at once, each drawing group scores from
    ``support`` with chances ``probs``, judged after every group by the
    test's own LLR (:func:`counts_llr`) and stopping rule (:func:`decide`):
    (share accepting H1, share accepting H0, mean groups)."""
    counts = np.zeros((tests, len(support)))
    lams = [np.zeros(tests), np.zeros(tests)]
    ended = np.zeros(tests, int)
    groups = np.zeros(tests, int)
    live = np.arange(tests)
    n = 0
    while len(live):
        n += 1
        assert n < 100_000, "a simulated test that never ends"
        counts[live, rng.choice(len(support), size=len(live), p=probs)] += 1
        if n < MIN_GROUPS:
            continue
        warm = [lam[live] for lam in lams]
        way = decide(counts_llr(support, counts[live], hyp, warm), n, hyp)
        for lam, w in zip(lams, warm):
            lam[live] = w
        stop = way != 0
        ended[live[stop]] = way[stop]
        groups[live[stop]] = n
        live = live[~stop]
    return float(np.mean(ended == 1)), float(np.mean(ended == -1)), float(groups.mean())


def _within(rate: float, expected: float, tests: int) -> bool:
    """Whether ``rate`` is within three standard errors of ``expected``."""
    return abs(rate - expected) <= 3 * math.sqrt(expected * (1 - expected) / tests)


def _seat_duels(elo: float, seats: int = 6, same: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Group scores as the elo unit makes them: the mean over ``seats`` seat
    duels, each won (1), tied (1/2, with chance ``same``) or lost (0), with
    expected score ``elo_to_score(elo)``: the scores and their chances."""
    win = elo_to_score(elo) - same / 2
    one = np.array([1 - win - same, same, win])            # half-points 0, 1, 2 of one seat
    dist = np.array([1.0])
    for _ in range(seats):
        dist = np.convolve(dist, one)
    return np.arange(len(dist)) / (2 * seats), dist / dist.sum()


def _real(source: str, unit: str, shift: float) -> tuple[np.ndarray, np.ndarray]:
    """The duplicate group scores of a bot against itself in real games
    (``data/null_scores.json``), centred on their null value, then moved by
    ``shift``: the scores and their chances."""
    with open(os.path.join(os.path.dirname(__file__), "data", "null_scores.json")) as fh:
        xs = np.array(json.load(fh)[source][unit])
    xs = xs - xs.mean() + (0.5 if unit == "elo" else 0.0)
    values, counts = np.unique(np.round(xs + shift, 9), return_counts=True)
    return values, counts / counts.sum()


def _check(model, hyp: Hypotheses, low: float, high: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    false_h1, _, n0 = _simulate(*model(low), hyp, TESTS, rng)
    power, _, n1 = _simulate(*model(high), hyp, TESTS, rng)
    assert _within(false_h1, hyp.alpha, TESTS), (false_h1, n0)
    assert _within(power, 1 - hyp.beta, TESTS), (power, n1)
    assert n0 > 3 * MIN_GROUPS and n1 > 3 * MIN_GROUPS       # the look-limit does not decide it


@pytest.mark.parametrize("elo0, elo1", [(0.0, 15.0), (-5.0, 10.0)])
def test_elo_test_errs_as_often_as_alpha_and_beta_allow(elo0, elo1):
    _check(_seat_duels, Hypotheses(elo0, elo1, 0.05, 0.05), elo0, elo1, SEED)


@pytest.mark.parametrize("source", ["random", "ismcts20"])
def test_elo_test_on_real_duplicate_scores_errs_as_often_as_alpha_and_beta_allow(source):
    hyp = Hypotheses(0.0, 20.0, 0.05, 0.05)
    _check(lambda elo: _real(source, "elo", elo_to_score(elo) - 0.5), hyp, 0.0, 20.0, SEED + 1)


def test_verdicts_need_min_groups_and_come_at_the_first_crossing():
    hyp = Hypotheses(0.0, 20.0)
    sure = [1.0] * 200                    # A wins every seat duel
    found, n, _ = verdict(sure, hyp)
    assert found == "H1" and MIN_GROUPS <= n < 100
    assert verdict(sure[:MIN_GROUPS - 1], hyp)[0] is None
    assert verdict([0.75] * 20 + [1.0] * 100, hyp)[1] >= MIN_GROUPS
    found, n, _ = verdict([0.5] * 400, hyp)                        # identical deterministic bots
    assert found == "H0" and n >= MIN_GROUPS
    # mostly identical play and two wins: H0's mean sits on the edge of the scores seen, which
    # must make it less likely, not impossible (a plain empirical likelihood said H1 here, with
    # LLR +inf)
    assert verdict([0.5] * 28 + [5 / 6, 1.0] + [0.5] * 2, hyp)[0] is None


def test_bad_hypotheses_are_one_line_errors():
    for bad, text in [(Hypotheses(5, 5), "must be below"), (Hypotheses(0, 5, alpha=0), "--alpha"),
                      (Hypotheses(0, 5, beta=1.2), "--beta"),
                      (Hypotheses(float("nan"), 5), "not a number"), (Hypotheses(-2000, 5), "between")]:
        with pytest.raises(ArenaError, match=text):
            bad.check()


# ------------------------------------------------------------------ real tests
def _test(tmp_path, max_groups=200, batch=0, a="heuristic", b="random", low=0.0, high=40.0):
    spec = spec_from_options([a, b] if a != b else [f"A={a}", f"B={b}"], name="sprt", players=5,
                             suite="gen:test", deals=max_groups, trusted="builtins", time_limit=0.0)
    return SprtTest(spec, Hypotheses(low, high), batch)


def test_a_clear_difference_accepts_h1_and_the_state_is_stored(tmp_path):
    db = str(tmp_path / "s.db")
    seen = []
    state = run_sprt(_test(tmp_path), db, workers=1, report=seen.append, secret="k")
    assert state.verdict == "H1" and state.groups >= MIN_GROUPS and state.deals == 5 * state.groups
    assert state.llr >= state.bounds[1] and state.elo.lo > 0 and state.margin.lo > 0
    assert [s.groups for s in seen] == sorted(s.groups for s in seen) and seen[-1] == state
    stored = saved_state(db, 1)
    assert stored[0]["state"] == state.to_json()
    assert stored[0]["path"][-1] == {"groups": state.groups, "llr": state.llr}
    again = run_sprt(_test(tmp_path), db, workers=1, secret="k")      # finished: nothing more to play
    assert again == state


def test_identical_bots_accept_h0(tmp_path):
    state = run_sprt(_test(tmp_path, a="heuristic", b="heuristic", high=60.0), str(tmp_path / "s.db"),
                     workers=1, secret="k")
    assert state.verdict == "H0"


def test_batches_and_workers_do_not_change_the_verdict(tmp_path):
    one = run_sprt(_test(tmp_path, batch=3), str(tmp_path / "a.db"), workers=1, secret="k")
    two = run_sprt(_test(tmp_path, batch=11), str(tmp_path / "b.db"), workers=2, secret="k")
    assert one == two


def test_every_batch_plays_on_the_same_workers_and_bot_processes(tmp_path, monkeypatch):
    """A sandboxed test starts one fork server (and so one set of bot
    processes) for all its batches, not one a batch, and stops it at the end."""
    import arena.table.remote as referee

    started = []
    real = referee.Zygote

    class Counted(real):
        def __init__(self) -> None:
            started.append(1)
            super().__init__()

    monkeypatch.setattr(referee, "Zygote", Counted)
    test = _test(tmp_path, batch=2, a="heuristic", b="random")
    test = dataclasses.replace(test, spec=dataclasses.replace(test.spec, trusted="none"))
    seen = []
    state = run_sprt(test, str(tmp_path / "s.db"), workers=1, report=seen.append, secret="k")
    assert state.verdict == "H1" and len(seen) > 3          # several batches ...
    assert len(started) == 1                                 # ... on one fork server
    assert referee._POOL.get(os.getpid()) is None            # stopped with the test
    trusted = run_sprt(_test(tmp_path, batch=2), str(tmp_path / "t.db"), workers=1, secret="k")
    assert trusted == state                                  # the walls change no result


def test_kept_workers_start_again_for_another_context():
    from arena.tournament.runner import Workers

    with Workers(1) as keep:
        first = keep.executor({"x": 1})
        assert keep.executor({"x": 1}) is first
        assert keep.executor({"x": 2}) is not first


def test_a_test_stopped_at_its_limit_continues_with_a_higher_one(tmp_path):
    db = str(tmp_path / "s.db")
    short = run_sprt(_test(tmp_path, max_groups=12, low=0.0, high=20.0), db, workers=1, secret="k")
    assert short.verdict == "limit" and short.groups == 12
    longer = run_sprt(_test(tmp_path, max_groups=400, low=0.0, high=20.0), db, workers=1, secret="k")
    whole = run_sprt(_test(tmp_path, max_groups=400, low=0.0, high=20.0), str(tmp_path / "w.db"),
                     workers=1, secret="k")
    assert longer == whole and longer.groups > 12
    path = [p["groups"] for p in saved_state(db, 1)[0]["path"]]
    assert 12 in path and path == sorted(path) and path[-1] == longer.groups


def _cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, timeout=600,
                          **kw)


def _groups_stored(db: str) -> int:
    """How many groups the test in ``db`` has stored so far (0 before it stores any)."""
    try:
        stored = saved_state(db, 1)
    except ArenaError:         # not created yet, or no run yet
        return 0
    return stored[0]["state"]["groups"] if stored else 0


def test_kill_9_in_the_middle_then_rerun_gives_the_uninterrupted_verdict(tmp_path):
    args = ["sprt", "A=random", "B=random", "--players", "5", "--elo0", "0", "--elo1", "15", "--max-deals",
            "2000", "--batch", "3", "--secret", "k", "--trusted", "builtins", "--time-limit", "0", "--json"]
    whole = _cli(*args, "--db", str(tmp_path / "w.db"))
    assert whole.returncode == 0, whole.stderr
    final = json.loads(whole.stdout)
    assert final["verdict"] in ("H0", "H1") and final["groups"] > 60
    db = str(tmp_path / "k.db")
    partial = []
    # killed once a quarter, a half and three quarters of the groups are stored (by the store's own
    # count, not after a fixed delay, which a fast machine overran)
    for share in (0.25, 0.5, 0.75):
        target = max(1, int(final["groups"] * share))
        proc = subprocess.Popen([sys.executable, "-m", "arena", *args, "--db", db], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        end = time.monotonic() + 300
        while _groups_stored(db) < target and proc.poll() is None and time.monotonic() < end:
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGKILL)
        assert proc.wait() == -signal.SIGKILL          # killed, not finished
        partial.append(_groups_stored(db))
    assert partial == sorted(partial) and 0 < partial[-1] < final["groups"]   # stopped part of the way
    rerun = _cli(*args, "--db", db)
    assert rerun.returncode == 0, rerun.stderr
    assert json.loads(rerun.stdout) == final


def test_a_test_file_gives_the_same_test_as_the_command_line(tmp_path):
    spec = tmp_path / "t.toml"
    spec.write_text('players = 5\ntrusted = "builtins"\ntime_limit = 0.0\n'
                    '[[entrant]]\nbot = "heuristic"\n[[entrant]]\nbot = "random"\n'
                    '[sprt]\nelo0 = 0.0\nelo1 = 40.0\nmax_deals = 200\nseeds = "test"\n')
    by_file = _cli("sprt", str(spec), "--db", str(tmp_path / "f.db"), "--secret", "k", "--json")
    by_args = _cli("sprt", "heuristic", "random", "--players", "5", "--trusted", "builtins", "--time-limit", "0",
                   "--elo1", "40", "--max-deals", "200", "--seeds", "test", "--db", str(tmp_path / "a.db"),
                   "--secret", "k", "--json")
    assert by_file.returncode == 0 and by_args.returncode == 0, by_file.stderr + by_args.stderr
    assert json.loads(by_file.stdout) == json.loads(by_args.stdout)
    assert json.loads(by_file.stdout)["verdict"] == "H1"


@pytest.mark.parametrize("args, text", [
    (["nosuchbot", "random"], "nosuchbot"),
    (["heuristic:nosuch=3", "random"], "nosuch"),
    (["heuristic", "random", "--elo0", "5", "--elo1", "5"], "must be below"),
    (["heuristic", "random", "--elo0", "10", "--elo1", "0"], "must be below"),
    (["heuristic", "random", "--alpha", "0"], "--alpha"),
    (["heuristic", "random", "--alpha", "1.5"], "--alpha"),
    (["heuristic", "random", "--beta", "-0.1"], "--beta"),
    (["heuristic", "random", "--max-deals", "0"], "--max-deals"),
    (["heuristic", "random", "--seeds", " "], "--seeds"),
    (["heuristic"], "two bot specs"),
    (["heuristic", "random", "ismcts"], "two bot specs"),
    (["missing.toml"], "no such spec file"),
])
def test_bad_input_is_one_line(tmp_path, args, text):
    res = _cli("sprt", *args, "--db", str(tmp_path / "s.db"))
    assert res.returncode == 2, res.stdout + res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and text in lines[0], res.stderr
    assert "Traceback" not in res.stderr


def test_bad_test_files_are_one_line(tmp_path):
    cases = {"[sprt]\nelo5 = 1\n": "unknown key", "deals = 5\n[sprt]\n": "chooses its own deals",
             '[[entrant]]\nbot = "random"\n[sprt]\n': "entrants",
             '[[entrant]]\nbot = "random"\n[[entrant]]\nbot = "heuristic"\n[sprt]\nalpha = "x"\n': "alpha"}
    for i, (text, want) in enumerate(cases.items()):
        path = tmp_path / f"t{i}.toml"
        path.write_text(text)
        res = _cli("sprt", str(path), "--db", str(tmp_path / "s.db"))
        lines = res.stderr.strip().splitlines()
        assert res.returncode == 2 and len(lines) == 1 and want in lines[0], res.stderr


def test_group_scores_stop_at_the_first_incomplete_group(tmp_path):
    db = str(tmp_path / "s.db")
    test = _test(tmp_path, max_groups=6)
    from arena.tournament.runner import run_tournament
    from arena.store import Store

    run_tournament(dataclasses.replace(test.spec), db, workers=1, progress=False, max_jobs=13, secret="k",
                   grow=True)
    with Store(db, read_only=True) as store:
        results = store.results(1)
    assert len(results) == 13
    assert len(group_scores(results, 5, 0, "elo")) == 2          # groups 0 and 1; group 2 has 3 of 5
    missing_first = [r for r in results if not (r.group == 0 and r.key.endswith("r0"))]
    assert group_scores(missing_first, 5, 0, "elo") == []


# ------------------------------------------------------------------ the command line's ids and words
def test_the_progress_line_counts_groups_of_the_limit_and_the_verdict_names_the_test():
    from arena.stats.sprt import SprtState
    from arena.tournament.sprt import describe, format_state

    hyp = Hypotheses(0.0, 5.0)
    state = SprtState(groups=52, deals=104, llr=1.5, bounds=hyp.bounds, verdict=None, elo=None, margin=None,
                      hypotheses=hyp, max_groups=80)
    assert format_state(state).startswith("52 of 80 groups (104 deals): LLR +1.50 (-2.94, +2.94) [0, 5 Elo]")
    done = format_state(dataclasses.replace(state, verdict="H1"), 3).splitlines()
    assert done[1] == "sprt test 3: H1 accepted (5 Elo better)"
    assert format_state(dataclasses.replace(state, verdict="H0")).splitlines()[1].startswith("H0 accepted")
    assert describe(hyp) == "H0: Elo <= 0, H1: Elo >= 5 (alpha 0.05, beta 0.05)"


def test_run_sprt_tells_the_test_id_before_the_first_look(tmp_path):
    told, looks = [], []
    run_sprt(_test(tmp_path, max_groups=2), str(tmp_path / "s.db"), workers=1, secret="k", started=told.append,
             report=lambda st: looks.append(list(told)))
    assert told == [1] and looks and all(seen == [1] for seen in looks)


@pytest.fixture(scope="module")
def two_tests(tmp_path_factory):
    """A database with two tests (ids 1 and 2), and the first one's output and the second one's JSON."""
    tmp = tmp_path_factory.mktemp("two")
    db = str(tmp / "s.db")
    common = ["heuristic", "random", "--players", "5", "--trusted", "builtins", "--time-limit", "0", "--db", db,
              "--secret", "k", "--workers", "1"]
    first = _cli("sprt", *common, "--elo1", "40", "--max-deals", "200", "--seeds", "test")
    assert first.returncode == 0, first.stderr
    second = _cli("sprt", *common, "--elo0", "-5", "--elo1", "60", "--max-deals", "6", "--seeds", "other", "--json")
    assert second.returncode == 0, second.stderr
    return tmp, db, first.stdout, json.loads(second.stdout)


def _summary(page) -> str:
    import re

    return re.search(r"<p id=sprt-summary-0>(.*?)</p>", page.read_text(encoding="utf-8")).group(1)


def test_sprt_prints_its_id_and_hypotheses_and_report_takes_the_id(two_tests):
    tmp, db, out, second = two_tests
    lines = out.splitlines()
    assert lines[0].startswith(f"sprt test 1 in {db}: heuristic (A) against random (B): ")
    assert lines[0].endswith("H0: Elo <= 0, H1: Elo >= 40 (alpha 0.05, beta 0.05)")
    assert lines[1].startswith("0 of 200 groups (0 deals): LLR +0.00 (-2.94, +2.94) [0, 40 Elo]")
    assert any(line.startswith("sprt test 1: H1 accepted") for line in lines)
    assert second["id"] == 2 and second["hypotheses"]["low"] == -5.0
    page = tmp / "one.html"
    res = _cli("report", "--sprt", "1", "--db", db, "-o", str(page), "--samples", "20", "--games", "0")
    assert res.returncode == 0, res.stderr
    assert _summary(page).startswith("H0 0 Elo, H1 40 Elo; ") and "verdict: H1" in _summary(page)


def test_report_sprt_without_an_id_takes_the_latest_test(two_tests):
    tmp, db, _, _ = two_tests
    page = tmp / "latest.html"
    res = _cli("report", "--sprt", "--db", db, "-o", str(page), "--samples", "20", "--games", "0")
    assert res.returncode == 0, res.stderr
    assert _summary(page).startswith("H0 -5 Elo, H1 60 Elo; ")


def test_report_sprt_with_a_bad_id_is_one_line_naming_the_tests(two_tests, tmp_path):
    _, db, _, _ = two_tests
    for args, text in [(["--sprt", "9", "--db", db], "run 9 is not an SPRT (the SPRTs here: 1, 2)"),
                       (["--sprt", "--db", str(tmp_path / "none.db")], "no such database")]:
        res = _cli("report", *args, "-o", str(tmp_path / "x.html"))
        lines = res.stderr.strip().splitlines()
        assert res.returncode != 0 and len(lines) == 1 and text in lines[0], res.stderr
    arena = str(tmp_path / "a.db")
    ran = _cli("arena", "run", "--bots", "random", "heuristic", "--deals", "1", "--players", "5", "--db", arena,
               "--time-limit", "0", "--trusted", "builtins", "--no-progress")
    assert ran.returncode == 0, ran.stderr
    for args in (["--sprt"], ["--sprt", "1"]):
        res = _cli("report", *args, "--db", arena, "-o", str(tmp_path / "x.html"))
        lines = res.stderr.strip().splitlines()
        assert res.returncode != 0 and len(lines) == 1 and "no SPRT here" in lines[0], res.stderr


def test_a_verdict_is_told_in_words_with_what_it_means_in_elo():
    from arena.render.report_pages import verdict_words

    hyp = Hypotheses(-5.0, 10.0)
    base = {"hypotheses": hyp.to_json(), "groups": 40, "max_groups": 100}
    said = {v: verdict_words({**base, "verdict": v}, "new", "old") for v in ("H0", "H1", "limit", None)}
    assert said["H0"][0] == "H0 accepted" and said["H0"][1].startswith("new is not 10 Elo better than old: ")
    assert "at most -5 Elo" in said["H0"][1] and "at least +10 Elo" in said["H0"][1]
    assert said["H1"][0] == "H1 accepted" and said["H1"][1].startswith("new is better than old: ")
    assert said["limit"][0] == "no verdict" and "limit of 100 deal groups" in said["limit"][1]
    assert said[None][0] == "still running" and "40 of 100 deal groups" in said[None][1]
