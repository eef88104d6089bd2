"""Fingerprints of seeded runs: what a refactoring must leave byte for byte.

Runs ``arena run --secret base``, ``duel``, ``sprt``, ``tune`` and a ladder
(its rounds seeded) in a temporary folder with fixed seeds and secrets, and
prints one sha256 per command over what it stored and printed, with the
wall-clock fields (seconds, timestamps) and the runs' code-hash identities left out: the deals, records,
faults, standings, SPRT states and tuning steps. Run it before and after a
change that must not change behaviour, and compare the lines:

    python tests/seeded_outputs.py            # prints NAME SHA256 per command
    python tests/seeded_outputs.py --dump D   # also keeps the hashed text in folder D
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[1]

#: Fields that tell when or how long, not what, and a run's identity (a hash over the bots' source
#: files, which any edit of them changes by design): left out of every fingerprint.
CLOCK = {"seconds", "written", "created", "updated", "at", "elapsed", "time", "expires", "per_s", "games_per_s",
         "scheduling_seconds", "retired", "submitted", "started", "finished", "refit_at", "identity"}


def _strip(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _strip(v) for k, v in sorted(obj.items()) if k not in CLOCK}
    if isinstance(obj, list):
        return [_strip(v) for v in obj]
    return obj


def _json_cells(row: tuple[Any, ...]) -> list[Any]:
    out = []
    for cell in row:
        if isinstance(cell, str) and cell[:1] in "[{":
            try:
                cell = _strip(json.loads(cell))
            except ValueError:
                pass
        out.append(cell)
    return out


def _rows(db: str, query: str) -> list[list[Any]]:
    con = sqlite3.connect(Path(db).resolve().as_uri() + "?mode=ro", uri=True)
    try:
        return [_json_cells(r) for r in con.execute(query)]
    finally:
        con.close()


def _cli(folder: str, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "arena", *args], cwd=folder, capture_output=True, text=True,
                          timeout=1800, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return done.stdout


def arena_run(folder: str) -> Any:
    _cli(folder, "arena", "run", "--bots", "random", "heuristic", "ismcts:iterations=40", "--deals", "3",
         "--players", "5", "--workers", "2", "--secret", "base", "--no-progress")
    standings = json.loads(_cli(folder, "arena", "standings", "--json"))
    return {"results": _rows(os.path.join(folder, "arena.db"), "SELECT key, result_json FROM results ORDER BY job_idx"),
            "faults": _rows(os.path.join(folder, "arena.db"),
                            "SELECT key, seat, entrant, kind, message, decision FROM faults ORDER BY key, seat, id"),
            "standings": _strip(standings)}


def duel(folder: str) -> Any:
    out = _cli(folder, "duel", "heuristic", "ismcts:iterations=40", "--deals", "4", "--players", "5",
               "--secret", "base", "--save", "duel.jsonl", "--json", "--trusted", "builtins")
    lines = [_strip(json.loads(x)) for x in Path(folder, "duel.jsonl").read_text().splitlines() if x.strip()]
    return {"saved": lines, "printed": _strip(json.loads(out))}


def sprt(folder: str) -> Any:
    out = _cli(folder, "sprt", "heuristic", "random", "--elo0", "0", "--elo1", "40", "--max-deals", "12",
               "--batch", "4", "--players", "5", "--trusted", "builtins", "--secret", "base", "--workers", "2",
               "--json")
    db = os.path.join(folder, "sprt.db")
    return {"printed": _strip(json.loads(out)),
            "results": _rows(db, "SELECT key, result_json FROM results ORDER BY job_idx"),
            "sprt": _rows(db, "SELECT run_id, hypotheses, max_groups, state_json, path_json FROM sprt ORDER BY id")}


def tune(folder: str) -> Any:
    out = _cli(folder, "tune", "ismcts:iterations=30", "--param", "c=1.0,0.2,3.0,0.3,0.02", "--iterations", "4",
               "--players", "5", "--secret", "base", "--no-sprt", "--no-progress", "--workers", "2",
               "--out", "traj")
    db = os.path.join(folder, "tune.db")
    traj = json.loads(Path(folder, "traj", "trajectory.json").read_text())
    return {"printed": [x for x in out.splitlines() if not x.startswith("trajectory:")],
            "trajectory": _strip(traj),
            "steps": _rows(db, "SELECT * FROM tune_steps ORDER BY 1, 2"),
            "results": _rows(db, "SELECT key, result_json FROM results ORDER BY run_id, job_idx")}


LADDER_RUN = """
import sys
from arena.ladder import Ladder, LadderRules, run_ladder
lad = Ladder.create(sys.argv[1], LadderRules(players=5, trusted="builtins"), secret="base")
lad.submit_builtin("random", name="rnd", owner="admin")
lad.submit_builtin("heuristic", name="heur", owner="admin")
lad.submit_builtin("ismcts:iterations=40", name="mc", owner="admin")
run_ladder(lad, workers=2, rounds=2, groups_per_round=3, seed=7)   # refits after both: no clock
"""


def ladder(folder: str) -> Any:
    lad = os.path.join(folder, "lad")
    done = subprocess.run([sys.executable, "-c", LADDER_RUN, lad], cwd=folder, capture_output=True, text=True,
                          timeout=1800, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    if done.returncode != 0:
        raise SystemExit(f"ladder exited {done.returncode}: {done.stderr.strip()[-500:]}")
    db = os.path.join(lad, "ladder.db")
    standings = json.loads(_cli(folder, "ladder", "standings", "--ladder", lad, "--json"))
    # games are numbered as they end (two workers): they are compared by group and rotation
    return {"games": _rows(db, "SELECT group_id, rotation, seats_json, result_json, record FROM games "
                               "ORDER BY group_id, rotation"),
            "groups": _rows(db, "SELECT id, seed, a, b, rotations, round, tries, abandoned FROM groups ORDER BY id"),
            "faults": _rows(db, "SELECT g.group_id, g.rotation, f.entrant, f.seat, f.kind, f.message FROM faults f "
                                "JOIN games g ON g.id = f.game_id ORDER BY 1, 2, 4"),
            "standings": _strip(standings)}


COMMANDS = {"arena-run": arena_run, "duel": duel, "sprt": sprt, "tune": tune, "ladder": ladder}


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dump", default=None, help="keep the hashed text of each command in this folder")
    ap.add_argument("only", nargs="*", help=f"these commands only (default: all of {', '.join(COMMANDS)})")
    args = ap.parse_args(argv)
    unknown = [x for x in args.only if x not in COMMANDS]
    if unknown:
        ap.error(f"unknown command {unknown[0]!r}; choose from {', '.join(COMMANDS)}")
    for name in args.only or COMMANDS:
        with tempfile.TemporaryDirectory(prefix=f"pengyou-{name}-") as folder:
            text = json.dumps(COMMANDS[name](folder), sort_keys=True, indent=1)
        if args.dump:
            os.makedirs(args.dump, exist_ok=True)
            Path(args.dump, f"{name}.json").write_text(text)
        print(f"{name:10s} {hashlib.sha256(text.encode()).hexdigest()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
