"""Local workers hold one CPU each, and the bots they start share it."""

from __future__ import annotations

import os

import pytest

from arena.tournament.executors import PoolExecutor, pin_cpu, this_cpu, unpin
from arena.tournament.workers import make_executor

CPUS = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
needs_two = pytest.mark.skipif(len(CPUS) < 2, reason="pinning is only visible with two CPUs or more")


def _my_cpus(_: object) -> tuple[int, ...]:
    return tuple(sorted(os.sched_getaffinity(0)))


@needs_two
def test_each_pool_worker_holds_a_cpu_of_its_own():
    with make_executor(2, "", None, ()) as ex:
        assert isinstance(ex, PoolExecutor)
        seen = set(ex.imap_unordered(_my_cpus, range(40)))
    assert all(len(c) == 1 for c in seen), seen
    assert len(seen) == 2                  # two workers, two different CPUs
    assert _my_cpus(None) == tuple(CPUS)   # the parent is not pinned


@needs_two
def test_the_inline_worker_holds_its_cpu_while_it_plays_and_lets_go_after():
    with make_executor(1, "", None, ()) as ex:
        during = list(ex.imap_unordered(_my_cpus, range(3)))
    assert all(len(c) == 1 for c in during) and len(set(during)) == 1
    assert _my_cpus(None) == tuple(CPUS)


@needs_two
def test_pinning_can_be_turned_off_and_is_off_with_more_workers_than_cpus():
    with make_executor(1, "", None, (), pin=False) as ex:
        assert set(ex.imap_unordered(_my_cpus, range(3))) == {tuple(CPUS)}
    with make_executor(len(CPUS) + 1, "", None, ()) as ex:
        assert set(ex.imap_unordered(_my_cpus, range(6))) == {tuple(CPUS)}


@needs_two
def test_sandboxed_bots_run_on_the_cpu_of_their_referee():
    from arena.table.entrants import BotRef
    from arena.table.remote import close_pool, pool
    from arena.table.settings import Limits

    before = pin_cpu(this_cpu())
    try:
        mine = os.sched_getaffinity(0)
        item = pool().acquire(BotRef.parse("random"), 1, Limits())
        with open(f"/proc/{item.proc.pid}/status") as fh:
            allowed = [line for line in fh if line.startswith("Cpus_allowed_list")][0].split()[1]
        assert allowed == str(min(mine)) and len(mine) == 1, allowed
    finally:
        close_pool()
        unpin(before)
    assert _my_cpus(None) == tuple(CPUS)
