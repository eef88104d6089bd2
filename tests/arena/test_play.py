"""Playing one tournament job: determinism, outcomes, records, and bots that
crash, hang or play illegally (in the main thread and in worker threads)."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from collections.abc import Callable

import pytest

import arena.table.guard as guard
import arena.table.table as play
from arena.table.table import match_winners, outcome_of
from arena.table.settings import Limits, TableSettings
from arena.table.table import play_job as _play_job
from arena.types import ArenaError, Entrant, Job, JobResult
from bots import BotError, make_bot
from bots.table import exception_line
from bots.base import load_bot_module, register
from core.cards import points
from core.records import read_records, replay_deal, replay_match
from core.rules import Rules

ROOT = Path(__file__).resolve().parents[2]
FAULTY = str(ROOT / "tests" / "arena" / "faulty_bots.py")
LOGGING = f"{FAULTY}:LoggingBot"

PAGAT5 = Rules.preset("pagat", players=5)
DUO = [Entrant("random", "random"), Entrant("heuristic", "heuristic")]


def _in_process(tail: str) -> str:
    """A spec that runs a faulty test bot inside this process, as trusted
    built-ins and the fallback run: ``"HangBot?how=spin"`` ->
    ``"test-HangBot:how=spin"`` (module specs are always sandboxed)."""
    name, _, params = tail.partition("?")
    register(f"test-{name}")(load_bot_module(f"{FAULTY}:{name}"))
    return f"test-{name}" + (f":{params}" if params else "")


def play_job(job: Job, entrants: Any, rules: Rules, *, time_limit: float = 0.0, died: Any = None,
             **kw: Any) -> JobResult:
    """:func:`arena.table.table.play_job` under :class:`TableSettings` made
    of ``rules`` and ``kw``, with the built-in bots in this process, no
    overage and no time limit unless given. These tests look at the
    fallback that finishes a faulted seat (the experiments' policy);
    forfeits are tested in test_forfeit and test_hostile."""
    kw.setdefault("on_fault", "fallback")
    kw.setdefault("trusted", "builtins")
    limits = kw.pop("limits", None) or Limits(overage=0.0)
    settings = TableSettings(rules, limits=dataclasses.replace(limits, move=time_limit), **kw)
    return _play_job(job, entrants, settings, died=died)


def _job(seats: tuple[int, ...], seed: int = 11, rotation: int = 0, lineup: int = 0) -> Job:
    return Job(index=0, key=f"g0-l{lineup}-r{rotation}", group=0, seed=seed, lineup=lineup,
               rotation=rotation, seats=seats)


def _timeless(res: JobResult) -> JobResult:
    return dataclasses.replace(res, seconds=())


def _actions(record: str) -> list[dict[str, Any]]:
    return [r for r in read_records(io.StringIO(record)) if "type" not in r]


def _check_deal(res: JobResult, rules: Rules) -> None:
    """The outcome agrees with a replay of the record, and points add up."""
    state = replay_deal(read_records(io.StringIO(res.record)))
    (d,) = res.deals
    assert d == outcome_of(state, res.seats)
    assert sum(state.play.points) + points(state.kitty) == rules.total_points == d.total_points
    assert d.opponents_points == state.result.opponents_points >= 0
    assert d.maker in d.maker_side and list(d.maker_side) == sorted(d.maker_side)
    assert d.game_points == tuple(state.returns())
    margin = d.total_points - 2 * d.opponents_points
    assert d.margins == tuple(float(margin if s in d.maker_side else -margin) for s in range(rules.players))
    assert d.maker_won == (state.result.winner == "maker")
    assert len(res.seconds) == len(res.decisions) == rules.players
    assert all(x >= 0 for x in res.seconds)
    acts = _actions(res.record)
    assert sum(res.decisions) == len(acts)
    assert list(res.decisions) == [sum(1 for a in acts if a["seat"] == s) for s in range(rules.players)]


def _in_thread(fn: Callable[[], Any]) -> Any:
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = fn()
        except BaseException as exc:  # handed to the test's thread
            out["error"] = exc

    t = threading.Thread(target=run)
    t.start()
    t.join(60)
    assert not t.is_alive(), "the job did not finish in its thread"
    if "error" in out:
        raise out["error"]
    return out["value"]


# ------------------------------------------------------------------ determinism
def test_the_same_job_gives_the_same_result():
    rules = Rules.preset("pagat", players=6)
    job = _job((0, 1, 0, 1, 0, 1), seed=5)
    a = play_job(job, DUO, rules)
    b = play_job(job, DUO, rules)
    assert _timeless(a) == _timeless(b) and a.record == b.record
    assert a.key == job.key and a.group == job.group and a.seats == job.seats
    other = play_job(_job((0, 1, 0, 1, 0, 1), seed=6), DUO, rules)
    assert other.record != a.record


def test_the_same_job_in_another_process_and_thread():
    job = _job((1, 0, 1, 0, 0), seed=21, rotation=1)
    here = play_job(job, DUO, PAGAT5)
    code = (
        "import json, sys\n"
        "from arena.table.table import play_job\nfrom arena.types import Entrant, Job\n"
        "from arena.table.settings import Limits, TableSettings\nfrom core.rules import Rules\n"
        "job = Job.from_json(json.loads(sys.argv[1]))\n"
        "ents = [Entrant.from_json(e) for e in json.loads(sys.argv[2])]\n"
        "settings = TableSettings(Rules.preset('pagat', players=5), limits=Limits(move=0.0, overage=0.0),\n"
        "                         trusted='builtins', on_fault='fallback')\n"
        "print(json.dumps(play_job(job, ents, settings).to_json()))\n"
    )
    env = dict(os.environ, PYTHONHASHSEED="4242")
    out = subprocess.run([sys.executable, "-c", code, json.dumps(job.to_json()),
                          json.dumps([e.to_json() for e in DUO])],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    there = JobResult.from_json(json.loads(out.stdout))
    assert _timeless(there) == _timeless(here) and there.record == here.record
    threaded = _in_thread(lambda: play_job(job, DUO, PAGAT5, time_limit=5.0))
    assert _timeless(threaded) == _timeless(here)


def test_a_rotation_deals_the_same_cards_to_other_entrants():
    a = play_job(_job((0, 1, 0, 1, 0), rotation=0), DUO, PAGAT5)
    b = play_job(_job((1, 0, 1, 0, 1), rotation=1), DUO, PAGAT5)
    head_a = read_records(io.StringIO(a.record))[0]
    head_b = read_records(io.StringIO(b.record))[0]
    assert head_a["seed"] == head_b["seed"] == 11
    assert head_a["decks"][0] == head_b["decks"][0]
    assert a.deals[0].seats == (0, 1, 0, 1, 0) and b.deals[0].seats == (1, 0, 1, 0, 1)
    assert a.record != b.record


# ------------------------------------------------------------------ deals and matches
@pytest.mark.parametrize("players", [5, 6, 8])
def test_random_and_heuristic_complete_deals(players):
    rules = Rules.preset("pagat", players=players)
    seats = tuple(s % 2 for s in range(players))
    for seed in (1, 2):
        res = play_job(_job(seats, seed=seed), DUO, rules, time_limit=10.0)
        assert res.faults == () and res.match_winners == ()
        _check_deal(res, rules)


def test_a_match_job_plays_every_deal():
    # target_rank=5 keeps the match to a few deals (it ends when a level reaches 5)
    rules = Rules.preset("pagat", players=5, target_rank=5)
    job = _job((0, 1, 0, 1, 1), seed=5)
    res = play_job(job, DUO, rules, mode="matches", time_limit=10.0)
    match = replay_match(read_records(io.StringIO(res.record)))
    assert match.is_over() and len(res.deals) == len(match.deals) >= 2
    assert res.deals == tuple(outcome_of(s, job.seats) for s in match.deals)
    assert res.match_winners == match_winners(match)
    assert res.match_winners and all(match.levels[s].level >= 5 for s in res.match_winners)
    assert sum(res.decisions) == len(_actions(res.record))
    again = play_job(job, DUO, rules, mode="matches")
    assert _timeless(again) == _timeless(res)


def test_match_winners_at_the_deal_limit():
    from core.match import Match
    from core.levels import PlayerLevel

    m = Match(Rules.preset("heli", players=5), seed=1, max_deals=1)
    m.levels = [PlayerLevel(v, True) for v in (3, 5, 5, 2, 4)]
    m.game_points_total = [1, 2, 3, 0, 1]
    assert match_winners(m) == (2,)
    m.game_points_total = [1, 3, 3, 0, 1]
    assert match_winners(m) == (1, 2)


def test_record_off_and_bad_arguments():
    res = play_job(_job((0, 1, 0, 1, 0)), DUO, PAGAT5, record=False)
    assert res.record == "" and len(res.deals) == 1
    with pytest.raises(ArenaError, match="mode"):
        play_job(_job((0, 1, 0, 1, 0)), DUO, PAGAT5, mode="deal")
    with pytest.raises(ArenaError, match="5 players"):
        play_job(_job((0, 1, 0, 1)), DUO, PAGAT5)
    with pytest.raises(ArenaError, match="entrant 2"):
        play_job(_job((0, 1, 2, 1, 0)), DUO, PAGAT5)
    with pytest.raises(ArenaError, match="time limit"):
        play_job(_job((0, 1, 0, 1, 0)), DUO, PAGAT5, time_limit=-1)
    with pytest.raises(BotError):
        play_job(_job((0, 1, 0, 1, 0)), DUO, PAGAT5, fallback="no-such-bot")


def test_the_oracle_is_shown_the_state():
    ents = [Entrant("oracle", "oracle:iterations=20"), Entrant("random", "random")]
    res = play_job(_job((0, 1, 1, 1, 1), seed=4), ents, PAGAT5, time_limit=10.0, cheating=True)
    assert res.faults == ()
    _check_deal(res, PAGAT5)
    with pytest.raises(ArenaError, match="cheats"):       # only when allowed, and never sandboxed
        play_job(_job((0, 1, 1, 1, 1), seed=4), ents, PAGAT5, time_limit=10.0)


# ------------------------------------------------------------------ faults
FAULTS = [
    ("CrashBot", "crash", "RuntimeError: boom at step 3 second line"),
    ("IllegalBot", "illegal", "played play "),
    ("NotAnActionBot", "illegal", "not an Action"),
    ("CrashOnRestartBot", "crash", "ValueError: cannot start deal 1"),
    ("CrashOnInformBot", "crash", "KeyError: 'no such thing'"),
    ("HangBot", "timeout", "no answer within 0.2 s"),
]


def _logged(job: Job, ents: list[Entrant], **kw: Any) -> tuple[JobResult, list]:
    log = type(make_bot(LOGGING)).LOG
    log.clear()
    res = play_job(job, ents, PAGAT5, fallback=LOGGING, **kw)
    return res, list(log)


@pytest.mark.parametrize("bot, kind, message", FAULTS, ids=[f[0] for f in FAULTS])
def test_a_faulty_bot_is_replaced_by_the_fallback(bot, kind, message):
    ents = [Entrant("random", "random"), Entrant("bad", f"{FAULTY}:{bot}")]
    job = _job((0, 0, 1, 0, 0), seed=8)                 # the faulty bot holds seat 2
    start = time.perf_counter()
    res, log = _logged(job, ents, time_limit=0.2)
    # a bot that sleeps is charged no CPU time: only the wall clock's outer bound ends its turn
    from arena.table.remote import WALL_FACTOR, WALL_SLACK

    assert time.perf_counter() - start < WALL_FACTOR * 0.2 + WALL_SLACK + 5
    assert len(res.faults) == 1, res.faults               # the seat never faults again
    (f,) = res.faults
    assert (f.seat, f.entrant, f.kind) == (2, 1, kind)
    assert message in f.message and "\n" not in f.message and len(f.message) <= 200
    _check_deal(res, PAGAT5)
    acts = _actions(res.record)
    # a failed step, or a failed restart (a sandboxed bot's error is read at
    # its next request): that decision is the seat's
    assert acts[f.decision]["seat"] == 2
    # the fallback took that very decision and every later one of the seat
    later = [a for a in acts[f.decision:] if a["seat"] == 2]
    steps = [e for e in log if e[1] == "step"]
    assert later and len(steps) == len(later) and all(e[2] == 2 for e in steps)
    assert [e for e in log if e[1] == "restart"][0][2] == 2
    assert res.decisions[2] == sum(1 for a in acts if a["seat"] == 2)


def test_faults_in_a_match_keep_the_fallback_for_the_rest_of_it():
    rules = Rules.preset("pagat", players=5, target_rank=6)    # no deal gains 4 levels: two deals at least
    ents = [Entrant("random", "random"), Entrant("bad", f"{FAULTY}:CrashBot?at=2")]
    job = _job((1, 0, 0, 0, 1), seed=4)                 # a match of two deals or more
    res = play_job(job, ents, rules, mode="matches")
    assert len(res.deals) >= 2
    assert sorted((f.seat, f.entrant, f.kind) for f in res.faults) == [(0, 1, "crash"), (4, 1, "crash")]
    replay_match(read_records(io.StringIO(res.record)))
    assert _timeless(play_job(job, ents, rules, mode="matches")) == _timeless(res)


def test_a_crash_on_a_later_restart_of_a_match():
    rules = Rules.preset("pagat", players=5, target_rank=5)
    ents = [Entrant("random", "random"), Entrant("bad", _in_process("CrashOnRestartBot?deal=2"))]
    res = play_job(_job((1, 0, 0, 0, 0), seed=3), ents, rules, mode="matches")
    assert len(res.deals) >= 2
    (f,) = res.faults
    assert (f.seat, f.kind) == (0, "crash") and "deal 2" in f.message
    deals = [r for r in read_records(io.StringIO(res.record)) if r.get("type") == "deal"]
    assert len(deals) == len(res.deals)
    first = _first_deal(res.record)
    assert f.decision == sum(1 for line in first.splitlines() if "type" not in json.loads(line))


def _first_deal(record: str) -> str:
    """The lines of a match record's first deal (header to result)."""
    out = []
    for line in record.splitlines()[1:]:
        out.append(line)
        if json.loads(line).get("type") == "result":
            break
    return "\n".join(out) + "\n"


def test_a_failing_fallback_gives_way_to_random_play():
    ents = [Entrant("random", "random"), Entrant("bad", f"{FAULTY}:CrashBot?at=2")]
    res = play_job(_job((1, 0, 1, 0, 0), seed=9), ents, PAGAT5, fallback=f"{FAULTY}:CrashBot?at=1")
    assert sorted((f.seat, f.kind) for f in res.faults) == [(0, "crash"), (2, "crash")]
    _check_deal(res, PAGAT5)


@pytest.mark.parametrize("bot", ["IllegalBot?at=4", "HangBot?at=4,how=spin,seconds=30"])
def test_the_same_faulty_job_gives_the_same_result(bot):
    ents = [Entrant("random", "random"), Entrant("bad", f"{FAULTY}:{bot}")]
    job = _job((0, 1, 0, 1, 0), seed=12)
    a = play_job(job, ents, PAGAT5, time_limit=0.2)
    b = _in_thread(lambda: play_job(job, ents, PAGAT5, time_limit=0.2))
    assert _timeless(a) == _timeless(b) and a.record == b.record and len(a.faults) == 2


# ------------------------------------------------------------------ a bot that ends its process
class _Cells(list):
    """Stands for the shared cells of :func:`arena.table.table.watch_calls`: notes
    each published call as (index, seat, method) in ``calls``."""

    def __init__(self) -> None:
        super().__init__([-1, -1, -1])
        self.calls: list[tuple[int, int, int]] = []

    def __setitem__(self, i, v):
        super().__setitem__(i, v)
        if i == 2:                      # the method is written last
            self.calls.append(tuple(self))


def test_every_bot_call_is_published_before_it_is_made(monkeypatch):
    cells = _Cells()
    seen = cells.calls
    monkeypatch.setattr(play, "CALL_WATCH", cells)
    ents = [Entrant("random", "random"), Entrant("log", _in_process("LoggingBot"))]
    res, log = _logged(_job((0, 1, 0, 1, 0)), ents)
    assert [i for i, _, _ in seen] == list(range(len(seen)))          # each call once, in order
    methods = [play.CALL_METHODS[m] for _, _, m in seen]
    assert methods[:5] == ["init"] * 5 and methods[5:10] == ["restart"] * 5
    assert methods.count("step") == sum(res.decisions)
    # the LoggingBot seats' steps, in the order the bots saw them
    assert [s for _, s, m in seen if play.CALL_METHODS[m] == "step" and s in (1, 3)] == \
        [e[2] for e in log if e[1] == "step"]


@pytest.mark.parametrize("index, seat, decision", [(0, 0, 0), (7, 2, 0), (25, None, None)])
def test_a_planned_death_is_a_fault_and_the_fallback_goes_on(index, seat, decision):
    """``died`` names a call by its index: 0 is seat 0's constructor, 7 seat
    2's first restart, 25 a later call (the seat found from the published calls)."""
    ents = [Entrant("random", "random")]
    job = _job((0, 0, 0, 0, 0), seed=5)
    cells = _Cells()
    play.watch_calls(cells)
    try:
        plain = play_job(job, ents, PAGAT5)
    finally:
        play.watch_calls(None)
    calls = cells.calls
    assert calls[index][0] == index
    if seat is not None:
        assert calls[index][1] == seat
    seat = calls[index][1]
    res = play_job(job, ents, PAGAT5, died={index: "step() ended the process (exit code 7)"})
    (f,) = res.faults
    assert (f.seat, f.entrant, f.kind, f.message) == (seat, 0, "died", "step() ended the process (exit code 7)")
    if decision is not None:
        assert f.decision == decision
    _check_deal(res, PAGAT5)
    assert _timeless(play_job(job, ents, PAGAT5, died={index: "x"})).deals == _timeless(res).deals
    assert plain.faults == ()


# ------------------------------------------------------------------ hangs
HANGS = ["HangBot?how=sleep,seconds=30", "HangBot?how=spin,seconds=30", "HangBot?how=block,seconds=30"]


@pytest.mark.parametrize("spec", HANGS, ids=["sleep", "spin", "block"])
def test_a_hang_is_interrupted_in_the_main_thread(spec, monkeypatch):
    assert threading.current_thread() is threading.main_thread()
    calls = []
    real = guard.call_with_alarm
    monkeypatch.setattr(guard, "call_with_alarm", lambda *a: calls.append(1) or real(*a))
    handler = signal.getsignal(signal.SIGALRM)
    ents = [Entrant("random", "random"), Entrant("hang", _in_process(spec))]
    start = time.perf_counter()
    res = play_job(_job((0, 1, 0, 0, 0), seed=8), ents, PAGAT5, time_limit=0.2)
    assert time.perf_counter() - start < 3
    (f,) = res.faults
    assert (f.seat, f.entrant, f.kind) == (1, 1, "timeout")
    assert f.message == "step: ran past the time limit of 0.2 s"
    assert 0.2 <= res.seconds[1] < 2
    assert calls
    assert signal.getsignal(signal.SIGALRM) is handler
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    _check_deal(res, PAGAT5)


@pytest.mark.parametrize("spec", HANGS[:2], ids=["sleep", "spin"])
def test_a_hang_is_interrupted_in_a_worker_thread(spec, monkeypatch):
    calls = []
    real = guard.call_with_watchdog
    monkeypatch.setattr(guard, "call_with_watchdog", lambda *a: calls.append(1) or real(*a))
    ents = [Entrant("random", "random"), Entrant("hang", _in_process(spec))]
    start = time.perf_counter()
    res = _in_thread(lambda: play_job(_job((0, 1, 0, 0, 0), seed=8), ents, PAGAT5, time_limit=0.2))
    assert time.perf_counter() - start < 3
    (f,) = res.faults
    assert (f.seat, f.entrant, f.kind) == (1, 1, "timeout")
    assert f.message == "step: ran past the time limit of 0.2 s"
    assert calls
    _check_deal(res, PAGAT5)


def test_a_blocking_call_in_a_worker_thread_is_caught_when_it_returns():
    # one long time.sleep cannot be interrupted outside the main thread
    ents = [Entrant("random", "random"), Entrant("hang", _in_process("HangBot?how=block,seconds=0.6"))]
    start = time.perf_counter()
    res = _in_thread(lambda: play_job(_job((0, 1, 0, 0, 0), seed=8), ents, PAGAT5, time_limit=0.2))
    assert time.perf_counter() - start < 3
    (f,) = res.faults
    assert (f.seat, f.kind) == (1, "timeout") and res.seconds[1] >= 0.6


def test_a_slow_bot_without_a_limit_is_no_fault():
    ents = [Entrant("random", "random"), Entrant("slow", f"{FAULTY}:HangBot?how=block,seconds=0.02")]
    res = play_job(_job((0, 1, 0, 0, 0), seed=8), ents, PAGAT5)
    assert res.faults == () and res.seconds[1] >= 0.02 * (res.decisions[1] - 2)


def test_the_callers_alarm_is_kept():
    fired = []
    old = signal.signal(signal.SIGALRM, lambda *a: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        play_job(_job((0, 1, 0, 1, 0)), DUO, PAGAT5, time_limit=1.0)
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 25.0 < left <= 30.0 and not fired
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, old)


def _near_the_limit(limit: float, i: int) -> Callable[[], int]:
    """A call that ends just before, at, or just after ``limit``."""
    def spin() -> int:
        end = time.perf_counter() + limit * (0.9 + 0.02 * (i % 10))
        while time.perf_counter() < end:
            pass
        return i
    return spin


@pytest.mark.parametrize("where", ["main", "thread"])
def test_a_late_interrupt_never_escapes(where):
    limit = 0.004

    def many() -> list[str]:
        kinds = []
        for i in range(150):
            out = guard.guarded("step", _near_the_limit(limit, i), (), limit)
            assert out.kind in (None, "timeout")
            assert out.kind == "timeout" or out.value == i
            kinds.append(out.kind)
        time.sleep(3 * guard.REPEAT)        # nothing is left armed to go off now
        return kinds

    kinds = many() if where == "main" else _in_thread(many)
    assert "timeout" in kinds


def test_exception_lines_are_short_and_single():
    assert exception_line(ValueError("a\n b")) == "ValueError: a b"
    assert exception_line(KeyError()) == "KeyError"
    long = exception_line(RuntimeError("x" * 500))
    assert len(long) == 200 and long.endswith("...")


def test_a_record_names_the_player_in_each_seat():
    ents = [Entrant("rnd", "random"), Entrant("heu", "heuristic")]
    res = play_job(_job((0, 1, 0, 1, 0), seed=3), ents, PAGAT5)
    recs = read_records(io.StringIO(res.record))
    assert recs[0]["players"] == ["rnd", "heu", "rnd", "heu", "rnd"]
    replay_deal(recs)                                   # the field does not stop a replay
    bad = dict(recs[0], players="rnd")
    with pytest.raises(ValueError, match="players: expected a list of names"):
        replay_deal([bad] + recs[1:])
