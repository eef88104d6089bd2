"""``pengyou seeds generate | verify``: make or check deal-seed suites (the
suites are :mod:`arena.tournament.suites`').

``pengyou seeds generate NAME --count N --master M [--out PATH] [--force]``
writes a new suite; ``pengyou seeds verify NAME_OR_PATH...`` checks suites and
prints each one's name, count and checksum.

This group's parsers raise their mistakes (see :class:`.common.OneLineParser`),
so they read as they did when ``seeds`` had a parser of its own:
``pengyou: error: pengyou seeds generate: argument --count: ...``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .common import OneLineParser

__all__ = ["add_parsers", "run"]


def _suites_dir() -> Path:
    """The folder of the shipped suites, :data:`arena.tournament.suites.SEEDS_DIR`, found without
    importing the suite library, which every ``pengyou`` command would then load.

    >>> from arena.tournament.suites import SEEDS_DIR
    >>> _suites_dir() == SEEDS_DIR
    True
    """
    import seeds

    return Path(seeds.__file__).resolve().parent


def add_parsers(sub: Any) -> None:
    """Add ``seeds`` and its subcommands to the subcommands ``sub``."""
    p = sub.add_parser("seeds", help="generate or verify deal-seed suites",
                       description="generate or verify deal-seed suites", raise_errors=True)
    actions = p.add_subparsers(dest="action", required=True, parser_class=OneLineParser)
    g = actions.add_parser("generate", help=f"write a new suite (default: {_suites_dir()}/NAME.seeds)",
                           raise_errors=True)
    g.add_argument("name")
    g.add_argument("--count", type=int, required=True, help="number of seeds")
    g.add_argument("--master", required=True, help="master text the seeds are derived from")
    g.add_argument("--out", default=None, help="file to write (default: seeds/NAME.seeds)")
    g.add_argument("--force", action="store_true", help="replace an existing file")
    v = actions.add_parser("verify", help="check suites and print name, count and checksum", raise_errors=True)
    v.add_argument("suites", nargs="+", metavar="NAME_OR_PATH")


def run(args: argparse.Namespace) -> int:
    """Write the suite ``generate`` asks for, or check each suite ``verify`` names; the exit status."""
    from ..tournament.suites import generate_suite, load_suite, suite_file, write_suite

    if args.action == "generate":
        suite = generate_suite(args.name, args.count, args.master)
        out = args.out if args.out is not None else str(suite_file(args.name))
        suite = write_suite(suite, out, overwrite=args.force)
        print(f"wrote {suite.path}: suite {suite.name}, {len(suite.seeds)} seeds, sha256 {suite.sha256}")
        return 0
    for item in args.suites:
        suite = load_suite(item)
        print(f"{suite.name}: {len(suite.seeds)} seeds, sha256 {suite.sha256}, ok ({suite.path})")
    return 0
