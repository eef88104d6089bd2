"""``pengyou bench``: kernel speed against the naive reference (the measurements
are :func:`arena.bench.run_bench`'s)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .common import UsageError

__all__ = ["add_parsers", "run"]


def add_parsers(sub: Any) -> None:
    """Add ``bench`` to the subcommands ``sub``."""
    p = sub.add_parser("bench", help="kernel speed against the naive reference")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--positions", type=int, default=200)
    p.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--search-iterations", type=int, default=100_000,
                   help="iterations of the search whose peak memory is reported")
    p.add_argument("--arena-search-deals", type=int, default=8,
                   help="deal seeds for the sandboxed-against-trusted search bots (two rotations each, "
                        "one seed a round; at least 2, for the ratio's interval)")
    p.add_argument("--arena-search-iterations", type=int, default=1000,
                   help="iterations a decision of that search bot (ismcts)")
    p.add_argument("--arena-deals", type=int, default=300,
                   help="seeds of the bench suite played (twice: two rotations) for the arena figures")


def run(args: argparse.Namespace) -> int:
    """Measure and print the figures (a table, or one JSON object); the exit status."""
    from ..bench import run_bench

    if args.positions < 1 or args.seconds <= 0 or args.search_iterations < 1:
        raise UsageError("bench: --positions and --search-iterations must be at least 1, --seconds positive")
    if args.arena_deals < 1 or args.arena_search_iterations < 1:
        raise UsageError("bench: --arena-deals and --arena-search-iterations must be at least 1")
    if args.arena_search_deals < 2:
        raise UsageError("bench: --arena-search-deals must be at least 2 (the rounds of the ratio's interval)")
    res = run_bench(positions=args.positions, seed=args.seed, min_time=args.seconds,
                    search_iterations=args.search_iterations, arena_deals=args.arena_deals,
                    arena_search_deals=args.arena_search_deals,
                    arena_search_iterations=args.arena_search_iterations)
    if args.json:
        print(json.dumps(res))
    else:
        print(f"{'measure':24s} {'core':>12s} {'reference':>12s} {'ratio':>8s}")
        for k in res["core"]:
            print(f"{k:24s} {res['core'][k]:12.0f} {res['reference'][k]:12.1f} {res['ratio'][k]:8.1f}")
        for k, v in list(res["search"].items()) + list(res["arena"].items()) + list(res["adapters"].items()):
            print(f"{k:24s} {v:12.3f}" if abs(v) < 10 else f"{k:24s} {v:12.1f}")   # ratios: 3 decimals
    return 0
