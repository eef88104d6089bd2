"""Every rule setting described once (``core.rules.SETTINGS``), and ``pengyou rules [--list]`` printing it.

The descriptions cover every field of :class:`Rules`, the values in words agree
with what the checks accept at their edges, and the command prints each
setting's value under each preset as :meth:`Rules.preset` builds it.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from arena.commands import main
from core.errors import RulesError
from core.rules import PRESETS, SETTINGS, Rules, setting_values


def test_every_field_is_described_once_in_field_order():
    fields = [f.name for f in dataclasses.fields(Rules) if f.name != "name"]
    assert list(SETTINGS) == fields
    for name in fields:
        assert SETTINGS[name].strip() and setting_values(name).strip(), name


@pytest.mark.parametrize("name,refused,accepted", [
    ("throw_penalty", [-1], [0, 30]),
    ("target_rank", [1, 15], [2, 14]),
    ("target_points", [-1], [0, 13]),
    ("friend_calls", [-1, 6], [0, 5]),
])
def test_the_values_in_words_are_the_values_the_checks_take(name, refused, accepted):
    words = setting_values(name)
    for v in accepted:
        assert getattr(Rules.preset("pagat", players=6, **{name: v}), name) == v
        assert str(v) in words or "more" in words or "players - 1" in words
    for v in refused:
        with pytest.raises(RulesError, match=name):
            Rules.preset("pagat", players=6, **{name: v})


@pytest.mark.parametrize("name", ["follow_ladder", "kitty_multiplier", "exposure", "levels", "scoring",
                                  "failed_throw_unit", "failed_throw", "throw_winner", "throw_stopper", "throw_counts"])
def test_choices_and_switches_list_exactly_what_is_accepted(name):
    words = setting_values(name)
    if words == "true or false":
        for v in (True, False):
            Rules.preset("pagat", **{name: v})
        with pytest.raises(RulesError):
            Rules.preset("pagat", **{name: 1})
        return
    for choice in words.split(" | "):
        Rules.preset("pagat", **{name: choice})
    with pytest.raises(RulesError, match="is not one of " + ", ".join(words.split(" | "))):
        Rules.preset("pagat", **{name: "nonsense"})


def test_rules_list_prints_every_setting_and_each_presets_value(capsys):
    assert main(["rules", "--list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == list(SETTINGS)
    for r in rows:
        assert r["meaning"] == SETTINGS[r["name"]] and r["values"] == setting_values(r["name"])
        assert r["presets"] == {p: getattr(Rules.preset(p), r["name"]) for p in PRESETS}
    assert main(["rules", "--list"]) == 0
    text = capsys.readouterr().out
    for name in SETTINGS:
        assert f"\n{name}  ({setting_values(name)})\n" in text


def test_rules_prints_one_tables_settings(capsys):
    assert main(["rules", "--preset", "heli", "--players", "8", "--set", "throw_penalty=5", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    want = Rules.preset("heli", players=8, throw_penalty=5)
    assert got == {"preset": "heli", **{n: getattr(want, n) for n in SETTINGS}}
    assert main(["rules", "--preset", "heli"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "heli rules, 6 players" and "  joker_level            true" in lines


@pytest.mark.parametrize("argv,words", [
    (["rules", "--set", "colour=1"], "colour: no such rule setting"),
    (["rules", "--set", "levels=up"], "levels: 'up' is not one of active_passive, plain"),
    (["rules", "--set", "throw_counts=same"], "throw_counts: 'same' is not one of free, equal"),
    (["rules", "--preset", "stack", "--players", "7"], "preset 'stack' is for 6 players, not 7"),
])
def test_bad_settings_get_one_line(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("pengyou") and words in err[0], err
