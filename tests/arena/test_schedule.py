"""The schedule: line-ups, distinct rotations, job order and keys, seat balance."""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections import Counter

import pytest

from arena.tournament.schedule import build_jobs, lineups, period, seat_counts, suite_seeds
from arena.tournament.suites import generate_suite, load_suite, write_suite
from arena.tournament.spec import TournamentSpec, spec_from_options
from arena.types import ArenaError, Entrant, Job

SEEDS = [101, 202, 303]
PLAYERS = [5, 6, 7, 8, 12]
ENTRANTS = [2, 3, 4, 7]
MODES = ["pairs", "table"]


def make_spec(n: int, players: int, mode: str, rotations: int = 0) -> TournamentSpec:
    """A spec built without validation (the schedule needs no bots; a table of
    more entrants than seats is refused by validation but scheduled here)."""
    entrants = tuple(Entrant(f"e{i}", "random") for i in range(n))
    return TournamentSpec(entrants=entrants, players=players, lineups=mode, rotations=rotations)


def expected_lineups(n: int, players: int, mode: str) -> int:
    if mode == "pairs":
        return math.comb(n, 2)
    return 1 if n <= players else math.comb(n, players)


def expected_period(n: int, players: int, mode: str) -> int:
    """Distinct rotations, worked out from the shape of the base seating."""
    if mode == "pairs":
        return 2 if players % 2 == 0 else players
    if n <= players:
        return n if players % n == 0 else players
    return players                   # distinct entrants: every shift differs


GRID = [(m, p, n) for m in MODES for p in PLAYERS for n in ENTRANTS]
GRID_IDS = [f"{m}-{p}p-{n}e" for m, p, n in GRID]


@pytest.mark.parametrize("mode, players, n", GRID, ids=GRID_IDS)
def test_job_count(mode, players, n):
    jobs = build_jobs(make_spec(n, players, mode), SEEDS)
    per = expected_period(n, players, mode)
    assert len(jobs) == len(SEEDS) * expected_lineups(n, players, mode) * per
    for base in lineups(n, players, mode):
        assert period(base) == per


@pytest.mark.parametrize("mode, players, n", GRID, ids=GRID_IDS)
def test_seat_balance_within_each_lineup(mode, players, n):
    jobs = build_jobs(make_spec(n, players, mode), SEEDS)
    by_lineup: dict[tuple[int, int], list[Job]] = {}
    for j in jobs:
        by_lineup.setdefault((j.group, j.lineup), []).append(j)
    assert len(by_lineup) == len(SEEDS) * expected_lineups(n, players, mode)
    for (group, lineup), group_jobs in by_lineup.items():
        counts = seat_counts(group_jobs, n, players)
        for entrant, row in enumerate(counts):
            assert len(set(row)) == 1, (group, lineup, entrant, row)    # every seat equally often
        # and each seat is filled once per rotation
        assert [sum(col) for col in zip(*counts)] == [len(group_jobs)] * players


@pytest.mark.parametrize("mode, players, n", GRID, ids=GRID_IDS)
def test_keys_order_and_fields(mode, players, n):
    jobs = build_jobs(make_spec(n, players, mode), SEEDS)
    assert [j.index for j in jobs] == list(range(len(jobs)))
    assert len({j.key for j in jobs}) == len(jobs)
    assert all(j.key == f"g{j.group}-l{j.lineup}-r{j.rotation}" for j in jobs)
    assert [(j.group, j.lineup, j.rotation) for j in jobs] == \
        sorted((j.group, j.lineup, j.rotation) for j in jobs)          # group-major
    assert all(j.seed == SEEDS[j.group] for j in jobs)
    assert all(len(j.seats) == players and all(0 <= e < n for e in j.seats) for j in jobs)
    # every job of a line-up holds the same entrants; rotations are distinct
    for _key, js in itertools.groupby(jobs, key=lambda j: (j.group, j.lineup)):
        js = list(js)
        assert len({tuple(sorted(Counter(j.seats).items())) for j in js}) == 1
        assert len({j.seats for j in js}) == len(js)
        assert [j.rotation for j in js] == list(range(len(js)))


@pytest.mark.parametrize("mode, players, n", GRID, ids=GRID_IDS)
def test_every_entrant_plays(mode, players, n):
    jobs = build_jobs(make_spec(n, players, mode), SEEDS[:1])
    assert {e for j in jobs for e in j.seats} == set(range(n))


def test_deterministic():
    spec = spec_from_options(["random", "heuristic", "ismcts"], players=7)
    a, b = build_jobs(spec, SEEDS), build_jobs(spec, list(SEEDS))
    assert a == b
    assert [Job.from_json(j.to_json()) for j in a] == a
    assert build_jobs(dataclasses.replace(spec, workers=4, cluster="local"), SEEDS) == a


def test_pairs_seating():
    jobs = build_jobs(make_spec(3, 6, "pairs"), [7])
    assert [(j.key, j.seats) for j in jobs] == [
        ("g0-l0-r0", (0, 1, 0, 1, 0, 1)), ("g0-l0-r1", (1, 0, 1, 0, 1, 0)),
        ("g0-l1-r0", (0, 2, 0, 2, 0, 2)), ("g0-l1-r1", (2, 0, 2, 0, 2, 0)),
        ("g0-l2-r0", (1, 2, 1, 2, 1, 2)), ("g0-l2-r1", (2, 1, 2, 1, 2, 1)),
    ]


def test_pairs_at_an_odd_table_rotate_through_every_seat():
    jobs = build_jobs(make_spec(2, 5, "pairs"), [7])
    assert [j.seats for j in jobs] == [
        (0, 1, 0, 1, 0), (1, 0, 1, 0, 0), (0, 1, 0, 0, 1), (1, 0, 0, 1, 0), (0, 0, 1, 0, 1),
    ]


def test_table_seating():
    assert lineups(3, 6, "table") == [(0, 1, 2, 0, 1, 2)]
    assert lineups(4, 6, "table") == [(0, 1, 2, 3, 0, 1)]
    assert lineups(6, 5, "table") == list(itertools.combinations(range(6), 5))
    jobs = build_jobs(make_spec(3, 6, "table"), [7])
    assert [j.seats for j in jobs] == [(0, 1, 2, 0, 1, 2), (1, 2, 0, 1, 2, 0), (2, 0, 1, 2, 0, 1)]


@pytest.mark.parametrize("limit, want", [(0, 5), (1, 1), (3, 3), (5, 5), (50, 5)])
def test_rotation_limit(limit, want):
    jobs = build_jobs(make_spec(2, 5, "pairs", rotations=limit), SEEDS)
    assert len(jobs) == len(SEEDS) * want
    assert {j.rotation for j in jobs} == set(range(want))
    full = build_jobs(make_spec(2, 5, "pairs"), SEEDS)
    assert [j.seats for j in jobs] == [j.seats for j in full if j.rotation < want]


def test_rotation_limit_never_repeats_a_seating():
    jobs = build_jobs(make_spec(2, 6, "pairs", rotations=6), [1])
    assert len(jobs) == 2                                              # the period of 0,1,0,1,0,1


def test_no_seeds_no_jobs():
    assert build_jobs(make_spec(3, 6, "pairs"), []) == []


def test_seat_counts():
    jobs = build_jobs(make_spec(2, 5, "pairs"), [1, 2])
    assert seat_counts(jobs, 2, 5) == [[6] * 5, [4] * 5]


def test_lineups_errors():
    with pytest.raises(ArenaError):
        lineups(1, 6, "pairs")
    with pytest.raises(ArenaError) as ei:
        lineups(3, 6, "circle")
    assert "\n" not in str(ei.value)


# --------------------------------------------------------------------------
# suite_seeds


def test_suite_seeds_cut_to_deals():
    dev = load_suite("dev").seeds
    assert suite_seeds(spec_from_options(["random", "heuristic"])) == list(dev)
    assert suite_seeds(spec_from_options(["random", "heuristic"], deals=5)) == list(dev[:5])
    assert suite_seeds(spec_from_options(["random", "heuristic"], deals=64)) == list(dev)


def test_suite_seeds_from_a_path(tmp_path):
    path = write_suite(generate_suite("mine", 4, "m"), tmp_path / "mine.seeds").path
    spec = spec_from_options(["random", "heuristic"], suite=path, deals=3)
    assert suite_seeds(spec) == list(generate_suite("mine", 4, "m").seeds[:3])


def test_suite_too_short():
    spec = spec_from_options(["random", "heuristic"], deals=65)
    with pytest.raises(ArenaError) as ei:
        suite_seeds(spec)
    msg = str(ei.value)
    assert "\n" not in msg and "65" in msg and "64" in msg


def test_missing_suite():
    spec = spec_from_options(["random", "heuristic"], suite="no-such-suite")
    with pytest.raises(ArenaError) as ei:
        suite_seeds(spec)
    assert "no such seed suite" in str(ei.value)
