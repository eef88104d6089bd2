"""The bot protocol, bot specs and a registry (the loop that plays a deal is
:mod:`bots.table`).

A bot sees :class:`core.state.PlayerView` values, never the state:

- ``restart(rules, seat, rng)`` before each deal;
- ``inform(view, seat, action)`` (optional) after any seat's action, with the
  bot's own view after it (a bot without it, or whose ``inform`` is None, is
  not told: the table then builds no view for it between its own turns);
- ``step(view) -> Action`` whenever the bot is to move.

>>> bot = make_bot("random")
>>> callable(bot.step) and callable(bot.restart)
True
"""

from __future__ import annotations

import importlib.util
import inspect
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Optional, Protocol, runtime_checkable

from core.actions import Action
from core.errors import IllegalActionError, PengyouError
from core.options import NotAssignmentError, parse_assignments
from core.rules import Rules
from core.state import PlayerView

__all__ = [
    "Bot", "BotError", "BotMoveError", "BotSpec", "register", "registry", "make_bot", "parse_spec",
    "load_bot_module", "Param", "keep_params", "ParamInfo", "describe_bot", "reads_state",
]


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

    def __reduce__(self):  # keeps the seat across processes
        return (type(self), (self.seat, self.args[0]))


@runtime_checkable
class Bot(Protocol):
    """What every bot provides."""

    def restart(self, rules: Rules, seat: int, rng: random.Random) -> None:
        """Prepare for a new deal in ``seat``."""

    def step(self, view: PlayerView) -> Action:
        """Choose an action; ``view`` is the bot's own view, and it is to move."""


class BotSpec(NamedTuple):
    """A picklable recipe for a bot: a registry name and its parameters."""

    name: str
    params: tuple = ()

    @classmethod
    def of(cls, name: str, /, **params: Any) -> BotSpec:
        """A spec from keyword parameters."""
        return cls(name, tuple(sorted(params.items())))

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.params)


_REGISTRY: dict[str, Callable[..., Any]] = {}


def register(name: str) -> Callable[[type], type]:
    """Class decorator: make a bot class buildable as ``name``."""

    def deco(cls: type) -> type:
        _REGISTRY[name] = cls
        return cls

    return deco


def registry() -> dict[str, Callable[..., Any]]:
    """The registered bot names and their classes (built-ins load on first use)."""
    _load_builtins()
    return dict(_REGISTRY)


def _load_builtins() -> None:
    from . import random_bot  # noqa: F401  (each module registers its bots)
    from . import heuristic  # noqa: F401
    from . import ismcts  # noqa: F401


def parse_spec(text: str | BotSpec) -> BotSpec:
    """Read ``name`` or ``name:key=value,key=value`` (a module path
    ``path/to/bot.py:ClassName`` may stand for the name, params after ``?``).

    >>> parse_spec("ismcts:iterations=1000,c=0.7")
    BotSpec(name='ismcts', params=(('c', 0.7), ('iterations', 1000)))
    """
    if isinstance(text, BotSpec):
        return text
    if not isinstance(text, str) or not text.strip():
        raise BotError(f"bot spec {text!r}: expected a bot name such as 'random' or 'heuristic'")
    text = text.strip()
    if ".py:" in text:
        name, _, rest = text.partition("?")
        params = rest
    else:
        name, _, params = text.partition(":")
    try:
        out = parse_assignments(filter(None, (p.strip() for p in params.split(","))))
    except NotAssignmentError as exc:
        raise BotError(f"bot spec {text!r}: parameter {exc.item!r} is not key=value") from None
    return BotSpec.of(name, **out)


def load_bot_module(ref: str) -> type:
    """Load ``path/to/mybot.py:ClassName`` and register it under ``ref``."""
    path_text, _, cls_name = ref.rpartition(":")
    path = Path(path_text)
    if not path.is_file():
        raise BotError(f"bot module {path_text!r}: no such file")
    mod_name = f"pengyou_user_bot_{abs(hash(str(path.resolve())))}"
    module = sys.modules.get(mod_name)
    if module is not None:              # another class of a file already loaded: one module, as imports do
        return _protocol_class(module, path_text, cls_name, ref)
    try:
        spec = importlib.util.spec_from_file_location(mod_name, path)
        if spec is None or spec.loader is None:
            raise BotError(f"bot module {path_text!r}: cannot be loaded as Python")
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module
        spec.loader.exec_module(module)
    except BotError:
        raise
    except SyntaxError as exc:
        sys.modules.pop(mod_name, None)      # a failed import leaves no half-made module behind
        raise BotError(f"bot module {path_text!r}: syntax error on line {exc.lineno}: {exc.msg}") from None
    except (Exception, SystemExit) as exc:  # the user's module failed while importing
        sys.modules.pop(mod_name, None)
        raise BotError(f"bot module {path_text!r}: failed to import: {type(exc).__name__}: {exc}") from None
    return _protocol_class(module, path_text, cls_name, ref)


def _protocol_class(module: Any, path_text: str, cls_name: str, ref: str) -> type:
    """``module``'s class ``cls_name`` if it follows the protocol (registered as ``ref``)."""
    cls = getattr(module, cls_name, None)
    if cls is None:
        raise BotError(f"bot module {path_text!r}: defines no {cls_name!r}")
    if not inspect.isclass(cls):
        raise BotError(f"bot module {path_text!r}: {cls_name!r} is not a class")
    missing = [m for m in ("restart", "step") if not callable(getattr(cls, m, None))]
    if missing:
        raise BotError(f"bot module {path_text!r}: {cls_name} lacks {' and '.join(missing)}() of the bot protocol")
    _REGISTRY[ref] = cls
    return cls


_KINDS = {int: "a whole number", float: "a number", str: "text", bool: "true or false"}


def _fits(value: Any, hint: Any) -> bool:
    if hint is bool:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if hint is float:
        return isinstance(value, (int, float))
    return isinstance(value, hint)


def _constructor(cls: Callable[..., Any]) -> Optional[tuple[Any, inspect.Signature]]:
    """The constructor that names a bot class's parameters and its
    signature (a class whose ``__init__`` takes ``**params`` passes them
    on: its base's is asked); None when it cannot be read."""
    for klass in getattr(cls, "__mro__", (cls,)):
        init = klass.__dict__.get("__init__") if isinstance(klass, type) else klass
        if init is None:
            continue
        try:
            sig = inspect.signature(init)
        except (TypeError, ValueError):
            return None
        if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
            continue
        return init, sig
    return None


def _hints(init: Any) -> Optional[dict[str, Any]]:
    """A constructor's type hints, or None when they do not evaluate."""
    import typing

    try:
        return typing.get_type_hints(init)
    except Exception:                   # a user's module: anything may be written there
        return None


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


def _param_problem(cls: Callable[..., Any], params: dict) -> Optional[str]:
    """What is wrong with ``params`` for ``cls``, read from its constructor's
    signature and plain type hints (``int``, ``float``, ``str``, ``bool``);
    ``None`` when nothing is visibly wrong or the constructor does not say."""
    found = _constructor(cls)
    if found is None:
        return None
    init, sig = found
    names = [n for n, p in sig.parameters.items()
             if n != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    unknown = sorted(set(params) - set(names))
    if unknown:
        return (f"unknown {', '.join(repr(k) for k in unknown)} "
                f"(known: {', '.join(sorted(names)) or 'none'})")
    hints = _hints(init)
    if hints is None:                   # a user's hints that do not evaluate: say nothing
        return None
    for key, value in params.items():
        hint = hints.get(key)
        if hint in _KINDS and not _fits(value, hint):
            return f"{key} must be {_KINDS[hint]}, got {value!r}"
    return None


def _bot_class(name: str) -> Callable[..., Any]:
    """The class a bot name stands for: registered, or loaded from a module
    path; :class:`BotError` for neither."""
    _load_builtins()
    cls = _REGISTRY.get(name)
    if cls is None and ".py:" in name:
        cls = load_bot_module(name)
    if cls is None:
        known = ", ".join(sorted(k for k in _REGISTRY if ".py:" not in k))
        raise BotError(f"unknown bot {name!r} (known: {known}; or path/to/bot.py:ClassName)")
    return cls


def reads_state(spec: str) -> bool:
    """Whether ``spec`` names a registered bot that reads the whole state
    (its class says ``cheats = True``); a module's is never asked here.

    >>> reads_state("oracle:iterations=10"), reads_state("ismcts"), reads_state("nosuch")
    (True, False, False)
    """
    try:
        cls = registry().get(parse_spec(spec).name)
    except BotError:
        return False
    return bool(getattr(cls, "cheats", False))


@dataclass(frozen=True)
class Param:
    """What a bot parameter means, declared by a bot class in its
    ``PARAMS`` mapping (name -> Param): ``doc``, one line; ``low`` and
    ``high``, the span a number is worth tuning over (None: not a tuning
    parameter); ``choices``, the words a text parameter takes.

    >>> Param("UCB exploration", 0.0, 3.0).tunable
    True
    """

    doc: str
    low: Optional[float] = None
    high: Optional[float] = None
    choices: tuple[str, ...] = ()

    @property
    def tunable(self) -> bool:
        """Whether a tuner may move it (a number with a span)."""
        return self.low is not None and self.high is not None


@dataclass(frozen=True)
class ParamInfo:
    """One constructor parameter of a bot, as ``pengyou bots NAME`` shows it."""

    name: str
    type: str
    default: Any
    doc: str = ""
    low: Optional[float] = None
    high: Optional[float] = None
    choices: tuple[str, ...] = ()


def describe_bot(name: str) -> tuple[str, list[ParamInfo]]:
    """A bot's one-line summary and its constructor parameters (type and
    default from the signature, meaning and tuning span from ``PARAMS``).

    >>> summary, params = describe_bot("ismcts")
    >>> c = next(p for p in params if p.name == "c")
    >>> (c.type, c.default, c.low, c.high)
    ('float', 0.7, 0.0, 3.0)
    """
    cls = _bot_class(name)
    doc = inspect.getdoc(cls) or ""
    summary = doc.strip().splitlines()[0] if doc.strip() else ""
    declared = getattr(cls, "PARAMS", {}) or {}
    found = _constructor(cls)
    out: list[ParamInfo] = []
    if found is None:
        return summary, out
    init, sig = found
    hints = _hints(init) or {}
    for pname, p in sig.parameters.items():
        if pname == "self" or p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            continue
        hint = hints.get(pname)
        kind = getattr(hint, "__name__", None) or ("" if hint is None else str(hint))
        meta = declared.get(pname)
        default = None if p.default is p.empty else p.default
        if meta is None:
            out.append(ParamInfo(pname, kind, default))
        else:
            out.append(ParamInfo(pname, kind, default, meta.doc, meta.low, meta.high, tuple(meta.choices)))
    return summary, out


def make_bot(spec: str | BotSpec) -> Bot:
    """Build a bot from a spec (a registered name, or a module path)."""
    spec = parse_spec(spec)
    cls = _bot_class(spec.name)
    problem = _param_problem(cls, dict(spec.params))
    if problem:
        raise BotError(f"bot {spec.name!r}: bad parameters: {problem}")
    try:
        return cls(**dict(spec.params))
    except TypeError as exc:
        raise BotError(f"bot {spec.name!r}: bad parameters {dict(spec.params)}: {exc}") from None
    except ValueError as exc:
        raise BotError(f"bot {spec.name!r}: {exc}") from None
