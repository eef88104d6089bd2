"""What each seat learns as a deal goes on: views as a stream of changes.

:meth:`core.state.State.view` gives a seat's whole view at one moment; a
bot that lives in another process gets the same knowledge as messages. A
:class:`Narrator` follows a state and, after every action, says for each
seat what changed in that seat's view: the whole view (at the start, at a
redeal and whenever the phase changes) or the fields that changed
(``set``: new values; ``add``: items appended to a list). A
:class:`ViewBuilder` on the other side applies those changes and gives back
:class:`~core.state.PlayerView` values equal to the state's own.

Which actions a seat sees is :func:`sees`: passing during the draw (or
when offered a buried kitty) and burying are the actor's own business (a pass would tell that the seat held
a card of the level rank; a buried card is secret); everything else is
public.

>>> import random
>>> from core.rules import Rules
>>> from core.state import State
>>> s = State(Rules.preset("pagat", players=5), seed=11)
>>> narrator = Narrator(s)
>>> builders = [ViewBuilder(s.rules) for _ in range(5)]
>>> for b, msg in zip(builders, narrator.opening()):
...     b.apply(msg)
>>> rng = random.Random(2)
>>> while not s.is_terminal():
...     seat, action = s.current_player(), s.random_legal_action(rng)
...     s.apply(action)
...     for b, msg in zip(builders, narrator.after(seat, action)):
...         b.apply(msg)
>>> all(b.view() == s.view(i) and str(b.view()) == str(s.view(i)) for i, b in enumerate(builders))
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Optional

from .actions import BURY, PASS, Action
from .cards import Cards, Trump, card_name, format_cards
from .rules import Rules
from .state import CALL_PHASE, DRAW, PLAY_PHASE, STEAL_PHASE, LegalActions, PlayerView, State
from .view import shown_stoppers

__all__ = ["sees", "Narrator", "Changes", "ViewBuilder", "view_from_json", "FIELDS"]

#: The fields of a view's JSON form (:meth:`PlayerView.to_json`), in order.
FIELDS = ("seat", "rules_name", "players", "phase", "current_player", "hand", "hand_sizes", "levels",
          "starter", "cards_drawn", "exposures", "trump", "maker", "kitty", "calls", "calls_filled",
          "tricks", "current_trick", "failed_throws", "throw_stoppers", "points", "voids", "no_sets", "options")

#: Fields that only grow: changes to them come as items to append.
_APPENDED = ("exposures", "calls", "tricks", "failed_throws", "throw_stoppers", "voids", "no_sets")
_SORTED = ("voids", "no_sets")       # kept sorted in a view


def sees(seat: int, actor: int, action: Action) -> bool:
    """Whether ``seat`` learns that ``actor`` took ``action``.

    >>> sees(2, 2, Action.pass_()), sees(3, 2, Action.pass_()), sees(3, 2, Action.from_str("AS"))
    (True, False, True)
    """
    return seat == actor or action.kind not in (PASS, BURY)


def _options(s: State, seat: int) -> list[str]:
    """The choices listed in ``seat``'s view (draw, steal and call phases, to move)."""
    if s.current_player() == seat and s.phase in (DRAW, STEAL_PHASE, CALL_PHASE):
        return [str(a) for a in LegalActions(s)]
    return []


class Changes(NamedTuple):
    """What one action changed, as :meth:`Narrator.changes` says it.

    ``whole``: one message per seat with the whole view (and then nothing
    else counts); otherwise ``set`` / ``add`` are the changes every seat
    shares and ``own[seat]`` the fields only that seat gets (to set).
    ``seen[seat]``: whether the seat sees ``action`` (its text).
    """

    action: str
    seen: list[bool]
    set: dict[str, Any]
    add: dict[str, list[Any]]
    own: list[dict[str, Any]]
    whole: Optional[list[Any]]                   # a message per seat, or None for a seat not wanted


class Narrator:
    """Follows ``state`` and tells each seat what changed in its view.

    Call :meth:`opening` once, then :meth:`after` after every applied
    action. Each returns one message per seat: a dict with ``"view"`` (the
    whole view, :meth:`PlayerView.to_json`) or with ``"set"`` and ``"add"``
    (changes), and, in :meth:`after`, ``"seat"`` and ``"action"`` (the
    action's text, or None for an action the seat does not see).
    """

    def __init__(self, state: State) -> None:
        self.s = state
        self._mark()

    def _mark(self) -> None:
        s = self.s
        self._phase = s.phase
        self._decks = len(s.decks)
        self._drawn = s._drawn
        self._exposures = len(s.exposures)
        self._calls = len(s.calls)
        if s.phase == PLAY_PHASE:
            pc = s.play
            assert pc is not None
            self._tricks = len(s._trick_text)
            self._failed = len(s.failed_throws)
            self._voids = set(s.voids)
            self._no_sets = set(s.no_sets)
            self._filled = tuple(pc.calls_filled)
            self._sizes = [len(pc.hand(i)) for i in range(s.rules.players)]
            self._trick_leader = -1
            self._trick_texts: list[str] = []

    def _whole(self, actor: int, action: Optional[Action],
               wanted: Optional[Sequence[bool]] = None) -> list[Any]:
        s = self.s
        out: list[Any] = []
        for seat in range(s.rules.players):
            if wanted is not None and not wanted[seat]:
                out.append(None)
                continue
            msg: dict[str, Any] = {"view": s.view(seat).to_json()}
            if action is not None:
                msg["seat"] = actor
                msg["action"] = str(action) if sees(seat, actor, action) else None
            out.append(msg)
        self._mark()
        return out

    def opening(self) -> list[dict[str, Any]]:
        """Every seat's whole view now (the start of a deal)."""
        return self._whole(-1, None)

    def after(self, actor: int, action: Action) -> list[dict[str, Any]]:
        """What each seat learns from ``actor``'s ``action`` (just applied)."""
        ch = self.changes(actor, action)
        if ch.whole is not None:
            return ch.whole
        out = []
        for seat in range(len(ch.own)):
            mine = ch.own[seat]
            sets = dict(ch.set, **mine) if mine else ch.set
            out.append({"seat": actor, "action": ch.action if ch.seen[seat] else None,
                        "set": sets, "add": ch.add})
        return out

    def changes(self, actor: int, action: Action, wanted: Optional[Sequence[bool]] = None) -> Changes:
        """The same as :meth:`after`, with the part every seat shares kept
        apart from each seat's own (to encode the shared part once). When
        the whole view is due, ``whole`` holds it for the seats marked in
        ``wanted`` (default: all) and None for the others."""
        s = self.s
        n = s.rules.players
        if s.phase != self._phase or len(s.decks) != self._decks:
            seen = [sees(seat, actor, action) for seat in range(n)]
            return Changes(str(action), seen, {}, {}, [], self._whole(actor, action, wanted))
        if s.phase == PLAY_PHASE:                        # every seat sees a play
            return self._play_changes(actor, action)
        seen = [sees(seat, actor, action) for seat in range(n)]
        pub_set: dict[str, Any] = {}
        pub_add: dict[str, list[Any]] = {}
        own: list[dict[str, Any]] = [{} for _ in range(n)]
        if len(s.exposures) != self._exposures:
            pub_add["exposures"] = [[a, k, str(c)] for a, k, c in s.exposures[self._exposures:]]
        if s.phase == DRAW:
            if s._drawn != self._drawn:
                pub_set["cards_drawn"] = s._drawn
                pub_set["hand_sizes"] = [sum(h) for h in s._hands]
                got = {(s.starter + i) % n for i in range(self._drawn, s._drawn)}
                for seat in got:
                    own[seat]["hand"] = str(Cards.from_counts(s._hands[seat]))
            cur = s.current_player()
            for seat in range(n):
                own[seat]["current_player"] = cur if cur == seat else -1
                own[seat]["options"] = _options(s, seat)
        elif s.phase == STEAL_PHASE:                     # a pass: the kitty offered to the next seat
            cur = s.current_player()
            for seat in range(n):
                own[seat]["current_player"] = cur if cur == seat else -1
                own[seat]["options"] = _options(s, seat)
        elif action.kind == BURY:
            pub_set["hand_sizes"] = [sum(h) for h in s._hands]
            own[actor]["hand"] = str(Cards.from_counts(s._hands[actor]))
            own[actor]["kitty"] = format_cards(Cards(s._buried))
        else:                                            # a friend call
            pub_add["calls"] = [[card_name(f), o] for f, o in s.calls[self._calls:]]
            own[actor]["options"] = _options(s, actor)
        self._mark_light()
        return Changes(str(action), seen, pub_set, pub_add, own, None)

    def _mark_light(self) -> None:
        s = self.s
        self._drawn = s._drawn
        self._exposures = len(s.exposures)
        self._calls = len(s.calls)

    def _play_changes(self, actor: int, action: Action) -> Changes:
        s = self.s
        pc = s.play
        assert pc is not None                   # asked in the play phase only
        n = s.rules.players
        hand = pc.hand(actor)
        self._sizes[actor] = len(hand)
        leader, plays = s.current_trick()
        texts = self._trick_texts                # the trick's plays so far as text, one more each play
        if leader != self._trick_leader or len(plays) != len(texts) + 1:
            texts = [format_cards(p) for p in plays]
        else:
            texts = texts + [format_cards(plays[-1])]
        self._trick_leader, self._trick_texts = leader, texts
        pub_set: dict[str, Any] = {"hand_sizes": list(self._sizes), "current_player": s.current_player(),
                                   "current_trick": [leader, texts]}
        pub_add: dict[str, list[Any]] = {}
        if len(s._trick_text) != self._tricks:
            pub_add["tricks"] = [[w, list(ps)] for w, ps in s._trick_text[self._tricks:]]
            pub_set["points"] = list(pc.points)
            self._tricks = len(s._trick_text)
        if len(s.failed_throws) != self._failed:
            pub_add["failed_throws"] = [[a, str(b), str(c)] for a, b, c in s.failed_throws[self._failed:]]
            pub_add["throw_stoppers"] = list(shown_stoppers(s.throw_stoppers[self._failed:], s.rules))
            self._failed = len(s.failed_throws)
        if len(s.voids) != len(self._voids):
            pub_add["voids"] = [list(v) for v in sorted(s.voids - self._voids)]
            self._voids = set(s.voids)
        if len(s.no_sets) != len(self._no_sets):
            pub_add["no_sets"] = [list(v) for v in sorted(s.no_sets - self._no_sets)]
            self._no_sets = set(s.no_sets)
        filled = tuple(pc.calls_filled)
        if filled != self._filled:
            pub_set["calls_filled"] = list(filled)
            self._filled = filled
        own: list[dict[str, Any]] = [_NOTHING] * n
        own[actor] = {"hand": format_cards(hand)}
        return Changes(str(action), [True] * n, pub_set, pub_add, own, None)


#: The own changes of a seat that has none (shared, never changed).
_NOTHING: dict[str, Any] = {}


# ------------------------------------------------------------------ the other side
def _pairs(items: Any) -> tuple[tuple[Any, ...], ...]:
    return tuple(tuple(x) for x in items)


def _trick(item: Any) -> tuple[int, tuple[str, ...]]:
    return (int(item[0]), tuple(item[1]))


def _cards(text: Any) -> Optional[Cards]:
    return None if text is None else Cards.from_str(text)


#: Option texts already read (an Action is an immutable value): the call
#: phase lists the same few dozen options to every seat of every deal.
_OPTIONS: dict[str, Action] = {}


def _option_actions(texts: Any) -> tuple[Action, ...]:
    out = []
    for text in texts:
        action = _OPTIONS.get(text) if isinstance(text, str) else None
        if action is None:
            action = Action.from_str(text)
            if len(_OPTIONS) >= 4096:
                _OPTIONS.clear()
            _OPTIONS[text] = action
        out.append(action)
    return tuple(out)


#: How each field of a view's JSON form becomes the value a PlayerView holds.
_CONVERT: dict[str, Any] = {
    "hand": Cards.from_str,
    "kitty": _cards,
    "trump": lambda t: None if t is None else Trump(t[0], t[1]),
    "hand_sizes": tuple, "points": tuple, "calls_filled": tuple, "throw_stoppers": tuple,
    "levels": _pairs, "exposures": _pairs, "calls": _pairs, "failed_throws": _pairs,
    "voids": _pairs, "no_sets": _pairs,
    "tricks": lambda ts: tuple(_trick(t) for t in ts),
    "current_trick": _trick,
    "options": _option_actions,
}
_ITEM: dict[str, Any] = {"tricks": _trick}


def _convert(key: str, value: Any) -> Any:
    fn = _CONVERT.get(key)
    return value if fn is None else fn(value)


def view_from_json(obj: Mapping[str, Any], rules: Rules) -> PlayerView:
    """The :class:`PlayerView` whose :meth:`~PlayerView.to_json` is ``obj``.

    >>> from core.state import State
    >>> s = State(Rules.preset("pagat", players=6), seed=4)
    >>> view_from_json(s.view(2).to_json(), s.rules) == s.view(2)
    True
    """
    missing = [k for k in FIELDS if k not in obj]
    if missing:
        raise ValueError(f"a view needs the field(s) {', '.join(missing)}")
    return PlayerView(**{k: _convert(k, obj[k]) for k in FIELDS}, rules=rules)


class ViewBuilder:
    """Rebuilds one seat's views from a :class:`Narrator`'s messages.

    Messages are kept in their JSON form and turned into view values only
    when :meth:`view` asks (a bot that is not informed of every action pays
    for one conversion per decision, not one per message).
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._raw: Optional[dict[str, Any]] = None
        self._done: dict[str, Any] = {}
        self._view: Optional[PlayerView] = None

    def apply(self, msg: Mapping[str, Any]) -> None:
        """Take one message (``view``, or ``set`` / ``add`` changes)."""
        whole = msg.get("view")
        if whole is not None:
            missing = [k for k in FIELDS if k not in whole]
            if missing:
                raise ValueError(f"a view needs the field(s) {', '.join(missing)}")
            self._raw = {k: whole[k] for k in FIELDS}
            self._done = {}
        else:
            raw = self._raw
            if raw is None:
                raise ValueError("a change came before any whole view")
            done = self._done
            for key, value in msg.get("set", {}).items():
                if key not in raw:
                    raise ValueError(f"unknown view field {key!r}")
                raw[key] = value
                done.pop(key, None)
            for key, items in msg.get("add", {}).items():
                if key not in _APPENDED:
                    raise ValueError(f"view field {key!r} cannot be appended to")
                have = raw[key]
                if not isinstance(have, list):
                    have = raw[key] = list(have)
                have.extend(items)
                if key in done:                     # convert just the new items
                    more = _convert(key, items)
                    done[key] = (tuple(sorted(done[key] + more)) if key in _SORTED
                                 else done[key] + more)
        self._view = None

    def view(self) -> PlayerView:
        """The seat's view after the messages so far."""
        if self._view is None:
            raw = self._raw
            if raw is None:
                raise ValueError("no view yet")
            done = self._done
            for key in FIELDS:
                if key not in done:
                    value = _convert(key, raw[key])
                    done[key] = tuple(sorted(value)) if key in _SORTED else value
            view = object.__new__(PlayerView)        # the fields are checked: skip the frozen __init__
            view.__dict__.update(done)
            view.__dict__["rules"] = self.rules
            self._view = view
        return self._view
