"""The phases of a deal and what each one says: one handler per phase.

A :class:`core.state.State` is the machine; each phase's handler holds that
phase's rules: whose decision it is (``player``), why an action is refused
(``error``), what an action changes (``apply``, including the step to the
next phase) and the legal actions (``actions``). A handler keeps nothing
itself; the deal's fields live on the state.

>>> [HANDLERS[p].phase.name for p in Phase]
['DRAW', 'BURY', 'STEAL', 'CALL', 'PLAY', 'DONE']
"""

from __future__ import annotations

from .friend_calls import CallRules
from .phase_rules import (BURY_PHASE, CALL_PHASE, DONE, DRAW, MAX_REDEALS, PHASE_NAMES, PLAY_PHASE, STEAL_PHASE,
                          DealResult, Exposure, Phase, PhaseRules)
from .play_phase import DoneRules, PlayRules
from .trump_making import BuryRules, DrawRules, StealRules, shuffled, start_draw

__all__ = ["Phase", "PHASE_NAMES", "DRAW", "BURY_PHASE", "STEAL_PHASE", "CALL_PHASE", "PLAY_PHASE", "DONE", "MAX_REDEALS",
           "DealResult", "Exposure", "PhaseRules", "HANDLERS", "start_draw", "shuffled"]

#: The handler of each phase, indexed by the phase.
HANDLERS: tuple[PhaseRules, ...] = (DrawRules(), BuryRules(), StealRules(), CallRules(), PlayRules(), DoneRules())
