"""What a bot's parameters are: ``describe_bot`` and ``pengyou bots``.

Every declared parameter must be one the constructor takes, every tuning span
must hold the default, and the command line lists the registry, shows one
bot's parameters and refuses an unknown bot in one line.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bots.base import BotError, Param, describe_bot, registry

ROOT = Path(__file__).resolve().parents[2]
BUILTINS = sorted(n for n in registry() if ".py:" not in n and not n.startswith("test-"))


def pengyou(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize("name", BUILTINS)
def test_declared_parameters_are_the_constructors_and_spans_hold_the_defaults(name: str) -> None:
    cls = registry()[name]
    summary, params = describe_bot(name)
    assert summary and summary == inspect.getdoc(cls).splitlines()[0]
    names = [p.name for p in params]
    declared = getattr(cls, "PARAMS", {})
    assert set(declared) <= set(names), f"{name}: PARAMS names what the constructor does not take"
    for p in params:
        if p.name in declared:
            assert p.doc, (name, p.name)
        if p.low is not None:
            assert p.high is not None and p.low <= p.default <= p.high, (name, p.name, p.default)
            assert p.type in ("int", "float"), (name, p.name)
        if p.choices:
            assert p.default in p.choices, (name, p.name)


def test_ismcts_every_parameter_has_a_meaning_and_the_numbers_a_span() -> None:
    _, params = describe_bot("ismcts")
    by = {p.name: p for p in params}
    assert set(by) == {"iterations", "seconds", "c", "widen_c", "widen_alpha", "reward", "late", "rollout",
                       "others", "race", "standing", "reuse", "steady", "infer", "root", "fallback"}
    assert (by["standing"].type, by["standing"].low, by["standing"].high) == ("int", 0, 16)
    assert by["infer"].choices == ("none", "maker", "table")
    assert (by["race"].type, by["race"].default, by["race"].low, by["race"].high) == ("float", 0.5, 0.0, 1.0)
    assert by["infer"].default == "maker"
    assert by["reward"].choices == ("points", "game", "late")
    assert (by["late"].type, by["late"].default, by["late"].low, by["late"].high) == ("int", 6, 0, 20)
    assert all(p.doc for p in params)
    assert (by["c"].type, by["c"].default, by["c"].low, by["c"].high) == ("float", 0.7, 0.0, 3.0)
    assert by["iterations"].type == "int" and by["iterations"].default == 1000
    assert by["rollout"].choices == ("auto", "random", "greedy", "informed") and by["rollout"].default == "auto"
    # the oracle takes **params and passes them on: its parameters are the search's
    assert [p.name for p in describe_bot("oracle")[1]] == [p.name for p in params]


def test_a_module_bot_without_declarations_shows_its_signature(tmp_path: Path) -> None:
    mod = tmp_path / "mine.py"
    mod.write_text('class Mine:\n    """My bot."""\n\n    def __init__(self, depth: int = 2, name: str = "x") -> None:\n'
                   "        pass\n\n    def restart(self, rules, seat, rng):\n        pass\n\n"
                   "    def step(self, view):\n        pass\n")
    summary, params = describe_bot(f"{mod}:Mine")
    assert summary == "My bot."
    assert [(p.name, p.type, p.default, p.low) for p in params] == [("depth", "int", 2, None), ("name", "str", "x", None)]


def test_param_knows_what_is_tunable() -> None:
    assert Param("x", 0, 1).tunable and not Param("x").tunable and not Param("x", choices=("a",)).tunable


def test_the_command_lists_the_bots_and_shows_one() -> None:
    p = pengyou("bots")
    assert p.returncode == 0, p.stderr
    listed = [ln.split()[0] for ln in p.stdout.splitlines()]
    assert listed == BUILTINS
    p = pengyou("bots", "ismcts")
    assert p.returncode == 0, p.stderr
    assert "  c (float, default 0.7)  tune 0..3" in p.stdout
    assert "  rollout (str, default 'auto')  one of auto, random, greedy, informed" in p.stdout
    p = pengyou("bots", "heuristic", "--json")
    data = json.loads(p.stdout)
    assert data["name"] == "heuristic" and len(data["params"]) == 13
    assert all(q["low"] is not None for q in data["params"])
    p = pengyou("bots", "random")
    assert p.returncode == 0 and "no parameters" in p.stdout


@pytest.mark.parametrize("name", ["nosuch", "missing/file.py:Bot"])
def test_an_unknown_bot_is_one_line(name: str) -> None:
    p = pengyou("bots", name)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pengyou: error:") and "Traceback" not in p.stderr


def test_describe_refuses_an_unknown_name() -> None:
    with pytest.raises(BotError, match="unknown bot 'nosuch'"):
        describe_bot("nosuch")
