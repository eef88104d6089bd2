"""The heuristic bot: plays like a sensible human, fast, from its own view only.

Rules of thumb, phase by phase:

- draw: expose a level card when the suit it would make trump is long in the
  hand so far (jokers + level cards + that suit), defend a good suit, else pass;
  on the last draw with nobody exposed yet, expose the best suit (a redeal
  helps nobody).
- steal (``rules.kitty_theft``): overcall for a buried kitty by the draw's
  rule of thumb for exposing.
- bury (maker, or a seat that took the kitty; one card at a time): void short plain suits when that is cheap,
  keep trumps, aces, sets and point cards; trumps only when nothing else is left.
- call: the top plain card (ace, or king at an ace level) it does not hold,
  first copy; "the other" of a held one where the rules allow it; then kings.
- play: know the sides (maker, revealed friends, "friend-to-be" when holding a
  called copy that is next to count, and whether the side is known);
  race to fill a live call with a held copy that fills it (``race``), keep
  back copies that would not (``hold_copies``), feed points only while the
  side is known (``feed_known``); lead safe throws and boss units of plain
  suits, trump sets to draw trumps when strong, low cards of short suits or of
  the called suit otherwise; follow by winning tricks with points cheaply (with
  a unit that holds if possible), feeding points to a partner whose play should
  hold, and playing low non-point cards when an opponent wins.

Candidates are built from the hand's units (never a listing of every lead);
each final choice is checked against the view and replaced by a random legal
action if a bug ever made it illegal (counted in :attr:`HeuristicBot.fallbacks`).

>>> import random
>>> from core.rules import Rules
>>> from bots import play_deal
>>> bots = [HeuristicBot() for _ in range(6)]
>>> s = play_deal(Rules.preset("pagat", players=6), 1, bots, random.Random(1))
>>> s.is_terminal(), sum(b.fallbacks for b in bots)
(True, 0)
"""

from __future__ import annotations

import random
from typing import Optional, cast

from core import kernel
from core.actions import BURY, CALL, EXPOSE, PLAY, Action
from core.cards import Cards, Trump
from core.rules import Rules
from core.state import PlayerView

from .protocol import Param, keep_params
from .heuristic_cards import PTS, TRUMPS, CardTable, cached_cards
from .heuristic_play import PlayTurn

__all__ = ["HeuristicBot"]


class HeuristicBot:
    """A fast rule-based player.

    Every parameter is optional (the defaults are meant to play sensibly);
    :attr:`PARAMS` says what each means and the span worth tuning it over
    (``pengyou bots heuristic`` prints them).
    """

    #: The parameters' meanings and tuning spans.
    PARAMS = {
        "expose_min_trumps": Param("fewest trumps (jokers, level cards, cards of the suit) held to expose "
                                   "a level card during the draw", 0, 12),
        "expose_min_share": Param("least share of the hand so far those trumps must be", 0.0, 1.0),
        "defend_min_share": Param("least trump share to defend one's exposure", 0.0, 1.0),
        "bury_point_weight": Param("how much keeping a point card out of the kitty matters when burying "
                                   "(per card point)", 0.0, 5.0),
        "void_bonus": Param("how much voiding a plain suit in the bury is worth (in rank steps)", 0.0, 20.0),
        "throw_risk": Param("largest estimated chance of a throw failing that is accepted "
                            "(0: only throws no unseen cards can beat)", 0.0, 1.0),
        "ruff_risk_max": Param("largest estimated chance of being trumped at which a plain-suit winner "
                               "or throw is still led", 0.0, 1.0),
        "ruff_min_points": Param("least card points in a trick to trump it (0: trump whenever an "
                                 "opponent would win otherwise)", 0, 30),
        "trump_lead_share": Param("least share of trumps in hand to lead trumps to draw them (maker side; "
                                  "the opponents need 0.15 more)", 0.0, 1.0),
        "feed_min_hold": Param("least estimated chance that a partner's winning play holds, to feed it "
                               "points", 0.0, 1.0),
        "race": Param("1: the friend race: off the maker's side, a copy of a called card that would fill a "
                      "live call is played at the first good chance (led, or followed onto a trick going to "
                      "the maker's side or that it takes); 0: the play before", 0, 1),
        "hold_copies": Param("1: a copy that would not fill its open call (an earlier copy is still to come) is "
                             "kept back, and a seat on the maker's side never fills a call; 0: the play before", 0, 1),
        "feed_known": Param("1: points are fed only while the seat's side is known (not while another seat may "
                            "still fill the call its own copy would fill); 0: the play before", 0, 1),
    }

    expose_min_trumps: int
    expose_min_share: float
    defend_min_share: float
    bury_point_weight: float
    void_bonus: float
    throw_risk: float
    ruff_risk_max: float
    ruff_min_points: int
    trump_lead_share: float
    feed_min_hold: float
    race: int
    hold_copies: int
    feed_known: int

    def __init__(self, expose_min_trumps: int = 3, expose_min_share: float = 0.36,
                 defend_min_share: float = 0.3, bury_point_weight: float = 1.0,
                 void_bonus: float = 8.0, throw_risk: float = 0.0, ruff_risk_max: float = 0.4,
                 ruff_min_points: int = 5, trump_lead_share: float = 0.4,
                 feed_min_hold: float = 0.5, race: int = 1, hold_copies: int = 1, feed_known: int = 1) -> None:
        keep_params(self, {"expose_min_trumps": expose_min_trumps, "expose_min_share": expose_min_share,
                           "defend_min_share": defend_min_share, "bury_point_weight": bury_point_weight,
                           "void_bonus": void_bonus, "throw_risk": throw_risk, "ruff_risk_max": ruff_risk_max,
                           "ruff_min_points": ruff_min_points, "trump_lead_share": trump_lead_share,
                           "feed_min_hold": feed_min_hold, "race": race, "hold_copies": hold_copies,
                           "feed_known": feed_known})
        self.rng = random.Random(0)
        self.seat = 0
        self.rules: Optional[Rules] = None
        #: decisions replaced by a random legal action because the choice was
        #: illegal or the bot raised (should stay 0)
        self.fallbacks = 0
        #: the last error behind a fallback (for debugging)
        self.last_error: Optional[str] = None
        #: follows that needed the (slower) listing of legal follows
        self.listings = 0
        self._reset()

    def _reset(self) -> None:
        self._table: Optional[CardTable] = None
        self._table_key: Optional[tuple[Optional[Trump], bool, int, int, int]] = None
        self._played = [0] * 54
        self._ntricks = 0
        self._last_trick: Optional[tuple[int, tuple[str, ...]]] = None

    # ----------------------------------------------------------- protocol
    def restart(self, rules: Rules, seat: int, rng: random.Random) -> None:
        """Take the deal's random stream and forget the last deal."""
        self.rules = rules
        self.seat = seat
        self.rng = rng
        self._reset()

    def step(self, view: PlayerView) -> Action:
        """Choose an action for ``view`` (legal, or a counted random fallback)."""
        try:
            action = self._decide(view)
            err = self._check(view, action)
        except Exception as exc:  # a bug: never let it stop the game
            action, err = None, f"{type(exc).__name__}: {exc}"
        if err is None:
            assert action is not None      # _check passes only an Action
            return action
        self.fallbacks += 1
        self.last_error = f"{view.phase}: {action}: {err}"
        if view.phase == "draw" and not view.options:
            return Action.pass_()
        return view.random_action(self.rng)

    # ------------------------------------------------------------ helpers
    def _check(self, view: PlayerView, action: Optional[Action]) -> Optional[str]:
        if not isinstance(action, Action):
            return "not an action"
        ph = view.phase
        if ph in ("draw", "steal", "call"):
            if action in view.options or (ph == "draw" and not view.options and action == Action.pass_()):
                return None
            return "not among the options"
        hand = view.hand
        if ph == "bury":
            return None if action.kind == BURY and action.cards[0] in hand else "not a card in hand"
        if action.kind != PLAY or not action.cards:
            return "not a play"
        rules = view.rules
        lead = view.lead
        if lead is None:
            left = list(hand)
            for f in action.cards:
                if f not in left:
                    return "card not in hand"
                left.remove(f)
            try:
                kernel.make_lead(action.cards, view.trump, rules)
            except Exception as exc:
                return str(exc)
            return None
        if kernel.is_legal_follow(hand, lead, action.cards, view.trump, rules):
            return None
        return "illegal follow"

    def _tab(self, view: PlayerView) -> CardTable:
        r = view.rules
        key = (view.trump, r.tractor_past_ace, r.packs, r.black_jokers, r.red_jokers)
        if self._table is None or self._table_key != key:
            self._table = CardTable(cast(Trump, view.trump), view.rules)    # made in the draw, before any use here
            self._table_key = key
        return self._table

    def _update_played(self, view: PlayerView) -> list[int]:
        """Counts of the faces played in finished tricks (kept incrementally)."""
        tricks = view.tricks
        k = self._ntricks
        if k > len(tricks) or (k and tricks[k - 1] != self._last_trick):
            self._played = [0] * 54
            k = 0
        played = self._played
        for i in range(k, len(tricks)):
            for p in tricks[i][1]:
                for f in cached_cards(p):
                    played[f] += 1
        self._ntricks = len(tricks)
        self._last_trick = tricks[-1] if tricks else None
        return played

    def _decide(self, view: PlayerView) -> Action:
        ph = view.phase
        if ph in ("draw", "steal"):             # an overcall for the kitty is weighed like an exposure
            return self._draw(view)
        if ph == "bury":
            return self._bury(view)
        if ph == "call":
            return self._call(view)
        return PlayTurn(self, view).choose()

    # --------------------------------------------------------------- draw
    def _draw(self, view: PlayerView) -> Action:
        opts = view.options
        exposes = [a for a in opts if a.kind == EXPOSE]
        if not exposes:
            return Action.pass_()
        hand = view.hand
        nh = max(1, len(hand))
        jokers = sum(1 for f in hand if f >= 52)

        level_ranks = {f % 13 + 2 for a in exposes for f in a.cards if f < 52}

        def trumps_for(a: Action) -> int:
            f = a.cards[0]
            if f >= 52:                            # a joker bid: no trump suit, the level cards still trumps
                return jokers + sum(1 for g in hand if g < 52 and g % 13 + 2 in level_ranks)
            rank, suit = f % 13 + 2, f // 13
            return jokers + sum(1 for g in hand if g < 52 and (g % 13 + 2 == rank or g // 13 == suit))

        best = max(exposes, key=lambda a: (trumps_for(a), len(a.cards), -a.cards[0]))
        t = trumps_for(best)
        mine = {ex[2] for ex in view.exposures if ex[0] == view.seat and ex[1] in ("expose", "defend")}
        defending = len(exposes) == 1 and view.exposures and view.exposures[-1][0] != view.seat and \
            str(Cards((best.cards[0],))) in {c.split()[0] for c in mine}
        if defending:
            return best if t / nh >= self.defend_min_share else Action.pass_()
        if t >= self.expose_min_trumps and t / nh >= self.expose_min_share:
            return best
        rules = view.rules
        total = rules.players * rules.hand_size
        nobody = not any(ex[1] == "expose" for ex in view.exposures)
        if nobody and view.cards_drawn > total - rules.players:
            return best                          # last chance before a redeal
        return Action.pass_()

    # --------------------------------------------------------------- bury
    def _bury(self, view: PlayerView) -> Action:
        plan = self.bury_plan(view)
        return Action.bury(plan[0])

    def bury_plan(self, view: PlayerView) -> list[int]:
        """The cards the maker would still bury, best first."""
        tab = self._tab(view)
        rules = view.rules
        buried = view.kitty or Cards()
        need = max(1, rules.kitty_size - len(buried))
        hand = list(view.hand)
        cnt = [0] * 54
        for f in hand:
            cnt[f] += 1
        es, lv = tab.es, tab.lv
        by_suit: dict[int, list[int]] = {}
        for f in hand:
            if es[f] != TRUMPS:
                by_suit.setdefault(es[f], []).append(f)

        def keep(f: int) -> float:
            e = es[f]
            if e == TRUMPS:
                return 1000.0 + lv[f]
            v = float(lv[f])
            if lv[f] == tab.top_level[e]:
                v += 8                                   # an ace (the boss of its suit)
            if cnt[f] >= 2:
                v += 10                                  # part of a set
            v += self.bury_point_weight * PTS[f]
            v += 0.5 * len(by_suit.get(e, ()))          # low cards of short suits go first
            return v

        keeps = {f: keep(f) for f in set(hand)}
        suits = sorted(by_suit)
        best_cost, best_plan = None, None
        for mask in range(1 << len(suits)):
            chosen = [s for i, s in enumerate(suits) if mask >> i & 1]
            plan = [f for s in chosen for f in sorted(by_suit[s], key=lambda g: keeps[g])]
            if len(plan) > need:
                continue
            cost = sum(keeps[f] for f in plan) - self.void_bonus * len(chosen)
            rest = sorted((f for s in suits if s not in chosen for f in by_suit[s]),
                          key=lambda g: (keeps[g], g))
            rest += sorted((f for f in hand if es[f] == TRUMPS), key=lambda g: (lv[g], g))
            fill = rest[:need - len(plan)]
            cost += sum(keeps[f] for f in fill)
            # voiding a suit is worth nothing if the fill leaves cards of it
            key = (cost, mask)
            if best_cost is None or key < best_cost:
                best_cost, best_plan = key, plan + fill
        return best_plan or hand[:1]

    # --------------------------------------------------------------- call
    def _call(self, view: PlayerView) -> Action:
        opts = [a for a in view.options if a.kind == CALL]
        if not opts:
            return view.options[0]
        tab = self._tab(view)
        hand = view.hand
        cnt = [0] * 54
        for f in hand:
            cnt[f] += 1
        suit_len = [0] * 5
        for f in hand:
            suit_len[tab.es[f]] += 1
        called_faces = {cached_cards(c)[0] for c, _ in view.calls}

        def score(a: Action) -> tuple[int, bool, int, int, int, int]:
            f, o = a.cards[0], a.ordinal
            e = tab.es[f]
            gap = tab.top_level[e] - tab.lv[f]          # 0 for the ace (boss) of a suit
            held = cnt[f] > 0
            if o == 1 and not held and gap <= 1:
                tier = 2 * gap                           # an ace, then a king, not held
            elif o == 0 and held and gap <= 1:
                tier = 2 * gap + 1                       # "the other" of a held ace / king
            elif not held and gap == 0:
                tier = 4                                 # a later copy of an ace not held
            elif not held and o <= 1:
                tier = 5 + gap                           # lower cards not held
            else:
                tier = 30 + gap
            n = suit_len[e]
            # suits where the maker can lead to the friend, shortest first
            return (tier, f in called_faces, 0 if n >= 1 else 1, n, o, f)

        return min(opts, key=score)
