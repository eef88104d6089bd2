"""What a bot author needs: the bot protocol (:class:`Bot`), bot specs
(:class:`BotSpec`), parameter declarations (:class:`Param`,
:class:`ParamInfo`, :func:`keep_params`) and the bot errors. Building bots
from specs is :mod:`bots.registry`'s; the loop that plays a deal is
:mod:`bots.table`'s.

A bot sees :class:`core.view.PlayerView` values, never the state:

- ``restart(rules, seat, rng)`` before each deal;
- ``inform(view, seat, action)`` (optional) after any seat's action, with the
  bot's own view after it (a bot without it, or whose ``inform`` is None, is
  not told: the table then builds no view for it between its own turns);
- ``step(view) -> Action`` whenever the bot is to move.

A concrete bot imports this module (and ``core``), never the registry: a
parameter that is itself a bot is declared ``Param(..., bot=True)``, and the
registry builds that bot from its spec and hands it in.

>>> class Passer:
...     def restart(self, rules, seat, rng): pass
...     def step(self, view): return Action.from_str("pass")
>>> isinstance(Passer(), Bot)
True
"""

from __future__ import annotations

import inspect
import random
from dataclasses import dataclass
from typing import Any, NamedTuple, Optional, Protocol, runtime_checkable

from core.actions import Action
from core.errors import IllegalActionError, PengyouError
from core.rules import Rules
from core.view import PlayerView

__all__ = ["Bot", "BotError", "BotMoveError", "BotSpec", "Param", "ParamInfo", "keep_params"]


class BotError(PengyouError):
    """A bot spec, module or class is unusable (the message says why)."""


class BotMoveError(IllegalActionError):
    """A bot's action that the rules refuse; ``seat`` is the bot's seat.

    >>> BotMoveError(3, "seat 3: the bot returned None, not an Action").seat
    3
    """

    def __init__(self, seat: int, message: str) -> None:
        super().__init__(message)
        self.seat = seat

    def __reduce__(self) -> tuple[type[BotMoveError], tuple[int, str]]:  # keeps the seat across processes
        return (type(self), (self.seat, self.args[0]))


@runtime_checkable
class Bot(Protocol):
    """What every bot provides."""

    def restart(self, rules: Rules, seat: int, rng: random.Random) -> None:
        """Prepare for a new deal in ``seat``."""

    def step(self, view: PlayerView) -> Action:
        """Choose an action; ``view`` is the bot's own view, and it is to move."""


class BotSpec(NamedTuple):
    """A picklable recipe for a bot: a registry name and its parameters.

    >>> str(BotSpec.of("ismcts", iterations=50, c=0.5))
    'ismcts:c=0.5,iterations=50'
    >>> str(BotSpec.of("openspiel:ismcts", sims=50))
    'openspiel:ismcts?sims=50'
    """

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, name: str, /, **params: Any) -> BotSpec:
        """A spec from keyword parameters."""
        return cls(name, tuple(sorted(params.items())))

    def __str__(self) -> str:
        if not self.params:
            return self.name
        sep = "?" if ":" in self.name else ":"     # a module path or a family's name: parameters after "?"
        return self.name + sep + ",".join(f"{k}={v}" for k, v in self.params)


@dataclass(frozen=True)
class Param:
    """What a bot parameter means, declared by a bot class in its
    ``PARAMS`` mapping (name -> Param): ``doc``, one line; ``low`` and
    ``high``, the span a number is worth tuning over (None: not a tuning
    parameter); ``choices``, the words a text parameter takes; ``bot``,
    whether the parameter is a bot spec (the registry builds that bot and
    hands the bot in, so that a bot never builds another itself).

    >>> Param("UCB exploration", 0.0, 3.0).tunable
    True
    """

    doc: str
    low: Optional[float] = None
    high: Optional[float] = None
    choices: tuple[str, ...] = ()
    bot: bool = False

    @property
    def tunable(self) -> bool:
        """Whether a tuner may move it (a number with a span)."""
        return self.low is not None and self.high is not None


@dataclass(frozen=True)
class ParamInfo:
    """One constructor parameter of a bot, as ``pengyou bots NAME`` shows it.

    >>> ParamInfo("c", "float", 0.7).doc
    ''
    """

    name: str
    type: str
    default: Any
    doc: str = ""
    low: Optional[float] = None
    high: Optional[float] = None
    choices: tuple[str, ...] = ()


def keep_params(bot: Any, values: dict[str, Any]) -> None:
    """Store a bot's constructor arguments on it: each number as the type of
    its default (``float`` or ``int``), each text checked against the choices
    its class declares in ``PARAMS`` (:class:`ValueError` naming them).

    >>> class Demo:
    ...     PARAMS = {"mode": Param("how", choices=("a", "b"))}
    ...     def __init__(self, weight: float = 1.0, mode: str = "a") -> None:
    ...         keep_params(self, {"weight": weight, "mode": mode})
    >>> Demo(weight=2).weight
    2.0
    >>> Demo(mode="c")
    Traceback (most recent call last):
    ...
    ValueError: mode must be one of 'a', 'b'
    """
    declared = getattr(type(bot), "PARAMS", {})
    defaults: Any = {}
    for klass in type(bot).__mro__:            # the constructor that declares them (a subclass may take **params)
        init = klass.__dict__.get("__init__")
        if init is not None:
            defaults = inspect.signature(init).parameters
            if all(name in defaults for name in values):
                break
    for name, value in values.items():
        meta = declared.get(name)
        if meta is not None and meta.choices and value not in meta.choices:
            raise ValueError(f"{name} must be one of " + ", ".join(repr(c) for c in meta.choices))
        default = defaults[name].default
        if isinstance(default, float):
            value = float(value)
        elif isinstance(default, int) and not isinstance(default, bool):
            value = int(value)
        setattr(bot, name, value)
