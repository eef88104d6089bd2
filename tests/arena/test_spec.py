"""Tournament specs: TOML and options, identity, validation errors."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from arena.tournament.spec import TournamentSpec, spec_from_options, spec_from_toml
from arena.types import ArenaError, Entrant
from core.rules import Rules

ROOT = Path(__file__).resolve().parents[2]

DEMO_TOML = """\
name = "demo"
preset = "pagat"
players = 6
suite = "dev"
deals = 16
mode = "deals"
lineups = "pairs"
time_limit = 5
fallback = "heuristic"
workers = 2
[settings]
follow_ladder = true
throw_penalty = 5
[[entrant]]
name = "heur"
bot = "heuristic"
[[entrant]]
bot = "ismcts"
params = { iterations = 200, c = 0.7 }
"""

DEMO_FIELDS = dict(name="demo", preset="pagat", players=6, suite="dev", deals=16, mode="deals",
                   lineups="pairs", time_limit=5.0, fallback="heuristic", workers=2,
                   settings={"throw_penalty": 5, "follow_ladder": True})

BOT_MODULE = """\
class MyBot:
    def __init__(self, depth=1):
        self.depth = depth

    def restart(self, rules, seat, rng):
        pass

    def step(self, view):
        raise NotImplementedError


class BrokenBot(MyBot):
    def __init__(self):
        raise RuntimeError("no\\nway")
"""


def write(tmp_path: Path, text: str, name: str = "spec.toml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def one_line_error(excinfo: pytest.ExceptionInfo) -> str:
    msg = str(excinfo.value)
    assert msg and "\n" not in msg, msg
    return msg


# --------------------------------------------------------------------------
# building specs


def test_toml_reads_every_field(tmp_path):
    spec = spec_from_toml(write(tmp_path, DEMO_TOML))
    assert spec.entrants == (Entrant("heur", "heuristic"),
                             Entrant("ismcts:c=0.7,iterations=200", "ismcts:c=0.7,iterations=200"))
    assert (spec.name, spec.preset, spec.players, spec.suite, spec.deals) == ("demo", "pagat", 6, "dev", 16)
    assert (spec.mode, spec.lineups, spec.time_limit, spec.fallback, spec.workers) == \
        ("deals", "pairs", 5.0, "heuristic", 2)
    assert spec.settings == (("follow_ladder", True), ("throw_penalty", 5))
    assert (spec.rotations, spec.record, spec.cluster) == (0, True, "")
    rules = spec.rules()
    assert rules == Rules.preset("pagat", players=6, follow_ladder=True, throw_penalty=5)


def test_toml_and_options_give_the_same_identity(tmp_path):
    a = spec_from_toml(write(tmp_path, DEMO_TOML))
    b = spec_from_options(["heur=heuristic", "ismcts:iterations=200,c=0.7"], **DEMO_FIELDS)
    assert a == b
    assert a.identity() == b.identity()
    # settings given in another order, or as pairs, are the same spec
    c = spec_from_options(["heur=heuristic", "ismcts:c=0.7,iterations=200"],
                          **(DEMO_FIELDS | {"settings": (("follow_ladder", True), ("throw_penalty", 5))}))
    assert c.identity() == a.identity()


def test_defaults():
    spec = spec_from_options(["random", "heuristic"])
    assert (spec.name, spec.preset, spec.players, spec.settings, spec.suite, spec.deals) == \
        ("arena", "pagat", 6, (), "dev", 0)
    assert (spec.mode, spec.lineups, spec.rotations, spec.time_limit, spec.fallback) == \
        ("deals", "pairs", 0, 5.0, "heuristic")
    assert (spec.record, spec.workers, spec.cluster) == (True, 1, "")
    assert (spec.overage, spec.memory_mb, spec.trusted, spec.on_fault, spec.cheating) == \
        (30.0, 1024, "none", "forfeit", False)


def test_shipped_default_spec_loads():
    spec = spec_from_toml(str(ROOT / "arena" / "default.toml"))
    assert len(spec.entrants) >= 2 and spec.suite == "dev"


def test_json_round_trip():
    spec = spec_from_options(["random", "ismcts:iterations=50"], settings={"follow_ladder": True},
                             cluster="local", workers=3, rotations=1, record=False)
    text = json.dumps(spec.to_json())
    back = TournamentSpec.from_json(json.loads(text))
    assert back == spec and back.identity() == spec.identity()
    with pytest.raises(ArenaError) as ei:
        TournamentSpec.from_json(spec.to_json() | {"colour": "red"})
    assert "colour" in one_line_error(ei)


def test_one_bot_with_different_parameters_gives_distinct_entrants():
    spec = spec_from_options(["ismcts:iterations=100", "ismcts:iterations=400", "ismcts"])
    assert [e.name for e in spec.entrants] == ["ismcts:iterations=100", "ismcts:iterations=400", "ismcts"]
    assert len({e.spec for e in spec.entrants}) == 3
    swapped = spec_from_options(["ismcts:iterations=400", "ismcts:iterations=100", "ismcts"])
    assert swapped.identity() != spec.identity()       # entrant order is part of the schedule


def test_one_bot_with_different_parameters_in_toml(tmp_path):
    text = ('[[entrant]]\nbot = "ismcts"\nparams = { iterations = 100 }\n'
            '[[entrant]]\nbot = "ismcts"\nparams = { iterations = 300 }\n'
            '[[entrant]]\nbot = "ismcts:iterations=300"\nparams = { c = 0.5 }\n')
    spec = spec_from_toml(write(tmp_path, text))
    assert [e.spec for e in spec.entrants] == ["ismcts:iterations=100", "ismcts:iterations=300",
                                               "ismcts:c=0.5,iterations=300"]


def test_entrant_names_are_canonical_spec_text():
    spec = spec_from_options([" ismcts:iterations=50, c=1 ", "random"])
    assert spec.entrants[0] == Entrant("ismcts:c=1,iterations=50", "ismcts:c=1,iterations=50")


def test_labelled_entrants():
    spec = spec_from_options(["fast=ismcts:iterations=50", "slow=ismcts:iterations=500"])
    assert spec.entrants == (Entrant("fast", "ismcts:iterations=50"), Entrant("slow", "ismcts:iterations=500"))


def test_module_bots_keep_their_text(tmp_path):
    mod = tmp_path / "mybot.py"
    mod.write_text(BOT_MODULE)
    text = f"{mod}:MyBot?depth=3"
    spec = spec_from_options([text, "random"])
    assert spec.entrants[0] == Entrant(text, text)
    toml = (f'[[entrant]]\nbot = "{mod}:MyBot"\nparams = {{ depth = 2 }}\n'
            f'[[entrant]]\nname = "mine"\nbot = "{mod}:MyBot?depth=4"\n')
    spec = spec_from_toml(write(tmp_path, toml))
    assert spec.entrants[0].spec == f"{mod}:MyBot?depth=2"
    assert spec.entrants[1] == Entrant("mine", f"{mod}:MyBot?depth=4")


# --------------------------------------------------------------------------
# identity


def _changes() -> dict[str, object]:
    """A different value for every field but workers and cluster."""
    return {
        "name": "other", "entrants": (Entrant("random", "random"), Entrant("h", "heuristic")),
        "preset": "heli", "players": 7, "settings": (("follow_ladder", True),), "suite": "bench",
        "deals": 3, "mode": "matches", "lineups": "table", "rotations": 1, "time_limit": 2.5,
        "fallback": "random", "record": False, "overage": 4.0, "memory_mb": 512, "trusted": "builtins",
        "on_fault": "fallback", "cheating": True,
    }


def test_every_result_field_is_in_the_identity_case_list():
    fields = {f.name for f in dataclasses.fields(TournamentSpec)}
    assert set(_changes()) == fields - {"workers", "cluster"}


BASE = dict(name="base", preset="pagat", players=6, suite="dev", deals=2)


@pytest.mark.parametrize("field", sorted(_changes()))
def test_any_result_field_changes_the_identity(field):
    spec = spec_from_options(["random", "heuristic"], **BASE)
    other = dataclasses.replace(spec, **{field: _changes()[field]})
    other.validate()
    assert other.identity() != spec.identity()


@pytest.mark.parametrize("changes", [dict(workers=8), dict(cluster="local"),
                                     dict(cluster="tcp://10.0.0.1:8786", workers=3)])
def test_workers_and_cluster_do_not_change_the_identity(changes):
    spec = spec_from_options(["random", "heuristic"], **BASE)
    other = dataclasses.replace(spec, **changes)
    other.validate()
    assert other != spec and other.identity() == spec.identity()


def test_identity_is_a_stable_hex_digest():
    a = spec_from_options(["random", "heuristic"], **BASE).identity()
    b = spec_from_options(["random", "heuristic"], **BASE).identity()
    assert a == b and len(a) == 64 and int(a, 16) >= 0


def test_int_and_float_time_limits_are_the_same_spec():
    a = spec_from_options(["random", "heuristic"], time_limit=5)
    b = spec_from_options(["random", "heuristic"], time_limit=5.0)
    assert a.identity() == b.identity() and isinstance(a.time_limit, float)


# --------------------------------------------------------------------------
# validation: every mistake is one ArenaError line

OPTION_ERRORS = [
    # id, bots, fields, fragment of the message
    ("one-entrant", ["random"], {}, "at least 2 entrants, got 1"),
    ("no-entrants", [], {}, "at least 2 entrants, got 0"),
    ("duplicate-names", ["random", "random"], {}, "entrant name 'random' is used twice"),
    ("duplicate-canonical", ["ismcts:c=1,iterations=9", "ismcts:iterations=9,c=1"], {}, "used twice"),
    ("duplicate-labels", ["a=random", "a=heuristic"], {}, "entrant name 'a' is used twice"),
    ("unknown-bot", ["random", "nobody"], {}, "unknown bot 'nobody'"),
    ("bad-params", ["random", "ismcts:speed=3"], {}, "bot 'ismcts': bad parameters"),
    ("bad-param-value", ["random", "ismcts:iterations=0"], {}, "ismcts"),
    ("not-key-value", ["random", "ismcts:fast"], {}, "parameter 'fast' is not key=value"),
    ("missing-module", ["random", "/no/such/bot.py:Bot"], {}, "no such file"),
    ("unknown-preset", ["random", "heuristic"], {"preset": "poker"}, "preset: unknown preset 'poker'"),
    ("too-many-players", ["random", "heuristic"], {"players": 13}, "players: 13 is not a table size"),
    ("too-few-players", ["random", "heuristic"], {"players": 4}, "players: 4"),
    ("preset-fixed-size", ["random", "heuristic"], {"preset": "stack", "players": 7}, "for 6 players"),
    ("unknown-setting", ["random", "heuristic"], {"settings": {"colour": 1}}, "colour: no such rule setting"),
    ("bad-setting", ["random", "heuristic"], {"settings": {"kitty_multiplier": "triple"}}, "kitty_multiplier"),
    ("players-as-setting", ["random", "heuristic"], {"settings": {"players": 5}}, "players"),
    ("settings-not-pairs", ["random", "heuristic"], {"settings": 5}, "settings: expected"),
    ("bad-mode", ["random", "heuristic"], {"mode": "tricks"}, "mode: 'tricks' is not one of deals, matches"),
    ("bad-lineups", ["random", "heuristic"], {"lineups": "all"}, "lineups: 'all' is not one of pairs, table"),
    ("negative-time", ["random", "heuristic"], {"time_limit": -1}, "time_limit"),
    ("nan-time", ["random", "heuristic"], {"time_limit": float("nan")}, "time_limit"),
    ("negative-deals", ["random", "heuristic"], {"deals": -2}, "deals: -2 is negative"),
    ("negative-rotations", ["random", "heuristic"], {"rotations": -1}, "rotations: -1 is negative"),
    ("no-workers", ["random", "heuristic"], {"workers": 0}, "workers: 0 is not at least 1"),
    ("bad-cluster", ["random", "heuristic"], {"cluster": "somewhere"}, "cluster"),
    ("bad-fallback", ["random", "heuristic"], {"fallback": "nobody", "on_fault": "fallback"},
     "fallback: unknown bot 'nobody'"),
    ("bad-fallback-params", ["random", "heuristic"], {"fallback": "ismcts:x=1", "on_fault": "fallback"},
     "fallback: bot 'ismcts'"),
    ("bad-trust", ["random", "heuristic"], {"trusted": "all"}, "trusted: 'all' is not one of none, builtins"),
    ("bad-policy", ["random", "heuristic"], {"on_fault": "ignore"}, "on_fault: 'ignore' is not one of"),
    ("oracle-not-allowed", ["random", "oracle"], {"trusted": "builtins"}, "reads every hand (it cheats)"),
    ("empty-fallback", ["random", "heuristic"], {"fallback": ""}, "fallback"),
    ("players-text", ["random", "heuristic"], {"players": "6"}, "players: expected a whole number"),
    ("players-bool", ["random", "heuristic"], {"players": True}, "players: expected a whole number"),
    ("deals-float", ["random", "heuristic"], {"deals": 2.5}, "deals: expected a whole number"),
    ("record-text", ["random", "heuristic"], {"record": "yes"}, "record: expected true or false"),
    ("empty-name", ["random", "heuristic"], {"name": ""}, "name"),
    ("unknown-field", ["random", "heuristic"], {"colour": "red"}, "unknown spec field(s): colour"),
    ("entrants-field", ["random", "heuristic"], {"entrants": ()}, "unknown spec field(s): entrants"),
    ("bots-as-text", "random heuristic", {}, "list of bot specs"),
    ("too-few-seats", ["random", "heuristic", "ismcts", "oracle", "a=random", "b=heuristic"],
     {"players": 5, "lineups": "table"},
     'a spec with too few seats: 6 entrants at one table of 5 players; '
     'use lineups = "pairs" or more players'),
]


@pytest.mark.parametrize("bots, fields, fragment", [c[1:] for c in OPTION_ERRORS],
                         ids=[c[0] for c in OPTION_ERRORS])
def test_option_errors(bots, fields, fragment):
    with pytest.raises(ArenaError) as ei:
        spec_from_options(bots, **fields)
    assert fragment in one_line_error(ei)


def test_bot_errors_keep_the_bot_text():
    from bots.base import BotError, make_bot

    with pytest.raises(BotError) as want:
        make_bot("ismcts:speed=3")
    with pytest.raises(ArenaError) as got:
        spec_from_options(["random", "ismcts:speed=3"])
    assert str(got.value) == str(want.value)


def test_a_table_with_enough_seats_is_fine():
    spec = spec_from_options(["random", "heuristic", "ismcts", "oracle", "a=random"],
                             players=5, lineups="table", cheating=True, trusted="builtins")
    assert len(spec.entrants) == 5


def test_a_crashing_bot_constructor_is_one_line(tmp_path):
    mod = tmp_path / "mybot.py"
    mod.write_text(BOT_MODULE)
    with pytest.raises(ArenaError) as ei:
        spec_from_options([f"{mod}:BrokenBot", "random"])
    msg = one_line_error(ei)
    assert "RuntimeError" in msg and "no way" in msg


@pytest.mark.parametrize("source, fragment", [
    ("import os\nos._exit(4)\n", "its process ended before answering hello (exit code 4)"),
    ("import os\nclass Bot:\n    def __init__(self):\n        os._exit(5)\n"
     "    def restart(self, rules, seat, rng): pass\n    def step(self, view): pass\n",
     "its process ended before answering hello (exit code 5)"),
    ("class Bot:\n    def __init__(self):\n        raise SystemExit(6)\n"
     "    def restart(self, rules, seat, rng): pass\n    def step(self, view): pass\n",
     "loading the bot raised SystemExit: 6"),
])
def test_a_module_that_ends_the_process_is_refused_and_this_one_goes_on(tmp_path, source, fragment):
    mod = tmp_path / "dies.py"
    mod.write_text(source)
    with pytest.raises(ArenaError) as ei:
        spec_from_options([f"{mod}:Bot", "random"])
    assert fragment in one_line_error(ei)


def test_replace_then_validate():
    """What ``arena run`` does with command-line overrides."""
    spec = spec_from_options(["random", "heuristic"])
    bad = dataclasses.replace(spec, players=3)
    with pytest.raises(ArenaError):
        bad.validate()
    good = dataclasses.replace(spec, players=8, settings=(("throw_penalty", 0),))
    good.validate()
    assert good.rules().players == 8 and good.rules().throw_penalty == 0


TOML_ERRORS = [
    # id, file text, fragment of the message
    ("syntax", 'name = "x"\nplayers = \n', "TOML syntax error"),
    ("syntax-line", 'name = "x"\n\n[[entrant]\nbot = "random"\n', "line 3"),
    ("unknown-keys", 'colour = "red"\nsize = 3\n[[entrant]]\nbot = "random"\n[[entrant]]\nbot = "heuristic"\n',
     "unknown key(s) colour, size"),
    ("players-text", 'players = "six"\n', "players: expected a whole number, got 'six'"),
    ("players-float", 'players = 6.0\n', "players: expected a whole number"),
    ("deals-bool", 'deals = true\n', "deals: expected a whole number"),
    ("time-text", 'time_limit = "5s"\n', "time_limit: expected a number of seconds"),
    ("record-int", 'record = 1\n', "record: expected true or false"),
    ("settings-not-table", 'settings = 3\n', "settings: expected a table"),
    ("entrant-not-array", 'entrant = "random"\n', "entrant: expected [[entrant]] tables"),
    ("entrant-no-bot", '[[entrant]]\nname = "x"\n', "entrant 1: no bot"),
    ("entrant-unknown-key", '[[entrant]]\nbot = "random"\n[[entrant]]\nbot = "random"\nlevel = 3\n',
     "entrant 2: unknown key(s) level"),
    ("entrant-bot-not-text", '[[entrant]]\nbot = 3\n', "entrant 1: bot: expected a bot spec string"),
    ("entrant-params-not-table", '[[entrant]]\nbot = "ismcts"\nparams = 3\n', "entrant 1: params: expected"),
    ("entrant-params-nested", '[[entrant]]\nbot = "ismcts"\nparams = { a = [1, 2] }\n', "entrant 1:"),
    ("entrant-param-comma", '[[entrant]]\nbot = "ismcts"\nparams = { a = "x,y" }\n', "entrant 1:"),
    ("entrant-name-not-text", '[[entrant]]\nbot = "random"\nname = 3\n', "entrant 1: name: expected a string"),
    ("no-entrants", 'name = "x"\n', "at least 2 entrants, got 0"),
    ("duplicate-names", '[[entrant]]\nbot = "random"\n[[entrant]]\nbot = "heuristic"\nname = "random"\n',
     "entrant name 'random' is used twice"),
    ("unknown-bot", '[[entrant]]\nbot = "random"\n[[entrant]]\nbot = "nobody"\n', "unknown bot 'nobody'"),
    ("bad-setting", '[settings]\nthrow_penalty = "lots"\n[[entrant]]\nbot = "random"\n'
                    '[[entrant]]\nbot = "heuristic"\n', "throw_penalty"),
    ("too-few-seats", 'players = 5\nlineups = "table"\n'
                      + "".join(f'[[entrant]]\nname = "e{i}"\nbot = "random"\n' for i in range(6)),
     "a spec with too few seats: 6 entrants at one table of 5 players"),
    ("not-utf8", b"name = \"\xff\"\n", "cannot read"),
]


@pytest.mark.parametrize("text, fragment", [c[1:] for c in TOML_ERRORS], ids=[c[0] for c in TOML_ERRORS])
def test_toml_errors(tmp_path, text, fragment):
    path = tmp_path / "spec.toml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    with pytest.raises(ArenaError) as ei:
        spec_from_toml(str(path))
    msg = one_line_error(ei)
    assert msg.startswith(f"{path}: ")
    assert fragment in msg


def test_toml_missing_and_unreadable(tmp_path):
    with pytest.raises(ArenaError) as ei:
        spec_from_toml(str(tmp_path / "none.toml"))
    assert "no such spec file" in one_line_error(ei)
    with pytest.raises(ArenaError) as ei:
        spec_from_toml(str(tmp_path))
    assert "cannot read" in one_line_error(ei)
