"""The one table loop: play_deal and the arena's referee both play through
bots.table.play_table, and a bot hears of an action only when its seat sees it."""

from __future__ import annotations

import random

from bots import make_bot, play_deal, play_table
from bots.table import BotSeats
from core.actions import BURY, PASS
from core.rules import Rules
from core.state import State


class Listener:
    """The random bot, keeping every (seat, action) it is told of."""

    def __init__(self) -> None:
        self.inner = make_bot("random")
        self.heard: list[tuple[int, object]] = []

    def restart(self, rules, seat, rng):
        self.seat = seat
        self.inner.restart(rules, seat, rng)

    def inform(self, view, seat, action):
        self.heard.append((seat, action))

    def step(self, view):
        return self.inner.step(view)


def test_a_bot_hears_of_every_action_but_others_burials_and_passes():
    rules = Rules.preset("pagat", players=5)
    for seed in range(6):
        bots = [Listener() for _ in range(5)]
        s = play_deal(rules, seed, bots, random.Random(seed))
        hidden = 0
        for actor, action in s.history:
            for b in bots:
                told = (actor, action) in b.heard
                if b.seat != actor and action.kind in (BURY, PASS):
                    assert not told, (seed, b.seat, actor, action)
                else:
                    assert told, (seed, b.seat, actor, action)
            hidden += action.kind == BURY
        assert hidden > 0                  # burials happened, and nobody else heard them


def test_play_deal_is_the_table_loop_with_trusted_seats():
    rules = Rules.preset("pagat", players=6)
    a = play_deal(rules, 3, [make_bot("heuristic") for _ in range(6)], random.Random(9))
    b = play_table(State(rules, seed=3), BotSeats(rules, [make_bot("heuristic") for _ in range(6)],
                                                  random.Random(9)))
    assert a.history == b.history and a.returns() == b.returns()


def test_the_arena_referee_holds_its_seats_through_the_same_loop(monkeypatch):
    import arena.table.table as play
    from arena.types import Entrant, Job

    holders = []

    def watched(state, seats):
        holders.append(type(seats).__name__)
        return play_table(state, seats)

    monkeypatch.setattr(play, "play_table", watched)
    job = Job(index=0, key="g0-l0-r0", group=0, seed=5, lineup=0, rotation=0, seats=(0, 1, 0, 1, 0, 1))
    from arena.table.settings import TableSettings

    res = play.play_job(job, [Entrant("random", "random"), Entrant("heuristic", "heuristic")],
                        TableSettings(Rules.preset("pagat", players=6), trusted="builtins"))
    assert holders == ["Table"] and len(res.deals) == 1
