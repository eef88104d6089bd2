"""One distribution for "a random legal action": the engine's, a view's and the
``random`` bot's draw the same action from the same random numbers, in every
phase, and the engine's random playout leads the same way."""

from __future__ import annotations

import random

import pytest

from bots.random_bot import RandomBot
from core import kernel
from core.rules import Rules
from core.state import PLAY_PHASE, State


@pytest.mark.parametrize("preset,players", [("pagat", 5), ("pagat", 6), ("pagat", 12), ("heli", 6),
                                            ("bottom-eight", 5), ("stack", 6), ("thirteen", 8)])
def test_engine_view_and_bot_agree(preset, players):
    rules = Rules.preset(preset, players=players)
    phases, throws = set(), 0
    for seed in range(6):
        s = State(rules, seed=seed)
        step = 0
        while not s.is_terminal():
            seat = s.current_player()
            view = s.view(seat)
            bot = RandomBot()
            bot.restart(rules, seat, random.Random(step))
            a = s.random_legal_action(random.Random(step))
            assert a == view.random_action(random.Random(step)) == bot.step(view), (seed, step)
            if s.phase == PLAY_PHASE and view.lead is None:
                # the play engine's own random play leads the same cards
                assert s.play.random_play(random.Random(step)) == a.cards
                throws += len(kernel.make_lead(a.cards, s.trump, rules).units) > 1
            phases.add(s.phase)
            s.apply(a)
            step += 1
    assert PLAY_PHASE in phases and throws > 0
