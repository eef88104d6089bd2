"""Trump making: the draw and its exposures, the kitty's bury, and the
theft of a buried kitty (``rules.kitty_theft``); one handler per phase."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Optional, cast

from .actions import BURY, EXPOSE, PASS, Action
from .cards import BJ, RJ, Cards, Trump, card_name, format_cards, rank_of, suit_of
from .errors import IllegalActionError, InvalidActionError
from .friend_calls import to_call
from .levels import level_rank, redeal_levels
from .phase_rules import BURY_PHASE, DRAW, MAX_REDEALS, STEAL_PHASE, Exposure, Phase, PhaseRules
from .rules import Rules

if TYPE_CHECKING:
    from .state import State

__all__ = ["shuffled", "start_draw", "exposure_key", "expose_options", "overcalls", "defence_cards", "DrawRules",
           "BuryRules", "theft_rank", "steal_options", "StealRules"]


# ---------------------------------------------------------------------- draw
def shuffled(rules: Rules, rng: random.Random) -> list[int]:
    """A deck of ``rules`` shuffled by ``rng`` (the one shuffle of a deal)."""
    d = rules.deck()
    rng.shuffle(d)
    return d


def start_draw(s: State) -> None:
    """Deal a (fresh) deck and draw to the first decision."""
    n = s.rules.players
    if s._given_decks is not None:
        if len(s._given_decks) <= len(s.decks):
            raise InvalidActionError("record: fewer decks than the deal needs")
        d = list(s._given_decks[len(s.decks)])
        if sorted(d) != sorted(s.rules.deck()):
            raise InvalidActionError("record: a deck does not hold exactly the cards of the deal")
    else:
        d = shuffled(s.rules, s._rng)
    s.decks.append(d)
    s._deck = d
    s._drawn = 0
    s._hands = [[0] * 54 for _ in range(n)]
    s._exp = None
    s._overrides = 0
    s._defender = None       # seat that may defend right now
    s._challenger = None
    s._decider = None
    s.phase = DRAW
    _advance_draw(s)


def _rank_for(s: State, seat: int) -> Optional[int]:
    """The rank a seat may expose, or None."""
    r = s.rules
    lv = s.levels
    if s.fixed_maker is not None and r.predetermined_maker:
        return level_rank(lv[s.fixed_maker].level, r)
    if r.levels == "active_passive" and not lv[seat].active:
        return None
    return level_rank(lv[seat].level, r)


def exposure_key(face: int, count: int) -> tuple[int, int]:
    """How exposures compare: more copies first, then (``rules.joker_bids``)
    a joker above a trump-rank card of as many copies, and the red joker
    above the black. An override must have a greater key.

    >>> from core.cards import BJ, RJ
    >>> exposure_key(3, 2) < exposure_key(BJ, 2) < exposure_key(RJ, 2) < exposure_key(3, 3)
    True
    """
    return count, (face - 51 if face >= 52 else 0)


def expose_options(s: State, seat: int) -> list[Action]:
    """Exposures the drawer may make now: one card of its rank first, then
    overrides with more copies; with ``rules.joker_bids`` ``pairs`` also two
    or more copies of one joker (a no-trump bid) where their key is greater."""
    rank = _rank_for(s, seat)
    if rank is None:
        return []
    h = s._hands[seat]
    exp = s._exp
    out = []
    jokers = s.rules.joker_bids == "pairs"
    if exp is None:
        for suit in range(4):
            f = suit * 13 + rank - 2
            if h[f] >= 1:
                out.append(Action.expose(Cards((f,))))
        if jokers and s.rules.exposure != "bottom_eight":
            out += [Action.expose(Cards((j,) * 2)) for j in (BJ, RJ) if h[j] >= 2]
        return out
    if s.rules.exposure == "bottom_eight" and (s._overrides >= 1 or exp.count != 1):
        return []                                  # one pair override per hand
    return overcalls(s, seat, rank, exp)


def overcalls(s: State, seat: int, rank: int, exp: Exposure) -> list[Action]:
    """The exposures of ``rank`` cards (and with ``rules.joker_bids`` ``pairs``
    of jokers) in ``seat``'s hand that override the standing ``exp`` (a
    greater :func:`exposure_key`: the fewest copies that do), over the
    seat's own exposure only as ``rules.self_overcall`` allows; an
    override in the draw and a kitty theft (``rules.kitty_theft``) alike."""
    own = exp.seat == seat
    if own and s.rules.self_overcall == "none":
        return []                                  # no overriding oneself
    h = s._hands[seat]
    out = []
    need = exp.count + 1
    faces = [suit * 13 + rank - 2 for suit in range(4)]
    if s.rules.joker_bids == "pairs":
        faces += [BJ, RJ]
    standing = exposure_key(exp.face, exp.count)
    for f in faces:
        if own and s.rules.self_overcall == "reinforce" and f != exp.face:
            continue                               # reinforcing: the same face only
        k = need if f < 52 else max(2, exp.count + (exposure_key(f, exp.count) <= standing))
        if k <= min(h[f], s.rules.copies(f)) and (f < 52 or s.rules.exposure != "bottom_eight" or k == 2):
            out.append(Action.expose(Cards((f,) * k)))
    return out


def _advance_draw(s: State) -> None:
    """Draw cards until someone has a decision, then stop; finish the draw at the end."""
    r = s.rules
    n = r.players
    total = n * r.hand_size
    while s._drawn < total:
        seat = (s.starter + s._drawn) % n
        s._hands[seat][s._deck[s._drawn]] += 1
        s._drawn += 1
        if expose_options(s, seat):
            s._decider = seat
            return
    _finish_draw(s)


def _finish_draw(s: State) -> None:
    """The maker and the trump from the exposures (or a redeal), the kitty to the maker."""
    r = s.rules
    n = r.players
    kitty = s._deck[n * r.hand_size:]
    exp = s._exp
    if s.fixed_maker is not None and r.predetermined_maker:
        maker = s.fixed_maker
        rank = level_rank(s.levels[maker].level, r)
        if rank is None:
            trump = Trump(None, None)
        elif exp is not None:
            trump = Trump(rank, None if exp.face >= 52 else suit_of(exp.face))
        else:
            trump = _turn_up(s, maker, kitty, rank)
    elif exp is None and r.no_declaration == "kitty":
        maker = s.starter                          # nobody exposed: the starter makes trump from the kitty
        rank = level_rank(s.levels[maker].level, r)
        trump = Trump(None, None) if rank is None else _turn_up(s, maker, kitty, rank)
    elif exp is not None:
        maker = exp.seat
        if r.maker_by == "first":
            maker = next(seat for seat, kind, _ in s.exposures if kind == "expose")
        if exp.face >= 52:                         # a joker bid: no trump suit, the bidder's rank
            trump = Trump(_rank_for(s, exp.seat), None)
        else:
            trump = Trump(rank_of(exp.face), suit_of(exp.face))
    else:
        # nobody made trump: a fresh deal by the same starter, everyone active
        s.redeals += 1
        if s.redeals > MAX_REDEALS:
            raise IllegalActionError("nobody made trump in 50 deals running")
        s.levels = redeal_levels(s.levels)
        start_draw(s)
        return
    s.trump = trump
    s.maker = maker
    s.burier = maker
    s._decider = None
    for f in kitty:
        s._hands[maker][f] += 1
    s._kitty_left = r.kitty_size
    s._buried = []
    s.phase = BURY_PHASE
    if s._kitty_left == 0:
        to_call(s)


def defence_cards(s: State) -> Cards:
    """The cards a defence must show: the overridden exposure's face, as many as the override."""
    exp = s._exp
    assert exp is not None and s._challenger is not None     # a defence answers an override
    return Cards((exp.face,) * (s._challenger.count))


class DrawRules(PhaseRules):
    """The draw: a drawer with a level card may expose it (or override, or
    defend an overridden exposure); everyone else passes."""

    phase = Phase.DRAW

    def player(self, s: State) -> int:
        """The defender of an overridden exposure, or the drawer with a choice."""
        # a seat decides whenever the draw stops (None only after the redeal limit raised mid-draw)
        return cast(int, s._defender if s._defender is not None else s._decider)

    def error(self, s: State, seat: int, action: Action) -> Optional[str]:
        """Pass, or an exposure this seat may make now."""
        if action.kind == PASS:
            return None
        if action.kind != EXPOSE:
            return "during the draw the only choices are expose and pass"
        if s._defender is not None:
            return None if action.cards == defence_cards(s) else \
                f"a defence must show {format_cards(defence_cards(s))}"
        if action in expose_options(s, seat):
            return None
        return "cannot expose these cards now (rank, count or who may expose)"

    def apply(self, s: State, seat: int, action: Action) -> None:
        """Settle a defence, or take an exposure or a pass; then draw on."""
        if s._defender is not None:
            defender, challenger = s._defender, s._challenger
            assert challenger is not None and s._exp is not None     # set with the defender
            s._defender = None
            s._challenger = None
            if action.kind == EXPOSE:
                s.exposures.append((seat, "defend", action.cards))
                s.exposures.append((challenger.seat, "withdraw", Cards((challenger.face,) * challenger.count)))
                s._exp = Exposure(defender, s._exp.face, challenger.count)
            else:
                s._exp = challenger
            _advance_draw(s)
            return
        if action.kind == PASS:
            _advance_draw(s)
            return
        new = Exposure(seat, action.cards[0], len(action.cards))
        old = s._exp
        s.exposures.append((seat, "expose", action.cards))
        if old is not None:
            s._overrides += 1
            if (s.rules.exposure_defence and old.seat != seat and s._hands[old.seat][old.face] >= new.count
                    and exposure_key(old.face, new.count) >= exposure_key(new.face, new.count)):
                s._defender = old.seat
                s._challenger = new
                return
        s._exp = new
        _advance_draw(s)

    def actions(self, s: State, seat: int) -> Iterator[Action]:
        """Pass first, then the defence or the exposures."""
        yield Action.pass_()
        if s._defender is not None:
            yield Action.expose(defence_cards(s))
        else:
            yield from expose_options(s, seat)


def _turn_up(s: State, maker: int, kitty: Sequence[int], rank: int) -> Trump:
    """The trump of rank ``rank`` whose suit the kitty names (``rules.kitty_suit``);
    the turned cards are seen by all, and the maker then takes them with the kitty."""
    if s.rules.kitty_suit == "first_card":
        turned = _first_card(kitty)
        suit = suit_of(turned[-1]) if turned and turned[-1] < 52 else None
    elif s.rules.kitty_suit == "top_card":
        turned = list(kitty[:1])                   # the top card alone: a joker names no suit
        suit = suit_of(turned[0]) if turned and turned[0] < 52 else None
    else:
        turned = _turned_cards(kitty, rank)
        suit = _turn_up_suit(kitty, rank)
    s.exposures.append((maker, "turned", Cards(turned)))
    return Trump(rank, suit)


def _first_card(kitty: Sequence[int]) -> list[int]:
    """The kitty cards turned up to the first one that is not a joker (all of them if none is)."""
    for i, f in enumerate(kitty):
        if f < 52:
            return list(kitty[:i + 1])
    return list(kitty)


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


# ---------------------------------------------------------------------- bury
class BuryRules(PhaseRules):
    """The seat holding the kitty (the maker, or one that took it,
    ``rules.kitty_theft``) buries the kitty's size of cards, one at a time."""

    phase = Phase.BURY

    def player(self, s: State) -> int:
        """The burier: the maker, or the seat that took the kitty."""
        assert s.burier is not None            # the draw made a maker before the bury
        return s.burier

    def error(self, s: State, seat: int, action: Action) -> Optional[str]:
        """A card of the burier's hand."""
        if action.kind != BURY:
            return "the kitty must be buried now"
        f = action.cards[0]
        return None if s._hands[seat][f] > 0 else f"{card_name(f)} is not in the burier's hand"

    def apply(self, s: State, seat: int, action: Action) -> None:
        """Bury the card; with the last one the kitty is set, and the seats
        may overcall to take it (``rules.kitty_theft``) or the calls begin."""
        f = action.cards[0]
        s._hands[seat][f] -= 1
        s._buried.append(f)
        s._kitty_left -= 1
        if s._kitty_left == 0:
            s.kitty = Cards(s._buried)
            _offer_kitty(s, seat)

    def actions(self, s: State, seat: int) -> Iterator[Action]:
        """Each face in the burier's hand."""
        for f in range(54):
            if s._hands[seat][f]:
                yield Action.bury(f)


# --------------------------------------------------------------------- steal
def theft_rank(s: State) -> Optional[int]:
    """The rank an overcall for the buried kitty shows, or None when the
    kitty cannot be taken: no ``rules.kitty_theft``, no exposure standing
    (the trump came from the kitty, or the maker was set with none), or no
    trump rank (a Joker level)."""
    if not s.rules.kitty_theft or s._exp is None or s.trump is None:
        return None
    return s.trump.rank


def steal_options(s: State, seat: int) -> list[Action]:
    """The overcalls with which ``seat`` may take the buried kitty now: not
    the burier's own, only from a seat that may expose in the draw
    (``levels`` ``active_passive``: an active one), of the trump rank."""
    rank = theft_rank(s)
    if rank is None or seat == s.burier or _rank_for(s, seat) is None:
        return []
    assert s._exp is not None                      # theft_rank says an exposure stands
    return overcalls(s, seat, rank, s._exp)


def _offer_kitty(s: State, after: int) -> None:
    """Offer the buried kitty to the seats after ``after`` in turn, up to the
    burier: the first one with an overcall decides; with none, the calls."""
    n = s.rules.players
    assert s.burier is not None
    seat = (after + 1) % n if theft_rank(s) is not None else s.burier     # no theft: nobody is asked
    while seat != s.burier:
        if steal_options(s, seat):
            s._offer = seat
            s.phase = STEAL_PHASE
            return
        seat = (seat + 1) % n
    s._offer = None
    to_call(s)


class StealRules(PhaseRules):
    """A buried kitty offered around (``rules.kitty_theft``): the seat asked
    passes or overcalls; an overcall names the trump suit and takes the kitty."""

    phase = Phase.STEAL

    def player(self, s: State) -> int:
        """The seat offered the kitty now."""
        assert s._offer is not None                # set whenever the phase is entered
        return s._offer

    def error(self, s: State, seat: int, action: Action) -> Optional[str]:
        """Pass, or an overcall of the standing exposure."""
        if action.kind == PASS:
            return None
        if action.kind != EXPOSE:
            return "the kitty is offered: the only choices are expose and pass"
        if action in steal_options(s, seat):
            return None
        return "cannot overcall with these cards (rank, count or who may overcall)"

    def apply(self, s: State, seat: int, action: Action) -> None:
        """A pass offers the kitty on; an overcall stands as the exposure,
        sets the trump suit (none for jokers; the rank stays) and gives the
        seat the kitty to bury again."""
        if action.kind == PASS:
            _offer_kitty(s, seat)
            return
        assert s.trump is not None                 # a kitty is offered only under a trump
        f, k = action.cards[0], len(action.cards)
        s.exposures.append((seat, "steal", action.cards))
        s._exp = Exposure(seat, f, k)
        s.trump = Trump(s.trump.rank, None if f >= 52 else suit_of(f))
        s.burier = seat
        s._offer = None
        for g in s._buried:
            s._hands[seat][g] += 1
        s._buried = []
        s.kitty = Cards()
        s._kitty_left = s.rules.kitty_size
        s.phase = BURY_PHASE

    def actions(self, s: State, seat: int) -> Iterator[Action]:
        """Pass first, then the overcalls."""
        yield Action.pass_()
        yield from steal_options(s, seat)
