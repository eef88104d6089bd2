"""``pengyou arena run | standings | show | record | runs | export``: the tournament commands.

``run`` takes a TOML spec, or entrants with ``--bots``, or nothing (the
built-in default tournament, :data:`DEFAULT_SPEC`); options override the
spec's fields. It plays what is missing, then prints the standings
(``--verbose``: a line per finished job as it comes, and the standings
every ``--report-every`` jobs). ``export`` writes every stored record of a
run (or of a ladder) into one JSON-lines file that ``pengyou replay`` and
``pengyou view`` read.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.rules import PRESETS

from .common import OneLineParser, parse_settings
from .runs import JOBS_SHOWN, export, job_lines, latest_run, print_record, show, view

if TYPE_CHECKING:
    from ..tournament.spec import TournamentSpec
    from ..store import Store
    from ..types import Job, JobResult

__all__ = ["DEFAULT_SPEC", "add_parsers", "build_spec", "expand_grid", "run"]

#: The tournament ``pengyou arena run`` plays when given no spec and no bots.
DEFAULT_SPEC = Path(__file__).parent.parent / "default.toml"


def add_parsers(sub: Any) -> None:
    """Add ``arena`` and its subcommands to the subcommands ``sub``."""
    p = sub.add_parser("arena", help="round-robin tournaments on duplicate deals, with Elo ratings")
    asub = p.add_subparsers(dest="arena_command", required=True, parser_class=OneLineParser)
    r = asub.add_parser("run", help="play a tournament (or resume it) and print the standings")
    r.add_argument("spec", nargs="?", default=None,
                   help="tournament spec (TOML); without it and without --bots, the built-in default")
    r.add_argument("--bots", nargs="+", default=None, metavar="SPEC",
                   help="entrants as bot specs, e.g. random heuristic ismcts:iterations=500; "
                        "{a,b} sweeps a parameter: ismcts:c={0.5,1.0} is two entrants")
    r.add_argument("--name", default=None)
    r.add_argument("--preset", default=None, help=f"rule preset ({', '.join(PRESETS)})")
    r.add_argument("--players", type=int, default=None, help="table size (5 to 12; the preset tractor is for 4)")
    r.add_argument("--set", action="append", default=None, metavar="KEY=VALUE",
                   help="override a rule setting (repeatable)")
    r.add_argument("--suite", default=None, help="deal-seed suite in seeds/ (dev, bench) or a path")
    r.add_argument("--deals", type=int, default=None, help="first N seeds of the suite (0 = all)")
    r.add_argument("--mode", default=None, choices=("deals", "matches"))
    r.add_argument("--lineups", default=None, metavar="KIND",
                   help="pairs (every pair of entrants), table (all at one table) or gauntlet "
                        "(the first entrant, or --gauntlet's, against each other one)")
    r.add_argument("--gauntlet", default=None, metavar="NAME",
                   help="line-ups of a gauntlet: entrant NAME against each other entrant "
                        "(the same as --lineups gauntlet:NAME)")
    r.add_argument("--rotations", type=int, default=None, help="rotations per line-up (0 = all distinct)")
    r.add_argument("--time-limit", type=float, default=None, help="seconds per decision (0 = none; default 5)")
    r.add_argument("--overage", type=float, default=None,
                   help="seconds banked per deal for slow decisions (default 30)")
    r.add_argument("--memory", type=int, default=None, metavar="MB",
                   help="address space of a sandboxed bot (default 1024)")
    r.add_argument("--trusted", default=None, choices=("none", "builtins"),
                   help="builtins: run the built-in bots inside the referee, for speed "
                        "(default: none, every bot sandboxed)")
    r.add_argument("--on-fault", default=None, choices=("forfeit", "fallback"),
                   help="a faulting entrant forfeits the deal (default), or the fallback bot finishes it")
    r.add_argument("--allow-cheating", action="store_true", help="allow the oracle bot, which sees every hand")
    r.add_argument("--secret", default=None,
                   help="the run's secret, which keys the shuffles and bots' seeds "
                        "(default: random, kept in the database)")
    r.add_argument("--fallback", default=None, help="bot that finishes a faulted seat's deal with --on-fault fallback")
    r.add_argument("--no-record", action="store_true", help="do not keep each deal's record")
    r.add_argument("--workers", type=int, default=None, help="worker processes (default: the spec's)")
    r.add_argument("--no-pin", action="store_true",
                   help="let workers move between CPUs (by default each local worker and its bots hold one CPU "
                        "when there are as many CPUs as workers)")
    r.add_argument("--cluster", default=None,
                   help="run on Dask: 'local' starts a local cluster, or tcp://HOST:PORT")
    r.add_argument("--db", default="arena.db", help="results database (SQLite; created if missing)")
    r.add_argument("--samples", type=int, default=1000, help="bootstrap samples for the intervals")
    r.add_argument("--json", action="store_true", help="print the standings as JSON")
    r.add_argument("--no-progress", action="store_true",
                   help="no progress bar (it is shown only when stderr is a terminal)")
    r.add_argument("-v", "--verbose", action="store_true",
                   help="a line per finished job (key, line-up, margin, who won, faults) instead of the "
                        "progress bar, and the standings every --report-every jobs")
    r.add_argument("--report-every", type=int, default=None, metavar="N",
                   help=f"with --verbose: the standings every N finished jobs "
                        f"(default {_REPORT_EVERY}; 0: only at the end); implies --verbose")
    r.add_argument("--log", default=None, help="log file (default: the database name with .log)")
    r.add_argument("--max-jobs", type=int, default=None, help="stop after this many new results")
    for name, hlp in (("standings", "Elo, duplicate scores, cross-table and faults of a run"),
                      ("show", "a run's spec, progress and faults")):
        q = asub.add_parser(name, help=hlp)
        if name == "show":
            q.add_argument("run", type=int, nargs="?", default=None, help="run id (default: the latest)")
            q.add_argument("--jobs", action="store_true",
                           help=f"list every job (default: the first {JOBS_SHOWN})")
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
    q = asub.add_parser("view", help="a stored job's deal (or match) as a page to step through in a browser")
    q.add_argument("key", help="job key, e.g. g0-l1-r0 (see `arena show`)")
    q.add_argument("--run", type=int, default=None, help="run id (default: the latest)")
    q.add_argument("-o", "--out", default=None, help="the page to write (default: RUN-KEY.html here)")
    q.add_argument("--open", action="store_true", help="open the page in the web browser too")
    q.add_argument("--db", default="arena.db")
    q = asub.add_parser("export", help="every stored record of a run (or a ladder) in one JSON-lines file, "
                                       "with the players' names (`pengyou replay` and `pengyou view` read it)")
    q.add_argument("--run", type=int, default=None, help="run id (default: the latest)")
    q.add_argument("-o", "--out", default=None, help="write to this new file instead of the terminal")
    q.add_argument("--db", default="arena.db", help="results database (SQLite)")
    q.add_argument("--ladder", default=None, metavar="FOLDER", help="export a ladder's games instead of a run's")
    q = asub.add_parser("runs", help="list the runs in a results database")
    q.add_argument("--db", default="arena.db")
    q.add_argument("--json", action="store_true")


def expand_grid(text: str) -> list[str]:
    """Expand ``{a,b,...}`` groups of a bot spec into one spec per combination
    (a parameter sweep: each becomes its own entrant).

    >>> for spec in expand_grid("ismcts:iterations={200,800},c={0.5,1.0}"):
    ...     print(spec)
    ismcts:iterations=200,c=0.5
    ismcts:iterations=200,c=1.0
    ismcts:iterations=800,c=0.5
    ismcts:iterations=800,c=1.0
    >>> expand_grid("heuristic")
    ['heuristic']
    """
    from ..types import ArenaError

    parts: list[list[str]] = []
    i = 0
    while i < len(text):
        j = text.find("{", i)
        if j < 0:
            parts.append([text[i:]])
            break
        k = text.find("}", j)
        if k < 0:
            raise ArenaError(f"bot spec {text!r}: '{{' without a closing '}}'")
        choices = [c.strip() for c in text[j + 1:k].split(",")]
        if not all(choices):
            raise ArenaError(f"bot spec {text!r}: an empty choice in {{{text[j + 1:k]}}}")
        parts.append([text[i:j]])
        parts.append(choices)
        i = k + 1
    if "}" in "".join(p[0] for p in parts if len(p) == 1):
        raise ArenaError(f"bot spec {text!r}: '}}' without an opening '{{'")
    out = [""]
    for options in parts:
        out = [prefix + o for prefix in out for o in options]
    return out


def build_spec(args: argparse.Namespace) -> TournamentSpec:
    """The spec of ``arena run``: a TOML file, ``--bots``, or the default, then overrides."""
    from core.rules import preset_players

    from ..tournament.spec import spec_from_options, spec_from_toml
    from ..types import ArenaError

    if args.spec is not None and args.bots:
        raise ArenaError("give a spec file or --bots, not both")
    overrides: dict[str, Any] = {}
    for field, value in (("name", args.name), ("preset", args.preset), ("players", args.players),
                         ("suite", args.suite), ("deals", args.deals), ("mode", args.mode),
                         ("lineups", args.lineups), ("rotations", args.rotations),
                         ("time_limit", args.time_limit), ("fallback", args.fallback),
                         ("overage", args.overage), ("memory_mb", args.memory), ("trusted", args.trusted),
                         ("on_fault", args.on_fault)):
        if value is not None:
            overrides[field] = value
    if args.preset is not None and args.players is None:
        overrides["players"] = preset_players(args.preset)      # a spec file's size is for its own preset
    if args.gauntlet is not None:
        if args.lineups not in (None, "gauntlet"):
            raise ArenaError(f"--gauntlet: not with --lineups {args.lineups}")
        overrides["lineups"] = f"gauntlet:{args.gauntlet}"
    if args.set:
        overrides["settings"] = tuple(parse_settings(args.set).items())
    if args.no_record:
        overrides["record"] = False
    if args.allow_cheating:
        overrides["cheating"] = True
    if args.bots:
        bots = [one for text in args.bots for one in expand_grid(text)]
        return spec_from_options(bots, **overrides)
    spec = spec_from_toml(str(args.spec) if args.spec is not None else str(DEFAULT_SPEC))
    if not overrides:
        return spec
    spec = dataclasses.replace(spec, **overrides)
    spec.validate()
    return spec


def _print_standings(store: Store, run_id: int, samples: int, as_json: bool) -> None:
    from ..render.standings import format_cross_table, format_standings
    from ..tournament.standings import run_standings

    info = store.run(run_id)
    st = run_standings(store, run_id, samples)
    if as_json:
        print(json.dumps({"run": dataclasses.asdict(info), "standings": st.to_json()}))
        return
    print(f"run {info.id} ({info.name}): {info.done} of {info.jobs} jobs, {info.status}")
    print(format_standings(st))
    print()
    print(format_cross_table(st))


def _run_tournament(args: argparse.Namespace) -> int:
    """``arena run``: play what the run lacks, then print the standings."""
    from ..tournament.runner import run_tournament, setup_logging
    from ..store import Store, log_path_for, refuse_database_path
    from ..types import ArenaError

    spec = build_spec(args)
    if args.workers is not None and args.workers < 1:
        raise ArenaError(f"--workers: {args.workers} is not at least 1")
    verbose = args.verbose or args.report_every is not None
    every = _REPORT_EVERY if args.report_every is None else args.report_every
    if every < 0:
        raise ArenaError(f"--report-every: {every} is negative (0: the standings only at the end)")
    if verbose and args.json:
        raise ArenaError("--verbose: not with --json (its lines are not JSON)")
    log_path = args.log if args.log is not None else log_path_for(args.db)
    refuse_database_path(log_path, args.db, "--log")
    setup_logging(log_path)
    try:
        summary = run_tournament(spec, args.db, workers=args.workers, cluster=args.cluster,
                                 progress=not (args.no_progress or args.json or verbose) and sys.stderr.isatty(),
                                 max_jobs=args.max_jobs,
                                 secret=args.secret, pin=not args.no_pin,
                                 report=_Reporter(spec, args.db, every, args.samples) if verbose else None)
    except KeyboardInterrupt:
        raise ArenaError("interrupted; the results so far are saved: run the same command to resume") from None
    if not args.json:
        what = "resumed" if summary.resumed else "started"
        print(f"run {summary.run_id} {what}: {summary.played} job(s) played now, "
              f"{summary.done_before} before, {summary.jobs} in all; {summary.faults} fault(s); "
              f"{summary.seconds:.1f} s; log in {log_path}")
        if summary.failed:
            print(f"{summary.failed} job(s) failed outside the bots (see the log); "
                  "run the same command to retry them")
        if summary.twice:
            print(f"{summary.twice} job(s) played here had been stored meanwhile by another runner "
                  "(kept once)")
        if summary.elsewhere:
            print(f"{summary.elsewhere} job(s) are being played by another runner of this run; "
                  "they were left to it")
    with Store(args.db, create=False) as store:
        _print_standings(store, summary.run_id, args.samples, args.json)
    return 0


#: How many finished jobs ``arena run --verbose`` plays between two standings.
_REPORT_EVERY = 10


class _Reporter:
    """``arena run --verbose``: a line for each finished job (as ``arena show``
    lists it, after ``[done/jobs]``) and, every ``every`` jobs finished here,
    the standings as ``arena standings`` prints them."""

    def __init__(self, spec: TournamentSpec, db: str, every: int, samples: int) -> None:
        from ..tournament.schedule import build_jobs, suite_seeds

        self.entrants = list(spec.entrants)
        self.total = len(build_jobs(spec, suite_seeds(spec)))
        self.db, self.every, self.samples = db, every, samples
        self.seen = 0

    def __call__(self, run_id: int, job: Job, result: JobResult, done: int) -> None:
        """Print the line of ``result`` (and the standings when their turn comes)."""
        from ..store import Store

        line = job_lines([job], self.entrants, {job.key: result})[0]
        print(f"[{done}/{self.total}] {line}", flush=True)
        self.seen += 1
        if self.every > 0 and self.seen % self.every == 0 and done < self.total:   # the last: printed at the end
            print(f"standings after {done} of {self.total} jobs:")
            with Store(self.db, read_only=True) as store:
                _print_standings(store, run_id, self.samples, False)
            print(flush=True)


def run(args: argparse.Namespace) -> int:
    """Run ``pengyou arena ...``; the exit status."""
    from ..store import Store

    cmd = args.arena_command
    if cmd == "run":
        return _run_tournament(args)
    if cmd == "export":
        export(args)
        return 0
    with Store(args.db, read_only=True) as store:
        if cmd == "standings":
            _print_standings(store, latest_run(store, args.run, args.db), args.samples, args.json)
        elif cmd == "runs":
            runs = store.runs()
            if args.json:
                print(json.dumps([dataclasses.asdict(r) for r in runs]))
            else:
                print(f"{'run':>4s}  {'name':20s} {'status':12s} {'done':>11s} {'faults':>6s}  updated")
                for r in runs:
                    print(f"{r.id:4d}  {r.name[:20]:20s} {r.status:12s} {r.done:5d}/{r.jobs:<5d} "
                          f"{r.faults:6d}  {r.updated}")
        elif cmd == "record":
            print_record(store, args)
        elif cmd == "show":
            show(store, args)
        elif cmd == "view":
            view(store, args)
    return 0
