"""The ``pengyou`` command line (also ``python -m arena``): one argparse tree.

Each command group is a module that adds its subcommands (``add_parsers(sub)``)
and runs them (``run(args) -> int``); :func:`main` builds the tree from every
group, in the order of :data:`GROUPS`, and dispatches to the group that owns
the command. Group modules import what their commands need when they run, so
that ``pengyou --help`` loads little.

Every user mistake ends with one line on stderr and exit status 2, never a
traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from core.errors import PengyouError

from . import bench, bots, deals, duel, ladder, report, rules, seeds, sprt, tournament, tune
from .common import OneLineParser

__all__ = ["GROUPS", "main"]

#: The command groups, in the order ``pengyou --help`` lists their commands.
GROUPS = (bots, bench, duel, sprt, tune, rules, deals, tournament, ladder, report, seeds)


def _tree() -> tuple[argparse.ArgumentParser, dict[str, Callable[[argparse.Namespace], int]]]:
    """The parser of every command, and the ``run`` of the group owning each command."""
    ap = OneLineParser(prog="pengyou", description="Zhao Pengyou rules engine, bots and arena")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    owners: dict[str, Callable[[argparse.Namespace], int]] = {}
    for group in GROUPS:
        before = set(sub.choices)
        group.add_parsers(sub)
        owners.update((name, group.run) for name in sub.choices if name not in before)
    return ap, owners


_MAIN_PID = [0]


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM ends a command as Ctrl-C does: what is stored stays, workers
    stop (a forked child that inherited the handler just ends, as by default)."""
    import os
    import signal

    if os.getpid() != _MAIN_PID[0]:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pengyou`` command; the exit status."""
    ap, owners = _tree()
    try:
        args = ap.parse_args(argv)
    except PengyouError as exc:       # the mistakes of a group whose parsers raise them (seeds)
        print(f"pengyou: error: {exc}", file=sys.stderr)
        return 2
    import signal

    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        import os

        _MAIN_PID[0] = os.getpid()
        signal.signal(signal.SIGTERM, _terminated)
    try:
        return owners[args.command](args)
    except PengyouError as exc:
        print(f"pengyou: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("pengyou: interrupted", file=sys.stderr)
        return 130
    except ValueError as exc:         # a number too long to read, wherever it was written
        if "integer string conversion" not in str(exc):
            raise
        print("pengyou: error: the input holds a number of more than 4300 digits, which is no seed, "
              "count or setting", file=sys.stderr)
        return 2
    except BrokenPipeError:           # output piped into something that stopped reading
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
