"""``ismcts:steady``: the fallback's play searched from the start and kept
while the search cannot tell it from the best; and the steadiness measure
of ``bots.review``."""

from __future__ import annotations

import math
import random

import pytest

from bots.base import make_bot
from bots.review import steadiness
from bots.search import Node, play_key
from core.cards import Cards
from core.rules import Rules
from core.state import PLAY_PHASE, State


def _root(stats):
    root = Node(None)
    for text, visits, mean in stats:
        c = Node(Cards.from_str(text))
        c.visits, c.total = visits, mean * visits
        root.children[play_key(c.cards)] = c
    return root


@pytest.mark.parametrize("steady,prior_mean,kept", [
    (1.0, 0.10, True),                      # 0.02 below with a margin of sqrt(1/500 + 1/100) = 0.11
    (1.0, -0.05, False),                    # 0.17 below: the search knows better
    (0.1, 0.10, False),                     # a margin of 0.011
])
def test_the_fallbacks_play_is_kept_only_within_the_margin(steady, prior_mean, kept):
    bot = make_bot(f"ismcts:steady={steady}")
    rules = Rules.preset("pagat", players=6)
    bot.restart(rules, 0, random.Random(0))
    root = _root([("AS", 500, 0.12), ("3S", 100, prior_mean)])
    best = root.children[play_key(Cards.from_str("AS"))]
    bot._prior = (view := object(), Cards.from_str("3S"))     # what the fallback said for this view
    got = bot._steadied(view, root, best)                      # type: ignore[arg-type]
    margin = steady * math.sqrt(1 / 500 + 1 / 100)
    assert (0.12 - prior_mean <= margin) == kept
    assert str(got.cards) == ("3S" if kept else "AS")


def test_steady_off_asks_no_prior():
    bot = make_bot("ismcts")
    assert bot.prior_play(object()) is None                     # type: ignore[arg-type]


def test_a_steady_search_repeats_itself_and_plays_legally():
    steady, n = steadiness("ismcts:iterations=100,steady=2", decisions=10, seed=4)
    loose, _ = steadiness("ismcts:iterations=100", decisions=10, seed=4)
    assert n == 10 and steady >= 8 and steady > loose
    rules = Rules.preset("pagat", players=6)
    s = State(rules, seed=9)
    bots = [make_bot("ismcts:iterations=50,steady=1") for _ in range(6)]
    for i, b in enumerate(bots):
        b.restart(rules, i, random.Random(i))
    while not s.is_terminal():
        p = s.current_player()
        s.apply(bots[p].step(s.view(p)))
    assert s.phase != PLAY_PHASE
