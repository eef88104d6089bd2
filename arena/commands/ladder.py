"""``pengyou ladder ...``: a ladder of submitted bots (:mod:`arena.ladder`).

``create`` makes a ladder's folder with its rules; ``token`` gives an owner
a token; ``submit`` enters a bot (a file, a folder, a zip, or a built-in
with ``--builtin``), locally or through a server (``--server URL --token
T``: the server answers at once and validates in the background; the
command polls the submission's status, says it is validating, and prints
the same last line either way); ``retire`` takes a version out; ``run`` plays; ``standings`` and
``entrants`` print; ``serve`` starts the HTTP server.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import TYPE_CHECKING, Any, Optional

from .common import parse_settings

if TYPE_CHECKING:
    from ..ladder import Ladder

__all__ = ["add_parsers", "run"]

#: The ladder folder used when ``--ladder`` is not given.
DEFAULT_LADDER = "ladder"

#: Seconds between two looks at a submission's status (``submit --server``).
POLL_SECONDS = 1.0

#: Seconds ``submit --server`` waits for a validation's answer at most.
POLL_LIMIT = 1800.0


def add_parsers(sub: Any) -> None:
    """Add ``ladder`` and its subcommands to the subcommands ``sub``."""
    from .common import OneLineParser

    p = sub.add_parser("ladder", help="a ladder of submitted bots: submit, run, ratings, a server")
    lsub = p.add_subparsers(dest="ladder_command", required=True, parser_class=OneLineParser)

    def ladder_arg(q: Any) -> None:
        q.add_argument("--ladder", default=DEFAULT_LADDER, metavar="FOLDER",
                       help=f"the ladder's folder (default: ./{DEFAULT_LADDER})")

    c = lsub.add_parser("create", help="make a new ladder with its rules")
    c.add_argument("folder", nargs="?", default=None, help="the ladder's folder (or --ladder)")
    ladder_arg(c)
    c.add_argument("--preset", default="pagat")
    c.add_argument("--players", type=int, default=None,
                   help="table size (default: the preset's, 6 for most; 4 for tractor)")
    c.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a rule setting")
    c.add_argument("--time-limit", type=float, default=1.0, help="seconds per decision (default 1)")
    c.add_argument("--overage", type=float, default=10.0, help="seconds banked per deal (default 10)")
    c.add_argument("--memory", type=int, default=1024, metavar="MB", help="memory per bot process (default 1024)")
    c.add_argument("--trusted", default="builtins", choices=("none", "builtins"),
                   help="builtins: built-in entrants run in the referee (default); submissions are always sandboxed")
    c.add_argument("--upload-mb", type=int, default=8, help="largest upload the server takes (default 8)")
    c.add_argument("--provisional", type=int, default=40, help="deals before a rating is no longer provisional")
    c.add_argument("--owner-active", type=int, default=10,
                   help="most active versions of submitted bots an owner may have (default 10)")
    c.add_argument("--owner-mb", type=int, default=256,
                   help="most MiB of files all an owner's submitted versions may hold (default 256)")

    t = lsub.add_parser("token", help="give an owner a new token (printed once; kept hashed)")
    t.add_argument("owner")
    ladder_arg(t)

    s = lsub.add_parser("submit", help="submit a bot: FILE[:Class], a folder or a zip (validated first)")
    s.add_argument("source", nargs="?", default=None, metavar="FILE[:Class]")
    s.add_argument("--name", required=True, help="the entrant's name (a new version if it is yours already)")
    s.add_argument("--owner", default="admin", help="who owns it (local submissions; default admin)")
    s.add_argument("--note", default="", help="a line about this version")
    s.add_argument("--entry", default=None, help="the entry file of a folder or zip (default bot.py)")
    s.add_argument("--builtin", default=None, metavar="SPEC", help="enter a built-in bot, e.g. ismcts:iterations=200")
    s.add_argument("--server", default=None, metavar="URL", help="submit through a ladder server")
    s.add_argument("--token", default=None, help="your token, for --server")
    ladder_arg(s)

    r = lsub.add_parser("retire", help="retire an entrant (every version, or --version)")
    r.add_argument("name")
    r.add_argument("--version", type=int, default=None)
    r.add_argument("--owner", default="admin")
    r.add_argument("--server", default=None, metavar="URL")
    r.add_argument("--token", default=None)
    ladder_arg(r)

    u = lsub.add_parser("run", help="play games: rounds of duplicate groups, ratings after each")
    ladder_arg(u)
    u.add_argument("--workers", type=int, default=1)
    u.add_argument("--cluster", default="", help="'local' or tcp://HOST:PORT of a Dask scheduler")
    how = u.add_mutually_exclusive_group()
    how.add_argument("--games", type=int, default=None, help="stop after at least N new games")
    how.add_argument("--rounds", type=int, default=None, help="stop after N scheduling rounds")
    how.add_argument("--until-stopped", action="store_true", help="play until Ctrl-C or SIGTERM")
    u.add_argument("--groups", type=int, default=0, help="duplicate groups a round (default: twice the workers)")

    st = lsub.add_parser("standings", help="the ladder's ratings with 95 %% intervals")
    ladder_arg(st)
    st.add_argument("--json", action="store_true")
    st.add_argument("--all", action="store_true", help="retired versions too")

    e = lsub.add_parser("entrants", help="every entrant version")
    ladder_arg(e)

    v = lsub.add_parser("serve", help="the ladder's HTTP server: API and pages")
    ladder_arg(v)
    v.add_argument("--host", default="127.0.0.1")
    v.add_argument("--port", type=int, default=8080)


def _open(args: argparse.Namespace) -> Ladder:
    from ..ladder import Ladder

    return Ladder(args.ladder)


def _num(x: Optional[float]) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{x:+.0f}"


def _create(args: argparse.Namespace) -> int:
    from core.rules import preset_players

    from ..ladder import Ladder, LadderRules

    folder = args.folder or args.ladder
    rules = LadderRules(preset=args.preset,
                        players=preset_players(args.preset) if args.players is None else args.players,
                        settings=tuple(sorted(parse_settings(args.set).items())),
                        time_limit=args.time_limit, overage=args.overage, memory_mb=args.memory,
                        trusted=args.trusted, upload_mb=args.upload_mb, provisional=args.provisional,
                        owner_active=args.owner_active, owner_mb=args.owner_mb)
    Ladder.create(folder, rules)
    print(f"ladder created in {folder}: {rules.preset}, {rules.players} players, "
          f"{rules.time_limit:g} s a move + {rules.overage:g} s overage, {rules.memory_mb} MB")
    return 0


def _token(args: argparse.Namespace) -> int:
    import secrets

    from ..ladder.folder import validate_name

    lad = _open(args)
    owner = validate_name(args.owner, "owner")
    token = secrets.token_urlsafe(32)
    with lad.store() as st:
        st.add_owner(owner, token)
    print(token)
    return 0


def _split_source(source: str) -> tuple[str, Optional[str]]:
    """``FILE:Class`` -> (FILE, Class); a path that exists as given wins."""
    if os.path.exists(source) or ":" not in source:
        return source, None
    path, _, cls = source.rpartition(":")
    return path, cls or None


def _client(url: str, token: Optional[str], method: str, path: str, form: Any = None,
            body: Any = None) -> dict[str, Any]:
    """One request to a ladder server; its JSON answer, or an error line."""
    return _request(url, token, method, path, form, body)[1]


def _request(url: str, token: Optional[str], method: str, path: str, form: Any = None,
             body: Any = None) -> tuple[int, dict[str, Any]]:
    """One request to a ladder server: (status, its JSON answer), or an error line."""
    import asyncio

    import aiohttp

    from ..types import ArenaError

    if not token:
        raise ArenaError("--server needs --token")

    async def go() -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {token}"}
        timeout = aiohttp.ClientTimeout(total=600)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            async with session.request(method, url.rstrip("/") + path, data=form, json=body,
                                       headers=headers) as resp:
                try:
                    data = await resp.json(content_type=None)
                except ValueError:
                    data = {"error": (await resp.text())[:200]}
                return resp.status, data

    try:
        status, data = asyncio.run(go())
    except (TimeoutError, aiohttp.ClientError, OSError) as exc:
        raise ArenaError(f"cannot reach the ladder server {url}: {str(exc) or type(exc).__name__}") from None
    if status >= 400:
        err = data.get("error") if isinstance(data, dict) else None
        raise ArenaError(f"the server refused ({status}): {err or 'no reason given'}")
    return status, data if isinstance(data, dict) else {"result": data}


def _follow(url: str, token: Optional[str], answer: dict[str, Any]) -> dict[str, Any]:
    """Poll a submission's status (the server's ``202`` answer) until it is
    answered, with a progress line on stderr while it is validated; the
    entrant it became, or the refusal as the server used to answer it."""
    import time

    from ..types import ArenaError

    api = str(answer.get("api") or f"/api/submissions/{answer.get('id')}")
    page = str(answer.get("url") or "")
    print(f"validating {answer.get('name', '?')} on the server (the status: {url.rstrip('/')}{page}) ...",
          file=sys.stderr, flush=True)
    deadline = time.monotonic() + POLL_LIMIT
    while True:
        state = _client(url, token, "GET", api)
        if state.get("state") == "accepted":
            entrant = state.get("entrant")
            return entrant if isinstance(entrant, dict) else {}
        if state.get("state") == "refused":
            raise ArenaError(f"the server refused ({state.get('http_status') or 400}): "
                             f"{state.get('reason') or 'no reason given'}")
        if time.monotonic() > deadline:
            raise ArenaError(f"the validation was not answered within {POLL_LIMIT:g} s; see {url.rstrip('/')}{page}")
        time.sleep(POLL_SECONDS)


def _submit(args: argparse.Namespace) -> int:
    from ..types import ArenaError

    if args.builtin is not None:
        if args.source is not None or args.server:
            raise ArenaError("--builtin takes no FILE and no --server (built-ins are entered by the ladder's admin)")
        row = _open(args).submit_builtin(args.builtin, name=args.name, owner=args.owner, note=args.note)
        print(f"accepted {row.label} (built-in {row.spec}), id {row.id}")
        return 0
    if args.source is None:
        raise ArenaError("submit: give FILE[:Class], a folder or a zip (or --builtin SPEC)")
    path, cls = _split_source(args.source)
    if args.server:
        import io
        import zipfile

        import aiohttp

        if not os.path.exists(path):
            raise ArenaError(f"no such file or folder: {path}")
        form = aiohttp.FormData()
        form.add_field("name", args.name)
        if cls:
            form.add_field("class", cls)
        if args.note:
            form.add_field("note", args.note)
        if args.entry:
            form.add_field("entry", args.entry)
        if os.path.isdir(path):             # a folder goes as a zip of its files
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
                for root, dirs, files in os.walk(path):
                    dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                    for f in sorted(files):
                        full = os.path.join(root, f)
                        zf.write(full, os.path.relpath(full, path))
            form.add_field("file", buf.getvalue(), filename=os.path.basename(path.rstrip("/")) + ".zip")
        else:
            with open(path, "rb") as fh:
                form.add_field("file", fh.read(), filename=os.path.basename(path))
        status, data = _request(args.server, args.token, "POST", "/api/submit", form=form)
        if status == 202:                   # validated in the background: follow it
            data = _follow(args.server, args.token, data)
        print(f"accepted {data.get('label', args.name)}, id {data.get('id')}")
        return 0
    row = _open(args).submit(path, name=args.name, owner=args.owner, cls=cls, entry=args.entry, note=args.note)
    print(f"accepted {row.label} ({row.kind} {row.spec}), id {row.id}")
    return 0


def _retire(args: argparse.Namespace) -> int:
    if args.server:
        body = {} if args.version is None else {"version": args.version}
        data = _client(args.server, args.token, "POST", f"/api/entrants/{args.name}/retire", body=body)
        rows = data.get("retired", [])
        print(f"retired {', '.join(r.get('label', '?') for r in rows) or 'nothing'}")
        return 0
    rows = _open(args).retire(args.name, args.owner, args.version)
    print(f"retired {', '.join(r.label for r in rows)}")
    return 0


def _run(args: argparse.Namespace) -> int:
    from ..ladder import run_ladder
    from ..tournament.runner import setup_logging
    from ..types import ArenaError

    lad = _open(args)
    if args.games is None and args.rounds is None and not args.until_stopped:
        raise ArenaError("ladder run: say how long: --games N, --rounds N or --until-stopped")
    for opt in ("games", "rounds", "workers"):
        value = getattr(args, opt)
        if value is not None and value < 1:
            raise ArenaError(f"--{opt}: {value} is not at least 1")
    setup_logging(os.path.join(lad.folder, "logs", "ladder.log"))

    def report(rnd: int, games: int) -> None:
        print(f"round {rnd}: {games} game(s) played so far in this run", file=sys.stderr, flush=True)

    summary = run_ladder(lad, workers=args.workers, cluster=args.cluster, games=args.games, rounds=args.rounds,
                         until_stopped=args.until_stopped, groups_per_round=args.groups, on_round=report)
    per = summary.games / summary.seconds if summary.seconds > 0 else 0.0
    print(f"{summary.rounds} round(s), {summary.games} game(s), {summary.faults} fault(s), "
          f"{summary.failed} not played, {per:.2f} games/s")
    return _print_standings(lad, False, False)


def _print_standings(lad: Ladder, as_json: bool, everyone: bool) -> int:
    from ..ladder import ratings

    games, rows = ratings(lad)
    if not everyone:
        rows = [r for r in rows if not r.retired]
    if as_json:
        print(json.dumps({"games": games, "rows": [r.to_json() for r in rows]}, indent=2))
        return 0
    print(f"{games} game(s)")
    print(f"{'rank':>4}  {'entrant':<24} {'owner':<12} {'elo':>6}  {'95% interval':<14} {'deals':>6}  faults")
    for k, r in enumerate(rows, 1):
        mark = " (provisional)" if r.provisional else ""
        mark += " (retired)" if r.retired else ""
        band = f"[{_num(r.lo)}, {_num(r.hi)}]"
        nf = sum(r.faults.values())
        fault_text = ", ".join(f"{kind} {n}" for kind, n in r.faults.items() if n) or "0"
        print(f"{k:>4}  {r.label:<24} {r.owner:<12} {_num(r.elo):>6}  {band:<14} {r.deals:>6}  "
              f"{fault_text if nf else 0}{mark}")
    return 0


def _entrants(args: argparse.Namespace) -> int:
    lad = _open(args)
    for r in lad.entrants():
        state = "retired" if r.retired is not None else "active"
        print(f"{r.id:>4}  {r.label:<24} {r.owner:<12} {r.kind:<8} {state:<8} {r.code_hash[:12]}  {r.note}")
    return 0


def _serve(args: argparse.Namespace) -> int:
    from ..ladder.web import serve

    lad = _open(args)

    def ready(url: str) -> None:
        print(f"serving the ladder {lad.folder} at {url} (Ctrl-C stops)", flush=True)

    serve(lad, args.host, args.port, ready=ready)
    return 0


def run(args: argparse.Namespace) -> int:
    """Run a ``ladder`` subcommand."""
    cmd = args.ladder_command
    if cmd == "create":
        return _create(args)
    if cmd == "token":
        return _token(args)
    if cmd == "submit":
        return _submit(args)
    if cmd == "retire":
        return _retire(args)
    if cmd == "run":
        return _run(args)
    if cmd == "standings":
        return _print_standings(_open(args), args.json, args.all)
    if cmd == "entrants":
        return _entrants(args)
    return _serve(args)
