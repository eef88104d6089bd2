"""A search rebuilds the play of one view for every sampled world: the first
with :meth:`PlayCore.resume`, the later ones as a copy of it holding other
hands (:func:`core.dealing.play_with_hands`). The copy must be the very state that
``resume`` builds with those hands, byte for byte, at every point of a deal:
mid-trick, after friends are found, after failed throws, under every preset."""

from __future__ import annotations

import random

import pytest

from core import Phase
from core.dealing import play_bytes, play_with_hands
from core.play import PlayCore
from core.errors import InvalidActionError, RulesError
from core.rules import PRESETS, Rules
from core.sample import Sampler
from core.state import State
from core.view import _resume_args, play_from_view


def _resumed(view, hands) -> PlayCore:  # type: ignore[no-untyped-def]
    calls, filled, seen, points, penalties, tricks, leader, plays, played = _resume_args(view)
    return PlayCore.resume(view.rules, view.trump, view.maker, hands, calls, filled, seen, points, penalties,
                           tricks, leader, plays, played)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("seed", range(3))
def test_a_copy_with_other_hands_is_what_resume_builds(preset: str, seed: int) -> None:
    rng = random.Random(seed)
    try:                                        # other table sizes where the preset allows them
        rules = Rules.preset(preset, players=5 + 2 * seed)
    except RulesError:
        rules = Rules.preset(preset)
    players = rules.players
    s = State(rules, seed=seed)
    checked = 0
    while s.phase != Phase.DONE:
        if s.phase == Phase.PLAY and rng.random() < 0.5:
            view = s.view(s.current_player())
            sampler = Sampler(view)
            first, second = (list(sampler.sample(rng).hands) for _ in range(2))
            play_from_view(view, first)                 # the view's play, kept for the next world
            again = play_from_view(view, second)
            assert play_bytes(again) == play_bytes(_resumed(view, second))
            assert [again.hand(i) for i in range(players)] == second
            checked += 1
        s.apply(s.random_legal_action(rng))
    assert checked > 3


def test_a_copy_needs_a_hand_for_every_seat() -> None:
    s = State(Rules.preset("pagat", players=5), seed=1)
    rng = random.Random(1)
    while s.phase != Phase.PLAY:
        s.apply(s.random_legal_action(rng))
    with pytest.raises(InvalidActionError, match="expected 5 hands, got 4"):
        play_with_hands(s.play, [s.play.hand(i) for i in range(4)])
