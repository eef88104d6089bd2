"""Levels and the match (``core/match.py``).

Every expected value was worked out by hand from ``shared/design/RULES.md``
("Levels and the match", "Trump making during the draw") and
``000_99040cfb4a5a08c4.txt`` (the active/passive example, the lower target,
Rick Heli's levels with the Joker level and the laps written 2+, 2++); none is
produced by calling the code under test.

Level encoding (see ``core/match.py``): 2..14 = 2..A, 15 = Joker,
16..28 = 2+..A+, 29 = Joker+, 30 = 2++, ...
"""

from __future__ import annotations

import pytest

from core.errors import PengyouError
from core.levels import (
    PlayerLevel, apply_deal, format_level, level_name, level_rank, match_over, next_maker,
    next_starter, redeal_levels, start_levels, trump_rank_for,
)
from core.rules import Rules


def A(level: int) -> PlayerLevel:
    return PlayerLevel(level, True)


def P(level: int) -> PlayerLevel:
    return PlayerLevel(level, False)


# --------------------------------------------------------------------------
# level names and ranks

NAMES = [
    (2, "2", 2), (3, "3", 3), (9, "9", 9), (10, "10", 10), (11, "J", 11), (12, "Q", 12),
    (13, "K", 13), (14, "A", 14), (15, "Joker", None), (16, "2+", 2), (24, "10+", 10),
    (27, "K+", 13), (28, "A+", 14), (29, "Joker+", None), (30, "2++", 2), (42, "A++", 14),
    (43, "Joker++", None), (44, "2+++", 2),
]


@pytest.mark.parametrize("level,name", [pytest.param(v, n, id=n) for v, n, _ in NAMES])
def test_level_name(level, name):
    assert level_name(level) == name


@pytest.mark.parametrize("level,rank", [pytest.param(v, r, id=n) for v, n, r in NAMES])
def test_level_rank_with_joker_level(level, rank):
    assert level_rank(level, Rules.preset("heli", players=5)) == rank


@pytest.mark.parametrize("level,rank", [pytest.param(v, v, id=str(v)) for v in range(2, 15)])
def test_level_rank_first_lap(level, rank):
    assert level_rank(level, Rules.preset("pagat", players=6)) == rank


@pytest.mark.parametrize("level", [pytest.param(v, id=str(v)) for v in (1, 0, 15, 16)])
def test_level_rank_rejects_without_joker_level(level):
    with pytest.raises(PengyouError):
        level_rank(level, Rules.preset("pagat", players=6))


def test_level_name_rejects_below_two():
    with pytest.raises(PengyouError):
        level_name(1)


@pytest.mark.parametrize(
    "player,text",
    [
        pytest.param(A(2), "active 2", id="active-2"),
        pytest.param(P(12), "passive Q", id="passive-Q"),
        pytest.param(A(29), "active Joker+", id="active-Joker+"),
    ],
)
def test_format_level(player, text):
    assert format_level(player) == text


@pytest.mark.parametrize(
    "preset,players,level,rank",
    [
        pytest.param("pagat", 6, A(9), 9, id="pagat-9"),
        pytest.param("pagat", 6, A(14), 14, id="pagat-A"),
        pytest.param("heli", 5, A(14), 14, id="heli-A"),
        pytest.param("heli", 5, A(15), None, id="heli-Joker"),
        pytest.param("heli", 5, A(16), 2, id="heli-2+"),
        pytest.param("heli", 5, A(20), 6, id="heli-6+"),
        pytest.param("heli", 5, A(29), None, id="heli-Joker+"),
        pytest.param("stack", 6, A(7), 7, id="stack-7"),
    ],
)
def test_trump_rank_for(preset, players, level, rank):
    assert trump_rank_for(Rules.preset(preset, players=players), level) == rank


# --------------------------------------------------------------------------
# start, redeal


@pytest.mark.parametrize(
    "preset,players",
    [pytest.param("pagat", 5, id="pagat-5"), pytest.param("pagat", 12, id="pagat-12"),
     pytest.param("heli", 7, id="heli-7"), pytest.param("bottom-eight", 5, id="bottom-eight"),
     pytest.param("stack", 6, id="stack")],
)
def test_start_levels(preset, players):
    assert start_levels(Rules.preset(preset, players=players)) == [A(2)] * players


def test_redeal_levels_make_everyone_active():
    before = [P(2), A(4), A(4), A(4), P(3), P(7)]
    assert redeal_levels(before) == [A(2), A(4), A(4), A(4), A(3), A(7)]


# --------------------------------------------------------------------------
# active / passive: the 6-player example of 000 and RULES.md (A..F = seats 0..5)

START = [A(2)] * 6
STEP1 = [P(2), A(3), P(2), A(3), A(3), P(2)]
STEP2 = [A(2), A(4), A(2), P(3), P(3), P(2)]
STEP3 = [P(2), P(4), A(4), A(4), P(3), A(3)]

EXAMPLE = [
    pytest.param(START, {1, 3, 4}, 1, STEP1, id="B-D-E-win-1"),
    pytest.param(STEP1, {0, 1, 2}, 1, STEP2, id="A-B-C-win-1"),
    pytest.param(STEP2, {2, 3, 5}, 2, STEP3, id="C-D-F-win-2"),
]


@pytest.mark.parametrize("preset", ["pagat", "thirteen"])
@pytest.mark.parametrize("before,winners,points,after", EXAMPLE)
def test_active_passive_example(preset, before, winners, points, after):
    assert apply_deal(Rules.preset(preset, players=6), before, winners, points) == after


def test_active_passive_example_in_one_go():
    r = Rules.preset("pagat", players=6)
    levels = start_levels(r)
    for winners, points in (({1, 3, 4}, 1), ({0, 1, 2}, 1), ({2, 3, 5}, 2)):
        levels = apply_deal(r, levels, winners, points)
    assert levels == STEP3


@pytest.mark.parametrize(
    "target,before,winners,points,after",
    [
        # a passive winner of 3 spends one point on becoming active
        pytest.param(14, [P(5), A(5), P(5), A(5), A(5)], {0, 1}, 3,
                     [A(7), A(8), P(5), P(5), P(5)], id="passive-and-active-win-3"),
        # passive winner of 1: active at the same level
        pytest.param(14, [P(9), P(9), A(9), A(9), A(9)], {0, 1}, 1,
                     [A(9), A(9), P(9), P(9), P(9)], id="passive-win-1"),
        # cap at A (the match is then over)
        pytest.param(14, [A(13), P(13), A(12), A(2), A(2)], {0, 1, 2}, 3,
                     [A(14), A(14), A(14), P(2), P(2)], id="cap-at-A"),
        # passive K winning 1 is only active K, not A
        pytest.param(14, [P(13), A(2), A(2), A(2), A(2)], {0}, 1,
                     [A(13), P(2), P(2), P(2), P(2)], id="passive-K-win-1"),
        # lower target 7
        pytest.param(7, [A(5), P(6), P(6), A(2), A(2)], {0, 1, 2}, 2,
                     [A(7), A(7), A(7), P(2), P(2)], id="target-7-cap"),
        pytest.param(7, [A(5), P(6), A(6), A(2), A(2)], {0, 1}, 1,
                     [A(6), A(6), P(6), P(2), P(2)], id="target-7-below"),
    ],
)
def test_active_passive_climbing(target, before, winners, points, after):
    r = Rules.preset("pagat", players=5, target_rank=target)
    assert apply_deal(r, before, winners, points) == after


def test_no_score_changes_nothing():
    r = Rules.preset("pagat", players=6)
    assert apply_deal(r, STEP2, set(), 0) == STEP2
    assert apply_deal(r, STEP2, {0, 1}, 0) == STEP2


# --------------------------------------------------------------------------
# plain levels


@pytest.mark.parametrize(
    "preset,before,winners,points,after",
    [
        pytest.param("heli", [A(2)] * 5, {0, 3}, 2, [A(4), A(2), A(2), A(4), A(2)], id="heli-start"),
        # K + 3 = 2+ (16); A + 3 = 3+ (17); Joker + 3 = 4+ (18)
        pytest.param("heli", [A(13), A(14), A(15), A(28), A(3)], {0, 1, 2}, 3,
                     [A(16), A(17), A(18), A(28), A(3)], id="heli-K-A-Joker-climb-3"),
        # K + 2 = Joker (15); A+ + 2 = 2++ (30)
        pytest.param("heli", [A(13), A(14), A(15), A(28), A(3)], {0, 3}, 2,
                     [A(15), A(14), A(15), A(30), A(3)], id="heli-to-Joker-and-2++"),
        pytest.param("heli", [A(28), A(2), A(2), A(2), A(2)], {0}, 1,
                     [A(29), A(2), A(2), A(2), A(2)], id="heli-A+-to-Joker+"),
        # plain levels never make anyone passive (even a passive input)
        pytest.param("bottom-eight", [P(4), A(4), A(6), A(6), A(2)], {2, 3}, 1,
                     [A(4), A(4), A(7), A(7), A(2)], id="bottom-eight-losers-stay-active"),
        # no Joker level: capped at A
        pytest.param("bottom-eight", [A(13), A(12), A(5), A(5), A(5)], {0, 1}, 3,
                     [A(14), A(14), A(5), A(5), A(5)], id="bottom-eight-cap-at-A"),
    ],
)
def test_plain_levels(preset, before, winners, points, after):
    r = Rules.preset(preset, players=len(before))
    assert apply_deal(r, before, winners, points) == after


def test_stack_plain_levels():
    r = Rules.preset("stack")
    before = [A(2), A(3), A(4), A(5), A(6), A(7)]
    assert apply_deal(r, before, {1, 4, 5}, 2) == [A(2), A(5), A(4), A(5), A(8), A(9)]


@pytest.mark.parametrize(
    "levels,winners,points",
    [
        pytest.param([A(2)] * 5, {0}, 1, id="wrong-length"),
        pytest.param([A(2)] * 6, {6}, 1, id="seat-out-of-range"),
        pytest.param([A(2)] * 6, set(), 1, id="points-without-winners"),
        pytest.param([A(2)] * 6, {0}, -1, id="negative-points"),
        pytest.param([A(1)] * 6, {0}, 1, id="level-below-2"),
    ],
)
def test_apply_deal_rejects(levels, winners, points):
    with pytest.raises(PengyouError):
        apply_deal(Rules.preset("pagat", players=6), levels, winners, points)


# --------------------------------------------------------------------------
# end of the match


@pytest.mark.parametrize(
    "preset,overrides,levels,totals,over",
    [
        pytest.param("pagat", {}, [A(13)] * 6, [11] * 6, False, id="pagat-all-K"),
        pytest.param("pagat", {}, [A(13)] * 5 + [A(14)], [0] * 6, True, id="pagat-one-A"),
        pytest.param("pagat", {}, [P(14)] + [A(2)] * 5, [0] * 6, True, id="pagat-passive-A"),
        pytest.param("pagat", {}, [A(2)] * 6, [40] * 6, False, id="pagat-points-unused"),
        pytest.param("pagat", {"target_rank": 7}, [A(6)] * 6, [0] * 6, False, id="target-7-at-6"),
        pytest.param("pagat", {"target_rank": 7}, [A(6)] * 5 + [P(7)], [0] * 6, True, id="target-7-at-7"),
        pytest.param("thirteen", {}, [A(9)] * 6, [12, 12, 0, 0, 0, 0], False, id="thirteen-12"),
        pytest.param("thirteen", {}, [A(9)] * 6, [12, 13, 0, 0, 0, 0], True, id="thirteen-13"),
        pytest.param("thirteen", {}, [A(9)] * 6, [0, 0, 0, 0, 0, 15], True, id="thirteen-15"),
        pytest.param("heli", {}, [A(14)] * 6, [0] * 6, False, id="heli-A"),
        pytest.param("heli", {}, [A(29)] * 6, [50] * 6, False, id="heli-Joker+"),
        pytest.param("bottom-eight", {}, [A(14)] + [A(3)] * 4, [0] * 5, True, id="bottom-eight-A"),
        pytest.param("stack", {}, [A(13)] * 6, [0] * 6, False, id="stack-K"),
    ],
)
def test_match_over(preset, overrides, levels, totals, over):
    r = Rules.preset(preset, players=len(levels), **overrides)
    assert match_over(r, levels, totals) is over


# --------------------------------------------------------------------------
# who starts and who makes trump next


@pytest.mark.parametrize(
    "players,starter,nxt",
    [pytest.param(6, 0, 1, id="6-0"), pytest.param(6, 5, 0, id="6-5"),
     pytest.param(5, 4, 0, id="5-4"), pytest.param(12, 7, 8, id="12-7")],
)
def test_next_starter(players, starter, nxt):
    assert next_starter(Rules.preset("pagat", players=players), starter) == nxt


@pytest.mark.parametrize(
    "preset,players,maker,side,won,nxt",
    [
        # heli, 5 players: the partner if the maker side won, else the next opponent
        pytest.param("heli", 5, 3, {3, 0}, True, 0, id="heli5-won-partner-wraps"),
        pytest.param("heli", 5, 3, {3, 0}, False, 4, id="heli5-lost"),
        pytest.param("heli", 5, 4, {4, 0}, False, 1, id="heli5-lost-skips-partner"),
        pytest.param("heli", 5, 2, {2}, True, 2, id="heli5-alone-won"),
        pytest.param("heli", 5, 2, {2}, False, 3, id="heli5-alone-lost"),
        # heli, 6 players: the first partner after the maker in play order
        pytest.param("heli", 6, 1, {1, 4, 5}, True, 4, id="heli6-won"),
        pytest.param("heli", 6, 1, {1, 4, 5}, False, 2, id="heli6-lost"),
        pytest.param("heli", 6, 5, {5, 0, 2}, True, 0, id="heli6-won-wraps"),
        pytest.param("heli", 6, 5, {5, 0, 2}, False, 1, id="heli6-lost-wraps"),
        pytest.param("heli", 6, 2, {2, 3, 4}, False, 5, id="heli6-lost-skips-two"),
        # stack: the first seat after the maker on the side that won
        pytest.param("stack", 6, 0, {0, 3, 4}, True, 3, id="stack-won"),
        pytest.param("stack", 6, 0, {0, 3, 4}, False, 1, id="stack-lost"),
        pytest.param("stack", 6, 4, {4, 1}, True, 1, id="stack-won-wraps"),
        pytest.param("stack", 6, 4, {4, 1}, False, 5, id="stack-lost"),
        pytest.param("stack", 6, 2, {2}, True, 2, id="stack-alone-won"),
        pytest.param("stack", 6, 2, {2}, False, 3, id="stack-alone-lost"),
        # trump making open to all: no predetermined maker
        pytest.param("pagat", 6, 2, {2, 3}, True, None, id="pagat"),
        pytest.param("thirteen", 6, 2, {2, 3}, False, None, id="thirteen"),
        pytest.param("bottom-eight", 5, 2, {2, 3}, True, None, id="bottom-eight"),
    ],
)
def test_next_maker(preset, players, maker, side, won, nxt):
    assert next_maker(Rules.preset(preset, players=players), maker, side, won) == nxt


@pytest.mark.parametrize(
    "maker,side",
    [
        pytest.param(6, {6}, id="maker-out-of-range"),
        pytest.param(1, {2, 3}, id="maker-not-on-side"),
    ],
)
def test_next_maker_rejects(maker, side):
    with pytest.raises(PengyouError):
        next_maker(Rules.preset("stack"), maker, side, True)
