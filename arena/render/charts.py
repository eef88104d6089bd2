"""The two drawings the ladder's pages and the reports share, as inline SVG
built through the page kit (:mod:`arena.render.html`): an Elo with its 95 %
interval on a scale common to a whole table (:func:`interval_bar`, with
:func:`scale_axis` for the table's header), and ratings over time
(:func:`history_chart`: one entrant's Elo with its interval as a band, or
several entrants' lines with a legend).

Python does the arithmetic (pixels, ticks); the templates in
``templates/charts.svg.j2`` write the SVG, escaping every label.

>>> s = EloScale([-100.0, 300.0], 0, 200)
>>> s.x(s.lo), s.x(s.hi), s.ticks()[0] >= s.lo
(0.0, 200.0, True)
>>> svg = str(interval_bar("<b>", 10.0, -40.0, 60.0, EloScale([-40.0, 60.0], 8, 232)))
>>> svg.startswith("<svg class='ci'") and "&lt;b&gt;" in svg and "<b>" not in svg
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from markupsafe import Markup

from .html import KIT

__all__ = ["EloScale", "BAR_WIDTH", "BAR_HEIGHT", "finite", "interval_bar", "scale_axis", "HistorySeries",
           "history_chart"]

#: The interval bar's size in pixels.
BAR_WIDTH, BAR_HEIGHT = 240, 18

_PLOT_W, _PLOT_H = 640, 200
_PAD_L, _PAD_R, _PAD_T, _PAD_B = 48, 12, 10, 30
_LEGEND_W = 170

#: Line colours of several entrants in one history chart.
PALETTE = ("#1f4d8a", "#c0262d", "#2d7d46", "#b8860b", "#6a3d9a", "#e07b00", "#0e8c8c", "#8c564b",
           "#d6338a", "#5a6b7d")


def finite(*xs: Optional[float]) -> list[float]:
    """The given values that are finite numbers."""
    return [float(x) for x in xs if x is not None and math.isfinite(x)]


class EloScale:
    """Elo to pixels, from ``left`` (the lowest value) to ``right``; the
    range always holds 0 and at least 50 Elo, padded by 4 % each side."""

    def __init__(self, values: Sequence[float], left: float, right: float) -> None:
        lo, hi = (min(values), max(values)) if values else (-100.0, 100.0)
        lo, hi = min(lo, 0.0), max(hi, 0.0)
        if hi - lo < 50:
            lo, hi = lo - 25, hi + 25
        pad = (hi - lo) * 0.04
        self.lo, self.hi = lo - pad, hi + pad
        self.left, self.right = left, right

    @classmethod
    def of_bars(cls, rows: Sequence[tuple[float, float, float]]) -> EloScale:
        """The scale of a table of interval bars, from each row's (elo, lo, hi)."""
        return cls([v for row in rows for v in finite(*row)], 8, BAR_WIDTH - 8)

    def x(self, v: float) -> float:
        """The pixel of ``v`` (clipped to the scale)."""
        v = min(max(v, self.lo), self.hi)
        return round(self.left + (v - self.lo) / (self.hi - self.lo) * (self.right - self.left), 1)

    def ticks(self, most: int = 6) -> list[float]:
        """Round values to mark, at most about ``most`` of them."""
        span = self.hi - self.lo
        step = next((s for s in (10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000) if span / s <= most), 10000)
        first = math.ceil(self.lo / step) * step
        return [float(first + k * step) for k in range(int((self.hi - first) // step) + 1)]


def _tick_text(t: float) -> str:
    return "0" if t == 0 else f"{t:+.0f}"


def scale_axis(scale: EloScale) -> Markup:
    """The tick labels of ``scale`` above a column of interval bars."""
    ticks = [(scale.x(t), _tick_text(t)) for t in scale.ticks()]
    return KIT.macro("charts.svg.j2", "axis")(width=BAR_WIDTH, ticks=ticks)


def interval_bar(label: str, elo: float, lo: float, hi: float, scale: EloScale, provisional: bool = False
                 ) -> Markup:
    """An Elo as a dot and its 95 % interval as a bar on ``scale`` (an open
    end runs to the edge); nothing for an unrated row. ``label`` names the
    row in the bar's tooltip."""
    if not math.isfinite(elo):
        return Markup("")
    lo = lo if math.isfinite(lo) else -math.inf
    hi = hi if math.isfinite(hi) else math.inf
    x0 = scale.x(lo if math.isfinite(lo) else scale.lo)
    x1 = scale.x(hi if math.isfinite(hi) else scale.hi)

    def shown(v: float) -> str:
        return f"{v:+.0f}" if math.isfinite(v) else "open"

    return KIT.macro("charts.svg.j2", "interval_bar")(
        width=BAR_WIDTH, height=BAR_HEIGHT, label=label, lo=str(lo), hi=str(hi), elo=f"{elo:.2f}",
        shown=f"{shown(elo)} [{shown(lo)}, {shown(hi)}]", grid=[(scale.x(t), t == 0) for t in scale.ticks()],
        x0=x0, span=f"{max(x1 - x0, 1.0):.1f}", xe=scale.x(elo), color="#c9b46a" if provisional else "#8fb8de")


@dataclass
class HistorySeries:
    """One entrant's ratings over time: ``points`` are mappings with
    ``games`` (the x: the ladder's games at the refit), ``elo``, and
    optionally ``lo``, ``hi`` and ``deals``."""

    label: str
    points: Sequence[Mapping[str, Any]] = field(default_factory=list)


def history_chart(series: Sequence[HistorySeries], x_label: str = "ladder games") -> Markup:
    """Ratings over time as one SVG: a single series as its Elo line with
    the 95 % interval as a band and a dot per refit (with a tooltip), several
    as one coloured line each with a legend. A paragraph saying so when no
    series has a rating yet."""
    kept = [HistorySeries(s.label, [p for p in s.points if _num(p.get("elo")) is not None]) for s in series]
    kept = [s for s in kept if s.points]
    if not kept:
        return KIT.macro("charts.svg.j2", "no_history")()
    one = len(kept) == 1
    xs = [float(p["games"]) for s in kept for p in s.points]
    x_lo, x_hi = min(xs), max(xs)
    if x_hi - x_lo < 1:
        x_lo, x_hi = x_lo - 1, x_hi + 1
    values = [v for s in kept for p in s.points
              for v in finite(p["elo"], *((_num(p.get("lo")), _num(p.get("hi"))) if one else ()))]
    ys = EloScale(values, _PLOT_H - _PAD_B, _PAD_T)         # upwards: y decreases as Elo grows
    plot_right = _PLOT_W - _PAD_R

    def px(g: float) -> float:
        return round(_PAD_L + (g - x_lo) / (x_hi - x_lo) * (plot_right - _PAD_L), 1)

    def bound(p: Mapping[str, Any], key: str, edge: float) -> float:
        v = _num(p.get(key))
        return ys.x(v if v is not None else edge)

    lines = []
    for k, s in enumerate(kept):
        pts = [(px(float(p["games"])), ys.x(float(p["elo"])), p) for p in s.points]
        band = ""
        if one:
            upper = [f"{x},{bound(p, 'hi', ys.hi)}" for x, _, p in pts]
            lower = [f"{x},{bound(p, 'lo', ys.lo)}" for x, _, p in reversed(pts)]
            band = " ".join(upper + lower)
        dots = [(x, y, _tip(p)) for x, y, p in pts] if one or len(pts) < 40 else []
        lines.append({"label": s.label, "color": PALETTE[k % len(PALETTE)], "band": band,
                      "points": " ".join(f"{x},{y}" for x, y, _ in pts), "dots": dots,
                      "legend_y": _PAD_T + 6 + 16 * k})
    x_ticks = sorted({round(x_lo + k * (x_hi - x_lo) / 4) for k in range(5)})
    width = _PLOT_W + (0 if one else _LEGEND_W)
    title = (f"{kept[0].label}: Elo after each refit, with its 95 % interval" if one
             else "Elo of each entrant after each refit")
    return KIT.macro("charts.svg.j2", "history")(
        width=width, height=_PLOT_H, left=_PAD_L, right=plot_right, bottom=_PLOT_H - _PAD_B, title=title,
        y_ticks=[(ys.x(t), _tick_text(t), t == 0) for t in ys.ticks(5)],
        x_ticks=[(px(t), t) for t in x_ticks if x_lo <= t <= x_hi], x_label=x_label,
        lines=lines, one=one, count=sum(len(s.points) for s in kept), legend_x=plot_right + 14)


def _tip(p: Mapping[str, Any]) -> str:
    """A refit's tooltip: the games then, the Elo and its interval, the deals."""
    interval = (f" [{_signed(p.get('lo'))}, {_signed(p.get('hi'))}]"
                if _num(p.get("lo")) is not None or _num(p.get("hi")) is not None else "")
    deals = f", {p['deals']} deals" if p.get("deals") is not None else ""
    return f"after {p['games']} ladder games: Elo {_signed(p.get('elo'))}{interval}{deals}"


def _num(x: Any) -> Optional[float]:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


def _signed(x: Any) -> str:
    v = _num(x)
    return "–" if v is None else f"{v:+.0f}"
