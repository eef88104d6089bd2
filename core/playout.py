"""The play phase of one seeded deal between random players, trick by trick.

This drives the kernel end to end: seeded shuffle and draw, a trump made by
the first player to draw a card of rank 2 (the first deal's level), a kitty
buried at random by that player, then every trick with random legal leads
(singles, sets, tractors and throws, throws checked against the real hands)
and random legal follows. Friend calls and the full trump-making procedure
belong to the deal engine; here each seat keeps the points it wins.

>>> log = play_random_deal(Rules.preset("pagat", players=6), seed=1)
>>> sum(log.points) + log.kitty_points_kept == 200
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from . import kernel
from .cards import Cards, Trump, format_cards, points, rank_of, suit_of
from .positions import deck
from .rules import Rules

__all__ = ["TrickRecord", "DealLog", "play_random_deal", "random_lead"]


@dataclass
class TrickRecord:
    """One trick: its leader, the cards each seat played, the winner and its points."""

    leader: int
    plays: list[Cards]
    winner: int
    points: int
    failed_throw: Cards | None = None


@dataclass
class DealLog:
    """What happened in a deal's play phase."""

    rules: Rules
    seed: int
    trump: Trump
    maker: int
    kitty: Cards
    tricks: list[TrickRecord] = field(default_factory=list)
    points: list[int] = field(default_factory=list)
    penalties: list[int] = field(default_factory=list)
    kitty_points_kept: int = 0

    def lines(self) -> list[str]:
        """A readable account, one line per event."""
        r = self.rules
        suit = "no suit" if self.trump.suit is None else "CDHS"[self.trump.suit]
        out = [
            f"deal seed {self.seed}: {r.players} players, {r.packs} packs, trump rank "
            f"{self.trump.rank} suit {suit}; seat {self.maker} made trump and buried "
            f"{format_cards(self.kitty)}",
        ]
        n = r.players
        for i, t in enumerate(self.tricks, 1):
            seats = [(t.leader + j) % n for j in range(n)]
            body = "  ".join(f"{s}:{format_cards(p)}" for s, p in zip(seats, t.plays))
            note = f"  (failed throw {format_cards(t.failed_throw)})" if t.failed_throw else ""
            out.append(f"trick {i:2d}  {body}  -> seat {t.winner} +{t.points}{note}")
        out.append("points by seat: " + " ".join(f"{s}:{p}" for s, p in enumerate(self.points)))
        if any(self.penalties):
            out.append("throw penalties by seat: " + " ".join(f"{s}:{p}" for s, p in enumerate(self.penalties)))
        return out


def random_lead(hand: Cards, trump: Trump, rules: Rules, rng: random.Random) -> Cards:
    """A random lead: one of the units of a random suit's holding, or now and
    then two of them together as a throw."""
    ctx = kernel.context(trump, rules.tractor_past_ace)
    suits = sorted({ctx.effective_suit(f) for f in hand})
    e = rng.choice(suits)
    holding = Cards(f for f in hand if ctx.effective_suit(f) == e)
    units = [u.cards for u in kernel.decompose(holding, trump, rules)]
    if len(units) >= 2 and rng.random() < 0.15:
        a, b = rng.sample(units, 2)
        return Cards(tuple(a) + tuple(b))
    return rng.choice(units)


def play_random_deal(rules: Rules, seed: int) -> DealLog:
    """Play one seeded deal's play phase between random players."""
    rng = random.Random(seed)
    cards = deck(rules)
    rng.shuffle(cards)
    n = rules.players
    hands: list[list[int]] = [[] for _ in range(n)]
    maker = None
    trump = None
    for i in range(n * rules.hand_size):
        seat = i % n
        f = cards[i]
        hands[seat].append(f)
        if maker is None and rank_of(f) == 2:
            maker, trump = seat, Trump(2, suit_of(f))
    kitty = cards[n * rules.hand_size:]
    if maker is None:           # nobody drew a 2: rank 2 with no trump suit
        maker, trump = 0, Trump(2, None)
    hands[maker] += kitty
    rng.shuffle(hands[maker])
    buried = Cards(hands[maker][:rules.kitty_size])
    del hands[maker][:rules.kitty_size]
    held = [Cards(h) for h in hands]
    log = DealLog(rules, seed, trump, maker, buried, points=[0] * n, penalties=[0] * n)
    leader = maker
    while len(held[leader]):
        lead = random_lead(held[leader], trump, rules, rng)
        others = [held[(leader + j) % n] for j in range(1, n)]
        check = kernel.check_throw(lead, others, trump, rules)
        failed = None
        if not check.stands:
            failed, lead = lead, check.unit
            log.penalties[leader] += check.penalty
        plays = [lead]
        held[leader] = held[leader] - lead
        for j in range(1, n):
            s = (leader + j) % n
            p = kernel.random_follow(held[s], lead, trump, rules, rng)
            plays.append(p)
            held[s] = held[s] - p
        w = (leader + kernel.trick_winner(plays, trump, rules)) % n
        pts = sum(points(p) for p in plays)
        log.points[w] += pts
        log.tricks.append(TrickRecord(leader, plays, w, pts, failed))
        leader = w
    if leader != maker:
        log.points[leader] += 2 * points(buried)
        log.kitty_points_kept = -points(buried)
    else:
        log.kitty_points_kept = points(buried)
    return log
