"""Tournament specs: who plays, under which rules, on which deals, and how.

A :class:`TournamentSpec` is a frozen value built from a TOML file
(:func:`spec_from_toml`) or from bot specs and keyword fields
(:func:`spec_from_options`); both validate it, so every mistake is one
:class:`~arena.types.ArenaError` line. Its :meth:`~TournamentSpec.identity`
names the results: the same identity means the same job list, so a run with
that identity can be resumed. ``workers`` and ``cluster`` say where jobs run,
not what they are, and are left out of it.

>>> spec = spec_from_options(["heuristic", "ismcts:iterations=200,c=0.7"], players=5, deals=4)
>>> [e.name for e in spec.entrants]
['heuristic', 'ismcts:c=0.7,iterations=200']
>>> spec.rules().players, spec.suite, spec.mode, spec.lineups
(5, 'dev', 'deals', 'pairs')
>>> import dataclasses
>>> dataclasses.replace(spec, workers=8).identity() == spec.identity()
True
>>> dataclasses.replace(spec, deals=5).identity() == spec.identity()
False
>>> TournamentSpec.from_json(spec.to_json()) == spec
True
>>> spec_from_options(["random"])
Traceback (most recent call last):
...
arena.types.ArenaError: a tournament needs at least 2 entrants, got 1
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from bots.base import BotError, BotSpec, make_bot, parse_spec, reads_state
from core.errors import RulesError
from core.rules import Rules

from ..table.entrants import BotRef
from ..table.remote import check_startable
from ..table.settings import FAULT_POLICIES, MODES, TRUST, Limits, TableSettings
from ..types import ArenaError, Entrant

__all__ = ["TournamentSpec", "spec_from_toml", "spec_from_data", "read_toml", "spec_from_options", "spec_text", "parse_entrant", "MODES",
           "LINEUPS", "GAUNTLET_PREFIX"]

#: How entrants are seated: every pair of entrants, all at one table, or one
#: entrant (the first, or the one named in ``"gauntlet:NAME"``) against each other.
LINEUPS = ("pairs", "table", "gauntlet")

#: How a ``lineups`` value names its gauntlet entrant: ``"gauntlet:NAME"``.
GAUNTLET_PREFIX = "gauntlet:"

#: Added to the name of an entrant whose bot reads every hand, so every table shows it.
CHEATS = " [cheats]"

#: Fields that say where jobs run, not what they are (left out of the identity).
_PLACEMENT = ("workers", "cluster")


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _norm_settings(value: Any) -> Any:
    """Rule overrides as a tuple of (key, value) pairs sorted by key, if they can be."""
    try:
        items = list(value.items()) if isinstance(value, Mapping) else [tuple(p) for p in value]
        if all(len(p) == 2 and isinstance(p[0], str) for p in items):
            return tuple(sorted(dict(items).items()))
    except TypeError:
        pass
    return value


@dataclass(frozen=True)
class TournamentSpec:
    """A tournament: entrants, rules, deals, scheduling and execution.

    - ``entrants``: at least two, with distinct names.
    - ``preset``, ``players``, ``settings``: the rules,
      ``Rules.preset(preset, players=players, **dict(settings))``.
    - ``suite``: a deal-seed suite (name in ``seeds/`` or a path, or
      ``gen:TEXT`` for seeds generated from ``TEXT``, which needs ``deals``);
      ``deals``: its first N seeds (0: all).
    - ``mode``: ``"deals"`` (a job is one deal) or ``"matches"`` (a whole
      match from the seed).
    - ``lineups``: ``"pairs"`` (every pair of entrants, alternating seats),
      ``"table"`` (everyone at one table) or ``"gauntlet"`` (the first
      entrant, or the one ``"gauntlet:NAME"`` names, against each other
      entrant in turn, alternating seats; the others never meet);
      ``rotations``: how many distinct rotations of each line-up (0: all).
    - ``time_limit``: seconds per decision (0: none), ``overage``: seconds
      banked per deal for decisions that run over; ``memory_mb``: the
      address space of a sandboxed bot.
    - ``trusted``: ``"none"`` (every bot in a sandboxed process) or
      ``"builtins"`` (the built-in bots in the referee's process, for
      speed; modules and programs are always sandboxed); ``cheating``:
      allow the oracle, which reads every hand.
    - ``on_fault``: ``"forfeit"`` (the faulting entrant loses the deal by
      the most) or ``"fallback"`` (``fallback``, a bot spec, finishes the
      seat's deal; those deals carry the fault); ``record``: keep each
      deal's record.
    - ``workers``, ``cluster``: where it runs (``""`` a local process pool,
      ``"local"`` a local Dask cluster, ``"tcp://host:port"`` a Dask
      scheduler); they never change results.

    The constructor only normalizes (settings sorted, lists to tuples);
    :meth:`validate` checks everything.
    """

    name: str = "arena"
    entrants: tuple[Entrant, ...] = ()
    preset: str = "pagat"
    players: int = 6
    settings: tuple[tuple[str, Any], ...] = ()
    suite: str = "dev"
    deals: int = 0
    mode: str = TableSettings.mode
    lineups: str = "pairs"
    rotations: int = 0
    time_limit: float = Limits.move
    overage: float = Limits.overage
    memory_mb: int = Limits.memory_mb
    trusted: str = TableSettings.trusted
    on_fault: str = TableSettings.on_fault
    cheating: bool = TableSettings.cheating
    fallback: str = TableSettings.fallback
    record: bool = TableSettings.record
    workers: int = 1
    cluster: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.entrants, (list, tuple)):
            object.__setattr__(self, "entrants", tuple(
                Entrant(e.name + CHEATS, e.spec) if isinstance(e, Entrant) and isinstance(e.spec, str)
                and isinstance(e.name, str) and reads_state(e.spec) and not e.name.endswith(CHEATS) else e
                for e in self.entrants))
        object.__setattr__(self, "settings", _norm_settings(self.settings))
        for fname in ("time_limit", "overage"):
            value = getattr(self, fname)
            if isinstance(value, int) and not isinstance(value, bool):
                object.__setattr__(self, fname, float(value))

    def rules(self) -> Rules:
        """The rules of every table of the tournament."""
        try:
            return Rules.preset(self.preset, players=self.players, **dict(self.settings))
        except RulesError as exc:
            raise ArenaError(str(exc)) from None
        except TypeError as exc:
            raise ArenaError(f"settings: {_one_line(str(exc))}") from None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form (``settings`` as an object, entrants as a list)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "entrants":
                value = [e.to_json() for e in value]
            elif f.name == "settings":
                value = dict(value)
            out[f.name] = value
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> TournamentSpec:
        """Inverse of :meth:`to_json` (missing fields take their defaults; not validated)."""
        known = {f.name for f in dataclasses.fields(cls)}
        bad = sorted(set(obj) - known)
        if bad:
            raise ArenaError(f"spec: unknown field(s) {', '.join(bad)}")
        kw = dict(obj)
        if "entrants" in kw:
            kw["entrants"] = tuple(e if isinstance(e, Entrant) else Entrant.from_json(e)
                                   for e in kw["entrants"])
        return cls(**kw)

    def code_hashes(self) -> list[str]:
        """Each entrant's :meth:`~arena.table.entrants.BotRef.code_hash`, in order."""
        return [BotRef.parse(e.spec).code_hash() for e in self.entrants]

    def identity(self) -> str:
        """The sha256 hex digest of the canonical JSON of every field but
        ``workers`` and ``cluster``, and of each entrant's code
        (:meth:`code_hashes`): equal identities mean equal job lists, bots
        and results, so a run can be resumed under it; an edited bot makes
        a new run, never a mix of two versions' results."""
        data = {k: v for k, v in self.to_json().items() if k not in _PLACEMENT}
        data["code"] = self.code_hashes()
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        return hashlib.sha256(text.encode("ascii")).hexdigest()

    def validate(self) -> None:
        """Check every field; the first problem raises :class:`ArenaError`.

        Builds each entrant's bot and the fallback once (so unknown bots and
        bad parameters are caught here, not in a worker).
        """
        self._check_types()
        n = len(self.entrants)
        if n < 2:
            raise ArenaError(f"a tournament needs at least 2 entrants, got {n}")
        seen: set[str] = set()
        for e in self.entrants:
            if e.name in seen:
                raise ArenaError(f"entrant name {e.name!r} is used twice; give each entrant its own name")
            seen.add(e.name)
        if self.mode not in MODES:
            raise ArenaError(f"mode: {self.mode!r} is not one of {', '.join(MODES)}")
        self.gauntlet_index()
        for fname in ("deals", "rotations"):
            if getattr(self, fname) < 0:
                raise ArenaError(f"{fname}: {getattr(self, fname)} is negative (0 means all)")
        if not math.isfinite(self.time_limit) or self.time_limit < 0:
            raise ArenaError(f"time_limit: {self.time_limit} is not a number of seconds >= 0 (0 means none)")
        if not math.isfinite(self.overage) or self.overage < 0:
            raise ArenaError(f"overage: {self.overage} is not a number of seconds >= 0")
        if not 64 <= self.memory_mb <= 1 << 20:
            raise ArenaError(f"memory_mb: {self.memory_mb} is not from 64 to {1 << 20}")
        if self.trusted not in TRUST:
            raise ArenaError(f"trusted: {self.trusted!r} is not one of {', '.join(TRUST)}")
        if self.on_fault not in FAULT_POLICIES:
            raise ArenaError(f"on_fault: {self.on_fault!r} is not one of {', '.join(FAULT_POLICIES)}")
        if self.workers < 1:
            raise ArenaError(f"workers: {self.workers} is not at least 1")
        if self.cluster not in ("", "local") and "://" not in self.cluster:
            raise ArenaError(f"cluster: {self.cluster!r} is not 'local' or a scheduler address "
                             "such as tcp://host:8786")
        if "players" in dict(self.settings):
            raise ArenaError("settings: players is set by the players field, not as a rule setting")
        rules = self.rules()
        if self.lineups == "table" and n > rules.players:
            raise ArenaError(f"a spec with too few seats: {n} entrants at one table of "
                             f"{rules.players} players; use lineups = \"pairs\" or more players")
        for e in self.entrants:
            _build(e.spec, "", self)
        if self.on_fault == "fallback":
            _build(self.fallback, "fallback: ", None)

    def lineup_mode(self) -> str:
        """The kind of line-ups, one of :data:`LINEUPS` (``"gauntlet:NAME"`` is ``"gauntlet"``)."""
        return "gauntlet" if self.lineups.startswith(GAUNTLET_PREFIX) else self.lineups

    def gauntlet_index(self) -> Optional[int]:
        """The index of the gauntlet entrant (None unless ``lineups`` is a
        gauntlet); a one-line :class:`ArenaError` for an unknown ``lineups``
        value or gauntlet name.

        >>> spec = spec_from_options(["random", "h=heuristic"], players=5, lineups="gauntlet:h")
        >>> spec.gauntlet_index(), spec.lineup_mode()
        (1, 'gauntlet')
        >>> dataclasses.replace(spec, lineups="gauntlet").gauntlet_index()
        0
        """
        if self.lineup_mode() not in LINEUPS:
            raise ArenaError(f"lineups: {self.lineups!r} is not one of {', '.join(LINEUPS)} "
                             f"(or {GAUNTLET_PREFIX}NAME, NAME an entrant)")
        if self.lineup_mode() != "gauntlet":
            return None
        if self.lineups == "gauntlet":
            return 0
        name = self.lineups[len(GAUNTLET_PREFIX):].strip()
        names = [e.name for e in self.entrants]
        for i, e in enumerate(names):
            if name in (e, e.removesuffix(CHEATS)):
                return i
        raise ArenaError(f"lineups: the gauntlet entrant {name!r} is not an entrant "
                         f"(the entrants: {', '.join(names)})")

    def limits(self) -> Limits:
        """The sandbox's limits for this tournament."""
        return Limits(move=self.time_limit, overage=self.overage, memory_mb=self.memory_mb)

    def table_settings(self, secret: bytes = b"") -> TableSettings:
        """The settings of every table of the tournament, with the run's ``secret``."""
        return TableSettings(self.rules(), mode=self.mode, limits=self.limits(), trusted=self.trusted,
                             on_fault=self.on_fault, fallback=self.fallback, cheating=self.cheating,
                             record=self.record, secret=secret)

    def _check_types(self) -> None:
        def bad(fname: str, what: str) -> ArenaError:
            return ArenaError(f"{fname}: expected {what}, got {getattr(self, fname)!r}")

        for fname in ("name", "preset", "suite", "mode", "lineups", "fallback", "cluster", "trusted",
                      "on_fault"):
            if not isinstance(getattr(self, fname), str):
                raise bad(fname, "a string")
        for fname in ("name", "suite", "fallback"):
            if not getattr(self, fname).strip():
                raise ArenaError(f"{fname}: must not be empty")
        for fname in ("players", "deals", "rotations", "workers", "memory_mb"):
            v = getattr(self, fname)
            if not isinstance(v, int) or isinstance(v, bool):
                raise bad(fname, "a whole number")
        for fname in ("time_limit", "overage"):
            if not isinstance(getattr(self, fname), float):
                raise bad(fname, "a number of seconds")
        for fname in ("record", "cheating"):
            if not isinstance(getattr(self, fname), bool):
                raise bad(fname, "true or false")
        if not isinstance(self.entrants, tuple) or not all(isinstance(e, Entrant) for e in self.entrants):
            raise bad("entrants", "a list of entrants")
        for e in self.entrants:
            if not isinstance(e.name, str) or not e.name.strip():
                raise ArenaError(f"entrant {e.spec!r}: the name must be a non-empty string")
            if not isinstance(e.spec, str) or not e.spec.strip():
                raise ArenaError(f"entrant {e.name!r}: the bot spec must be a non-empty string")
        s = self.settings
        if not isinstance(s, tuple) or not all(isinstance(p, tuple) and len(p) == 2
                                               and isinstance(p[0], str) for p in s):
            raise bad("settings", "rule settings as key = value")


def _build(spec: str, prefix: str, tournament: Optional[TournamentSpec]) -> None:
    """Check that a bot can play, turning every failure into one
    :class:`ArenaError` line.

    A module or a program is started once in the sandbox and must answer the
    protocol's ``hello`` (its code never runs in this process); a built-in
    bot (this project's code) is built here, sandboxed or not. A bot that
    reads the state needs ``cheating``.
    """
    ref = BotRef.parse(spec)
    if ref.kind != "builtin":
        limits = tournament.limits() if tournament is not None else Limits()
        problem = check_startable(ref, limits)
    else:
        problem = _build_here(spec)
        if problem is None and tournament is not None and reads_state(spec) and not tournament.cheating:
            problem = (f"bot {spec!r} reads every hand (it cheats): allow it with --allow-cheating "
                       "(cheating = true), and it is marked as cheating in every table")
    if problem is not None:
        raise ArenaError(prefix + problem)


def _build_here(spec: str) -> Optional[str]:
    """Build ``spec`` in this process: None, or what went wrong (one line)."""
    try:
        make_bot(spec)
    except BotError as exc:
        return _one_line(str(exc))
    except (Exception, SystemExit) as exc:    # a bot class failed in its constructor
        return f"bot {spec!r}: cannot be built: {type(exc).__name__}: {_one_line(str(exc))}"
    return None


def spec_text(bot: str, params: Mapping[str, Any] | None = None) -> str:
    """The canonical bot-spec text of ``bot`` plus ``params``.

    Registered bots: ``str(BotSpec)`` (parameters sorted). Module bots
    (``path.py:Class?k=v``) keep the text as given, with ``params`` appended.
    """
    if isinstance(bot, str) and BotRef.parse(bot.strip()).kind == "program":
        if params:
            raise ArenaError(f"bot {bot!r}: a program takes its options on its command line, not params")
        return bot.strip()
    try:
        parsed = parse_spec(bot)
    except BotError as exc:
        raise ArenaError(_one_line(str(exc))) from None
    params = dict(params or {})
    text = bot.strip()
    want = BotSpec.of(parsed.name, **(dict(parsed.params) | params))
    if ".py:" in parsed.name:
        if params:
            sep = "" if text.endswith("?") else ("," if "?" in text else "?")
            text += sep + ",".join(f"{k}={v}" for k, v in sorted(params.items()))
    else:
        text = str(want)
    for k, v in params.items():
        if not isinstance(v, (str, int, float, bool)):
            raise ArenaError(f"bot {parsed.name!r}: parameter {k} = {v!r} is not a number, "
                             "true/false or a word")
    try:
        same = parse_spec(text) == want
    except BotError:
        same = False
    if not same:
        raise ArenaError(f"bot {parsed.name!r}: parameters {dict(want.params)} cannot be written "
                         "as a bot spec (a text value may not contain ',' or look like a number or a yes/no)")
    return text


def parse_entrant(text: str) -> Entrant:
    """An entrant from ``SPEC`` or ``LABEL=SPEC`` (a label has no ``:``,
    ``/``, ``.``, ``?`` or ``,``); a bad spec is a one-line :class:`ArenaError`.

    >>> parse_entrant("mine=random"), parse_entrant("random").name
    (Entrant(name='mine', spec='random'), 'random')
    """
    if not isinstance(text, str):
        raise ArenaError(f"bot spec {text!r}: expected text such as 'heuristic'")
    head, eq, rest = text.partition("=")
    if eq and head.strip() and not any(c in head for c in ":/.?,"):
        spec = spec_text(rest)
        return Entrant(head.strip(), spec)
    spec = spec_text(text)
    return Entrant(spec, spec)


def spec_from_options(bots: Sequence[str], **fields: Any) -> TournamentSpec:
    """A validated spec from bot specs (one entrant each) and spec fields.

    Each bot is a spec such as ``ismcts:iterations=500`` or
    ``path/to/bot.py:Class?k=v``, optionally labelled ``LABEL=SPEC``; the
    entrant's name is the label, or else the canonical spec text.

    >>> spec_from_options(["fast=ismcts:iterations=50", "ismcts"]).entrants[0]
    Entrant(name='fast', spec='ismcts:iterations=50')
    """
    if isinstance(bots, str):
        raise ArenaError(f"bots: expected a list of bot specs, got the text {bots!r}")
    known = {f.name for f in dataclasses.fields(TournamentSpec)} - {"entrants"}
    bad = sorted(set(fields) - known)
    if bad:
        raise ArenaError(f"unknown spec field(s): {', '.join(bad)} (known: {', '.join(sorted(known))})")
    spec = TournamentSpec(entrants=tuple(parse_entrant(b) for b in bots), **fields)
    spec.validate()
    return spec


#: What a TOML value of each field's type must be, and how an error names it.
_TOML_KINDS: dict[str, tuple[tuple[type, ...], str]] = {
    "str": ((str,), "a string"), "int": ((int,), "a whole number"),
    "float": ((int, float), "a number of seconds"), "bool": ((bool,), "true or false"),
}
#: The top-level keys of a spec file: the spec's fields, typed as the dataclass declares them
_TOML_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    f.name: _TOML_KINDS[str(f.type)] for f in dataclasses.fields(TournamentSpec) if str(f.type) in _TOML_KINDS}
_TOML_TYPES["settings"] = ((dict,), "a table of rule settings")
_TOML_TYPES["entrant"] = ((list,), "[[entrant]] tables")
_ENTRANT_KEYS = ("name", "bot", "params")


def _typed(where: str, key: str, value: Any, types: tuple[type, ...], what: str) -> Any:
    ok = isinstance(value, types) and (bool in types or not isinstance(value, bool))
    if not ok:
        raise ArenaError(f"{where}{key}: expected {what}, got {value!r}")
    return value


def spec_from_toml(path: str) -> TournamentSpec:
    """A validated spec from a TOML file (see ``arena/default.toml``).

    Top-level keys are the spec's fields (``entrants`` excepted), an optional
    ``[settings]`` table of rule overrides, and one ``[[entrant]]`` table per
    entrant with ``bot``, optional ``name`` and optional ``params``. Every
    error names the file.
    """
    return spec_from_data(read_toml(path), f"{Path(path)}: ")


def read_toml(path: str) -> dict[str, Any]:
    """A TOML file's tables; every problem is one :class:`ArenaError` naming the file."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise ArenaError(f"{p}: no such spec file") from None
    except OSError as exc:
        raise ArenaError(f"{p}: cannot read: {exc.strerror or exc}") from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ArenaError(f"{p}: cannot read: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ArenaError(f"{p}: TOML syntax error: {_one_line(str(exc))}") from None


def spec_from_data(data: Mapping[str, Any], where: str = "") -> TournamentSpec:
    """A validated spec from a spec file's tables (as :func:`spec_from_toml`
    reads them); errors start with ``where``."""
    bad = sorted(set(data) - set(_TOML_TYPES))
    if bad:
        raise ArenaError(f"{where}unknown key(s) {', '.join(bad)} "
                         f"(known: {', '.join(sorted(_TOML_TYPES))})")
    fields: dict[str, Any] = {}
    for key, value in data.items():
        types, what = _TOML_TYPES[key]
        fields[key] = _typed(where, key, value, types, what)
    entrants = []
    for i, table in enumerate(fields.pop("entrant", []), 1):
        at = f"{where}entrant {i}: "
        if not isinstance(table, dict):
            raise ArenaError(f"{at}expected a table with bot = \"...\"")
        bad = sorted(set(table) - set(_ENTRANT_KEYS))
        if bad:
            raise ArenaError(f"{at}unknown key(s) {', '.join(bad)} (known: {', '.join(_ENTRANT_KEYS)})")
        if "bot" not in table:
            raise ArenaError(f"{at}no bot = \"...\" (a bot spec such as \"heuristic\")")
        bot = _typed(at, "bot", table["bot"], (str,), "a bot spec string")
        params = _typed(at, "params", table.get("params", {}), (dict,), "a table such as { iterations = 200 }")
        try:
            bot_spec = spec_text(bot, params)
        except ArenaError as exc:
            raise ArenaError(f"{at}{exc}") from None
        name = _typed(at, "name", table.get("name", bot_spec), (str,), "a string")
        entrants.append(Entrant(name, bot_spec))
    if "settings" in fields:
        fields["settings"] = tuple(fields["settings"].items())
    spec = TournamentSpec(entrants=tuple(entrants), **fields)
    try:
        spec.validate()
    except ArenaError as exc:
        raise ArenaError(f"{where}{exc}") from None
    return spec
