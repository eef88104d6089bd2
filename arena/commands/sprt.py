"""``pengyou sprt``: a sequential test of bot A against bot B (the test is :mod:`arena.tournament.sprt`'s).

``pengyou sprt A B --elo0 0 --elo1 20``, or ``pengyou sprt TEST.toml`` where
the file is an arena spec with two entrants and an ``[sprt]`` table
(``elo0``, ``elo1``, ``alpha``, ``beta``, ``max_deals``, ``batch``, ``seeds``). Options given on
the command line win over the file.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
from typing import TYPE_CHECKING, Any

from .common import parse_settings

if TYPE_CHECKING:
    from ..stats.sprt import SprtState
    from ..tournament.sprt import SprtTest

__all__ = ["add_parsers", "run", "sprt_from_args"]

#: Keys of a test file's ``[sprt]`` table.
SPRT_KEYS = ("elo0", "elo1", "alpha", "beta", "max_deals", "batch", "seeds")


def add_parsers(sub: Any) -> None:
    """Add ``sprt`` to the subcommands ``sub``."""
    p = sub.add_parser("sprt", help="a sequential test of bot A against bot B on duplicate deals (SPRT)")
    p.add_argument("what", nargs="+", metavar="A B | TEST.toml",
                   help="two bot specs, or a test file (an arena spec with two entrants and an [sprt] table)")
    p.add_argument("--elo0", type=float, default=None, help="H0: A is this many Elo better (default 0)")
    p.add_argument("--elo1", type=float, default=None, help="H1: A is this many Elo better (default 20)")
    p.add_argument("--alpha", type=float, default=None, help="chance of accepting H1 when H0 holds (0.05)")
    p.add_argument("--beta", type=float, default=None, help="chance of accepting H0 when H1 holds (0.05)")
    p.add_argument("--max-deals", type=int, default=None,
                   help="deal seeds at most (each played by both bots in every seat); default 5000")
    p.add_argument("--batch", type=int, default=None, help="deal seeds between two looks (default: 4 a worker)")
    p.add_argument("--seeds", default=None, help="the text the deal seeds are generated from (default: sprt)")
    p.add_argument("--db", default="sprt.db", help="results database (default: sprt.db)")
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--cluster", default=None, help="'local' or tcp://HOST:PORT of a Dask scheduler")
    p.add_argument("--preset", default=None)
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a rule setting")
    p.add_argument("--time-limit", type=float, default=None, help="seconds per decision (default 5)")
    p.add_argument("--overage", type=float, default=None)
    p.add_argument("--trusted", default=None, choices=("none", "builtins"),
                   help="builtins: the built-in bots play inside this process (default: the test file's "
                        "setting, else every bot sandboxed)")
    p.add_argument("--secret", default=None, help="keys the deals and bots' seeds (default: random, kept)")
    p.add_argument("--json", action="store_true", help="print the final state as JSON only")


def _number(where: str, key: str, value: Any) -> float:
    from ..types import ArenaError

    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise ArenaError(f"{where}{key}: {value!r} is not a number")
    return float(value)


def sprt_from_args(args: argparse.Namespace) -> tuple[SprtTest, str]:
    """The test the command line asks for, and the text its seeds come from."""
    from core.rules import preset_players

    from ..tournament.spec import read_toml, spec_from_data, spec_from_options
    from ..stats.sprt import Hypotheses
    from ..tournament.sprt import SprtTest
    from ..types import ArenaError

    table: dict[str, Any] = {}
    overrides: dict[str, Any] = {}
    for field, value in (("preset", args.preset), ("players", args.players), ("time_limit", args.time_limit),
                         ("overage", args.overage), ("trusted", args.trusted), ("workers", args.workers)):
        if value is not None:
            overrides[field] = value
    if args.preset is not None and args.players is None:
        overrides["players"] = preset_players(args.preset)
    if args.set:
        overrides["settings"] = tuple(parse_settings(args.set).items())
    if len(args.what) == 1:
        path = args.what[0]
        if not path.endswith(".toml"):
            raise ArenaError(f"sprt: give two bot specs, or a test file ending in .toml (got {path!r})")
        data = read_toml(path)
        where = f"{path}: "
        table = data.pop("sprt", {})
        if not isinstance(table, dict):
            raise ArenaError(f"{where}[sprt] must be a table")
        bad = sorted(set(table) - set(SPRT_KEYS))
        if bad:
            raise ArenaError(f"{where}[sprt]: unknown key(s) {', '.join(bad)} (known: {', '.join(SPRT_KEYS)})")
        for key in ("suite", "deals", "lineups", "rotations", "mode"):
            if key in data:
                raise ArenaError(f"{where}{key}: a test chooses its own deals; use [sprt] max_deals and seeds")
        data.setdefault("name", "sprt")
        data["suite"], data["deals"] = "gen:sprt", 1
        spec = spec_from_data(data, where)
        if len(spec.entrants) != 2:
            raise ArenaError(f"{where}a test needs exactly two entrants, not {len(spec.entrants)}")
    elif len(args.what) == 2:
        where = ""
        a, b = args.what
        bots = [a, b] if a != b else [f"A={a}", f"B={b}"]
        spec = spec_from_options(bots, name="sprt", suite="gen:sprt", deals=1)
    else:
        raise ArenaError(f"sprt: give two bot specs (A and B) or one test file, not {len(args.what)} words")

    def pick(name: str, default: Any) -> Any:
        given = getattr(args, name)
        if given is not None:
            return given
        return table.get(name, default)

    hyp = Hypotheses(_number(where, "elo0", pick("elo0", 0.0)), _number(where, "elo1", pick("elo1", 20.0)),
                     _number(where, "alpha", pick("alpha", 0.05)), _number(where, "beta", pick("beta", 0.05))).check()
    max_deals = pick("max_deals", 5000)
    batch = pick("batch", 0)
    seeds = pick("seeds", "sprt")
    for key, value in (("max_deals", max_deals), ("batch", batch)):
        if not isinstance(value, int) or isinstance(value, bool) or value < (1 if key == "max_deals" else 0):
            raise ArenaError(f"{where}--{key.replace('_', '-')}: {value!r} is not a whole number "
                             f"{'of at least 1' if key == 'max_deals' else '(0: a few per worker)'}")
    if not isinstance(seeds, str) or not seeds.strip():
        raise ArenaError(f"{where}--seeds: give a text to generate the deal seeds from")
    spec = dataclasses.replace(spec, suite=f"gen:{seeds}", deals=max_deals, lineups="pairs", **overrides)
    spec.validate()
    return SprtTest(spec, hyp, batch), seeds


def run(args: argparse.Namespace) -> int:
    """Run ``pengyou sprt``; the exit status. The test's id (its run's, which
    ``pengyou report --sprt`` takes) is printed first and with the verdict,
    and is the ``id`` of the ``--json`` state."""
    from ..tournament.sprt import describe, format_state, run_sprt
    from ..types import ArenaError

    test, _ = sprt_from_args(args)
    if args.workers is not None and args.workers < 1:
        raise ArenaError(f"--workers: {args.workers} is not at least 1")
    from ..tournament.runner import setup_logging
    from ..store import log_path_for

    setup_logging(log_path_for(args.db))
    a, b = test.spec.entrants
    ids: list[int] = []

    def started(run_id: int) -> None:
        ids.append(run_id)
        if not args.json:
            print(f"sprt test {run_id} in {args.db}: {a.name} (A) against {b.name} (B): {test.spec.preset}, "
                  f"{test.spec.players} players, up to {test.spec.deals} deal seeds from {test.spec.suite!r}; "
                  f"{describe(test.hypotheses)}", flush=True)

    def report(state: SprtState) -> None:
        if not args.json:
            print(format_state(state, ids[0] if ids else None), flush=True)

    try:
        state = run_sprt(test, args.db, workers=args.workers, cluster=args.cluster, report=report,
                         secret=args.secret, started=started)
    except KeyboardInterrupt:
        kept = f" (sprt test {ids[0]} in {args.db})" if ids else ""
        raise ArenaError(f"interrupted; the results so far are saved{kept}: run the same command to resume") from None
    if args.json:
        print(json.dumps({"id": ids[0] if ids else None, **state.to_json()}))
    elif ids:
        where = "" if args.db == "sprt.db" else f" --db {shlex.quote(args.db)}"
        print(f"the report: pengyou report --sprt {ids[0]}{where}")
    return 0
