"""The ``pengyou`` command line, run as ``python -m arena`` in a subprocess.

Normal output of every subcommand, and bad input: each mistake ends with one
line on stderr starting ``pengyou: error:`` and exit status 2 (an illegal but
well-formed ``follow --play`` prints ``illegal: ...`` and exits 1), never a
traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONUTF8="1")
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout,
    )


def ok(*args: str) -> list[str]:
    """Run a command that must succeed; its stdout lines."""
    p = run(*args)
    assert p.returncode == 0, (p.returncode, p.stdout, p.stderr)
    assert p.stderr == ""
    assert "Traceback" not in p.stdout
    return p.stdout.splitlines()


# --------------------------------------------------------------------------
# lead


@pytest.mark.parametrize(
    "cards,trump,want",
    [
        ("AS AS KS KS 3S", "5H", "throw of 5 cards: [KS KS AS AS] + [3S]"),
        ("QS QS JS JS 9S", "5H", "throw of 5 cards: [JS JS QS QS] + [9S]"),
        ("AS", "5H", "lead of 1 card: [AS]"),
        ("QS QS JS JS", "5H", "lead of 4 cards: [JS JS QS QS]"),
        ("6S 6S 4S 4S", "5H", "lead of 4 cards: [4S 4S 6S 6S]"),  # trump rank 5 left out
        ("A♠ a♠", "5H", "lead of 2 cards: [AS AS]"),                 # symbols in, ASCII out
        ("10S TS 9S 9S", "7", "lead of 4 cards: [9S 9S 10S 10S]"),   # no trump suit
        ("RJ BJ", "jokers", "throw of 2 cards: [RJ] + [BJ]"),
        ("KH 5S", "5H", "throw of 2 cards: [5S] + [KH]"),            # all trumps
    ],
    ids=["throw-tractor", "throw-tractor-2", "single", "tractor", "tractor-over-rank",
         "symbols", "no-trump-suit", "jokers", "trumps"],
)
def test_lead(cards, trump, want):
    assert ok("lead", cards, "--trump", trump) == [want]


# --------------------------------------------------------------------------
# follow


def test_follow_lists_the_only_legal_follow():
    assert ok("follow", "--hand", "AS AS KS 3S 2D", "--lead", "QS QS", "--trump", "5H") == ["AS AS"]


def test_follow_lists_short_suit_follows():
    lines = ok("follow", "--hand", "KS 3D 2D", "--lead", "QS QS", "--trump", "5H")
    assert sorted(lines) == ["2D KS", "3D KS"]


def test_follow_lists_every_card_when_void():
    lines = ok("follow", "--hand", "3D 4H 2C", "--lead", "AS", "--trump", "7C")
    assert sorted(lines) == ["2C", "3D", "4H"]


def test_follow_play_legal():
    p = run("follow", "--hand", "AS AS KS 3S 2D", "--lead", "QS QS", "--play", "AS AS", "--trump", "5H")
    assert (p.returncode, p.stdout, p.stderr) == (0, "legal\n", "")


@pytest.mark.parametrize(
    "hand,lead,play,reason",
    [
        ("AS AS KS 3S 2D", "QS QS", "AS KS",
         "must follow the led shape: play the sets (or tractors) of the led suit the rules ask for"),
        ("KS QS 3D", "AS", "3D", "must play 1 card of the led suit, not 0"),
        ("KS QS", "AS", "JS", "JS is not in the hand"),
        ("KS QS", "AS", "KS QS", "the lead has 1 card, so the play must have 1, not 2"),
    ],
    ids=["shape", "suit", "not-in-hand", "wrong-size"],
)
def test_follow_play_illegal(hand, lead, play, reason):
    p = run("follow", "--hand", hand, "--lead", lead, "--play", play, "--trump", "5H")
    assert p.returncode == 1
    assert p.stdout == f"illegal: {reason}\n"
    assert p.stderr == ""
    assert "Traceback" not in p.stdout + p.stderr


# --------------------------------------------------------------------------
# trick


@pytest.mark.parametrize(
    "plays,trump,want",
    [
        (["QS QS", "3D 3D", "AS AS"], "5D", "play 1 wins: 3D 3D"),     # trump pair ruffs
        (["QS QS", "3D 3D", "AS AS"], "5H", "play 2 wins: AS AS"),     # no trumps: highest pair
        (["QS QS", "AS KS", "3D 3D"], "4D", "play 2 wins: 3D 3D"),
        (["AS", "KS", "QS"], "5H", "play 0 wins: AS"),
        (["AS", "KS", "2S"], "2H", "play 2 wins: 2S"),                 # trump rank
        (["AS", "KS", "3H"], "2H", "play 2 wins: 3H"),                 # trump suit
        (["AS", "3H", "BJ", "RJ"], "2H", "play 3 wins: RJ"),
        (["5S", "5H", "5S"], "5H", "play 1 wins: 5H"),                 # the trump-suit rank card
        (["5S", "5C"], "5H", "play 0 wins: 5S"),                       # equal: first played wins
    ],
    ids=["ruff", "plain", "docstring", "lead-holds", "rank", "suit", "jokers", "rank-in-suit", "tie"],
)
def test_trick(plays, trump, want):
    assert ok("trick", *plays, "--trump", trump) == [want]


# --------------------------------------------------------------------------
# throw


def test_throw_fails():
    lines = ok("throw", "AS KS JS JS", "--hands", "QS QS 2C", "3H", "--trump", "4D")
    assert lines == ["fails: hand 0 beats it; lead JS JS instead, 2 cards withdrawn, penalty 20"]


def test_throw_fails_second_hand_and_penalty_setting():
    lines = ok("throw", "AS KS JS JS", "--hands", "3H", "QS QS 2C", "--trump", "4D",
               "--set", "throw_penalty=5")
    assert lines == ["fails: hand 1 beats it; lead JS JS instead, 2 cards withdrawn, penalty 10"]


def test_throw_stands():
    assert ok("throw", "AS KS", "--hands", "QS QS 2C", "3H", "--trump", "4D") == ["stands"]


def test_single_unit_always_stands():
    assert ok("throw", "QS", "--hands", "AS AS", "--trump", "4D") == ["stands"]


# --------------------------------------------------------------------------
# bench


def test_bench_json():
    lines = ok("bench", "--json", "--positions", "5", "--seconds", "0.05", "--search-iterations", "200",
               "--arena-deals", "4", "--arena-search-deals", "2", "--arena-search-iterations", "20")
    assert len(lines) == 1
    res = json.loads(lines[0])
    assert isinstance(res, dict)
    metrics = {"follow_checks_per_s", "winners_per_s", "random_follows_per_s", "random_playouts_per_s",
               "random_playouts_per_s_tractor"}
    for key in ("core", "reference", "ratio"):
        assert set(res[key]) == metrics, key
        for m in metrics:
            v = res[key][m]
            assert isinstance(v, (int, float)) and not isinstance(v, bool)
            assert v > 0 and v == v and v != float("inf")
    for m in metrics:
        assert res["ratio"][m] == pytest.approx(res["core"][m] / res["reference"][m])
    search = res["search"]
    assert set(search) == {"ismcts_iterations_per_s", "ismcts_random_rollout_iterations_per_s",
                           "ismcts_python_tree_iterations_per_s", "ismcts_c_tree_over_python",
                           "sample_world_us", "search_iterations", "search_peak_mb",
                           "ismcts_default_iterations_per_s", "ismcts_default_follower_iterations_per_s",
                           "sample_world_inferred_us", "heuristic_decision_us"}
    assert search["ismcts_c_tree_over_python"] == pytest.approx(
        search["ismcts_iterations_per_s"] / search["ismcts_python_tree_iterations_per_s"])
    assert search["search_iterations"] == 200
    assert all(search[k] > 0 for k in search)
    arena = res["arena"]
    assert set(arena) == {"arena_deals_per_s_1_worker", "arena_deals_per_s_2_workers", "arena_2_workers_over_1",
                          "arena_deals_per_s_trusted", "arena_deals_per_s_sandboxed", "arena_sandboxed_over_trusted",
                          "arena_ismcts_deals_per_s_trusted", "arena_ismcts_deals_per_s_sandboxed",
                          "arena_ismcts_sandboxed_over_trusted", "ladder_games_per_s",
                          "arena_sandboxed_over_trusted_lo95", "arena_sandboxed_over_trusted_hi95",
                          "arena_ismcts_sandboxed_over_trusted_lo95", "arena_ismcts_sandboxed_over_trusted_hi95",
                          "ladder_scheduling_ms_per_game", "dask_deals_per_s_2_workers",
                          "local_deals_per_s_2_workers", "dask_over_local_2_workers"}
    assert all(arena[k] > 0 for k in arena)
    assert arena["dask_over_local_2_workers"] == pytest.approx(
        arena["dask_deals_per_s_2_workers"] / arena["local_deals_per_s_2_workers"])
    for pre in ("arena", "arena_ismcts"):       # the rounds' mean ratio, inside its interval
        lo, mid, hi = (arena[f"{pre}_sandboxed_over_trusted{k}"] for k in ("_lo95", "", "_hi95"))
        assert lo < mid < hi
        overall = arena[f"{pre}_deals_per_s_sandboxed"] / arena[f"{pre}_deals_per_s_trusted"]
        assert lo < overall < hi
    assert arena["arena_2_workers_over_1"] == pytest.approx(
        arena["arena_deals_per_s_2_workers"] / arena["arena_deals_per_s_1_worker"])
    adapters = res["adapters"]            # OpenSpiel is among the test dependencies
    assert set(adapters) == {"native_random_playouts_per_s", "openspiel_random_playouts_per_s",
                             "native_over_openspiel"}
    assert all(adapters[k] > 0 for k in adapters)
    assert adapters["native_over_openspiel"] == pytest.approx(
        adapters["native_random_playouts_per_s"] / adapters["openspiel_random_playouts_per_s"])


# --------------------------------------------------------------------------
# bad input: exit 2, one line on stderr, no traceback

BAD = [
    ("malformed-card", ["lead", "1S", "--trump", "5H"], "bad card '1S'"),
    ("malformed-card-AX", ["lead", "AS AX", "--trump", "5H"], "bad card 'AX'"),
    ("malformed-trick", ["trick", "AS", "ZZ", "--trump", "5H"], "bad card 'ZZ'"),
    ("malformed-hand", ["follow", "--hand", "AS 10", "--lead", "KS", "--trump", "5H"], "bad card '10'"),
    ("malformed-play", ["follow", "--hand", "AS KS", "--lead", "QS", "--play", "1S", "--trump", "5H"], "bad card '1S'"),
    ("malformed-throw-hand", ["throw", "AS KS", "--hands", "QS 1S", "--trump", "5H"], "bad card '1S'"),
    ("too-many-copies", ["lead", "AS AS AS", "--trump", "5H"], "AS appears 3 times but only 2 are in play"),
    ("bj-at-12", ["lead", "BJ", "--trump", "5H", "--players", "12"], "BJ appears 1 times but only 0"),
    ("too-many-in-play", ["follow", "--hand", "AS AS KS", "--lead", "QS", "--play", "AS AS AS", "--trump", "5H"],
     "play: AS appears 3 times"),
    ("too-many-in-hand", ["throw", "AS KS", "--hands", "QS QS QS", "--trump", "5H"], "hand 0: QS appears 3 times"),
    ("mixed-lead", ["lead", "AS KH", "--trump", "5H"], "mixes suits"),
    ("mixed-trick-lead", ["trick", "AS KD", "KS QS", "--trump", "5H"], "mixes suits"),
    ("mixed-throw", ["throw", "AS KD", "--hands", "QS", "--trump", "5H"], "mixes suits"),
    ("mixed-follow-lead", ["follow", "--hand", "AS KS", "--lead", "QS QD", "--trump", "5H"], "mixes suits"),
    ("empty-lead", ["lead", "", "--trump", "5H"], "a lead needs at least one card"),
    ("trump-15", ["lead", "AS", "--trump", "15"], "--trump: '15'"),
    ("trump-5X", ["lead", "AS", "--trump", "5X"], "--trump: '5X'"),
    ("trump-suit-only", ["trick", "AS", "KS", "--trump", "H"], "--trump: 'H'"),
    ("trump-empty", ["lead", "AS", "--trump", ""], "--trump: ''"),
    ("unknown-preset", ["lead", "AS", "--trump", "5H", "--preset", "nope"], "preset: unknown preset 'nope'"),
    ("unknown-preset-play", ["play", "--preset", "nope"], "preset: unknown preset 'nope'"),
    ("unknown-set-key", ["lead", "AS", "--trump", "5H", "--set", "bogus=1"], "bogus: no such rule setting"),
    ("set-no-equals", ["lead", "AS", "--trump", "5H", "--set", "follow_ladder"], "--set: 'follow_ladder' is not key=value"),
    ("bad-set-bool", ["lead", "AS", "--trump", "5H", "--set", "follow_ladder=maybe"], "follow_ladder: expected true or false"),
    ("bad-set-choice", ["lead", "AS", "--trump", "5H", "--set", "kitty_multiplier=triple"], "kitty_multiplier: 'triple'"),
    ("bad-set-failed-throw", ["play", "--set", "failed_throw=stop"],
     "failed_throw: 'stop' is not one of withdraw, end_deal"),
    ("bad-set-negative", ["trick", "AS", "KS", "--trump", "5H", "--set", "throw_penalty=-5"], "throw_penalty: must not be negative"),
    ("bad-set-int", ["lead", "AS", "--trump", "5H", "--set", "throw_penalty=lots"], "throw_penalty: expected a whole number"),
    ("bad-set-hand-size", ["lead", "AS", "--trump", "5H", "--set", "hand_size=3"], "hand_size:"),
    ("players-13", ["lead", "AS", "--trump", "5H", "--players", "13"], "players: 13 is not a table size"),
    ("players-4", ["trick", "AS", "KS", "--trump", "5H", "--players", "4"],
     "players: 4 players play the preset tractor (preset 'pagat' is for 5 to 12)"),
    ("players-3", ["trick", "AS", "KS", "--trump", "5H", "--players", "3"], "players: 3 is not a table size from 4"),
    ("tractor-6", ["play", "--preset", "tractor", "--players", "6"], "players: preset 'tractor' is for 4 players, not 6"),
    ("fixed-with-calls", ["play", "--set", "partners=fixed"], "partners and friend_calls: fixed partners make no"),
    ("fixed-odd", ["play", "--players", "5", "--set", "partners=fixed", "--set", "friend_calls=0"],
     "partners and players: fixed partners need an even number of players, not 5"),
    ("players-stack-7", ["play", "--preset", "stack", "--players", "7"], "players: preset 'stack' is for 6 players"),
    ("players-play-13", ["play", "--players", "13"], "players: 13"),
    ("wrong-trick-size", ["trick", "AS AS", "KS", "--trump", "5H"], "play 1 has 1 card; the lead has 2"),
    ("wrong-trick-size-3", ["trick", "AS", "KS", "QS JS", "--trump", "5H"], "play 2 has 2 cards; the lead has 1"),
    ("hand-shorter-than-lead", ["follow", "--hand", "KS", "--lead", "AS AS", "--trump", "5H"], "--hand: 1 card cannot follow a lead of 2"),
    ("bench-positions-0", ["bench", "--positions", "0"], "bench: --positions and --search-iterations must be at least 1"),
    ("bench-search-deals-1", ["bench", "--arena-search-deals", "1"],
     "bench: --arena-search-deals must be at least 2 (the rounds of the ratio's interval)"),
]


@pytest.mark.parametrize("args,fragment", [pytest.param(a, f, id=i) for i, a, f in BAD])
def test_bad_input(args, fragment):
    p = run(*args)
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stdout + p.stderr
    assert p.stdout == ""
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("pengyou: error: "), lines[0]
    assert fragment in lines[0], (fragment, lines[0])


@pytest.mark.parametrize("words", [[], ["play"], ["replay"], ["duel"], ["bench"], ["lead"],
                                   ["follow"], ["trick"], ["throw"]])
def test_help_of_every_command(words):
    proc = subprocess.run([sys.executable, "-m", "arena", *words, "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "usage: pengyou" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_numbers_of_thousands_of_digits_are_one_line(tmp_path):
    big = "9" * 5000
    spec = tmp_path / "big.toml"
    spec.write_text(f'deals = {big}\n[[entrant]]\nbot = "random"\n[[entrant]]\nbot = "heuristic"\n')
    rec = tmp_path / "r.jsonl"
    rec.write_text('{"type": "deal", "version": 1, "seed": ' + big + '}\n')
    for args in (["arena", "run", str(spec), "--db", str(tmp_path / "x.db")], ["replay", str(rec)]):
        p = run(*args)
        assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr[-300:]
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and "more than 4300 digits" in lines[0]
    assert not (tmp_path / "x.db").exists()
