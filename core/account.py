"""A recorded deal or match told in words, line by line: who drew and exposed
what, the trump, the friend calls and who answered them, every trick with its
winner and points, failed throws, the kitty, the result and the levels. The
record is replayed (every action checked) as it is told.

>>> import random
>>> from core.records import deal_record
>>> from core.rules import Rules
>>> from core.state import State
>>> s, rng = State(Rules.preset("pagat", players=5), seed=4), random.Random(4)
>>> while not s.is_terminal(): s.apply(s.random_legal_action(rng))
>>> lines = account(deal_record(s))
>>> lines[0].startswith("deal seed 4:"), any(line.startswith("result:") for line in lines)
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Optional

from .cards import Trump, card_name, format_cards, points
from .errors import InvalidActionError
from .levels import PlayerLevel, apply_deal, format_level, level_name
from .records import Observer, record_error, replay_deal, replay_match
from .rules import Rules
from .scoring import MAKER
from .state import BURY_PHASE, DRAW, PLAY_PHASE, STEAL_PHASE, State

__all__ = ["account", "deal_account", "match_account", "DealAccount"]

_SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def _call_text(face: int, ordinal: int) -> str:
    return f"the other {card_name(face)}" if ordinal == 0 else f"the {_ordinal(ordinal)} {card_name(face)}"


def _trump_text(trump: Trump) -> str:
    if trump.rank is None:
        return "jokers only (no trump rank, no trump suit)"
    rank = level_name(trump.rank)
    if trump.suit is None:
        return f"rank {rank}, no trump suit"
    return f"rank {rank}, suit {_SUIT_NAMES[trump.suit]} ({rank}{'CDHS'[trump.suit]})"


def _level_text(rules: Rules, lv: PlayerLevel) -> str:
    return format_level(lv) if rules.levels == "active_passive" else level_name(lv.level)


def _seats(seats: Iterable[int]) -> str:
    return " ".join(str(s) for s in sorted(seats)) or "none"


class DealAccount:
    """Builds the readable account of one deal while it is replayed: call
    :meth:`sync` after every action (and once at the start); ``out`` holds
    the lines told so far, :meth:`finish` adds the result."""

    def __init__(self, state: State, levels: Sequence[PlayerLevel], names: Optional[Sequence[str]] = None,
                 hands: bool = False) -> None:
        r = state.rules
        self.out: list[str] = []
        self.state = state
        self.hands = hands
        self.levels = list(levels)
        self.exposures = 0
        self.redeals = 0
        self.told_trump = False
        self.told_bury = False
        self.told_calls = False
        self.tricks = 0
        self.throws = 0
        self.filled: list[Optional[int]] = []
        self.penalties = [0] * r.players
        self.notes: list[str] = []
        dealt = "decks built by hand" if state.seed is None else f"deal seed {state.seed}"
        self.out.append(f"{dealt}: {r.name} rules, {r.players} players, {r.packs} packs "
                        f"with {r.red_jokers} red and {r.black_jokers} black jokers, "
                        f"{r.hand_size} cards each, kitty of {r.kitty_size}")
        if names:
            self.out.append("seats: " + "  ".join(f"{s}:{name}" for s, name in enumerate(names)))
        self.out.append("levels: " + "  ".join(f"{s}:{_level_text(r, lv)}" for s, lv in enumerate(levels)))
        if state.fixed_maker is not None and r.predetermined_maker:
            self.out.append(f"seat {state.fixed_maker} is the trump maker (predetermined)")
        self.out.append(f"seat {state.starter} draws first")

    def sync(self, s: State) -> None:
        """Tell what happened since the last call."""
        out = self.out
        n = s.rules.players
        for seat, kind, cards in s.exposures[self.exposures:]:
            if kind == "expose":
                verb = "exposes" if self.exposures == 0 else "overrides with"
                out.append(f"seat {seat} {verb} {format_cards(cards)}")
            elif kind == "defend":
                out.append(f"seat {seat} defends with {format_cards(cards)}")
            elif kind == "turned":
                out.append(f"kitty cards turned up for the trump suit: {format_cards(cards)}")
            elif kind == "steal":
                out.append(f"seat {seat} overcalls with {format_cards(cards)} and takes the buried kitty")
            else:
                out.append(f"seat {seat} takes back {format_cards(cards)}")
            self.exposures += 1
        while self.redeals < s.redeals:
            self.redeals += 1
            out.append(f"nobody made trump: redeal {self.redeals} by the same starter, everyone active")
        if s.phase == DRAW:
            return
        if not self.told_trump:
            self.told_trump = True
            how = "is the maker (predetermined)" if s.fixed_maker is not None and \
                s.rules.predetermined_maker else "made trump"
            assert s.trump is not None          # made at the end of the draw
            out.append(f"trump: {_trump_text(s.trump)}; seat {s.maker} {how}")
            if self.hands:
                out.append("hands after the draw" + (" (the maker's with the kitty)" if s.rules.kitty_size else "")
                           + ":")
                out.extend(f"  seat {i}: {format_cards(s.hand(i))}" for i in range(n))
        if s.phase in (BURY_PHASE, STEAL_PHASE):
            return
        if not self.told_bury and s.rules.kitty_size:
            self.told_bury = True
            if s.burier != s.maker:
                assert s.trump is not None
                out.append(f"trump after the kitty was taken: {_trump_text(s.trump)}")
            if self.hands:
                out.append(f"seat {s.burier} takes the kitty and buries {format_cards(s.kitty)}")
            else:
                out.append(f"seat {s.burier} takes the kitty and buries {s.rules.kitty_size} cards (hidden)")
        if s.phase < PLAY_PHASE:
            return
        if not self.told_calls:
            self.told_calls = True
            if s.calls:
                out.append(f"seat {s.maker} calls " + ", ".join(_call_text(f, o) for f, o in s.calls))
            else:
                out.append(f"no friend calls: seat {s.maker} plays alone")
            self.filled = [None] * len(s.calls)
        pc = s.play
        assert pc is not None                   # the play phase or later
        pens = pc.penalties
        for seat, attempt, played in s.failed_throws[self.throws:]:
            self.throws += 1
            pen = pens[seat] - self.penalties[seat]
            if pc.ended and self.throws == len(s.failed_throws):
                self.notes.append(f"  seat {seat} tried to throw {format_cards(attempt)}: it fails "
                                  f"({format_cards(played)} could be beaten) and ends the play (penalty {pen})")
            else:
                self.notes.append(f"  seat {seat} tried to throw {format_cards(attempt)}: it fails, "
                                  f"{format_cards(played)} is led instead (penalty {pen})")
        self.penalties = list(pens)
        for i, who in enumerate(pc.calls_filled):
            if who is not None and self.filled[i] is None:
                self.filled[i] = who
                what = _call_text(*s.calls[i])
                if who == s.maker:
                    self.notes.append(f"  seat {who} (the maker) plays {what}: no friend joins")
                elif who in self.filled[:i] + self.filled[i + 1:]:
                    self.notes.append(f"  seat {who} plays {what}: already a friend, the side stays short")
                else:
                    self.notes.append(f"  seat {who} plays {what}: revealed as the maker's friend")
        while self.tricks < len(s.tricks):
            leader, plays = s.tricks[self.tricks]
            self.tricks += 1
            last = self.tricks == len(s.tricks) and pc.done and not pc.ended
            winner = pc.last_trick[0] if last else pc.leader
            body = "  ".join(f"{(leader + j) % n}:{format_cards(p)}" for j, p in enumerate(plays))
            pts = sum(points(p) for p in plays)
            out.append(f"trick {self.tricks:2d}  {body}  -> seat {winner} +{pts}")
            out.extend(self.notes)
            self.notes = []
        if pc.ended:                    # a failed throw that ended the play closes no trick
            out.extend(self.notes)
            self.notes = []

    def finish(self) -> list[str]:
        """Tell the result; returns the whole account of the deal."""
        out = self.out
        s = self.state
        r = s.rules
        res = s.result
        assert res is not None and s.play is not None     # a replay ends with the deal's result
        n = r.players
        side = sorted(res.maker_side)
        opp = [i for i in range(n) if i not in res.maker_side]
        short = r.side_size - len(side)
        note = f" ({short} short of a full side)" if short > 0 else ""
        out.append(f"maker side: {_seats(side)}{note}; opponents: {_seats(opp)}")
        if s.play.ended:
            to = "the opponents" if res.kitty_to_opponents else "the maker side"
            out.append(f"the play stops: {s.play.left_points} points left in hands go to {to}")
            if res.kitty_to_opponents:
                out.append(f"the opponents take the kitty: {format_cards(s.kitty)} "
                           f"({res.kitty_points} points x{res.kitty_multiplier} = "
                           f"{res.kitty_points * res.kitty_multiplier})")
            else:
                out.append("the maker side keeps the kitty")
        elif res.kitty_to_opponents:
            out.append(f"the opponents win the last trick and the kitty: {format_cards(s.kitty)} "
                       f"({res.kitty_points} points x{res.kitty_multiplier} = "
                       f"{res.kitty_points * res.kitty_multiplier})")
        elif self.hands:
            out.append(f"the maker side wins the last trick and keeps the kitty: {format_cards(s.kitty)}")
        else:
            out.append("the maker side wins the last trick and keeps the kitty (hidden)")
        pens = s.play.penalties
        if any(pens):
            out.append("throw penalties: " + "  ".join(f"{i}:{p}" for i, p in enumerate(pens) if p))
        out.append(f"opponents' points: {res.opponents_points} of {r.total_points}")
        if res.winner is None:
            out.append("result: no score; the opponents take the next deal")
        else:
            who = "the maker side wins" if res.winner == MAKER else "the opponents win"
            pl = "s" if res.game_points != 1 else ""
            out.append(f"result: {who} {res.game_points} game point{pl} (seats {_seats(s.winners())})")
        if r.jack_reset and res.jack_last:
            out.append(f"jack: the last trick went to the opponents with a single jack; seats "
                       f"{_seats(res.maker_side)} go back to 2")
        after = apply_deal(r, s.levels, s.winners(), res.game_points, res.maker_side, jack=res.jack_last,
                           maker=res.maker)
        changes = []
        for i in range(n):
            a, b = _level_text(r, self.levels[i]), _level_text(r, after[i])
            changes.append(f"{i}:{a}" if a == b else f"{i}:{a} -> {b}")
        out.append("levels: " + "  ".join(changes))
        return out


def _observer(records: Sequence[dict[str, Any]], accounts: list[DealAccount], hands: bool) -> Observer:
    """An observer that tells each deal of ``records`` into ``accounts``."""
    headers = [rec for rec in records if isinstance(rec, dict) and rec.get("type") == "deal"]
    first = records[0] if records and isinstance(records[0], dict) else {}

    def obs(s: State) -> None:
        if not accounts or accounts[-1].state is not s:
            # the replay has checked this deal's header before building its state
            header = headers[len(accounts)]
            levels = [PlayerLevel(*lv) for lv in header["levels"]]
            names = header.get("players") or first.get("players")
            accounts.append(DealAccount(s, levels, names, hands))
        accounts[-1].sync(s)

    return obs


def deal_account(records: Sequence[dict[str, Any]], hands: bool = False) -> list[str]:
    """Replay a deal record (checking it) and tell it trick by trick: the
    exposures, trump and maker, the friend calls and when each friend shows,
    every trick with its winner and points, failed throws, then the sides,
    the points, the game points and the level changes; the name at each
    seat when the record has them. The hands and the buried cards stay
    hidden (the kitty shows if the opponents take it) unless ``hands``.

    >>> import random
    >>> from core.records import deal_record
    >>> s = State(Rules.preset("bottom-eight"), seed=2)
    >>> rng = random.Random(2)
    >>> while not s.is_terminal():
    ...     s.apply(s.random_legal_action(rng))
    >>> lines = deal_account(deal_record(s))
    >>> lines[0]
    'deal seed 2: bottom-eight rules, 5 players, 2 packs with 2 red and 2 black jokers, 20 cards each, kitty of 8'
    >>> lines[-1].startswith("levels: 0:2")
    True
    """
    accounts: list[DealAccount] = []
    replay_deal(records, _observer(records, accounts, hands))
    return accounts[0].finish()


def match_account(records: Sequence[dict[str, Any]], hands: bool = False) -> list[str]:
    """Replay a match record (checking it) and tell every deal as
    :func:`deal_account` does, then the end of the match."""
    accounts: list[DealAccount] = []
    match = replay_match(records, _observer(records, accounts, hands))
    r = match.rules
    limit = f"up to {match.max_deals} deals" if match.max_deals is not None else "no deal limit"
    out = [f"match seed {match.seed}: {r.name} rules, {r.players} players, {limit}"]
    for k, acct in enumerate(accounts, 1):
        out += ["", f"== deal {k} =="] + acct.finish()
    out.append("")
    out.append(f"match {'over' if match.is_over() else 'not over'} after {len(match.deals)} deals")
    out.append("levels: " + "  ".join(f"{i}:{_level_text(r, lv)}" for i, lv in enumerate(match.levels)))
    out.append("game points won: " + "  ".join(f"{i}:{p}" for i, p in enumerate(match.game_points_total)))
    return out


def account(records: Sequence[dict[str, Any]], hands: bool = False) -> list[str]:
    """The account of a deal or match record (by its first line's type);
    ``hands``: every seat's hand after the draw and the buried cards too."""
    if not records or not isinstance(records[0], dict):
        raise InvalidActionError("line 1: the record is empty")
    kind = records[0].get("type")
    if kind == "deal":
        return deal_account(records, hands)
    if kind == "match":
        return match_account(records, hands)
    raise record_error(1, f"expected a deal or match header, got type {kind!r}")
