"""Card faces, their names, and card lists.

A face is a small int: ``suit * 13 + (rank - 2)`` for the 52 suited faces
(suits clubs=0, diamonds=1, hearts=2, spades=3; ranks 2..14 with ace = 14),
then ``BJ = 52`` (black / small joker) and ``RJ = 53`` (red / big joker).
A deal uses several packs, so a hand is a multiset of faces.

>>> format_cards(parse_cards("AS 10h TH 2C bj RJ A♠"))
'2C 10H 10H AS AS BJ RJ'
>>> card_name(AS), rank_of(AS), suit_of(AS) == SPADES
('AS', 14, True)
>>> parse_cards("1S")
Traceback (most recent call last):
...
core.errors.InvalidActionError: bad card '1S': expected rank 2-10, J, Q, K or A then suit C, D, H or S (or BJ / RJ)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple, Optional, Union

from .errors import InvalidActionError

__all__ = [
    "CLUBS", "DIAMONDS", "HEARTS", "SPADES", "SUITS", "NUM_FACES", "BJ", "RJ",
    "JACK", "QUEEN", "KING", "ACE", "RANKS",
    "Cards", "make_face", "suit_of", "rank_of", "is_joker", "card_name",
    "parse_card", "parse_cards", "format_cards", "card_points", "points",
    "SUIT_LETTERS", "RANK_NAMES", "Trump", "Unit", "ThrowResult",
]

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUITS = (CLUBS, DIAMONDS, HEARTS, SPADES)
SUIT_LETTERS = "CDHS"
_SUIT_SYMBOLS = "♣♦♥♠"
JACK, QUEEN, KING, ACE = 11, 12, 13, 14
RANKS = tuple(range(2, 15))
RANK_NAMES = {r: str(r) for r in range(2, 11)} | {11: "J", 12: "Q", 13: "K", 14: "A"}
NUM_FACES = 54
BJ = 52
RJ = 53

_SUIT_BY_CHAR = {c: i for i, c in enumerate(SUIT_LETTERS)}
_SUIT_BY_CHAR.update({c: i for i, c in enumerate(_SUIT_SYMBOLS)})
_SUIT_BY_CHAR.update({"♧": 0, "♢": 1, "♡": 2, "♤": 3})
_RANK_BY_TEXT = {str(r): r for r in range(2, 11)} | {"T": 10, "J": 11, "Q": 12, "K": 13, "A": 14}

CardsLike = Union["Cards", str, Iterable[int]]


def make_face(rank: int, suit: int) -> int:
    """The face of a suited card.

    >>> make_face(14, SPADES) == AS
    True
    """
    if not (2 <= rank <= 14 and 0 <= suit <= 3):
        raise InvalidActionError(f"no card of rank {rank!r} and suit {suit!r}")
    return suit * 13 + rank - 2


def suit_of(face: int) -> int:
    """The printed suit of a face (0..3), or -1 for a joker."""
    return -1 if face >= 52 else face // 13


def rank_of(face: int) -> int:
    """The printed rank of a face (2..14), or 0 for a joker."""
    return 0 if face >= 52 else face % 13 + 2


def is_joker(face: int) -> bool:
    """True for BJ and RJ."""
    return face >= 52


def card_name(face: int, symbols: bool = False) -> str:
    """The notation of one face: ``AS``, ``10H``, ``BJ``.

    >>> card_name(make_face(10, HEARTS)), card_name(make_face(10, HEARTS), symbols=True)
    ('10H', '10♥')
    """
    if not (isinstance(face, int) and not isinstance(face, bool) and 0 <= face < NUM_FACES):
        raise InvalidActionError(f"no card face {face!r}: faces are 0..53")
    if face == BJ:
        return "BJ"
    if face == RJ:
        return "RJ"
    letters = _SUIT_SYMBOLS if symbols else SUIT_LETTERS
    return RANK_NAMES[rank_of(face)] + letters[suit_of(face)]


def parse_card(text: str) -> int:
    """Read one card in the notation (case-insensitive; suit symbols accepted).

    >>> parse_card("th") == parse_card("10H")
    True
    """
    face = _FACE_BY_NAME.get(text) if isinstance(text, str) else None
    if face is not None:
        return face
    t = text.strip().upper()
    if t in ("BJ", "RJ"):
        return BJ if t == "BJ" else RJ
    if len(t) >= 2 and t[-1] in _SUIT_BY_CHAR and t[:-1] in _RANK_BY_TEXT:
        return make_face(_RANK_BY_TEXT[t[:-1]], _SUIT_BY_CHAR[t[-1]])
    raise InvalidActionError(
        f"bad card {text!r}: expected rank 2-10, J, Q, K or A then suit C, D, H or S (or BJ / RJ)"
    )


class Cards(tuple[int, ...]):
    """An immutable, hashable multiset of faces kept as a sorted tuple.

    >>> c = Cards.from_str("KH 5S KH")
    >>> c, str(c), c.count(parse_card("KH")), c.points()
    (Cards.from_str('KH KH 5S'), 'KH KH 5S', 2, 25)
    >>> c == Cards([parse_card("5S"), parse_card("KH"), parse_card("KH")])
    True
    """

    __slots__ = ()

    def __new__(cls, faces: Iterable[int] = ()) -> Cards:
        items = sorted(faces)
        for f in items:
            if not (isinstance(f, int) and not isinstance(f, bool) and 0 <= f < NUM_FACES):
                raise InvalidActionError(f"no card face {f!r}: faces are 0..53")
        return super().__new__(cls, items)

    @classmethod
    def from_str(cls, text: str) -> Cards:
        """Parse a space-separated card list."""
        return parse_cards(text)

    @classmethod
    def from_counts(cls, counts: Iterable[int]) -> Cards:
        """Build from 54 per-face counts."""
        out: list[int] = []
        for face, n in enumerate(counts):
            if n:
                out.extend([face] * int(n))
        return tuple.__new__(cls, out)

    def counts(self) -> list[int]:
        """The 54 per-face counts."""
        c = [0] * NUM_FACES
        for f in self:
            c[f] += 1
        return c

    def points(self) -> int:
        """Card points: K and 10 are worth 10, 5 is worth 5."""
        return sum(card_points(f) for f in self)

    def __add__(self, other: Iterable[int]) -> Cards:  # type: ignore[override]
        return Cards(tuple(self) + tuple(other))

    def __sub__(self, other: Iterable[int]) -> Cards:
        c = self.counts()
        for f in Cards(other):
            if c[f] == 0:
                raise InvalidActionError(f"card {card_name(f)} is not in {self}")
            c[f] -= 1
        return Cards.from_counts(c)

    def __str__(self) -> str:
        return format_cards(self)

    def __repr__(self) -> str:
        return f"Cards.from_str({format_cards(self)!r})"


def parse_cards(text: CardsLike) -> Cards:
    """Read a card list: a space-separated string, a :class:`Cards` or faces.

    >>> parse_cards("") == Cards()
    True
    """
    if isinstance(text, Cards):
        return text
    if isinstance(text, str):
        words = text.replace(",", " ").split()
        try:                                   # the notation as this module writes it
            return tuple.__new__(Cards, sorted([_FACE_BY_NAME[w] for w in words]))
        except KeyError:
            return Cards(parse_card(tok) for tok in words)
    try:
        return Cards(text)
    except TypeError:
        raise InvalidActionError(f"cannot read cards from {text!r}") from None


def format_cards(cards: Iterable[int], symbols: bool = False) -> str:
    """Write faces in the notation, sorted by face, space separated."""
    names = _SYMBOL_NAMES if symbols else _ASCII_NAMES
    try:
        return " ".join([names[f] for f in sorted(cards)])
    except (IndexError, TypeError):
        return " ".join(card_name(f, symbols) for f in sorted(cards))


_POINTS = [0] * NUM_FACES
for _s in SUITS:
    _POINTS[make_face(5, _s)] = 5
    _POINTS[make_face(10, _s)] = 10
    _POINTS[make_face(13, _s)] = 10


def card_points(face: int) -> int:
    """The card points of one face."""
    return _POINTS[face]


def points(cards: CardsLike) -> int:
    """Card points of a card list (100 per pack).

    >>> points("KS 10D 5H 5H AS")
    30
    """
    return sum(_POINTS[f] for f in parse_cards(cards))


_ASCII_NAMES = [card_name(f) for f in range(NUM_FACES)]
_SYMBOL_NAMES = [card_name(f, True) for f in range(NUM_FACES)]
#: The face of each card name exactly as written by :func:`card_name` (a fast path).
_FACE_BY_NAME = {name: f for f, name in enumerate(_ASCII_NAMES)}


def _export_names() -> None:
    g = globals()
    for face in range(NUM_FACES):
        name = card_name(face)
        if name.startswith("10"):
            name = "T" + name[2:]
        if name[0].isdigit():
            continue  # ``2C`` is no identifier: use parse_card("2C")
        g[name] = face
        __all__.append(name)


_export_names()


class Trump(NamedTuple):
    """The trump rank (2..14, or None at a joker level) and trump suit (0..3, or None).

    >>> Trump(rank=5, suit=HEARTS)
    Trump(rank=5, suit=2)
    """

    rank: Optional[int]
    suit: Optional[int]


class Unit(NamedTuple):
    """One unit of a play: ``width`` copies on each of ``length`` adjacent levels.

    A single is (1, 1), a pair (2, 1), a tractor of two pairs (2, 2). ``top`` is
    the highest order level it covers (see ``docs/kernel.md``).
    """

    width: int
    length: int
    top: int
    cards: Cards


class ThrowResult(NamedTuple):
    """Outcome of checking a throw against the other hands.

    ``stands`` is True when no hand beats any unit; otherwise ``unit`` holds
    the cards that must be led instead, ``withdrawn`` the number of cards taken
    back, ``penalty`` the card points it costs, and ``beaten_by`` the index (in
    the list of other hands given) of the hand that showed the beating cards.
    """

    stands: bool
    unit: Optional[Cards]
    withdrawn: int
    penalty: int
    beaten_by: Optional[int]
