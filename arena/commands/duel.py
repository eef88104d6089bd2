"""``pengyou duel A B``: two bots on duplicate deals, margins with 95% intervals
(the games are :func:`arena.tournament.duel.run_duel`'s).

Each bot is ``SPEC`` or ``NAME=SPEC`` as in ``arena run --bots``; the name
labels it in the table, ``--json`` and its logs. The table puts the
difference first and says what each row is; a long name is cut in the
table only, so its columns stay put.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
import time
import unicodedata
from typing import Any

from .common import UsageError, add_rules_args, build_rules
from ..render.numbers import signed

__all__ = ["add_parsers", "run", "table_lines", "cell", "LABEL_WIDTH"]

#: The most columns a bot's name takes in the printed table (a longer one is
#: cut in its middle, so both its start and its end show; ``--json`` keeps it whole).
LABEL_WIDTH = 40


def add_parsers(sub: Any) -> None:
    """Add ``duel`` to the subcommands ``sub``."""
    p = sub.add_parser("duel", help="two bots on duplicate deals: margins with 95%% intervals")
    p.add_argument("a", metavar="A", help="the first bot: SPEC or NAME=SPEC (as arena run --bots), e.g. heuristic, "
                                          "ismcts:iterations=1000 or mine=cmd:/usr/bin/python3 my_bot.py "
                                          "(a program bot names its interpreter by its real path: a "
                                          "shim such as pyenv's does not run in the sandbox)")
    p.add_argument("b", metavar="B", help="the second bot: SPEC or NAME=SPEC")
    p.add_argument("--deals", type=int, default=50, help="deal seeds (each played twice)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--cluster", default="", help="'local' or tcp://HOST:PORT of a Dask scheduler")
    p.add_argument("--json", action="store_true")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (it is shown only when stderr is a terminal)")
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
        bar = not (args.json or args.no_progress) and sys.stderr.isatty()
        res = run_duel(args.a, args.b, rules, args.deals, args.seed, args.workers, progress=bar,
                       save=args.save, secret=args.secret, trusted=args.trusted, time_limit=args.time_limit,
                       overage=args.overage, cheating=args.allow_cheating, cluster=args.cluster, logs=logs)
    except BotError as exc:                         # the bots' own words on what went wrong
        if os.path.isdir(logs):
            raise BotError(f"{exc} (bot logs in {logs})") from None
        raise
    if args.json:
        print(json.dumps(res))
    else:
        print(f"{rules.name}, {rules.players} players, {args.deals} duplicate deals "
              "(each played twice, the bots swapping hands)")
        if res["resumed"]:
            print(f"  {res['resumed']} of {2 * args.deals} games taken from {args.save}")
        for line in table_lines(res):
            print(line)
        print(f"  bot logs in {res['logs']}" if res["logs"] else "  no bot wrote to stderr")
    return 0


def table_lines(res: dict[str, Any]) -> list[str]:
    """The printed table of a duel's result (:func:`~arena.tournament.duel.run_duel`'s):
    a header, the difference, each bot's own figures, then what the rows mean.

    Columns are as wide as their widest cell, names cut to :data:`LABEL_WIDTH`,
    so every row's columns start at the same place whatever the names.

    >>> iv = {"mean": 1.0, "lo": 0.5, "hi": 1.5}
    >>> bot = {"card_margin": iv, "game_points": iv}
    >>> res = {"deals": 2, "a": {"name": "mine", **bot}, "b": {"name": "random", **bot},
    ...        "difference": bot, "deals_won": {"first": 2, "second": 0, "even": 0}}
    >>> for line in table_lines(res)[:5]:
    ...     print(line)
                      bot     card margin              game points
      first - second             +1.00 [+0.50, +1.50]     +1.00 [+0.50, +1.50]
      first           mine       +1.00 [+0.50, +1.50]     +1.00 [+0.50, +1.50]
      second          random     +1.00 [+0.50, +1.50]     +1.00 [+0.50, +1.50]
      deals won: first 2, second 0, even 0 of 2 (the bot whose card margin was the larger on the same cards)
    """
    a, b, d = res["a"], res["b"], res["difference"]
    rows = [("first - second", "", d), ("first", cell(a["name"]), a), ("second", cell(b["name"]), b)]
    w_row = max(_width(r[0]) for r in rows)
    w_bot = max([_width("bot")] + [_width(r[1]) for r in rows])
    w_card = max([_width("card margin")] + [_width(_iv(r[2]["card_margin"])) for r in rows])

    def line(row: str, bot: str, card: str, game: str) -> str:
        return f"  {_pad(row, w_row)}  {_pad(bot, w_bot)}  {_pad(card, w_card)}  {game}"

    out = [line("", "bot", "card margin", "game points")]
    out += [line(row, bot, _iv(r["card_margin"]), _iv(r["game_points"])) for row, bot, r in rows]
    notes = (f"first - second: the first bot's result minus the second's, deal by deal, on the same cards "
             f"(each bot held each hand once); the mean over {res['deals']} deals, with its 95 % interval.",
             "first, second: each bot's own mean, that of the side each of its seats ended on (card margin: that "
             "side's card points minus the other side's; game points: plus for a win), with its 95 % interval; "
             "both bots sit on both sides, so it is not a margin against the other bot.")
    won = res.get("deals_won")
    if won:
        n = won["first"] + won["second"] + won["even"]
        out.append(f"  deals won: first {won['first']}, second {won['second']}, even {won['even']} of {n} "
                   f"(the bot whose card margin was the larger on the same cards)")
    for note in notes:
        out += textwrap.wrap(note, 100, initial_indent="  ", subsequent_indent="    ")
    return out


def cell(text: str, width: int = LABEL_WIDTH) -> str:
    """``text`` as one cell of the table: on one line (white space as single
    spaces, other unprintable characters as ``?``) and at most ``width``
    columns wide (a character of East Asian width takes two), a longer text
    keeping its start and its end around ``...``.

    >>> cell("cmd:/usr/bin/python3 /home/me/long/path/to/the/bots/my_bot.py --flag")
    'cmd:/usr/bin...the/bots/my_bot.py --flag'
    >>> cell("two  words"), cell("short", 4)
    ('two words', '...t')
    """
    flat = "".join(c if c.isprintable() else "?" for c in " ".join(text.split()))
    if _width(flat) <= width:
        return flat
    if width <= 3:
        return "." * max(width, 0)
    room = width - 3
    head = _cut(flat, room // 3)
    tail = _cut(flat[::-1], room - _width(head))[::-1]
    return head + "..." + tail


def _width(text: str) -> int:
    """The columns ``text`` takes in a terminal: two for a wide (East Asian)
    character, none for a combining one, else one."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in text)


def _cut(text: str, width: int) -> str:
    """The longest start of ``text`` at most ``width`` columns wide."""
    out, used = [], 0
    for c in text:
        w = _width(c)
        if used + w > width:
            break
        out.append(c)
        used += w
    return "".join(out)


def _pad(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` columns."""
    return text + " " * max(width - _width(text), 0)


def _iv(x: dict) -> str:
    """A mean and its interval, signed: ``   +1.25 [-0.50, +3.00]``.

    >>> _iv({"mean": 1.25, "lo": -0.5, "hi": 3.0})
    '   +1.25 [-0.50, +3.00]'
    """
    return f"{signed(x['mean'], 2, 8)} [{signed(x['lo'], 2)}, {signed(x['hi'], 2)}]"
