"""The bot protocol, bot specs and the registry, under the one name users
import (``from bots.base import ...``): the protocol and the pieces a bot
author needs are :mod:`bots.protocol`'s, building bots from specs is
:mod:`bots.registry`'s, and the loop that plays a deal is :mod:`bots.table`.

What a bot is asked and when is written once, in :mod:`bots.protocol`.

>>> bot = make_bot("random")
>>> callable(bot.step) and callable(bot.restart)
True
"""

from __future__ import annotations

from .protocol import Bot, BotError, BotMoveError, BotSpec, Param, ParamInfo, keep_params
from .registry import (FAMILIES, REGISTERED, bot_class, describe_bot, load_bot_module, make_bot, parse_spec,
                       reads_state, register, registry, seated_deal)

__all__ = [
    "Bot", "BotError", "BotMoveError", "BotSpec", "register", "registry", "make_bot", "parse_spec",
    "load_bot_module", "Param", "keep_params", "ParamInfo", "describe_bot", "reads_state", "bot_class", "FAMILIES",
    "seated_deal",
]

#: The registry's table of classes by name (:data:`bots.registry.REGISTERED`), the same dict.
_REGISTRY = REGISTERED
