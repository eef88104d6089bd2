"""``Sampler.agrees``: the view's facts checked on a world built another way
(cards swapped between hidden piles), against the independent checks of
``test_sample`` (the rebuilt view included)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from core.cards import Cards
from core.rules import Rules
from core.sample import Sampler, World
from core.state import PLAY_PHASE
from test_sample import CONFIGS, check_world, play_until


def _swapped(world, a, b, rng):
    """``world`` with one random card of hidden pile ``a`` and one of ``b``
    exchanged (a pile is a seat, or ``"kitty"``)."""
    hands = list(world.hands)
    kitty = world.kitty

    def get(p):
        return kitty if p == "kitty" else hands[p]

    x, y = list(get(a)), list(get(b))
    i, j = rng.randrange(len(x)), rng.randrange(len(y))
    x[i], y[j] = y[j], x[i]
    for p, cards in ((a, x), (b, y)):
        if p == "kitty":
            kitty = Cards(sorted(cards))
        else:
            hands[p] = Cards(sorted(cards))
    return World(hands, kitty, world.stock)


@pytest.mark.parametrize("preset,players,overrides,seeds,maker", CONFIGS[:10] + [CONFIGS[11]],
                         ids=[f"{c[0]}-{c[1]}{'-' + '-'.join(c[2]) if c[2] else ''}"
                              for c in CONFIGS[:10] + [CONFIGS[11]]])
def test_agrees_is_the_views_judgement_of_a_world(preset, players, overrides, seeds, maker):
    """``agrees`` says yes to the true deal and to every sample, and on worlds
    with two hidden cards swapped it says what the independent checks above
    say (the rebuilt view included), also when told which hands changed:
    both answers are met."""
    rules = Rules.preset(preset, players=players, **overrides)
    rng = random.Random(players * 7 + seeds)
    answers = Counter()
    for seed in range(seeds):
        length = rules.players * rules.hand_size // 2        # late enough for voids and throws to bind
        state, start = play_until(rules, seed, rng, PLAY_PHASE, rng.randrange(length // 3, length))
        if state.phase != PLAY_PHASE:
            continue
        for seat in range(players):
            view = state.view(seat)
            sampler = Sampler(view)
            true = World([state.hand(s) for s in range(players)], state.kitty, Cards())
            assert sampler.agrees(true)
            piles = [s for s in range(players) if s != seat and state.hand(s)]
            if view.kitty is None:
                piles.append("kitty")
            for _ in range(3):
                world = sampler.sample(rng)
                assert sampler.agrees(world)
                for _ in range(4 if len(piles) >= 2 else 0):
                    a, b = rng.sample(piles, 2)
                    moved = _swapped(world, a, b, rng)
                    try:
                        check_world(view, moved, state, start)
                        fine = True
                    except AssertionError:
                        fine = False
                    assert sampler.agrees(moved) == fine, (seed, seat, a, b)
                    changed = tuple(sorted(p for p in (a, b) if p != "kitty"))
                    assert sampler.agrees(moved, changed) == fine, (seed, seat, a, b)
                    answers[fine] += 1
    assert answers[True] and answers[False], answers


def test_agrees_refuses_worlds_of_the_wrong_shape():
    rules = Rules.preset("pagat", players=6)
    state, _ = play_until(rules, 3, random.Random(3), PLAY_PHASE, 10)
    view = state.view(1)
    sampler = Sampler(view)
    world = sampler.sample(random.Random(0))
    hands = list(world.hands)
    hands[1] = Cards(list(hands[1])[:-1])                   # the viewer's own hand changed
    assert not sampler.agrees(World(hands, world.kitty, world.stock))
    hands = list(world.hands)
    other = 2 if hands[2] else 3
    hands[other] = Cards(sorted(list(hands[other]) + [hands[other][0]]))   # one card twice, one hand too long
    assert not sampler.agrees(World(hands, world.kitty, world.stock))
    assert not sampler.agrees(World(world.hands, Cards(list(world.kitty)[1:]), world.stock))
