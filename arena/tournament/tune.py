"""SPSA: tuning numeric bot parameters from game results, as fishtest does.

Simultaneous perturbation stochastic approximation moves every parameter at
once. Iteration ``k`` (from 1) draws a random sign ``delta_i = ±1`` for each
parameter, plays the bot at ``theta + c_k delta`` against the bot at
``theta - c_k delta`` (one duplicate deal group), and moves::

    theta_i += (a_k / c_k) * result * delta_i

where ``result`` in [-1, 1] is how much the ``+`` side won (:func:`result_of`,
twice its seat-duel score minus 1). The schedule is fishtest's: with ``N``
iterations, ``A = N / 10``, ``alpha = 0.602``, ``gamma = 0.101``,
``c_k = c / k**gamma`` and ``a_k = a / (A + k)**alpha``, where each
parameter's ``c_end`` (its perturbation at the last iteration) and
``r_end`` (its learning rate there, ``a_N / c_N**2``) give ``c = c_end *
N**gamma`` and ``a = r_end * c_end**2 * (A + N)**alpha``. Parameters stay
within their bounds; an integer parameter is played at a stochastically
rounded value (up with the chance of its fractional part), so its
expected value is the real one.

Many iterations run at once: a *batch* of iterations is played at the same
``theta`` and then applied in iteration order, so a run's trajectory
depends on its seed and batch size only, never on which worker finished
first.

>>> p = TuneParam.parse("c=1.0,0.2,3.0,0.2,0.002")
>>> p.name, p.start, p.low, p.high, p.integer
('c', 1.0, 0.2, 3.0, False)
>>> s = Spsa([p], iterations=1000, seed=7)
>>> plus, minus, delta = s.points(1)
>>> round(plus[0] - minus[0], 6) == round(2 * s.c_k(p, 1) * delta[0], 6)
True
>>> s.tell(1, delta, 1.0)          # the + side won: theta moves towards it
>>> (s.theta[0] - 1.0) * delta[0] > 0
True
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import random
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

from ..types import ArenaError, Entrant, JobResult

__all__ = ["TuneParam", "Spsa", "result_of", "ALPHA", "GAMMA", "TuneSpec", "TuneRun", "run_tune",
           "write_trajectory", "trajectory_figure", "load_tune"]

#: fishtest's exponents of the gain sequences.
ALPHA = 0.602
GAMMA = 0.101


def result_of(score: float) -> float:
    """A group's seat-duel score of the ``+`` side (in [0, 1]) as an SPSA
    result in [-1, 1].

    >>> result_of(0.5), result_of(1.0), result_of(0.25)
    (0.0, 1.0, -0.5)
    """
    return 2.0 * score - 1.0


@dataclass(frozen=True)
class TuneParam:
    """One tuned parameter: its start, bounds, and its perturbation
    (``c_end``) and learning rate (``r_end``) at the last iteration.
    ``integer``: the bot takes whole numbers (played stochastically rounded)."""

    name: str
    start: float
    low: float
    high: float
    c_end: float
    r_end: float
    integer: bool = False

    @classmethod
    def parse(cls, text: str, integer: bool = False) -> TuneParam:
        """``NAME=start,min,max,c_end,r_end`` (one-line :class:`ArenaError` otherwise).

        >>> TuneParam.parse("c=5,0,3,0.1,0.002")
        Traceback (most recent call last):
        ...
        arena.types.ArenaError: --param c: the start 5 is outside its range [0, 3]
        """
        name, eq, rest = str(text).partition("=")
        name = name.strip()
        if not eq or not name:
            raise ArenaError(f"--param {text!r}: write NAME=start,min,max,c_end,r_end")
        parts = [x.strip() for x in rest.split(",")]
        if len(parts) != 5:
            raise ArenaError(f"--param {name}: give start,min,max,c_end,r_end (5 numbers), not {len(parts)}")
        try:
            start, low, high, c_end, r_end = (float(x) for x in parts)
        except ValueError:
            raise ArenaError(f"--param {name}: {rest!r} holds something that is not a number") from None
        return cls(name, start, low, high, c_end, r_end, integer).check()

    def check(self) -> TuneParam:
        """Raise :class:`ArenaError` (one line) for a parameter that cannot be tuned."""
        w = f"--param {self.name}"
        for what, x in (("start", self.start), ("min", self.low), ("max", self.high), ("c_end", self.c_end),
                        ("r_end", self.r_end)):
            if not math.isfinite(x):
                raise ArenaError(f"{w}: {what} {x!r} is not a finite number")
        if not self.low < self.high:
            raise ArenaError(f"{w}: min {self.low:g} must be below max {self.high:g}")
        if not self.low <= self.start <= self.high:
            raise ArenaError(f"{w}: the start {self.start:g} is outside its range [{self.low:g}, {self.high:g}]")
        if not 0 < self.c_end <= (self.high - self.low) / 2:
            raise ArenaError(f"{w}: c_end {self.c_end:g} must be above 0 and at most half the range")
        if not self.r_end > 0:
            raise ArenaError(f"{w}: r_end {self.r_end:g} must be above 0")
        return self

    def clip(self, x: float) -> float:
        """``x`` within the bounds."""
        return min(max(x, self.low), self.high)


def _rng(seed: int, *parts: Any) -> random.Random:
    text = ":".join(str(p) for p in (seed,) + parts).encode()
    return random.Random(int.from_bytes(hashlib.sha256(text).digest()[:8], "big"))


class Spsa:
    """The state of one SPSA run: ``theta`` after ``done`` iterations."""

    def __init__(self, params: Sequence[TuneParam], iterations: int, seed: int = 0,
                 theta: Optional[Sequence[float]] = None, done: int = 0) -> None:
        if not params:
            raise ArenaError("tune: give at least one --param")
        names = [p.name for p in params]
        if len(set(names)) != len(names):
            raise ArenaError(f"tune: parameter {next(n for n in names if names.count(n) > 1)!r} is given twice")
        if not isinstance(iterations, int) or iterations < 1:
            raise ArenaError(f"--iterations: {iterations!r} is not a whole number of at least 1")
        self.params = tuple(p.check() for p in params)
        self.iterations = iterations
        self.seed = seed
        self.theta = [float(x) for x in (theta if theta is not None else [p.start for p in params])]
        self.done = done
        self.big_a = 0.1 * iterations

    # ------------------------------------------------------------ the schedule
    def c_k(self, p: TuneParam, k: int) -> float:
        """The perturbation of ``p`` at iteration ``k``."""
        return p.c_end * (self.iterations / k) ** GAMMA

    def a_k(self, p: TuneParam, k: int) -> float:
        """The gain of ``p`` at iteration ``k``."""
        a = p.r_end * p.c_end ** 2 * (self.big_a + self.iterations) ** ALPHA
        return a / (self.big_a + k) ** ALPHA

    # ------------------------------------------------------------ one iteration
    def delta(self, k: int) -> tuple[int, ...]:
        """Iteration ``k``'s signs (the same for the same seed and ``k``)."""
        rng = _rng(self.seed, "delta", k)
        return tuple(rng.choice((-1, 1)) for _ in self.params)

    def points(self, k: int, theta: Optional[Sequence[float]] = None) -> tuple[list[float], list[float], tuple[int, ...]]:
        """The ``+`` and ``-`` points of iteration ``k`` around ``theta`` (now's), and its signs."""
        theta = self.theta if theta is None else theta
        d = self.delta(k)
        plus = [p.clip(t + self.c_k(p, k) * s) for p, t, s in zip(self.params, theta, d)]
        minus = [p.clip(t - self.c_k(p, k) * s) for p, t, s in zip(self.params, theta, d)]
        return plus, minus, d

    def played(self, values: Sequence[float], k: int, side: str) -> list[float | int]:
        """The values a bot is built with: integers stochastically rounded
        (from the seed, ``k`` and ``side``), real values as they are."""
        rng = _rng(self.seed, "round", k, side)
        out: list[float | int] = []
        for p, v in zip(self.params, values):
            if p.integer:
                base = math.floor(v)
                out.append(int(base + (1 if rng.random() < v - base else 0)))
            else:
                out.append(v)
        return out

    def tell(self, k: int, delta: Sequence[int], result: float) -> None:
        """Apply iteration ``k``'s ``result`` (in [-1, 1]) and count it done."""
        if not -1.0 <= result <= 1.0:
            raise ArenaError(f"an SPSA result must lie in [-1, 1], not {result!r}")
        self.theta = [p.clip(t + self.a_k(p, k) / self.c_k(p, k) * result * s)
                      for p, t, s in zip(self.params, self.theta, delta)]
        self.done = max(self.done, k)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form (what a resumed run needs)."""
        return {"params": [vars(p) for p in self.params], "iterations": self.iterations, "seed": self.seed,
                "theta": list(self.theta), "done": self.done}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Spsa:
        """Inverse of :meth:`to_json`."""
        return cls([TuneParam(**p) for p in obj["params"]], int(obj["iterations"]), int(obj["seed"]),
                   obj["theta"], int(obj["done"]))


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
    time_limit: float = 5.0
    overage: float = 30.0
    trusted: str = "builtins"

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

    def rules(self) -> Any:
        """The rules the deals are played under."""
        from core.rules import Rules

        return Rules.preset(self.preset, players=self.players, **dict(self.settings))

    def spec_at(self, values: Sequence[float | int]) -> str:
        """The bot spec with the tuned parameters at ``values``."""
        from .spec import _spec_text

        return _spec_text(self.bot, {p.name: (int(v) if p.integer else round(float(v), 6))
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
                make_bot(self.against)
            except (BotError, ValueError, TypeError) as exc:
                raise ArenaError(f"--against {self.against!r}: {' '.join(str(exc).split())}") from None
        return self


_SCHEMA = ("""CREATE TABLE IF NOT EXISTS tunes (
    id INTEGER PRIMARY KEY, identity TEXT NOT NULL UNIQUE, spec_json TEXT NOT NULL, secret TEXT NOT NULL,
    state_json TEXT NOT NULL, status TEXT NOT NULL, created TEXT NOT NULL, updated TEXT NOT NULL)""",
           """CREATE TABLE IF NOT EXISTS tune_steps (
    tune_id INTEGER NOT NULL, k INTEGER NOT NULL, plus_json TEXT NOT NULL, minus_json TEXT NOT NULL,
    delta_json TEXT NOT NULL, result REAL NOT NULL, theta_json TEXT NOT NULL, PRIMARY KEY (tune_id, k))""")


def _group_jobs(spec: TuneSpec, k: int, a: str, b: str, side: str, secret: str) -> list[tuple]:
    """The jobs of iteration ``k``'s duplicate group of ``a`` against ``b``."""
    from .schedule import build_jobs
    from .suites import generated_seed
    from .spec import TournamentSpec

    t = TournamentSpec(name="tune", entrants=(Entrant("a", a), Entrant("b", b)), preset=spec.preset,
                       players=spec.players, settings=spec.settings, suite="gen:x", deals=1)
    seed = generated_seed(f"gen:{spec.seeds}", k - 1)
    return [(k, side, job, (a, b), spec.to_json(), secret) for job in build_jobs(t, [seed])]


def _play_one(item: tuple) -> tuple[int, str, JobResult]:
    """In a worker: play one job of an iteration."""
    from ..table.table import play_job
    from ..table.remote import Limits

    k, side, job, (a, b), spec_json, secret = item
    spec = _spec_from_json(spec_json)
    limits = Limits(move=spec.time_limit, overage=spec.overage)
    res = play_job(job, [Entrant("a", a), Entrant("b", b)], spec.rules(), time_limit=spec.time_limit,
                   limits=limits, record=False, secret=secret.encode(), trusted=spec.trusted)
    return k, side, res


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

    from ..store.results import Store, _now

    with Store(db) as store:
        with store._transaction() as con:
            for sql in _SCHEMA:
                con.execute(sql)
            row = con.execute("SELECT id, state_json FROM tunes WHERE identity = ?", (spec.identity(),)).fetchone()
            if row is None:
                state = Spsa(spec.params, spec.iterations, spec.seed)
                now = _now()
                cur = con.execute("INSERT INTO tunes (identity, spec_json, secret, state_json, status, created, "
                                  "updated) VALUES (?, ?, ?, ?, 'running', ?, ?)",
                                  (spec.identity(), json.dumps(spec.to_json()), secret or _secrets.token_hex(16),
                                   json.dumps(state.to_json()), now, now))
                assert cur.lastrowid is not None       # set by the INSERT
                return TuneRun(int(cur.lastrowid), state, [], False)
            tune_id = int(row[0])
            path = [json.loads(t) for (t,) in con.execute(
                "SELECT theta_json FROM tune_steps WHERE tune_id = ? ORDER BY k", (tune_id,))]
            return TuneRun(tune_id, Spsa.from_json(json.loads(row[1])), path, True)


def load_tune(db: str, tune_id: int) -> tuple[TuneSpec, TuneRun, str]:
    """A stored tuning run by id: its spec, state and trajectory, and its
    status (a one-line :class:`ArenaError` for an unknown id)."""
    from ..store.results import Store

    with Store(db, read_only=True) as store:
        try:
            row = store._db.execute("SELECT spec_json, state_json, status FROM tunes WHERE id = ?",
                                    (tune_id,)).fetchone()
            steps = store._db.execute("SELECT theta_json FROM tune_steps WHERE tune_id = ? ORDER BY k",
                                      (tune_id,)).fetchall() if row is not None else []
        except sqlite3.Error:           # no tuning in this database
            row = None
    if row is None:
        raise ArenaError(f"{db}: no tuning run {tune_id} (`pengyou tune` prints its id)")
    spec = _spec_from_json(json.loads(row[0]))
    return spec, TuneRun(tune_id, Spsa.from_json(json.loads(row[1])), [json.loads(t) for (t,) in steps], True), \
        str(row[2])


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
    from ..store.results import Store

    with Store(db, read_only=True) as store:
        return str(store._db.execute("SELECT secret FROM tunes WHERE id = ?", (tune_id,)).fetchone()[0])


def run_tune(spec: TuneSpec, db: str, *, workers: int = 1, cluster: str = "", progress: bool = True,
             secret: Optional[str] = None) -> TuneRun:
    """Run (or resume) SPSA on ``spec`` to its last iteration; every batch
    of iterations is stored with the new theta in one transaction, so an
    interrupt loses at most the batch in flight (played again the same way)."""
    from .executors import make_executor
    from ..table.remote import close_pool
    from .sprt import group_score
    from ..store.results import Store, _now

    spec.check()
    run = _open(db, spec, secret)
    state, path = run.spsa, list(run.trajectory)
    key = _secret(db, run.id)
    batch = spec.batch or max(2, 2 * workers)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=spec.iterations, initial=state.done, desc="tune", unit="it", dynamic_ncols=True)
    try:
        with make_executor(workers, cluster) as ex:
            while state.done < spec.iterations:
                ks = list(range(state.done + 1, min(spec.iterations, state.done + batch) + 1))
                theta = list(state.theta)
                plan: dict[int, tuple] = {}
                items: list[tuple] = []
                for k in ks:
                    plus, minus, delta = state.points(k, theta)
                    a, b = spec.spec_at(state.played(plus, k, "+")), spec.spec_at(state.played(minus, k, "-"))
                    plan[k] = (plus, minus, delta)
                    if spec.against:
                        items += _group_jobs(spec, k, a, spec.against, "+", key)
                        items += _group_jobs(spec, k, b, spec.against, "-", key)
                    else:
                        items += _group_jobs(spec, k, a, b, "+-", key)
                got: dict[tuple[int, str], list[JobResult]] = {}
                for k, side, res in ex.imap_unordered(_play_one, items):
                    got.setdefault((k, side), []).append(res)
                steps = []
                for k in ks:
                    plus, minus, delta = plan[k]
                    if spec.against:
                        r = group_score(got[(k, "+")], 0) - group_score(got[(k, "-")], 0)
                    else:
                        r = result_of(group_score(got[(k, "+-")], 0))
                    state.tell(k, delta, max(-1.0, min(1.0, r)))
                    path.append(list(state.theta))
                    steps.append((run.id, k, json.dumps(plus), json.dumps(minus), json.dumps(list(delta)), r,
                                  json.dumps(state.theta)))
                with Store(db) as store:
                    with store._transaction() as con:
                        con.executemany("INSERT OR REPLACE INTO tune_steps VALUES (?, ?, ?, ?, ?, ?, ?)", steps)
                        con.execute("UPDATE tunes SET state_json = ?, updated = ?, status = ? WHERE id = ?",
                                    (json.dumps(state.to_json()), _now(),
                                     "complete" if state.done >= spec.iterations else "running", run.id))
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
