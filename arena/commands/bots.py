"""``pengyou bots [NAME]``: the registered bots, or one bot's parameters."""

from __future__ import annotations

import argparse
import json
from typing import Any

__all__ = ["add_parsers", "run"]


def add_parsers(sub: Any) -> None:
    """Add ``bots`` to the subcommands ``sub``."""
    p = sub.add_parser("bots", help="the registered bots; with a name, its parameters and tuning spans")
    p.add_argument("name", nargs="?", help="a bot name (or path/to/bot.py:Class)")
    p.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    """Print the registry (without a name) or one bot's summary and parameters; the exit status."""
    import dataclasses

    from bots.base import describe_bot, registry

    name, as_json = args.name, args.json
    if name is None:
        rows = [(n, describe_bot(n)[0]) for n in sorted(registry()) if ".py:" not in n]
        if as_json:
            print(json.dumps([{"name": n, "summary": s} for n, s in rows]))
        else:
            width = max(len(n) for n, _ in rows)
            for n, summary in rows:
                print(f"{n:{width}s}  {summary}")
        return 0
    summary, params = describe_bot(name)
    if as_json:
        print(json.dumps({"name": name, "summary": summary,
                          "params": [dataclasses.asdict(p) for p in params]}, default=repr))
        return 0
    print(f"{name}: {summary}")
    if not params:
        print("no parameters")
        return 0
    for p in params:
        span = (f"  tune {p.low:g}..{p.high:g}" if p.low is not None and p.high is not None
                else f"  one of {', '.join(p.choices)}" if p.choices else "")
        print(f"  {p.name} ({p.type or '?'}, default {p.default!r}){span}")
        if p.doc:
            print(f"      {p.doc}")
    return 0
