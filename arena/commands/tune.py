"""``pengyou tune``: SPSA over a bot's numeric parameters (:mod:`arena.tournament.tune`), then an SPRT of
the tuned values against the start values on fresh deals.

``pengyou tune ismcts:iterations=1000 --param c=0.7,0.1,2.5,0.15,0.002
--param widen_c=2,0.5,6,0.4,0.002 --iterations 2000 --workers 2``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from .common import parse_settings

__all__ = ["add_parsers", "run", "tune_spec_from_args"]


def add_parsers(sub: Any) -> None:
    """Add ``tune`` to the subcommands ``sub``."""
    p = sub.add_parser("tune", help="tune a bot's numeric parameters by SPSA, then test the result (SPRT)")
    p.add_argument("bot", help="the bot spec whose parameters are tuned (others as given), e.g. ismcts:iterations=1000")
    p.add_argument("--param", action="append", default=[], metavar="NAME=start,min,max,c_end,r_end",
                   help="a parameter to tune: its start, bounds, and its perturbation and learning rate at the end")
    p.add_argument("--iterations", type=int, default=None, help="SPSA iterations (each one duplicate deal group)")
    p.add_argument("--against", default="", help="play both points against this bot instead of each other")
    p.add_argument("--batch", type=int, default=0, help="iterations played at one theta (default: two a worker)")
    p.add_argument("--seed", type=int, default=1, help="seeds the perturbations and roundings")
    p.add_argument("--seeds", default="tune", help="the text the deal seeds are generated from")
    p.add_argument("--db", default="tune.db", help="results database (default: tune.db)")
    p.add_argument("--out", default=None, help="folder for trajectory.{json,csv,png} (default: DB.tune-ID/)")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--cluster", default="", help="'local' or tcp://HOST:PORT of a Dask scheduler")
    p.add_argument("--preset", default="pagat")
    p.add_argument("--players", type=int, default=None,
                   help="table size (default: the preset's, 6 for most; 4 for tractor)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a rule setting")
    p.add_argument("--time-limit", type=float, default=5.0, help="seconds per decision")
    p.add_argument("--overage", type=float, default=30.0)
    p.add_argument("--trusted", default="builtins", choices=("none", "builtins"),
                   help="builtins (the default here, unlike duel, sprt and arena run): the built-in bots play "
                        "inside this process, for the speed thousands of tuning games need, and so does the "
                        "final test; a bot of yours is sandboxed either way; none: every bot sandboxed")
    p.add_argument("--secret", default=None, help="keys the shuffle and the bots' seeds (default: random, kept)")
    p.add_argument("--no-sprt", action="store_true", help="do not test the tuned values at the end")
    p.add_argument("--sprt-elo0", type=float, default=0.0, help="the final test's H0 (Elo, default 0)")
    p.add_argument("--sprt-elo1", type=float, default=10.0, help="the final test's H1 (Elo, default 10)")
    p.add_argument("--sprt-max-deals", type=int, default=2000, help="the final test's deal seeds at most")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (it is shown only when stderr is a terminal)")


def tune_spec_from_args(args: argparse.Namespace) -> Any:
    """The :class:`arena.tournament.tune.TuneSpec` the command line asks for."""
    from bots.base import BotError, describe_bot, parse_spec
    from core.rules import preset_players

    from ..stats.spsa import TuneParam
    from ..tournament.tune import TuneSpec
    from ..types import ArenaError

    if not args.param:
        raise ArenaError("tune: give at least one --param NAME=start,min,max,c_end,r_end")
    if args.iterations is None:
        raise ArenaError("tune: give --iterations N")
    if args.workers < 1:
        raise ArenaError(f"--workers: {args.workers} is not at least 1")
    if args.batch < 0:
        raise ArenaError(f"--batch: {args.batch} is not 0 or more")
    try:
        name = parse_spec(args.bot).name
        _, infos = describe_bot(name)
    except (BotError, ValueError) as exc:
        raise ArenaError(f"bot {args.bot!r}: {' '.join(str(exc).split())}") from None
    known = {i.name: i for i in infos}
    params = []
    for text in args.param:
        pname = str(text).partition("=")[0].strip()
        info = known.get(pname)
        if info is None:
            raise ArenaError(f"--param {pname}: bot {name!r} has no such parameter "
                             f"(its parameters: {', '.join(sorted(known)) or 'none'})")
        if info.type not in ("int", "float"):
            raise ArenaError(f"--param {pname}: it takes {info.type} values; only numbers can be tuned")
        params.append(TuneParam.parse(text, integer=info.type == "int"))
    if args.sprt_max_deals < 1:
        raise ArenaError(f"--sprt-max-deals: {args.sprt_max_deals} is not at least 1")
    spec = TuneSpec(bot=args.bot, params=tuple(params), iterations=args.iterations, seed=args.seed,
                    against=args.against, preset=args.preset,
                    players=preset_players(args.preset) if args.players is None else args.players,
                    settings=tuple(parse_settings(args.set).items()), seeds=args.seeds, batch=args.batch,
                    time_limit=args.time_limit, overage=args.overage, trusted=args.trusted)
    return spec.check()


def run(args: argparse.Namespace) -> int:
    """Run ``pengyou tune``; the exit status."""
    from ..tournament.runner import setup_logging
    from ..store import log_path_for
    from ..tournament.spec import spec_from_options
    from ..tournament.tune import run_tune, write_trajectory
    from ..stats.sprt import Hypotheses
    from ..tournament.sprt import SprtTest, format_state, run_sprt
    from ..types import ArenaError

    spec = tune_spec_from_args(args)
    hyp = Hypotheses(args.sprt_elo0, args.sprt_elo1).check()
    setup_logging(log_path_for(args.db))
    try:
        run = run_tune(spec, args.db, workers=args.workers, cluster=args.cluster,
                       progress=not args.no_progress and sys.stderr.isatty(), secret=args.secret)
    except KeyboardInterrupt:
        raise ArenaError("interrupted; the iterations so far are saved: run the same command to resume") from None
    folder = args.out or f"{os.path.splitext(args.db)[0]}.tune-{run.id}"
    files = write_trajectory(spec, run, folder)
    start = [p.start for p in spec.params]
    tuned = [round(t) if p.integer else t for p, t in zip(spec.params, run.spsa.theta)]
    print(f"tune {run.id}: {run.spsa.done} iterations; " + ", ".join(
        f"{p.name} {s:g} -> {t:.4g}" for p, s, t in zip(spec.params, start, tuned)))
    print(f"trajectory: {', '.join(files)}")
    print(f"tuned bot: {spec.spec_at(tuned)}")
    if args.no_sprt:
        return 0
    a, b = spec.spec_at(tuned), spec.spec_at([round(s) if p.integer else s for p, s in zip(spec.params, start)])
    if a == b:
        print("the tuned values are the start values: no test to run")
        return 0
    test = SprtTest(spec_from_options([f"tuned={a}", f"start={b}"], name=f"tune-{run.id}-sprt",
                                      preset=spec.preset, players=spec.players, settings=spec.settings,
                                      suite=f"gen:{spec.seeds}-final-{run.id}", deals=args.sprt_max_deals,
                                      trusted=spec.trusted, time_limit=spec.time_limit, overage=spec.overage),
                    hyp)
    print(f"SPRT tuned against start on fresh deals ({test.spec.suite}):", flush=True)
    state = run_sprt(test, args.db, workers=args.workers, cluster=args.cluster or None,
                     report=lambda st: print(format_state(st), flush=True), secret=args.secret)
    with open(os.path.join(folder, "sprt.json"), "w") as fh:
        json.dump(state.to_json(), fh)
    return 0
