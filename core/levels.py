"""Levels and the match: climbing after a deal, the end of the match, who starts
and who makes trump next.

Level encoding: a level is an ``int``.

- First lap: ``2 .. 14`` are the ranks 2 .. A (11 = J, 12 = Q, 13 = K, 14 = A).
- With ``rules.joker_level`` the ladder goes on: ``15`` is the Joker level (no
  trump rank, no trump suit), then a second lap ``16 .. 28`` = ``2+ .. A+``,
  ``29`` = ``Joker+``, ``30`` = ``2++`` and so on. Each lap after the first is
  14 levels long (13 ranks and a Joker level).

So ``lap = (level - 2) // 14`` and ``(level - 2) % 14`` is 0 .. 12 for the
ranks 2 .. A and 13 for Joker. Without ``joker_level`` levels stop at the
match target (``rules.target_rank``, at most A).

>>> [level_name(v) for v in (2, 10, 14, 15, 16, 28, 29, 30)]
['2', '10', 'A', 'Joker', '2+', 'A+', 'Joker+', '2++']
>>> from core.rules import Rules
>>> r = Rules.preset("pagat", players=6)
>>> lv = apply_deal(r, start_levels(r), {1, 3, 4}, 1)
>>> [format_level(x) for x in lv]
['passive 2', 'active 3', 'passive 2', 'active 3', 'active 3', 'passive 2']
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import NamedTuple, Optional

from .errors import PengyouError
from .rules import Rules

__all__ = [
    "FIRST_LEVEL", "ACE_LEVEL", "JOKER_LEVEL", "LAP",
    "PlayerLevel", "level_rank", "level_name", "format_level", "start_levels", "apply_deal",
    "redeal_levels", "match_over", "defended_at_target", "next_starter", "next_maker", "trump_rank_for",
]

FIRST_LEVEL = 2
ACE_LEVEL = 14
JOKER_LEVEL = 15
#: levels per lap once the Joker level is in play (13 ranks + Joker)
LAP = 14

_RANK_NAMES = {r: str(r) for r in range(2, 11)} | {11: "J", 12: "Q", 13: "K", 14: "A"}


class PlayerLevel(NamedTuple):
    """One player's score: a ``level`` (see the module's encoding) and whether
    they are ``active`` (only active players may make trump in ``pagat``)."""

    level: int
    active: bool


def _check_level(level: int) -> None:
    if not isinstance(level, int) or isinstance(level, bool) or level < FIRST_LEVEL:
        raise PengyouError(f"level: {level!r} is not a level (2 or more)")


def level_rank(level: int, rules: Rules) -> Optional[int]:
    """The trump rank (2..14) a level plays at, or ``None`` at a Joker level.

    >>> from core.rules import Rules
    >>> heli = Rules.preset("heli", players=5)
    >>> [level_rank(v, heli) for v in (2, 14, 15, 16, 28, 29)]
    [2, 14, None, 2, 14, None]
    >>> level_rank(15, Rules.preset("pagat", players=6))
    Traceback (most recent call last):
    ...
    core.errors.PengyouError: level: 15 is past A, and these rules have no Joker level
    """
    _check_level(level)
    if not rules.joker_level and level > ACE_LEVEL:
        raise PengyouError(f"level: {level} is past A, and these rules have no Joker level")
    pos = (level - FIRST_LEVEL) % LAP
    return None if pos == LAP - 1 else FIRST_LEVEL + pos


def level_name(level: int) -> str:
    """How a level is written: ``'2'``, ``'10'``, ``'A'``, ``'Joker'``, ``'2+'``, ``'Joker+'``, ``'2++'``.

    >>> level_name(11), level_name(43), level_name(44)
    ('J', 'Joker++', '2+++')
    """
    _check_level(level)
    lap, pos = divmod(level - FIRST_LEVEL, LAP)
    base = "Joker" if pos == LAP - 1 else _RANK_NAMES[FIRST_LEVEL + pos]
    return base + "+" * lap


def format_level(player: PlayerLevel) -> str:
    """A score as the sources write it: ``'active 3'``, ``'passive Q'``.

    >>> format_level(PlayerLevel(12, False))
    'passive Q'
    """
    return f"{'active' if player.active else 'passive'} {level_name(player.level)}"


def start_levels(rules: Rules) -> list[PlayerLevel]:
    """Everyone active at 2, one entry per seat.

    >>> from core.rules import Rules
    >>> start_levels(Rules.preset("bottom-eight"))[0]
    PlayerLevel(level=2, active=True)
    """
    return [PlayerLevel(FIRST_LEVEL, True) for _ in range(rules.players)]


def _check_levels(rules: Rules, levels: Sequence[PlayerLevel]) -> None:
    if len(levels) != rules.players:
        raise PengyouError(f"levels: {len(levels)} entries for {rules.players} players")
    for lv in levels:
        _check_level(lv.level)


def _check_seats(rules: Rules, seats: Collection[int], name: str) -> set[int]:
    out = set(seats)
    for s in out:
        if not isinstance(s, int) or isinstance(s, bool) or not 0 <= s < rules.players:
            raise PengyouError(f"{name}: {s!r} is not a seat from 0 to {rules.players - 1}")
    return out


def apply_deal(
    rules: Rules, levels: Sequence[PlayerLevel], winners: Collection[int], game_points: int,
    maker_side: Optional[Collection[int]] = None, jack: bool = False, maker: Optional[int] = None,
) -> list[PlayerLevel]:
    """Levels after a deal whose ``winners`` (seats) won ``game_points`` each.

    ``rules.levels``:

    - ``active_passive``: a passive winner spends the first point on becoming
      active and climbs one level per further point; an active winner climbs
      one level per point; every other seat becomes passive at its level.
    - ``plain``: each winner climbs one level per point; everyone is active.

    A deal with 0 game points (a no-score band) changes nothing but a jack
    reset (below). Without
    ``rules.joker_level`` no level climbs past ``rules.target_rank`` (reaching
    it ends the match).

    With ``rules.must_defend`` ``points`` a winner whose level plays at 5, 10
    or K climbs past it only from the maker's side (``maker_side``, needed
    then) and only with the first level of its climb; otherwise its climb
    stops there. ``ace`` holds A the same way, ``points_ace`` all four.
    ``ace_joker`` holds A and the Joker level, and a seat climbs past a
    Joker level only in a deal played at a Joker level (the ``maker``'s
    level, needed then: the seat that made trump).

    ``jack``: the opponents took the last trick with a single jack in a deal
    played at rank J (:attr:`core.phase_rules.DealResult.jack_last`); with
    ``rules.jack_reset`` every seat of ``maker_side`` goes back to 2 (the
    2 of its lap with the Joker level).

    >>> from core.rules import Rules
    >>> r = Rules.preset("pagat", players=6)
    >>> lv = apply_deal(r, start_levels(r), {1, 3, 4}, 1)
    >>> lv = apply_deal(r, lv, {0, 1, 2}, 1)
    >>> lv = apply_deal(r, lv, {2, 3, 5}, 2)
    >>> [format_level(x) for x in lv]
    ['passive 2', 'passive 4', 'active 4', 'active 4', 'passive 3', 'active 3']
    >>> heli = Rules.preset("heli", players=5)
    >>> [level_name(x.level) for x in apply_deal(heli, [PlayerLevel(13, True)] * 5, {0}, 3)]
    ['2+', 'K', 'K', 'K', 'K']
    >>> held = Rules.preset("tractor", must_defend="points")
    >>> [level_name(x.level) for x in apply_deal(held, [PlayerLevel(4, True), PlayerLevel(5, True)] * 2,
    ...                                          {0, 1, 2, 3}, 3, maker_side={1, 3})]
    ['5', '8', '5', '8']
    >>> jacks = Rules.preset("tractor", jack_reset=True)
    >>> [level_name(x.level) for x in apply_deal(jacks, [PlayerLevel(11, True), PlayerLevel(6, True)] * 2,
    ...                                          {1, 3}, 2, maker_side={0, 2}, jack=True)]
    ['2', '8', '2', '8']
    """
    _check_levels(rules, levels)
    won = _check_seats(rules, winners, "winners")
    if not isinstance(game_points, int) or isinstance(game_points, bool) or game_points < 0:
        raise PengyouError(f"game_points: expected a whole number, at least 0, got {game_points!r}")
    held = rules.must_defend != "none"
    reset = rules.jack_reset and jack
    if game_points == 0 and not reset:
        return list(levels)
    if game_points and not won:
        raise PengyouError("winners: a deal that scores game points needs at least one winner")
    if (held or reset) and maker_side is None:
        raise PengyouError("maker_side: needed to climb under must_defend or jack_reset")
    makers = _check_seats(rules, maker_side or (), "maker_side")
    at_joker = False
    if rules.must_defend == "ace_joker":
        if maker is None:
            raise PengyouError("maker: needed to climb under must_defend ace_joker")
        _check_seats(rules, (maker,), "maker")
        at_joker = level_rank(levels[maker].level, rules) is None
    plain = rules.levels == "plain"
    out: list[PlayerLevel] = []
    for seat, (level, active) in enumerate(levels):
        if reset and seat in makers:
            level = FIRST_LEVEL + (level - FIRST_LEVEL) // LAP * LAP
        if seat in won and game_points:
            climb = game_points if (active or plain) else game_points - 1
            new = _climb(rules, level, climb, seat in makers, at_joker) if held else level + climb
            if not rules.joker_level:
                new = min(new, max(level, rules.target_rank))
            out.append(PlayerLevel(new, True))
        else:
            out.append(PlayerLevel(level, active if game_points == 0 else plain))
    return out


#: the ranks a level must be defended at, by ``rules.must_defend`` (None: the Joker level)
_DEFENDED: dict[str, tuple[Optional[int], ...]] = {
    "none": (), "points": (5, 10, 13), "ace": (14,), "points_ace": (5, 10, 13, 14), "ace_joker": (14, None),
}


def _climb(rules: Rules, level: int, steps: int, defending: bool, at_joker: bool = False) -> int:
    """``level`` after climbing ``steps`` one at a time, stopping at a rank
    that must be defended unless this is the first step from the maker's side
    (past a Joker level, also only in a deal played at one: ``at_joker``)."""
    defended = _DEFENDED[rules.must_defend]
    for i in range(steps):
        if not rules.joker_level and level > ACE_LEVEL:
            rank: Optional[int] = -1                     # past the last rank: nothing to defend
        else:
            rank = level_rank(level, rules)
        if rank in defended and not (defending and i == 0 and (rank is not None or at_joker)):
            break
        level += 1
    return level


def redeal_levels(levels: Sequence[PlayerLevel]) -> list[PlayerLevel]:
    """Everyone active at their level (after a draw in which nobody made trump).

    >>> redeal_levels([PlayerLevel(7, False), PlayerLevel(3, True)])
    [PlayerLevel(level=7, active=True), PlayerLevel(level=3, active=True)]
    """
    return [PlayerLevel(lv.level, True) for lv in levels]


def match_over(rules: Rules, levels: Sequence[PlayerLevel], game_points_total: Sequence[int],
               defended: bool = False) -> bool:
    """True when the match has ended.

    - Without ``rules.joker_level``, with ``rules.match_end`` ``reach``:
      someone's level has reached ``rules.target_rank`` (A unless set lower).
    - With ``match_end`` ``defend``: ``defended``, that is the maker's side
      has won a deal played at ``target_rank`` (levels stop at that rank until
      then; :func:`defended_at_target` tells it).
    - With ``rules.target_points > 0``: someone's game points over the whole
      match (``game_points_total[seat]``) have reached it.

    Either condition ends the match. With ``joker_level`` the levels alone
    never end it: the players stop after an agreed number of deals.

    >>> from core.rules import Rules
    >>> r = Rules.preset("pagat", players=5)
    >>> match_over(r, [PlayerLevel(13, True)] * 4 + [PlayerLevel(14, True)], [0] * 5)
    True
    >>> match_over(Rules.preset("thirteen", players=5), [PlayerLevel(9, True)] * 5, [12, 13, 0, 0, 0])
    True
    >>> hold = Rules.preset("pagat", players=5, match_end="defend")
    >>> [match_over(hold, [PlayerLevel(14, True)] * 5, [0] * 5, d) for d in (False, True)]
    [False, True]
    """
    _check_levels(rules, levels)
    if len(game_points_total) != rules.players:
        raise PengyouError(f"game_points_total: {len(game_points_total)} entries for {rules.players} players")
    if rules.match_end == "defend":
        if defended:
            return True
    elif not rules.joker_level and any(lv.level >= rules.target_rank for lv in levels):
        return True
    if rules.target_points > 0 and any(t >= rules.target_points for t in game_points_total):
        return True
    return False


def defended_at_target(rules: Rules, maker_level: PlayerLevel, maker_side_won: bool) -> bool:
    """Whether a deal ends the match under ``rules.match_end`` ``defend``: the
    maker's side won a deal whose maker played at ``rules.target_rank``.

    >>> from core.rules import Rules
    >>> hold = Rules.preset("pagat", players=5, match_end="defend")
    >>> defended_at_target(hold, PlayerLevel(14, True), True), defended_at_target(hold, PlayerLevel(13, True), True)
    (True, False)
    """
    return (rules.match_end == "defend" and maker_side_won
            and level_rank(maker_level.level, rules) == rules.target_rank)


def next_starter(rules: Rules, starter: int) -> int:
    """The seat that starts the next draw: the next seat in play order.

    >>> from core.rules import Rules
    >>> next_starter(Rules.preset("pagat", players=6), 5)
    0
    """
    _check_seats(rules, (starter,), "starter")
    return (starter + 1) % rules.players


def next_maker(
    rules: Rules, maker: int, maker_side: Collection[int], maker_side_won: bool
) -> Optional[int]:
    """The predetermined trump maker of the next deal, or ``None`` where trump
    making is open to all (``rules.exposure`` ``pagat`` and ``bottom_eight``).

    For ``heli`` and ``stack`` the next maker is the first seat after
    ``maker`` in play order that sits on the side that took the deal: with
    ``maker_side_won`` a partner (the maker again when alone), otherwise an
    opponent. Pass ``maker_side_won=False`` for a no-score band (the
    opponents take the next deal; see :class:`core.scoring.DealScore`).

    >>> from core.rules import Rules
    >>> heli = Rules.preset("heli", players=6)
    >>> next_maker(heli, 4, {4, 1, 2}, True), next_maker(heli, 4, {4, 1, 2}, False)
    (1, 5)
    >>> next_maker(Rules.preset("pagat", players=6), 4, {4, 1}, True) is None
    True
    """
    if not rules.predetermined_maker:
        return None
    _check_seats(rules, (maker,), "maker")
    side = _check_seats(rules, maker_side, "maker_side")
    if maker not in side:
        raise PengyouError(f"maker_side: does not include the maker (seat {maker})")
    n = rules.players
    for step in range(1, n):
        seat = (maker + step) % n
        if (seat in side) == maker_side_won:
            return seat
    if maker_side_won:
        return maker
    raise PengyouError("maker_side: every seat is on the maker side; the opponents need a seat")


def trump_rank_for(rules: Rules, maker_level: PlayerLevel) -> Optional[int]:
    """The trump rank of a deal made by a player at ``maker_level``
    (``None`` at a Joker level: only the jokers are trump).

    >>> from core.rules import Rules
    >>> trump_rank_for(Rules.preset("heli", players=5), PlayerLevel(20, True))
    6
    """
    return level_rank(maker_level.level, rules)
