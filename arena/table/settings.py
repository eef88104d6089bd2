"""What one table is played under: one frozen value, every default stated once.

A tournament, a ladder round, a duel, a tuning batch and a submission's
validation deal all play their jobs under a :class:`TableSettings`: the
rules, whether a job is a deal or a match, the bots' limits, which bots may
run inside the referee, what a fault costs, and the run's secret. The specs
of those modes (``TournamentSpec``, ``TuneSpec``, ``LadderRules``, the duel)
take their defaults from here and build one value for their tables.

>>> from core.rules import Rules
>>> s = TableSettings(Rules.preset("pagat", players=5))
>>> s.mode, s.trusted, s.on_fault, s.limits.move, s.limits.overage
('deals', 'none', 'forfeit', 5.0, 30.0)
>>> TableSettings(Rules.preset("pagat", players=5), trusted="all").check()
Traceback (most recent call last):
arena.types.ArenaError: trusted: 'all' is not one of none, builtins
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from core.rules import Rules

from ..sandbox import Walls, protocol
from ..types import ArenaError

__all__ = ["MODES", "FAULT_POLICIES", "TRUST", "Limits", "TableSettings"]

#: What a job plays: one deal, or a whole match from the job's seed.
MODES = ("deals", "matches")

#: What happens after a fault: the faulting entrant forfeits the deal, or
#: the fallback bot finishes the seat's deal (for experiments; marked).
FAULT_POLICIES = ("forfeit", "fallback")

#: Which bots may run inside the referee's process: none, or the built-in ones.
TRUST = ("none", "builtins")


@dataclass(frozen=True)
class Limits:
    """Time and size limits of the bots (seconds, MiB)."""

    move: float = 5.0            #: per decision (0: none)
    overage: float = 30.0        #: banked per deal, for decisions that run over
    startup: float = 10.0        #: to answer ``hello``
    memory_mb: int = 1024
    processes: int = 64
    disk_mb: int = 64
    cpu_seconds: int = 3600
    stderr_bytes: int = 1 << 16  #: kept per job and seat
    log_bytes: int = 1 << 20     #: kept per entrant and seat over a run

    def walls(self, read: tuple[str, ...] = ()) -> Walls:
        """The process walls for these limits."""
        return Walls(memory_mb=self.memory_mb, processes=self.processes, disk_mb=self.disk_mb,
                     cpu_seconds=self.cpu_seconds, read=read)

    def to_hello(self) -> dict[str, Any]:
        """The limits as the ``hello`` message states them."""
        return {"move": self.move, "overage": self.overage, "startup": self.startup,
                "memory_mb": self.memory_mb, "processes": self.processes, "disk_mb": self.disk_mb,
                "cpu_seconds": self.cpu_seconds, "line_bytes": protocol.MAX_LINE}


def _seconds(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < math.inf


@dataclass(frozen=True)
class TableSettings:
    """Everything a table is played under but the job and its entrants.

    ``mode``: one of :data:`MODES`. ``limits``: the bots' time (``move``
    seconds a decision, 0 for none, and ``overage`` banked a deal) and
    sizes. ``trusted``: ``"none"`` runs every bot in a sandboxed process of
    its own, ``"builtins"`` runs the built-in bots inside the referee (for
    speed; modules and programs are always sandboxed, and a built-in that
    reads the state always runs inside). ``on_fault``: ``"forfeit"`` (the
    faulting entrant loses the deal by the most; the deal is finished with
    random legal actions) or ``"fallback"`` (the ``fallback`` bot finishes
    the seat's deal; an experiment's setting). ``cheating``: allow a bot
    that reads the state (the oracle). ``record``: keep the JSON-lines
    record of each job. ``secret`` keys every bot's random seed and the
    shuffle (without one, a job's seed is its deal's).
    """

    rules: Rules
    mode: str = "deals"
    limits: Limits = field(default_factory=Limits)
    trusted: str = "none"
    on_fault: str = "forfeit"
    fallback: str = "heuristic"
    cheating: bool = False
    record: bool = True
    secret: bytes = b""

    @property
    def time_limit(self) -> float:
        """Seconds one decision may take (0: no limit)."""
        return self.limits.move

    def check(self) -> TableSettings:
        """These settings, or a one-line :class:`~arena.types.ArenaError` naming the bad one."""
        if self.mode not in MODES:
            raise ArenaError(f"mode: {self.mode!r} is not one of {', '.join(MODES)}")
        if self.on_fault not in FAULT_POLICIES:
            raise ArenaError(f"on_fault: {self.on_fault!r} is not one of {', '.join(FAULT_POLICIES)}")
        if self.trusted not in TRUST:
            raise ArenaError(f"trusted: {self.trusted!r} is not one of {', '.join(TRUST)}")
        if not _seconds(self.limits.move):
            raise ArenaError(f"time limit: {self.limits.move!r} is not a number of seconds, at least 0")
        if not _seconds(self.limits.overage):
            raise ArenaError(f"overage: {self.limits.overage!r} is not a number of seconds, at least 0")
        return self
