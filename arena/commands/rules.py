"""``pengyou rules | lead | follow | trick | throw``: the rules tools.

``rules`` prints a table's settings (``--list``: every setting, the values
it takes, what it means and its value under each preset); the others ask
the kernel one question each."""

from __future__ import annotations

import argparse
import dataclasses
import json
import textwrap
from typing import Any

from core import kernel
from core.cards import format_cards, parse_cards
from core.rules import PRESETS, SETTINGS, Rules, setting_values

from .common import UsageError, add_rules_args, build_rules, parse_trump

__all__ = ["add_parsers", "run"]


def add_parsers(sub: Any) -> None:
    """Add ``rules``, ``lead``, ``follow``, ``trick`` and ``throw`` to the subcommands ``sub``."""
    p = sub.add_parser("rules", help="a table's rule settings; --list: every setting, its values and meaning")
    p.add_argument("--list", action="store_true",
                   help="every setting: the values it takes, what it means, its value under each preset")
    p.add_argument("--json", action="store_true")
    add_rules_args(p, trump=False)

    p = sub.add_parser("lead", help="read a lead into units")
    p.add_argument("cards")
    add_rules_args(p)

    p = sub.add_parser("follow", help="check a follow and list the legal ones")
    p.add_argument("--hand", required=True)
    p.add_argument("--lead", required=True)
    p.add_argument("--play", default=None)
    add_rules_args(p)

    p = sub.add_parser("trick", help="who wins a trick (first play is the lead)")
    p.add_argument("plays", nargs="+")
    add_rules_args(p)

    p = sub.add_parser("throw", help="check a throw against the other hands")
    p.add_argument("lead")
    p.add_argument("--hands", nargs="+", required=True, help="the other hands, in seat order")
    add_rules_args(p)


def run(args: argparse.Namespace) -> int:
    """Answer one rules question; the exit status (``follow --play`` of an illegal follow: 1)."""
    rules = build_rules(args.preset, args.players, args.set)
    if args.command == "rules":
        print_settings(rules, args.list, args.json)
        return 0
    trump = parse_trump(args.trump)
    if args.command == "lead":
        lead = kernel.make_lead(parse_cards(args.cards), trump, rules)
        kind = "throw" if lead.is_throw else "lead"
        print(f"{kind} of {len(lead)} card{'' if len(lead) == 1 else 's'}: " + " + ".join(
            f"[{format_cards(u.cards)}]" for u in lead.units))
    elif args.command == "follow":
        hand, lead = parse_cards(args.hand), kernel.make_lead(parse_cards(args.lead), trump, rules)
        if len(hand) < len(lead):
            raise UsageError(f"--hand: {len(hand)} card{'' if len(hand) == 1 else 's'} cannot follow "
                             f"a lead of {len(lead)}")
        if args.play is not None:
            err = kernel.follow_error(hand, lead, parse_cards(args.play), trump, rules)
            print("legal" if err is None else f"illegal: {err}")
            return 0 if err is None else 1
        for play in kernel.legal_follows(hand, lead, trump, rules):
            print(format_cards(play))
    elif args.command == "trick":
        plays = [parse_cards(p) for p in args.plays]
        lead = kernel.make_lead(plays[0], trump, rules)
        w = kernel.trick_winner(plays, trump, rules, lead=lead)
        print(f"play {w} wins: {format_cards(plays[w])}")
    elif args.command == "throw":
        res = kernel.check_throw(parse_cards(args.lead), [parse_cards(h) for h in args.hands], trump, rules)
        if res.stands:
            print("stands")
        else:
            print(f"fails: hand {res.beaten_by} beats it; lead {format_cards(res.unit)} instead, "
                  f"{res.withdrawn} cards withdrawn, penalty {res.penalty}")
    return 0


def _value(x: Any) -> Any:
    return str(x).lower() if isinstance(x, bool) else x


def print_settings(rules: Rules, every: bool, as_json: bool) -> None:
    """Print ``rules``'s settings (``every``: each setting's values, meaning
    and value under every preset at its usual table size instead).

    >>> print_settings(Rules.preset("heli"), False, False)  # doctest: +ELLIPSIS
    heli rules, 6 players
      players                6
      packs                  2
    ...
      joker_level            true
    ...
    """
    fields = [f.name for f in dataclasses.fields(rules) if f.name in SETTINGS]
    if not every:
        if as_json:
            print(json.dumps({"preset": rules.name, **{n: getattr(rules, n) for n in fields}}))
            return
        print(f"{rules.name} rules, {rules.players} players")
        for n in fields:
            print(f"  {n:<22} {_value(getattr(rules, n))}")
        print("  (pengyou rules --list: what each setting means and the values it takes)")
        return
    presets = {p: Rules.preset(p) for p in PRESETS}
    if as_json:
        print(json.dumps([{"name": n, "values": setting_values(n), "meaning": SETTINGS[n],
                           "presets": {p: getattr(r, n) for p, r in presets.items()}} for n in fields]))
        return
    print("every rule setting: its values, what it means, and its value under each preset at its usual "
          "table size; change one with --set NAME=VALUE")
    for n in fields:
        print()
        print(f"{n}  ({setting_values(n)})")
        for line in textwrap.wrap(SETTINGS[n], 92, initial_indent="    ", subsequent_indent="    "):
            print(line)
        print("    " + ", ".join(f"{p} {_value(getattr(r, n))}" for p, r in presets.items()))
