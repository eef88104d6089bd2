"""``pengyou lead | follow | trick | throw``: the rules tools, one question to the kernel each."""

from __future__ import annotations

import argparse
from typing import Any

from core import kernel
from core.cards import format_cards, parse_cards

from .common import UsageError, add_rules_args, build_rules, parse_trump

__all__ = ["add_parsers", "run"]


def add_parsers(sub: Any) -> None:
    """Add ``lead``, ``follow``, ``trick`` and ``throw`` to the subcommands ``sub``."""
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
