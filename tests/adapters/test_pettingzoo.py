"""The PettingZoo adapter: PettingZoo's own checks on every preset, whole deals
under random masked play scored as the engine scores them, masks that reach
exactly the engine's legal actions, observations holding only what the seat's
view shows, text rendering, and the example of docs/adapters.md."""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from arena.adapters.pettingzoo import (ACTION_SIZE, CALL, EXPOSE, PASS, PLAY, PengyouEnv, action_id, env_for,
                                       observation_of)
from arena.table.table import outcome_of
from core import PRESETS, ActionKind, Rules, State
from core.cards import NUM_FACES, Cards, rank_of
from core.errors import IllegalActionError, InvalidActionError, RulesError
from core.presets import preset_players

ROOT = Path(__file__).resolve().parents[2]
#: each preset at a small table it allows
SMALL = {name: (preset_players(name) if name in ("tractor", "bottom-eight", "stack") else 5) for name in PRESETS}


def play_out(env: PengyouEnv, seed: int, check=None) -> dict[str, float]:
    """Random masked play to the end of the deal; ``check(env, agent, obs)``
    sees every live decision. Returns each agent's reward from ``last``."""
    rng = np.random.default_rng(seed)
    got: dict[str, float] = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _info = env.last()
        if term or trunc:
            got[agent] = reward
            env.step(None)
            continue
        if check is not None:
            check(env, agent, obs)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return got


def test_the_action_space_layout():
    assert (PLAY, PASS, EXPOSE, CALL, ACTION_SIZE) == (54, 55, 56, 488, 920)


@pytest.mark.parametrize("name", PRESETS)
def test_pettingzoo_api_test_passes(name):
    env = env_for(name, players=SMALL[name], seed=11)     # its later resets draw from this seed
    api_test(env, num_cycles=3000)
    assert env.state is not None and env.state.rules.name == name


@pytest.mark.parametrize("name", ["pagat", "tractor", "shengji-online"])
def test_pettingzoo_seed_and_render_tests_pass(name, capsys):
    seed_test(lambda: env_for(name, players=SMALL[name], seed=None), num_cycles=200)
    render_test(lambda render_mode: env_for(name, players=SMALL[name], seed=None, render_mode=render_mode))
    assert "player_0" in capsys.readouterr().out           # human mode prints the table


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("reward", ["game", "margin"])
def test_random_masked_play_finishes_the_deal_scored_as_the_engine_scores_it(name, reward):
    env = env_for(name, players=SMALL[name], reward=reward, seed=5)
    got = play_out(env, seed=5)
    s = env.state
    assert s is not None and s.is_terminal() and env.agents == []
    # the same decisions on a fresh deal of the same seed, each checked by the engine, end the same way
    again = State(s.rules, seed=s.seed)
    for _seat, action in s.history:
        again.apply(action)
    assert again.is_terminal() and again.result == s.result
    out = outcome_of(s, list(range(s.rules.players)))        # the arena's scoring of the deal
    expected = out.game_points if reward == "game" else out.margins
    assert [got[a] for a in env.possible_agents] == [float(v) for v in expected]


@pytest.mark.parametrize("name,players", [("pagat", 12), ("shengji-online", 12), ("heli", 9), ("thirteen", 7)])
def test_large_tables_play_whole_deals_in_the_same_action_space(name, players):
    env = env_for(name, players=players, reward="margin", seed=9)
    assert env.action_space("player_0").n == ACTION_SIZE
    got = play_out(env, seed=9)
    s = env.state
    assert s is not None and s.is_terminal() and len(got) == players
    assert [got[a] for a in env.possible_agents] == list(outcome_of(s, list(range(players))).margins)


def reachable_plays(env: PengyouEnv) -> set[Cards]:
    """Every play the masks let the agent to move build (each selection once)."""
    found: set[Cards] = set()
    seen: set[bytes] = set()

    def walk() -> None:
        key = env._selection.tobytes()
        if key in seen:
            return
        seen.add(key)
        mask = env.action_mask().copy()
        if mask[PLAY]:
            found.add(Cards(f for f in range(NUM_FACES) for _ in range(int(env._selection[f]))))
        for f in np.flatnonzero(mask[:NUM_FACES]):
            env._selection[f] += 1
            env._mask = None
            walk()
            env._selection[f] -= 1
            env._mask = None

    walk()
    return found


@pytest.mark.parametrize("name", ["pagat", "tractor", "bottom-eight", "shengji-online"])
def test_the_masks_reach_exactly_the_engines_legal_actions(name):
    env = env_for(name, players=SMALL[name], seed=3)
    checked = Counter()

    def check(env, agent, obs):
        s = env.state
        legal = list(s.legal_actions())
        if s.view(s.current_player()).phase == "play":
            if env._selection.any() or checked["play"] >= 40:
                return
            checked["play"] += 1
            assert reachable_plays(env) == {a.cards for a in legal}
        else:
            checked["other"] += 1
            assert set(np.flatnonzero(obs["action_mask"]).tolist()) == {action_id(a) for a in legal}

    play_out(env, seed=3, check=check)
    assert checked["play"] == 40 and checked["other"] > 0


#: house rules that add decisions or plays the presets lack: the kitty offered round (steal), joker
#: bids, rainbows, bombs (four packs), throws checked against the cards seen, a failed throw ending the deal
HOUSE = [(5, dict(kitty_theft=True)), (6, dict(joker_bids="pairs", exposure_defence=False)),
         (6, dict(rainbow=True)), (12, dict(bombs="any_suit")),
         (6, dict(throw_check="safe", failed_throw="end_deal", trump_throws=False))]


@pytest.mark.parametrize("players,settings", HOUSE, ids=lambda d: ",".join(d) if isinstance(d, dict) else str(d))
def test_house_rules_keep_the_masks_equal_to_the_engines_actions(players, settings):
    rules = Rules.preset("pagat", players=players, **settings)
    phases = Counter()

    def check(env, agent, obs):
        s = env.state
        phase = s.view(s.current_player()).phase
        if phase == "play":
            if not env._selection.any() and phases["play"] < 30:
                phases["play"] += 1
                assert reachable_plays(env) == {a.cards for a in s.legal_actions()}
            return
        phases[phase] += 1
        assert set(np.flatnonzero(obs["action_mask"]).tolist()) == {action_id(a) for a in s.legal_actions()}

    # a kitty is offered round only now and then: deal until one was
    for seed in range(200):
        env = PengyouEnv(rules, reward="game")
        env.reset(seed=seed)
        got = play_out(env, seed=seed, check=check)
        assert [got[a] for a in env.possible_agents] == [float(v) for v in env.state.returns()]
        if seed >= 2 and (phases["steal"] or not settings.get("kitty_theft")):
            break
    assert phases["play"] == 30 and phases["call"] > 0
    assert phases["steal"] > 0 or not settings.get("kitty_theft")


def test_an_illegal_id_and_a_bad_setting_are_refused():
    env = env_for("pagat", players=5, seed=1)
    obs = env.observe(env.agent_selection)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="not legal"):
        env.step(illegal)
    with pytest.raises(InvalidActionError, match="not an id"):
        env.step("play AS")
    with pytest.raises(RulesError, match="^reward: expected one of game, margin"):
        PengyouEnv(Rules.preset("pagat"), reward="points")
    with pytest.raises(RulesError, match="^render_mode: "):
        PengyouEnv(Rules.preset("pagat"), render_mode="rgb_array")
    with pytest.raises(RulesError, match="^rules: "):
        PengyouEnv("pagat")
    assert env.state is not None and env.state.history == []     # nothing was applied


def card_blocks(obs: np.ndarray, players: int) -> np.ndarray:
    """The card counts the observation holds, per face: hand, selection,
    finished tricks, kitty, the current trick and the exposures."""
    f = NUM_FACES
    hand, sel, played, kitty = (obs[i * f:(i + 1) * f] for i in range(4))
    start = 4 * f + f * 8
    trick = obs[start:start + players * f].reshape(players, f).sum(axis=0)
    exposed = obs[start + players * f:start + 2 * players * f].reshape(players, f)
    return hand, sel, played, kitty, trick, exposed


@pytest.mark.parametrize("name", ["pagat", "tractor", "shengji-online"])
def test_an_observation_shows_only_what_the_seats_view_shows(name):
    env = env_for(name, players=SMALL[name], seed=8)
    n = env.rules.players
    seen = Counter()

    def check(env, agent, obs):
        s = env.state
        for seat, a in enumerate(env.possible_agents):
            view = s.view(seat)
            o = env.observe(a)["observation"]
            mine = a == agent
            assert np.array_equal(o, observation_of(view, env._selection if mine else None))
            hand, sel, played, kitty, trick, exposed = card_blocks(o, n)
            assert np.array_equal(hand, np.bincount(list(s.hand(seat)), minlength=NUM_FACES))
            assert sel.any() == (mine and bool(env._selection.any()))
            # the kitty only for the seat that knows it; others' hands nowhere
            if view.kitty is None:
                assert not kitty.any()
            else:
                seen["kitty"] += 1
                assert np.array_equal(kitty, np.bincount(list(view.kitty), minlength=NUM_FACES))
            shown = np.bincount(list(view.played_before), minlength=NUM_FACES)
            assert np.array_equal(played, shown)
            in_trick = [f for p in view.current_trick[1] for f in Cards.from_str(p)]
            assert np.array_equal(trick, np.bincount(in_trick, minlength=NUM_FACES))
            last = {}
            for who, _kind, text in view.exposures:
                last[who] = text
            assert exposed.sum() == sum(len(Cards.from_str(t)) for t in last.values())
            seen["views"] += 1

    play_out(env, seed=8, check=check)
    assert seen["views"] > 0 and seen["kitty"] > 0


def test_the_observation_is_the_same_when_only_hidden_cards_differ():
    """Two deals whose decks differ by two plain cards (neither of the trump
    rank nor a joker, so the same exposures are open in both) that seats 1
    and 2 draw, played with the same decisions for as long as both deals
    allow them: seat 0's observation is the same in both all along, while
    seat 1 sees its different hand."""
    rules = Rules.preset("pagat", players=5)
    a = State(rules, seed=4)
    deck = list(a.decks[0])
    n, dealt = rules.players, rules.players * rules.hand_size
    plain = [k for k in range(dealt) if deck[k] < 52 and rank_of(deck[k]) != 2]   # card k goes to seat k % n
    i = next(k for k in plain if k % n == 1)
    j = next(k for k in plain if k % n == 2 and deck[k] != deck[i])
    deck[i], deck[j] = deck[j], deck[i]
    b = State(rules, seed=None, decks=[deck])
    compared = differ = 0
    rng = random.Random(4)
    while not a.is_terminal():
        assert np.array_equal(observation_of(a.view(0)), observation_of(b.view(0)))
        compared += 1
        if a.hand(1) != b.hand(1):
            differ += 1
            assert not np.array_equal(observation_of(a.view(1)), observation_of(b.view(1)))
        both = [x for x in a.legal_actions() if x in b.legal_actions()]   # the same decisions in both deals
        if not both:
            break
        exposures = [x for x in both if x.kind == ActionKind.EXPOSE]        # expose when one can: trump is made
        action = exposures[0] if exposures else rng.choice(both)
        a.apply(action)
        b.apply(action)
    assert compared > 40 and differ > 20 and a.hand(0) == b.hand(0)


def test_a_seed_deals_the_engines_deal_of_that_seed_and_starts_a_stream():
    rules = Rules.preset("heli", players=6)
    env = PengyouEnv(rules)
    env.reset(seed=21)
    assert env.state.seed == 21 and env.state.decks == State(rules, seed=21).decks
    env.reset()
    first = env.state.decks
    env.reset(seed=21)
    env.reset()
    assert env.state.decks == first and first != State(rules, seed=21).decks


def test_render_shows_the_table():
    env = env_for("tractor", render_mode="ansi", seed=2)
    text = env.render()
    assert isinstance(text, str) and "tractor 4p" in text
    assert all(f"player_{i}" in text for i in range(4))
    play_out(env, seed=2)
    assert "result: winner" in env.render()


def test_the_docs_example_runs(capsys):
    text = (ROOT / "docs" / "adapters.md").read_text(encoding="utf-8")
    section = text.split("## PettingZoo", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None, "docs/adapters.md: the PettingZoo section has no python example"
    exec(compile(code.group(1), "docs/adapters.md", "exec"), {"__name__": "__docs__"})
    out = capsys.readouterr().out
    assert "player_0" in out and "result: winner" in out
