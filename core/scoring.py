"""Scoring one deal: the kitty multiplier, the opponents' card points, game points.

Everything here is a pure function of a :class:`~core.rules.Rules` and a few
numbers; the caller (the deal engine) supplies what happened in play.

Sides are named ``'maker'`` (the trump maker and the friends who joined) and
``'opponents'`` (everyone else), whatever a source calls them.

A 6-player ``pagat`` deal where the opponents took 55 points in tricks, won
the last trick over a kitty holding 25, and the maker side paid a 20-point
throw penalty while an opponent paid 30:

>>> from core.rules import Rules
>>> r = Rules.preset("pagat", players=6)
>>> m = kitty_multiplier(r, winning_play_cards=1, largest_unit_cards=1, cards_per_player=1)
>>> p = opponents_points([25, 10, 40, 15, 0, 30], {0, 2}, 25, True, m, [20, 0, 0, 30, 0, 0])
>>> p
95
>>> score_deal(r, p, maker_side_size=2)
DealScore(winner='opponents', game_points=1, next_side='opponents')
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from enum import StrEnum
from typing import NamedTuple, Optional

from . import kernel
from .errors import PengyouError
from .rules import Rules

__all__ = ["DealScore", "kitty_multiplier", "opponents_points", "score_deal", "card_margin", "card_share", "Side", "MAKER", "OPPONENTS"]

class Side(StrEnum):
    """The two sides of a deal; members are the texts ``'maker'`` and
    ``'opponents'`` (in results, records and JSON) and print as those texts.

    >>> Side.MAKER == "maker", Side("opponents") is Side.OPPONENTS
    (True, True)
    """

    MAKER = "maker"
    OPPONENTS = "opponents"

    __repr__ = str.__repr__


MAKER, OPPONENTS = Side


def kitty_multiplier(
    rules: Rules, winning_play_cards: int, largest_unit_cards: int, cards_per_player: int, lead_pairs: int = 0
) -> int:
    """How many times the kitty's points count when the opponents take the last trick.

    ``winning_play_cards``: cards in the play that won the last trick;
    ``largest_unit_cards``: cards in the largest unit of the last trick (a
    single 1, a pair 2, a tractor of two pairs 4); ``cards_per_player``: cards
    each player put into the last trick; ``lead_pairs``: the pairs in the
    last lead (each set of two or more cards counts one, so a tractor of
    three pairs counts 3). By ``rules.kitty_multiplier``:

    - ``double``: always 2;
    - ``by_cards``: 2, 3 or 4 for a winning play of 1, 2, or 3 or more cards;
    - ``unit_double``: twice the largest unit's size;
    - ``unit_power``: 2 to the power of the largest unit's size;
    - ``cards_per_player``: twice the cards each player played;
    - ``pairs_power``: 2 to the power of 1 + ``lead_pairs`` (a single 2, a
      pair 4, a tractor of two pairs 8).

    >>> from core.rules import Rules
    >>> [kitty_multiplier(Rules(kitty_multiplier=k), 4, 4, 4)
    ...  for k in ("double", "by_cards", "unit_double", "unit_power", "cards_per_player")]
    [2, 4, 8, 16, 8]
    >>> kitty_multiplier(Rules(kitty_multiplier="by_cards"), 2, 2, 2)
    3
    >>> kitty_multiplier(Rules(kitty_multiplier="pairs_power"), 6, 6, 6, lead_pairs=3)
    16
    """
    for name, value in (
        ("winning_play_cards", winning_play_cards),
        ("largest_unit_cards", largest_unit_cards),
        ("cards_per_player", cards_per_player),
    ):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise PengyouError(f"{name}: expected a whole number of cards, at least 1, got {value!r}")
    if not isinstance(lead_pairs, int) or isinstance(lead_pairs, bool) or not 0 <= 2 * lead_pairs <= cards_per_player:
        raise PengyouError(f"lead_pairs: {lead_pairs!r} pairs do not fit a lead of {cards_per_player} cards")
    if largest_unit_cards > cards_per_player or winning_play_cards > cards_per_player:
        raise PengyouError(
            f"the last trick has {cards_per_player} cards per player: a unit of {largest_unit_cards} "
            f"or a play of {winning_play_cards} cards does not fit"
        )
    return _multiplier(rules.kitty_multiplier, winning_play_cards, largest_unit_cards, cards_per_player,
                       lead_pairs)


def _multiplier(kind: str, winning_play_cards: int, largest_unit_cards: int, cards_per_player: int,
                lead_pairs: int) -> int:
    """:func:`kitty_multiplier` on checked arguments: the kernel's one definition."""
    mult: int = kernel.kitty_multiplier_of(kind, winning_play_cards, largest_unit_cards, cards_per_player,
                                           lead_pairs)
    return mult


def opponents_points(
    points_by_seat: Sequence[int],
    maker_side: Collection[int],
    kitty_points: int,
    kitty_to_opponents: bool,
    multiplier: int,
    penalties_by_seat: Sequence[int],
) -> int:
    """The opponents' card points at the end of a deal.

    ``points_by_seat[s]``: card points seat ``s`` won in tricks (a friend's
    points from before the reveal included; they count for the side the seat
    ends on). ``maker_side``: the seats of the maker side, known once the deal
    is over. ``penalties_by_seat[s]``: card points seat ``s`` forfeits for its
    failed throws; a penalty moves from the thrower's side to the other side,
    so a maker-side penalty adds to the opponents and an opponent's penalty
    subtracts from them. When ``kitty_to_opponents`` the kitty's points count
    ``multiplier`` times for the opponents. The result is never below 0.

    >>> opponents_points([0, 30, 0, 10, 0], {0, 2}, 20, True, 2, [0, 0, 0, 0, 0])
    80
    >>> opponents_points([0, 30, 0, 10, 0], {0, 2}, 20, False, 2, [0, 20, 0, 0, 0])
    20
    >>> opponents_points([0, 10, 0, 0, 0], {0}, 0, False, 2, [0, 0, 0, 30, 0])
    0
    """
    n = len(points_by_seat)
    if len(penalties_by_seat) != n:
        raise PengyouError(
            f"penalties_by_seat: {len(penalties_by_seat)} seats, but points_by_seat has {n}"
        )
    side = set(maker_side)
    if not side or any(not isinstance(s, int) or not 0 <= s < n for s in side):
        raise PengyouError(f"maker_side: {sorted(side, key=repr)} is not a non-empty set of seats 0..{n - 1}")
    if len(side) == n:
        raise PengyouError("maker_side: every seat is on the maker side; the opponents need a seat")
    for name, values in (("points_by_seat", points_by_seat), ("penalties_by_seat", penalties_by_seat)):
        if any(v < 0 for v in values):
            raise PengyouError(f"{name}: card points must not be negative")
    if kitty_points < 0 or multiplier < 1:
        raise PengyouError("kitty_points must not be negative and multiplier must be at least 1")
    return _opponents_total(points_by_seat, side, kitty_points, kitty_to_opponents, multiplier,
                            penalties_by_seat)


def _opponents_total(points_by_seat: Sequence[int], side: Collection[int], kitty_points: int,
                     kitty_to_opponents: bool, multiplier: int, penalties_by_seat: Sequence[int]) -> int:
    """:func:`opponents_points` on checked arguments: the kernel's one definition."""
    total: int = kernel.opponents_total(points_by_seat, side, kitty_points, kitty_to_opponents, multiplier,
                                        penalties_by_seat)
    return total


def card_margin(rules: Rules, opponents_points: int) -> int:
    """The maker side's card-point margin over the opponents: ``total_points - 2 *
    opponents_points`` (the search's and the arena's card-point reward).

    >>> from core.rules import Rules
    >>> card_margin(Rules.preset("pagat", players=6), 75)
    50
    """
    margin: int = kernel.card_margin(rules.total_points, opponents_points)
    return margin


def card_share(rules: Rules, opponents_points: int) -> float:
    """:func:`card_margin` as a share of the deal's points, about -1 to 1 (the
    search's card-point reward, on the scale of its exploration constants).

    >>> from core.rules import Rules
    >>> card_share(Rules.preset("pagat", players=6), 75)
    0.25
    """
    return card_margin(rules, opponents_points) / rules.total_points


class DealScore(NamedTuple):
    """The result of one deal.

    ``winner``: ``'maker'``, ``'opponents'``, or ``None`` in the no-score band
    of ``bands`` and ``heli``. ``game_points``: levels (or game points) each
    winner gains, 0 with no winner. ``next_side``: the side that takes control
    of the next deal (where the next maker is predetermined): the winner, and
    the opponents in the no-score band.
    """

    winner: Optional[str]
    game_points: int
    next_side: Optional[str]


_NO_BOUND = 1 << 62


def _bands(rules: Rules) -> list[tuple[int, Optional[str], int]]:
    """The table of ``rules.scoring`` as ``(below, winner, gain)`` rows: the first
    row whose bound the opponents' points are below decides (the last has no bound)."""
    p = rules.packs
    if rules.scoring == "pagat":
        return [(1, MAKER, 2), (40 * p, MAKER, 1), (80 * p, OPPONENTS, 1), (100 * p, OPPONENTS, 2),
                (_NO_BOUND, OPPONENTS, 3)]
    s = rules.band_step * p                 # "bands" and "heli": one band is band_step points per pack
    low = (2 + rules.dead_zone) * s         # where the opponents begin to score
    rows: list[tuple[int, Optional[str], int]] = [(1, MAKER, 3), (s, MAKER, 2), (2 * s, MAKER, 1)]
    if rules.dead_zone:
        rows.append((low, None, 0))
    return rows + [(low + s, OPPONENTS, 1), (low + 2 * s, OPPONENTS, 2), (_NO_BOUND, OPPONENTS, 3)]


def _band(rules: Rules, points: int) -> tuple[Optional[str], int]:
    for below, winner, gain in _bands(rules):
        if points < below:
            return winner, gain
    raise AssertionError("the last band has no bound")  # pragma: no cover


def _past_top(rules: Rules, points: int) -> int:
    """Levels past the start of the table's last band: one for each further
    ``band_step * packs`` points (``bands_above_top`` ``open``; the pagat table
    steps by 20 points per pack)."""
    top = _bands(rules)[-2][0]                     # where the last, unbounded band begins
    step = (20 if rules.scoring == "pagat" else rules.band_step) * rules.packs
    return max(0, points - top) // step


def score_deal(rules: Rules, opponents_points: int, maker_side_size: int) -> DealScore:
    """Game points of a deal from the opponents' card points ``P``.

    With ``p = rules.packs`` (``pagat`` table of ``000``; also ``thirteen``):

    ======================  ===============
    P                       result
    ======================  ===============
    0                       maker 2
    5 .. below 40p          maker 1
    40p .. below 80p        opponents 1
    80p .. below 100p       opponents 2
    100p or more            opponents 3
    ======================  ===============

    ``bands`` (the two-deck table of ``003``/``004`` with its edges scaled by
    p/2, so one step is 20p points) and ``heli`` (steps of 20 % of the deal's
    100p points, again 20p) share one table, with ``s = 20 * p``:
    0 maker 3; below s maker 2; below 2s maker 1; below 3s no score (the
    opponents take the next deal); below 4s opponents 1; below 5s opponents 2;
    5s or more opponents 3.

    In ``bands`` and ``heli`` a band is ``s = rules.band_step * p`` points
    (20p as written) and ``rules.dead_zone`` bands (1 as written) score for
    nobody: the opponents score 1 from ``(2 + dead_zone) * s``, 2 one band
    higher and 3 from two bands higher. With ``dead_zone`` 0 the opponents
    score 1 from ``2s``.

    With ``rules.bands_above_top`` ``open`` the last band goes on: each
    further band (``20 * p`` points in the pagat table) past its start gives
    the opponents one more (with two packs, 240 is opponents 4 and 280
    opponents 5, where ``capped`` stays at 3).

    A maker side short of a full side
    (:attr:`Rules.side_size <core.rules.Rules.side_size>`) that wins gains
    more: with ``rules.short_side_multiplier`` its game points are
    multiplied by 1 + the members missing; with ``rules.short_side_bonus``
    it gains one more. The opponents' wins never change.

    >>> from core.rules import Rules
    >>> six = Rules.preset("pagat", players=6)
    >>> score_deal(six, 75, maker_side_size=1)
    DealScore(winner='maker', game_points=3, next_side='maker')
    >>> score_deal(six, 160, maker_side_size=3)
    DealScore(winner='opponents', game_points=2, next_side='opponents')
    >>> score_deal(Rules.preset("bottom-eight"), 115, maker_side_size=2)
    DealScore(winner=None, game_points=0, next_side='opponents')
    >>> score_deal(Rules.preset("heli", players=5), 35, maker_side_size=1)
    DealScore(winner='maker', game_points=4, next_side='maker')
    >>> score_deal(Rules.preset("tractor", bands_above_top="open"), 245, maker_side_size=2)
    DealScore(winner='opponents', game_points=4, next_side='opponents')
    >>> score_deal(Rules.preset("tractor", dead_zone=0), 85, maker_side_size=2)
    DealScore(winner='opponents', game_points=1, next_side='opponents')
    >>> bonus = Rules.preset("pagat", scoring="bands", short_side_multiplier=False, short_side_bonus=True)
    >>> score_deal(bonus, 45, maker_side_size=2)
    DealScore(winner='maker', game_points=2, next_side='maker')
    """
    points = opponents_points
    if not isinstance(points, int) or isinstance(points, bool) or points < 0:
        raise PengyouError(f"opponents_points: expected a whole number of card points, at least 0, got {points!r}")
    full = rules.side_size
    if not isinstance(maker_side_size, int) or not 1 <= maker_side_size <= full:
        raise PengyouError(f"maker_side_size: {maker_side_size!r} is not from 1 to {full} (a full maker side)")
    winner, gain = _band(rules, points)
    if rules.bands_above_top == "open":
        gain += _past_top(rules, points)
    if winner is None:
        return DealScore(None, 0, OPPONENTS)
    if winner == MAKER and maker_side_size < full:
        if rules.short_side_multiplier:
            gain *= 1 + (full - maker_side_size)
        elif rules.short_side_bonus:
            gain += 1
    return DealScore(winner, gain, winner)
