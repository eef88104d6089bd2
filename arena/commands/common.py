"""What several command groups share: option readers, the rules options and the parser class.

Every reader raises :class:`UsageError` with a one-line message;
:func:`arena.commands.main` prints it as ``pengyou: error: ...`` and exits 2.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

from core.cards import RANK_NAMES, SUIT_LETTERS, Trump
from core.errors import PengyouError
from core.options import NotAssignmentError, parse_assignments
from core.rules import PRESETS, Rules

__all__ = ["UsageError", "OneLineParser", "parse_trump", "build_rules", "parse_settings", "add_rules_args"]


class UsageError(PengyouError):
    """A command-line option is malformed."""


class OneLineParser(argparse.ArgumentParser):
    """Usage mistakes end in one line (and a pointer to --help), not a usage block.

    A parser made with ``raise_errors=True`` raises its mistakes instead, as
    ``UsageError("PROG: message")``, which :func:`arena.commands.main` prints as
    any error (``pengyou: error: PROG: message``); when it has subcommands, the
    words they leave over are its mistake too, not the top-level parser's. The
    ``seeds`` group's parsers work so: their messages are those of the parser
    the group once had of its own.
    """

    def __init__(self, *args: Any, raise_errors: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.raise_errors = raise_errors

    def error(self, message: str) -> NoReturn:
        """End with one line on stderr and exit status 2 (or raise, with ``raise_errors``)."""
        if self.raise_errors:
            raise UsageError(f"{self.prog}: {message}")
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def parse_known_args(self, args: Iterable[str] | None = None,
                         namespace: Any = None) -> tuple[Any, list[str]]:
        """As :meth:`argparse.ArgumentParser.parse_known_args`; a raising parser with
        subcommands takes the words they leave over as its own mistake."""
        parsed, extras = super().parse_known_args(args, namespace)
        if extras and self.raise_errors and self._subparsers is not None:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


def parse_trump(text: str) -> Trump:
    """Read ``--trump``: a rank then an optional suit (``5H``, ``10S``, ``QD``,
    ``7`` for no trump suit) or ``jokers`` for a jokers-only level.

    >>> parse_trump("10h"), parse_trump("7"), parse_trump("jokers")
    (Trump(rank=10, suit=2), Trump(rank=7, suit=None), Trump(rank=None, suit=None))
    """
    t = text.strip().upper()
    if t in ("JOKERS", "NONE", "NT"):
        return Trump(None, None)
    ranks = {v: k for k, v in RANK_NAMES.items()} | {"T": 10}
    suit = None
    if t and t[-1] in SUIT_LETTERS:
        suit = SUIT_LETTERS.index(t[-1])
        t = t[:-1]
    if t not in ranks:
        raise UsageError(f"--trump: {text!r} is not a rank with an optional suit (e.g. 5H, 10S, 7) or 'jokers'")
    return Trump(ranks[t], suit)


def build_rules(preset: str, players: int | None, settings: Sequence[str]) -> Rules:
    """A :class:`Rules` from a preset name, a player count and ``key=value`` overrides."""
    return Rules.preset(preset, players=players, **parse_settings(settings))


def parse_settings(settings: Sequence[str]) -> dict[str, Any]:
    """``--set key=value`` items as a dict of rule overrides (values read by
    :func:`core.options.parse_value`).

    >>> parse_settings(["kitty_multiplier=double", "follow_ladder=yes"])
    {'kitty_multiplier': 'double', 'follow_ladder': True}
    """
    try:
        return parse_assignments(settings)
    except NotAssignmentError as exc:
        raise UsageError(f"--set: {exc.item!r} is not key=value") from None


def add_rules_args(p: argparse.ArgumentParser, trump: bool = True) -> None:
    """The rules options of a command: ``--preset``, ``--players``, ``--set`` and
    (with ``trump``) the required ``--trump``; :func:`build_rules` reads them."""
    p.add_argument("--preset", default="pagat", help=f"rule preset ({', '.join(PRESETS)})")
    p.add_argument("--players", type=int, default=None, help="table size (5 to 12; the preset tractor is for 4)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a rule setting (repeatable)")
    if trump:
        p.add_argument("--trump", required=True, help="trump rank and suit, e.g. 5H, 10S, 7, jokers")
