"""Actions: the decisions of a deal as small values.

Kinds: ``pass`` (decline to expose or to defend), ``expose`` (show identical
trump-rank cards during the draw; a defence is an exposure too), ``bury`` (the
maker puts one card into the kitty), ``call`` (name a friend card with an
ordinal, or "other"), ``play`` (lead or follow with some cards).

>>> a = Action.from_str("call AC 1")
>>> str(a), Action.from_str(str(a)) == a
('call AC 1', True)
>>> str(Action.from_str("AS AS")), Action.from_str("play AS AS").key == Action.from_str("AS AS").key
('play AS AS', True)
>>> Action.from_str("shout AS")
Traceback (most recent call last):
...
core.errors.InvalidActionError: bad action 'shout AS': bad card 'shout': expected rank 2-10, J, Q, K or A then suit C, D, H or S (or BJ / RJ)
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from .cards import Cards, format_cards, parse_card, parse_cards
from .errors import InvalidActionError

__all__ = ["Action", "ActionKind", "PASS", "EXPOSE", "BURY", "CALL", "PLAY", "KIND_NAMES"]


class NumberEnum(IntEnum):
    """An enum of whole numbers that prints as its number (``repr`` included),
    so values built from it read the same in records, messages and doctests."""

    __repr__ = int.__repr__


class ActionKind(NumberEnum):
    """What an action does. Members are the whole numbers 0..4 (an action's
    ``kind``, in packed keys and records), and print as those numbers.

    >>> ActionKind.PLAY == 4, ActionKind(2).name, Action.play("AS").kind is ActionKind.PLAY
    (True, 'BURY', True)
    """

    PASS = 0
    EXPOSE = 1
    BURY = 2
    CALL = 3
    PLAY = 4


PASS, EXPOSE, BURY, CALL, PLAY = ActionKind
KIND_NAMES = tuple(k.name.lower() for k in ActionKind)
_USAGE = "expected pass, expose CARDS, bury CARD, call CARD N|other, or play CARDS"


class Action(NamedTuple):
    """One decision. ``cards`` holds the cards shown, buried, called or played;
    ``ordinal`` is the friend call's copy number (0 means "the other")."""

    kind: int
    cards: Cards = Cards()
    ordinal: int = 0

    @classmethod
    def pass_(cls) -> Action:
        """Decline (to expose, or to defend an exposure)."""
        return cls(PASS)

    @classmethod
    def expose(cls, cards: Cards | str) -> Action:
        """Show identical trump-rank cards."""
        return cls(EXPOSE, parse_cards(cards))

    @classmethod
    def bury(cls, face: int) -> Action:
        """Put one card into the kitty."""
        return cls(BURY, Cards((face,)))

    @classmethod
    def call(cls, face: int, ordinal: int) -> Action:
        """Call the ``ordinal``-th copy of ``face`` played (0: "the other")."""
        return cls(CALL, Cards((face,)), ordinal)

    @classmethod
    def play(cls, cards: Cards | str) -> Action:
        """Lead or follow with these cards."""
        return cls(PLAY, parse_cards(cards))

    @property
    def key(self) -> int:
        """A packed integer, equal for equal actions: 3 bits of kind, 3 of
        ordinal, then 3 bits per face holding its count."""
        k = self.kind | (self.ordinal << 3)
        for f in self.cards:
            k += 1 << (6 + 3 * f)
        return k

    @classmethod
    def from_key(cls, key: int) -> Action:
        """Inverse of :attr:`key`."""
        if not isinstance(key, int) or key < 0:
            raise InvalidActionError(f"bad action key {key!r}")
        kind, ordinal, rest = key & 7, (key >> 3) & 7, key >> 6
        if kind > PLAY:
            raise InvalidActionError(f"bad action key {key!r}")
        faces = []
        f = 0
        while rest:
            faces += [f] * (rest & 7)
            rest >>= 3
            f += 1
        return cls(kind, Cards(faces), ordinal)

    @classmethod
    def from_str(cls, text: str) -> Action:
        """Read ``pass``, ``expose 2H 2H``, ``bury 3C``, ``call AC 1``,
        ``call AC other``, ``play AS AS`` (or just ``AS AS``)."""
        if not isinstance(text, str):
            raise InvalidActionError(f"bad action {text!r}: {_USAGE}")
        words = text.split()
        if not words:
            raise InvalidActionError(f"bad action {text!r}: {_USAGE}")
        verb = words[0].lower()
        try:
            if verb == "pass" and len(words) == 1:
                return cls.pass_()
            if verb == "expose" and len(words) >= 2:
                return cls.expose(" ".join(words[1:]))
            if verb == "bury" and len(words) == 2:
                return cls.bury(parse_card(words[1]))
            if verb == "call" and len(words) == 3:
                o = words[2].lower()
                if o == "other":
                    return cls.call(parse_card(words[1]), 0)
                if o.isdigit() and 1 <= int(o) <= 7:
                    return cls.call(parse_card(words[1]), int(o))
                raise InvalidActionError(f"bad action {text!r}: the ordinal must be 1 to 7 or 'other'")
            if verb == "play" and len(words) >= 2:
                return cls.play(" ".join(words[1:]))
            if verb not in KIND_NAMES:
                return cls.play(text)
        except InvalidActionError as exc:
            if "bad action" in str(exc):
                raise
            raise InvalidActionError(f"bad action {text!r}: {exc}") from None
        raise InvalidActionError(f"bad action {text!r}: {_USAGE}")

    def __str__(self) -> str:
        name = KIND_NAMES[self.kind]
        if self.kind == PASS:
            return name
        if self.kind == CALL:
            return f"call {format_cards(self.cards)} {self.ordinal or 'other'}"
        return f"{name} {format_cards(self.cards)}"

    def __repr__(self) -> str:
        return f"Action.from_str({str(self)!r})"
