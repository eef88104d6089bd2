"""The phases of a deal and the base of their handlers.

A deal moves through :class:`Phase` in order (the steal may go back to the
bury); each phase has one handler (:class:`PhaseRules`), in the module of
its rules: :mod:`core.trump_making` (draw, bury, steal),
:mod:`core.friend_calls` (calls), :mod:`core.play_phase` (play, done).
:mod:`core.phases` gathers them.

>>> PHASE_NAMES
('draw', 'bury', 'steal', 'call', 'play', 'done')
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from .actions import Action, NumberEnum
from .errors import IllegalActionError

if TYPE_CHECKING:
    from .state import State

__all__ = ["Phase", "PHASE_NAMES", "DRAW", "BURY_PHASE", "STEAL_PHASE", "CALL_PHASE", "PLAY_PHASE", "DONE",
           "MAX_REDEALS", "DealResult", "Exposure", "PhaseRules"]


class Phase(NumberEnum):
    """The phases of a deal, in order; members are the whole numbers 0..5 and
    print as those numbers (a view names them: ``PHASE_NAMES``). ``STEAL``
    (the seats' chance to take a buried kitty, ``rules.kitty_theft``) may
    go back to ``BURY``.

    >>> Phase.PLAY > Phase.BURY, PHASE_NAMES[Phase.CALL], PHASE_NAMES[Phase.STEAL]
    (True, 'call', 'steal')
    """

    DRAW, BURY, STEAL, CALL, PLAY, DONE = range(6)


DRAW, BURY_PHASE, STEAL_PHASE, CALL_PHASE, PLAY_PHASE, DONE = Phase
PHASE_NAMES = tuple(p.name.lower() for p in Phase)
#: Deals in a row without a trump maker before the engine gives up.
MAX_REDEALS = 50


@dataclass(frozen=True)
class DealResult:
    """The end of a deal: sides, the opponents' card points and the game points."""

    maker: int
    maker_side: frozenset[int]
    opponents_points: int
    kitty_points: int
    kitty_multiplier: int
    kitty_to_opponents: bool
    winner: Optional[str]
    game_points: int
    next_side: Optional[str]
    #: the opponents took the last trick with a single jack in a deal played
    #: at rank J (what ``rules.jack_reset`` reads; see :func:`core.levels.apply_deal`)
    jack_last: bool = False


@dataclass
class Exposure:
    """An exposure that stands: who showed how many copies of which face."""

    seat: int
    face: int
    count: int


class PhaseRules:
    """The rules of one phase (the base says: nobody decides, nothing is legal)."""

    phase: Phase

    def player(self, s: State) -> int:
        """The seat to decide now."""
        return -1

    def error(self, s: State, seat: int, action: Action) -> Optional[str]:
        """Why ``seat`` may not take ``action`` now, or None."""
        return "the deal is over"

    def apply(self, s: State, seat: int, action: Action) -> None:
        """Take a legal ``action`` for ``seat`` (checked by the caller)."""
        raise IllegalActionError("the deal is over")

    def actions(self, s: State, seat: int) -> Iterator[Action]:
        """Each legal action of ``seat`` once."""
        return iter(())

    def texts(self, s: State, seat: int) -> Iterator[str]:
        """Each legal action of ``seat`` once, in the notation (as :meth:`actions`)."""
        for a in self.actions(s, seat):
            yield str(a)
