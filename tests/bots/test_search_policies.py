"""The search's playout policies (bots.search) on the play engine: they
finish deals, conserve points, make only legal plays, and pick what the
hand-made positions say."""

from __future__ import annotations

import random

import pytest

from bots.search import playout, policy_play, standing_play
from core.rules import Rules
from core.state import PLAY_PHASE, State


def test_greedy_playouts_finish_and_conserve_points():
    from core.errors import InvalidActionError

    rules = Rules.preset("pagat", players=6)
    for seed in range(20):
        s = State(rules, seed=seed)
        rng = random.Random(seed)
        while s.phase != PLAY_PHASE:
            s.apply(s.random_legal_action(rng))
        total = sum(sum(points_of(s.hand(i))) for i in range(6))
        for policy, race in ((0, 0.0), (1, 0.0), (2, 0.0), (1, 1.0), (2, 0.5)):
            pc = s.play.clone()
            playout(pc, seed, policy, race)
            assert pc.done and sum(pc.points) == total
            assert all(len(pc.hand(i)) == 0 for i in range(6))
    with pytest.raises(InvalidActionError):
        playout(s.play.clone(), 1, 3)


def points_of(cards):
    from core.cards import card_points

    return [card_points(f) for f in cards]


@pytest.mark.parametrize("players", [5, 6, 8])
def test_policy_plays_are_legal_and_tricks_go_to_the_reference_winner(players):
    """Greedy and random playout moves, one by one: each is legal, and each
    trick goes where the naive reference says."""
    from core import reference

    rules = Rules.preset("pagat", players=players)
    for seed in range(8):
        s = State(rules, seed=seed)
        rng = random.Random(seed)
        while s.phase != PLAY_PHASE:
            s.apply(s.random_legal_action(rng))
        for policy in (0, 1, 2):
            pc = s.play.clone()
            trick = []
            while not pc.done:
                leader = pc.leader
                play = policy_play(pc, rng, policy)
                assert pc.can_play(play), (seed, policy, play)
                _, played, _ = pc.play(play)
                trick.append(played)
                if len(trick) == players:
                    w = reference.trick_winner(trick, s.trump, rules)
                    assert pc.last_trick[0] == (leader + w) % players
                    trick = []


INFORMED_CASES = [
    # (hands of 5 seats, plays made before, policy 2's play, why)
    (["AS KS 4C", "5S 6C 7D", "5S 6C 7D", "5S 6C 7D", "5S 6C 7D"], [], "KS",
     "two unbeatable spades: lead the one with points"),
    (["AS 4C", "5S 6C", "5S 6C", "5S 6C", "5S 6C"], [], "AS",
     "the ace of spades cannot be beaten; the four of clubs can"),
    (["AS 4C", "2H 6C", "5S 6C", "5S 6C", "5S 6C"], [], "4C",
     "seat 1 has no spade and a trump: nothing wins, so lead the cheapest card"),
    (["AS AS 4C", "KS QS 6C", "5S 6C 7C", "5S 6C 7C", "5S 6C 7C"], [], "AS AS",
     "a pair nobody can beat beats a single"),
    (["5S 4C", "AS 6C", "KS 3S", "5S 6C", "5S 6C"], ["5S", "AS"], "KS",
     "no calls, so seats 1 and 2 are both opponents of the maker: feed the king to the partner's ace"),
    (["5S 4C", "4S 6C", "KS 3S", "5S 6C", "5S 6C"], ["5S", "4S"], "KS",
     "the maker holds the trick: take it with the king"),
]


@pytest.mark.parametrize("hands,before,expected,why", INFORMED_CASES)
def test_informed_policy_table(hands, before, expected, why):
    """Policy 2 (informed leads, side-aware follows) on hand-made positions."""
    from core.cards import HEARTS, Trump, parse_cards
    from core.play import PlayCore

    rules = Rules.preset("pagat", players=5)
    pc = PlayCore.start(rules, Trump(rank=2, suit=HEARTS), 0, [parse_cards(h) for h in hands])
    for text in before:
        pc.play(parse_cards(text))
    for seed in range(5):
        assert policy_play(pc, random.Random(seed), 2) == parse_cards(expected), why


TRACTOR_CASES = [
    # (hands of the 4 seats, maker 0 with partner 2: policy 2's lead, why)
    (["KS 4C", "5S 6C", "AS 7C", "5S 6C"], "KS",
     "only the partner's ace beats the king: the points stay with the side"),
    (["KS 4C", "5S 6C", "3H 7C", "5S 6C"], "KS",
     "only the partner could trump the king"),
    (["KS 4C", "AS 6C", "5S 7C", "5S 6C"], "4C",
     "an opponent's ace beats the king: lead the cheapest card"),
]


@pytest.mark.parametrize("hands,expected,why", TRACTOR_CASES)
def test_informed_lead_does_not_fear_a_fixed_partner(hands, expected, why):
    """With fixed partners (``tractor``) the leader knows its partner from the
    start: a card only the partner can beat or trump is a safe lead."""
    from core.cards import HEARTS, Trump, parse_cards
    from core.play import PlayCore

    rules = Rules.preset("tractor")
    assert rules.partners == "fixed" and rules.first_side(0) == frozenset({0, 2})
    pc = PlayCore.start(rules, Trump(rank=2, suit=HEARTS), 0, [parse_cards(h) for h in hands])
    for seed in range(5):
        assert policy_play(pc, random.Random(seed), 2) == parse_cards(expected), why


RACE_CASES = [
    # (hands of 5 seats, calls (face, ordinal), plays made before, policy, race, the play, why)
    (["5S 4C", "AC 6C", "KS 3S", "5S 6C", "5S 6C"], [("AC", 1)], ["4C"], 1, 1.0, "AC",
     "seat 1 holds the first ace of clubs after a club lead: it plays it and joins"),
    (["5S 4C", "AC 6C", "KS 3S", "5S 6C", "5S 6C"], [("AC", 1)], ["4C"], 1, 0.0, "6C",
     "without the race the greedy follow keeps its ace under a trick worth nothing"),
    (["5S 4C", "AC 6C", "KS 3S", "5S 6C", "5S 6C"], [("AC", 2)], ["4C"], 1, 1.0, "6C",
     "the second ace is called and none was played: the ace would not fill it"),
    (["5S 4C", "AC 6C", "KS 3S", "5S 6C", "5S 6C"], [("AC", 1)], ["5S"], 1, 1.0, "AC",
     "void in spades after a spade lead, seat 1 may play the ace anywhere"),
    (["5S 4C", "AC 6S", "KS 3S", "5S 6C", "5S 6C"], [("AC", 1)], ["5S"], 1, 1.0, "6S",
     "it must follow spades, so the race waits"),
    (["3S 4C", "AS AC", "5S 6D", "5S 6D", "5S 6D"], [("AC", 1)], ["3S", "AS", "5S", "5S", "5S"], 2, 1.0,
     "AC", "seat 1 won the first trick: it leads the called ace"),
    (["3S AC 4C", "AS KC", "5S 5C", "5S 6C", "5S 7C"], [("AC", 1)],
     ["3S", "AS", "5S", "5S", "5S", "KC", "5C", "6C", "7C"], 1, 0.0, "AC",
     "without the race the maker takes the king with the ace it called"),
    (["3S AC 4C", "AS KC", "5S 5C", "5S 6C", "5S 7C"], [("AC", 1)],
     ["3S", "AS", "5S", "5S", "5S", "KC", "5C", "6C", "7C"], 1, 0.5, "4C",
     "with it the maker keeps the called ace back: playing it would fill its own call"),
]


@pytest.mark.parametrize("hands,calls,before,policy,race,expected,why", RACE_CASES)
def test_race_policy_table(hands, calls, before, policy, race, expected, why):
    """The friend race in the greedy playouts (``race``) on hand-made positions."""
    from core.cards import parse_cards

    pc = _race_position(hands, calls, before)
    for seed in range(5):
        assert policy_play(pc, random.Random(seed), policy, race) == parse_cards(expected), why


def test_the_race_is_a_chance_and_checked():
    """``race`` below 1 races only sometimes (about that often); outside 0..1 it is refused."""
    from core.errors import InvalidActionError

    pc = _race_position(*RACE_CASES[0][:3])
    raced = sum(str(policy_play(pc, random.Random(seed), 1, 0.3)) == "AC" for seed in range(2000))
    assert 480 <= raced <= 720          # 600 expected; a 95 % band is about +-41
    for bad in (-0.1, 1.5):
        with pytest.raises(InvalidActionError):
            policy_play(pc, random.Random(0), 1, bad)
        with pytest.raises(InvalidActionError):
            playout(pc.clone(), 0, 1, bad)



def _race_position(hands: list[str], calls: list[tuple[str, int]], before: list[str]):
    """Five seats of ``pagat``, hearts trump, seat 0 the maker, ``calls`` as
    (face, ordinal), the plays ``before`` made."""
    from core.cards import HEARTS, Trump, parse_card, parse_cards
    from core.play import PlayCore

    rules = Rules.preset("pagat", players=5)
    pc = PlayCore.start(rules, Trump(rank=2, suit=HEARTS), 0, [parse_cards(h) for h in hands],
                        [(parse_card(f), o) for f, o in calls])
    for text in before:
        pc.play(parse_cards(text))
    return pc


@pytest.mark.parametrize("preset,players", [("pagat", 6), ("tractor", 4), ("pagat", 9)])
def test_standing_redraws_throws_that_fail_against_the_hands(preset, players):
    """``standing_play(pc, rng, tries)``: 0 draws exactly as ``pc.random_play(rng)``;
    with redraws, a lead is far less often a throw the other hands break
    (each kept lead is legal, and a throw that stands is never redrawn)."""
    rules = Rules.preset(preset, players=players)
    failing = {0: 0, 8: 0}
    leads = 0
    for seed in range(30):
        s = State(rules, seed=seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            if s.phase == PLAY_PHASE and s.view(s.current_player()).lead is None:
                pc = s.play
                assert pc is not None
                assert standing_play(pc, random.Random(seed), 0) == pc.random_play(random.Random(seed))
                for tries in failing:
                    for k in range(10):
                        cards = standing_play(pc, random.Random(k), tries)
                        assert pc.can_play(cards)
                        _seat, _played, attempt = pc.clone().play(cards)
                        failing[tries] += attempt is not None
                leads += 10
            s.apply(s.random_legal_action(rng))
    assert leads >= 300
    assert failing[8] < 0.2 * failing[0], failing


def test_standing_cannot_be_negative():
    s = State(Rules.preset("pagat", players=5), seed=1)
    rng = random.Random(1)
    while s.phase != PLAY_PHASE:
        s.apply(s.random_legal_action(rng))
    with pytest.raises(ValueError, match="standing"):
        standing_play(s.play, rng, -1)
