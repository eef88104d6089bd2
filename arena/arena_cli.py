"""``pengyou arena run | standings | show | runs | record``: the tournament commands.

``run`` takes a TOML spec, or entrants with ``--bots``, or nothing (the
built-in default tournament, :data:`DEFAULT_SPEC`); options override the
spec's fields. It plays what is missing, then prints the standings.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from .cli import parse_settings
from .ratings import format_cross_table, format_standings, standings
from .runner import bot_log_dir, run_tournament, setup_logging
from .spec import TournamentSpec, spec_from_options, spec_from_toml
from .store import Store
from .types import ArenaError

__all__ = ["DEFAULT_SPEC", "build_spec", "expand_grid", "run_arena_command"]

#: The tournament ``pengyou arena run`` plays when given no spec and no bots.
DEFAULT_SPEC = Path(__file__).with_name("default.toml")


def expand_grid(text: str) -> list[str]:
    """Expand ``{a,b,...}`` groups of a bot spec into one spec per combination
    (a parameter sweep: each becomes its own entrant).

    >>> expand_grid("ismcts:iterations={200,800},c={0.5,1.0}")
    ['ismcts:iterations=200,c=0.5', 'ismcts:iterations=200,c=1.0', 'ismcts:iterations=800,c=0.5', 'ismcts:iterations=800,c=1.0']
    >>> expand_grid("heuristic")
    ['heuristic']
    """
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


def _latest(store: Store, run: int | None, db: str) -> int:
    if run is not None:
        store.run(run)               # raises a one-line error if it is not there
        return run
    latest = store.latest_run()
    if latest is None:
        raise ArenaError(f"{db}: no runs yet; start one with `pengyou arena run`")
    return latest


def _print_standings(store: Store, run_id: int, samples: int, as_json: bool) -> None:
    if samples < 1:
        raise ArenaError(f"--samples: {samples} is not at least 1")
    info = store.run(run_id)
    st = standings(store.results(run_id), store.entrants(run_id), samples=samples, seed=run_id)
    if as_json:
        print(json.dumps({"run": dataclasses.asdict(info), "standings": st.to_json()}))
        return
    print(f"run {info.id} ({info.name}): {info.done} of {info.jobs} jobs, {info.status}")
    print(format_standings(st))
    print()
    print(format_cross_table(st))


def run_arena_command(args: argparse.Namespace) -> int:
    """Dispatch ``pengyou arena ...``."""
    cmd = args.arena_command
    if cmd == "run":
        spec = build_spec(args)
        if args.workers is not None and args.workers < 1:
            raise ArenaError(f"--workers: {args.workers} is not at least 1")
        log_path = args.log if args.log is not None else os.path.splitext(args.db)[0] + ".log"
        setup_logging(log_path)
        try:
            summary = run_tournament(spec, args.db, workers=args.workers, cluster=args.cluster,
                                     progress=not (args.no_progress or args.json), max_jobs=args.max_jobs,
                                     secret=args.secret, pin=not args.no_pin)
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
    with Store(args.db, read_only=True) as store:
        if cmd == "standings":
            _print_standings(store, _latest(store, args.run, args.db), args.samples, args.json)
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
            run_id = _latest(store, args.run, args.db)
            found = [r for r in store.results(run_id) if r.key == args.key]
            if not found:
                raise ArenaError(f"run {run_id} has no result for job {args.key!r} "
                                 "(job keys look like g0-l1-r0; see `pengyou arena show`)")
            if not found[0].record:
                raise ArenaError(f"job {args.key!r} of run {run_id} was played without a record (--no-record)")
            if args.out is None:
                print(found[0].record, end="")
            else:
                try:
                    with open(args.out, "x", encoding="utf-8") as fh:
                        fh.write(found[0].record)
                except FileExistsError:
                    raise ArenaError(f"--out {args.out}: the file exists; choose another name") from None
                except OSError as exc:
                    raise ArenaError(f"--out {args.out}: {exc.strerror or exc}") from None
        elif cmd == "show":
            run_id = _latest(store, args.run, args.db)
            info = store.run(run_id)
            saved = store.spec_json(run_id)
            faults = store.faults(run_id)
            logs = bot_log_dir(args.db, run_id)
            if args.json:
                print(json.dumps({"run": dataclasses.asdict(info), "spec": saved, "bot_logs": logs,
                                  "faults": [dict(job=k, **f.to_json()) for k, f in faults]}))
                return 0
            print(f"run {info.id}: {info.name}, {info.status}, {info.done} of {info.jobs} jobs, "
                  f"created {info.created}, updated {info.updated}")
            print(f"rules: {saved.get('preset')} with {saved.get('players')} players"
                  + (f", settings {dict(saved['settings'])}" if saved.get("settings") else "")
                  + f"; suite {saved.get('suite')}, {saved.get('deals') or 'all'} deals, mode {saved.get('mode')}, "
                  f"line-ups {saved.get('lineups')}, time limit {saved.get('time_limit') or 'none'}")
            print(f"bots: trusted {saved.get('trusted', 'none')}, on fault {saved.get('on_fault', 'fallback')}; "
                  f"what sandboxed bots wrote to stderr: {logs}{'' if os.path.isdir(logs) else ' (none yet)'}")
            print("entrants:")
            for i, e in enumerate(store.entrants(run_id)):
                print(f"  {i}  {e.name}  ({e.spec})")
            print(f"faults: {len(faults)}")
            for key, f in faults[:50]:
                print(f"  job {key} seat {f.seat} ({f.kind}, decision {f.decision}): {f.message}")
            if len(faults) > 50:
                print(f"  ... {len(faults) - 50} more (use --json)")
    return 0
