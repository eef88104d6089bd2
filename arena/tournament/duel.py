"""Two bots on duplicate deals: the same shuffles, each hand held by each bot.

For every deal seed the deal is played twice: bot A in the even seats and B
in the odd ones, then the other way round, so each bot holds each hand once.
A bot's score in one game is the mean over its seats of the seat's result:
the card-point margin of its final side (its side's share of the deal's
points minus the other side's) and its game points (plus for a win, minus
for a loss). The duplicate difference of a seed is A's mean score minus B's
over the two games; intervals are 95 % normal intervals over seeds.

A bot that raises or plays illegally stops the duel with one line naming
it; with ``save``, every finished game is kept and the same call resumes.

>>> from core.rules import Rules
>>> res = run_duel("heuristic", "random", Rules.preset("pagat", players=5), deals=4, seed=1, workers=1,
...                secret="doc")
>>> sorted(res.keys())
['a', 'b', 'deals', 'difference', 'players', 'preset', 'resumed']
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Optional

from bots import BotError
from core.errors import IllegalActionError, PengyouError
from core.records import rules_json
from core.rules import Rules  # noqa: F401  (used in the signature)

from .executors import Lost, PoolExecutor
from ..table.table import play_job
from ..table.remote import Limits
from .spec import spec_from_options
from ..types import ArenaError, Entrant, Job

__all__ = ["run_duel", "play_game", "mean_interval", "load_saved", "DuelError"]


class DuelError(PengyouError):
    """A duel cannot go on: its ``--save`` file does not fit, or a bot ended
    a process (the message says which)."""


def play_game(job: tuple) -> tuple[list[float], list[float]]:
    """Play one game of a duel: (spec A, spec B, rules, deal seed, rotation,
    options), through the arena's referee (``options``: ``secret``,
    ``trusted``, ``time_limit``, ``overage``, ``cheating``).

    Returns (A's card margin, A's game points, B's ...) as two two-item lists:
    ``[margin_a, margin_b], [game_a, game_b]``. A bot's fault stops the
    game with a one-line :class:`bots.BotError`.
    """
    spec_a, spec_b, rules, seed, rotation, opts = job
    n = rules.players
    who = tuple((seat + rotation) % 2 for seat in range(n))          # 0 = A, 1 = B
    game = f"deal seed {seed}, rotation {rotation}"
    entrants = [Entrant("a", spec_a), Entrant("b", spec_b)]
    djob = Job(index=0, key=f"s{seed}-r{rotation}", group=0, seed=seed, lineup=0, rotation=rotation,
               seats=who)
    limits = Limits(move=opts.get("time_limit", 5.0), overage=opts.get("overage", 30.0))
    try:
        res = play_job(djob, entrants, rules, time_limit=limits.move, limits=limits, record=False,
                       secret=opts.get("secret", b""), trusted=opts.get("trusted", "none"),
                       cheating=opts.get("cheating", False))
    except IllegalActionError as exc:               # the deal itself cannot go on
        raise IllegalActionError(f"{game}: {exc}") from None
    except ArenaError as exc:
        raise BotError(str(exc)) from None
    if res.faults:
        f = res.faults[0]
        spec = entrants[f.entrant].spec
        raise BotError(f"bot {spec!r} in seat {f.seat} ({game}): {f.kind}: {f.message}")
    out = res.deals[0]
    margins: list[list[float]] = [[], []]
    games: list[list[float]] = [[], []]
    for seat in range(n):
        margins[who[seat]].append(out.margins[seat])
        games[who[seat]].append(float(out.game_points[seat]))
    return [sum(x) / len(x) for x in margins], [sum(x) / len(x) for x in games]


def mean_interval(xs: Sequence[float]) -> dict[str, float]:
    """Mean with a 95 % normal interval (``lo``, ``hi``)."""
    n = len(xs)
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    half = 1.96 * math.sqrt(var / n) if n > 1 else float("inf")
    return {"mean": mean, "lo": mean - half, "hi": mean + half}


DuelJob = tuple  # (spec A, spec B, rules, deal seed, rotation)


def _play_keyed(job: DuelJob) -> tuple[int, int, tuple[list[float], list[float]]]:
    return job[3], job[4], play_game(job)


def _header(spec_a: str, spec_b: str, rules: Rules, seed: int, secret: str) -> dict[str, Any]:
    head = {"duel": 1, "a": spec_a, "b": spec_b, "seed": seed, "rules": rules_json(rules), "secret": secret}
    return json.loads(json.dumps(head))           # as it reads back: tuples become lists


def _differences(saved: dict[str, Any], wanted: dict[str, Any]) -> str:
    """The fields of two duel headers that differ, briefly."""
    out = []
    for key in ("a", "b", "seed"):
        if saved.get(key) != wanted[key]:
            out.append(f"{key} {saved.get(key)!r}, not {wanted[key]!r}")
    rules = saved.get("rules")
    if not isinstance(rules, dict):
        rules = {}
    for key, value in wanted["rules"].items():
        if rules.get(key) != value:
            out.append(f"{key} {rules.get(key)!r}, not {value!r}")
    return "; ".join(out[:4]) + ("; ..." if len(out) > 4 else "")


def load_saved(path: Path, header: dict[str, Any]) -> dict[tuple[int, int], tuple[list, list]]:
    """The games a ``--save`` file holds for the duel ``header`` describes,
    keyed by (deal seed, rotation), and the file made ready to append to.

    A missing or empty file holds none (it gets the header). A last line cut
    short by a kill, after a valid header, is dropped from the file. A file
    that is not this duel's, or has a bad line elsewhere, is a one-line
    :class:`DuelError` and is left exactly as it was.
    """
    head_line = (json.dumps(header) + "\n").encode()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = b""
    except OSError as exc:
        raise DuelError(f"{path}: cannot read: {exc.strerror or exc}") from None
    *complete, tail = data.split(b"\n")
    if not complete and head_line.startswith(data.lstrip()):    # empty, or a header cut short
        _write(path, head_line, "wb")
        return {}
    try:
        head = json.loads(complete[0]) if complete else None
    except ValueError:
        head = None
    if not isinstance(head, dict) or head.get("duel") != 1:
        raise DuelError(f"{path}: not a duel results file (its first line is no duel header)")
    if head != header:
        raise DuelError(f"{path}: holds another duel ({_differences(head, header)}); save to another file")
    if tail.strip():                               # the last write was cut short, or lost its newline
        try:
            json.loads(tail)
            _write(path, b"\n", "ab")
            complete.append(tail)
        except ValueError:
            _write(path, data[:len(data) - len(tail)], "wb")
    seed = header["seed"]
    games: dict[tuple[int, int], tuple[list, list]] = {}
    for number, raw in enumerate(complete[1:], start=2):
        if not raw.strip():
            continue
        try:
            g = json.loads(raw)
            key = (g["seed"], g["rotation"])
            margins, points = g["margins"], g["games"]
            ok = (isinstance(key[0], int) and 0 <= key[0] - seed * 100_003 < 100_003 and key[1] in (0, 1)
                  and len(margins) == 2 and len(points) == 2
                  and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in margins + points))
        except (ValueError, KeyError, TypeError):
            ok = False
        if not ok:
            raise DuelError(f"{path}: line {number}: not a game of this duel")
        games.setdefault(key, ([float(x) for x in margins], [float(x) for x in points]))
    return games


def _write(path: Path, data: bytes, mode: str) -> None:
    try:
        with path.open(mode) as f:
            f.write(data)
    except OSError as exc:
        raise DuelError(f"{path}: cannot write: {exc.strerror or exc}") from None


def _saved_secret(save: str | Path | None) -> Optional[str]:
    """The secret in a duel file's header, if it has one."""
    if save is None:
        return None
    try:
        with Path(save).open("rb") as f:
            head = json.loads(f.readline())
    except (OSError, ValueError):
        return None
    s = head.get("secret") if isinstance(head, dict) else None
    return s if isinstance(s, str) else None


def run_duel(spec_a: str, spec_b: str, rules: Rules, deals: int, seed: int = 1,
             workers: int = 1, progress: bool = False, save: str | Path | None = None,
             secret: Optional[str] = None, trusted: str = "none", time_limit: float = 5.0,
             overage: float = 30.0, cheating: bool = False) -> dict[str, Any]:
    """Play ``deals`` duplicate deal pairs; return means and intervals.

    ``save``: a JSON-lines file that keeps every game as it ends. Running the
    same duel with the same file again plays only the games it lacks, so an
    interrupted duel resumes, and a larger ``deals`` extends a finished one;
    the figures are the same as those of one uninterrupted run. The result's
    ``resumed`` counts the games taken from the file.

    ``secret`` keys the bots' random seeds (kept in the save file; a fresh
    random one when neither gives it); ``trusted``, ``time_limit``,
    ``overage`` and ``cheating`` are the arena's (see
    :class:`arena.tournament.spec.TournamentSpec`).
    """
    secret = secret if secret is not None else (_saved_secret(save) or os.urandom(16).hex())
    try:
        probe = spec_from_options([f"a={spec_a}", f"b={spec_b}"], preset=rules.name, players=rules.players,
                                  trusted=trusted, time_limit=float(time_limit), overage=float(overage),
                                  cheating=cheating)
    except ArenaError as exc:
        raise BotError(str(exc)) from None
    spec_a, spec_b = probe.entrants[0].spec, probe.entrants[1].spec
    opts = {"secret": secret.encode(), "trusted": trusted, "time_limit": float(time_limit),
            "overage": float(overage), "cheating": cheating}
    jobs = [(spec_a, spec_b, rules, seed * 100_003 + d, rot, opts) for d in range(deals) for rot in (0, 1)]
    done: dict[tuple[int, int], tuple[list, list]] = {}
    out = None
    if save is not None:
        path = Path(save)
        header = _header(spec_a, spec_b, rules, seed, secret)
        done = load_saved(path, header)
        try:
            out = path.open("a", encoding="utf-8")
        except OSError as exc:
            raise DuelError(f"{path}: cannot write: {exc.strerror or exc}") from None
    resumed = sum(1 for j in jobs if (j[3], j[4]) in done)
    todo = [j for j in jobs if (j[3], j[4]) not in done]
    results = dict(done)

    def keep(item: tuple[int, int, tuple[list, list]]) -> None:
        s, rot, res = item
        results[(s, rot)] = res
        if out is not None:
            out.write(json.dumps({"seed": s, "rotation": rot, "margins": res[0], "games": res[1]}) + "\n")
            out.flush()

    try:
        if workers > 1 and len(todo) > 1:
            with PoolExecutor(workers) as pool:
                _progress(_no_lost(pool.imap_unordered(_play_keyed, todo), save, lambda: len(results) - len(done)),
                          len(jobs), resumed, progress, keep)
        else:
            _progress(map(_play_keyed, todo), len(jobs), resumed, progress, keep)
    finally:
        if out is not None:
            out.close()
    per_seed: dict[int, list] = {}
    for job in jobs:
        per_seed.setdefault(job[3], []).append(results[(job[3], job[4])])
    margin_a, margin_b, game_a, game_b, diff_m, diff_g = [], [], [], [], [], []
    for games in per_seed.values():
        ma = sum(g[0][0] for g in games) / len(games)
        mb = sum(g[0][1] for g in games) / len(games)
        ga = sum(g[1][0] for g in games) / len(games)
        gb = sum(g[1][1] for g in games) / len(games)
        margin_a.append(ma)
        margin_b.append(mb)
        game_a.append(ga)
        game_b.append(gb)
        diff_m.append(ma - mb)
        diff_g.append(ga - gb)
    return {
        "preset": rules.name, "players": rules.players, "deals": deals, "resumed": resumed,
        "a": {"bot": spec_a, "card_margin": mean_interval(margin_a), "game_points": mean_interval(game_a)},
        "b": {"bot": spec_b, "card_margin": mean_interval(margin_b), "game_points": mean_interval(game_b)},
        "difference": {"card_margin": mean_interval(diff_m), "game_points": mean_interval(diff_g)},
    }


def _no_lost(results: Iterable, save: Any, finished: Callable[[], int]) -> Iterator:
    """The pool's results; a worker's death stops the duel with one line."""
    for item in results:
        if isinstance(item, Lost):
            kept = f"; the {finished()} game(s) finished now are kept in {save}" if save else ""
            raise DuelError("a worker process ended during a game (a bot called os._exit, was killed "
                            f"by a signal or crashed in compiled code){kept}")
        yield item


def _progress(it: Iterable, total: int, initial: int, show: bool, keep: Callable[[Any], None]) -> None:
    if show:
        from tqdm import tqdm

        it = tqdm(it, total=total, initial=initial, desc="games", unit="game")
    for item in it:
        keep(item)
