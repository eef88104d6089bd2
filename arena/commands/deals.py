"""``pengyou play | replay | view``: the account of a deal or match, from a
fresh game between random players or from a record (replayed and checked),
and the record as a page to step through in a browser."""

from __future__ import annotations

import argparse
from typing import Any

from core.errors import PengyouError

from .common import UsageError, add_rules_args, build_rules

__all__ = ["add_parsers", "run"]


def add_parsers(sub: Any) -> None:
    """Add ``play``, ``replay`` and ``view`` to the subcommands ``sub``."""
    p = sub.add_parser("play", help="play a seeded deal (or match) between random players and tell it")
    add_rules_args(p, trump=False)
    p.add_argument("--seed", type=int, default=1, help="deal (or match) seed; also seeds the players")
    p.add_argument("--match", action="store_true", help="play a whole match instead of one deal")
    p.add_argument("--max-deals", type=int, default=None, help="stop a match after this many deals")
    p.add_argument("--record", default=None, metavar="FILE", help="write the record (JSON lines) here")

    p = sub.add_parser("replay", help="replay a recorded deal or match (checking it) and tell it")
    p.add_argument("file")
    p.add_argument("--hands", action="store_true",
                   help="show every seat's hand after the draw and the buried cards")

    p = sub.add_parser("view", help="a recorded deal or match as a page to step through in a browser")
    p.add_argument("file")
    p.add_argument("-o", "--out", default=None, help="the page to write (default: FILE with .html)")
    p.add_argument("--open", action="store_true", help="open the page in the web browser too")


def run(args: argparse.Namespace) -> int:
    """Run ``play``, ``replay`` or ``view``; the exit status."""
    import random

    from core import records as rec
    from core.account import account
    from core.errors import InvalidActionError

    if args.command == "view":
        return view_file(args.file, args.out, args.open)
    if args.command == "replay":
        try:
            lines = account(rec.read_records(args.file), hands=args.hands)
        except PengyouError as exc:
            msg = str(exc)
            raise InvalidActionError(f"{args.file}: {msg}" if msg.startswith("line ") else msg) from None
        print("\n".join(lines))
        return 0
    from core.match import play_random_match
    from core.levels import start_levels
    from core.state import State

    rules = build_rules(args.preset, args.players, args.set)
    if args.max_deals is not None:
        if not args.match:
            raise UsageError("--max-deals: only with --match")
        if args.max_deals < 1:
            raise UsageError(f"--max-deals: {args.max_deals} is not at least 1")
    rng = random.Random(args.seed)
    if args.match:
        records = rec.match_record(play_random_match(rules, args.seed, rng, args.max_deals))
    else:
        state = State(rules, seed=args.seed)
        levels = start_levels(rules)
        while not state.is_terminal():
            state.apply(state.random_legal_action(rng))
        records = rec.deal_record(state, levels)
    lines = account(records)
    if args.record is not None:
        rec.write_records(records, args.record)
    print("\n".join(lines))
    return 0


def view_file(path: str, out: str | None, open_it: bool, title: str | None = None) -> int:
    """``pengyou view``: write the viewer's page of the record at ``path``."""
    import os

    from core import records as rec
    from core.errors import InvalidActionError

    from ..viewer import write_page

    target = out or (os.path.splitext(path)[0] + ".html")
    if os.path.abspath(target) == os.path.abspath(path):
        raise UsageError(f"--out {target}: that is the record itself")
    try:
        records = rec.read_records(path)
        write_page(records, title or os.path.basename(path), target)
    except PengyouError as exc:
        msg = str(exc)
        raise InvalidActionError(f"{path}: {msg}" if msg.startswith("line ") else msg) from None
    print(f"wrote {target}")
    if open_it:
        open_page(target)
    return 0


def open_page(path: str) -> None:
    """Open a page in the web browser, or say where it is when there is none."""
    import pathlib
    import webbrowser

    url = pathlib.Path(path).resolve().as_uri()
    if not webbrowser.open(url):
        print(f"no web browser found here: open {url} yourself")
