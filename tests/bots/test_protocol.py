"""The bot protocol, specs and registry, and loading users' bot modules."""

from __future__ import annotations

import pickle
import random
import sys
import textwrap

import pytest

from bots import BotError, BotSpec, load_bot_module, make_bot, parse_spec, play_deal, registry
from core.actions import Action
from core.errors import IllegalActionError
from core.rules import Rules
from core.state import PlayerView, State


def test_specs_parse_and_pickle():
    spec = parse_spec("heuristic:expose_min_trumps=4,throw_risk=0.0")
    assert spec == BotSpec("heuristic", (("expose_min_trumps", 4), ("throw_risk", 0.0)))
    assert pickle.loads(pickle.dumps(spec)) == spec
    assert parse_spec(str(spec)) == spec
    assert make_bot(spec).expose_min_trumps == 4


@pytest.mark.parametrize("text,msg", [
    ("", "expected a bot name"),
    ("nosuchbot", "unknown bot 'nosuchbot'"),
    ("heuristic:oops", "not key=value"),
    ("heuristic:no_such_param=1", "bad parameters: unknown 'no_such_param' (known: "),
    ("ismcts:c=abc", "bad parameters: c must be a number, got 'abc'"),
    ("ismcts:iterations=2.5", "iterations must be a whole number, got 2.5"),
    ("ismcts:rollout=3", "rollout must be text, got 3"),
    ("ismcts:iterations=true", "iterations must be a whole number, got True"),
    ("oracle:speed=3", "bad parameters: unknown 'speed'"),   # passes **params to its base
    ("ismcts:iterations=0", "iterations must be at least 1"),
    ("ismcts:race=1.5", "race is a chance: from 0 to 1"),
    ("ismcts:race=-1", "race is a chance: from 0 to 1"),
])
def test_bad_specs(text, msg):
    with pytest.raises(BotError) as exc:
        make_bot(text)
    assert msg in str(exc.value) and "\n" not in str(exc.value)


def test_parameter_checks_follow_a_user_class(tmp_path):
    path = tmp_path / "typed.py"
    path.write_text(
        "class Typed:\n"
        "    def __init__(self, depth: int = 2, name='x'):\n"
        "        self.depth = depth\n"
        "    def restart(self, rules, seat, rng): pass\n"
        "    def step(self, view): return view.legal_actions()[0]\n")
    with pytest.raises(BotError, match="depth must be a whole number, got 'deep'"):
        make_bot(f"{path}:Typed?depth=deep")
    with pytest.raises(BotError, match=r"unknown 'width' \(known: depth, name\)"):
        make_bot(f"{path}:Typed?width=3")
    assert make_bot(f"{path}:Typed?depth=5,name=7").depth == 5   # unannotated: any value


def test_builtin_bots_are_registered():
    assert {"random", "heuristic"} <= set(registry())


class Spy:
    """Records what the protocol hands it."""

    def __init__(self):
        self.seen = []

    def restart(self, rules, seat, rng):
        self.seat = seat
        self.rng = rng

    def step(self, view):
        self.seen.append(view)
        return view.random_action(self.rng)


def test_bots_only_ever_see_their_own_view():
    rules = Rules.preset("pagat", players=5)
    spies = [Spy() for _ in range(5)]
    s = play_deal(rules, 3, spies, random.Random(3))
    assert s.is_terminal()
    for seat, spy in enumerate(spies):
        assert spy.seen, "every seat decides at least once"
        for v in spy.seen:
            assert type(v) is PlayerView and v.seat == seat and v.to_move
            assert not any(isinstance(x, State) for x in vars(v).values())


class Cheater(Spy):
    def step(self, view):
        return Action.from_str("play RJ RJ RJ")


def test_an_illegal_bot_action_is_refused_with_the_seat():
    rules = Rules.preset("pagat", players=5)
    with pytest.raises(IllegalActionError) as exc:
        play_deal(rules, 3, [Cheater()] * 5, random.Random(3))
    assert str(exc.value).startswith("seat ")


def test_same_seed_same_game():
    rules = Rules.preset("pagat", players=6)
    a = play_deal(rules, 9, [make_bot("heuristic") for _ in range(6)], random.Random(9))
    b = play_deal(rules, 9, [make_bot("heuristic") for _ in range(6)], random.Random(9))
    assert a.history == b.history and a.result == b.result


GOOD = '''
from bots.random_bot import RandomBot

class MyBot(RandomBot):
    """Plays at random, with a name of its own."""
'''


@pytest.mark.parametrize("source,cls,msg", [
    (GOOD, "Missing", "defines no 'Missing'"),
    ("def broken(:\n    pass\n", "MyBot", "syntax error on line 1"),
    ("import no_such_module_here\n", "MyBot", "failed to import: ModuleNotFoundError"),
    ("import sys\nsys.exit(3)\n", "MyBot", "failed to import: SystemExit: 3"),
    ("MyBot = 3\n", "MyBot", "is not a class"),
    ("class MyBot:\n    def step(self, view):\n        return None\n", "MyBot", "lacks restart()"),
])
def test_broken_user_modules_give_one_line(tmp_path, source, cls, msg):
    path = tmp_path / "mybot.py"
    path.write_text(textwrap.dedent(source))
    with pytest.raises(BotError) as exc:
        make_bot(f"{path}:{cls}")
    assert msg in str(exc.value) and "\n" not in str(exc.value)


def test_classes_of_one_file_share_one_module(tmp_path):
    path = tmp_path / "pair.py"
    path.write_text(GOOD + "\nLOADS = []\nLOADS.append(1)\n\nclass Other(MyBot):\n    pass\n")
    a, b = make_bot(f"{path}:MyBot"), make_bot(f"{path}:Other")
    assert type(b).__mro__[1] is type(a)                  # the same class object, so one module
    assert sys.modules[type(a).__module__].LOADS == [1]   # executed once


def test_a_module_that_failed_to_import_is_tried_again(tmp_path):
    path = tmp_path / "flaky.py"
    path.write_text("raise RuntimeError('not yet')\n")
    with pytest.raises(BotError, match="failed to import: RuntimeError: not yet"):
        make_bot(f"{path}:MyBot")
    with pytest.raises(BotError, match="failed to import: RuntimeError: not yet"):
        make_bot(f"{path}:MyBot")     # the same error again, not a half-made module's
    path.write_text(GOOD)
    assert make_bot(f"{path}:MyBot") is not None


def test_a_user_module_plays(tmp_path):
    path = tmp_path / "mybot.py"
    path.write_text(GOOD)
    bot = make_bot(f"{path}:MyBot")
    rules = Rules.preset("pagat", players=5)
    s = play_deal(rules, 2, [bot] + [make_bot("random") for _ in range(4)], random.Random(2))
    assert s.is_terminal()
    with pytest.raises(BotError, match="no such file"):
        load_bot_module(f"{tmp_path}/nope.py:MyBot")


def test_the_guide_example_bot_plays_whole_deals():
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "docs" / "examples" / "high_card_bot.py"
    rules = Rules.preset("pagat", players=5)
    for seed in range(3):
        bots = [make_bot(f"{example}:HighCardBot")] + [make_bot("random") for _ in range(4)]
        assert play_deal(rules, seed, bots, random.Random(seed)).is_terminal()
