"""The play phase's handler (tricks, by the play engine ``core._play``),
the step into it, and the scoring of its end; the done phase."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Optional

from . import kernel
from .actions import KIND_NAMES, PLAY, Action
from .cards import Cards, Trump, format_cards, points, rank_of
from .phase_rules import DONE, PLAY_PHASE, DealResult, Phase, PhaseRules
from .play import PlayCore, holds_set, no_set_width, play_actions, play_options
from .rules import Rules
from .scoring import DealScore, score_deal

if TYPE_CHECKING:
    from .state import State

__all__ = ["to_play", "PlayRules", "DoneRules"]


def to_play(s: State) -> None:
    """The play begins: the play engine takes the hands; a deal with no cards left ends."""
    hands = [Cards.from_counts(h) for h in s._hands]
    s.play = PlayCore.start(s.rules, s.trump, s.maker, hands, s.calls)
    s.phase = PLAY_PHASE
    s._trick = (-1, [])
    if s.play.done:
        _finish(s)


# ---------------------------------------------------------------------- play
def _infer(s: State, seat: int, lead: Cards, played: Cards) -> None:
    """What a follow shows everyone: a void in the led suit (not from a bomb that ``bombs`` lets a seat
    holding the suit play), or no set of the lead's width."""
    if s.rules.rainbow and kernel.make_lead(lead, s.trump, s.rules).is_rainbow:
        return  # a rainbow has no suit: its follows show no void and no set (docs/kernel.md, Rainbows)
    ctx = kernel.context(s.trump, s.rules.tractor_past_ace)
    e = ctx.effective_suit(lead[0])
    in_suit = sum(1 for f in played if ctx.effective_suit(f) == e)
    if in_suit < len(lead):
        if not kernel.free_bomb(lead, played, s.trump, s.rules):
            s.voids.add((seat, e))
        return
    k = no_set_width(lead, s.trump, s.rules)
    if k and not holds_set(played, k):
        s.no_sets.add((seat, e, k))


def _finish(s: State) -> None:
    """Score the finished play: sides, the kitty (and under ``failed_throw`` ``end_deal`` the
    cards left in hands: ``PlayCore.opponents_points``), game points."""
    pc = s.play
    assert pc is not None and s.maker is not None
    r = s.rules
    side = pc.maker_side
    kitty_pts = points(s.kitty)
    opp, mult, to_opp = pc.opponents_points(r, kitty_pts)
    sc: DealScore = score_deal(r, opp, len(side))
    s._result = DealResult(s.maker, side, opp, kitty_pts, mult, to_opp, sc.winner, sc.game_points, sc.next_side,
                           _jack_last(s, side))
    s.phase = DONE


def _jack_last(s: State, side: frozenset[int]) -> bool:
    """Whether an opponent won the last trick with a single jack at trump rank J (never when a
    failed throw ended the play: the deal's last trick was not its last)."""
    assert s.play is not None and s.trump is not None
    if s.trump.rank != 11 or not s.tricks or s.play.ended:
        return False
    winner = s.play.last_trick[0]
    leader, plays = s.tricks[-1]
    won_with = plays[(winner - leader) % s.rules.players]
    return winner not in side and len(won_with) == 1 and rank_of(won_with[0]) == 11


class PlayRules(PhaseRules):
    """Tricks: the play engine (``core._play``) says who plays and what may be played."""

    phase = Phase.PLAY

    def player(self, s: State) -> int:
        """The seat to lead or follow."""
        assert s.play is not None
        seat: int = s.play.current_player
        return seat

    def error(self, s: State, seat: int, action: Action) -> Optional[str]:
        """A play the engine accepts (a follow's reason in :func:`core.kernel.follow_error`'s words)."""
        if action.kind != PLAY:
            return "play cards now"
        assert s.play is not None
        why: Optional[str] = s.play.play_error(action.cards)
        return why

    def apply(self, s: State, seat: int, action: Action) -> None:
        """Play the cards (a failed throw is replaced by its kept unit, or under
        ``failed_throw`` ``end_deal`` ends the play), note what a follow shows,
        close the trick, score the end."""
        pc = s.play
        assert pc is not None
        leading = pc.is_leading
        if leading:
            s._trick = (seat, [])
        lead = None if leading else s._trick[1][0]
        seat, played, attempt = pc.play(action.cards, check=False)
        if attempt is not None:
            s.failed_throws.append((seat, attempt, played))
            s.throw_stoppers.append(pc.last_stopper)
        if pc.ended:                    # failed_throw end_deal: the throw ended the play, nothing was led
            s._trick = (-1, [])
            _finish(s)
            return
        s._trick[1].append(played)
        if lead is not None:
            _infer(s, seat, lead, played)
        if pc.is_leading or pc.done:
            s.tricks.append((s._trick[0], list(s._trick[1])))
            s._trick_text.append((s._trick[0], tuple(str(p) for p in s._trick[1])))
            s._trick = (-1, [])
        if pc.done:
            _finish(s)

    def _position(self, s: State, seat: int) -> tuple[Cards, Optional[Cards], Trump, Rules, Cards]:
        """The seat's hand, the lead to follow (None: it leads), the trump, the
        rules and, for a lead under ``throw_check`` ``safe``, the cards played so far."""
        assert s.play is not None and s.trump is not None     # both set before the play phase
        lead = None if s.play.is_leading else s._trick[1][0]
        played = s.play.played() if lead is None and s.rules.throw_check == "safe" else Cards()
        return s.play.hand(seat), lead, s.trump, s.rules, played

    def actions(self, s: State, seat: int) -> Iterator[Action]:
        """Every legal lead or follow."""
        yield from play_actions(*self._position(s, seat))

    def texts(self, s: State, seat: int) -> Iterator[str]:
        """Every legal lead or follow in the notation, written straight from
        the faces (a referee lists them for every decision of a bot that asks)."""
        verb = KIND_NAMES[PLAY] + " "
        for faces in play_options(*self._position(s, seat)):
            yield verb + format_cards(faces)


class DoneRules(PhaseRules):
    """The deal is over."""

    phase = Phase.DONE
