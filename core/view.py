"""What one seat may know: :class:`PlayerView`, built by :meth:`core.state.State.view`,
and what a bot computes from a view alone (its legal actions, a random legal
action, the play phase rebuilt with sampled hands).

The play helpers a view shares with the phase handlers (``play_options``,
``play_actions``, ``no_set_width``, ``holds_set``) live in :mod:`core.play`
and are importable from here too.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, cast

from . import kernel
from .actions import Action
from .cards import Cards, Trump, card_name, parse_card, parse_cards
from .dealing import play_with_hands
from .errors import IllegalActionError, InvalidActionError
from .phases import BURY_PHASE, CALL_PHASE, DONE, DRAW, PHASE_NAMES, PLAY_PHASE, STEAL_PHASE
from .play import PlayCore, holds_set, no_set_width, play_actions, play_options
from .rules import Rules

if TYPE_CHECKING:
    from .state import State

__all__ = ["PlayerView", "calls_seen", "play_actions", "play_options", "play_from_view", "random_legal", "no_set_width", "holds_set", "view_of"]


def play_from_view(view: PlayerView, hands: list[Cards]) -> PlayCore:
    """The play phase of ``view`` rebuilt with ``hands`` as everyone's holdings
    (the viewer's own and sampled ones for the others): the base of a
    determinized search."""
    global _last_resume
    last, base = _last_resume              # one read of one tuple: safe beside other threads
    if last is view:
        return play_with_hands(base, hands)
    r = view.rules
    calls, filled, seen, points, penalties, tricks, leader, plays, played = _resume_args(view)
    pc = PlayCore.resume(r, view.trump, view.maker, hands, calls, filled, seen, points, penalties, tricks,
                         leader, plays, played)
    _last_resume = (view, pc.clone())
    return pc


#: the view :func:`play_from_view` last rebuilt, and its play rebuilt (a search
#: rebuilds the play of one view for every sampled world: the later ones are a
#: copy of it holding other hands, :func:`core.dealing.play_with_hands`)
_last_resume: tuple[Any, Any] = (None, None)


def _resume_args(view: PlayerView) -> tuple[Any, ...]:
    """What :meth:`PlayCore.resume` needs of ``view`` besides the hands."""
    r = view.rules
    calls = tuple((parse_card(name), o) for name, o in view.calls)
    penalties = [0] * r.players
    for seat, attempt, forced in view.failed_throws:
        penalties[seat] += kernel.throw_penalty(attempt, forced, r)
    leader, plays = view.current_trick
    if leader < 0:
        leader = view.current_player
    return (calls, tuple(view.calls_filled) or (None,) * len(calls), tuple(calls_seen(view)),
            tuple(view.points), tuple(penalties), len(view.tricks), leader, tuple(parse_cards(p) for p in plays),
            view.played_before if r.throw_check == "safe" else ())


#: the view :func:`calls_seen` last read and its answer (a search rebuilds
#: one view for every world, and a bot asks again within one decision)
_last_seen: tuple[Any, tuple[int, ...]] = (None, ())


def calls_seen(view: PlayerView) -> list[int]:
    """The copies of each called face that have counted toward its call so
    far (every copy played, or with ``rules.call_by_side`` ``skipped`` those
    played off the maker's side): the play engine replays the view's tricks,
    once per view (views are frozen; the last one's answer is kept).

    >>> from core.rules import Rules
    >>> from core.state import State
    >>> import random
    >>> s, rng = State(Rules.preset("pagat", players=5), seed=3), random.Random(3)
    >>> while len(s.tricks) < 8:
    ...     s.apply(s.random_legal_action(rng))
    >>> v = s.view(0)
    >>> calls_seen(v) == [sum(p.count(f) for _, ps in s.tricks for p in ps) for f, _ in s.calls]
    True
    """
    global _last_seen
    last, known = _last_seen               # one read of one tuple: safe beside other threads
    if last is view:
        return list(known)
    if view.maker is None or view.trump is None or not view.calls:
        return []
    n = view.rules.players
    plays = [((leader + j) % n, p) for leader, ps in view.tricks for j, p in enumerate(ps)]
    leader, current = view.current_trick
    plays += [((leader + j) % n, p) for j, p in enumerate(current)]
    calls = [(parse_card(name), o) for name, o in view.calls]
    _filled, seen = PlayCore.calls_after(view.rules, view.trump, view.maker, calls, plays)
    _last_seen = (view, tuple(seen))
    return list(seen)


def random_legal(phase: str, hand: Cards, lead: Optional[Cards], trump: Optional[Trump], rules: Rules,
                 options: Callable[[], Sequence[Action]], rng: random.Random, played: Sequence[int] = ()) -> Action:
    """The one distribution of "a random legal action", for the ``random`` bot,
    :meth:`State.random_legal_action` and a seat played for a broken bot.

    Exposing, overcalling for the kitty and calling: uniform over ``options()``
    (the listed legal actions).
    Burying: a card of ``hand``, each copy equally likely. Following ``lead``:
    :func:`core.kernel.random_follow`; leading: :func:`core.kernel.random_lead`
    (a unit around a random card, now and then a throw of two units, kept when
    the lead rules allow it; ``played``: the cards of the earlier tricks), the
    plays the engine's random playouts make.

    >>> from core.rules import Rules
    >>> from core.state import PLAY_PHASE, State
    >>> s = State(Rules.preset("pagat", players=5), seed=3)
    >>> while s.phase != PLAY_PHASE:
    ...     s.apply(s.random_legal_action(random.Random(len(s.history))))
    >>> seat = s.current_player()
    >>> s.random_legal_action(random.Random(9)) == s.view(seat).random_action(random.Random(9))
    True
    """
    if phase in ("draw", "steal", "call"):
        return rng.choice(options())
    if phase == "bury":
        return Action.bury(rng.choice(list(hand)))
    if lead is not None:
        return Action.play(kernel.random_follow(hand, lead, trump, rules, rng))
    return Action.play(kernel.random_lead(hand, trump, rules, rng, played))


@dataclass(frozen=True)
class PlayerView:
    """Everything one seat may know, and nothing more.

    ``str(view)`` is a stable key: two views print the same exactly when the
    seat's knowledge is the same.
    """

    seat: int
    rules_name: str
    players: int
    phase: str
    current_player: int
    hand: Cards
    hand_sizes: tuple[int, ...]
    levels: tuple[tuple[int, bool], ...]                  # (level, active) by seat
    starter: int
    cards_drawn: int
    exposures: tuple[tuple[int, str, str], ...]           # (seat, kind, cards)
    trump: Optional[Trump]
    maker: Optional[int]
    kitty: Optional[Cards]
    calls: tuple[tuple[str, int], ...]                    # (card name, ordinal)
    calls_filled: tuple[Optional[int], ...]
    tricks: tuple[tuple[int, tuple[str, ...]], ...]       # (leader, the plays as text)
    current_trick: tuple[int, tuple[str, ...]]            # (leader or -1, the plays so far as text)
    failed_throws: tuple[tuple[int, str, str], ...]       # (seat, attempt, cards kept)
    throw_stoppers: tuple[int, ...]                       # per failed throw, who stopped it (-1: hidden)
    points: tuple[int, ...]
    voids: tuple[tuple[int, int], ...]                    # (seat, suit)
    no_sets: tuple[tuple[int, int, int], ...]             # (seat, suit, k)
    # every view is built with its rules; None only in a view made by hand without them (Sampler rejects it)
    rules: Rules = field(default=None, compare=False)  # type: ignore[assignment]
    options: tuple[Action, ...] = ()

    @property
    def to_move(self) -> bool:
        """True when this seat decides now."""
        return self.current_player == self.seat

    @property
    def known_side(self) -> frozenset[int]:
        """The seats this view knows to be on the maker's side: the maker, its
        fixed partners (:meth:`Rules.first_side <core.rules.Rules.first_side>`)
        and the friends revealed so far (empty before there is a maker)."""
        if self.maker is None:
            return frozenset()
        return self.rules.first_side(self.maker) | {s for s in self.calls_filled if s is not None}

    @property
    def burier(self) -> Optional[int]:
        """The seat whose buried cards are the kitty (or that is burying them):
        the seat of the last ``steal`` exposure (``rules.kitty_theft``), else
        the maker."""
        for seat, kind, _cards in reversed(self.exposures):
            if kind == "steal":
                return seat
        return self.maker

    @property
    def lead(self) -> Optional[Cards]:
        """The current trick's lead, if a trick is under way."""
        if self.current_trick[1]:
            return Cards.from_str(self.current_trick[1][0])
        return None

    @property
    def played_before(self) -> Cards:
        """The cards played in the finished tricks (what every seat has seen
        played before the current trick)."""
        return Cards([f for _, ps in self.tricks for p in ps for f in Cards.from_str(p)])

    def legal_actions(self) -> Iterator[Action]:
        """The seat's legal actions now (lazily; from what the view holds)."""
        if not self.to_move:
            return
        if self.phase in ("draw", "steal", "call"):
            yield from self.options
        elif self.phase == "bury":
            for f in sorted(set(self.hand)):
                yield Action.bury(f)
        elif self.phase == "play":
            # a view's trump is set in the play phase; a made-up view's None fails in the kernel as ever
            yield from play_actions(self.hand, self.lead, cast(Trump, self.trump), self.rules,
                                    self.played_before if self.rules.throw_check == "safe" else ())

    def random_action(self, rng: random.Random) -> Action:
        """A random legal action of this seat (no listing in the play phase)."""
        if not self.to_move:
            raise IllegalActionError(f"seat {self.seat} is not to move")
        if self.phase in ("draw", "steal", "call") and not self.options:
            raise IllegalActionError(f"seat {self.seat} has no options listed in this view")
        return random_legal(self.phase, self.hand, self.lead, self.trump, self.rules, lambda: self.options, rng,
                            self.played_before if self.rules.throw_check == "safe" else ())

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of the view."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__ if k not in ("rules", "options")}
        d["options"] = [str(a) for a in self.options]
        d["hand"] = str(self.hand)
        d["kitty"] = None if self.kitty is None else str(self.kitty)
        d["trump"] = None if self.trump is None else list(self.trump)
        return d

    def __str__(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))


def shown_stoppers(stoppers: Sequence[int], rules: Rules) -> tuple[int, ...]:
    """What every view shows of who stopped each failed throw: the seats under
    ``throw_stopper`` ``shown``, -1 for each under ``hidden`` (the one owner)."""
    return tuple(stoppers) if rules.throw_stopper == "shown" else (-1,) * len(stoppers)


def view_of(s: State, seat: int) -> PlayerView:
    """What ``seat`` may know of ``s``, and nothing more (:meth:`State.view`).

    >>> from core import Rules, State
    >>> s = State(Rules.preset("pagat", players=5), seed=2)
    >>> v = view_of(s, 1)
    >>> v.hand == s.hand(1) and v.phase == "draw" and v.kitty is None
    True
    """
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
    own_kitty = s.burier == seat and s.phase != DRAW
    kitty: Optional[Cards] = None
    if own_kitty:                               # the burier alone knows the kitty
        kitty = Cards(s._buried) if s.phase == BURY_PHASE else s.kitty
    if s.phase == DONE and s.result is not None and s.result.kitty_to_opponents:
        kitty = s.kitty                         # shown when the opponents take it
    return PlayerView(
        seat=seat,
        rules_name=s.rules.name,
        players=n,
        phase=PHASE_NAMES[s.phase],
        # during the draw (and a kitty's offer), who is deciding would reveal cards in hand
        current_player=(s.current_player() if s.phase not in (DRAW, STEAL_PHASE) or s.current_player() == seat
                        else -1),
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
        throw_stoppers=shown_stoppers(s.throw_stoppers, s.rules),
        points=pts,
        voids=tuple(sorted(s.voids)),
        no_sets=tuple(sorted(s.no_sets)),
        rules=s.rules,
        options=(tuple(s.legal_actions())
                 if s.current_player() == seat and s.phase in (DRAW, STEAL_PHASE, CALL_PHASE) else ()),
    )
