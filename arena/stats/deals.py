"""Deal outcomes as arrays: one pass over the results, then every statistic
(:mod:`arena.stats.ratings`, :mod:`arena.stats.elo`) is a few vector
operations, so a million results cost seconds, not minutes.

A :class:`DealTable` holds one row per deal and one column per seat (padded
with entrant ``-1`` where a deal has fewer seats than the widest one).

>>> from arena.types import DealOutcome, JobResult
>>> d = DealOutcome((0, 1, 0, 1), 0, (0, 2), 70, 200, True, (1, -1, 1, -1), (60.0, -60.0, 60.0, -60.0))
>>> t = deal_table([JobResult("g0", 7, (0, 1, 0, 1), (d, d))], 2)
>>> len(t), t.width, t.group.tolist(), t.maker[0].tolist()
(2, 4, [7, 7], [True, False, True, False])
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..types import ArenaError, JobResult

__all__ = ["DealTable", "deal_table"]


@dataclass(frozen=True)
class DealTable:
    """Every deal of some results, as arrays (``D`` deals, ``n`` seats wide).

    ``seats[d, s]``: the entrant in seat ``s`` (-1: no such seat);
    ``maker[d, s]``: seat ``s`` is on the maker's side; ``margins`` and
    ``game`` the seat's card margin and game points (0 where the deal has
    none, ``has_margin`` / ``has_game`` say which are real); ``group``,
    ``maker_seat``, ``forfeit`` and ``won`` one value a deal.
    """

    seats: np.ndarray
    maker: np.ndarray
    won: np.ndarray
    margins: np.ndarray
    has_margin: np.ndarray
    game: np.ndarray
    has_game: np.ndarray
    group: np.ndarray
    maker_seat: np.ndarray
    forfeit: np.ndarray
    n_entrants: int

    def __len__(self) -> int:
        return int(self.seats.shape[0])

    @property
    def width(self) -> int:
        """Seats in the widest deal."""
        return int(self.seats.shape[1])


def _padded(rows: list[tuple[float, ...]], width: int, dtype: type, fill: float) -> tuple[np.ndarray, np.ndarray]:
    """Rows of unequal length as a (len, width) array and its mask of real cells."""
    out = np.full((len(rows), width), fill, dtype=dtype)
    mask = np.zeros((len(rows), width), dtype=bool)
    lengths = np.fromiter((len(r) for r in rows), dtype=np.intp, count=len(rows))
    for n in np.unique(lengths):
        at = np.flatnonzero(lengths == n)
        if n:
            k = min(int(n), width)
            out[at, :k] = np.array([rows[i][:k] for i in at], dtype=dtype)
            mask[at, :k] = True
    return out, mask


def deal_table(results: Iterable[JobResult], n_entrants: int) -> DealTable:
    """Every deal of ``results`` as a :class:`DealTable`.

    A deal's seats are its own, or its job's when the deal names none.
    Raises :class:`~arena.types.ArenaError` naming the result when a seat
    holds an entrant index outside ``range(n_entrants)``.
    """
    seats: list[tuple[int, ...]] = []
    sides: list[tuple[int, ...]] = []
    margins: list[tuple[float, ...]] = []
    games: list[tuple[float, ...]] = []
    won: list[bool] = []
    group: list[int] = []
    maker: list[int] = []
    forfeit: list[int] = []
    for res in results:
        for deal in res.deals:
            s = tuple(deal.seats) or tuple(res.seats)
            if s and not (0 <= min(s) and max(s) < n_entrants):
                bad = next(e for e in s if not 0 <= e < n_entrants)
                raise ArenaError(f"result {res.key}: entrant {bad} is not one of the {n_entrants} entrants")
            seats.append(s)
            sides.append(deal.maker_side)
            margins.append(deal.margins)
            games.append(deal.game_points)
            won.append(deal.maker_won)
            group.append(res.group)
            maker.append(deal.maker)
            forfeit.append(deal.forfeit)
    width = max((len(s) for s in seats), default=0)
    seat_arr, _ = _padded(seats, width, np.int64, -1)  # type: ignore[arg-type]
    margin_arr, has_margin = _padded(margins, width, np.float64, 0.0)
    game_arr, has_game = _padded(games, width, np.float64, 0.0)  # type: ignore[arg-type]
    has_margin &= seat_arr >= 0
    has_game &= seat_arr >= 0
    in_side = np.zeros((len(seats), width), dtype=bool)
    flat = [(d, s) for d, side in enumerate(sides) for s in side if 0 <= s < len(seats[d])]
    if flat:
        at = np.array(flat, dtype=np.intp)
        in_side[at[:, 0], at[:, 1]] = True
    return DealTable(seat_arr, in_side, np.array(won, dtype=bool), margin_arr, has_margin, game_arr, has_game,
                     np.array(group, dtype=np.int64), np.array(maker, dtype=np.int64),
                     np.array(forfeit, dtype=np.int64), n_entrants)
