"""The heuristic bot's play phase: :class:`PlayTurn`, one decision of the play
phase (whose side each seat is on, what is still unseen, then the lead or
the follow), over the card tables of :mod:`bots.heuristic_cards`. :class:`bots.heuristic.HeuristicBot` holds the draw, the
burial, the calls and the protocol, and hands each play decision here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Optional

from core import kernel
from core.actions import Action
from core.cards import Cards, Unit
from core.state import PlayerView

from .heuristic_cards import PTS, TRUMPS, cached_cards
from .heuristic_friends import MAKER, Friends, kept_cost, race_follow, race_lead

if TYPE_CHECKING:
    from .heuristic import HeuristicBot

__all__ = ["PlayTurn"]

class PlayTurn:
    """One decision of the play phase: the facts, then the choice."""

    def __init__(self, bot: HeuristicBot, view: PlayerView) -> None:
        self.bot = bot
        self.view = view
        self.rules = view.rules
        self.trump = view.trump
        self.tab = tab = bot._tab(view)
        self.n = view.players
        self.seat = view.seat
        hand = view.hand
        self.hand = hand
        cnt = [0] * 54
        for f in hand:
            cnt[f] += 1
        self.cnt = cnt
        played = list(bot._update_played(view))
        leader, plays = view.current_trick
        self.plays = [cached_cards(p) for p in plays]
        self.leader = leader
        for p in self.plays:
            for f in p:
                played[f] += 1
        self.played = played
        unseen = [tab.total[f] - cnt[f] - played[f] for f in range(54)]
        if view.kitty is not None:                   # the burier's kitty (or one the opponents took)
            for f in view.kitty:
                unseen[f] -= 1
        self.unseen = [max(0, u) for u in unseen]
        self.voids = set(view.voids)
        self.by_suit: list[list[int]] = [[] for _ in range(5)]
        for f in hand:
            self.by_suit[tab.es[f]].append(f)
        self._sides()

    # -------------------------------------------------------------- sides
    def _sides(self) -> None:
        self.friends = fr = Friends(self, bool(self.bot.feed_known))
        self.known_maker_side = fr.known
        self.side = fr.side

    def side_of(self, s: int) -> Optional[str]:
        return self.friends.side_of(s)

    def rel(self, s: int) -> int:
        """+1 partner, -1 opponent, 0 unknown."""
        sd = self.side_of(s)
        if sd is None:
            return 0
        return 1 if sd == self.side else -1

    # ----------------------------------------------------------- choosing
    def choose(self) -> Action:
        if not self.plays:
            return Action.play(Cards(self.lead()))
        return Action.play(Cards(self.follow()))

    # ---------------------------------------------------------- estimates
    def ruff_risk(self, e: int, seats: Optional[list[int]] = None) -> float:
        """Rough chance that a non-partner trumps a lead of plain suit ``e``."""
        if e == TRUMPS:
            return 0.0
        n = self.n
        seats = [s for s in range(n) if s != self.seat] if seats is None else seats
        risky = [s for s in seats if self.rel(s) != 1]
        if not risky:
            return 0.0
        for s in risky:
            if (s, e) in self.voids and (s, TRUMPS) not in self.voids:
                return 1.0
        left = sum(self.unseen[f] for f in self.tab.suit_faces[e])
        holders = [s for s in range(n) if s != self.seat and (s, e) not in self.voids]
        per = left / max(1, len(holders))
        if per < 1:
            return 0.7
        if per < 2:
            return 0.4
        if per < 3:
            return 0.2
        return 0.08

    def value(self, f: int) -> float:
        """How dear a card is to give away (trumps dearest)."""
        tab = self.tab
        e = tab.es[f]
        if e == TRUMPS:
            return 30.0 + tab.lv[f]
        v = float(tab.lv[f])
        if tab.lv[f] == tab.top_level[e]:
            v += 4
        return v

    # --------------------------------------------------------------- lead
    def lead(self) -> list[int]:
        if self.bot.race:
            race = race_lead(self)
            if race is not None:
                return race
        tab = self.tab
        cnt = self.cnt
        trump_share = len(self.by_suit[TRUMPS]) / max(1, len(self.hand))
        cands: list[tuple[float, list[int]]] = []
        bot = self.bot
        others = [s for s in range(self.n) if s != self.seat]
        for e in range(5):
            cards = self.by_suit[e]
            if not cards:
                continue
            units = kernel.decompose(Cards(cards), self.trump, self.rules)
            all_void = all((s, e) in self.voids for s in others)
            rr = self.ruff_risk(e)
            safe = []
            for u in units:
                if all_void or not tab.beatable(self.unseen, e, u.width, u.length, u.top):
                    safe.append(u)
            # a throw of every safe unit of the suit (that one throw may hold)
            thrown = self._throwable(safe)
            if len(thrown) >= 2 and (e == TRUMPS or rr <= bot.ruff_risk_max):
                throw = [f for u in thrown for f in u.cards]
                if self._throw_ok(throw, e, all_void) and self._throw_allowed(throw):
                    pts = sum(PTS[f] for f in throw)
                    cands.append((50 + 3 * len(throw) + pts - 40 * rr, throw))
            for u in safe:
                size = u.width * u.length
                if e == TRUMPS:
                    if self.side == MAKER and trump_share >= bot.trump_lead_share or \
                            trump_share >= bot.trump_lead_share + 0.15:
                        cands.append((32 + 4 * size, list(u.cards)))
                    continue
                risk = rr * (0.5 if u.width >= 2 else 1.0)
                if risk <= bot.ruff_risk_max:
                    cands.append((40 + 5 * size + 0.3 * sum(PTS[f] for f in u.cards) - 30 * risk,
                                  list(u.cards)))
            if e == TRUMPS:
                strong = (trump_share >= bot.trump_lead_share if self.side == MAKER
                          else trump_share >= bot.trump_lead_share + 0.15)
                if strong:
                    for u in units:
                        if u.width >= 2:
                            cands.append((30 + 3 * u.width * u.length - 0.5 * u.top, list(u.cards)))
                continue
            # low cards of plain suits
            n_e = len(cards)
            enemy_void = any((s, e) in self.voids and self.rel(s) == -1 and (s, TRUMPS) not in self.voids
                             for s in others)
            partner_void = any((s, e) in self.voids and self.rel(s) == 1 and (s, TRUMPS) not in self.voids
                               for s in others)
            called = any(tab.es[f] == e and not cnt[f] for f, _ in self.friends.unfilled) and self.side == MAKER
            for f in sorted(set(cards), key=lambda g: tab.lv[g])[:3]:
                s = 20 - 0.8 * tab.lv[f] - 2.0 * PTS[f] - 0.6 * n_e
                if cnt[f] >= 2:
                    s -= 6
                if enemy_void:
                    s -= 6
                if partner_void and not enemy_void:
                    s += 12
                if called:
                    s += 16
                cands.append((s, [f]))
            for u in units:
                if u.width >= 2 and u not in safe:
                    pts = sum(PTS[f] for f in u.cards)
                    cands.append((14 - 0.6 * u.top - pts - (6 if enemy_void else 0), list(u.cards)))
        if self.bot.hold_copies:
            cands = [c for c in cands if not any(kept_cost(self, f) for f in c[1])]
        if not cands:
            # only trumps and not strong: the lowest trump single (or a low set)
            tr = self.by_suit[TRUMPS]
            f = min(tr, key=lambda g: (tab.lv[g] + (3 if cnt[g] >= 2 else 0) + 0.5 * PTS[g], g))
            return [f]
        cands.sort(key=lambda c: c[0], reverse=True)
        return cands[0][1]

    def _throwable(self, units: Sequence[Unit]) -> Sequence[Unit]:
        """The units one throw of ``units`` may hold: all of them, or under
        ``throw_counts`` ``equal`` (every card of a throw as many times as each
        other) only those of one width, the width whose units hold the most
        cards (the wider on a tie)."""
        if self.rules.throw_counts != "equal":
            return units
        by_width: dict[int, list[Unit]] = {}
        for u in units:
            by_width.setdefault(u.width, []).append(u)
        return max(by_width.values(), key=lambda us: (sum(len(u.cards) for u in us), us[0].width), default=[])

    def _throw_allowed(self, throw: list[int]) -> bool:
        """Whether the lead rules (``trump_throws``, ``throw_counts``,
        ``throw_check``) let this throw be led: the kernel's check, asked only
        when one of them is not the default."""
        rules = self.rules
        if rules.trump_throws and rules.throw_check != "safe" and rules.throw_counts != "equal":
            return True
        played = Cards([f for f in range(54) for _ in range(self.played[f])])
        return kernel.lead_error(Cards(throw), self.hand, played, self.trump, rules) is None

    def _throw_ok(self, throw: list[int], e: int, all_void: bool) -> bool:
        if all_void:
            return True
        try:
            units = kernel.decompose(Cards(throw), self.trump, self.rules)
        except Exception:
            return False
        risk = 0.0
        opp = max(1, self.n - 1)
        for u in units:
            if self.tab.beatable(self.unseen, e, u.width, u.length, u.top):
                risk += 1.0 if u.width == 1 else (1.0 / opp) ** (u.width - 1)
        return risk <= self.bot.throw_risk

    # ------------------------------------------------------------- follow
    def follow(self) -> list[int]:
        bot = self.bot
        plays = self.plays
        lead = plays[0]
        self.ld = ld = kernel.make_lead(lead, self.trump, self.rules)
        if ld.is_rainbow:
            return self.rainbow_follow()
        units = ld.units
        n = len(lead)
        e = ld.suit
        self.e = e
        pos = len(plays)
        self.later = [(self.leader + i) % self.n for i in range(pos + 1, self.n)]
        w = kernel.trick_winner(plays, self.trump, self.rules, lead=ld)
        wseat = (self.leader + w) % self.n
        trick_pts = sum(PTS[f] for p in plays for f in p)
        mine = self.by_suit[e]
        hs = len(mine)
        if bot.race:
            race = race_follow(self, w, wseat)
            if race is not None:
                return race
        rel_w = self.rel(wseat)
        hold = self.hold_chance(w, units) if rel_w == 1 else 0.0
        feed = rel_w == 1 and hold >= bot.feed_min_hold and (self.friends.sure or not bot.feed_known)
        if n >= 4 and self.rules.bombs != "none" and not feed and (rel_w != 1 or hold < 0.3):
            bomb = self.bomb(n, trick_pts)
            if bomb is not None:
                return bomb
        if hs <= n:
            rest_n = n - hs
            if hs == 0 and e != TRUMPS and not feed and self.by_suit[TRUMPS] and \
                    (rel_w != 1 or hold < 0.3):
                ruff = self.ruff(units, n, trick_pts)
                if ruff is not None:
                    return ruff
            return list(mine) + self.discard(rest_n, feed, exclude_suit=e)
        # enough cards of the led suit: choose n of them
        if not feed and len(units) == 1:
            win = self.win_in_suit(units[0], n, trick_pts, rel_w, hold)
            if win is not None:
                return win
        return self.in_suit(units, n, feed)

    def hold_chance(self, w: int, units: Sequence[Unit]) -> float:
        """Rough chance that play ``w`` (a partner's) keeps the trick."""
        later = [s for s in self.later if self.rel(s) != 1]
        if not later:
            return 1.0
        e = self.e
        play = self.plays[w]
        tab = self.tab
        ruffed = e != TRUMPS and all(tab.es[f] == TRUMPS for f in play) and w > 0
        void_enemy = e != TRUMPS and any((s, e) in self.voids and (s, TRUMPS) not in self.voids
                                          for s in later)
        if ruffed:
            hi = max(tab.lv[f] for f in play)
            if not tab.beatable(self.unseen, TRUMPS, 1, 1, hi):
                return 0.95
            return 0.45 if void_enemy else 0.75
        if len(units) >= 2:
            return 0.4 if void_enemy else 0.85     # a throw that stood
        u = units[0]
        k, L = u.width, u.length
        tops = [tab.lv[f] for f in set(play) if play.count(f) >= k and tab.es[f] == e]
        top = max(tops) if tops else -1
        if not tab.beatable(self.unseen, e, k, L, top):
            return 0.45 if void_enemy else 0.9
        return 0.3

    def bomb(self, n: int, trick_pts: int) -> Optional[list[int]]:
        """Under ``bombs``: the cheapest bomb (``n`` copies of one card) the hand may play that takes the
        trick, when the trick is worth it; the rules (legality, who wins) are the kernel's."""
        for f in sorted(set(self.hand), key=self.value):
            cand = [f] * n
            if self.hand.count(f) >= n and self._legal(cand) and self._wins(cand) and \
                    self._worth_winning(trick_pts, cand, True, min_pts=10):
                return cand
        return None

    def _wins(self, cand: list[int]) -> bool:
        try:
            plays = self.plays + [Cards(cand)]
            winner: int = kernel.trick_winner(plays, self.trump, self.rules, lead=self.ld)
            return winner == len(self.plays)
        except Exception:
            return False

    def _legal(self, cand: list[int]) -> bool:
        legal: bool = kernel.is_legal_follow(self.hand, self.ld, Cards(cand), self.trump, self.rules)
        return legal

    def _worth_winning(self, trick_pts: int, cand: list[int], holds: bool, min_pts: int = 5) -> bool:
        if trick_pts >= max(1, min_pts):
            return True
        if not holds:
            return False
        # a trick without points: win it to cash own point cards, or to take
        # the lead cheaply when nobody can answer any more
        if sum(PTS[f] for f in cand) >= 5:
            return True
        cost = max(self.value(f) for f in cand)
        return cost < 12 or (not self.later and cost < 38)

    def _holds(self, e: int, k: int, L: int, top: int) -> bool:
        """Whether a play of suit ``e`` topped at ``top`` should keep the trick
        against the players still to play."""
        if not self.later:
            return True
        if self.tab.beatable(self.unseen, e, k, L, top):
            return False
        led = self.e
        return led == TRUMPS or e == TRUMPS or self.ruff_risk(led, self.later) < 0.3

    def win_in_suit(self, u: Unit, n: int, trick_pts: int, rel_w: int, hold: float) -> Optional[list[int]]:
        """A play of the led suit that takes the trick, if one is worth it."""
        if rel_w == 1 and hold >= 0.3:
            return None
        tab = self.tab
        e = self.e
        k, L = u.width, u.length
        cands = []
        for top, faces in tab.shapes(self.cnt, e, k, L):
            if len(faces) != n or not self._wins(faces) or not self._legal(faces):
                continue
            if self.bot.hold_copies and any(kept_cost(self, f) for f in faces):
                continue
            cands.append((top, self._holds(e, k, L, top), faces))
        if not cands:
            return None
        holding = [c for c in cands if c[1]]
        if holding:
            # the cheapest that holds; cash a point card if one holds too
            top, holds, faces = min(holding, key=lambda c: (-sum(PTS[f] for f in c[2]) if
                                                            c[0] < tab.top_level[e] else 0, c[0]))
        elif not self.later:
            top, holds, faces = cands[0]
        elif trick_pts >= 10:
            top, holds, faces = cands[-1]
        else:
            return None
        if not self._worth_winning(trick_pts, faces, holds):
            return None
        return faces

    def ruff(self, units: Sequence[Unit], n: int, trick_pts: int) -> Optional[list[int]]:
        """Trumps matching the lead's shape that take the trick, if worth it."""
        tab = self.tab
        tr = self.by_suit[TRUMPS]
        if len(tr) < n:
            return None
        base = [0] * 54
        for f in tr:
            base[f] += 1
        first = units[0]
        wins = []
        for top, faces in tab.shapes(base, TRUMPS, first.width, first.length)[:8]:
            cnt = list(base)
            play = list(faces)
            for f in faces:
                cnt[f] -= 1
            ok = True
            for u in units[1:]:
                got = tab.shapes(cnt, TRUMPS, u.width, u.length)
                if not got:
                    ok = False
                    break
                fs = min(got, key=lambda g: (sum(PTS[f] for f in g[1]), g[0]))[1]
                play += fs
                for f in fs:
                    cnt[f] -= 1
            if ok and len(play) == n and self._wins(play):
                wins.append((top, self._holds(TRUMPS, first.width, first.length, top), play))
        if not wins:
            return None
        holding = [w for w in wins if w[1]]
        if holding:
            # the cheapest that holds (cashing a point trump counts in its favour)
            top, holds, play = min(holding, key=lambda w: (sum(self.value(f) for f in w[2])
                                                           - 3 * sum(PTS[f] for f in w[2]), w[0]))
        elif trick_pts >= 10:
            top, holds, play = wins[-1]
        else:
            top, holds, play = wins[0]
        if self._worth_winning(trick_pts, play, holds, self.bot.ruff_min_points):
            return play
        return None

    def discard(self, m: int, feed: bool, exclude_suit: int) -> list[int]:
        """``m`` cards from outside the led suit: points if feeding, else cheap ones."""
        if m <= 0:
            return []
        tab = self.tab
        cnt = self.cnt
        pool = [f for f in self.hand if tab.es[f] != exclude_suit]
        slen = [len(x) for x in self.by_suit]

        def key(f: int) -> float:
            v = self.value(f)
            if cnt[f] >= 2:
                v += 5
            if self.bot.hold_copies:
                v += kept_cost(self, f)
            v += 0.4 * slen[tab.es[f]]
            if feed:
                v -= 3 * PTS[f] if tab.es[f] != TRUMPS else 1 * PTS[f]
            else:
                v += 3 * PTS[f]
            return v

        pool.sort(key=lambda f: (key(f), f))
        return pool[:m]

    def in_suit(self, units: Sequence[Unit], n: int, feed: bool) -> list[int]:
        """``n`` cards of the led suit meeting the shape obligation: the most
        points if feeding, else the cheapest."""

        def key(f: int) -> float:
            v = self.value(f)
            if self.bot.hold_copies:
                v += kept_cost(self, f)
            if feed:
                return v - 4 * PTS[f]
            return v + 3 * PTS[f]

        for variant in range(2):
            play = self._build(units, n, key, variant)
            if play is not None and len(play) == n and self._legal(play):
                return play
        # rare shapes (ladder rules, big sets): list the legal follows
        self.bot.listings += 1
        return self._cheapest_listed(key)

    def rainbow_follow(self) -> list[int]:
        """A rainbow led (``rules.rainbow``): of the first legal follows listed, the one giving
        away the fewest points and the lowest cards."""
        return self._cheapest_listed(lambda f: self.value(f) + 3 * PTS[f])

    def _cheapest_listed(self, key: Callable[[int], float]) -> list[int]:
        """Of the first 401 legal follows listed, the one of least total ``key``
        (the first on ties); a random legal follow if none is listed."""
        best, best_key = None, None
        for i, p in enumerate(kernel.legal_follows(self.hand, self.ld, self.trump, self.rules)):
            s = sum(key(f) for f in p)
            if best_key is None or s < best_key:
                best, best_key = list(p), s
            if i >= 400:
                break
        if best is not None:
            return best
        return list(kernel.random_follow(self.hand, self.ld, self.trump, self.rules, self.bot.rng))

    def _build(self, units: Sequence[Unit], n: int, key: Callable[[int], float], variant: int) -> Optional[list[int]]:
        tab = self.tab
        rem: dict[int, int] = {}
        for f in self.by_suit[self.e]:
            rem[f] = rem.get(f, 0) + 1
        out: list[int] = []
        rules = self.rules
        ladder = rules.follow_ladder
        protect = rules.protect_longer_sets
        for u in sorted(units, key=lambda u: (-u.width, -u.length)):
            k, L = u.width, u.length
            if k < 2:
                continue
            taken = 0
            if ladder and L >= 2:
                # a tractor of the lead's width if there is one (as long as possible)
                for ll in range(L, 1, -1):
                    cnt = [0] * 54
                    for f, c in rem.items():
                        cnt[f] = c
                    got = tab.shapes(cnt, self.e, k, ll)
                    if got and len(out) + k * ll <= n:
                        fs = min(got, key=lambda g: sum(key(f) for f in g[1]))[1]
                        out += fs
                        for f in fs:
                            rem[f] -= 1
                        taken = ll
                        break
            widths = range(k, 1, -1) if ladder else (k,)
            for kk in widths:
                while taken < L and len(out) + kk <= n:
                    ok = [f for f, c in rem.items() if c >= kk and not (protect and variant == 0 and c > kk)]
                    if not ok:
                        ok = [f for f, c in rem.items() if c >= kk]
                    if not ok:
                        break
                    f = min(ok, key=lambda g: (key(g), g))
                    out += [f] * kk
                    rem[f] -= kk
                    taken += 1
                if taken >= L:
                    break
        left = n - len(out)
        if left < 0:
            return None
        singles = []
        for f, c in rem.items():
            # breaking a set costs a little
            singles += [(key(f) + (3 if c >= 2 and variant == 0 else 0), f)] * c
        singles.sort()
        out += [f for _, f in singles[:left]]
        return out if len(out) == n else None
