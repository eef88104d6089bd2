"""pengyou's rules engine for Zhao Pengyou (Looking for Friends)."""
from .cards import *  # noqa: F401,F403
from .cards import __all__ as _cards_all
from .errors import IllegalActionError, InvalidActionError, PengyouError, RulesError
from .rules import Rules, PRESETS, PLAYER_TABLE

__all__ = list(_cards_all) + ["PengyouError", "RulesError", "InvalidActionError", "IllegalActionError",
                              "Rules", "PRESETS", "PLAYER_TABLE"]
