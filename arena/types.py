"""The arena's data: entrants, jobs, deal outcomes, faults and job results.

These are the contract between the schedule (spec -> jobs), the player
(job -> result), the store (results in SQLite) and the ratings (results ->
standings). Every value is immutable, picklable, and round-trips through
plain JSON (``to_json`` / ``from_json``), which is how the store keeps it.

>>> out = DealOutcome(seats=(0, 1, 0, 1, 0, 1), maker=2, maker_side=(2, 5),
...                   opponents_points=75, total_points=300, maker_won=True,
...                   game_points=(-1, -1, 1, -1, -1, 1),
...                   margins=(-50.0, -50.0, 50.0, -50.0, -50.0, 50.0))
>>> DealOutcome.from_json(out.to_json()) == out
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from core.errors import PengyouError

__all__ = ["ArenaError", "Entrant", "Job", "DealOutcome", "Fault", "JobResult", "ResultColumns", "FAULT_KINDS"]


class ArenaError(PengyouError):
    """A tournament cannot go on as asked: bad spec, seed file or database.

    The message is one line a user can act on; the command line prints it
    without a traceback.
    """

#: How a bot failed: raised or reported an error (``crash``), ran out of
#: time (``timeout``), made an action the rules refuse (``illegal``), ended
#: its process (``died``), broke the protocol (``protocol``), ran out of
#: memory (``memory``), passed every chance to make trump while the deal
#: was redealt until it could not go on (``stall``).
FAULT_KINDS = ("crash", "timeout", "illegal", "died", "protocol", "memory", "stall")


@dataclass(frozen=True)
class Entrant:
    """One participant of a tournament: a unique label and a bot spec.

    ``spec`` is bot-spec text (``"ismcts:iterations=1000"``, or a module
    ``"path/to/bot.py:ClassName?key=value"``). Two entrants may share a bot
    name with different parameters; they are distinct entrants.
    """

    name: str
    spec: str

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form."""
        return {"name": self.name, "spec": self.spec}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Entrant:
        """Inverse of :meth:`to_json`."""
        return cls(str(obj["name"]), str(obj["spec"]))


@dataclass(frozen=True)
class Job:
    """One unit of work: a deal seed (or a whole match from it) for one line-up.

    ``seats[s]`` is the entrant index that holds seat ``s``. ``group`` is the
    index of the deal seed in the suite: every job of one group plays the same
    cards (duplicate deals), with the line-up rotated. ``key`` identifies the
    job within its run and is stable across runs of the same spec.
    """

    index: int
    key: str
    group: int
    seed: int
    lineup: int
    rotation: int
    seats: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form."""
        d = asdict(self)
        d["seats"] = list(self.seats)
        return d

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Job:
        """Inverse of :meth:`to_json`."""
        return cls(int(obj["index"]), str(obj["key"]), int(obj["group"]), int(obj["seed"]),
                   int(obj["lineup"]), int(obj["rotation"]), tuple(int(x) for x in obj["seats"]))


@dataclass(frozen=True)
class DealOutcome:
    """How one deal ended, seat by seat.

    ``maker_side`` are the seats on the maker's side at the end (the maker
    and the friends who joined). ``game_points[s]`` is seat ``s``'s signed
    result (plus for its side's win). ``margins[s]`` is the card-point margin
    of seat ``s``'s side: its side's points minus the other side's, in card
    points (``total_points - 2 * opponents_points`` for the maker side).
    ``forfeit`` is the seat whose fault forfeited the deal (-1: none); then
    ``maker_side`` holds that entrant's seats, the losing side (see
    :func:`arena.table.table.forfeit_outcome`).
    """

    seats: tuple[int, ...]
    maker: int
    maker_side: tuple[int, ...]
    opponents_points: int
    total_points: int
    maker_won: bool
    game_points: tuple[int, ...]
    margins: tuple[float, ...]
    forfeit: int = -1

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form."""
        d = asdict(self)
        for k in ("seats", "maker_side", "game_points", "margins"):
            d[k] = list(d[k])
        if self.forfeit < 0:
            del d["forfeit"]
        return d

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> DealOutcome:
        """Inverse of :meth:`to_json`."""
        return cls(tuple(int(x) for x in obj["seats"]), int(obj["maker"]),
                   tuple(int(x) for x in obj["maker_side"]), int(obj["opponents_points"]),
                   int(obj["total_points"]), bool(obj["maker_won"]),
                   tuple(int(x) for x in obj["game_points"]),
                   tuple(float(x) for x in obj["margins"]), int(obj.get("forfeit", -1)))


@dataclass(frozen=True)
class Fault:
    """A bot that crashed, ran past its time limit, chose an illegal action or
    ended its process (``os._exit``, a signal, a crash in compiled code).

    From that decision on, the seat is played by the tournament's fallback bot.
    """

    seat: int
    entrant: int
    kind: str
    message: str
    decision: int = 0

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form."""
        return asdict(self)

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Fault:
        """Inverse of :meth:`to_json`."""
        return cls(int(obj["seat"]), int(obj["entrant"]), str(obj["kind"]), str(obj["message"]),
                   int(obj.get("decision", 0)))


@dataclass(frozen=True)
class JobResult:
    """The result of a job: one deal outcome (deal mode) or every deal of a
    match (match mode), faults, and per-seat thinking time.

    ``match_winners`` are the seats whose players won the match (match mode;
    empty in deal mode). ``record`` is the JSON-lines record of the deal or
    match (see :mod:`core.records`), or ``""`` when recording is off.
    ``logs`` are (entrant, seat, bytes) of what sandboxed bots wrote to
    stderr, for the run's bot logs (not stored with the result).
    """

    key: str
    group: int
    seats: tuple[int, ...]
    deals: tuple[DealOutcome, ...]
    faults: tuple[Fault, ...] = ()
    seconds: tuple[float, ...] = ()
    decisions: tuple[int, ...] = ()
    match_winners: tuple[int, ...] = ()
    record: str = field(default="", compare=False)
    logs: tuple = field(default=(), compare=False)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form."""
        return {
            "key": self.key, "group": self.group, "seats": list(self.seats),
            "deals": [d.to_json() for d in self.deals],
            "faults": [f.to_json() for f in self.faults],
            "seconds": list(self.seconds), "decisions": list(self.decisions),
            "match_winners": list(self.match_winners), "record": self.record,
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> JobResult:
        """Inverse of :meth:`to_json`."""
        return cls(str(obj["key"]), int(obj["group"]), tuple(int(x) for x in obj["seats"]),
                   tuple(DealOutcome.from_json(d) for d in obj["deals"]),
                   tuple(Fault.from_json(f) for f in obj.get("faults", ())),
                   tuple(float(x) for x in obj.get("seconds", ())),
                   tuple(int(x) for x in obj.get("decisions", ())),
                   tuple(int(x) for x in obj.get("match_winners", ())),
                   str(obj.get("record", "")))


@dataclass
class ResultColumns:
    """Many results reduced to what ratings and standings read, as flat
    columns: one item a deal for ``keys`` (its result's key), ``groups``,
    ``seats`` (the deal's own, or its job's), ``sides`` (the maker's side),
    ``margins``, ``games`` (game points), ``won``, ``maker`` and
    ``forfeit``; ``faults`` as (entrant, kind); ``matches`` as (seats,
    winning seats) of each result that is a match; ``results`` and
    ``groups_with_deals`` counted.

    :meth:`from_json` reads the stored JSON straight into columns, without
    building a :class:`JobResult` for each: a million results in seconds.

    >>> d = DealOutcome((0, 1), 0, (0,), 40, 100, True, (1, -1), (20.0, -20.0))
    >>> r = JobResult("g0", 3, (0, 1), (d,))
    >>> ResultColumns.of([r]) == ResultColumns.from_json([r.to_json()])
    True
    """

    keys: list[str] = field(default_factory=list)
    groups: list[int] = field(default_factory=list)
    seats: list[tuple[int, ...]] = field(default_factory=list)
    sides: list[tuple[int, ...]] = field(default_factory=list)
    margins: list[tuple[float, ...]] = field(default_factory=list)
    games: list[tuple[int, ...]] = field(default_factory=list)
    won: list[bool] = field(default_factory=list)
    maker: list[int] = field(default_factory=list)
    forfeit: list[int] = field(default_factory=list)
    faults: list[tuple[int, str]] = field(default_factory=list)
    matches: list[tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)
    results: int = 0
    groups_with_deals: int = 0

    @classmethod
    def of(cls, results: Any) -> ResultColumns:
        """The columns of :class:`JobResult` values."""
        out = cls()
        seen: set[int] = set()
        for res in results:
            out.results += 1
            if res.deals:
                seen.add(res.group)
            for d in res.deals:
                out.keys.append(res.key)
                out.groups.append(res.group)
                out.seats.append(d.seats or res.seats)
                out.sides.append(d.maker_side)
                out.margins.append(d.margins)
                out.games.append(d.game_points)
                out.won.append(d.maker_won)
                out.maker.append(d.maker)
                out.forfeit.append(d.forfeit)
            out.faults += [(f.entrant, f.kind) for f in res.faults]
            if res.match_winners:
                out.matches.append((res.seats, res.match_winners))
        out.groups_with_deals = len(seen)
        return out

    @classmethod
    def from_json(cls, objs: Any) -> ResultColumns:
        """The columns of results in their JSON form (:meth:`JobResult.to_json`);
        a malformed one raises ``KeyError``, ``TypeError`` or ``ValueError``."""
        out = cls()
        seen: set[int] = set()
        # bound once: this loop runs once a deal, a million times for a large run
        keys, groups, seats, sides = out.keys.append, out.groups.append, out.seats.append, out.sides.append
        margins, games, won, maker = out.margins.append, out.games.append, out.won.append, out.maker.append
        forfeit, faults, matches = out.forfeit.append, out.faults.append, out.matches.append
        n = 0
        for obj in objs:
            n += 1
            key, group = str(obj["key"]), int(obj["group"])
            job_seats = tuple(map(int, obj["seats"]))
            deals = obj["deals"]
            if deals:
                seen.add(group)
            for d in deals:
                keys(key)
                groups(group)
                seats(tuple(map(int, d["seats"])) or job_seats)
                sides(tuple(map(int, d["maker_side"])))
                margins(tuple(map(float, d["margins"])))
                games(tuple(map(int, d["game_points"])))
                won(bool(d["maker_won"]))
                maker(int(d["maker"]))
                forfeit(int(d.get("forfeit", -1)))
            for f in obj.get("faults") or ():
                faults((int(f["entrant"]), str(f["kind"])))
            winners = obj.get("match_winners")
            if winners:
                matches((job_seats, tuple(map(int, winners))))
        out.results = n
        out.groups_with_deals = len(seen)
        return out
