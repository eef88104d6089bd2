"""The OpenSpiel adapter's cost: random play phases through its interface
against the compiled core's, from the very same worlds, in one run.

Each start is a 6-player ``pagat`` deal played at random up to its first
lead, as an OpenSpiel state whose hidden cards the sampler drew
(:func:`~arena.adapters.openspiel.state_from_view`). The native figure plays
that state's compiled play phase to the end with the kernel's random
policy; the OpenSpiel figure clones the state and steps it to the end with
uniformly chosen action ids, as OpenSpiel's random-rollout evaluator does
(a play is chosen card by card, so a play of three cards is four steps).
"""

from __future__ import annotations

import random
from typing import Any

from core.play import playouts
from core.rules import Rules
from core.state import PLAY_PHASE, State

from .timing import rate

__all__ = ["openspiel_figures"]


def _starts(count: int, seed: int) -> list[Any]:
    from ..adapters.openspiel import game_for, state_from_view

    rules = Rules.preset("pagat", players=6)
    game = game_for(rules, "card_margin")
    rng = random.Random(seed)
    out = []
    for k in range(count):
        s = State(rules, seed=seed * 1000 + k)
        while s.phase != PLAY_PHASE:
            s.apply(s.random_legal_action(rng))
        out.append(state_from_view(game, s.view(s.current_player()), rng))
    return out


def openspiel_figures(seed: int, min_time: float, count: int = 10) -> dict[str, float]:
    """Random play phases per second natively and through OpenSpiel, on
    ``count`` starts, and their ratio (how many times the adapter is slower;
    OpenSpiel must be installed)."""
    starts = _starts(count, seed)
    rng = random.Random(seed)
    cores = [s.engine.play for s in starts]

    def native() -> int:
        for pc in cores:
            playouts(pc, 10, rng)
        return 10 * len(cores)

    def openspiel() -> int:
        for st in starts:
            s = st.clone()
            while not s.is_terminal():
                s.apply_action(rng.choice(s.legal_actions()))
        return len(starts)

    fast, slow = rate(native, min_time), rate(openspiel, min_time)
    return {"native_random_playouts_per_s": fast, "openspiel_random_playouts_per_s": slow,
            "native_over_openspiel": fast / slow}
