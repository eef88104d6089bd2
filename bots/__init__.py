"""Bots for Zhao Pengyou behind one protocol (they see a player's view, never the state).

>>> from bots import make_bot, registry
>>> "random" in registry()
True
"""

from .protocol import Bot, BotError, BotMoveError, BotSpec, Param, ParamInfo
from .registry import describe_bot, load_bot_module, make_bot, parse_spec, register, registry
from .table import play_deal, play_table

__all__ = ["Bot", "BotError", "BotMoveError", "BotSpec", "Param", "ParamInfo", "describe_bot", "load_bot_module",
           "make_bot", "parse_spec", "play_deal", "play_table", "register", "registry"]
