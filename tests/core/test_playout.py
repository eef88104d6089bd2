"""Random play phases of seeded deals: every step checked against invariants.

For every table size and 40 seeds per size: cards are conserved (every card is
dealt, buried or played exactly once), card points are conserved (100 per pack
counting the kitty), every lead is one suit and every follow is legal by the
naive reference as well as by the kernel, and the same seed replays the same
deal.
"""

from __future__ import annotations

from collections import Counter

import pytest

from core import kernel, reference
from core.playout import play_random_deal
from core.positions import deck
from core.rules import Rules

SEEDS = range(40)


@pytest.mark.parametrize("players", range(5, 13))
def test_random_deals_conserve_cards_and_points(players):
    rules = Rules.preset("pagat", players=players)
    for seed in SEEDS:
        log = play_random_deal(rules, seed)
        played = Counter(log.kitty)
        for t in log.tricks:
            for p in t.plays:
                played.update(p)
        assert played == Counter(deck(rules)), f"seed {seed}: cards not conserved"
        assert sum(log.points) + log.kitty_points_kept == rules.total_points, f"seed {seed}"
        assert sum(t.points for t in log.tricks) + kernel.points(log.kitty) == rules.total_points


@pytest.mark.parametrize("players", (5, 6, 8, 12))
def test_every_play_is_legal_for_the_reference(players):
    rules = Rules.preset("pagat", players=players)
    for seed in range(8):
        log = play_random_deal(rules, seed)
        # rebuild the hands from the record: each seat's cards are what it played
        hands = [Counter() for _ in range(players)]
        for t in log.tricks:
            for j, p in enumerate(t.plays):
                hands[(t.leader + j) % players].update(p)
        hands = [Counter(h) for h in hands]
        for t in log.tricks:
            lead = t.plays[0]
            held = {s: sorted(hands[s].elements()) for s in range(players)}
            if t.failed_throw is not None:
                others = [held[(t.leader + j) % players] for j in range(1, players)]
                res = reference.check_throw(t.failed_throw, others, log.trump, rules)
                assert not res.stands and res.unit == lead
            reference.decompose(lead, log.trump, rules)  # one suit, or it raises
            for j in range(1, players):
                s = (t.leader + j) % players
                assert reference.is_legal_follow(held[s], lead, t.plays[j], log.trump, rules), \
                    f"seed {seed} trick by {t.leader}: seat {s} played {t.plays[j]} from {held[s]}"
            w = reference.trick_winner(t.plays, log.trump, rules)
            assert (t.leader + w) % players == t.winner
            for j, p in enumerate(t.plays):
                hands[(t.leader + j) % players].subtract(p)


def test_same_seed_same_deal():
    rules = Rules.preset("pagat", players=7)
    assert play_random_deal(rules, 11).lines() == play_random_deal(rules, 11).lines()
    assert play_random_deal(rules, 11).lines() != play_random_deal(rules, 12).lines()
