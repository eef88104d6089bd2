"""``pengyou arena show | record | view | export``: what a stored run holds.

``show`` lists a run's jobs with how each went, ``record`` prints one job's
record, ``view`` draws it as a page, and ``export`` writes every stored record
of a run (or of a ladder) into one JSON-lines file that ``pengyou replay`` and
``pengyou view`` read.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    import argparse

    from ..store import Store
    from ..types import Entrant, Fault, Job, JobResult

__all__ = ["JOBS_SHOWN", "export", "job_lines", "latest_run", "print_record", "show", "view"]


def latest_run(store: Store, run: int | None, db: str) -> int:
    """The run ``run`` of ``store`` (checked), or its latest; a one-line error when it has none."""
    from ..types import ArenaError

    if run is not None:
        store.run(run)               # raises a one-line error if it is not there
        return run
    latest = store.latest_run()
    if latest is None:
        raise ArenaError(f"{db}: no runs yet; start one with `pengyou arena run`")
    return latest



def export(args: argparse.Namespace) -> None:
    """``arena export``: every stored record of a run (or a ladder) as one JSON-lines
    file, each record's header naming the players at its seats; on the terminal or
    into a new file."""
    import sys

    from ..store import Store, write_new_file
    from ..types import ArenaError

    if args.ladder is not None:
        if args.run is not None:
            raise ArenaError("--run: not with --ladder (a ladder's games are exported all together)")
        games, skipped, what = _ladder_records(args.ladder)
        from ..ladder.folder import DB_NAME

        db = os.path.join(args.ladder, DB_NAME)
    else:
        db = args.db
        with Store(args.db, read_only=True) as store:
            run_id = latest_run(store, args.run, args.db)
            entrants = store.entrants(run_id)
            results = store.results(run_id)
        what = f"run {run_id}"
        games = [_named_record(r.record, [_name(entrants, e) for e in r.seats], f"job {r.key}")
                 for r in results if r.record]
        skipped = len(results) - len(games)
    if not games:
        raise ArenaError(f"{what} has no stored record to export"
                         + (f" ({skipped} game(s) were played with --no-record)" if skipped else ""))
    text = "".join(games)
    note = f"{len(games)} game(s) of {what}" + (f"; {skipped} without a record left out" if skipped else "")
    if args.out is None:
        sys.stdout.write(text)
        print(f"exported {note}", file=sys.stderr)
        return
    write_new_file(args.out, text, db, "-o")
    print(f"wrote {args.out}: {note} (`pengyou replay {args.out}` tells them, "
          f"`pengyou view {args.out} --game N` draws one)")


def _named_record(text: str, names: Sequence[str], where: str) -> str:
    """A stored record's JSON lines, its header's ``players`` set to ``names``
    (who held each seat) when it has none."""
    from ..types import ArenaError

    lines = text.splitlines()
    try:
        head = json.loads(lines[0]) if lines else None
    except json.JSONDecodeError:
        head = None
    if not isinstance(head, dict):
        raise ArenaError(f"{where}: the stored record does not start with a header; the database is damaged")
    if not head.get("players"):
        head["players"] = list(names)
        lines[0] = json.dumps(head)
    return "".join(line + "\n" for line in lines if line.strip())


def _ladder_records(folder: str) -> tuple[list[str], int, str]:
    """The records of a ladder's games, each named by its entrants' labels;
    how many games had none; and how the ladder is named in messages."""
    from ..ladder.folder import DB_NAME
    from ..ladder.store import LadderStore
    from ..types import ArenaError

    path = os.path.join(folder, DB_NAME)
    if not os.path.isfile(path):
        raise ArenaError(f"--ladder {folder}: no ladder here (no {DB_NAME})")
    out: list[str] = []
    skipped = 0
    with LadderStore(path, create=False, read_only=True) as st:
        labels = {e.id: e.label for e in st.entrants()}
        for row in st.games():
            _, record = st.game(row.id)
            if not record:
                skipped += 1
                continue
            names = [labels.get(e, "?") for e in row.seats]
            out.append(_named_record(record, names, f"ladder game {row.id}"))
    return out, skipped, f"ladder {folder}"


def print_record(store: Store, args: argparse.Namespace) -> None:
    """``arena record``: one stored job's record, on the terminal or into a new file."""
    run_id = latest_run(store, args.run, args.db)
    record = _stored_record(store, run_id, args.key)
    if args.out is None:
        print(record, end="")
        return
    from ..store import write_new_file

    write_new_file(args.out, record, args.db, "--out")


def _stored_record(store: Store, run_id: int, key: str) -> str:
    """The record text of job ``key`` of a run (a one-line error if there is none)."""
    from ..types import ArenaError

    found = [r for r in store.results(run_id) if r.key == key]
    if not found:
        raise ArenaError(f"run {run_id} has no result for job {key!r} "
                         "(job keys look like g0-l1-r0; see `pengyou arena show`)")
    if not found[0].record:
        raise ArenaError(f"job {key!r} of run {run_id} was played without a record (--no-record)")
    return found[0].record


def view(store: Store, args: argparse.Namespace) -> None:
    """``arena view``: the viewer's page of one stored job."""
    import io

    from core.records import read_records

    from ..render.viewer import write_page
    from ..store import refuse_database_path
    from .deals import open_page

    run_id = latest_run(store, args.run, args.db)
    text = _stored_record(store, run_id, args.key)
    out = args.out or f"run{run_id}-{args.key}.html"
    refuse_database_path(out, args.db, "-o")
    write_page(read_records(io.StringIO(text)), f"run {run_id}, job {args.key}", out)
    print(f"wrote {out}")
    if args.open:
        open_page(out)


def show(store: Store, args: argparse.Namespace) -> None:
    """``arena show``: a run's spec, progress, entrants, each job's outcome and the faults."""
    from ..tournament.runner import bot_log_dir

    run_id = latest_run(store, args.run, args.db)
    info = store.run(run_id)
    saved = store.spec_json(run_id)
    faults = store.faults(run_id)
    logs = bot_log_dir(args.db, run_id)
    entrants = store.entrants(run_id)
    jobs = store.jobs(run_id)
    played = {r.key: r for r in store.results(run_id)}
    if args.json:
        print(json.dumps({"run": dataclasses.asdict(info), "spec": saved, "bot_logs": logs,
                          "faults": [dict(job=k, **f.to_json()) for k, f in faults],
                          "jobs": [_job_json(j, entrants, played.get(j.key)) for j in jobs]}))
        return
    print(f"run {info.id}: {info.name}, {info.status}, {info.done} of {info.jobs} jobs, "
          f"created {info.created}, updated {info.updated}")
    print(f"rules: {saved.get('preset')} with {saved.get('players')} players"
          + (f", settings {dict(saved['settings'])}" if saved.get("settings") else "")
          + f"; suite {saved.get('suite')}, {saved.get('deals') or 'all'} deals, mode {saved.get('mode')}, "
          f"line-ups {saved.get('lineups')}, time limit {saved.get('time_limit') or 'none'}")
    print(f"bots: trusted {saved.get('trusted', 'none')}, on fault {saved.get('on_fault', 'fallback')}; "
          f"what sandboxed bots wrote to stderr: {logs}{'' if os.path.isdir(logs) else ' (none yet)'}")
    print("entrants:")
    for i, e in enumerate(entrants):
        print(f"  {i}  {e.name}  ({e.spec})")
    shown = jobs if args.jobs else jobs[:JOBS_SHOWN]
    print(f"jobs: {len(played)} of {len(jobs)} played (`pengyou arena record KEY` prints one's record)")
    if shown:
        print("  (margin: the card points of the maker's side minus the other side's; game: the maker's "
              "game points; a forfeited deal: the forfeiting seat's; a match: its first winner's, "
              "over all its deals)")
    for line in job_lines(shown, entrants, played):
        print("  " + line)
    if len(jobs) > len(shown):
        print(f"  ... {len(jobs) - len(shown)} more (use --jobs or --json)")
    print(f"faults: {len(faults)}")
    for key, f in faults[:50]:
        print(f"  job {key} seat {f.seat} ({f.kind}, decision {f.decision}): {f.message}")
    if len(faults) > 50:
        print(f"  ... {len(faults) - 50} more (use --json)")


#: Jobs ``arena show`` lists without ``--jobs``.
JOBS_SHOWN = 50

#: The longest entrant name ``arena show`` prints in its job lines; longer ones are cut.
_NAME_WIDTH = 16


def _short(name: str) -> str:
    """An entrant's name for a job line: cut to :data:`_NAME_WIDTH` characters.

    >>> _short("heuristic"), _short("ismcts:iterations=1000,c=0.7")
    ('heuristic', 'ismcts:iterat...')
    """
    return name if len(name) <= _NAME_WIDTH else name[:_NAME_WIDTH - 3] + "..."


def _name(entrants: Sequence[Entrant], index: int) -> str:
    """The name of entrant ``index`` (``?`` for an index the run does not have)."""
    return entrants[index].name if 0 <= index < len(entrants) else "?"


@dataclasses.dataclass(frozen=True)
class _Outcome:
    """What came of a played job, from its stored result.

    ``maker`` and ``margin`` (the card margin of the maker's side, as
    stored in the deal's ``margins``) are for a job of one deal; a match has
    neither. ``winners`` are the seats that won: the winning side of the deal
    (``side`` ``"maker"`` or ``"defenders"``; ``"forfeit"`` when a fault
    forfeited it: then ``maker`` is the forfeiting seat, whose entrant's seats
    lost, and ``margin`` theirs), or the match's winners (``side``
    ``"match"``). ``margins`` and ``game_points`` are each seat's,
    summed over the job's deals (empty if a deal does not have them for
    every seat); ``forfeits`` the seats whose fault
    forfeited a deal.
    """

    deals: int
    maker: Optional[int]
    margin: Optional[float]
    side: str
    winners: tuple[int, ...]
    margins: tuple[float, ...]
    game_points: tuple[int, ...]
    forfeits: tuple[int, ...]

    @classmethod
    def of(cls, result: JobResult) -> Optional[_Outcome]:
        """The outcome of ``result``; None if it holds no deal."""
        deals = result.deals
        if not deals:
            return None
        n = len(result.seats)
        whole = all(len(d.margins) == n for d in deals)        # else: not stored seat by seat
        margins = tuple(sum(d.margins[s] for d in deals) for s in range(n)) if whole else ()
        whole = all(len(d.game_points) == n for d in deals)
        games = tuple(sum(d.game_points[s] for d in deals) for s in range(n)) if whole else ()
        forfeits = tuple(d.forfeit for d in deals if d.forfeit >= 0)
        if len(deals) == 1 and not result.match_winners:
            d = deals[0]
            margin = d.margins[d.maker] if 0 <= d.maker < len(d.margins) else None
            winners = d.maker_side if d.maker_won else tuple(s for s in range(n) if s not in d.maker_side)
            side = "forfeit" if d.forfeit >= 0 else "maker" if d.maker_won else "defenders"
            return cls(1, d.maker, margin, side, winners, margins, games, forfeits)
        return cls(len(deals), None, None, "match", tuple(result.match_winners), margins, games, forfeits)

    def to_json(self, entrants: Sequence[Entrant], seats: Sequence[int]) -> dict[str, Any]:
        """The fields ``arena show --json`` adds to a played job."""
        return {"maker": self.maker, "margin": self.margin, "winner_side": self.side,
                "winners": list(self.winners),
                "winner_entrants": list(dict.fromkeys(_name(entrants, seats[s]) for s in self.winners
                                                      if 0 <= s < len(seats))),
                "margins": list(self.margins), "game_points": list(self.game_points),
                "forfeits": list(self.forfeits)}

    def columns(self, entrants: Sequence[Entrant], seats: Sequence[int]) -> list[str]:
        """The text columns of a job line: how it went, margin, who won, game points."""
        if self.side == "match":
            first = self.winners[0] if self.winners else None
            how = f"match, {self.deals} deals" + (f", {len(self.forfeits)} forfeited" if self.forfeits else "")
            margin = self.margins[first] if first is not None and first < len(self.margins) else None
            game: Optional[int] = (self.game_points[first] if first is not None and first < len(self.game_points)
                                   else None)
            who = "match winners"
        else:
            assert self.maker is not None
            how = f"seat {self.maker} forfeited" if self.side == "forfeit" else f"maker seat {self.maker}"
            margin = self.margin
            game = self.game_points[self.maker] if self.maker < len(self.game_points) else None
            who = {"maker": "makers", "defenders": "defenders", "forfeit": "the others"}[self.side]
        names = ", ".join(dict.fromkeys(_short(_name(entrants, seats[s])) for s in self.winners
                                        if 0 <= s < len(seats)))
        won = f"{who} {','.join(map(str, self.winners))} ({names})" if self.winners else f"{who}: none"
        return [how, "-" if margin is None else f"{margin:+.0f}", won, "-" if game is None else f"{game:+d}"]


def _fault_json(f: Fault, entrants: Sequence[Entrant]) -> dict[str, Any]:
    """One of a job's faults for ``arena show --json``: the stored fault and the entrant's name."""
    return dict(f.to_json(), name=_name(entrants, f.entrant))


def _job_json(job: Job, entrants: Sequence[Entrant], result: Optional[JobResult]) -> dict[str, Any]:
    """A job for ``arena show --json``: its key, seed, the entrant at each seat, whether it was
    played and how many faults it had; then its ``status`` (``pending``: no result stored yet;
    ``played``; ``no outcome``: a stored result without a deal), the fields of its outcome
    (see :class:`_Outcome`; None or empty while there is none) and its faults (``fault_list``)."""
    out: dict[str, Any] = {"key": job.key, "group": job.group, "seed": job.seed,
                           "seats": [entrants[e].name for e in job.seats],
                           "played": result is not None,
                           "faults": len(result.faults) if result is not None else 0}
    outcome = _Outcome.of(result) if result is not None else None
    out["status"] = "pending" if result is None else "played" if outcome is not None else "no outcome"
    out["deals"] = len(result.deals) if result is not None else 0
    if outcome is not None:
        out.update(outcome.to_json(entrants, job.seats))
    else:
        out.update({"maker": None, "margin": None, "winner_side": None, "winners": [], "winner_entrants": [],
                    "margins": [], "game_points": [], "forfeits": []})
    out["fault_list"] = [_fault_json(f, entrants) for f in result.faults] if result is not None else []
    return out


def job_lines(jobs: Sequence[Job], entrants: Sequence[Entrant], played: Mapping[str, JobResult]) -> list[str]:
    """The jobs as ``arena show`` lists them, one line each: key, seed and
    line-up by seat, then what came of it in columns as wide as their widest
    entry: the maker's seat (or the seat that forfeited the deal, or the
    match's deals), the maker side's card margin, who won (the side, its seats
    and entrants), the maker's game points and the faults (kind, seat,
    entrant); ``pending: not played`` for a job without a result. Entrant names
    longer than :data:`_NAME_WIDTH` are cut.

    >>> from arena.types import DealOutcome, Entrant, Fault, Job, JobResult
    >>> e = [Entrant("a", "random"), Entrant("b", "heuristic")]
    >>> jobs = [Job(0, "g0-l0-r0", 0, 7, 0, 0, (0, 1, 0, 1, 0)), Job(1, "g0-l0-r1", 0, 7, 0, 1, (1, 0, 1, 0, 1))]
    >>> d = DealOutcome((0, 1, 0, 1, 0), 1, (1, 2), 40, 200, True, (-1, 1, 1, -1, -1),
    ...                 (-120.0, 120.0, 120.0, -120.0, -120.0))
    >>> r = JobResult("g0-l0-r0", 0, (0, 1, 0, 1, 0), (d,), (Fault(3, 1, "crash", "boom", 9),))
    >>> for line in job_lines(jobs, e, {"g0-l0-r0": r}):
    ...     print(line)
    g0-l0-r0  suite seed 7  seats 0:a 1:b 2:a 3:b 4:a  maker seat 1  margin +120  won by makers 1,2 (b, a)  game +1  faults crash at seat 3 (b)
    g0-l0-r1  suite seed 7  seats 0:b 1:a 2:b 3:a 4:b  pending: not played
    """
    heads: list[str] = []
    rows: list[Optional[list[str]]] = []
    tails: list[str] = []
    for job in jobs:
        seats = " ".join(f"{s}:{_short(_name(entrants, e))}" for s, e in enumerate(job.seats))
        heads.append(f"{job.key}  suite seed {job.seed}  seats {seats}")
        result = played.get(job.key)
        outcome = _Outcome.of(result) if result is not None else None
        if result is None:
            rows.append(None)
            tails.append("pending: not played")
        elif outcome is None:
            rows.append(None)
            tails.append("no outcome: the stored result holds no deal")
        else:
            rows.append(outcome.columns(entrants, job.seats))
            tails.append("faults " + ("; ".join(f"{f.kind} at seat {f.seat} ({_short(_name(entrants, f.entrant))})"
                                                for f in result.faults) or "-"))
    head_w = max((len(h) for h in heads), default=0)
    cells = [r for r in rows if r is not None]
    widths = [max(len(r[i]) for r in cells) for i in range(4)] if cells else [0] * 4
    lines = []
    for head, row, tail in zip(heads, rows, tails):
        if row is None:
            lines.append(f"{head:<{head_w}}  {tail}")
            continue
        how, margin, won, game = row
        lines.append(f"{head:<{head_w}}  {how:<{widths[0]}}  margin {margin:>{widths[1]}}  "
                     f"won by {won:<{widths[2]}}  game {game:>{widths[3]}}  {tail}")
    return lines
