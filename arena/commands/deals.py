"""``pengyou play | replay | view``: the account of a deal or match, from a
fresh game between random players or from a record (replayed and checked),
and the record as a page to step through in a browser.

A file may hold several records one after the other (``pengyou arena
export`` writes one so): ``replay`` tells every one (or the one ``--game N``
picks), ``view`` draws the one ``--game N`` picks (the first by default).
"""

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
    p.add_argument("--human", type=int, default=None, metavar="SEAT",
                   help="play this seat yourself, in the browser (or the terminal with --tui), against --bots")
    p.add_argument("--bots", nargs="+", default=["heuristic"], metavar="BOT",
                   help="with --human: the bot of every other seat in seat order, or one for all (default heuristic)")
    p.add_argument("--port", type=int, default=8765, help="with --human: the table's port on 127.0.0.1 (0: any free)")
    p.add_argument("--pace", type=float, default=0.8, help="with --human: seconds to show each bot's move")
    p.add_argument("--time-limit", type=float, default=10.0, help="with --human: seconds per bot decision")
    p.add_argument("--linger", type=float, default=300.0,
                   help="with --human: seconds the page stays up after the deal (Ctrl-C ends it sooner)")
    p.add_argument("--tui", action="store_true", help="with --human: play in this terminal instead of a browser")
    p.add_argument("--no-open", action="store_true", help="with --human: do not open the browser, print the address")

    p = sub.add_parser("replay", help="replay a recorded deal or match (checking it) and tell it")
    p.add_argument("file")
    p.add_argument("--hands", action="store_true",
                   help="show every seat's hand after the draw and the buried cards")
    p.add_argument("--game", type=int, default=None, metavar="N",
                   help="of a file of several records (arena export): only the Nth (default: every one)")

    p = sub.add_parser("view", help="a recorded deal or match as a page to step through in a browser")
    p.add_argument("file")
    p.add_argument("-o", "--out", default=None, help="the page to write (default: FILE with .html)")
    p.add_argument("--open", action="store_true", help="open the page in the web browser too")
    p.add_argument("--game", type=int, default=None, metavar="N",
                   help="of a file of several records (arena export): the Nth (default: the first)")


def split_games(records: list[dict[str, Any]]) -> list[tuple[int, list[dict[str, Any]]]]:
    """The records one after the other in ``records``, each with the line
    (counted from 1) it starts on: a match header starts one that its match
    result ends, a deal header outside a match one that its result ends.
    Lines that fit no record stay with the one before, where its replay
    finds them.

    >>> recs = [{"type": "deal"}, {"seat": 0}, {"type": "result"}, {"type": "match"}, {"type": "deal"},
    ...         {"type": "result"}, {"type": "match_result"}]
    >>> [(line, len(r)) for line, r in split_games(recs)]
    [(1, 3), (4, 4)]
    """
    out: list[tuple[int, list[dict[str, Any]]]] = []
    in_match = False
    for i, rec in enumerate(records):
        kind = rec.get("type")
        if kind == "match" or (kind == "deal" and not in_match) or not out:
            out.append((i + 1, []))
            in_match = kind == "match"
        out[-1][1].append(rec)
        if kind == "match_result":
            in_match = False
    return out


def _pick(games: list[tuple[int, list[dict[str, Any]]]], game: int | None,
          path: str) -> list[tuple[int, int, list[dict[str, Any]]]]:
    """The games ``--game`` picks (all of them without it) as (number from 1,
    first line, records), or a one-line error."""
    numbered = [(k, start, one) for k, (start, one) in enumerate(games, 1)]
    if game is None:
        return numbered
    if not 1 <= game <= len(games):
        raise UsageError(f"--game {game}: {path} holds {len(games)} record(s); "
                         f"choose from 1 to {len(games)}")
    return [numbered[game - 1]]


def _at(path: str, start: int, exc: PengyouError) -> str:
    """A record's error, its line counted in the whole file (the record starts on line ``start``)."""
    msg = str(exc)
    head, sep, rest = msg.partition(": ")
    if sep and head.startswith("line ") and head[5:].isdigit():
        return f"{path}: line {int(head[5:]) + start - 1}: {rest}"
    return msg


def _heading(k: int, n: int, start: int, records: list[dict[str, Any]]) -> str:
    """The line above each record ``replay`` tells from a file of several."""
    names = records[0].get("players") if records else None
    who = f": {', '.join(map(str, names))}" if isinstance(names, list) and names else ""
    return f"== game {k} of {n} (line {start}){who}"


def run(args: argparse.Namespace) -> int:
    """Run ``play``, ``replay`` or ``view``; the exit status."""
    import random

    from core import records as rec
    from core.account import account
    from ..render.viewer import forfeit_account
    from core.errors import InvalidActionError

    if args.command == "view":
        return view_file(args.file, args.out, args.open, game=args.game)
    if args.command == "replay":
        try:
            records = rec.read_records(args.file)
        except PengyouError as exc:
            msg = str(exc)
            raise InvalidActionError(f"{args.file}: {msg}" if msg.startswith("line ") else msg) from None
        games = split_games(records)
        picked = _pick(games, args.game, args.file)
        told: list[str] = []
        for k, start, one in picked:
            try:
                lines = forfeit_account(one, account(one, hands=args.hands))
            except PengyouError as exc:
                raise InvalidActionError(_at(args.file, start, exc)) from None
            if len(games) > 1:
                told += ([""] if told else []) + [_heading(k, len(games), start, one)]
            told += lines
        print("\n".join(told))
        return 0
    from core.match import play_random_match
    from core.levels import start_levels
    from core.state import State

    rules = build_rules(args.preset, args.players, args.set)
    if args.human is not None:
        return _play_human(args, rules)
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


def view_file(path: str, out: str | None, open_it: bool, title: str | None = None,
              game: int | None = None) -> int:
    """``pengyou view``: write the viewer's page of the record at ``path``
    (of a file of several records, the ``game``-th, by default the first)."""
    import os

    from core import records as rec
    from core.errors import InvalidActionError

    from ..render.viewer import write_page

    if out is not None and os.path.abspath(out) == os.path.abspath(path):
        raise UsageError(f"--out {out}: that is the record itself")
    try:
        records = rec.read_records(path)
    except PengyouError as exc:
        msg = str(exc)
        raise InvalidActionError(f"{path}: {msg}" if msg.startswith("line ") else msg) from None
    games = split_games(records)
    (k, start, one), = _pick(games, game or 1, path)
    stem = os.path.splitext(path)[0]
    target = out or (stem + ".html" if len(games) == 1 else f"{stem}-game{k}.html")
    name = title or os.path.basename(path)
    try:
        write_page(one, name if len(games) == 1 else f"{name}, game {k} of {len(games)}", target)
    except PengyouError as exc:
        raise InvalidActionError(_at(path, start, exc)) from None
    more = f" (game {k} of {len(games)}; --game N draws another)" if len(games) > 1 else ""
    print(f"wrote {target}{more}")
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


def _play_human(args: argparse.Namespace, rules: Any) -> int:
    """``play --human SEAT``: a deal with a person at one seat, then its record."""
    import os
    import threading
    import time

    from ..human.table import play_human
    from ..human.server import TableServer

    if args.match or args.max_deals is not None:
        raise UsageError("--human: one deal at a time (no --match or --max-deals)")
    if args.pace < 0 or args.time_limit < 0 or args.linger < 0:
        raise UsageError("--pace, --time-limit and --linger must not be negative")
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: not a port number")
    record = args.record or f"human-seed{args.seed}.jsonl"
    if os.path.exists(record):
        raise UsageError(f"--record {record}: the file exists; choose another name (nothing is overwritten)")
    server: list[TableServer] = []

    def serve(session: Any) -> None:
        if args.tui:
            threading.Thread(target=_terminal, args=(session,), name="table-terminal", daemon=True).start()
            return
        srv = TableServer(session, args.port)
        srv.start()
        server.append(srv)
        print(f"your table: {srv.url}  (seat {args.human}; Ctrl-C ends the game)", flush=True)
        if not args.no_open:
            import webbrowser

            if not webbrowser.open(srv.url):
                print(f"no web browser found here: open {srv.url} yourself", flush=True)

    try:
        # a person against the built-in bots: they may run inside the referee (other bots never do)
        state = play_human(rules, args.human, args.bots, args.seed, record, serve, pace=args.pace,
                           time_limit=args.time_limit, trusted="builtins")
        res = state.result
        assert res is not None                  # the deal was played to its end
        side = "the maker side" if res.winner == "maker" else "the opponents"
        who = "no side scores" if res.winner is None else f"{side} win {res.game_points} game point(s)"
        you = "you win" if args.human in state.winners() else "you lose"
        print(f"the deal is over: {who} ({you}); its record: {record} "
              f"(pengyou view {record} draws it)", flush=True)
        for srv in server:
            srv.wait_delivered(10.0)            # the page shows the end before the server goes
        if server and args.linger > 0:
            time.sleep(args.linger)
    except KeyboardInterrupt:
        print("stopped", flush=True)
        return 130
    finally:
        for srv in server:
            srv.stop()
    return 0


def _terminal(session: Any) -> None:
    """``--tui``: the person's turns at this terminal's prompt."""
    version = -1
    told = 0
    while not session.closed:
        snap = session.wait_newer(version, 1.0)
        if snap["version"] == version:
            continue
        version = snap["version"]
        events = snap.get("events", [])
        for e in events[told:]:
            print(f"  seat {e['seat']}: {e['action'] if e['action'] is not None else '(hidden)'}")
        told = len(events)
        if snap.get("done") or not snap.get("waiting"):
            if snap.get("done"):
                return
            continue
        view = snap["view"]
        leader, plays = view["current_trick"]
        print(f"[{view['phase']}] your hand: {view['hand']}")
        if plays:
            print("  this trick: " + "  ".join(f"{(leader + j) % view['players']}:{p}" for j, p in enumerate(plays)))
        if view["options"]:
            print("  choices: " + ", ".join(view["options"][:30]) + (" ..." if len(view["options"]) > 30 else ""))
        while True:
            try:
                text = input("your action> ")
            except EOFError:
                session.close()
                return
            ok, why = session.submit(text)     # "AS AS" reads as a play, as everywhere
            if ok:
                break
            print(f"  refused: {why}")
