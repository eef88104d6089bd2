"""A seat's view told as a stream of messages, rebuilt on the other side.

For every preset at several table sizes, random deals are played with the
narrator following; each message is encoded as the protocol's text (the
exact lines a bot process reads), decoded with ``json.loads`` and applied to
a :class:`ViewBuilder` per seat. At *every* step the rebuilt view must equal
``State.view(seat)``, as a value and as its key, and a seat must be told an
action's text exactly when :func:`sees` says so.
"""

from __future__ import annotations

import json
import random

import pytest

from arena.sandbox import protocol
from core.actions import Action
from core.errors import PengyouError
from core.observe import Narrator, ViewBuilder, sees
from core.rules import PRESETS, Rules
from core.state import State



def _cases() -> list[tuple[str, int]]:
    """Every preset at the table sizes of 4, 5, 6, 8 and 12 it is played at."""
    out = []
    for preset in PRESETS:
        for players in (4, 5, 6, 8, 12):
            try:
                Rules.preset(preset, players=players)
            except PengyouError:
                continue
            out.append((preset, players))
    return out


CASES = _cases()


@pytest.mark.parametrize("preset,players", CASES)
def test_rebuilt_views_equal_the_state_at_every_step(preset: str, players: int) -> None:
    rules = Rules.preset(preset, players=players)
    checked = 0
    for seed in range(3):
        s = State(rules, seed=seed)
        nar = Narrator(s)
        builders = [ViewBuilder(rules) for _ in range(players)]
        for seat, msg in enumerate(nar.opening()):
            line = protocol.deal(rules, seat, 7, True, 1.0, msg["view"])
            builders[seat].apply(json.loads(line))
            assert builders[seat].view() == s.view(seat)
        rng = random.Random(seed)
        while not s.is_terminal():
            actor = s.current_player()
            action = s.random_legal_action(rng)
            s.apply(action)
            lines = protocol.changes(nar.changes(actor, action), actor)
            assert len(lines) == players
            for seat, line in enumerate(lines):
                assert line.endswith("\n") and line.count("\n") == 1
                msg = json.loads(line)
                assert msg["seat"] == actor
                told = msg["action"]
                assert (told is not None) == sees(seat, actor, action)
                if told is not None:
                    assert Action.from_str(told) == action
                builders[seat].apply(msg)
                got, want = builders[seat].view(), s.view(seat)
                assert got == want, (seat, s.phase, str(action))
                assert str(got) == str(want)
                checked += 1
    assert checked > 100 * players


@pytest.mark.parametrize("stopper", ["hidden", "shown"])
@pytest.mark.parametrize("failed_throw", ["withdraw", "end_deal"])
def test_rebuilt_views_carry_the_throw_stoppers_as_the_state_shows_them(stopper: str, failed_throw: str) -> None:
    """Random deals with failed throws: the changes each seat is sent rebuild
    its view exactly, stoppers included; under hidden they are all -1. Under
    ``failed_throw`` ``end_deal`` the failed throw is the deal's last change."""
    rules = Rules.preset("pagat", players=6, throw_stopper=stopper, failed_throw=failed_throw)
    failed = 0
    for seed in range(4):
        s = State(rules, seed=seed)
        nar = Narrator(s)
        builders = [ViewBuilder(rules) for _ in range(6)]
        for seat, msg in enumerate(nar.opening()):
            builders[seat].apply(json.loads(protocol.deal(rules, seat, 7, True, 1.0, msg["view"])))
        rng = random.Random(seed)
        while not s.is_terminal():
            actor = s.current_player()
            action = s.random_legal_action(rng)
            s.apply(action)
            for seat, line in enumerate(protocol.changes(nar.changes(actor, action), actor)):
                builders[seat].apply(json.loads(line))
                assert builders[seat].view() == s.view(seat)
        failed += len(s.throw_stoppers)
        for seat in range(6):
            got = builders[seat].view().throw_stoppers
            assert got == (tuple(s.throw_stoppers) if stopper == "shown" else (-1,) * len(s.throw_stoppers))
    assert failed > 0


def test_a_pass_in_the_draw_and_a_burial_reach_only_the_actor() -> None:
    bury = Action.from_str("bury 3S")
    assert sees(1, 1, bury) and not sees(0, 1, bury)
    assert sees(2, 2, Action.pass_()) and not sees(3, 2, Action.pass_())
    assert sees(3, 2, Action.from_str("AS AS"))


@pytest.mark.parametrize("preset,players", CASES)
def test_coalesced_views_are_exact_at_every_request(preset: str, players: int) -> None:
    """Seats that asked for ``coalesce`` (every other one here, so that both
    kinds share a table) get bare events and one ``update`` before each of
    their requests; whenever such a seat must act, its rebuilt view equals
    the state's, and the seats that did not ask still get every change."""
    rules = Rules.preset(preset, players=players)
    coalesced = [seat % 2 == 0 for seat in range(players)]
    requests = 0
    for seed in range(3):
        s = State(rules, seed=seed)
        nar = Narrator(s)
        builders = [ViewBuilder(rules) for _ in range(players)]
        pending = [protocol.Pending() for _ in range(players)]
        for seat, msg in enumerate(nar.opening()):
            builders[seat].apply(json.loads(protocol.deal(rules, seat, 7, True, 1.0, msg["view"])))
        rng = random.Random(seed)
        while not s.is_terminal():
            actor = s.current_player()
            if coalesced[actor]:
                line = pending[actor].take(lambda s=s, actor=actor: s.view(actor).to_json())
                if line is not None:
                    msg = json.loads(line)
                    assert msg["type"] == "update" and line.endswith("\n") and line.count("\n") == 1
                    builders[actor].apply(msg)
                got, want = builders[actor].view(), s.view(actor)
                assert got == want and str(got) == str(want), (actor, s.phase)
                requests += 1
            action = s.random_legal_action(rng)
            s.apply(action)
            ch = nar.changes(actor, action, [not c for c in coalesced])
            for seat, line in enumerate(protocol.changes(ch, actor, coalesced)):
                msg = json.loads(line)
                assert (msg["action"] is not None) == sees(seat, actor, action)
                if coalesced[seat]:
                    assert msg == {"type": "event", "seat": actor, "action": msg["action"]}
                    assert line.startswith('{"type":"event",')     # what the host passes over
                    pending[seat].note(ch, seat)
                else:
                    builders[seat].apply(msg)
                    assert builders[seat].view() == s.view(seat)
    assert requests > 20 * players
