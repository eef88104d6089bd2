"""``pengyou report``: a run, a ladder, an SPRT or a tuning run as one HTML page."""

from __future__ import annotations

import argparse
import os
from typing import Any

from .common import UsageError

__all__ = ["add_parsers", "run"]

#: What ``--sprt`` without an id stands for: the latest test in the database
#: (not a text: argparse would read a text through ``type=int``).
LATEST = object()


def add_parsers(sub: Any) -> None:
    """Add ``report`` to the subcommands ``sub``."""
    p = sub.add_parser("report", help="a run, a ladder, an SPRT or a tuning run as one self-contained HTML page")
    p.add_argument("run", type=int, nargs="?", default=None, help="run id (default: the latest)")
    p.add_argument("--ladder", default=None, metavar="FOLDER", help="a ladder (its folder): every game it has played")
    p.add_argument("--sprt", type=int, nargs="?", const=LATEST, default=None, metavar="ID",
                   help="the SPRT of this id, the one `pengyou sprt` prints (without ID: the latest; "
                        "default database: sprt.db)")
    p.add_argument("--tune", type=int, default=None, metavar="ID",
                   help="the tuning run of this id (default database: tune.db)")
    p.add_argument("--db", default=None, help="results database (default: arena.db, sprt.db or tune.db)")
    p.add_argument("-o", "--out", default="report.html", help="the page to write (default: report.html)")
    p.add_argument("--samples", type=int, default=1000, help="bootstrap samples for the Elo intervals")
    p.add_argument("--games", type=int, default=200,
                   help="viewer pages written for the run's games, faulting ones first (default 200)")
    p.add_argument("--open", action="store_true", help="open the page in the web browser too")


def run(args: argparse.Namespace) -> int:
    """Write the report; the exit status."""
    from ..report import ladder_report, run_report, tune_report
    from ..tournament.sprt import sprt_runs
    from ..types import ArenaError

    chosen = [x for x in (args.run, args.ladder, args.sprt, args.tune) if x is not None]
    if len(chosen) > 1:
        raise UsageError("report: give a run, --ladder FOLDER, --sprt ID or --tune ID, not several")
    if args.ladder is not None and args.db is not None:
        raise UsageError("report: --db is for runs, SPRTs and tuning runs; a ladder keeps its own database")
    if args.samples < 1:
        raise UsageError(f"--samples: {args.samples} is not at least 1")
    if args.games < 0:
        raise UsageError(f"--games: {args.games} is negative")
    folder = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(folder):
        raise ArenaError(f"--out {args.out}: no such folder {folder}")
    stem = os.path.splitext(os.path.basename(args.out))[0]
    pages: dict[str, str] = {}
    if args.ladder is not None:
        from ..ladder.folder import DB_NAME
        from ..store import refuse_database_path

        refuse_database_path(args.out, os.path.join(args.ladder, DB_NAME), "-o")
        text, pages = ladder_report(args.ladder, args.samples, games_dir=f"{stem}_games", games=args.games)
        return _write(args, text, pages)
    db = args.db or ("tune.db" if args.tune is not None else "sprt.db" if args.sprt is not None else "arena.db")
    if not os.path.exists(db):
        raise ArenaError(f"{db}: no such database")
    from ..store import refuse_database_path

    refuse_database_path(args.out, db, "-o")
    if args.tune is not None:
        text = tune_report(db, args.tune)
    else:
        sprt = None if args.sprt is None else _sprt_id(db, args.sprt, sprt_runs(db))
        text, pages = run_report(db, sprt if sprt is not None else args.run, args.samples,
                                 games_dir=f"{stem}_games", games=args.games)
    return _write(args, text, pages)


def _sprt_id(db: str, asked: Any, ids: list[int]) -> int:
    """The test ``--sprt`` names (:data:`LATEST`: the newest of ``ids``, the tests in ``db``)."""
    from ..types import ArenaError

    if not ids:
        raise ArenaError(f"{db}: " + ("" if asked is LATEST else f"run {asked} is not an SPRT: ")
                         + "no SPRT here; start one with `pengyou sprt`")
    if asked is LATEST:
        return max(ids)
    if asked not in ids:
        raise ArenaError(f"{db}: run {asked} is not an SPRT (the SPRTs here: {', '.join(map(str, ids))})")
    return int(asked)


def _write(args: argparse.Namespace, text: str, pages: dict[str, str]) -> int:
    from ..report import write_report
    from .deals import open_page

    written = write_report(args.out, text, pages)
    print(f"wrote {args.out}" + (f" and {len(written) - 1} game page(s) in {os.path.splitext(args.out)[0]}_games/"
                                 if len(written) > 1 else ""))
    if args.open:
        open_page(args.out)
    return 0
