"""Rule settings: presets, the player table and validation (``core/rules.py``)."""

from __future__ import annotations

import dataclasses

import pytest

from core.errors import RulesError
from core.rules import PLAYER_TABLE, PRESETS, Rules

#: preset -> the table sizes it is built for
ALLOWED = {
    "pagat": range(5, 13),
    "heli": range(5, 13),
    "thirteen": range(5, 13),
    "bottom-eight": (5,),
    "stack": (6,),
    "tractor": (4,),
    "shengji-online": range(5, 13),
}

PRESET_CASES = [pytest.param(name, n, id=f"{name}-{n}") for name, ns in ALLOWED.items() for n in ns]


def test_presets_listed():
    assert set(PRESETS) == set(ALLOWED)


@pytest.mark.parametrize("name,players", PRESET_CASES)
def test_preset_builds_and_cards_add_up(name, players):
    r = Rules.preset(name, players=players)
    assert r.players == players
    assert r.name == name
    jokers = r.red_jokers + r.black_jokers
    assert r.hand_size * r.players + r.kitty_size == 52 * r.packs + jokers
    assert r.kitty_size >= 0 and r.hand_size > 0
    assert 0 <= r.friend_calls < r.players
    assert r.total_points == 100 * r.packs
    # building again gives an equal value
    assert Rules.preset(name, players=players) == r


@pytest.mark.parametrize("name,players", [("bottom-eight", 5), ("stack", 6), ("pagat", 6),
                                          ("heli", 6), ("thirteen", 6), ("tractor", 4),
                                          ("shengji-online", 6)])
def test_preset_default_players(name, players):
    assert Rules.preset(name).players == players


# players: (packs, red jokers, black jokers, hand size, kitty size)
TABLE = {
    5: (2, 2, 2, 20, 8),
    6: (2, 2, 2, 17, 6),
    7: (2, 0, 0, 14, 6),
    8: (3, 2, 0, 19, 6),
    9: (3, 3, 0, 17, 6),
    10: (3, 0, 0, 15, 6),
    11: (3, 2, 2, 14, 6),
    12: (4, 2, 0, 17, 6),
}


@pytest.mark.parametrize("players", sorted(TABLE), ids=lambda n: f"{n}p")
def test_player_table(players):
    packs, red, black, hand, kitty = TABLE[players]
    r = Rules.preset("pagat", players=players)
    assert (r.packs, r.red_jokers, r.black_jokers, r.hand_size, r.kitty_size) == (packs, red, black, hand, kitty)
    assert PLAYER_TABLE[players] == (packs, red, black, hand)


def test_player_table_covers_4_to_12():
    assert sorted(PLAYER_TABLE) == list(range(4, 13))


def test_four_players_deal_the_tractor_hands():
    """Two packs with jokers: 4 hands of 25 and a kitty of 8, as in ``003``."""
    r = Rules.preset("tractor")
    assert PLAYER_TABLE[4] == (2, 2, 2, 25)
    assert (r.packs, r.red_jokers, r.black_jokers, r.hand_size, r.kitty_size) == (2, 2, 2, 25, 8)


@pytest.mark.parametrize(
    "players,calls", [(5, 1), (6, 2), (7, 2), (8, 3), (9, 3), (10, 4), (11, 4), (12, 5)],
    ids=lambda v: str(v),
)
def test_friend_calls_by_table(players, calls):
    assert Rules.preset("pagat", players=players).friend_calls == calls


def test_preset_specifics():
    h = Rules.preset("heli", players=7)
    assert (h.scoring, h.exposure, h.levels, h.joker_level) == ("heli", "heli", "plain", True)
    assert Rules.preset("thirteen", players=8).target_points == 13
    b = Rules.preset("bottom-eight")
    assert (b.kitty_size, b.throw_penalty, b.friend_calls, b.friend_other, b.exposure) == (8, 0, 1, True, "bottom_eight")
    s = Rules.preset("stack")
    assert (s.exposure, s.kitty_multiplier, s.friend_calls) == ("stack", "unit_double", 2)
    p = Rules.preset("pagat", players=6)
    assert (p.follow_ladder, p.protect_longer_sets, p.tractor_past_ace, p.throw_penalty) == (False, False, False, 10)


def test_overrides_apply():
    r = Rules.preset("pagat", players=8, follow_ladder=True, throw_penalty=0, scoring="bands")
    assert (r.follow_ladder, r.throw_penalty, r.scoring) == (True, 0, "bands")
    assert r.packs == 3


def test_default_rules_valid():
    r = Rules()
    assert r.hand_size * r.players + r.kitty_size == 52 * r.packs + r.red_jokers + r.black_jokers


# --------------------------------------------------------------------------
# bad settings: RulesError whose message starts with the setting's name

BAD = [
    ("unknown-preset", "preset", lambda: Rules.preset("nope", players=6)),
    ("unknown-preset-case", "preset", lambda: Rules.preset("Pagat", players=6)),
    ("unknown-setting", "bogus", lambda: Rules.preset("pagat", players=6, bogus=1)),
    ("unknown-setting-replace", "colour", lambda: Rules.preset("pagat").replace(colour="red")),
    ("bad-choice-kitty", "kitty_multiplier", lambda: Rules.preset("pagat", players=6, kitty_multiplier="triple")),
    ("bad-choice-scoring", "scoring", lambda: Rules.preset("pagat", players=6, scoring="golf")),
    ("bad-choice-exposure", "exposure", lambda: Rules.preset("heli", players=6, exposure="bottom-eight")),
    ("bad-choice-unit", "failed_throw_unit", lambda: Rules.preset("pagat", failed_throw_unit="largest")),
    ("bad-choice-failed-throw", "failed_throw", lambda: Rules.preset("pagat", failed_throw="stop")),
    ("bool-as-failed-throw", "failed_throw", lambda: Rules.preset("pagat", failed_throw=True)),
    ("bad-choice-levels", "levels", lambda: Rules.preset("pagat", levels=1)),
    ("bad-choice-throw-counts", "throw_counts", lambda: Rules.preset("pagat", throw_counts="same")),
    ("bool-as-int", "follow_ladder", lambda: Rules.preset("pagat", players=6, follow_ladder=1)),
    ("bool-as-int-0", "protect_longer_sets", lambda: Rules.preset("pagat", protect_longer_sets=0)),
    ("bool-as-str", "tractor_past_ace", lambda: Rules.preset("pagat", tractor_past_ace="yes")),
    ("bool-as-int-joker", "joker_level", lambda: Rules.preset("pagat", joker_level=1)),
    ("int-as-bool", "throw_penalty", lambda: Rules.preset("pagat", throw_penalty=True)),
    ("int-as-str", "target_points", lambda: Rules.preset("pagat", target_points="13")),
    ("negative-penalty", "throw_penalty", lambda: Rules.preset("pagat", players=6, throw_penalty=-1)),
    ("negative-target-points", "target_points", lambda: Rules.preset("pagat", target_points=-5)),
    ("target-rank-high", "target_rank", lambda: Rules.preset("pagat", target_rank=15)),
    ("target-rank-low", "target_rank", lambda: Rules.preset("pagat", target_rank=1)),
    ("players-13", "players", lambda: Rules.preset("pagat", players=13)),
    ("players-4", "players", lambda: Rules.preset("pagat", players=4)),
    ("heli-4", "players", lambda: Rules.preset("heli", players=4)),
    ("tractor-6", "players", lambda: Rules.preset("tractor", players=6)),
    ("rules-4-called", "players and partners", lambda: Rules(players=4, hand_size=25, kitty_size=8,
                                                             friend_calls=0)),
    ("fixed-odd", "partners and players", lambda: Rules.preset("pagat", players=5, partners="fixed",
                                                               friend_calls=0)),
    ("fixed-calls", "partners and friend_calls", lambda: Rules.preset("pagat", players=6, partners="fixed")),
    ("tractor-calls", "partners and friend_calls", lambda: Rules.preset("tractor", friend_calls=1)),
    ("bad-choice-partners", "partners", lambda: Rules.preset("pagat", partners="teams")),
    ("players-0", "players", lambda: Rules.preset("heli", players=0)),
    ("players-str", "players", lambda: Rules.preset("pagat", players="6")),
    ("players-bool", "players", lambda: Rules.preset("pagat", players=True)),
    ("stack-7", "players", lambda: Rules.preset("stack", players=7)),
    ("shengji-online-4", "players", lambda: Rules.preset("shengji-online", players=4)),
    ("shengji-online-4", "players", lambda: Rules.preset("shengji-online", players=4)),
    ("bottom-eight-6", "players", lambda: Rules.preset("bottom-eight", players=6)),
    ("rules-players-3", "players", lambda: Rules(players=3)),
    ("rules-players-13", "players", lambda: Rules(players=13)),
    ("friend-calls-too-many", "friend_calls", lambda: Rules.preset("pagat", players=6, friend_calls=6)),
    ("friend-calls-negative", "friend_calls", lambda: Rules.preset("pagat", players=12, friend_calls=-1)),
    ("hand-size-wrong", "hand_size", lambda: Rules.preset("pagat", players=6, hand_size=16)),
    ("hand-size-zero", "hand_size", lambda: Rules.preset("pagat", players=6, hand_size=0)),
    ("packs-9", "packs", lambda: Rules.preset("pagat", players=6, packs=9)),
    ("packs-0", "packs", lambda: Rules.preset("pagat", players=6, packs=0)),
    ("red-jokers", "red_jokers", lambda: Rules.preset("pagat", players=6, red_jokers=3)),
    ("black-jokers", "black_jokers", lambda: Rules.preset("pagat", players=6, black_jokers=-1)),
]


@pytest.mark.parametrize("setting,build", [pytest.param(s, b, id=i) for i, s, b in BAD])
def test_bad_setting_names_itself(setting, build):
    with pytest.raises(RulesError) as ei:
        build()
    msg = str(ei.value)
    assert msg.startswith(setting + ":"), msg
    assert "\n" not in msg
    assert isinstance(ei.value, ValueError)


def test_bad_choice_lists_the_choices():
    with pytest.raises(RulesError) as ei:
        Rules.preset("pagat", players=6, kitty_multiplier="triple")
    assert str(ei.value) == (
        "kitty_multiplier: 'triple' is not one of double, by_cards, unit_double, unit_power, cards_per_player, "
        "pairs_power"
    )


def test_unknown_preset_lists_known():
    with pytest.raises(RulesError) as ei:
        Rules.preset("nope")
    for name in PRESETS:
        assert name in str(ei.value)


# --------------------------------------------------------------------------
# frozen, and replace validates


def test_rules_frozen():
    r = Rules.preset("pagat", players=6)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.players = 7  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.follow_ladder = True  # type: ignore[misc]
    assert r.players == 6 and r.follow_ladder is False
    assert hash(r) == hash(Rules.preset("pagat", players=6))


def test_replace_returns_validated_copy():
    r = Rules.preset("pagat", players=6)
    r2 = r.replace(follow_ladder=True, throw_penalty=5)
    assert (r2.follow_ladder, r2.throw_penalty) == (True, 5)
    assert (r.follow_ladder, r.throw_penalty) == (False, 10)
    assert r2 != r
    assert r2.replace(follow_ladder=False, throw_penalty=10) == r


@pytest.mark.parametrize(
    "changes,setting",
    [
        ({"follow_ladder": 1}, "follow_ladder"),
        ({"throw_penalty": -10}, "throw_penalty"),
        ({"scoring": "nope"}, "scoring"),
        ({"hand_size": 18}, "hand_size"),
        ({"friend_calls": 9}, "friend_calls"),
        ({"nonsense": True}, "nonsense"),
    ],
    ids=lambda v: next(iter(v)) if isinstance(v, dict) else None,
)
def test_replace_validates(changes, setting):
    r = Rules.preset("pagat", players=6)
    with pytest.raises(RulesError) as ei:
        r.replace(**changes)
    assert str(ei.value).startswith(setting + ":")


def test_name_not_compared():
    a = Rules.preset("pagat", players=6)
    b = Rules(**{f.name: getattr(a, f.name) for f in dataclasses.fields(a) if f.name != "name"})
    assert b.name == "custom"
    assert a == b
