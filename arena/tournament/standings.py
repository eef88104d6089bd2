"""A stored run's standings: computed once from its results, kept, and read back.

Every surface that shows a run's Elo and intervals (``arena standings``,
its ``--json``, the interim standings of ``arena run --verbose``, the
report's page) calls :func:`run_standings`, so they show one number to
the digit: the bootstrap draws from the run's id as its seed, and the
standings of the results as they are now are kept in the results file
(:class:`arena.store.fits.KeptFits`) the first time a writer computes them,
then read back until a result is added.

>>> import os, tempfile
>>> from arena.store import Store
>>> from arena.types import DealOutcome, Entrant, Job, JobResult
>>> tmp = tempfile.TemporaryDirectory()
>>> path = os.path.join(tmp.name, "arena.db")
>>> deal = DealOutcome(seats=(0, 1, 0, 1), maker=0, maker_side=(0, 2), opponents_points=40,
...                    total_points=200, maker_won=True, game_points=(1, -1, 1, -1),
...                    margins=(120.0, -120.0, 120.0, -120.0))
>>> job = Job(0, "0.0.0", 0, 11, 0, 0, (0, 1, 0, 1))
>>> with Store(path) as store:
...     run_id, _ = store.open_run("spec-1", "demo", {"name": "demo"},
...                                [Entrant("a", "random"), Entrant("b", "heuristic")], [job])
...     _ = store.add_result(run_id, job, JobResult("0.0.0", 0, (0, 1, 0, 1), (deal,)))
...     first = run_standings(store, run_id, samples=50)
>>> with Store(path, read_only=True) as store:          # read back, not fitted again
...     again = run_standings(store, run_id, samples=50)
...     kept = store.kept_fit(run_id, 50, run_id, store.results_stamp(run_id))
>>> again == first and kept == first.to_json()
True
>>> tmp.cleanup()
"""

from __future__ import annotations

from ..stats.ratings import Standings, standings
from ..store import Store, one_line
from ..types import ArenaError

__all__ = ["run_standings"]


def run_standings(store: Store, run_id: int, samples: int = 1000) -> Standings:
    """The standings of run ``run_id`` of ``store`` as they are now, with
    ``samples`` bootstrap resamples drawn from the run's id: the kept ones
    when the run's results are those they were computed from, else computed
    now (and kept, when ``store`` is open for writing)."""
    if samples < 1:
        raise ArenaError(f"--samples: {samples} is not at least 1")
    stamp = store.results_stamp(run_id)
    kept = store.kept_fit(run_id, samples, run_id, stamp)
    if kept is not None:
        try:
            return Standings.from_json(kept)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ArenaError(f"{store.path} is damaged (the kept fit of run {run_id}: "
                             f"{one_line(repr(exc))})") from None
    body = standings(store.result_columns(run_id), store.entrants(run_id), samples=samples, seed=run_id).to_json()
    if not store.read_only:
        store.keep_fit(run_id, samples, run_id, stamp, body)
    return Standings.from_json(body)
