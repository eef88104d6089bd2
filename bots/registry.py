"""Bots built from specs: the table of built-in bots (:data:`BUILTINS`,
loaded with :mod:`importlib` on first use), the classes users register
(:func:`register`) or name by file (:func:`load_bot_module`), and
:func:`make_bot`, which checks a spec's parameters against the class and
builds the bot, composing the bots a parameter names (``Param(bot=True)``).

The registry imports no bot module statically, and no bot module imports
the registry.

>>> sorted(BUILTINS) == sorted(n for n in registry() if n in BUILTINS)
True
>>> type(make_bot("ismcts:iterations=10,fallback=random").fallback).__name__
'RandomBot'
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
import typing
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from core.options import NotAssignmentError, parse_assignments

from .protocol import Bot, BotError, BotSpec, Param, ParamInfo

if TYPE_CHECKING:
    import random

    from core.rules import Rules
    from core.state import State

__all__ = ["BUILTINS", "FAMILIES", "REGISTERED", "register", "registry", "make_bot", "seated_deal", "bot_class", "parse_spec", "load_bot_module",
           "describe_bot", "reads_state"]

#: The built-in bots: name -> ``module:Class``, imported when first asked for.
BUILTINS: dict[str, str] = {
    "random": "bots.random_bot:RandomBot",
    "heuristic": "bots.heuristic:HeuristicBot",
    "ismcts": "bots.ismcts:IsmctsBot",
    "oracle": "bots.ismcts:OracleBot",
}

#: Families of bots named ``prefix:kind`` (parameters after ``?``), served by
#: a module imported only when such a name is asked for (its optional
#: dependency with it): prefix -> ``module:TABLE``, TABLE mapping each name
#: to its class. ``openspiel:ismcts?sims=100`` is OpenSpiel's ISMCTS.
FAMILIES: dict[str, str] = {
    "openspiel:": "arena.adapters.openspiel_bots:ENTRANTS",
}

#: Every bot class known by name: the built-ins loaded so far, the classes
#: registered with :func:`register` and the modules loaded by path.
REGISTERED: dict[str, Callable[..., Any]] = {}

_loaded: set[str] = set()


def _load(name: str) -> None:
    """Import the built-in ``name`` into :data:`REGISTERED` (once); a name of
    a family (:data:`FAMILIES`) imports the family's module."""
    family = next((f for f in FAMILIES if name.startswith(f)), None)
    if family is not None and name not in REGISTERED:
        module, _, table = FAMILIES[family].partition(":")
        try:
            classes = getattr(importlib.import_module(module), table)
        except ImportError as exc:
            raise BotError(f"bot {name!r} needs an optional dependency: {exc} "
                           f"(pip install '.[{family.rstrip(':')}]')") from None
        REGISTERED.update(classes)
        return
    if name in _loaded or name not in BUILTINS:
        return
    module, _, cls = BUILTINS[name].partition(":")
    REGISTERED[name] = getattr(importlib.import_module(module), cls)
    _loaded.add(name)


def register(name: str) -> Callable[[type], type]:
    """Class decorator: make a bot class buildable as ``name``.

    >>> @register("doc-passer")
    ... class Passer:
    ...     def restart(self, rules, seat, rng): pass
    ...     def step(self, view): pass
    >>> registry()["doc-passer"] is Passer
    True
    >>> del REGISTERED["doc-passer"]
    """

    def deco(cls: type) -> type:
        REGISTERED[name] = cls
        return cls

    return deco


def registry() -> dict[str, Callable[..., Any]]:
    """The registered bot names and their classes (built-ins load on first use).
    A family's bots (:data:`FAMILIES`) are not listed, loaded or not: the
    answer does not depend on which optional modules a process imported
    (:func:`bot_class` finds them by name)."""
    for name in BUILTINS:
        _load(name)
    return {k: v for k, v in REGISTERED.items() if not any(k.startswith(f) for f in FAMILIES)}


def parse_spec(text: str | BotSpec) -> BotSpec:
    """Read ``name`` or ``name:key=value,key=value`` (a module path
    ``path/to/bot.py:ClassName`` may stand for the name, params after ``?``).

    >>> parse_spec("ismcts:iterations=1000,c=0.7")
    BotSpec(name='ismcts', params=(('c', 0.7), ('iterations', 1000)))
    >>> parse_spec("openspiel:ismcts?sims=50")
    BotSpec(name='openspiel:ismcts', params=(('sims', 50),))
    """
    if isinstance(text, BotSpec):
        return text
    if not isinstance(text, str) or not text.strip():
        raise BotError(f"bot spec {text!r}: expected a bot name such as 'random' or 'heuristic'")
    text = text.strip()
    if ".py:" in text or any(text.startswith(f) for f in FAMILIES):
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
    REGISTERED[ref] = cls
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
    try:
        return typing.get_type_hints(init)
    except Exception:                   # a user's module: anything may be written there
        return None


def _bot_params(cls: Callable[..., Any]) -> dict[str, Param]:
    """The parameters ``cls`` declares to be bot specs (``Param(bot=True)``)."""
    declared = getattr(cls, "PARAMS", None) or {}
    return {name: meta for name, meta in declared.items() if isinstance(meta, Param) and meta.bot}


def _param_problem(cls: Callable[..., Any], params: dict[str, Any]) -> Optional[str]:
    """What is wrong with ``params`` for ``cls``, read from its constructor's
    signature and plain type hints (``int``, ``float``, ``str``, ``bool``; a
    bot parameter is a spec, text); ``None`` when nothing is visibly wrong or
    the constructor does not say."""
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
    bots = _bot_params(cls)
    for key, value in params.items():
        hint = str if key in bots else hints.get(key)
        if hint in _KINDS and not _fits(value, hint):
            return f"{key} must be {_KINDS[hint]}, got {value!r}"
    return None


def _composed(cls: Callable[..., Any], params: dict[str, Any]) -> dict[str, Bot]:
    """The bots that ``cls``'s bot parameters name (given in ``params`` or
    the constructor's defaults), built here so that a bot never builds one."""
    bots = _bot_params(cls)
    if not bots:
        return {}
    found = _constructor(cls)
    defaults = {} if found is None else {n: p.default for n, p in found[1].parameters.items()
                                         if p.default is not p.empty}
    out: dict[str, Bot] = {}
    for name in bots:
        spec = params.get(name, defaults.get(name))
        if isinstance(spec, (str, BotSpec)):
            out[name] = make_bot(spec)
    return out


def _bot_class(name: str) -> Callable[..., Any]:
    """The class a bot name stands for: registered, or loaded from a module
    path; :class:`BotError` for neither."""
    _load(name)
    cls = REGISTERED.get(name)
    if cls is None and ".py:" in name:
        cls = load_bot_module(name)
    if cls is None:
        known = ", ".join(sorted(k for k in registry() if ".py:" not in k))
        raise BotError(f"unknown bot {name!r} (known: {known}; or path/to/bot.py:ClassName)")
    return cls


def bot_class(name: str) -> Callable[..., Any]:
    """The class a bot name stands for: registered, a family's (its module
    imported now), or loaded from a module path; :class:`BotError` for none.

    >>> bot_class("random").__name__
    'RandomBot'
    """
    return _bot_class(name)


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


def describe_bot(name: str) -> tuple[str, list[ParamInfo]]:
    """A bot's one-line summary and its constructor parameters (type and
    default from the signature, meaning and tuning span from ``PARAMS``; a
    bot parameter's type is ``str``, the spec it is written as).

    >>> summary, params = describe_bot("ismcts")
    >>> c = next(p for p in params if p.name == "c")
    >>> (c.type, c.default, c.low, c.high)
    ('float', 0.7, 0.0, 3.0)
    >>> next((p.type, p.default) for p in params if p.name == "fallback")
    ('str', 'heuristic')
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
    bots = _bot_params(cls)
    for pname, p in sig.parameters.items():
        if pname == "self" or p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            continue
        hint = str if pname in bots else hints.get(pname)
        kind = getattr(hint, "__name__", None) or ("" if hint is None else str(hint))
        meta = declared.get(pname)
        default = None if p.default is p.empty else p.default
        if meta is None:
            out.append(ParamInfo(pname, kind, default))
        else:
            out.append(ParamInfo(pname, kind, default, meta.doc, meta.low, meta.high, tuple(meta.choices)))
    return summary, out


def make_bot(spec: str | BotSpec) -> Bot:
    """Build a bot from a spec (a registered name, or a module path); the
    bots its bot parameters name are built first and handed in.

    >>> type(make_bot("random")).__name__
    'RandomBot'
    """
    spec = parse_spec(spec)
    cls = _bot_class(spec.name)
    params = dict(spec.params)
    problem = _param_problem(cls, params)
    if problem:
        raise BotError(f"bot {spec.name!r}: bad parameters: {problem}")
    try:
        bot: Bot = cls(**{**params, **_composed(cls, params)})
        return bot
    except TypeError as exc:
        raise BotError(f"bot {spec.name!r}: bad parameters {dict(spec.params)}: {exc}") from None
    except ValueError as exc:
        raise BotError(f"bot {spec.name!r}: {exc}") from None


def seated_deal(spec: str | BotSpec, rules: Rules, seed: int, index: int) -> tuple[State, list[Bot], random.Random]:
    """Deal ``index`` of a run seeded ``seed`` with a bot of ``spec`` at every
    seat: the dealt state (shuffled by a seed drawn from the deal's seed,
    :func:`core.match.deal_seed`), the bots, each restarted with a seed of its
    own, and the deal's random generator for whatever the caller draws next.
    The reviews and the sampler's measure deal their positions with it, so
    their figures come from the same deals.

    >>> from core.rules import Rules
    >>> s, bots, _ = seated_deal("random", Rules.preset("pagat", players=5), 7, 0)
    >>> len(bots), s.seed == seated_deal("heuristic", s.rules, 7, 0)[0].seed
    (5, True)
    """
    import random

    from core.match import deal_seed
    from core.state import State

    rng = random.Random(deal_seed(seed, index))
    s = State(rules, seed=rng.getrandbits(32))
    bots = [make_bot(spec) for _ in range(rules.players)]
    for i, b in enumerate(bots):
        b.restart(rules, i, random.Random(rng.getrandbits(64)))
    return s, bots, rng
