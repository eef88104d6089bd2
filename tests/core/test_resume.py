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
