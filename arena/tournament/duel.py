"""Two bots on duplicate deals: the same shuffles, each hand held by each bot.

For every deal seed the deal is played twice: bot A in the even seats and B
in the odd ones, then the other way round, so each bot holds each hand once.
A bot's score in one game is the mean over its seats of the seat's result:
the card-point margin of its final side (its side's share of the deal's
points minus the other side's) and its game points (plus for a win, minus
for a loss). The duplicate difference of a seed is A's mean score minus B's
over the two games; intervals are 95 % normal intervals over seeds.

A bot's own figures are thus those of the sides its seats ended on: both
bots sit on both sides of most deals (the maker's side is formed in play),
so both can be positive at once. They are not margins against the other
bot; the difference is, on the same cards.

Each bot is ``SPEC`` or ``NAME=SPEC``, read as ``arena run --bots`` reads
its entrants (:func:`duel_entrants`); the name labels the bot in the
result and its logs (default: the canonical spec).

A bot that raises or plays illegally stops the duel with one line naming
it; with ``save``, every finished game is kept and the same call resumes.
With ``logs``, what sandboxed bots write to stderr is kept as ``arena run``
keeps it: ``LOGS/a-NAME/seat-S.log`` and ``LOGS/b-NAME/...``, each file
capped, under a line naming the game (``--- job s<seed>-r<rotation> ---``).

>>> from core.rules import Rules
>>> res = run_duel("heuristic", "random", Rules.preset("pagat", players=5), deals=4, seed=1, workers=1,
...                secret="doc")
>>> sorted(res.keys())
['a', 'b', 'deals', 'deals_won', 'difference', 'logs', 'players', 'preset', 'resumed']
>>> res["a"]["name"], res["a"]["bot"]
('heuristic', 'heuristic')
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

from ..table.settings import Limits, TableSettings
from ..table.table import play_job
from .jobs import Failed, JobItem, Outcome, executor_for, play_jobs
from .spec import parse_entrant, spec_from_options
from ..types import ArenaError, Entrant, Job, JobResult

__all__ = ["run_duel", "play_game", "duel_settings", "mean_interval", "load_saved", "DuelError", "duel_log_names",
           "duel_entrants"]


class DuelError(PengyouError):
    """A duel cannot go on: its ``--save`` file does not fit, or a bot ended
    a process (the message says which)."""


def duel_settings(rules: Rules, opts: dict[str, Any]) -> TableSettings:
    """The settings of a duel's tables (``opts``: ``secret``, ``trusted``,
    ``time_limit``, ``overage``, ``cheating``; the others' defaults are
    :class:`~arena.table.settings.TableSettings`'s); games are not recorded."""
    limits = Limits(move=opts.get("time_limit", Limits.move), overage=opts.get("overage", Limits.overage))
    return TableSettings(rules, limits=limits, record=False, secret=opts.get("secret", b""),
                         trusted=opts.get("trusted", TableSettings.trusted),
                         cheating=opts.get("cheating", TableSettings.cheating))


def duel_log_names(name_a: str, name_b: str) -> list[str]:
    """The entrants' names in a duel's bot logs (their folders' names): the
    side and the bot's name (its label, else its spec), so two copies of one
    bot keep apart."""
    return [f"a-{name_a}", f"b-{name_b}"]


def duel_entrants(text_a: str, text_b: str) -> tuple[Entrant, Entrant]:
    """The duel's two bots from their texts, each ``SPEC`` or ``NAME=SPEC``,
    read by the parser of ``arena run --bots`` (the name is the label of
    every output; without one it is the canonical spec).

    A text with nothing before its ``=``, a bad spec, and two bots with one
    name (unless both are the same spec, unnamed: a bot against itself) are
    each a one-line :class:`DuelError`. The specs are not built here.

    >>> duel_entrants("mine=random", "heuristic")
    (Entrant(name='mine', spec='random'), Entrant(name='heuristic', spec='heuristic'))
    >>> duel_entrants("random", "random")[1]
    Entrant(name='random', spec='random')
    """
    out = []
    for text in (text_a, text_b):
        if text.strip().startswith("="):
            raise DuelError(f"bot {text!r}: no NAME before '=' (give NAME=SPEC, e.g. mine=heuristic, or SPEC alone)")
        try:
            out.append(parse_entrant(text))
        except ArenaError as exc:
            raise DuelError(f"bot {text!r}: {exc}") from None
    a, b = out
    if a.name == b.name and (a.name != a.spec or b.name != b.spec):
        raise DuelError(f"both bots are named {a.name!r}; give each its own NAME (NAME=SPEC)")
    return a, b


def _duel_item(a: Entrant, b: Entrant, players: int, seed: int, rotation: int) -> JobItem:
    """A duel game as a job: A in the even seats of rotation 0, B in the odd ones."""
    who = tuple((seat + rotation) % 2 for seat in range(players))          # 0 = A, 1 = B
    job = Job(index=0, key=f"s{seed}-r{rotation}", group=0, seed=seed, lineup=0, rotation=rotation, seats=who)
    return JobItem(job, (a, b), (seed, rotation))


def _scored(item: JobItem, res: JobResult) -> tuple[list[float], list[float]]:
    """A's and B's mean card margin and game points in a played game; a
    bot's fault stops the duel with a one-line :class:`bots.BotError`."""
    seed, rotation = item.tag
    game = f"deal seed {seed}, rotation {rotation}"
    if res.faults:
        f = res.faults[0]
        raise BotError(f"bot {item.entrants[f.entrant].name!r} in seat {f.seat} ({game}): {f.kind}: {f.message}")
    out = res.deals[0]
    margins: list[list[float]] = [[], []]
    games: list[list[float]] = [[], []]
    for seat, side in enumerate(item.job.seats):
        margins[side].append(out.margins[seat])
        games[side].append(float(out.game_points[seat]))
    return [sum(x) / len(x) for x in margins], [sum(x) / len(x) for x in games]


def _failed(item: JobItem, reason: str) -> BotError:
    seed, rotation = item.tag
    return BotError(f"deal seed {seed}, rotation {rotation}: {reason}")


def play_game(job: tuple) -> tuple[list[float], list[float]]:
    """Play one game of a duel in this process: (spec A, spec B, rules,
    deal seed, rotation, options), through the arena's referee (``options``:
    :func:`duel_settings`'s).

    Returns (A's card margin, A's game points, B's ...) as two two-item lists:
    ``[margin_a, margin_b], [game_a, game_b]``. A bot's fault stops the
    game with a one-line :class:`bots.BotError`.
    """
    spec_a, spec_b, rules, seed, rotation, opts = job
    item = _duel_item(Entrant(spec_a, spec_a), Entrant(spec_b, spec_b), rules.players, seed, rotation)
    try:
        res = play_job(item.job, item.entrants, duel_settings(rules, opts).check())
    except IllegalActionError as exc:               # the deal itself cannot go on
        raise IllegalActionError(f"deal seed {seed}, rotation {rotation}: {exc}") from None
    except ArenaError as exc:
        raise BotError(str(exc)) from None
    return _scored(item, res)


def mean_interval(xs: Sequence[float]) -> dict[str, float]:
    """Mean with a 95 % normal interval (``lo``, ``hi``)."""
    n = len(xs)
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    half = 1.96 * math.sqrt(var / n) if n > 1 else float("inf")
    return {"mean": mean, "lo": mean - half, "hi": mean + half}


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
             secret: Optional[str] = None, trusted: str = TableSettings.trusted, time_limit: float = Limits.move,
             overage: float = Limits.overage, cheating: bool = TableSettings.cheating,
             cluster: str = "", logs: str | Path | None = None) -> dict[str, Any]:
    """Play ``deals`` duplicate deal pairs; return means and intervals.

    ``spec_a`` and ``spec_b``: each ``SPEC`` or ``NAME=SPEC``
    (:func:`duel_entrants`). The result's ``a`` and ``b`` give each bot's
    ``name`` (its label) and ``bot`` (its canonical spec), then its own
    figures (those of the sides its seats ended on, see the module); its
    ``difference`` is A's minus B's per deal seed, on the same cards.

    ``save``: a JSON-lines file that keeps every game as it ends. Running the
    same duel with the same file again plays only the games it lacks, so an
    interrupted duel resumes, and a larger ``deals`` extends a finished one;
    the figures are the same as those of one uninterrupted run. The result's
    ``resumed`` counts the games taken from the file.

    ``secret`` keys the bots' random seeds (kept in the save file; a fresh
    random one when neither gives it); ``trusted``, ``time_limit``,
    ``overage`` and ``cheating`` are the arena's (see
    :class:`arena.tournament.spec.TournamentSpec`). ``cluster``: a Dask
    scheduler (``tcp://HOST:PORT``) or ``"local"`` plays the games instead
    of ``workers`` local processes.

    ``logs``: a folder for what sandboxed bots write to stderr, per side and
    seat, each file capped at the limits' ``log_bytes`` (as ``arena run``);
    made only when a bot writes. The result's ``logs`` is that folder if it
    exists after the duel, else None. A game's output is kept before a fault
    in it stops the duel.
    """
    named = duel_entrants(spec_a, spec_b)
    secret = secret if secret is not None else (_saved_secret(save) or os.urandom(16).hex())
    try:
        probe = spec_from_options([f"{side}={e.spec}" for side, e in zip("ab", named)], preset=rules.name,
                                  players=rules.players, trusted=trusted, time_limit=float(time_limit),
                                  overage=float(overage), cheating=cheating)
    except ArenaError as exc:
        raise BotError(str(exc)) from None
    spec_a, spec_b = probe.entrants[0].spec, probe.entrants[1].spec
    name_a, name_b = named[0].name, named[1].name
    a, b = Entrant(name_a, spec_a), Entrant(name_b, spec_b)
    settings = duel_settings(rules, {"secret": secret.encode(), "trusted": trusted, "time_limit": float(time_limit),
                                     "overage": float(overage), "cheating": cheating}).check()
    jobs = [(seed * 100_003 + d, rot) for d in range(deals) for rot in (0, 1)]
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
    resumed = sum(1 for j in jobs if j in done)
    todo = [_duel_item(a, b, rules.players, s, rot) for s, rot in jobs if (s, rot) not in done]
    results = dict(done)
    kept = None
    if logs is not None:
        from .runner import BotLogs

        kept = BotLogs(str(logs), duel_log_names(name_a, name_b), settings.limits.log_bytes)

    def keep(item: tuple[int, int, tuple[list, list]]) -> None:
        s, rot, res = item
        results[(s, rot)] = res
        if out is not None:
            out.write(json.dumps({"seed": s, "rotation": rot, "margins": res[0], "games": res[1]}) + "\n")
            out.flush()

    def scored(outs: Iterable[Outcome]) -> Iterator[tuple[int, int, tuple[list, list]]]:
        for o in outs:
            if kept is not None and not isinstance(o, Failed):
                kept.keep(o.result)
            if isinstance(o, Failed):
                raise _failed(o.item, o.reason)
            yield o.item.tag[0], o.item.tag[1], _scored(o.item, o.result)

    try:
        with executor_for(settings, workers if workers > 1 and len(todo) > 1 else 1, cluster, pin=False) as ex:
            _progress(scored(play_jobs(todo, settings, ex)), len(jobs), resumed, progress, keep)
    finally:
        if out is not None:
            out.close()
    per_seed: dict[int, list] = {}
    for s, rot in jobs:
        per_seed.setdefault(s, []).append(results[(s, rot)])
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
        "logs": str(logs) if logs is not None and os.path.isdir(logs) else None,
        "a": {"name": name_a, "bot": spec_a, "card_margin": mean_interval(margin_a),
              "game_points": mean_interval(game_a)},
        "b": {"name": name_b, "bot": spec_b, "card_margin": mean_interval(margin_b),
              "game_points": mean_interval(game_b)},
        "difference": {"card_margin": mean_interval(diff_m), "game_points": mean_interval(diff_g)},
        "deals_won": {"first": sum(1 for x in diff_m if x > 0), "second": sum(1 for x in diff_m if x < 0),
                      "even": sum(1 for x in diff_m if x == 0)},
    }


def _progress(it: Iterable, total: int, initial: int, show: bool, keep: Callable[[Any], None]) -> None:
    if show:
        from tqdm import tqdm

        it = tqdm(it, total=total, initial=initial, desc="games", unit="game")
    for item in it:
        keep(item)
