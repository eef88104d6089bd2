"""``pengyou seeds ...``: the deal-seed suite commands, handed to the suite
library's own parser (:func:`arena.seeds.main`)."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_parsers", "run"]


def add_parsers(sub: Any) -> None:
    """Add ``seeds`` to the subcommands ``sub``."""
    p = sub.add_parser("seeds", help="generate or verify deal-seed suites")
    p.add_argument("args", nargs=argparse.REMAINDER, help="generate NAME --count N --master M | verify NAME")


def run(args: argparse.Namespace) -> int:
    """Run ``pengyou seeds ...``; the exit status."""
    from ..seeds import main as seeds_main

    return seeds_main(args.args)
