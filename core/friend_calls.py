"""The call phase's handler: the maker calls its friends (``rules.friend_calls``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Optional

from . import kernel
from .actions import CALL, Action
from .cards import Cards, Trump, card_name, points, rank_of
from .phase_rules import CALL_PHASE, Phase, PhaseRules
from .play_phase import to_play

if TYPE_CHECKING:
    from .state import State

__all__ = ["to_call", "call_error", "CallRules"]


def to_call(s: State) -> None:
    """The kitty is settled: the calls begin, or the play where nobody calls."""
    s.kitty = Cards(s._buried)
    s.phase = CALL_PHASE
    if s.rules.friend_calls == 0:
        to_play(s)


# ---------------------------------------------------------------------- call
def call_error(s: State, action: Action) -> Optional[str]:
    """Why a friend call is refused: a trump (unless ``rules.call_trumps``), a
    point card or the suit's highest card where the rules forbid them, no
    'other' call, an ordinal past the packs or the face's copies, a repeat."""
    f = action.cards[0]
    return _face_error(s, f) or _ordinal_error(s, f, action.ordinal)


def _face_error(s: State, f: int) -> Optional[str]:
    """Why no call of face ``f`` is allowed at all (call_error's rules on the card)."""
    ctx = kernel.context(s.trump, s.rules.tractor_past_ace)
    if not s.rules.call_trumps and (f >= 52 or ctx.is_trump(f)):
        return f"{card_name(f)} is a trump: only non-trump cards can be called"
    if not s.rules.call_points and points((f,)):
        return f"{card_name(f)} is a point card: these rules call no point cards"
    if not s.rules.call_highest and rank_of(f) == _highest_rank(s.trump):
        return f"{card_name(f)} is the highest card of its suit: these rules do not call it"
    return None


def _ordinal_error(s: State, f: int, ordinal: int) -> Optional[str]:
    """Why a call of an allowed face ``f`` with ``ordinal`` is refused (call_error's rules on the ordinal)."""
    if ordinal == 0 and not s.rules.friend_other:
        return "these rules have no 'other' call: give an ordinal"
    if ordinal > s.rules.packs:
        return f"ordinal {ordinal} is more than the {s.rules.packs} packs"
    copies = s.rules.copies(f)
    if ordinal > copies:
        return (f"ordinal {ordinal} is more than the {copies} {card_name(f)} in the deal" if copies else
                f"the deal has no {card_name(f)}")
    if (f, ordinal) in s.calls:
        return "that card is already called"
    return None


def _highest_rank(trump: Optional[Trump]) -> int:
    """The highest rank a non-trump suit holds: A, or K when A is the trump rank."""
    return 13 if trump is not None and trump.rank == 14 else 14


class CallRules(PhaseRules):
    """The maker calls the friend cards ("the first ace of clubs")."""

    phase = Phase.CALL

    def player(self, s: State) -> int:
        """The maker."""
        assert s.maker is not None
        return s.maker

    def error(self, s: State, seat: int, action: Action) -> Optional[str]:
        """A call of a non-trump card with an allowed ordinal, not made before."""
        if action.kind != CALL:
            return "the maker must call friend cards now"
        return call_error(s, action)

    def apply(self, s: State, seat: int, action: Action) -> None:
        """Note the call; the play begins with the last one."""
        s.calls.append((action.cards[0], action.ordinal))
        if len(s.calls) == s.rules.friend_calls:
            to_play(s)

    def actions(self, s: State, seat: int) -> Iterator[Action]:
        """Each allowed (card, ordinal) call."""
        lo = 0 if s.rules.friend_other else 1
        for f in range(54 if s.rules.call_trumps else 52):
            if _face_error(s, f) is None:
                for o in range(lo, s.rules.packs + 1):
                    if _ordinal_error(s, f, o) is None:
                        yield Action.call(f, o)
