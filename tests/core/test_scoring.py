"""Scoring one deal (``core/scoring.py``).

Every expected value was worked out by hand from ``shared/design/RULES.md``
("Scoring one deal") and the tables of the rules texts: the 5..12-player
tables and Rick Heli's 5-player table of ``000_99040cfb4a5a08c4.txt``, the
bands and the x2/x3/x4 kitty option of ``003_5364679ce7d70e16.txt``, and the
bands and kitty multiplier of ``004_4d3f609194c8fc0d.txt``. The tables below
are transcriptions of those texts, never output of the code under test.
"""

from __future__ import annotations

import pytest

from core.errors import PengyouError
from core.rules import Rules
from core.scoring import DealScore, kitty_multiplier, opponents_points, score_deal

M, OPP = "maker", "opponents"

# --------------------------------------------------------------------------
# pagat: the tables of 000, one per table size, as printed there.
# Columns: the defenders' (opponents') card points, low..high (None = "or more").
# Maker rows: maker side size -> (win at zero, win in the second column).
# Defenders win 1, 2, 3 in columns 3, 4, 5 whatever the maker side's size.

COLS_2 = ((0, 0), (5, 75), (80, 155), (160, 195), (200, None))
COLS_3 = ((0, 0), (5, 115), (120, 235), (240, 295), (300, None))
COLS_4 = ((0, 0), (5, 155), (160, 315), (320, 395), (400, None))

PAGAT_000 = {
    5: (COLS_2, {2: (2, 1), 1: (4, 2)}),
    6: (COLS_2, {3: (2, 1), 2: (4, 2), 1: (6, 3)}),
    7: (COLS_2, {3: (2, 1), 2: (4, 2), 1: (6, 3)}),
    8: (COLS_3, {4: (2, 1), 3: (4, 2), 2: (6, 3), 1: (8, 4)}),
    9: (COLS_3, {4: (2, 1), 3: (4, 2), 2: (6, 3), 1: (8, 4)}),
    10: (COLS_3, {5: (2, 1), 4: (4, 2), 3: (6, 3), 2: (8, 4), 1: (10, 5)}),
    11: (COLS_3, {5: (2, 1), 4: (4, 2), 3: (6, 3), 2: (8, 4), 1: (10, 5)}),
    12: (COLS_4, {6: (2, 1), 5: (4, 2), 4: (6, 3), 3: (8, 4), 2: (10, 5), 1: (12, 6)}),
}

#: beyond the table's "or more" column: the kitty can push the total past the deal's points
TOP_EXTRA = 60


def _pagat_cases():
    for players, (cols, maker_rows) in PAGAT_000.items():
        for size, (zero_win, low_win) in maker_rows.items():
            for col, (low, high) in enumerate(cols):
                ends = (low, high) if high is not None else (low, low + TOP_EXTRA)
                for pts in sorted(set(ends)):
                    if col == 0:
                        want = (M, zero_win)
                    elif col == 1:
                        want = (M, low_win)
                    else:
                        want = (OPP, col - 1)
                    yield pytest.param(players, size, pts, *want, id=f"{players}p-side{size}-P{pts}")


@pytest.mark.parametrize("players,size,points,winner,game_points", list(_pagat_cases()))
def test_pagat_tables_of_000(players, size, points, winner, game_points):
    r = Rules.preset("pagat", players=players)
    assert score_deal(r, points, size) == DealScore(winner, game_points, winner)


@pytest.mark.parametrize(
    "players,size,points,winner,game_points",
    [
        pytest.param(6, 3, 0, M, 2, id="6p-zero"),
        pytest.param(6, 1, 75, M, 3, id="6p-alone-75"),
        pytest.param(6, 1, 80, OPP, 1, id="6p-alone-80"),
        pytest.param(8, 2, 115, M, 3, id="8p-side2-115"),
        pytest.param(12, 6, 400, OPP, 3, id="12p-400"),
    ],
)
def test_thirteen_scores_like_pagat(players, size, points, winner, game_points):
    r = Rules.preset("thirteen", players=players)
    assert score_deal(r, points, size) == DealScore(winner, game_points, winner)


# --------------------------------------------------------------------------
# bands: 003/004's two-deck table, its edges scaled by packs / 2 (steps of
# 40 * packs / 2 = 20 * packs card points).
# Rows: (low, high or None, winner, game points).

BANDS = {
    2: (
        (0, 0, M, 3), (5, 35, M, 2), (40, 75, M, 1), (80, 115, None, 0),
        (120, 155, OPP, 1), (160, 195, OPP, 2), (200, None, OPP, 3),
    ),
    3: (
        (0, 0, M, 3), (5, 55, M, 2), (60, 115, M, 1), (120, 175, None, 0),
        (180, 235, OPP, 1), (240, 295, OPP, 2), (300, None, OPP, 3),
    ),
    4: (
        (0, 0, M, 3), (5, 75, M, 2), (80, 155, M, 1), (160, 235, None, 0),
        (240, 315, OPP, 1), (320, 395, OPP, 2), (400, None, OPP, 3),
    ),
}

#: rules playing the bands for each pack count, without the short-side multiplier
BANDS_RULES = {
    "bottom-eight": lambda: Rules.preset("bottom-eight"),
    "stack": lambda: Rules.preset("stack"),
    "bands-8p": lambda: Rules.preset("pagat", players=8, scoring="bands", short_side_multiplier=False),
    "bands-12p": lambda: Rules.preset("pagat", players=12, scoring="bands", short_side_multiplier=False),
}
BANDS_PACKS = {"bottom-eight": 2, "stack": 2, "bands-8p": 3, "bands-12p": 4}


def _band_points(low, high):
    return sorted({low, high}) if high is not None else [low, low + TOP_EXTRA]


def _bands_cases():
    for name, packs in BANDS_PACKS.items():
        full = {"bottom-eight": 2, "stack": 3, "bands-8p": 4, "bands-12p": 6}[name]
        for low, high, winner, gp in BANDS[packs]:
            for pts in _band_points(low, high):
                for size in (full, 1):
                    nxt = winner if winner is not None else OPP
                    yield pytest.param(name, size, pts, winner, gp, nxt, id=f"{name}-side{size}-P{pts}")


@pytest.mark.parametrize("rules_name,size,points,winner,game_points,next_side", list(_bands_cases()))
def test_bands(rules_name, size, points, winner, game_points, next_side):
    """Without the short-side multiplier a maker playing alone scores as a full side."""
    r = BANDS_RULES[rules_name]()
    assert score_deal(r, points, size) == DealScore(winner, game_points, next_side)


@pytest.mark.parametrize(
    "size,points,winner,game_points,next_side",
    [
        # stack (6 players, full side 3) with the multiplier switched on:
        # alone = 2 missing -> x3; one friend = 1 missing -> x2
        pytest.param(1, 0, M, 9, M, id="alone-zero"),
        pytest.param(1, 35, M, 6, M, id="alone-35"),
        pytest.param(1, 75, M, 3, M, id="alone-75"),
        pytest.param(2, 40, M, 2, M, id="side2-40"),
        pytest.param(1, 80, None, 0, OPP, id="alone-80-no-score"),
        pytest.param(1, 120, OPP, 1, OPP, id="alone-120-opponents-not-multiplied"),
        pytest.param(1, 200, OPP, 3, OPP, id="alone-200"),
    ],
)
def test_bands_with_short_side_multiplier(size, points, winner, game_points, next_side):
    r = Rules.preset("stack", short_side_multiplier=True)
    assert score_deal(r, points, size) == DealScore(winner, game_points, next_side)


# --------------------------------------------------------------------------
# heli: 000's 5-player table (one friend / alone), then the same 20 % steps
# for 2, 3 and 4 packs with larger tables (alone = 1 + missing members).

HELI_5P = [
    # points, one friend, alone
    (0, (M, 3), (M, 6)),
    (5, (M, 2), (M, 4)),
    (35, (M, 2), (M, 4)),
    (40, (M, 1), (M, 2)),
    (75, (M, 1), (M, 2)),
    (80, (None, 0), (None, 0)),
    (115, (None, 0), (None, 0)),
    (120, (OPP, 1), (OPP, 1)),
    (155, (OPP, 1), (OPP, 1)),
    (160, (OPP, 2), (OPP, 2)),
    (195, (OPP, 2), (OPP, 2)),
    (200, (OPP, 3), (OPP, 3)),
    (260, (OPP, 3), (OPP, 3)),
]


def _heli5_cases():
    for pts, friend, alone in HELI_5P:
        for size, (winner, gp) in ((2, friend), (1, alone)):
            yield pytest.param(size, pts, winner, gp, id=f"side{size}-P{pts}")


@pytest.mark.parametrize("size,points,winner,game_points", list(_heli5_cases()))
def test_heli_5_players_table_of_000(size, points, winner, game_points):
    r = Rules.preset("heli", players=5)
    nxt = winner if winner is not None else OPP
    assert score_deal(r, points, size) == DealScore(winner, game_points, nxt)


@pytest.mark.parametrize(
    "players,size,points,winner,game_points",
    [
        # 6 players, 2 packs (steps of 40), full side 3: alone x3, one friend x2
        pytest.param(6, 3, 0, M, 3, id="6p-full-zero"),
        pytest.param(6, 1, 0, M, 9, id="6p-alone-zero"),
        pytest.param(6, 2, 35, M, 4, id="6p-side2-35"),
        pytest.param(6, 1, 75, M, 3, id="6p-alone-75"),
        pytest.param(6, 1, 80, None, 0, id="6p-alone-80"),
        pytest.param(6, 3, 199, OPP, 2, id="6p-199"),
        pytest.param(6, 3, 200, OPP, 3, id="6p-200"),
        # 8 players, 3 packs: 300 points, 20 % = 60; full side 4
        pytest.param(8, 4, 0, M, 3, id="8p-zero"),
        pytest.param(8, 4, 5, M, 2, id="8p-5"),
        pytest.param(8, 4, 55, M, 2, id="8p-55"),
        pytest.param(8, 4, 60, M, 1, id="8p-60"),
        pytest.param(8, 2, 60, M, 3, id="8p-side2-60"),
        pytest.param(8, 1, 115, M, 4, id="8p-alone-115"),
        pytest.param(8, 4, 120, None, 0, id="8p-120"),
        pytest.param(8, 4, 175, None, 0, id="8p-175"),
        pytest.param(8, 4, 180, OPP, 1, id="8p-180"),
        pytest.param(8, 4, 235, OPP, 1, id="8p-235"),
        pytest.param(8, 4, 240, OPP, 2, id="8p-240"),
        pytest.param(8, 4, 295, OPP, 2, id="8p-295"),
        pytest.param(8, 4, 300, OPP, 3, id="8p-300"),
        pytest.param(8, 1, 360, OPP, 3, id="8p-alone-360"),
        # 12 players, 4 packs: 400 points, 20 % = 80; full side 6
        pytest.param(12, 6, 0, M, 3, id="12p-zero"),
        pytest.param(12, 1, 0, M, 18, id="12p-alone-zero"),
        pytest.param(12, 6, 75, M, 2, id="12p-75"),
        pytest.param(12, 3, 75, M, 8, id="12p-side3-75"),
        pytest.param(12, 6, 80, M, 1, id="12p-80"),
        pytest.param(12, 1, 155, M, 6, id="12p-alone-155"),
        pytest.param(12, 6, 160, None, 0, id="12p-160"),
        pytest.param(12, 6, 235, None, 0, id="12p-235"),
        pytest.param(12, 6, 240, OPP, 1, id="12p-240"),
        pytest.param(12, 6, 315, OPP, 1, id="12p-315"),
        pytest.param(12, 6, 320, OPP, 2, id="12p-320"),
        pytest.param(12, 6, 395, OPP, 2, id="12p-395"),
        pytest.param(12, 6, 400, OPP, 3, id="12p-400"),
    ],
)
def test_heli_other_tables(players, size, points, winner, game_points):
    r = Rules.preset("heli", players=players)
    nxt = winner if winner is not None else OPP
    assert score_deal(r, points, size) == DealScore(winner, game_points, nxt)


@pytest.mark.parametrize(
    "preset,players,points,size",
    [
        pytest.param("pagat", 6, -5, 3, id="negative-points"),
        pytest.param("pagat", 6, 40, 0, id="no-maker"),
        pytest.param("pagat", 6, 40, 4, id="side-too-large"),
        pytest.param("bottom-eight", 5, 40, 3, id="bottom-eight-side-too-large"),
    ],
)
def test_score_deal_rejects(preset, players, points, size):
    with pytest.raises(PengyouError):
        score_deal(Rules.preset(preset, players=players), points, size)


# --------------------------------------------------------------------------
# kitty multiplier


@pytest.mark.parametrize(
    "kind,play_cards,unit_cards,per_player,want",
    [
        pytest.param("double", 1, 1, 1, 2, id="double-single"),
        pytest.param("double", 4, 4, 4, 2, id="double-tractor"),
        pytest.param("by_cards", 1, 1, 1, 2, id="by_cards-1"),
        pytest.param("by_cards", 2, 2, 2, 3, id="by_cards-pair"),
        pytest.param("by_cards", 2, 1, 2, 3, id="by_cards-two-singles"),
        pytest.param("by_cards", 3, 3, 3, 4, id="by_cards-3"),
        pytest.param("by_cards", 4, 4, 4, 4, id="by_cards-4"),
        pytest.param("by_cards", 6, 2, 6, 4, id="by_cards-6"),
        pytest.param("unit_double", 1, 1, 1, 2, id="unit_double-single"),
        pytest.param("unit_double", 2, 2, 2, 4, id="unit_double-pair"),
        pytest.param("unit_double", 3, 3, 3, 6, id="unit_double-triple"),
        pytest.param("unit_double", 4, 4, 4, 8, id="unit_double-tractor"),
        pytest.param("unit_double", 3, 1, 3, 2, id="unit_double-throw-of-singles"),
        pytest.param("unit_power", 1, 1, 1, 2, id="unit_power-single"),
        pytest.param("unit_power", 2, 2, 2, 4, id="unit_power-pair"),
        pytest.param("unit_power", 3, 3, 3, 8, id="unit_power-triple"),
        pytest.param("unit_power", 4, 4, 4, 16, id="unit_power-tractor"),
        pytest.param("unit_power", 5, 2, 5, 4, id="unit_power-throw-pair-largest"),
        pytest.param("cards_per_player", 1, 1, 1, 2, id="cards_per_player-1"),
        pytest.param("cards_per_player", 2, 1, 2, 4, id="cards_per_player-2"),
        pytest.param("cards_per_player", 4, 2, 4, 8, id="cards_per_player-4"),
    ],
)
def test_kitty_multiplier(kind, play_cards, unit_cards, per_player, want):
    r = Rules.preset("pagat", players=6, kitty_multiplier=kind)
    assert kitty_multiplier(r, play_cards, unit_cards, per_player) == want


@pytest.mark.parametrize(
    "preset,unit_cards,want",
    [
        pytest.param("pagat", 2, 2, id="pagat"),
        pytest.param("heli", 2, 2, id="heli"),
        pytest.param("bottom-eight", 2, 2, id="bottom-eight"),
        pytest.param("stack", 2, 4, id="stack-pair"),
        pytest.param("stack", 1, 2, id="stack-single"),
    ],
)
def test_kitty_multiplier_presets(preset, unit_cards, want):
    r = Rules.preset(preset)
    assert kitty_multiplier(r, 2, unit_cards, 2) == want


@pytest.mark.parametrize(
    "play_cards,unit_cards,per_player",
    [
        pytest.param(0, 1, 1, id="no-cards"),
        pytest.param(1, 0, 1, id="no-unit"),
        pytest.param(1, 2, 1, id="unit-larger-than-play"),
        pytest.param(3, 1, 2, id="play-larger-than-trick-share"),
    ],
)
def test_kitty_multiplier_rejects(play_cards, unit_cards, per_player):
    with pytest.raises(PengyouError):
        kitty_multiplier(Rules.preset("pagat"), play_cards, unit_cards, per_player)


# --------------------------------------------------------------------------
# opponents' points: seats 0..5, maker side {0, 2}
# tricks: seat 0 25, seat 1 10, seat 2 40, seat 3 15, seat 4 0, seat 5 30
# -> opponents (1, 3, 4, 5) 10 + 15 + 0 + 30 = 55 in tricks

TRICKS = [25, 10, 40, 15, 0, 30]
NO_PENALTY = [0] * 6


@pytest.mark.parametrize(
    "kitty,to_opp,mult,penalties,want",
    [
        pytest.param(25, False, 2, NO_PENALTY, 55, id="tricks-only"),
        pytest.param(25, True, 2, NO_PENALTY, 105, id="kitty-doubled"),  # 55 + 50
        pytest.param(30, True, 4, NO_PENALTY, 175, id="kitty-x4"),  # 55 + 120
        pytest.param(0, True, 2, NO_PENALTY, 55, id="empty-kitty"),
        pytest.param(25, False, 2, [20, 0, 0, 0, 0, 0], 75, id="maker-penalty"),  # 55 + 20
        pytest.param(25, False, 2, [0, 0, 10, 0, 0, 0], 65, id="friend-penalty"),  # 55 + 10
        pytest.param(25, False, 2, [0, 0, 0, 30, 0, 0], 25, id="opponent-penalty"),  # 55 - 30
        pytest.param(25, True, 2, [20, 0, 0, 30, 0, 0], 95, id="both-penalties-kitty"),  # 55+20-30+50
        pytest.param(25, False, 2, [0, 40, 0, 0, 0, 30], 0, id="never-below-zero"),  # 55-70
        pytest.param(25, True, 2, [0, 40, 0, 0, 0, 30], 35, id="kitty-after-penalty"),  # 55-70+50
    ],
)
def test_opponents_points(kitty, to_opp, mult, penalties, want):
    assert opponents_points(TRICKS, {0, 2}, kitty, to_opp, mult, penalties) == want


def test_points_won_before_joining_count_for_the_final_side():
    # seat 3 took 40 before playing the called card: it ends on the maker side
    assert opponents_points([0, 20, 0, 40, 15], {0, 3}, 0, False, 2, [0] * 5) == 35


@pytest.mark.parametrize(
    "tricks,side,kitty,to_opp,penalties,want",
    [
        # 6 players, 2 packs: 60 in tricks is a maker win of 1 ...
        pytest.param([0, 20, 0, 20, 0, 20], {0, 2, 4}, 15, False, [0] * 6, (M, 1), id="no-kitty"),
        # ... the kitty's 15 doubled makes 90: opponents win 1
        pytest.param([0, 20, 0, 20, 0, 20], {0, 2, 4}, 15, True, [0] * 6, (OPP, 1), id="kitty-doubled"),
        # 60 + 30 + a maker-side penalty of 70 (7 withdrawn cards) = 160: opponents 2
        pytest.param([0, 20, 0, 20, 0, 20], {0, 2, 4}, 15, True, [70, 0, 0, 0, 0, 0], (OPP, 2),
                     id="kitty-and-maker-penalty"),
        # 60 + 30 - an opponent's penalty of 20 = 70: maker 1
        pytest.param([0, 20, 0, 20, 0, 20], {0, 2, 4}, 15, True, [0, 20, 0, 0, 0, 0], (M, 1),
                     id="kitty-and-opponent-penalty"),
    ],
)
def test_opponents_total_feeds_the_table(tricks, side, kitty, to_opp, penalties, want):
    r = Rules.preset("pagat", players=6)
    mult = kitty_multiplier(r, 1, 1, 1)
    pts = opponents_points(tricks, side, kitty, to_opp, mult, penalties)
    assert score_deal(r, pts, len(side))[:2] == want


@pytest.mark.parametrize(
    "tricks,side,penalties,kitty,mult",
    [
        pytest.param([0, 0, 0], {0}, [0, 0], 0, 2, id="penalty-length"),
        pytest.param([0, 0, 0], set(), [0, 0, 0], 0, 2, id="empty-side"),
        pytest.param([0, 0, 0], {3}, [0, 0, 0], 0, 2, id="seat-out-of-range"),
        pytest.param([0, 0, 0], {0, 1, 2}, [0, 0, 0], 0, 2, id="no-opponents"),
        pytest.param([0, -5, 0], {0}, [0, 0, 0], 0, 2, id="negative-points"),
        pytest.param([0, 0, 0], {0}, [0, 0, 0], -5, 2, id="negative-kitty"),
        pytest.param([0, 0, 0], {0}, [0, 0, 0], 0, 0, id="zero-multiplier"),
    ],
)
def test_opponents_points_rejects(tricks, side, penalties, kitty, mult):
    with pytest.raises(PengyouError):
        opponents_points(tricks, side, kitty, True, mult, penalties)
