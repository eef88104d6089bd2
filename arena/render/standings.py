"""Standings as text: the table `arena standings` prints (Elo with its 95 %
interval, the duplicate score, margins, game points, deals, faults) and the
head-to-head cross-table.

>>> from arena.stats.ratings import standings
>>> from arena.types import Entrant
>>> print(format_standings(standings([], [Entrant("A", "heuristic")])))
 #  entrant  Elo  95% interval  dup score (95%)  margin  game  deals  faults
 1  A          -             -  -                     -     -      0       0
no results yet
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..stats.ratings import Standings
from .numbers import signed

__all__ = ["format_standings", "format_cross_table", "FEW_GROUPS"]

#: Below this many duplicate groups the standings say their intervals are
#: rough: a bootstrap over a handful of groups can put an estimate at its
#: interval's very end, and one more group can reorder the table.
FEW_GROUPS = 20


def _fmt(x: float, digits: int = 0, sign: bool = True) -> str:
    if not math.isfinite(x):
        return "-"
    return signed(x, digits) if sign else f"{x:.{digits}f}"


def _fmt_interval(lo: float, hi: float, digits: int = 0) -> str:
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "-"
    return f"[{_fmt(lo, digits)}, {_fmt(hi, digits)}]"


def _table(header: Sequence[str], lines: Sequence[Sequence[str]], left: set[int]) -> list[str]:
    widths = [max(len(h), *(len(line[k]) for line in lines)) if lines else len(h)
              for k, h in enumerate(header)]

    def join(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if k in left else c.rjust(w)
                         for k, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return [join(header)] + [join(line) for line in lines]


def format_standings(st: Standings) -> str:
    """The standings as a fixed-width table, best first, with the maker-side edge."""
    header = ["#", "entrant", "Elo", "95% interval", "dup score (95%)", "margin", "game", "deals", "faults"]
    with_matches = any(r.matches for r in st.rows)
    if with_matches:
        header.append("match wins")
    lines = []
    for k, r in enumerate(st.rows):
        dup = _fmt(r.dup.mean, 1)
        if math.isfinite(r.dup.mean) and math.isfinite(r.dup.lo):
            dup += " " + _fmt_interval(r.dup.lo, r.dup.hi, 1)
        lines.append([str(k + 1), r.name, _fmt(r.elo) if r.rated else "-",
                      _fmt_interval(r.elo_lo, r.elo_hi), dup, _fmt(r.margin, 1), _fmt(r.game_points, 2),
                      str(r.deals), str(sum(r.faults.values()))])
        if with_matches:
            lines[-1].append(f"{r.match_wins}/{r.matches} seats")
    out = [" " + line for line in _table(header, lines, left={1, 4})] if st.rows else []
    if st.rated_deals:
        edge = _fmt(st.maker_edge) + " Elo"
        if math.isfinite(st.maker_edge_lo) and math.isfinite(st.maker_edge_hi):
            edge += " " + _fmt_interval(st.maker_edge_lo, st.maker_edge_hi)
        out.append(f"maker-side edge: {edge} over {st.rated_deals} deals in {st.groups} groups")
        if st.groups < FEW_GROUPS:
            out.append(f"only {st.groups} duplicate group{'' if st.groups == 1 else 's'}: the intervals are rough "
                       f"and the order may change; {FEW_GROUPS} or more give a first reading")
    else:
        out.append("no results yet")
    return "\n".join(out)


def format_cross_table(st: Standings) -> str:
    """Head-to-head table in standings order.

    Row entrant against column entrant (by rank): mean card margin of the
    row entrant's side, its win rate and the number of seat pairs.
    """
    if not st.deals or not st.rows:
        return "no results yet"
    header = ["#", "entrant"] + [f"vs {k + 1}" for k in range(len(st.rows))]
    lines = []
    for a, ra in enumerate(st.rows):
        line = [str(a + 1), ra.name]
        for rb in st.rows:
            cell = st.cross.get((ra.index, rb.index))
            if ra.index == rb.index:
                line.append(".")
            elif cell is None or cell.n == 0:
                line.append("-")
            else:
                line.append(f"{cell.margin:+.1f} {cell.win_rate:.0%} ({cell.n})")
        lines.append(line)
    title = "head to head: row's side vs column's side, mean card margin, win rate (seat pairs)"
    return "\n".join([title] + [" " + line for line in _table(header, lines, left={1})])
