"""One deal as a phase machine: DRAW (with exposures), BURY, CALL, PLAY, DONE.

The draw is the only chance event: a seeded shuffle (a fresh one after a
redeal). Every decision is an :class:`~core.actions.Action` of the player
:meth:`State.current_player` returns; decisions where nothing but passing is
possible are skipped by the engine.

>>> import random
>>> from core.rules import Rules
>>> s = State(Rules.preset("pagat", players=6), seed=3)
>>> rng = random.Random(0)
>>> while not s.is_terminal():
...     s.apply(s.random_legal_action(rng))
>>> sum(s.play.points) + points(s.kitty) == s.rules.total_points   # every card point is won or buried
True
>>> s.result.winner, s.result.game_points
('opponents', 1)
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Optional, cast

from . import kernel
from ._play import PlayCore
from .actions import BURY, CALL, EXPOSE, PASS, PLAY, Action, NumberEnum
from .cards import Cards, Trump, card_name, format_cards, points, rank_of, suit_of
from .errors import IllegalActionError, InvalidActionError
from .levels import PlayerLevel, level_rank, redeal_levels, start_levels
from .rules import Rules
from .scoring import MAKER, DealScore, score_deal
from .view import PlayerView, holds_set, no_set_width, play_actions, play_from_view, random_legal

__all__ = ["State", "DealResult", "PlayerView", "Phase", "DRAW", "BURY_PHASE", "CALL_PHASE",
           "PLAY_PHASE", "DONE", "play_from_view", "random_legal"]

class Phase(NumberEnum):
    """The phases of a deal, in order; members are the whole numbers 0..4 and
    print as those numbers (a view names them: ``PHASE_NAMES``).

    >>> Phase.PLAY > Phase.BURY, PHASE_NAMES[Phase.CALL]
    (True, 'call')
    """

    DRAW = 0
    BURY = 1
    CALL = 2
    PLAY = 3
    DONE = 4


DRAW, BURY_PHASE, CALL_PHASE, PLAY_PHASE, DONE = Phase
PHASE_NAMES = tuple(p.name.lower() for p in Phase)
MAX_REDEALS = 50


@dataclass(frozen=True)
class DealResult:
    """The end of a deal: sides, the opponents' card points and the game points."""

    maker: int
    maker_side: frozenset[int]
    opponents_points: int
    kitty_points: int
    kitty_multiplier: int
    kitty_to_opponents: bool
    winner: Optional[str]
    game_points: int
    next_side: Optional[str]


@dataclass
class _Exposure:
    seat: int
    face: int
    count: int


def _shuffled(rules: Rules, rng: random.Random) -> list[int]:
    d = rules.deck()
    rng.shuffle(d)
    return d


def seed_decks(rules: Rules, seed: Any, count: int) -> list[list[int]]:
    """The decks a deal seeded with ``seed`` deals, for its first ``count``
    (re)deals: the one owner of the shuffle.

    >>> r = Rules.preset("pagat", players=5)
    >>> seed_decks(r, 4, 1) == State(r, seed=4).decks
    True
    """
    rng = random.Random(seed)
    return [_shuffled(rules, rng) for _ in range(count)]


class State:
    """A deal of Zhao Pengyou under ``rules``.

    ``levels`` are the players' levels (all active 2 by default); ``starter``
    draws first; ``maker`` is a predetermined trump maker (``heli`` and
    ``stack`` after the first deal) or None. ``seed`` makes the shuffle; or
    give ``decks`` (one list of faces per (re)deal) to replay a record.
    """

    def __init__(self, rules: Rules, seed: int = 0, levels: Optional[Sequence[PlayerLevel]] = None,
                 starter: int = 0, maker: Optional[int] = None,
                 decks: Optional[Sequence[Sequence[int]]] = None) -> None:
        if not isinstance(rules, Rules):
            raise InvalidActionError("rules: expected a Rules value (see Rules.preset)")
        n = rules.players
        if not (isinstance(starter, int) and 0 <= starter < n):
            raise InvalidActionError(f"starter: {starter!r} is not a seat from 0 to {n - 1}")
        if maker is not None and not (isinstance(maker, int) and 0 <= maker < n):
            raise InvalidActionError(f"maker: {maker!r} is not a seat from 0 to {n - 1}")
        self.rules = rules
        self.seed = seed
        self.starter = starter
        self.fixed_maker = maker
        self.levels = list(levels) if levels is not None else start_levels(rules)
        self.initial_levels = list(self.levels)     # before any redeal
        if len(self.levels) != n:
            raise InvalidActionError(f"levels: expected {n} player levels, got {len(self.levels)}")
        self._rng = random.Random(seed)
        self._given_decks = [list(d) for d in decks] if decks is not None else None
        self.decks: list[list[int]] = []
        self.history: list[tuple[int, Action]] = []
        self.exposures: list[tuple[int, str, Cards]] = []   # (seat, "expose"|"defend"|"withdraw"|"turned", cards)
        self.redeals = 0
        self.trump: Optional[Trump] = None
        self.maker: Optional[int] = None
        self.kitty: Cards = Cards()
        self.calls: list[tuple[int, int]] = []
        self.play: Optional[PlayCore] = None
        self.tricks: list[tuple[int, list[Cards]]] = []
        self._trick_text: list[tuple[int, tuple[str, ...]]] = []   # the same, as text for views
        self.failed_throws: list[tuple[int, Cards, Cards]] = []
        self.voids: set[tuple[int, int]] = set()
        self.no_sets: set[tuple[int, int, int]] = set()
        self._result: Optional[DealResult] = None
        self._start_draw()

    # ------------------------------------------------------------------ draw
    def _start_draw(self) -> None:
        n = self.rules.players
        if self._given_decks is not None:
            if len(self._given_decks) <= len(self.decks):
                raise InvalidActionError("record: fewer decks than the deal needs")
            d = list(self._given_decks[len(self.decks)])
            if sorted(d) != sorted(self.rules.deck()):
                raise InvalidActionError("record: a deck does not hold exactly the cards of the deal")
        else:
            d = _shuffled(self.rules, self._rng)
        self.decks.append(d)
        self._deck = d
        self._drawn = 0
        self._hands = [[0] * 54 for _ in range(n)]
        self._exp: Optional[_Exposure] = None
        self._overrides = 0
        self._defender: Optional[int] = None       # seat that may defend right now
        self._challenger: Optional[_Exposure] = None
        self._decider: Optional[int] = None
        self.phase = DRAW
        self._advance_draw()

    def _rank_for(self, seat: int) -> Optional[int]:
        """The rank a seat may expose, or None."""
        r = self.rules
        lv = self.levels
        if self.fixed_maker is not None and r.predetermined_maker:
            return level_rank(lv[self.fixed_maker].level, r)
        if r.levels == "active_passive" and not lv[seat].active:
            return None
        return level_rank(lv[seat].level, r)

    def _expose_options(self, seat: int) -> list[Action]:
        """Exposures the drawer may make now."""
        rank = self._rank_for(seat)
        if rank is None:
            return []
        h = self._hands[seat]
        exp = self._exp
        out = []
        if exp is None:
            for s in range(4):
                f = s * 13 + rank - 2
                if h[f] >= 1:
                    out.append(Action.expose(Cards((f,))))
            return out
        if exp.seat == seat:
            return []                                  # no overriding oneself
        if self.rules.exposure == "bottom_eight" and (self._overrides >= 1 or exp.count != 1):
            return []                                  # one pair override per hand
        need = exp.count + 1
        if need > self.rules.packs:
            return []
        for s in range(4):
            f = s * 13 + rank - 2
            if h[f] >= need:
                out.append(Action.expose(Cards((f,) * need)))
        return out

    def _advance_draw(self) -> None:
        """Draw cards until someone has a decision, then stop; finish the draw at the end."""
        r = self.rules
        n = r.players
        total = n * r.hand_size
        while self._drawn < total:
            seat = (self.starter + self._drawn) % n
            self._hands[seat][self._deck[self._drawn]] += 1
            self._drawn += 1
            if self._expose_options(seat):
                self._decider = seat
                return
        self._finish_draw()

    def _finish_draw(self) -> None:
        r = self.rules
        n = r.players
        kitty = self._deck[n * r.hand_size:]
        exp = self._exp
        if self.fixed_maker is not None and r.predetermined_maker:
            maker = self.fixed_maker
            rank = level_rank(self.levels[maker].level, r)
            if rank is None:
                trump = Trump(None, None)
            elif exp is not None:
                trump = Trump(rank, suit_of(exp.face))
            else:
                trump = Trump(rank, _turn_up_suit(kitty, rank))
                # the turned cards are seen by all; the maker then takes them with the kitty
                self.exposures.append((maker, "turned", Cards(_turned_cards(kitty, rank))))
        elif exp is not None:
            maker = exp.seat
            trump = Trump(rank_of(exp.face), suit_of(exp.face))
        else:
            # nobody made trump: a fresh deal by the same starter, everyone active
            self.redeals += 1
            if self.redeals > MAX_REDEALS:
                raise IllegalActionError("nobody made trump in 50 deals running")
            self.levels = redeal_levels(self.levels)
            self._start_draw()
            return
        self.trump = trump
        self.maker = maker
        self._decider = None
        for f in kitty:
            self._hands[maker][f] += 1
        self._kitty_left = r.kitty_size
        self._buried: list[int] = []
        self.phase = BURY_PHASE
        if self._kitty_left == 0:
            self._to_call()

    def _to_call(self) -> None:
        self.kitty = Cards(self._buried)
        self.phase = CALL_PHASE
        if self.rules.friend_calls == 0:
            self._to_play()

    def _to_play(self) -> None:
        hands = [Cards.from_counts(h) for h in self._hands]
        self.play = PlayCore.start(self.rules, self.trump, self.maker, hands, self.calls)
        self.phase = PLAY_PHASE
        self._trick: tuple[int, list[Cards]] = (-1, [])
        if self.play.done:
            self._finish()

    # ------------------------------------------------------------- interface
    def current_player(self) -> int:
        """The seat to decide now, or -1 when the deal is over."""
        if self.phase == DRAW:
            # a seat decides whenever the draw stops (None only after the redeal limit raised mid-draw)
            return cast(int, self._defender if self._defender is not None else self._decider)
        if self.phase in (BURY_PHASE, CALL_PHASE):
            assert self.maker is not None             # the draw made a maker before the bury
            return self.maker
        if self.phase == PLAY_PHASE:
            assert self.play is not None
            return self.play.current_player
        return -1

    def is_terminal(self) -> bool:
        """True when the deal is over."""
        return self.phase == DONE

    def hand(self, seat: int) -> Cards:
        """The cards a seat holds now."""
        if not (isinstance(seat, int) and 0 <= seat < self.rules.players):
            raise InvalidActionError(f"seat {seat!r} is not a seat from 0 to {self.rules.players - 1}")
        if self.phase in (PLAY_PHASE, DONE):
            assert self.play is not None
            return self.play.hand(seat)
        return Cards.from_counts(self._hands[seat])

    def legal_actions(self) -> LegalActions:
        """The legal actions, lazily: ``a in s.legal_actions()`` checks one
        without listing them; iterating lists them."""
        return LegalActions(self)

    def action_error(self, action: Action) -> Optional[str]:
        """Why ``action`` is illegal now, or None."""
        if not isinstance(action, Action):
            return "not an Action"
        seat = self.current_player()
        if self.phase == DONE:
            return "the deal is over"
        if self.phase == DRAW:
            if action.kind == PASS:
                return None
            if action.kind != EXPOSE:
                return "during the draw the only choices are expose and pass"
            if self._defender is not None:
                return None if action.cards == self._defence_cards() else \
                    f"a defence must show {format_cards(self._defence_cards())}"
            if action in self._expose_options(seat):
                return None
            return "cannot expose these cards now (rank, count or who may expose)"
        if self.phase == BURY_PHASE:
            if action.kind != BURY:
                return "the maker must bury cards now"
            f = action.cards[0]
            return None if self._hands[seat][f] > 0 else f"{card_name(f)} is not in the maker's hand"
        if self.phase == CALL_PHASE:
            if action.kind != CALL:
                return "the maker must call friend cards now"
            return self._call_error(action)
        if action.kind != PLAY:
            return "play cards now"
        assert self.play is not None
        err = self.play.play_error(action.cards)
        return None if err is None else err

    def _call_error(self, action: Action) -> Optional[str]:
        f = action.cards[0]
        ctx = kernel.context(self.trump, self.rules.tractor_past_ace)
        if f >= 52 or ctx.is_trump(f):
            return f"{card_name(f)} is a trump: only non-trump cards can be called"
        if action.ordinal == 0 and not self.rules.friend_other:
            return "these rules have no 'other' call: give an ordinal"
        if action.ordinal > self.rules.packs:
            return f"ordinal {action.ordinal} is more than the {self.rules.packs} packs"
        if (f, action.ordinal) in self.calls:
            return "that card is already called"
        return None

    def _defence_cards(self) -> Cards:
        exp = self._exp
        assert exp is not None and self._challenger is not None     # a defence answers an override
        return Cards((exp.face,) * (self._challenger.count))

    def apply(self, action: Action | str, check: bool = True) -> None:
        """Apply the current player's action (``check`` verifies it first)."""
        if isinstance(action, str):
            action = Action.from_str(action)
        if check:
            err = self.action_error(action)
            if err is not None:
                raise IllegalActionError(f"seat {self.current_player()} cannot {action}: {err}")
        seat = self.current_player()
        self.history.append((seat, action))
        if self.phase == DRAW:
            self._apply_draw(seat, action)
        elif self.phase == BURY_PHASE:
            f = action.cards[0]
            self._hands[seat][f] -= 1
            self._buried.append(f)
            self._kitty_left -= 1
            if self._kitty_left == 0:
                self._to_call()
        elif self.phase == CALL_PHASE:
            self.calls.append((action.cards[0], action.ordinal))
            if len(self.calls) == self.rules.friend_calls:
                self._to_play()
        else:
            self._apply_play(seat, action.cards)

    def _apply_draw(self, seat: int, action: Action) -> None:
        if self._defender is not None:
            defender, challenger = self._defender, self._challenger
            assert challenger is not None and self._exp is not None     # set with the defender
            self._defender = None
            self._challenger = None
            if action.kind == EXPOSE:
                self.exposures.append((seat, "defend", action.cards))
                self.exposures.append((challenger.seat, "withdraw", Cards((challenger.face,) * challenger.count)))
                self._exp = _Exposure(defender, self._exp.face, challenger.count)
            else:
                self._exp = challenger
            self._advance_draw()
            return
        if action.kind == PASS:
            self._advance_draw()
            return
        new = _Exposure(seat, action.cards[0], len(action.cards))
        old = self._exp
        self.exposures.append((seat, "expose", action.cards))
        if old is not None:
            self._overrides += 1
            if self._hands[old.seat][old.face] >= new.count:
                self._defender = old.seat
                self._challenger = new
                return
        self._exp = new
        self._advance_draw()

    def _apply_play(self, seat: int, cards: Cards) -> None:
        pc = self.play
        assert pc is not None
        leading = pc.is_leading
        if leading:
            self._trick = (seat, [])
        lead = None if leading else self._trick[1][0]
        seat, played, attempt = pc.play(cards, check=False)
        if attempt is not None:
            self.failed_throws.append((seat, attempt, played))
        self._trick[1].append(played)
        if lead is not None:
            self._infer(seat, lead, played)
        if pc.is_leading or pc.done:
            self.tricks.append((self._trick[0], list(self._trick[1])))
            self._trick_text.append((self._trick[0], tuple(str(p) for p in self._trick[1])))
            self._trick = (-1, [])
        if pc.done:
            self._finish()

    def current_trick(self) -> tuple[int, list[Cards]]:
        """(leader, plays so far) of the trick in progress."""
        if self.phase != PLAY_PHASE:
            return (-1, [])
        assert self.play is not None
        if self.play.is_leading:
            return (-1, [])
        return (self._trick[0], list(self._trick[1]))

    def _infer(self, seat: int, lead: Cards, played: Cards) -> None:
        ctx = kernel.context(self.trump, self.rules.tractor_past_ace)
        e = ctx.effective_suit(lead[0])
        in_suit = sum(1 for f in played if ctx.effective_suit(f) == e)
        if in_suit < len(lead):
            self.voids.add((seat, e))
            return
        k = no_set_width(lead, self.trump, self.rules)
        if k and not holds_set(played, k):
            self.no_sets.add((seat, e, k))

    def _finish(self) -> None:
        pc = self.play
        assert pc is not None and self.maker is not None
        r = self.rules
        side = pc.maker_side
        kitty_pts = points(self.kitty)
        opp, mult, to_opp = pc.opponents_points(r, kitty_pts)
        sc: DealScore = score_deal(r, opp, len(side))
        self._result = DealResult(self.maker, side, opp, kitty_pts, mult, to_opp, sc.winner,
                                  sc.game_points, sc.next_side)
        self.phase = DONE

    # ------------------------------------------------------------- results
    @property
    def dealt_by_seed(self) -> bool:
        """Whether the decks are the ones :attr:`seed` deals (False for decks
        given by hand that the seed does not make)."""
        if self.seed is None:
            return False
        return self._given_decks is None or self.decks == seed_decks(self.rules, self.seed, len(self.decks))

    @property
    def result(self) -> Optional[DealResult]:
        """The deal's result once it is over."""
        return self._result

    def winners(self) -> frozenset[int]:
        """Seats on the side that won the deal (empty for no score or before the end)."""
        res = self._result
        if res is None or res.winner is None:
            return frozenset()
        if res.winner == MAKER:
            return res.maker_side
        return frozenset(range(self.rules.players)) - res.maker_side

    def returns(self) -> list[int]:
        """Game points per seat: plus for the winning side, minus for the losers."""
        res = self._result
        n = self.rules.players
        if res is None or res.winner is None:
            return [0] * n
        win = self.winners()
        return [res.game_points if s in win else -res.game_points for s in range(n)]

    def random_legal_action(self, rng: random.Random) -> Action:
        """A random legal action of the player to move: the same distribution,
        drawing the same numbers from ``rng``, as :meth:`PlayerView.random_action`
        of that player's view (see :func:`random_legal`)."""
        if self.phase == DONE:
            raise IllegalActionError("the deal is over")
        if self.phase == PLAY_PHASE:
            # the play engine draws exactly what random_legal draws here, without the conversions
            assert self.play is not None
            return Action.play(self.play.random_play(rng))
        seat = self.current_player()
        plays = self.current_trick()[1]
        return random_legal(PHASE_NAMES[self.phase], self.hand(seat), plays[0] if plays else None,
                            self.trump, self.rules, lambda: tuple(LegalActions(self)), rng)

    def clone(self) -> State:
        """An independent copy."""
        s = State.__new__(State)
        s.__dict__.update(self.__dict__)
        s._rng = random.Random()
        s._rng.setstate(self._rng.getstate())
        s.history = list(self.history)
        s.decks = list(self.decks)
        s.exposures = list(self.exposures)
        s.levels = list(self.levels)
        s.calls = list(self.calls)
        s.tricks = list(self.tricks)
        s._trick_text = list(self._trick_text)
        s.failed_throws = list(self.failed_throws)
        s.voids = set(self.voids)
        s.no_sets = set(self.no_sets)
        if self.phase == PLAY_PHASE:
            s._trick = (self._trick[0], list(self._trick[1]))
        if self.phase in (DRAW, BURY_PHASE, CALL_PHASE):
            s._hands = [list(h) for h in self._hands]
            if self.phase == BURY_PHASE:
                s._buried = list(self._buried)
        if self.play is not None:
            s.play = self.play.clone()
        return s

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may know, and nothing more."""
        return view_of(self, seat)

    def __repr__(self) -> str:
        return (f"<State {self.rules.name} {self.rules.players}p seed={self.seed} "
                f"phase={PHASE_NAMES[self.phase]} to_play={self.current_player()}>")


def _turn_up_suit(kitty: Sequence[int], rank: int) -> Optional[int]:
    """Heli's rule: the first kitty card of the rank names the suit; else the
    highest non-joker card (the first of equal highest)."""
    for f in kitty:
        if f < 52 and rank_of(f) == rank:
            return suit_of(f)
    best = None
    for f in kitty:
        if f < 52 and (best is None or rank_of(f) > rank_of(best)):
            best = f
    return None if best is None else suit_of(best)


def _turned_cards(kitty: Sequence[int], rank: int) -> list[int]:
    """The kitty cards turned to find the trump suit: up to the first one of
    the rank, or all of them."""
    for i, f in enumerate(kitty):
        if f < 52 and rank_of(f) == rank:
            return list(kitty[:i + 1])
    return list(kitty)


class LegalActions:
    """The legal actions of a state, computed lazily.

    ``a in legal`` checks one action; iterating yields each legal action once.
    """

    def __init__(self, state: State) -> None:
        self._s = state

    def __contains__(self, action: object) -> bool:
        return isinstance(action, Action) and self._s.action_error(action) is None

    def __iter__(self) -> Iterator[Action]:
        s = self._s
        ph = s.phase
        if ph == DONE:
            return
        seat = s.current_player()
        if ph == DRAW:
            yield Action.pass_()
            if s._defender is not None:
                yield Action.expose(s._defence_cards())
            else:
                yield from s._expose_options(seat)
        elif ph == BURY_PHASE:
            for f in range(54):
                if s._hands[seat][f]:
                    yield Action.bury(f)
        elif ph == CALL_PHASE:
            lo = 0 if s.rules.friend_other else 1
            for f in range(52):
                for o in range(lo, s.rules.packs + 1):
                    a = Action.call(f, o)
                    if s._call_error(a) is None:
                        yield a
        else:
            assert s.play is not None and s.trump is not None     # both set before the play phase
            lead = None if s.play.is_leading else s._trick[1][0]
            yield from play_actions(s.play.hand(seat), lead, s.trump, s.rules)

    def count(self) -> int:
        """How many legal actions there are (enumerates them)."""
        return sum(1 for _ in self)

    def __len__(self) -> int:
        return self.count()


def view_of(s: State, seat: int) -> PlayerView:
    """What ``seat`` may know of ``s``, and nothing more (:meth:`State.view`)."""
    n = s.rules.players
    if not (isinstance(seat, int) and 0 <= seat < n):
        raise InvalidActionError(f"seat {seat!r} is not a seat from 0 to {n - 1}")
    in_play = s.phase in (PLAY_PHASE, DONE)
    if in_play:
        pc = s.play
        assert pc is not None
        sizes = tuple(len(pc.hand(i)) for i in range(n))
        calls_filled = tuple(pc.calls_filled)
        pts = tuple(pc.points)
    else:
        sizes = tuple(sum(h) for h in s._hands)
        calls_filled = ()
        pts = (0,) * n
    own_kitty = s.maker == seat and s.phase != DRAW
    kitty: Optional[Cards] = None
    if own_kitty:
        kitty = Cards(s._buried) if s.phase == BURY_PHASE else s.kitty
    if s.phase == DONE and s.result is not None and s.result.kitty_to_opponents:
        kitty = s.kitty                         # shown when the opponents take it
    return PlayerView(
        seat=seat,
        rules_name=s.rules.name,
        players=n,
        phase=PHASE_NAMES[s.phase],
        # during the draw, who is deciding would reveal a level card in hand
        current_player=(s.current_player() if s.phase != DRAW or s.current_player() == seat else -1),
        hand=s.hand(seat),
        hand_sizes=sizes,
        levels=tuple((lv.level, lv.active) for lv in s.levels),
        starter=s.starter,
        cards_drawn=s._drawn if s.phase == DRAW else n * s.rules.hand_size,
        exposures=tuple((a, k, str(c)) for a, k, c in s.exposures),
        trump=s.trump,
        maker=s.maker,
        kitty=kitty,
        calls=tuple((card_name(f), o) for f, o in s.calls),
        calls_filled=calls_filled,
        tricks=tuple(s._trick_text),
        current_trick=(lambda t: (t[0], tuple(str(p) for p in t[1])))(s.current_trick()),
        failed_throws=tuple((a, str(b), str(c)) for a, b, c in s.failed_throws),
        points=pts,
        voids=tuple(sorted(s.voids)),
        no_sets=tuple(sorted(s.no_sets)),
        rules=s.rules,
        options=(tuple(LegalActions(s)) if s.current_player() == seat and s.phase in (DRAW, CALL_PHASE)
                 else ()),
    )
