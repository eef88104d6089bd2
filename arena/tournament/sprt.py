"""The sequential test's driver: play groups of duplicate deals of bot A
against bot B in batches, look at the evidence after each batch
(:mod:`arena.stats.sprt`, which holds the test itself), and keep the test's
state and LLR path in the results database, until a verdict or the limit.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from ..stats.sprt import Estimate, Hypotheses, SprtState, estimate, group_scores, score_to_elo, verdict
from ..store import Store
from ..types import ArenaError, JobResult
from ..render.numbers import signed

if TYPE_CHECKING:
    from .runner import Workers

__all__ = ["SprtTest", "run_sprt", "format_state", "describe", "saved_state", "sprt_runs"]


def _fmt(e: Optional[Estimate], digits: int) -> str:
    if e is None:
        return "-"
    return f"{signed(e.mean, digits)} [{signed(e.lo, digits)}, {signed(e.hi, digits)}]"


def describe(h: Hypotheses) -> str:
    """The hypotheses in words (the test is on seat duels' Elo, see :mod:`arena.stats.sprt`).

    >>> describe(Hypotheses(0.0, 20.0))
    'H0: Elo <= 0, H1: Elo >= 20 (alpha 0.05, beta 0.05)'
    """
    return f"H0: Elo <= {h.low:g}, H1: Elo >= {h.high:g} (alpha {h.alpha:g}, beta {h.beta:g})"


def format_state(st: SprtState, test_id: Optional[int] = None) -> str:
    """One line: groups, LLR with its bounds, the estimates; and a second
    with the verdict if any, naming the test ``test_id`` (its run's id) if given."""
    h = st.hypotheses
    head = (f"{st.groups} of {st.max_groups} groups ({st.deals} deals): LLR {st.llr:+.2f} "
            f"({st.bounds[0]:+.2f}, {st.bounds[1]:+.2f}) [{h.low:g}, {h.high:g} Elo]; "
            f"Elo {_fmt(st.elo, 1)}; margin {_fmt(st.margin, 2)} card points")
    if st.verdict is None:
        return head
    said = {"H0": f"H0 accepted (not {h.high:g} Elo better)", "H1": f"H1 accepted ({h.high:g} Elo better)",
            "limit": "stopped at the limit, no verdict"}[st.verdict]
    if st.alike():
        said += (f"; every one of the {st.groups} groups came out exactly even: the two bots scored alike on "
                 "every deal (a change too small to alter any decision plays the same games)")
    return f"{head}\n{'' if test_id is None else f'sprt test {test_id}: '}{said}"


@dataclass(frozen=True)
class SprtTest:
    """A test: the games (an arena spec with entrants A and B, ``pairs``
    line-ups, a generated suite) and the hypotheses; ``batch`` groups are
    played between looks at the store (any number: the verdict is the same)."""

    spec: Any                      # arena.tournament.spec.TournamentSpec
    hypotheses: Hypotheses
    batch: int = 0                 # 0: a few per worker

    def jobs_per_group(self) -> int:
        """How many jobs (rotations) one deal seed has."""
        from .schedule import build_jobs

        return len(build_jobs(dataclasses.replace(self.spec, deals=1), [1]))


def _scores_and_state(test: SprtTest, results: list[JobResult], max_groups: int) -> SprtState:
    per = test.jobs_per_group()
    h = test.hypotheses
    scores = group_scores(results, per, 0, "elo")
    found, used, value = verdict(scores[:max_groups], h)
    elos = scores[:used]
    margins = group_scores(results, per, 0, "points")[:used]
    if found is None and used >= max_groups:
        found = "limit"
    return SprtState(groups=used, deals=used * per, llr=float(value), bounds=h.bounds, verdict=found,
                     elo=estimate(elos, score_to_elo), margin=estimate(margins), hypotheses=h,
                     max_groups=max_groups)


def _save(db: str, run_id: int, test: SprtTest, state: SprtState, max_groups: int) -> list[dict[str, Any]]:
    """Store the test's state and add it to its LLR path; the path."""
    key = json.dumps(test.hypotheses.to_json(), sort_keys=True)
    with Store(db) as store:
        return store.save_sprt(run_id, key, max_groups, state.to_json(), {"groups": state.groups, "llr": state.llr})


def run_sprt(test: SprtTest, db: str, *, workers: Optional[int] = None, cluster: Optional[str] = None,
             report: Optional[Callable[[SprtState], None]] = None, secret: Optional[str] = None,
             started: Optional[Callable[[int], None]] = None) -> SprtState:
    """Play ``test`` until its LLR leaves the bounds or ``test.spec.deals``
    groups are played; the final state. Resumes what ``db`` holds of the
    same test (a higher ``deals`` continues a test stopped at its limit).
    ``started`` is called once with the test's id (its run's, which
    ``pengyou report --sprt`` takes) before the first look; ``report`` with
    the state after every batch."""
    from .runner import Workers, run_tournament

    test.hypotheses.check()
    spec = test.spec
    max_groups = spec.deals
    per = test.jobs_per_group()
    w = spec.workers if workers is None else workers
    summary = run_tournament(spec, db, workers=w, cluster=cluster, progress=False, max_jobs=0,
                             secret=secret, grow=True)
    run_id = summary.run_id
    if started is not None:
        started(run_id)
    # one set of workers (and so of bot processes) for every batch
    with Workers(w, spec.cluster if cluster is None else cluster) as keep:
        return _batches(test, db, run_id, keep, max_groups, per, report, secret)


def _batches(test: SprtTest, db: str, run_id: int, keep: Workers, max_groups: int, per: int,
             report: Optional[Callable[[SprtState], None]], secret: Optional[str]) -> SprtState:
    from .runner import run_tournament

    spec = test.spec
    stalled = 0
    while True:
        with Store(db, read_only=True) as store:
            results = store.results(run_id)
        state = _scores_and_state(test, results, max_groups)
        _save(db, run_id, test, state, max_groups)
        if report is not None:
            report(state)
        if state.verdict is not None:
            with Store(db) as store:
                store.set_status(run_id, "complete")       # the test is over (its unplayed jobs stay unplayed)
            return state
        before = len(results)
        started = time.monotonic()
        batch = test.batch or max(4, 4 * keep.size())       # the cluster's size, once its workers are up
        run_tournament(spec, db, progress=False, max_jobs=batch * per, secret=secret, grow=True, keep=keep)
        with Store(db, read_only=True) as store:
            after = len(store.done_keys(run_id))
        if after == before:
            stalled += 1
            if stalled >= 3:
                raise ArenaError(f"run {run_id} in {db}: no new results in three batches "
                                 f"({time.monotonic() - started:.0f} s for the last); see the run's log")
        else:
            stalled = 0


def saved_state(db: str, run_id: int) -> list[Mapping[str, Any]]:
    """Every test stored for ``run_id``: its state and LLR path (for reports)."""
    with Store(db, read_only=True) as store:
        return [{"state": state, "path": path} for state, path in store.sprt_tests(run_id)]


def sprt_runs(db: str) -> list[int]:
    """The ids of the runs in ``db`` that hold a test, oldest first."""
    with Store(db, read_only=True) as store:
        return sorted(r.id for r in store.runs() if store.sprt_tests(r.id))
