"""pengyou's rules engine for Zhao Pengyou (Looking for Friends).

The public API, importable from ``core``: cards and their notation, the rules
and presets, actions, a deal (:class:`State`) and what a seat sees of it
(:class:`PlayerView`), a match, records, and the compiled rules kernel.

>>> import random
>>> from core import Action, Phase, Rules, State
>>> s = State(Rules.preset("pagat", players=5), seed=1)
>>> s.phase == Phase.DRAW, isinstance(s.random_legal_action(random.Random(1)), Action)
(True, True)
"""
from . import kernel
from .actions import Action, ActionKind
from .cards import *  # noqa: F401,F403
from .cards import __all__ as _cards_all
from .errors import IllegalActionError, InvalidActionError, PengyouError, RulesError
from .levels import PlayerLevel
from .match import Match
from .records import read_records, replay_deal, replay_match, write_deal, write_match
from .rules import PLAYER_TABLE, PRESETS, Rules
from .scoring import Side
from .state import DealResult, Phase, State
from .view import PlayerView

__all__ = list(_cards_all) + [
    "PengyouError", "RulesError", "InvalidActionError", "IllegalActionError",
    "Rules", "PRESETS", "PLAYER_TABLE", "Action", "ActionKind", "State", "Phase", "DealResult",
    "PlayerView", "Side", "PlayerLevel", "Match", "kernel",
    "read_records", "replay_deal", "replay_match", "write_deal", "write_match",
]
