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

from ..types import ArenaError, JobResult, ResultColumns

__all__ = ["DealTable", "deal_table", "table_of", "concat", "distinct", "first_seats"]


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
    lengths = np.fromiter(map(len, rows), dtype=np.intp, count=len(rows))
    if len(rows) and (lengths == width).all():
        return np.array(rows, dtype=dtype).reshape(len(rows), width), np.ones((len(rows), width), dtype=bool)
    out: np.ndarray = np.full((len(rows), width), fill, dtype=dtype)
    mask = np.zeros((len(rows), width), dtype=bool)
    for n in np.unique(lengths):
        at = np.flatnonzero(lengths == n)
        if n:
            k = min(int(n), width)
            out[at, :k] = np.array([rows[i][:k] for i in at], dtype=dtype)
            mask[at, :k] = True
    return out, mask


def deal_table(results: Iterable[JobResult] | ResultColumns, n_entrants: int) -> DealTable:
    """Every deal of ``results`` (values, or their :class:`~arena.types.ResultColumns`)
    as a :class:`DealTable`.

    A deal's seats are its own, or its job's when the deal names none.
    Raises :class:`~arena.types.ArenaError` naming the result when a seat
    holds an entrant index outside ``range(n_entrants)``.
    """
    c = results if isinstance(results, ResultColumns) else ResultColumns.of(results)
    return table_of(c.seats, c.sides, c.margins, c.games, c.won, c.groups, c.maker, c.forfeit, c.keys, n_entrants)


def table_of(seats: list[tuple[int, ...]], sides: list[tuple[int, ...]], margins: list[tuple[float, ...]],
             games: list[tuple[int, ...]], won: list[bool], group: list[int], maker: list[int], forfeit: list[int],
             keys: list[str], n_entrants: int) -> DealTable:
    """A :class:`DealTable` from its columns as lists, one item a deal
    (``keys``: the result each deal came from, named in an error)."""
    width = max((len(s) for s in seats), default=0)
    seat_arr, real = _padded(seats, width, np.int64, -1)  # type: ignore[arg-type]
    bad = real & ((seat_arr < 0) | (seat_arr >= n_entrants))
    if bad.any():
        d = int(np.flatnonzero(bad.any(axis=1))[0])
        e = int(seat_arr[d][bad[d]][0])
        raise ArenaError(f"result {keys[d]}: entrant {e} is not one of the {n_entrants} entrants")
    margin_arr, has_margin = _padded(margins, width, np.float64, 0.0)
    game_arr, has_game = _padded(games, width, np.float64, 0.0)  # type: ignore[arg-type]
    has_margin &= seat_arr >= 0
    has_game &= seat_arr >= 0
    in_side = np.zeros((len(seats), width), dtype=bool)
    side_arr, side_real = _padded(sides, max(map(len, sides), default=0), np.int64, -1)  # type: ignore[arg-type]
    n_seats = real.sum(axis=1)
    for c in range(side_arr.shape[1]):
        s = side_arr[:, c]
        ok = np.flatnonzero(side_real[:, c] & (s >= 0) & (s < n_seats))
        in_side[ok, s[ok]] = True
    return DealTable(seat_arr, in_side, np.array(won, dtype=bool), margin_arr, has_margin, game_arr, has_game,
                     np.array(group, dtype=np.int64), np.array(maker, dtype=np.int64),
                     np.array(forfeit, dtype=np.int64), n_entrants)


#: Key ranges up to which :func:`distinct` counts into an array instead of sorting.
_DIRECT = 1 << 24


def distinct(keys: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``keys`` (each in ``range(size)``), sorted, and
    each key's index among them, as ``np.unique(keys, return_inverse=True)``
    but by counting when ``size`` is small enough.

    >>> [a.tolist() for a in distinct(np.array([5, 2, 5, 9]), 10)]
    [[2, 5, 9], [1, 0, 1, 2]]
    """
    keys = np.asarray(keys, dtype=np.int64)
    if size > _DIRECT:
        uniq, inv = np.unique(keys, return_inverse=True)
        return uniq, inv.reshape(keys.shape)
    hit = np.zeros(size, dtype=bool)
    hit[keys] = True
    uniq = np.flatnonzero(hit)
    rank = np.cumsum(hit) - 1
    return uniq, rank[keys]


def first_seats(seats: np.ndarray) -> np.ndarray:
    """Where each row's entrant appears for the first time in that row
    (padding ``-1`` never counts).

    >>> first_seats(np.array([[0, 1, 0, -1]])).tolist()
    [[True, True, False, False]]
    """
    first = seats >= 0
    for s in range(1, seats.shape[1]):
        for t in range(s):
            first[:, s] &= seats[:, s] != seats[:, t]
    return first


def concat(tables: list[DealTable], n_entrants: int) -> DealTable:
    """The deals of ``tables`` one after another, as one table as wide as
    the widest (narrower ones padded), over ``n_entrants`` entrants."""
    width = max((t.width for t in tables), default=0)

    def pad(a: np.ndarray, fill: object) -> np.ndarray:
        if a.shape[1] == width:
            return a
        out = np.full((a.shape[0], width), fill, dtype=a.dtype)
        out[:, :a.shape[1]] = a
        return out

    if not tables:
        return table_of([], [], [], [], [], [], [], [], [], n_entrants)
    cat = np.concatenate
    return DealTable(cat([pad(t.seats, -1) for t in tables]), cat([pad(t.maker, False) for t in tables]),
                     cat([t.won for t in tables]), cat([pad(t.margins, 0.0) for t in tables]),
                     cat([pad(t.has_margin, False) for t in tables]), cat([pad(t.game, 0.0) for t in tables]),
                     cat([pad(t.has_game, False) for t in tables]), cat([t.group for t in tables]),
                     cat([t.maker_seat for t in tables]), cat([t.forfeit for t in tables]), n_entrants)
