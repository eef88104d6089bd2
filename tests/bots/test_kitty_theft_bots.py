"""The built-in bots act in the ``steal`` phase (``kitty_theft``): deals
played at random up to an offer of the buried kitty are finished by each
bot, seated at every seat in turn (so also at the seat asked), with no
illegal action (the heuristic falls back to a random action only on a bug,
counted in ``fallbacks``)."""

from __future__ import annotations

import random

import pytest

from bots import make_bot, play_deal
from core.rules import Rules
from core.state import STEAL_PHASE, State

#: joker pairs and overcalling oneself make offers of the kitty less rare
THEFT = Rules.preset("pagat", players=6, joker_bids="pairs", self_overcall="any", kitty_theft=True)


def offers(count: int) -> list[State]:
    """The first ``count`` seeded random deals that reach an offer of the kitty, stopped there."""
    out = []
    for seed in range(2000):
        s, rng = State(THEFT, seed=seed), random.Random(seed)
        while not s.is_terminal() and s.phase != STEAL_PHASE:
            s.apply(s.random_legal_action(rng))
        if s.phase == STEAL_PHASE:
            out.append(s)
            if len(out) == count:
                return out
    raise AssertionError(f"only {len(out)} offers of the kitty in 2000 deals")


OFFERS = offers(3)


@pytest.mark.parametrize("spec", ["random", "heuristic", "ismcts:iterations=50"])
def test_bots_act_when_offered_the_kitty_at_every_seat(spec):
    for k, start in enumerate(OFFERS):
        asked, before = start.current_player(), len(start.history)
        for seat in range(THEFT.players):
            bots = [make_bot("random") for _ in range(THEFT.players)]
            bots[seat] = make_bot(spec)
            s = play_deal(THEFT, 0, bots, random.Random(10 * k + seat), state=start.clone())
            assert s.is_terminal() and s.result is not None
            assert s.history[before][0] == asked       # the seat asked answered the offer
            assert getattr(bots[seat], "fallbacks", 0) == 0
