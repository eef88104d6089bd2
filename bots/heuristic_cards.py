"""The card tables the heuristic bot reads: effective suits, levels and
copies per face under one trump (:class:`CardTable`), card points, and
card text parsed once (:func:`cached_cards`)."""

from __future__ import annotations

from core import kernel
from core.cards import Cards, Trump, card_points
from core.rules import Rules

__all__ = ["CardTable", "PTS", "TRUMPS", "cached_cards"]

PTS = [card_points(f) for f in range(54)]
_PARSED: dict[str, Cards] = {}


def cached_cards(text: str) -> Cards:
    """``Cards.from_str`` with a cache shared by every bot (views repeat the
    same card strings many times)."""
    c = _PARSED.get(text)
    if c is None:
        if len(_PARSED) > 200_000:
            _PARSED.clear()
        c = _PARSED[text] = Cards.from_str(text)
    return c
TRUMPS = 4


class CardTable:
    """Per-deal tables: effective suit, level and tractor eligibility of every
    face, the faces of each suit by level, and the copies of each face in play."""

    def __init__(self, trump: Trump, rules: Rules) -> None:
        ctx = kernel.context(trump, rules.tractor_past_ace)
        self.trump = trump
        self.es: list[int] = [ctx.effective_suit(f) for f in range(54)]
        self.lv: list[int] = [ctx.level(f) for f in range(54)]
        r = trump.rank
        self.elig = [
            (rules.tractor_past_ace or not (f >= 52 or (r is not None and f % 13 + 2 == r)))
            for f in range(54)
        ]
        self.suit_faces: list[list[int]] = [[] for _ in range(5)]
        for f in sorted(range(54), key=lambda g: self.lv[g]):
            self.suit_faces[self.es[f]].append(f)
        self.at: dict[tuple[int, int], list[int]] = {}
        for f in range(54):
            self.at.setdefault((self.es[f], self.lv[f]), []).append(f)
        self.total = [rules.copies(f) for f in range(54)]
        self.top_level = [max((self.lv[f] for f in self.suit_faces[e]), default=-1) for e in range(5)]

    def beatable(self, cnt: list[int], e: int, k: int, L: int, top: int) -> bool:
        """True when the cards counted in ``cnt`` (all in one hand, the worst
        case) can form a unit of suit ``e`` beating a (k, L) unit topped at ``top``."""
        lv = self.lv
        if L == 1:
            for f in self.suit_faces[e]:
                if cnt[f] >= k and lv[f] > top:
                    return True
            return False
        at = self.at
        elig = self.elig
        for u in range(top + 1, 16):
            ok = True
            for i in range(L):
                lvl = u - i
                if lvl < 0 or not any(cnt[f] >= k and elig[f] for f in at.get((e, lvl), ())):
                    ok = False
                    break
            if ok:
                return True
        return False

    def shapes(self, cnt: list[int], e: int, k: int, L: int) -> list[tuple[int, list[int]]]:
        """Every (k, L) unit of suit ``e`` formable from ``cnt``, lowest first,
        as (top level, face list)."""
        out = []
        lv = self.lv
        if L == 1:
            for f in self.suit_faces[e]:
                if cnt[f] >= k:
                    out.append((lv[f], [f] * k))
            return out
        best: dict[int, int] = {}
        for f in self.suit_faces[e]:
            if cnt[f] >= k and self.elig[f]:
                g = best.get(lv[f])
                if g is None or cnt[f] > cnt[g]:
                    best[lv[f]] = f
        for top in sorted(best):
            if all((top - i) in best for i in range(L)):
                out.append((top, [best[top - i] for i in range(L) for _ in range(k)]))
        return out
