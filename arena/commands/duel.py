"""``pengyou duel A B``: two bots on duplicate deals, margins with 95% intervals
(the games are :func:`arena.tournament.duel.run_duel`'s)."""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

from .common import UsageError, add_rules_args, build_rules

__all__ = ["add_parsers", "run"]


def add_parsers(sub: Any) -> None:
    """Add ``duel`` to the subcommands ``sub``."""
    p = sub.add_parser("duel", help="two bots on duplicate deals: margins with 95%% intervals")
    p.add_argument("a", help="bot spec, e.g. heuristic or ismcts:iterations=1000")
    p.add_argument("b", help="bot spec")
    p.add_argument("--deals", type=int, default=50, help="deal seeds (each played twice)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--cluster", default="", help="'local' or tcp://HOST:PORT of a Dask scheduler")
    p.add_argument("--json", action="store_true")
    p.add_argument("--time-limit", type=float, default=5.0, help="seconds per decision (0 = none)")
    p.add_argument("--overage", type=float, default=30.0, help="seconds banked per deal for slow decisions")
    p.add_argument("--trusted", default="none", choices=("none", "builtins"),
                   help="builtins: run the built-in bots inside this process (default: every bot sandboxed)")
    p.add_argument("--allow-cheating", action="store_true", help="allow the oracle bot, which sees every hand")
    p.add_argument("--secret", default=None, help="keys the bots' random seeds (default: random, kept with --save)")
    p.add_argument("--save", metavar="FILE", default=None,
                   help="keep every game in FILE (JSON lines) as it ends; the same duel with the same "
                        "FILE resumes, playing only the games FILE lacks")
    p.add_argument("--logs", metavar="DIR", default=None,
                   help="keep what the bots write to stderr in DIR (per side and seat, capped; default: "
                        "FILE.logs beside --save FILE, else a new folder in duel-logs/)")
    add_rules_args(p, trump=False)


def logs_folder(args: argparse.Namespace) -> str:
    """Where a duel keeps its bots' stderr: ``--logs DIR``; else beside the
    ``--save`` file (``FILE.logs``, so a resumed duel adds to the same logs);
    else a folder of its own in ``duel-logs/`` named by the time it started."""
    if args.logs:
        return str(args.logs)
    if args.save:
        return f"{args.save}.logs"
    return os.path.join("duel-logs", time.strftime("%Y%m%d-%H%M%S") + f"-{os.getpid()}")


def run(args: argparse.Namespace) -> int:
    """Play the duel and print both bots' margins and their difference; the exit status."""
    rules = build_rules(args.preset, args.players, args.set)
    from ..tournament.duel import run_duel

    if args.deals < 1 or args.workers < 1:
        raise UsageError("duel: --deals and --workers must be at least 1")
    from bots import BotError

    logs = logs_folder(args)
    if os.path.exists(logs) and not os.path.isdir(logs):
        raise UsageError(f"duel: --logs {logs}: not a folder")
    try:
        res = run_duel(args.a, args.b, rules, args.deals, args.seed, args.workers, progress=not args.json,
                       save=args.save, secret=args.secret, trusted=args.trusted, time_limit=args.time_limit,
                       overage=args.overage, cheating=args.allow_cheating, cluster=args.cluster, logs=logs)
    except BotError as exc:                         # the bots' own words on what went wrong
        if os.path.isdir(logs):
            raise BotError(f"{exc} (bot logs in {logs})") from None
        raise
    if args.json:
        print(json.dumps(res))
    else:
        print(f"{rules.name}, {rules.players} players, {args.deals} duplicate deals (each played twice)")
        if res["resumed"]:
            print(f"  {res['resumed']} of {2 * args.deals} games taken from {args.save}")
        for side in ("a", "b"):
            r = res[side]
            print(f"  {r['bot']:30s} card margin {_iv(r['card_margin'])}  game points {_iv(r['game_points'])}")
        d = res["difference"]
        print(f"  {'difference (first - second)':30s} card margin {_iv(d['card_margin'])}  "
              f"game points {_iv(d['game_points'])}")
        print(f"  bot logs in {res['logs']}" if res["logs"] else "  no bot wrote to stderr")
    return 0


def _iv(x: dict) -> str:
    """A mean and its interval, signed: ``   +1.25 [-0.50, +3.00]``.

    >>> _iv({"mean": 1.25, "lo": -0.5, "hi": 3.0})
    '   +1.25 [-0.50, +3.00]'
    """
    return f"{x['mean']:+8.2f} [{x['lo']:+.2f}, {x['hi']:+.2f}]"
