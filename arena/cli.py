"""The ``pengyou`` command line (also ``python -m arena``).

Every user mistake ends with one line on stderr and exit status 2, never a
traceback.
"""

from __future__ import annotations

from typing import NoReturn

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, Optional

from core import kernel
from core.cards import RANK_NAMES, SUIT_LETTERS, Trump, format_cards, parse_cards
from core.errors import PengyouError
from core.options import NotAssignmentError, parse_assignments
from core.rules import PRESETS, Rules

__all__ = ["main", "parse_trump", "build_rules", "parse_settings"]


class UsageError(PengyouError):
    """A command-line option is malformed."""


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


def _add_rules_args(p: argparse.ArgumentParser, trump: bool = True) -> None:
    p.add_argument("--preset", default="pagat", help=f"rule preset ({', '.join(PRESETS)})")
    p.add_argument("--players", type=int, default=None, help="table size (5 to 12)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a rule setting (repeatable)")
    if trump:
        p.add_argument("--trump", required=True, help="trump rank and suit, e.g. 5H, 10S, 7, jokers")


class _OneLineParser(argparse.ArgumentParser):
    """Usage mistakes end in one line (and a pointer to --help), not a usage block."""

    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _bots_command(name: Optional[str], as_json: bool) -> int:
    """``pengyou bots [NAME]``: the registry, or one bot's parameters."""
    import dataclasses

    from bots.base import describe_bot, registry

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


def _parser() -> argparse.ArgumentParser:
    ap = _OneLineParser(prog="pengyou", description="Zhao Pengyou rules engine, bots and arena")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=_OneLineParser)

    p = sub.add_parser("bots", help="the registered bots; with a name, its parameters and tuning spans")
    p.add_argument("name", nargs="?", help="a bot name (or path/to/bot.py:Class)")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = sub.add_parser("bench", help="kernel speed against the naive reference")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--positions", type=int, default=200)
    p.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--search-iterations", type=int, default=100_000,
                   help="iterations of the search whose peak memory is reported")
    p.add_argument("--arena-search-deals", type=int, default=3,
                   help="deal seeds for the sandboxed-against-trusted search bots (two rotations each)")
    p.add_argument("--arena-search-iterations", type=int, default=1000,
                   help="iterations a decision of that search bot (ismcts)")
    p.add_argument("--arena-deals", type=int, default=300,
                   help="seeds of the bench suite played (twice: two rotations) for the arena figures")

    p = sub.add_parser("duel", help="two bots on duplicate deals: margins with 95%% intervals")
    p.add_argument("a", help="bot spec, e.g. heuristic or ismcts:iterations=1000")
    p.add_argument("b", help="bot spec")
    p.add_argument("--deals", type=int, default=50, help="deal seeds (each played twice)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--json", action="store_true")
    p.add_argument("--time-limit", type=float, default=5.0, help="seconds per decision (0 = none)")
    p.add_argument("--overage", type=float, default=30.0, help="seconds banked per deal for slow decisions")
    p.add_argument("--trusted", default="none", choices=("none", "builtins"),
                   help="builtins: run the built-in bots inside this process (default: every bot sandboxed)")
    p.add_argument("--allow-cheating", action="store_true", help="allow the oracle bot, which sees every hand")
    p.add_argument("--secret", default=None, help="keys the bots' random seeds (default: random, kept with --save)")
    p.add_argument("--save", metavar="FILE", default=None,
                   help="keep every game in FILE (JSON lines) as it ends; the same duel with the same "
                        "FILE resumes, playing only the games FILE lacks")
    _add_rules_args(p, trump=False)

    from .sprt_cli import add_sprt_parser
    from .tune_cli import add_tune_parser

    add_sprt_parser(sub)
    add_tune_parser(sub)

    p = sub.add_parser("lead", help="read a lead into units")
    p.add_argument("cards")
    _add_rules_args(p)

    p = sub.add_parser("follow", help="check a follow and list the legal ones")
    p.add_argument("--hand", required=True)
    p.add_argument("--lead", required=True)
    p.add_argument("--play", default=None)
    _add_rules_args(p)

    p = sub.add_parser("trick", help="who wins a trick (first play is the lead)")
    p.add_argument("plays", nargs="+")
    _add_rules_args(p)

    p = sub.add_parser("throw", help="check a throw against the other hands")
    p.add_argument("lead")
    p.add_argument("--hands", nargs="+", required=True, help="the other hands, in seat order")
    _add_rules_args(p)

    p = sub.add_parser("play", help="play a seeded deal (or match) between random players and tell it")
    _add_rules_args(p, trump=False)
    p.add_argument("--seed", type=int, default=1, help="deal (or match) seed; also seeds the players")
    p.add_argument("--match", action="store_true", help="play a whole match instead of one deal")
    p.add_argument("--max-deals", type=int, default=None, help="stop a match after this many deals")
    p.add_argument("--record", default=None, metavar="FILE", help="write the record (JSON lines) here")

    p = sub.add_parser("replay", help="replay a recorded deal or match (checking it) and tell it")
    p.add_argument("file")

    p = sub.add_parser("arena", help="round-robin tournaments on duplicate deals, with Elo ratings")
    asub = p.add_subparsers(dest="arena_command", required=True, parser_class=_OneLineParser)
    r = asub.add_parser("run", help="play a tournament (or resume it) and print the standings")
    r.add_argument("spec", nargs="?", default=None,
                   help="tournament spec (TOML); without it and without --bots, the built-in default")
    r.add_argument("--bots", nargs="+", default=None, metavar="SPEC",
                   help="entrants as bot specs, e.g. random heuristic ismcts:iterations=500; "
                        "{a,b} sweeps a parameter: ismcts:c={0.5,1.0} is two entrants")
    r.add_argument("--name", default=None)
    r.add_argument("--preset", default=None, help=f"rule preset ({', '.join(PRESETS)})")
    r.add_argument("--players", type=int, default=None, help="table size (5 to 12)")
    r.add_argument("--set", action="append", default=None, metavar="KEY=VALUE",
                   help="override a rule setting (repeatable)")
    r.add_argument("--suite", default=None, help="deal-seed suite in seeds/ (dev, bench) or a path")
    r.add_argument("--deals", type=int, default=None, help="first N seeds of the suite (0 = all)")
    r.add_argument("--mode", default=None, choices=("deals", "matches"))
    r.add_argument("--lineups", default=None, choices=("pairs", "table"))
    r.add_argument("--rotations", type=int, default=None, help="rotations per line-up (0 = all distinct)")
    r.add_argument("--time-limit", type=float, default=None, help="seconds per decision (0 = none; default 5)")
    r.add_argument("--overage", type=float, default=None, help="seconds banked per deal for slow decisions (default 30)")
    r.add_argument("--memory", type=int, default=None, metavar="MB", help="address space of a sandboxed bot (default 1024)")
    r.add_argument("--trusted", default=None, choices=("none", "builtins"),
                   help="builtins: run the built-in bots inside the referee, for speed (default: none, every bot sandboxed)")
    r.add_argument("--on-fault", default=None, choices=("forfeit", "fallback"),
                   help="a faulting entrant forfeits the deal (default), or the fallback bot finishes it")
    r.add_argument("--allow-cheating", action="store_true", help="allow the oracle bot, which sees every hand")
    r.add_argument("--secret", default=None,
                   help="the run's secret, which keys the shuffles and bots' seeds (default: random, kept in the database)")
    r.add_argument("--fallback", default=None, help="bot that finishes a faulted seat's deal with --on-fault fallback")
    r.add_argument("--no-record", action="store_true", help="do not keep each deal's record")
    _add_run_args(r)
    r.add_argument("--samples", type=int, default=1000, help="bootstrap samples for the intervals")
    r.add_argument("--json", action="store_true", help="print the standings as JSON")
    r.add_argument("--no-progress", action="store_true")
    r.add_argument("--log", default=None, help="log file (default: the database name with .log)")
    r.add_argument("--max-jobs", type=int, default=None, help="stop after this many new results")
    for name, hlp in (("standings", "Elo, duplicate scores, cross-table and faults of a run"),
                      ("show", "a run's spec, progress and faults")):
        q = asub.add_parser(name, help=hlp)
        if name == "show":
            q.add_argument("run", type=int, nargs="?", default=None, help="run id (default: the latest)")
        else:
            q.add_argument("--run", type=int, default=None, help="run id (default: the latest)")
            q.add_argument("--samples", type=int, default=1000, help="bootstrap samples")
        q.add_argument("--db", default="arena.db", help="results database (SQLite)")
        q.add_argument("--json", action="store_true")
    q = asub.add_parser("record", help="a stored job's record (JSON lines; `pengyou replay` reads it)")
    q.add_argument("key", help="job key, e.g. g0-l1-r0 (see `arena show`)")
    q.add_argument("--run", type=int, default=None, help="run id (default: the latest)")
    q.add_argument("--out", default=None, help="write to this file instead of the terminal")
    q.add_argument("--db", default="arena.db")
    q = asub.add_parser("runs", help="list the runs in a results database")
    q.add_argument("--db", default="arena.db")
    q.add_argument("--json", action="store_true")

    p = sub.add_parser("seeds", help="generate or verify deal-seed suites")
    p.add_argument("args", nargs=argparse.REMAINDER, help="generate NAME --count N --master M | verify NAME")
    return ap


def _add_run_args(r: argparse.ArgumentParser) -> None:
    r.add_argument("--workers", type=int, default=None, help="worker processes (default: the spec's)")
    r.add_argument("--no-pin", action="store_true",
                   help="let workers move between CPUs (by default each local worker and its bots hold one CPU "
                        "when there are as many CPUs as workers)")
    r.add_argument("--cluster", default=None,
                   help="run on Dask: 'local' starts a local cluster, or tcp://HOST:PORT")
    r.add_argument("--db", default="arena.db", help="results database (SQLite; created if missing)")


def _run_play(args: argparse.Namespace) -> int:
    """``play`` and ``replay``: the account of a deal or match, from a fresh
    game between random players or from a record (replayed and checked)."""
    import random

    from core import records as rec
    from core.account import account
    from core.errors import InvalidActionError

    if args.command == "replay":
        try:
            lines = account(rec.read_records(args.file))
        except PengyouError as exc:
            msg = str(exc)
            raise InvalidActionError(f"{args.file}: {msg}" if msg.startswith("line ") else msg) from None
        print("\n".join(lines))
        return 0
    from core.game import play_random_match
    from core.match import start_levels
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


def _run(args: argparse.Namespace) -> int:
    if args.command in ("play", "replay"):
        return _run_play(args)
    if args.command == "arena":
        from .arena_cli import run_arena_command

        return run_arena_command(args)
    if args.command == "sprt":
        from .sprt_cli import run_sprt_command

        return run_sprt_command(args)
    if args.command == "tune":
        from .tune_cli import run_tune_command

        return run_tune_command(args)
    if args.command == "bots":
        return _bots_command(args.name, args.json)
    if args.command == "seeds":
        from .seeds import main as seeds_main

        return seeds_main(args.args)
    if args.command == "bench":
        from .bench import run_bench

        if args.positions < 1 or args.seconds <= 0 or args.search_iterations < 1:
            raise UsageError("bench: --positions and --search-iterations must be at least 1, --seconds positive")
        if args.arena_deals < 1 or args.arena_search_deals < 1 or args.arena_search_iterations < 1:
            raise UsageError("bench: --arena-deals, --arena-search-deals and --arena-search-iterations "
                             "must be at least 1")
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
            for k, v in list(res["search"].items()) + list(res["arena"].items()):
                print(f"{k:24s} {v:12.1f}")
        return 0
    rules = build_rules(args.preset, args.players, args.set)
    if args.command == "duel":
        from .duel import run_duel

        if args.deals < 1 or args.workers < 1:
            raise UsageError("duel: --deals and --workers must be at least 1")
        res = run_duel(args.a, args.b, rules, args.deals, args.seed, args.workers, progress=not args.json,
                       save=args.save, secret=args.secret, trusted=args.trusted, time_limit=args.time_limit,
                       overage=args.overage, cheating=args.allow_cheating)
        if args.json:
            print(json.dumps(res))
        else:
            print(f"{rules.name}, {rules.players} players, {args.deals} duplicate deals (each played twice)")
            if res["resumed"]:
                print(f"  {res['resumed']} of {2 * args.deals} games taken from {args.save}")
            for side in ("a", "b"):
                r = res[side]
                print(f"  {r['bot']:30s} card margin {_iv(r['card_margin'])}  game points {_iv(r['game_points'])}")
            d = res["difference"]
            print(f"  {'difference (first - second)':30s} card margin {_iv(d['card_margin'])}  "
                  f"game points {_iv(d['game_points'])}")
        return 0
    trump = parse_trump(args.trump)
    if args.command == "lead":
        lead = kernel.make_lead(parse_cards(args.cards), trump, rules)
        kind = "throw" if lead.is_throw else "lead"
        print(f"{kind} of {len(lead)} cards: " + " + ".join(
            f"[{format_cards(u.cards)}]" for u in lead.units))
    elif args.command == "follow":
        hand, lead = parse_cards(args.hand), kernel.make_lead(parse_cards(args.lead), trump, rules)
        if len(hand) < len(lead):
            raise UsageError(f"--hand: {len(hand)} cards cannot follow a lead of {len(lead)}")
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


def _iv(x: dict) -> str:
    return f"{x['mean']:+8.2f} [{x['lo']:+.2f}, {x['hi']:+.2f}]"


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
    """Entry point of the ``pengyou`` command."""
    args = _parser().parse_args(argv)
    import signal

    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        import os

        _MAIN_PID[0] = os.getpid()
        signal.signal(signal.SIGTERM, _terminated)
    try:
        return _run(args)
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
