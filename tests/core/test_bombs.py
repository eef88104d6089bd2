"""``bombs``: four or more copies of one card played to a lead of as many cards.

The tables are worked out by hand (trump rank 5, trump suit hearts, four
packs; the levels are in docs/kernel.md, "Trump context": 2 is 0, 3 is 1,
6 is 3, 7 is 4, 9 is 6, K is 10, A is 11). Each row runs against the kernel,
the reference and (for winners) the play engine's running best play.
"""

from __future__ import annotations

import random

import pytest

from core import kernel, reference
from core.cards import HEARTS, Cards, Trump, parse_cards
from core.errors import RulesError
from core.play import PlayCore
from core.rules import Rules

T = Trump(rank=5, suit=HEARTS)
BASE = Rules.preset("pagat", players=12)        # four packs
VALUES = ("none", "any_suit", "follow_suit")

# (lead and follows, winner without bombs, winner with bombs (either value), why)
WINNERS = [
    (["8S 8S 9S 9S", "2S 2S 2S 2S", "3S 6S 7S 10S"], 0, 1,
     "a bomb of the led suit takes a tractor it does not match"),
    (["8S 8S 9S 9S", "2S 2S 2S 2S", "3S 3S 3S 3S"], 0, 2, "two bombs of one suit: the higher level"),
    (["8S 8S 9S 9S", "2S 2S 2S 2S", "3H 3H 3H 3H", "AD AD AD AD"], 0, 2,
     "a trump bomb above plain ones, whatever their level"),
    (["8S 8S 9S 9S", "AD AD AD AD", "KS KS KS KS"], 0, 1,
     "plain bombs compare by level across suits: A (11) above K (10)"),
    (["8S 8S 9S 9S", "3H 3H 4H 4H", "2S 2S 2S 2S"], 1, 2, "a bomb above a trumping tractor"),
    (["7C 7C 7C 7C", "9C 9C 9C 9C", "AD AD AD AD"], 1, 2,
     "the lead is a bomb; without bombs only the set of the led suit can take it"),
    (["7C 7C 7C 7C", "5C 5C 5C 5C"], 1, 1, "off-suit trump-rank 5C is a trump: it takes the set either way"),
    (["AS AS KS QS", "3H 3H 4H 6H", "2D 2D 2D 2D"], 1, 2, "a bomb takes a trumped throw"),
    (["8S 8S 9S 9S", "2D 2D 2D 2D", "2C 2C 2C 2C"], 0, 1, "equal bombs: the earlier keeps the trick"),
    (["8S 8S 9S 9S KS", "2D 2D 2D 2D 3D"], 0, 0, "four of a card and another is no bomb"),
]


@pytest.mark.parametrize("plays,without,with_,why", WINNERS, ids=[w[3][:40] for w in WINNERS])
@pytest.mark.parametrize("impl", [kernel, reference], ids=["kernel", "reference"])
def test_bomb_winners(impl, plays, without, with_, why):
    trick = [parse_cards(p) for p in plays]
    for tw in ("largest", "highest", "all", "longest"):
        for value in VALUES:
            want = without if value == "none" else with_
            rules = BASE.replace(bombs=value, throw_winner=tw)
            assert impl.trick_winner(trick, T, rules) == want, (value, tw, why)


@pytest.mark.parametrize("plays,without,with_,why", WINNERS, ids=[w[3][:40] for w in WINNERS])
def test_bomb_play_engine_holder(plays, without, with_, why):
    for tw in ("largest", "all", "longest"):
        for value in VALUES:
            rules = BASE.replace(bombs=value, throw_winner=tw)
            trick = [parse_cards(p) for p in plays]
            hands = [parse_cards("2C")] * rules.players
            pc = PlayCore.resume(rules, T, 0, hands, [], [], [], [0] * rules.players,
                                 [0] * rules.players, 0, 0, trick)
            assert pc.holder == (without if value == "none" else with_), (value, tw, why)


# (lead, hand, play, legal under none, any_suit, follow_suit, why)
FOLLOWS = [
    ("8S 8S 9S 9S", "2D 2D 2D 2D 3S", "2D 2D 2D 2D", False, True, False,
     "an off-suit plain bomb while holding a spade: only any_suit"),
    ("8S 8S 9S 9S", "3H 3H 3H 3H 3S", "3H 3H 3H 3H", False, True, True,
     "a trump bomb while holding a spade: both bomb values"),
    ("8S 8S 9S 9S", "2D 2D 2D 2D 3C", "2D 2D 2D 2D", True, True, True, "void in spades: anything goes"),
    ("8S 8S 9S 9S", "2S 2S 2S 2S 6S 6S 7S 7S", "2S 2S 2S 2S", True, True, True,
     "without the ladder the tractor owes two pairs, which the bomb holds"),
    ("8S 8S 9S 9S", "2S 2S 2S 2S 6S 6S 7S 7S", "2S 2S 6S 7S", False, False, False,
     "not a bomb: the tractor is still owed"),
    ("3H 3H 4H 4H", "AS AS AS AS 6H", "AS AS AS AS", False, True, False,
     "trumps led: a plain bomb from a seat holding a trump, only any_suit"),
    ("3H 3H 4H 4H", "5S 5S 5S 5S 6H", "5S 5S 5S 5S", True, True, True,
     "5S is a trump: two pairs of trumps, legal anyway"),
    ("8S 8S 9S 9S KS", "2D 2D 2D 2D 3D 3S", "2D 2D 2D 2D 3D", False, False, False,
     "five cards led: four of a card and another is no bomb"),
]


@pytest.mark.parametrize("lead,hand,play,none,any_suit,follow_suit,why", FOLLOWS, ids=[f[6][:40] for f in FOLLOWS])
@pytest.mark.parametrize("impl", [kernel, reference], ids=["kernel", "reference"])
def test_bomb_follows(impl, lead, hand, play, none, any_suit, follow_suit, why):
    for value, want in zip(VALUES, (none, any_suit, follow_suit)):
        rules = BASE.replace(bombs=value)
        got = impl.is_legal_follow(parse_cards(hand), parse_cards(lead), parse_cards(play), T, rules)
        assert got == want, (value, why)
        listed = parse_cards(play) in set(impl.legal_follows(parse_cards(hand), parse_cards(lead), T, rules))
        assert listed == want, (value, why, "legal_follows")


def test_bomb_of_the_led_suit_frees_a_ladder_follow():
    """With ``follow_ladder`` the tractor 6S 6S 7S 7S is owed to 8S 8S 9S 9S;
    the bomb 2S 2S 2S 2S holds no tractor, so only a bomb value allows it."""
    lead, hand, play = parse_cards("8S 8S 9S 9S"), parse_cards("2S 2S 2S 2S 6S 6S 7S 7S"), parse_cards("2S 2S 2S 2S")
    for impl in (kernel, reference):
        for value, want in zip(VALUES, (False, True, True)):
            rules = BASE.replace(bombs=value, follow_ladder=True)
            assert impl.is_legal_follow(hand, lead, play, T, rules) == want, (impl.__name__, value)


@pytest.mark.parametrize("lead,play,any_suit,follow_suit", [
    ("8S 8S 9S 9S", "2D 2D 2D 2D", True, False),     # follow_suit: only a void seat plays it
    ("8S 8S 9S 9S", "3H 3H 3H 3H", True, True),      # a trump bomb: anyone may
    ("8S 8S 9S 9S", "2D 2D 2D 3D", False, False),    # no bomb
])
def test_free_bomb_shows_no_void(lead, play, any_suit, follow_suit):
    """What a short follow shows: a bomb a seat holding the suit may play shows no void."""
    for value, want in (("none", False), ("any_suit", any_suit), ("follow_suit", follow_suit)):
        assert kernel.free_bomb(parse_cards(lead), parse_cards(play), T, BASE.replace(bombs=value)) == want


def test_bombs_bad_values():
    with pytest.raises(RulesError, match="bombs"):
        Rules.preset("pagat", players=12, bombs="always")
    with pytest.raises(RulesError, match="bombs and packs"):
        Rules.preset("pagat", players=8, bombs="any_suit")       # three packs: no face has four copies
    assert Rules.preset("pagat").bombs == "none"
    assert Rules.preset("pagat", players=8).replace(bombs="none").bombs == "none"


RANDOM_TRICKS = 2_000


def _pool(rules: Rules) -> list[int]:
    out: list[int] = []
    for f in range(54):
        out += [f] * (rules.black_jokers if f == 52 else rules.red_jokers if f == 53 else rules.packs)
    return out


def test_random_bomb_tricks_kernel_matches_reference():
    """Random leads of four to six cards against hands that often hold four of
    a card: the legal follows, the random follows and the winner agree between
    the kernel, the reference and the play engine; bombs are played by the
    random follows and take tricks."""
    rng = random.Random(44)
    bombs_played = bombs_won = 0
    for _ in range(RANDOM_TRICKS):
        rules = BASE.replace(bombs=rng.choice(("any_suit", "follow_suit")),
                             throw_winner=rng.choice(("largest", "highest", "all", "longest")),
                             follow_ladder=rng.random() < 0.3)
        trump = Trump(rank=rng.randint(2, 14), suit=rng.choice((0, 1, 2, 3, None)))
        ctx = kernel.context(trump)
        pool = _pool(rules)
        rng.shuffle(pool)
        e = ctx.effective_suit(rng.choice(pool))
        suit = [f for f in pool if ctx.effective_suit(f) == e]
        lead = suit[:rng.randint(4, 6)]
        for f in lead:
            pool.remove(f)
        hands = []
        for _ in range(3):
            hand: list[int] = []
            if rng.random() < 0.6:
                quads = [f for f in set(pool) if pool.count(f) >= len(lead)]
                if quads:
                    q = rng.choice(quads)
                    hand += [q] * len(lead)
                    for _ in range(len(lead)):
                        pool.remove(q)
            k = rng.randint(2, 6) + max(0, len(lead) - len(hand))
            hand += pool[:k]
            del pool[:k]
            hands.append(Cards(sorted(hand)))
        lead_c = Cards(sorted(lead))
        trick = [lead_c]
        for h in hands:
            assert set(kernel.legal_follows(h, lead_c, trump, rules)) == \
                reference.legal_follows(h, lead_c, trump, rules), (str(trump), str(lead_c), str(h))
            f = kernel.random_follow(h, lead_c, trump, rules, rng)
            assert reference.is_legal_follow(h, lead_c, f, trump, rules), (str(lead_c), str(h), str(f))
            bombs_played += len(set(f)) == 1
            trick.append(f)
        w = kernel.trick_winner(trick, trump, rules)
        assert w == reference.trick_winner(trick, trump, rules), (str(trump), rules.throw_winner,
                                                                  [str(t) for t in trick])
        pc = PlayCore.resume(rules, trump, 0, [Cards()] * 4 + [lead_c] + [Cards()] * (rules.players - 5),
                             [], [], [], [0] * rules.players, [0] * rules.players, 0, 0, trick)
        assert pc.holder == w
        bombs_won += w > 0 and len(set(trick[w])) == 1
    assert bombs_played > RANDOM_TRICKS // 10, bombs_played
    assert bombs_won > RANDOM_TRICKS // 20, bombs_won
