"""The heuristic bot's reading of the friend calls, from its seat's view only:
which side the seat is on and whether it knows it, which of its own plays
would fill a call (asked of the play engine, :class:`core.play.PlayCore`,
the one owner of how a call is filled), and the two play rules built on
them (:class:`HeuristicBot`'s ``race`` and ``hold_copies``):

- the friend race: a seat off the maker's side that holds a copy of a called
  card which would fill a live call plays it at the first good chance (leads
  it unless that gives points away, or follows with it when the trick goes to
  the maker's side or the copy takes the trick itself);
- copies kept back: a copy that would not fill the call (an earlier copy is
  still to come) is not played while the call is open, and a seat already on
  the maker's side (the maker, a revealed friend) does not fill another call.

>>> from core.cards import CLUBS, Cards, Trump
>>> from core.rules import Rules
>>> r = Rules.preset("pagat", players=6)
>>> calls = [(Cards.from_str("AH")[0], 1)]
>>> fills(r, Trump(2, CLUBS), maker=0, seat=2, calls=calls, filled=[None], seen=[0],
...       leader=2, trick=[], cards=Cards.from_str("AH"))
[0]
>>> fills(r, Trump(2, CLUBS), maker=0, seat=2, calls=[(calls[0][0], 2)], filled=[None], seen=[0],
...       leader=2, trick=[], cards=Cards.from_str("AH"))
[]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Optional

from core.cards import Cards, Trump, card_points, parse_card
from core.view import calls_seen
from core.play import PlayCore
from core.rules import Rules

if TYPE_CHECKING:
    from .heuristic_play import PlayTurn

__all__ = ["Friends", "fills", "MAKER", "OPP"]

MAKER, OPP = "maker", "opponents"


def fills(rules: Rules, trump: Trump, maker: int, seat: int, calls: Sequence[tuple[int, int]],
          filled: Sequence[Optional[int]], seen: Sequence[int], leader: int, trick: Sequence[Cards],
          cards: Cards) -> list[int]:
    """The indexes of the calls that ``seat`` playing ``cards`` now would fill.

    The play engine decides (it owns the rule): a play phase is rebuilt with
    only ``cards`` in the seat's hand and nothing in the others' (``seen``:
    the copies of each called face played so far; ``trick``: the plays of the
    trick under way, from ``leader``), the cards are played, and the calls
    filled by it are read back."""
    n = rules.players
    hands = [Cards() for _ in range(n)]
    hands[seat] = cards
    pc = PlayCore.resume(rules, trump, maker, hands, list(calls), list(filled), list(seen),
                         [0] * n, [0] * n, 0, leader, list(trick))
    pc.play(cards, check=False)
    return [i for i, (a, b) in enumerate(zip(filled, pc.calls_filled)) if a is None and b is not None]


class Friends:
    """The calls as one seat sees them, at one decision of the play phase.

    ``side``: the side the seat plays for (the maker's when it is on it or
    holds a copy that would fill a call now); ``sure``: whether that is known
    (on the maker's side already, or the only seat that can fill such a call,
    or holding no copy of a called face that is still open); ``race``: the
    smallest play of each face that would fill a call now, for a seat off the
    maker's side; ``keep``: faces a seat should not play while it can help it
    (their copy would not fill the call, or would fill one for a seat already
    on the maker's side, while a copy that another seat may play is unseen)."""

    def __init__(self, turn: PlayTurn, careful: bool) -> None:
        v = turn.view
        self.seat = seat = v.seat
        maker = v.maker
        assert maker is not None                    # the play phase has a maker
        filled = list(v.calls_filled or (None,) * len(v.calls))
        calls = [(parse_card(c), o) for c, o in v.calls]
        self.known = known = set(v.known_side)
        cnt, unseen = turn.cnt, turn.unseen
        seen = calls_seen(v)
        leader = v.current_trick[0] if turn.plays else seat
        self.unfilled = [(f, o) for (f, o), s in zip(calls, filled) if s is None]
        open_faces = sorted({f for f, _ in self.unfilled})

        def filling(cards: list[int]) -> list[int]:
            return fills(v.rules, turn.tab.trump, maker, seat, calls, filled, seen, leader, turn.plays, Cards(cards))

        self.race: dict[int, list[int]] = {}
        self.keep: set[int] = set()
        mine: set[int] = set()                      # calls a single copy of mine fills now
        for f in open_faces:
            if not cnt[f]:
                continue
            by_one = filling([f])
            mine.update(by_one)
            if seat in known:
                if by_one and unseen[f]:
                    self.keep.add(f)                # the maker's side would lose a member another seat may be
                continue
            if not by_one and unseen[f]:
                self.keep.add(f)                    # an earlier copy is still to come
            for k in range(1, cnt[f] + 1):
                if filling([f] * k):
                    self.race[f] = [f] * k
                    break
        others = 0                                  # open calls another seat may still fill
        contested = False
        for i, ((f, _), s) in enumerate(zip(calls, filled)):
            if s is not None:
                continue
            if i in mine and seat not in known:
                if unseen[f] > 0:
                    contested = True
                    if careful:
                        others += 1
            elif unseen[f] > 0:
                others += 1
        self.others = others
        self.side = MAKER if (seat in known or mine) else OPP
        holds_open = any(cnt[f] for f in open_faces)
        self.sure = seat in known or (bool(mine) and not contested) or not holds_open

    def side_of(self, s: int) -> Optional[str]:
        """The side of seat ``s`` as far as this seat knows (None: not known)."""
        if s == self.seat:
            return self.side
        if s in self.known:
            return MAKER
        if self.others <= 0:
            return OPP
        return None


def race_lead(turn: PlayTurn) -> Optional[list[int]]:
    """The lead that fills a call for this seat, unless it gives points away:
    a copy with points goes only when nothing unseen can beat it."""
    fr = turn.friends
    tab = turn.tab
    best = None
    for f, play in sorted(fr.race.items()):
        e = tab.es[f]
        pts = sum(card_points(g) for g in play)
        beatable = tab.beatable(turn.unseen, e, len(play), 1, tab.lv[f])
        if pts and (beatable or turn.ruff_risk(e) > turn.bot.ruff_risk_max):
            continue
        key = (beatable, pts, len(play))
        if best is None or key < best[0]:
            best = (key, play)
    return None if best is None else best[1]


def race_follow(turn: PlayTurn, w: int, wseat: int) -> Optional[list[int]]:
    """A follow with a copy that fills a call: of a single lead, when the trick
    goes to the maker's side or the copy takes it and should keep it; when one
    card must come from another suit, onto a maker's-side trick that should hold."""
    fr = turn.friends
    tab = turn.tab
    e = turn.e
    n = len(turn.plays[0])
    mine = turn.by_suit[e]
    singles = sorted(f for f, play in fr.race.items() if len(play) == 1)
    if n - len(mine) == 1 and wseat in fr.known and \
            turn.hold_chance(w, turn.ld.units) >= turn.bot.feed_min_hold:
        for f in singles:
            if tab.es[f] != e and turn._legal(mine + [f]):
                return mine + [f]
    if n != 1 or len(mine) <= 1:
        return None                                 # a single card of the suit is played anyway
    for f in singles:
        if tab.es[f] != e or not turn._legal([f]):
            continue
        if wseat in fr.known:
            return [f]
        if turn._wins([f]) and turn._holds(e, 1, 1, tab.lv[f]):
            return [f]
    return None


def kept_cost(turn: PlayTurn, f: int) -> float:
    """What playing ``f`` costs beyond its value: a lot for a copy kept back."""
    return 100.0 if f in turn.friends.keep else 0.0
