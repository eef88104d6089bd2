"""One distribution for "a random legal action": the engine's, a view's and the
``random`` bot's draw the same action from the same random numbers, in every
phase, and the engine's random playout leads the same way."""

from __future__ import annotations

import random

import pytest

from bots.random_bot import RandomBot
from core import kernel
from core.actions import Action
from core.cards import Cards
from core.errors import IllegalActionError
from core.rules import Rules
from core.state import PLAY_PHASE, State


@pytest.mark.parametrize("preset,players", [("pagat", 5), ("pagat", 6), ("pagat", 12), ("heli", 6),
                                            ("bottom-eight", 5), ("stack", 6), ("thirteen", 8)])
def test_engine_view_and_bot_agree(preset, players):
    rules = Rules.preset(preset, players=players)
    phases, throws, draws = set(), 0, 0
    for seed in range(12):
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
        draws += step
    assert PLAY_PHASE in phases and throws > 0
    assert draws >= 1200          # over the seven rule sets, more than 10,000 draws a run


def test_an_illegal_follow_is_told_as_pengyou_follow_tells_it():
    """State.apply and the kernel's follow check give one text for a wrong follow."""
    rules = Rules.preset("pagat", players=6)
    told = 0
    for seed in range(30):
        s, rng = State(rules, seed=seed), random.Random(seed)
        while not s.is_terminal():
            if s.phase == PLAY_PHASE and s.current_trick()[1]:
                seat, lead = s.current_player(), s.current_trick()[1][0]
                hand = s.hand(seat)
                wrong = Cards(rng.sample(list(hand), len(lead)))
                why = kernel.follow_error(hand, lead, wrong, s.trump, rules)
                if why is not None:
                    with pytest.raises(IllegalActionError) as err:
                        s.apply(Action.play(wrong))
                    assert str(err.value).endswith(": " + why), (str(err.value), why)
                    told += 1
            s.apply(s.random_legal_action(rng))
    assert told > 100, told

