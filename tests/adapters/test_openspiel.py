"""The OpenSpiel adapter: OpenSpiel's own checks on every preset's game, the
action numbering, serialisation, resampling with our sampler, and bots both
ways (OpenSpiel's in our arena, ours in OpenSpiel)."""

from __future__ import annotations

import pickle
import random
import re
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel")

from arena.adapters import openspiel as osa  # noqa: E402
from arena.adapters.openspiel_bots import ENTRANTS, PengyouBot  # noqa: E402
from bots import BotError  # noqa: E402
from bots.registry import make_bot, parse_spec, registry  # noqa: E402
from bots.table import play_deal  # noqa: E402
from core.actions import Action  # noqa: E402
from core.presets import PRESETS  # noqa: E402
from core.rules import Rules  # noqa: E402
from core.scoring import card_margin  # noqa: E402
from core.state import State  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
#: each preset at its smallest table (tractor is four players only)
SMALL = {p: min(n for q, n in osa.registered_games().values() if q == p) for p in PRESETS}


def chance(state, rng):
    faces, probs = zip(*state.chance_outcomes())
    state.apply_action(rng.choices(faces, probs)[0])


def random_deal(game, rng, stop=None):
    """A deal played with random ids (to the end, or until ``stop(state)``)."""
    state = game.new_initial_state()
    while not state.is_terminal() and not (stop and stop(state)):
        if state.is_chance_node():
            chance(state, rng)
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def replayed(state):
    """The engine's deal replayed with every action checked by the rules."""
    engine = State(state.rules, seed=None, decks=state.engine.decks)
    for _, action in state.engine.history:
        engine.apply(action)            # check=True: an illegal action raises
    return engine


@pytest.mark.parametrize("preset", PRESETS)
def test_openspiel_random_simulation_and_serialisation_for_every_preset(preset):
    game = pyspiel.load_game(osa.game_name(preset, SMALL[preset]))
    assert game.num_players() == SMALL[preset] and game.num_distinct_actions() == osa.NUM_ACTIONS == 542
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_the_largest_table_passes_the_random_simulation_too():
    pyspiel.random_sim_test(pyspiel.load_game("pengyou_pagat_12"), num_sims=1, serialize=True, verbose=False)


def test_every_preset_and_table_is_registered_and_deals():
    names = set(pyspiel.registered_names())
    assert set(osa.registered_games()) <= names
    assert {"pengyou_tractor_4", "pengyou_pagat_12", "pengyou_bottom_eight_5"} <= set(osa.registered_games())
    rng = random.Random(0)
    for name, (preset, n) in osa.registered_games().items():
        state = pyspiel.load_game(name).new_initial_state()
        deck = len(Rules.preset(preset, players=n).deck())
        for _ in range(deck):
            assert state.is_chance_node()
            chance(state, rng)
        assert 0 <= state.current_player() < n and state.engine.rules.name == preset


def test_a_bad_returns_parameter_is_refused():
    with pytest.raises(Exception, match="returns: 'levels' is not one of game_points, card_margin, card_share"):
        pyspiel.load_game("pengyou_pagat_5", {"returns": "levels"})


def test_chance_deals_the_deck_face_by_face():
    state = pyspiel.load_game("pengyou_tractor_4").new_initial_state()
    first = dict(state.chance_outcomes())
    assert len(first) == 54 and first[0] == pytest.approx(2 / 108)
    state.apply_action(0)
    assert dict(state.chance_outcomes())[0] == pytest.approx(1 / 107)
    state.apply_action(0)
    assert 0 not in dict(state.chance_outcomes())
    with pytest.raises(Exception, match="no card of that face is left"):
        state.apply_action(0)


def reachable(state, player):
    """Every engine action the ids reach from a decision (depth first)."""
    out = set()
    for a in state.legal_actions():
        child = state.clone()
        child.apply_action(a)
        if len(child.actions) > len(state.actions):
            out.add(child.actions[-1])
        else:
            assert child.current_player() == player           # a selection keeps the player to move
            out |= reachable(child, player)
    return out


@pytest.mark.parametrize("preset", ["pagat", "tractor", "shengji-online"])
def test_the_ids_reach_exactly_the_legal_actions(preset):
    rng = random.Random(1)
    game = pyspiel.load_game(osa.game_name(preset, SMALL[preset]))
    checked = set()
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            chance(state, rng)
            continue
        if not state.picked and (state.engine.phase != 4 or rng.random() < 0.3):
            legal = set(state.engine.legal_actions())
            if len(legal) < 300:
                assert reachable(state, state.current_player()) == legal
                checked.add(state.engine.phase)
        state.apply_action(rng.choice(state.legal_actions()))
    replayed(state)
    assert {0, 4} <= checked                        # the draw and the play at least


def test_action_ids_and_their_names():
    assert osa.action_ids(Action.from_str("pass")) == [0]
    assert osa.action_ids(Action.from_str("bury 2C")) == [osa.BURY_AT + 0]
    assert osa.action_ids(Action.from_str("call AS 2")) == [osa.CALL_AT + 8 * 51 + 2]
    assert osa.action_ids(Action.from_str("play KS 3C 3C")) == [3, 3, 2 + 50, 1]
    state = pyspiel.load_game("pengyou_pagat_5").new_initial_state()
    assert state.action_to_string(0, 1) == "end" and state.action_to_string(0, 2 + 51) == "pick AS"
    assert state.action_to_string(0, osa.CALL_AT + 8 * 51) == "call AS other"


def test_serialisation_round_trips_mid_deal_and_mid_selection():
    rng = random.Random(2)
    game = pyspiel.load_game("pengyou_pagat_6")
    for stop_after in (30, 150, 250, 10_000):
        state = random_deal(game, rng, stop=lambda s, k=stop_after: len(s.history()) >= k)
        if not state.is_terminal() and not state.is_chance_node() and state.engine.phase == 4:
            while not state.picked:                                 # stop inside a card selection
                state.apply_action(min(a for a in state.legal_actions() if a >= osa.PICK))
        back = game.deserialize_state(state.serialize())
        assert str(back) == str(state) and back.history() == state.history()
        assert back.picked == state.picked and back.returns() == state.returns()
        if not state.is_chance_node() and not state.is_terminal():
            assert back.legal_actions() == state.legal_actions()
            assert all(back.information_state_string(p) == state.information_state_string(p) for p in range(6))
        assert str(pickle.loads(pickle.dumps(state))) == str(state)


def test_a_redeal_deals_a_fresh_deck_by_chance():
    rng = random.Random(3)
    game = pyspiel.load_game("pengyou_pagat_5")
    state = game.new_initial_state()
    while not state.engine or len(state.engine.decks) < 2 and state.engine.phase == 0:
        if state.is_chance_node():
            chance(state, rng)
        else:
            state.apply_action(osa.PASS_ID)       # nobody exposes: the engine redeals
        if state.is_chance_node() and state.decks:
            break
    assert state.is_chance_node() and len(state.decks) == 1 and len(state.history()) > 108
    while not state.is_terminal():
        if state.is_chance_node():
            chance(state, rng)
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert len(state.engine.decks) >= 2 and state.engine.redeals >= 1
    replayed(state)
    back = game.deserialize_state(state.serialize())
    assert back.returns() == state.returns() and back.engine.decks == state.engine.decks


def test_returns_in_game_points_card_margin_or_card_share():
    for seed in range(3):
        points = random_deal(pyspiel.load_game("pengyou_pagat_5"), random.Random(seed))
        margin = random_deal(pyspiel.load_game("pengyou_pagat_5", {"returns": "card_margin"}), random.Random(seed))
        share = random_deal(pyspiel.load_game("pengyou_pagat_5", {"returns": "card_share"}), random.Random(seed))
        assert points.history() == margin.history() == share.history()
        res = margin.engine.result
        m = card_margin(margin.rules, res.opponents_points)
        assert margin.returns() == [m if s in res.maker_side else -m for s in range(5)]
        assert share.returns() == pytest.approx([r / margin.rules.total_points for r in margin.returns()])
        assert points.returns() == [float(x) for x in points.engine.returns()]


def test_observation_and_information_state_tensors():
    game = pyspiel.load_game("pengyou_pagat_5")
    state = random_deal(game, random.Random(4), stop=lambda s: s.engine is not None and len(s.engine.tricks) >= 2)
    seat = state.current_player()
    tensor = state.information_state_tensor(seat)
    assert len(tensor) == game.information_state_tensor_size() == len(state.observation_tensor(seat)) == 165 * 5 + 187
    obs = osa.Observer(state.rules, pyspiel.IIGObservationType(perfect_recall=False), None)
    obs.set_from(state, seat)
    assert list(obs.dict["hand"]) == [state.engine.hand(seat).count(f) for f in range(54)]
    assert obs.dict["played"].sum() == sum(len(p) for _, plays in state.engine.tricks for p in plays)
    assert obs.dict["player"][seat] == 1 and obs.dict["phase"][4] == 1
    assert str(state.engine.view(seat)) in state.information_state_string(seat)
    other = (seat + 1) % 5
    assert str(state.engine.hand(seat)) not in state.observation_string(other).split("trump")[0]


@pytest.mark.parametrize("preset", ["pagat", "tractor", "stack"])
def test_resample_from_infostate_keeps_the_seats_information(preset):
    rng = random.Random(5)
    game = pyspiel.load_game(osa.game_name(preset, SMALL[preset]))
    phases, moved = set(), 0
    for _ in range(2):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                chance(state, rng)
                continue
            seat = state.current_player()
            if rng.random() < 0.15:
                world = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0.0, 1.0))
                assert world.information_state_string(seat) == state.information_state_string(seat)
                assert world.legal_actions() == state.legal_actions()
                assert world.engine.view(seat) == state.engine.view(seat)
                moved += any(world.engine.hand(s) != state.engine.hand(s) for s in range(state.rules.players))
                phases.add(state.engine.phase)
                while not world.is_terminal():                    # the world plays on to its own end
                    if world.is_chance_node():
                        chance(world, rng)
                    else:
                        world.apply_action(rng.choice(world.legal_actions()))
            state.apply_action(rng.choice(state.legal_actions()))
    assert 4 in phases and moved > 0


def test_a_state_built_from_a_view_is_the_view():
    rng = random.Random(6)
    for preset, n in (("pagat", 6), ("tractor", 4)):
        rules = Rules.preset(preset, players=n)
        game = osa.game_for(rules)
        s = State(rules, seed=3)
        built = 0
        while not s.is_terminal():
            if s.phase == 4 and len(s.tricks) % 4 == 1:
                seat = s.current_player()
                state = osa.state_from_view(game, s.view(seat), rng)
                assert state.engine.view(seat) == s.view(seat) and state.current_player() == seat
                built += 1
            s.apply(s.random_legal_action(rng))
        assert built > 0
    with pytest.raises(pyspiel.SpielError, match="not the play"):
        osa.state_from_view(game, State(rules, seed=3).view(0), rng)


def test_our_bots_play_whole_deals_as_openspiel_bots():
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots
    game = pyspiel.load_game("pengyou_tractor_4")
    bots = [PengyouBot(0, "heuristic", seed=0), PengyouBot(1, "random", seed=1),
            PengyouBot(2, "heuristic", seed=2), PengyouBot(3, "ismcts:iterations=20", seed=3)]
    import numpy as np
    for deal in range(2):
        returns = evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(deal))
        assert len(returns) == 4 and returns[0] == returns[2] and returns[1] == returns[3]   # fixed partners


def test_openspiel_bots_play_whole_deals_in_our_table():
    rules = Rules.preset("pagat", players=5)
    for spec in ("openspiel:random", "openspiel:mcts?sims=4", "openspiel:ismcts?sims=4",
                 "openspiel:ismcts?seconds=0.005"):
        entrant = make_bot(spec)
        assert type(entrant) is ENTRANTS[parse_spec(spec).name]
        state = play_deal(rules, 11, [entrant] + [make_bot("heuristic") for _ in range(4)], random.Random(0))
        assert state.is_terminal() and any(seat == 0 and a.kind == 4 for seat, a in state.history)


def test_steps_left_counts_the_choices_of_a_selection():
    rng = random.Random(8)
    state = random_deal(pyspiel.load_game("pengyou_tractor_4"), rng,
                        stop=lambda s: s.engine is not None and s.engine.phase == 4 and len(s.engine.tricks) >= 1
                        and not s.engine.play.is_leading)
    lead = len(state.engine.current_trick()[1][0])
    assert state.steps_left() == lead                    # a follow has the lead's size: the end is then forced
    state.apply_action(min(a for a in state.legal_actions() if a >= osa.PICK))
    assert state.steps_left() == max(1, lead - 1)


def test_openspiel_specs_read_and_print_with_a_question_mark():
    spec = parse_spec("openspiel:ismcts?sims=50,c=1.5")
    assert spec.name == "openspiel:ismcts" and dict(spec.params) == {"sims": 50, "c": 1.5}
    assert str(spec) == "openspiel:ismcts?c=1.5,sims=50" and parse_spec(str(spec)) == spec
    assert make_bot("openspiel:ismcts?sims=7,fallback=random").fallback.__class__.__name__ == "RandomBot"
    assert not any(name.startswith("openspiel:") for name in registry())      # loaded, yet not listed
    with pytest.raises(BotError, match="unknown bot 'openspiel:nosuch'"):
        make_bot("openspiel:nosuch")
    with pytest.raises(BotError, match="sims must be a whole number"):
        make_bot("openspiel:ismcts?sims=many")
    with pytest.raises(BotError, match="^bot 'openspiel:mcts': sims and rollouts must be at least 1$"):
        make_bot("openspiel:mcts?sims=0")
    with pytest.raises(BotError, match="^bot 'openspiel:ismcts': seconds must not be negative$"):
        make_bot("openspiel:ismcts?seconds=-1")
    with pytest.raises(BotError, match="^bot 'openspiel:ismcts': sims must be at least 2 "):
        make_bot("openspiel:ismcts?sims=1")


@pytest.mark.parametrize("trusted", ["builtins", "none"])
def test_an_openspiel_entrant_plays_a_duel(trusted):
    from arena.tournament.duel import run_duel
    res = run_duel("openspiel:ismcts?sims=3", "random", Rules.preset("pagat", players=5), deals=1, seed=1,
                   workers=1, secret="t", trusted=trusted)
    assert res["deals"] == 1 and res["a"]["bot"] == "openspiel:ismcts?sims=3"
    assert sum(res["deals_won"].values()) == 1
    assert res["difference"]["card_margin"]["mean"] == pytest.approx(
        res["a"]["card_margin"]["mean"] - res["b"]["card_margin"]["mean"])


def test_the_documented_example_runs():
    text = (ROOT / "docs" / "adapters.md").read_text(encoding="utf-8")
    section = text.split("## OpenSpiel", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks, "docs/adapters.md: the OpenSpiel section has no python example"
    scope: dict = {}
    exec(compile("\n".join(blocks), "docs/adapters.md", "exec"), scope)
    assert len(scope["state"].returns()) == 5 and scope["state"].is_terminal()


def test_without_openspiel_the_engine_and_the_other_bots_work_and_its_specs_say_what_is_missing():
    import subprocess
    import sys
    code = (
        "import sys; sys.modules['pyspiel'] = None\n"
        "from bots.registry import make_bot, registry\n"
        "from bots import BotError\n"
        "assert 'openspiel:ismcts' not in registry() and type(make_bot('ismcts')).__name__ == 'IsmctsBot'\n"
        "try:\n"
        "    make_bot('openspiel:ismcts?sims=5')\n"
        "except BotError as exc:\n"
        "    print(exc)\n"
        "assert 'arena.adapters.openspiel' not in sys.modules\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    line, = out.stdout.splitlines()
    assert line.startswith("bot 'openspiel:ismcts' needs an optional dependency: ")
    assert line.endswith("(pip install '.[openspiel]')")


def test_house_rules_games_pass_the_checks_and_resample_in_the_kitty_offer():
    rules = Rules.preset("pagat", players=6, kitty_theft=True)
    pyspiel.random_sim_test(osa.game_for(rules), num_sims=2, serialize=True, verbose=False)
    rng, offers = random.Random(7), 0
    for seed in range(200):
        s = State(rules, seed=seed)
        while not s.is_terminal():
            if s.phase == 2:                                # STEAL: the buried kitty offered to a seat
                seat = s.current_player()
                world = osa.resampled(s, seat, rng)
                assert world.view(seat) == s.view(seat)
                while not world.is_terminal():
                    world.apply(world.random_legal_action(rng))
                offers += 1
            s.apply(s.random_legal_action(rng))
        if offers >= 3:
            break
    assert offers >= 3


def test_the_arena_reads_an_openspiel_spec_as_one_builtin_with_its_code():
    from arena.table.entrants import BotRef
    ref = BotRef.parse("openspiel:ismcts?sims=3,c=1.0")
    assert (ref.kind, ref.name, ref.params) == ("builtin", "openspiel:ismcts", "sims=3,c=1.0")
    assert ref.code_files() == [str(ROOT / "arena" / "adapters" / "openspiel_bots.py")]
    assert ref.code_hash() not in ("missing", BotRef.parse("random").code_hash())


def test_an_openspiel_entrant_replays_a_deal_the_same():
    rules = Rules.preset("pagat", players=5)

    def history():
        bots = [make_bot("openspiel:ismcts?sims=6"), make_bot("openspiel:mcts?sims=4")]
        bots += [make_bot("heuristic") for _ in range(3)]
        return play_deal(rules, 5, bots, random.Random(9)).history

    first = history()
    assert history() == first
