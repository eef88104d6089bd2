"""Random whole deals through the deal engine, every trick checked by the naive reference.

For every table size (8 seeds each) a deal is played by random legal actions, then each
trick is checked against :mod:`core.reference`, written independently of the kernel: each
seat's hand at every trick is rebuilt from what it went on to play, every lead is one suit
(it decomposes), every follow is legal, the winner is the next trick's leader, and every
failed throw fails against the other hands with the unit it was forced to play.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from core import reference
from core.rules import Rules
from core.state import State


def _random_deal(rules: Rules, seed: int) -> State:
    state, rng = State(rules, seed=seed), random.Random(seed)
    while not state.is_terminal():
        state.apply(state.random_legal_action(rng))
    return state


@pytest.mark.parametrize("players", range(5, 13))
def test_every_trick_is_legal_for_the_reference(players):
    rules = Rules.preset("pagat", players=players)
    checked = 0
    for seed in range(8):
        s = _random_deal(rules, seed)
        if not s.tricks:
            continue                            # a redealt or conceded deal plays no trick
        held = [Counter() for _ in range(players)]
        for leader, plays in s.tricks:
            for j, p in enumerate(plays):
                held[(leader + j) % players].update(p)
        throws = list(s.failed_throws)
        for i, (leader, plays) in enumerate(s.tricks):
            hands = {seat: sorted(held[seat].elements()) for seat in range(players)}
            lead = plays[0]
            reference.decompose(lead, s.trump, rules)             # one suit, or it raises
            if throws and throws[0][0] == leader and list(throws[0][2]) == list(lead):
                _, attempt, forced = throws.pop(0)
                others = [hands[(leader + j) % players] for j in range(1, players)]
                res = reference.check_throw(attempt, others, s.trump, rules)
                assert not res.stands and list(res.unit) == sorted(forced), (seed, i, attempt)
            for j in range(1, players):
                seat = (leader + j) % players
                assert reference.is_legal_follow(hands[seat], lead, plays[j], s.trump, rules), \
                    f"seed {seed} trick {i}: seat {seat} played {plays[j]} from {hands[seat]}"
            w = reference.trick_winner(plays, s.trump, rules)
            if i + 1 < len(s.tricks):
                assert s.tricks[i + 1][0] == (leader + w) % players, (seed, i)
            for j, p in enumerate(plays):
                held[(leader + j) % players].subtract(p)
            checked += 1
        assert not throws, f"seed {seed}: failed throws without their trick: {throws}"
    assert checked >= 8 * 5, checked
