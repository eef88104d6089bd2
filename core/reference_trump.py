"""The naive reference's trump context: effective suits, order levels and
tractor eligibility, read literally from ``docs/kernel.md`` (Trump context).
Part of :mod:`core.reference`, which re-exports every name here; like it, it
relies on :mod:`core.cards` only (:mod:`core.rules` for a type).

>>> from core.cards import HEARTS, parse_card
>>> t = Trump(rank=5, suit=HEARTS)
>>> level(parse_card("6S"), t), level(parse_card("5S"), t), level(parse_card("5H"), t), effective_suit(parse_card("5S"), t)
(3, 12, 13, 4)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .cards import BJ, RJ, Trump, rank_of, suit_of

if TYPE_CHECKING:
    from .rules import Rules

__all__ = ["TRUMPS", "Chain", "as_trump", "chain_of", "effective_suit", "is_trump", "level", "tractor_eligible"]

#: The effective suit number shared by all trumps.
TRUMPS = 4


def as_trump(trump: Trump) -> Trump:
    """A trump given as a plain ``(rank, suit)`` pair, as a :class:`Trump`."""
    return trump if isinstance(trump, Trump) else Trump(*trump)


def effective_suit(face: int, trump: Trump) -> int:
    """The effective suit of a face: its printed suit 0..3, or 4 for any trump.

    Trumps are both jokers, every card of the trump rank and every card of the
    trump suit.
    """
    trump = as_trump(trump)
    if face == BJ or face == RJ:
        return TRUMPS
    if trump.rank is not None and rank_of(face) == trump.rank:
        return TRUMPS
    if trump.suit is not None and suit_of(face) == trump.suit:
        return TRUMPS
    return suit_of(face)


def is_trump(face: int, trump: Trump) -> bool:
    """True when the face belongs to the trump effective suit."""
    return effective_suit(face, trump) == TRUMPS


def level(face: int, trump: Trump) -> int:
    """The order level of a face inside its effective suit (higher beats lower).

    Plain ranks count from 0 with the trump rank left out; off-suit trump-rank
    cards are 12 (13 when there is no trump suit); the trump-rank card of the
    trump suit is 13; BJ is 14 and RJ is 15.
    """
    trump = as_trump(trump)
    if face == RJ:
        return 15
    if face == BJ:
        return 14
    rank, suit = rank_of(face), suit_of(face)
    if trump.rank is not None and rank == trump.rank:
        if trump.suit is None:
            # Read literally: with no trump suit, level 12 stays empty, so even
            # with tractor_past_ace an ace and the trump-rank cards are not
            # adjacent (nor is a trump-suit ace, 12, and BJ, 14, at no rank).
            return 13
        return 13 if suit == trump.suit else 12
    lvl = rank - 2
    if trump.rank is not None and rank > trump.rank:
        lvl -= 1  # the trump rank is left out of the plain order
    return lvl


def tractor_eligible(face: int, trump: Trump, past_ace: bool) -> bool:
    """Whether a face may be part of a tractor.

    By default: not a joker and not of the trump rank. With ``past_ace``
    (``Rules.tractor_past_ace``) every trump face is eligible as well.
    """
    trump = as_trump(trump)
    if face not in (BJ, RJ) and rank_of(face) != trump.rank:
        return True
    return past_ace and is_trump(face, trump)


class Chain(NamedTuple):
    """What may form a tractor: ``past_ace`` (``tractor_past_ace``, as
    :func:`tractor_eligible` reads it), and the narrowest sets and the fewest
    of them (``tractor_min_width``, ``tractor_min_length``)."""

    past_ace: bool
    min_width: int = 2
    min_length: int = 2


def chain_of(rules: Rules) -> Chain:
    """The :class:`Chain` of a rules object."""
    return Chain(rules.tractor_past_ace, rules.tractor_min_width, rules.tractor_min_length)
