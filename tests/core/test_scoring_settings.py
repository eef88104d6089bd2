"""Scoring and level settings other engines offer, each with today's behaviour
as its default: the band size and the dead zone of the bands tables, a bonus
level for a short maker side, must-defend ranks with A, a match won only by
defending the last rank, and the jack reset. Every value is worked out by hand."""

from __future__ import annotations

import random

import pytest

from core import kernel, reference
from core.cards import rank_of
from core.errors import PengyouError, RulesError
from core.levels import PlayerLevel, apply_deal, defended_at_target, level_rank, match_over
from core.match import Match, play_random_match
from core.rules import Rules
from core.scoring import MAKER, OPPONENTS, kitty_multiplier, score_deal
from core.state import State

MK, OP, NO = MAKER, OPPONENTS, None

# (band_step, dead_zone, packs, [(opponents' points, winner, gain), ...]), capped tables:
# a band is band_step * packs; the maker scores 3, 2, 1 below 1, s, 2s; nobody for dead_zone bands;
# then the opponents 1, 2, and 3 from two bands higher
BANDS = [
    (20, 1, 2, [(0, MK, 3), (5, MK, 2), (35, MK, 2), (40, MK, 1), (75, MK, 1), (80, NO, 0), (115, NO, 0),
                (120, OP, 1), (155, OP, 1), (160, OP, 2), (200, OP, 3), (300, OP, 3)]),
    (20, 0, 2, [(75, MK, 1), (80, OP, 1), (119, OP, 1), (120, OP, 2), (160, OP, 3), (240, OP, 3)]),
    (20, 2, 2, [(80, NO, 0), (155, NO, 0), (160, OP, 1), (200, OP, 2), (240, OP, 3)]),
    (25, 1, 2, [(0, MK, 3), (45, MK, 2), (50, MK, 1), (95, MK, 1), (100, NO, 0), (145, NO, 0), (150, OP, 1),
                (200, OP, 2), (250, OP, 3)]),
    (10, 1, 3, [(25, MK, 2), (30, MK, 1), (59, MK, 1), (60, NO, 0), (90, OP, 1), (120, OP, 2), (150, OP, 3)]),
    (5, 4, 1, [(0, MK, 3), (4, MK, 2), (5, MK, 1), (9, MK, 1), (10, NO, 0), (29, NO, 0), (30, OP, 1), (35, OP, 2),
               (40, OP, 3), (100, OP, 3)]),
    (50, 0, 2, [(95, MK, 2), (100, MK, 1), (199, MK, 1), (200, OP, 1)]),
]
_TABLE = {1: 5, 2: 6, 3: 9}          # a pagat table size for each pack count


@pytest.mark.parametrize("scoring", ["bands", "heli"])
@pytest.mark.parametrize("step,zone,packs,rows", BANDS)
def test_band_step_and_dead_zone(scoring, step, zone, packs, rows):
    r = Rules.preset("pagat", players=_TABLE.get(packs, 6), scoring=scoring, band_step=step, dead_zone=zone,
                     short_side_multiplier=False)
    if packs == 1:
        r = r.replace(packs=1, red_jokers=1, black_jokers=1, hand_size=10, kitty_size=4)
    assert r.packs == packs
    for opp, winner, gain in rows:
        got = score_deal(r, opp, maker_side_size=r.side_size)
        assert (got.winner, got.game_points) == (winner, gain), (opp, got)
        assert got.next_side == (winner or OPPONENTS)


# (band_step, dead_zone, opponents' points, open gain): one more per further band past the last
OPEN = [(20, 1, 240, 4), (20, 0, 200, 4), (20, 0, 199, 3), (25, 1, 300, 4), (25, 1, 350, 5), (20, 2, 280, 4)]


@pytest.mark.parametrize("step,zone,opp,gain", OPEN)
def test_open_bands_follow_the_band_step(step, zone, opp, gain):
    r = Rules.preset("tractor", band_step=step, dead_zone=zone, bands_above_top="open")
    assert score_deal(r, opp, 2) == (OPPONENTS, gain, OPPONENTS)


def test_the_defaults_are_the_written_table():
    written = Rules.preset("tractor")
    for opp in range(0, 405, 5):
        assert score_deal(written, opp, 2) == score_deal(written.replace(band_step=20, dead_zone=1), opp, 2)


# (side size of 3, opponents' points, game points with the bonus, with the multiplier)
SHORT = [(3, 45, 1, 1), (2, 45, 2, 2), (1, 45, 2, 3), (1, 0, 4, 9), (2, 0, 4, 6), (2, 80, 0, 0),
         (1, 130, 1, 1)]


@pytest.mark.parametrize("size,opp,bonus,multiplied", SHORT)
def test_short_side_bonus(size, opp, bonus, multiplied):
    base = Rules.preset("pagat", players=6, scoring="bands")
    with_bonus = base.replace(short_side_multiplier=False, short_side_bonus=True)
    assert score_deal(with_bonus, opp, size).game_points == bonus
    assert score_deal(base, opp, size).game_points == multiplied
    plain = base.replace(short_side_multiplier=False)
    assert score_deal(plain, opp, size).game_points == score_deal(base, opp, 3).game_points


# (must_defend, level, gain, on the maker's side, level after): heli has the Joker level (15) past A
DEFEND = [
    ("ace", 14, 3, True, 17), ("ace", 14, 3, False, 14), ("ace", 13, 3, False, 14), ("ace", 13, 3, True, 14),
    ("ace", 12, 1, False, 13), ("ace", 5, 3, False, 8),
    ("points_ace", 14, 2, True, 16), ("points_ace", 13, 2, True, 14), ("points_ace", 13, 2, False, 13),
    ("points_ace", 4, 3, False, 5), ("points_ace", 5, 2, True, 7), ("points_ace", 11, 4, False, 13),
    ("points", 14, 3, False, 17), ("none", 13, 3, False, 16),
    # the second lap: 28 is A+, 27 is K+
    ("ace", 28, 2, False, 28), ("ace", 28, 2, True, 30), ("points_ace", 27, 1, False, 27),
]


@pytest.mark.parametrize("setting,level,gain,defending,after", DEFEND)
def test_must_defend_ace(setting, level, gain, defending, after):
    r = Rules.preset("heli", players=6, must_defend=setting)
    levels = [PlayerLevel(level, True)] * 6
    side = {0, 2, 4} if defending else {1, 3, 5}
    got = apply_deal(r, levels, {0, 2, 4}, gain, maker_side=side)
    assert [lv.level for lv in got] == [after, level] * 3


# (level, gain, after) under match_end defend: the climb stops at the target rank as under reach
CAP = [(13, 3, 14), (12, 1, 13), (14, 2, 14), (9, 2, 11)]


@pytest.mark.parametrize("level,gain,after", CAP)
def test_levels_stop_at_the_target_under_defend(level, gain, after):
    for end in ("reach", "defend"):
        r = Rules.preset("tractor", match_end=end)
        got = apply_deal(r, [PlayerLevel(level, True)] * 4, {0, 2}, gain, maker_side={0, 2})
        assert got[0].level == after


def test_reaching_the_target_ends_the_match_only_under_reach():
    at_a = [PlayerLevel(14, True)] + [PlayerLevel(2, True)] * 3
    reach, defend = Rules.preset("tractor"), Rules.preset("tractor", match_end="defend")
    assert match_over(reach, at_a, [0] * 4)
    assert not match_over(defend, at_a, [0] * 4)
    assert match_over(defend, at_a, [0] * 4, defended=True)
    assert not match_over(reach.replace(target_rank=10), [PlayerLevel(9, True)] * 4, [0] * 4)


@pytest.mark.parametrize("maker_level,won,ends", [(14, True, True), (14, False, False), (13, True, False)])
def test_defended_at_target(maker_level, won, ends):
    defend = Rules.preset("tractor", match_end="defend")
    assert defended_at_target(defend, PlayerLevel(maker_level, True), won) is ends
    assert not defended_at_target(Rules.preset("tractor"), PlayerLevel(maker_level, True), won)


@pytest.mark.parametrize("seed", range(4))
def test_a_defend_match_ends_on_a_deal_the_makers_win_at_the_target(seed):
    r = Rules.preset("tractor", match_end="defend", target_rank=4)
    m = play_random_match(r, seed=seed, max_deals=80)
    assert m.is_over() and len(m.deals) < 80, "the match should end well within 80 deals"
    for i, s in enumerate(m.deals):
        before = m.level_history[i]
        res = s.result
        at_target = level_rank(before[res.maker].level, r) == 4 and res.winner == MAKER
        assert at_target == (i == len(m.deals) - 1), (i, before, res)
        assert all(lv.level <= 4 for lv in before)


# (levels of seats 0..3, maker side, winners, game points, jack, levels after) at four seats
JACK = [
    ([11, 6, 11, 6], {0, 2}, {1, 3}, 2, True, [2, 8, 2, 8]),
    ([11, 6, 11, 6], {0, 2}, {1, 3}, 2, False, [11, 8, 11, 8]),
    ([11, 6, 9, 6], {0, 2}, {0, 2}, 1, True, [3, 6, 3, 6]),
    ([11, 6, 11, 6], {0, 2}, set(), 0, True, [2, 6, 2, 6]),
    ([25, 20, 25, 20], {0, 2}, {1, 3}, 1, True, [16, 21, 16, 21]),
]


@pytest.mark.parametrize("before,side,winners,gain,jack,after", JACK)
def test_jack_reset(before, side, winners, gain, jack, after):
    r = Rules.preset("tractor", jack_reset=True, joker_level=True)
    got = apply_deal(r, [PlayerLevel(v, True) for v in before], winners, gain, maker_side=side, jack=jack)
    assert [lv.level for lv in got] == after
    off = apply_deal(r.replace(jack_reset=False), [PlayerLevel(v, True) for v in before], winners, gain,
                     maker_side=side, jack=jack)
    assert off == apply_deal(r, [PlayerLevel(v, True) for v in before], winners, gain, maker_side=side)


def _random_deal(rules: Rules, seed: int, level: int) -> State:
    rng = random.Random(seed)
    s = State(rules, seed=seed, levels=[PlayerLevel(level, True)] * rules.players)
    while not s.is_terminal():
        s.apply(s.random_legal_action(rng))
    return s


def test_deals_tell_when_the_opponents_take_the_last_trick_with_a_single_jack():
    r = Rules.preset("tractor", jack_reset=True)
    seen = {True: 0, False: 0}
    for seed in range(400):
        s = _random_deal(r, seed, 11)
        if s.result is None or s.result.game_points < 0:
            continue
        leader, plays = s.tricks[-1]
        winner = s.play.last_trick[0]
        won_with = plays[(winner - leader) % 4]
        expect = (s.trump.rank == 11 and winner not in s.result.maker_side and len(won_with) == 1
                  and rank_of(won_with[0]) == 11)
        assert s.result.jack_last is expect, seed
        seen[expect] += 1
    assert seen[True] >= 3 and seen[False] >= 100, seen
    assert not any(_random_deal(r, seed, 10).result.jack_last for seed in range(60))


def test_a_match_with_the_jack_reset_sends_the_makers_back_to_2():
    r = Rules.preset("tractor", jack_reset=True, target_rank=14)
    for seed in range(40):
        m = Match(r, seed=seed)
        m.levels = [PlayerLevel(11, True)] * 4
        s = m.new_deal()
        rng = random.Random(seed)
        while not s.is_terminal():
            s.apply(s.random_legal_action(rng))
        m.finish_deal(s)
        if s.result.jack_last:
            for seat in s.result.maker_side:
                expect = 2 + (s.result.game_points if s.result.winner == MAKER else 0)
                assert m.levels[seat].level == expect
            return
    pytest.fail("no deal in 40 ended with the opponents' single jack")


BAD = [
    (dict(band_step=15), "band_step: 15 is not 5, 10, 20, 25 or 50"),
    (dict(band_step=0), "band_step: 0 is not"),
    (dict(dead_zone=-1), "dead_zone: must not be negative"),
    (dict(band_step=50, dead_zone=1), "dead_zone and band_step: 3 bands of 50"),
    (dict(band_step=25, dead_zone=3), "dead_zone and band_step: 5 bands of 25"),
    (dict(scoring="pagat", band_step=10), "band_step and scoring: the pagat table has no bands"),
    (dict(scoring="pagat", dead_zone=0), "dead_zone and scoring: "),
    (dict(short_side_multiplier=True, short_side_bonus=True), "short_side_bonus and short_side_multiplier: "),
    (dict(must_defend="ace"), "must_defend and joker_level: must_defend ace holds seats at A"),
    (dict(must_defend="points_ace"), "must_defend and joker_level: "),
    (dict(must_defend="queen"), "must_defend: 'queen' is not one of none, points, ace, points_ace"),
    (dict(match_end="defend", joker_level=True), "match_end and joker_level: "),
    (dict(match_end="never"), "match_end: 'never' is not one of reach, defend"),
    (dict(jack_reset="yes"), "jack_reset: expected true or false"),
    (dict(dead_zone="1"), "dead_zone: expected a whole number"),
]


@pytest.mark.parametrize("overrides,message", BAD)
def test_bad_settings_are_one_line_errors(overrides, message):
    base = dict(scoring="bands", short_side_multiplier=False)
    with pytest.raises(RulesError) as err:
        Rules.preset("pagat", players=6, **{**base, **overrides})
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


LEVEL_SETTINGS = {
    "must_defend": ("none", "points", "ace", "points_ace"),
    "match_end": ("reach", "defend"),
    "jack_reset": (False, True),
    "short_side_bonus": (False, True),
    "short_side_multiplier": (False, True),
    "dead_zone": (0, 1, 2),
    "band_step": (10, 20, 25),
    "target_rank": (5, 9, 14),
}


def test_random_matches_under_random_level_settings():
    """40 matches, each under a random combination: levels climb only by the
    rules (never down but by a jack reset, never past the target without the
    Joker level), and the match ends exactly when its rule says."""
    rng = random.Random(41)
    tables = [("pagat", 5), ("heli", 6), ("bottom-eight", 5), ("stack", 6), ("tractor", 4)]
    played = 0
    while played < 40:
        preset, players = rng.choice(tables)
        try:
            r = Rules.preset(preset, players=players, **{k: rng.choice(v) for k, v in LEVEL_SETTINGS.items()})
        except RulesError:
            continue
        played += 1
        m = play_random_match(r, seed=played, max_deals=30)
        for i, s in enumerate(m.deals):
            before = m.level_history[i]
            after = m.level_history[i + 1] if i + 1 < len(m.deals) else m.levels
            res = s.result
            for seat in range(players):
                dropped = after[seat].level < before[seat].level
                assert not dropped or (r.jack_reset and res.jack_last and seat in res.maker_side), (r, i, seat)
                if not r.joker_level:
                    assert after[seat].level <= max(before[seat].level, r.target_rank)
            last = i == len(m.deals) - 1
            if not last:
                assert not match_over(r, after, [0] * players, False) or r.target_points
        if m.is_over() and len(m.deals) < 30 and not r.joker_level and not r.target_points:
            if r.match_end == "defend":
                assert m.defended
            else:
                assert any(lv.level >= r.target_rank for lv in m.levels)


# (cards of the last play, largest unit, pairs in the lead, multiplier under pairs_power)
PAIRS = [(1, 1, 0, 2), (2, 2, 1, 4), (4, 4, 2, 8), (6, 6, 3, 16), (3, 1, 1, 4), (5, 4, 2, 8), (3, 3, 1, 4),
         (6, 4, 3, 16)]


@pytest.mark.parametrize("cards,unit,pairs,mult", PAIRS)
def test_kitty_pairs_power(cards, unit, pairs, mult):
    r = Rules(kitty_multiplier="pairs_power")
    assert kitty_multiplier(r, cards, unit, cards, lead_pairs=pairs) == mult


def test_kitty_pairs_power_refuses_pairs_that_do_not_fit():
    with pytest.raises(PengyouError, match="^lead_pairs: 2 pairs do not fit a lead of 3 cards$"):
        kitty_multiplier(Rules(kitty_multiplier="pairs_power"), 3, 2, 3, lead_pairs=2)


def test_deals_count_the_pairs_of_the_last_lead():
    """The engine's multiplier against the pairs of the last lead, read by the
    reference's own decomposition, on random deals at 5, 6 and 9 seats."""
    seen = set()
    for seed in range(150):
        players = (5, 6, 9)[seed % 3]
        r = Rules.preset("pagat", players=players, kitty_multiplier="pairs_power")
        s = _random_deal(r, seed, 2)
        lead = s.tricks[-1][1][0]
        pairs = sum(u.length for u in reference.decompose(lead, s.trump, r) if u.width >= 2)
        assert s.result.kitty_multiplier == 2 ** (1 + pairs), (seed, str(lead))
        seen.add(pairs)
    assert {0, 1} <= seen, seen


# (attempt, kept, penalty per card, per attempt)
PENALTY = [("AS KS QS", "QS", 20, 10), ("AS AS KS QS", "QS", 30, 10), ("AS AS KS KS 3S", "3S", 40, 10),
           ("AS AS KS KS 3S", "KS KS", 30, 10)]


@pytest.mark.parametrize("attempt,kept,by_card,by_attempt", PENALTY)
def test_throw_penalty_per_card_or_attempt(attempt, kept, by_card, by_attempt):
    r = Rules.preset("pagat", players=6)
    assert kernel.throw_penalty(attempt, kept, r) == by_card
    assert kernel.throw_penalty(attempt, kept, r.replace(throw_penalty_per="attempt")) == by_attempt


def test_deals_charge_a_failed_throw_once_per_attempt():
    """Random deals under throw_penalty_per=attempt: each seat's penalty is
    throw_penalty times its failed throws, whatever their size."""
    r = Rules.preset("pagat", players=6, throw_penalty_per="attempt", throw_penalty=15)
    failed = 0
    for seed in range(120):
        s = _random_deal(r, seed, 2)
        per_seat = [0] * 6
        for seat, _attempt, _kept in s.failed_throws:
            per_seat[seat] += 15
            failed += 1
        assert list(s.play.penalties) == per_seat, seed
    assert failed >= 20, failed
