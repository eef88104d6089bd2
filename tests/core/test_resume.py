"""Rebuilding a play phase from a seat's view plus true hands reproduces the deal.

PlayCore.resume (used by search bots on sampled worlds) must give a play
phase that behaves exactly like the real one when it is handed the real
hands: same current player, same legal checks, and the same random playout
for the same seed.
"""

from __future__ import annotations

import random

import pytest

from core.state import play_from_view as world_play
from core.rules import Rules
from core.state import PLAY_PHASE, State


@pytest.mark.parametrize("preset,players", [("pagat", 6), ("pagat", 5), ("pagat", 9), ("bottom-eight", 5),
                                            ("stack", 6), ("pagat", 12)])
def test_resume_matches_the_real_play(preset, players):
    rules = Rules.preset(preset, players=players)
    checked = 0
    for seed in range(12):
        s = State(rules, seed=seed)
        rng = random.Random(seed)
        stop = rng.randint(0, 60)
        steps = 0
        while not s.is_terminal():
            if s.phase == PLAY_PHASE and steps >= stop:
                break
            s.apply(s.random_legal_action(rng))
            steps += 1
        if s.is_terminal():
            continue
        seat = s.current_player()
        view = s.view(seat)
        hands = [s.hand(i) for i in range(players)]
        pc = world_play(view, hands)
        real = s.play.clone()
        assert pc.current_player == real.current_player
        assert pc.points == real.points and pc.penalties == real.penalties
        assert pc.maker_side == real.maker_side
        assert pc.trick() == real.trick()
        for _ in range(5):
            a = real.random_play(rng)
            assert pc.can_play(a)
        pc.playout(99)
        real.playout(99)
        assert pc.points == real.points, (preset, players, seed)
        assert pc.maker_side == real.maker_side
        assert pc.last_trick == real.last_trick
        checked += 1
    assert checked >= 6


def test_greedy_playouts_finish_and_conserve_points():
    from core.errors import InvalidActionError

    rules = Rules.preset("pagat", players=6)
    for seed in range(20):
        s = State(rules, seed=seed)
        rng = random.Random(seed)
        while s.phase != PLAY_PHASE:
            s.apply(s.random_legal_action(rng))
        total = sum(sum(points_of(s.hand(i))) for i in range(6))
        for policy in (0, 1):
            pc = s.play.clone()
            pc.playout(seed, policy)
            assert pc.done and sum(pc.points) == total
            assert all(len(pc.hand(i)) == 0 for i in range(6))
    with pytest.raises(InvalidActionError):
        s.play.clone().playout(1, 2)


def points_of(cards):
    from core.cards import card_points

    return [card_points(f) for f in cards]


@pytest.mark.parametrize("players", [5, 6, 8])
def test_policy_plays_are_legal_and_tricks_go_to_the_reference_winner(players):
    """Greedy and random playout moves, one by one: each is legal, and each
    trick goes where the naive reference says."""
    from core import reference

    rules = Rules.preset("pagat", players=players)
    for seed in range(8):
        s = State(rules, seed=seed)
        rng = random.Random(seed)
        while s.phase != PLAY_PHASE:
            s.apply(s.random_legal_action(rng))
        for policy in (0, 1):
            pc = s.play.clone()
            trick = []
            while not pc.done:
                leader = pc.leader
                play = pc.policy_play(rng, policy)
                assert pc.can_play(play), (seed, policy, play)
                _, played, _ = pc.play(play)
                trick.append(played)
                if len(trick) == players:
                    w = reference.trick_winner(trick, s.trump, rules)
                    assert pc.last_trick[0] == (leader + w) % players
                    trick = []
