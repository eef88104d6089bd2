"""Tuning a bot's numeric parameters with SPSA (:mod:`arena.stats.spsa`):
the driver that plays each batch of iterations' duplicate groups on the
workers, applies the results in iteration order and keeps every step in
the results database, resumable; and the trajectory's files and plot.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

from ..stats.spsa import Spsa, TuneParam, result_of
from ..table.settings import Limits, TableSettings
from ..table.entrants import BotRef
from .jobs import Failed, JobItem, executor_for, play_jobs
from ..types import ArenaError, Entrant, JobResult

__all__ = ["TuneSpec", "TuneRun", "run_tune", "write_trajectory", "trajectory_figure", "load_tune"]


# ------------------------------------------------------------------ playing it
@dataclass(frozen=True)
class TuneSpec:
    """A tuning run: the bot (a spec whose parameters the tuned ones
    override), the parameters, the number of iterations, ``against`` (a
    fixed opponent for both points, or "" to play them against each
    other), the rules and the sandbox's settings, and where the deal seeds
    come from. ``batch``: iterations played at one theta (0: two a worker)."""

    bot: str
    params: tuple[TuneParam, ...]
    iterations: int
    seed: int = 1
    against: str = ""
    preset: str = "pagat"
    players: int = 6
    settings: tuple = ()
    seeds: str = "tune"
    batch: int = 0
    time_limit: float = Limits.move
    overage: float = Limits.overage
    trusted: str = TableSettings.trusted

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form."""
        d = dataclasses.asdict(self)
        d["params"] = [vars(p) for p in self.params]
        d["settings"] = [list(x) for x in self.settings]
        return d

    def identity(self) -> str:
        """A hash of every field (``batch`` too: it shapes the trajectory);
        equal identities are the same run, resumed."""
        return hashlib.sha256(json.dumps(self.to_json(), sort_keys=True).encode()).hexdigest()

    def table_settings(self, secret: bytes) -> TableSettings:
        """The settings of the run's tables (games are not recorded)."""
        return TableSettings(self.rules(), limits=Limits(move=self.time_limit, overage=self.overage),
                             trusted=self.trusted, record=False, secret=secret)

    def rules(self) -> Any:
        """The rules the deals are played under."""
        from core.rules import Rules

        return Rules.preset(self.preset, players=self.players, **dict(self.settings))

    def spec_at(self, values: Sequence[float | int]) -> str:
        """The bot spec with the tuned parameters at ``values``."""
        from .spec import spec_text

        return spec_text(self.bot, {p.name: (int(v) if p.integer else round(float(v), 6))
                                     for p, v in zip(self.params, values)})

    def check(self) -> TuneSpec:
        """Build the bot at its start and at both ends of every range, and
        the opponent, once (one-line :class:`ArenaError` for anything wrong)."""
        from bots.base import BotError, make_bot

        Spsa(self.params, self.iterations, self.seed)
        self.rules()                                # the rules own the table sizes and settings
        tries = [[p.start for p in self.params], [p.low for p in self.params], [p.high for p in self.params]]
        for values in tries:
            spec = self.spec_at([math.floor(v) if p.integer else v for p, v in zip(self.params, values)])
            try:
                make_bot(spec)
            except (BotError, ValueError, TypeError) as exc:
                raise ArenaError(f"bot {spec!r}: {' '.join(str(exc).split())}") from None
        if self.against:
            try:
                ref = BotRef.parse(self.against)
                if ref.kind == "program":
                    ref.argv()                      # a program is checked where it is, not built here
                else:
                    make_bot(self.against)
            except (BotError, ValueError, TypeError) as exc:
                raise ArenaError(f"--against {self.against!r}: {' '.join(str(exc).split())}") from None
        return self


def _group_jobs(spec: TuneSpec, k: int, a: str, b: str, side: str) -> list[JobItem]:
    """The jobs of iteration ``k``'s duplicate group of ``a`` against ``b``."""
    from .schedule import build_jobs
    from .suites import generated_seed
    from .spec import TournamentSpec

    t = TournamentSpec(name="tune", entrants=(Entrant("a", a), Entrant("b", b)), preset=spec.preset,
                       players=spec.players, settings=spec.settings, suite="gen:x", deals=1)
    seed = generated_seed(f"gen:{spec.seeds}", k - 1)
    return [JobItem(job, (Entrant("a", a), Entrant("b", b)), (k, side)) for job in build_jobs(t, [seed])]


def _spec_from_json(d: dict[str, Any]) -> TuneSpec:
    d = dict(d)
    d["params"] = tuple(TuneParam(**p) for p in d["params"])
    d["settings"] = tuple(tuple(x) for x in d["settings"])
    return TuneSpec(**d)


@dataclass(frozen=True)
class TuneRun:
    """Where a tuning run stands: its id, the SPSA state, and the trajectory
    (``theta`` after each iteration, from iteration 1)."""

    id: int
    spsa: Spsa
    trajectory: list[list[float]]
    resumed: bool


def _open(db: str, spec: TuneSpec, secret: Optional[str]) -> TuneRun:
    import secrets as _secrets

    from ..store import Store

    first = Spsa(spec.params, spec.iterations, spec.seed)
    with Store(db) as store:
        tune_id, state, path = store.open_tune(spec.identity(), spec.to_json(), secret or _secrets.token_hex(16),
                                               first.to_json())
    if state is None:
        return TuneRun(tune_id, first, [], False)
    return TuneRun(tune_id, Spsa.from_json(state), path, True)


def load_tune(db: str, tune_id: int) -> tuple[TuneSpec, TuneRun, str]:
    """A stored tuning run by id: its spec, state and trajectory, and its
    status (a one-line :class:`ArenaError` for an unknown id)."""
    from ..store import Store

    with Store(db, read_only=True) as store:
        found = store.tune(tune_id)
    if found is None:
        raise ArenaError(f"{db}: no tuning run {tune_id} (`pengyou tune` prints its id)")
    spec_json, state, status, path = found
    return _spec_from_json(spec_json), TuneRun(tune_id, Spsa.from_json(state), path, True), status


def trajectory_figure(spec: TuneSpec, trajectory: Sequence[Sequence[float]]) -> Any:
    """A matplotlib figure of each parameter against the iteration, from its
    start (dashed) within its bounds: the tuning plot of the trajectory
    files and of reports."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [p.name for p in spec.params]
    fig, axes = plt.subplots(len(names), 1, figsize=(8, 2.4 * len(names)), sharex=True, squeeze=False)
    xs = list(range(0, len(trajectory) + 1))
    for i, (ax, p) in enumerate(zip(axes[:, 0], spec.params)):
        ax.plot(xs, [p.start] + [t[i] for t in trajectory], lw=1.2)
        ax.axhline(p.start, color="grey", lw=0.8, ls="--")
        ax.set_ylim(p.low, p.high)
        ax.set_ylabel(p.name)
    axes[-1, 0].set_xlabel("iteration")
    fig.suptitle(f"SPSA: {spec.bot}", fontsize=10)
    fig.tight_layout()
    return fig


def _secret(db: str, tune_id: int) -> str:
    from ..store import Store

    with Store(db, read_only=True) as store:
        return store.tune_secret(tune_id)


def run_tune(spec: TuneSpec, db: str, *, workers: int = 1, cluster: str = "", progress: bool = True,
             secret: Optional[str] = None) -> TuneRun:
    """Run (or resume) SPSA on ``spec`` to its last iteration; every batch
    of iterations is stored with the new theta in one transaction, so an
    interrupt loses at most the batch in flight (played again the same way)."""
    from ..table.remote import close_pool
    from ..stats.sprt import group_score
    from ..store import Store

    spec.check()
    run = _open(db, spec, secret)
    state, path = run.spsa, list(run.trajectory)
    key = _secret(db, run.id)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=spec.iterations, initial=state.done, desc="tune", unit="it", dynamic_ncols=True)
    try:
        settings = spec.table_settings(key.encode())
        with executor_for(settings, workers, cluster, pin=True) as ex:
            batch = spec.batch or max(2, 2 * ex.workers)     # a cluster's size, not --workers
            while state.done < spec.iterations:
                ks = list(range(state.done + 1, min(spec.iterations, state.done + batch) + 1))
                theta = list(state.theta)
                plan: dict[int, tuple] = {}
                items: list[JobItem] = []
                for k in ks:
                    plus, minus, delta = state.points(k, theta)
                    a, b = spec.spec_at(state.played(plus, k, "+")), spec.spec_at(state.played(minus, k, "-"))
                    plan[k] = (plus, minus, delta)
                    if spec.against:
                        items += _group_jobs(spec, k, a, spec.against, "+")
                        items += _group_jobs(spec, k, b, spec.against, "-")
                    else:
                        items += _group_jobs(spec, k, a, b, "+-")
                got: dict[tuple[int, str], list[JobResult]] = {}
                for out in play_jobs(items, settings, ex):
                    if isinstance(out, Failed):
                        raise ArenaError(f"tune {run.id}: job {out.item.job.key} of iteration {out.item.tag[0]} "
                                         f"could not be played ({out.reason}); the iterations before its batch "
                                         "are kept: run the same command to resume")
                    got.setdefault(out.item.tag, []).append(out.result)
                steps = []
                for k in ks:
                    plus, minus, delta = plan[k]
                    if spec.against:
                        r = group_score(got[(k, "+")], 0) - group_score(got[(k, "-")], 0)
                    else:
                        r = result_of(group_score(got[(k, "+-")], 0))
                    state.tell(k, delta, max(-1.0, min(1.0, r)))
                    path.append(list(state.theta))
                    steps.append((k, plus, minus, list(delta), r, list(state.theta)))
                with Store(db) as store:
                    store.add_tune_steps(run.id, steps, state.to_json(), state.done >= spec.iterations)
                if bar is not None:
                    bar.update(len(ks))
                    bar.set_postfix_str(" ".join(f"{p.name}={t:.4g}" for p, t in zip(spec.params, state.theta)))
    finally:
        close_pool()
        if bar is not None:
            bar.close()
    return TuneRun(run.id, state, path, run.resumed)


def write_trajectory(spec: TuneSpec, run: TuneRun, folder: str) -> list[str]:
    """The trajectory as ``trajectory.json``, ``trajectory.csv`` and a plot
    ``trajectory.png`` (each parameter against the iteration, with its
    start) in ``folder``; the files written."""
    import csv
    import os

    os.makedirs(folder, exist_ok=True)
    names = [p.name for p in spec.params]
    out = [os.path.join(folder, f) for f in ("trajectory.json", "trajectory.csv", "trajectory.png")]
    with open(out[0], "w") as fh:
        json.dump({"params": names, "start": [p.start for p in spec.params],
                   "theta": run.trajectory}, fh)
    with open(out[1], "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["iteration"] + names)
        w.writerow([0] + [p.start for p in spec.params])
        for k, theta in enumerate(run.trajectory, 1):
            w.writerow([k] + [f"{t:.6g}" for t in theta])
    import matplotlib.pyplot as plt

    fig = trajectory_figure(spec, run.trajectory)
    fig.savefig(out[2], dpi=100)
    plt.close(fig)
    return out
