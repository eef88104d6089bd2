"""The schedule: a spec and its deal seeds -> the list of jobs, purely.

Line-ups (who plays, in which base seating):

- ``"pairs"``: every pair ``i < j`` of entrants, in order; the base seating
  alternates ``i, j, i, j, ...`` over the seats.
- ``"table"``: with no more entrants than seats, one line-up whose base
  seating cycles ``0, 1, ..., E-1, 0, 1, ...``; with more, every combination
  of ``players`` entrants (in :func:`itertools.combinations` order), seated
  in that order.
- ``"gauntlet"``: the gauntlet entrant ``g`` (the first, or the one
  ``"gauntlet:NAME"`` names) against each other entrant ``o`` in turn, in
  entrant order; the base seating alternates ``g, o, g, o, ...`` (as a pair
  does), and the other entrants never meet each other.

Rotation ``r`` of a line-up seats ``base[(s + r) % players]`` at seat ``s``.
Only distinct rotations are played (``r < period``, the smallest shift that
gives back the base seating), so within a line-up's rotations every entrant
holds every seat equally often. Jobs are group-major: for each seed, each
line-up, each rotation; every job of one group plays the same cards.

>>> from arena.tournament.spec import spec_from_options
>>> spec = spec_from_options(["random", "heuristic"], players=6)
>>> jobs = build_jobs(spec, [11, 22])
>>> [(j.key, j.seed, j.seats) for j in jobs]      # doctest: +NORMALIZE_WHITESPACE
[('g0-l0-r0', 11, (0, 1, 0, 1, 0, 1)), ('g0-l0-r1', 11, (1, 0, 1, 0, 1, 0)),
 ('g1-l0-r0', 22, (0, 1, 0, 1, 0, 1)), ('g1-l0-r1', 22, (1, 0, 1, 0, 1, 0))]
>>> seat_counts(jobs, 2, 6)
[[2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2]]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from .suites import GENERATED, generated_seeds, load_suite
from .spec import TournamentSpec
from ..types import ArenaError, Job

__all__ = ["build_jobs", "suite_seeds", "lineups", "period", "seat_counts"]


def suite_seeds(spec: TournamentSpec) -> list[int]:
    """The seeds ``spec`` plays: its suite's, cut to the first ``spec.deals``
    (all when 0). Raises :class:`ArenaError` if the suite is too short."""
    if spec.suite.startswith(GENERATED):
        return generated_seeds(spec.suite, spec.deals)
    suite = load_suite(spec.suite)
    if spec.deals > len(suite.seeds):
        raise ArenaError(f"deals: the spec asks for {spec.deals} deals but suite {suite.name!r} "
                         f"({suite.path}) has only {len(suite.seeds)} seeds")
    return list(suite.seeds[: spec.deals] if spec.deals else suite.seeds)


def lineups(n_entrants: int, players: int, mode: str, gauntlet: int = 0) -> list[tuple[int, ...]]:
    """The base seatings (entrant index per seat) of ``mode`` ``"pairs"``,
    ``"table"`` or ``"gauntlet"`` (entrant ``gauntlet`` against each other one).

    >>> lineups(3, 5, "pairs")
    [(0, 1, 0, 1, 0), (0, 2, 0, 2, 0), (1, 2, 1, 2, 1)]
    >>> lineups(3, 5, "table")
    [(0, 1, 2, 0, 1)]
    >>> len(lineups(7, 5, "table"))      # every 5 of the 7
    21
    >>> lineups(4, 5, "gauntlet", gauntlet=2)
    [(2, 0, 2, 0, 2), (2, 1, 2, 1, 2), (2, 3, 2, 3, 2)]
    """
    if n_entrants < 2 or players < 1:
        raise ArenaError(f"line-ups need at least 2 entrants and 1 seat, got {n_entrants} and {players}")
    if mode == "pairs":
        return [tuple((i, j)[s % 2] for s in range(players))
                for i, j in itertools.combinations(range(n_entrants), 2)]
    if mode == "table":
        if n_entrants <= players:
            return [tuple(s % n_entrants for s in range(players))]
        return list(itertools.combinations(range(n_entrants), players))
    if mode == "gauntlet":
        if not 0 <= gauntlet < n_entrants:
            raise ArenaError(f"lineups: gauntlet entrant {gauntlet} is not one of the {n_entrants} entrants")
        return [tuple((gauntlet, o)[s % 2] for s in range(players))
                for o in range(n_entrants) if o != gauntlet]
    raise ArenaError(f"lineups: {mode!r} is not one of pairs, table, gauntlet")


def period(base: Sequence[int]) -> int:
    """The number of distinct rotations of a seating.

    >>> period((0, 1, 0, 1, 0, 1)), period((0, 1, 0, 1, 0)), period((0, 0, 0))
    (2, 5, 1)
    """
    p = len(base)
    for r in range(1, p + 1):
        if all(base[(s + r) % p] == base[s] for s in range(p)):
            return r
    return p


def _rotations(base: Sequence[int], limit: int = 0) -> list[tuple[int, ...]]:
    """The distinct rotations of ``base`` (rotation ``r`` seats
    ``base[(s + r) % len(base)]`` at seat ``s``), the first ``limit`` if > 0."""
    p = len(base)
    n = period(base)
    if limit > 0:
        n = min(n, limit)
    return [tuple(base[(s + r) % p] for s in range(p)) for r in range(n)]


def build_jobs(spec: TournamentSpec, seeds: Sequence[int]) -> list[Job]:
    """Every job of ``spec`` on ``seeds`` (already cut to ``spec.deals``).

    Order: for each seed (group ``g``), each line-up ``l``, each rotation
    ``r``; ``key`` is ``f"g{g}-l{l}-r{r}"`` and ``index`` the position in the
    list. The same spec and seeds always give the same list.
    """
    players = spec.players
    focus = spec.gauntlet_index() or 0
    table = [_rotations(base, spec.rotations)
             for base in lineups(len(spec.entrants), players, spec.lineup_mode(), focus)]
    jobs: list[Job] = []
    for g, seed in enumerate(seeds):
        for li, seatings in enumerate(table):
            for r, seats in enumerate(seatings):
                jobs.append(Job(len(jobs), f"g{g}-l{li}-r{r}", g, int(seed), li, r, seats))
    return jobs


def seat_counts(jobs: Sequence[Job], n_entrants: int, players: int) -> list[list[int]]:
    """How often each entrant holds each seat: ``counts[entrant][seat]``."""
    counts = [[0] * players for _ in range(n_entrants)]
    for job in jobs:
        for seat, entrant in enumerate(job.seats):
            counts[entrant][seat] += 1
    return counts
