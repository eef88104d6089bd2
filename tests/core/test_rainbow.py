"""Rainbows (``rules.rainbow``; docs/kernel.md, Rainbows), in the kernel, the play
engine and the reference.

The positions of rbtying/shengji's rainbow tests (``mechanics/src/trick.rs``, named
after them) in our card notation, hand-computed ones, then 10,000 random rainbow
positions on which the compiled kernel and ``core.reference`` must agree (reading,
follows, the winner, the throw check and the lead rule), and whole deals with
rainbows on. Where rbtying's tests play at a no-trump level with no trump rank, a
trump rank their cards do not use (J) is taken.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from core import kernel, reference
from core._kernel import LEAD_RULE_ERRORS
from core.cards import CLUBS, DIAMONDS, HEARTS, SPADES, Cards, Trump, parse_cards
from core.errors import IllegalActionError, RulesError
from core.play import PlayCore, play_options, rainbow_leads
from core.rules import SETTINGS, Rules

IMPLS = (kernel, reference)
ON = Rules.preset("pagat", players=12, rainbow=True)        # four packs
OFF = Rules.preset("pagat", players=12)
NT = Trump(11, None)                                        # no trump suit; jacks unused below
FOUR_SPADE_TRUMP = Trump(4, SPADES)
C = parse_cards


def _rb(impl: Any, cards: str, trump: Trump, rules: Rules) -> bool | None:
    """True: read as a rainbow; False: read as an ordinary lead; None: refused."""
    try:
        units = impl.decompose(C(cards), trump, rules)
    except IllegalActionError:
        return None
    return len(C(cards)) > 0 and len({kernel.effective_suit(f, trump) for f in C(cards)}) > 1 and bool(units)


# (name, cards, trump, rules, expected: True rainbow / False ordinary / None refused)
READINGS = [
    ("test_rainbow_detection_valid", "5C 5D 5H 5S", FOUR_SPADE_TRUMP, ON, True),
    ("test_rainbow_detection_too_few_cards", "5C 5D 5H", FOUR_SPADE_TRUMP, ON, None),
    ("test_rainbow_detection_too_few_suits", "5C 5C 5C 5C", FOUR_SPADE_TRUMP, ON, False),
    ("test_rainbow_detection_mixed_numbers", "5C 6D 5H 5S", FOUR_SPADE_TRUMP, ON, None),
    ("test_rainbow_disabled_by_default", "5C 5D 5H 5S", FOUR_SPADE_TRUMP, OFF, None),
    ("test_multi_rainbow_throw_detection", "5C 5D 5H 5S 8C 8D 8H 8S", NT, ON, True),
    ("hand: the trump rank is all trumps, an ordinary lead", "2C 2D 2H 2S", Trump(2, SPADES), ON, False),
    ("hand: a joker spoils it", "5C 5D 5H 5S RJ", Trump(2, SPADES), ON, None),
    ("hand: each rank needs four suits", "5C 5D 5H 5S 8C 8D 8H 8H", NT, ON, None),
    ("hand: five cards of a rank", "5C 5D 5H 5S 5S", Trump(2, HEARTS), ON, True),
]


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name,cards,trump,rules,want", READINGS, ids=[r[0] for r in READINGS])
def test_reading(impl: Any, name: str, cards: str, trump: Trump, rules: Rules, want: bool | None) -> None:
    assert _rb(impl, cards, trump, rules) == want, name


def test_units_of_a_rainbow_throw() -> None:
    for impl in IMPLS:
        units = impl.decompose(C("5C 5D 5H 5S 8C 8D 8H 8S 8S"), NT, ON)
        assert [(u.width, u.length, u.top, str(u.cards)) for u in units] == [
            (5, 1, 6, "8C 8D 8H 8S 8S"), (4, 1, 3, "5C 5D 5H 5S")], impl.__name__
    assert kernel.make_lead(C("5C 5D 5H 5S"), NT, ON).is_rainbow
    assert not kernel.make_lead(C("5C 5C"), NT, ON).is_rainbow


# (name, hand, lead, play, trump, legal)
FOLLOWS = [
    ("test_rainbow_must_play_rainbow_if_available", "6C 6D 6H 6S 3C 4D 7H 9S", "5C 5D 5H 5S", "3C 4D 7H 9S",
     NT, False),
    ("test_rainbow_must_play_rainbow_if_available (the sixes)", "6C 6D 6H 6S 3C 4D 7H 9S", "5C 5D 5H 5S",
     "6C 6D 6H 6S", NT, True),
    ("test_rainbow_no_rainbow_available_anything_legal", "3C 4D 7H 9S", "5C 5D 5H 5S", "3C 4D 7H 9S", NT, True),
    ("test_rainbow_winner_leader_wins_if_no_higher_rainbow", "3C 4D 5H 6S", "8C 8D 8H 8S", "3C 4D 5H 6S",
     NT, True),
    ("test_multi_rainbow_throw_follower_must_play_rainbows", "2C 2D 2H 2S 3C 3D 3H 3S 9C 10D",
     "5C 5D 5H 5S 8C 8D 8H 8S", "2C 2D 2H 2S 3C 3D 9C 10D", NT, False),
    ("test_multi_rainbow_throw_follower_must_play_rainbows (twos and threes)",
     "2C 2D 2H 2S 3C 3D 3H 3S 9C 10D", "5C 5D 5H 5S 8C 8D 8H 8S", "2C 2D 2H 2S 3C 3D 3H 3S", NT, True),
    ("test_multi_rainbow_is_legal_play_obligation (cannot satisfy)", "2C 2D 2H 3C 3D 3H 9C 10D",
     "5C 5D 5H 5S 8C 8D 8H 8S", "2C 2D 2H 3C 3D 3H 9C 10D", NT, True),
    ("hand: suits do not matter, one rank in one suit fits", "6S 6S 6S 6S 7C", "5C 5D 5H 5S", "6S 6S 6S 6S",
     NT, True),
    ("hand: two units may share a rank", "9C 9C 9D 9D 9H 9H 9S 9S 3C", "5C 5D 5H 5S 8C 8D 8H 8S",
     "9C 9C 9D 9D 9H 9H 9S 9S", NT, True),
    ("hand: a trump-rank card counts by its rank", "2C 2D 2H 2S 3C", "5C 5D 5H 5S", "2C 2D 2H 3C",
     Trump(2, SPADES), False),
    ("hand: jokers fit nothing (three nines and two jokers cannot fit)", "RJ RJ 9C 9D 9H 3C", "5C 5D 5H 5S",
     "RJ RJ 9C 3C", NT, True),
]


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name,hand,lead,play,trump,legal", FOLLOWS, ids=[r[0] for r in FOLLOWS])
def test_follow(impl: Any, name: str, hand: str, lead: str, play: str, trump: Trump, legal: bool) -> None:
    assert impl.is_legal_follow(C(hand), C(lead), C(play), trump, ON) == legal, name
    assert (Cards(C(play)) in set(impl.legal_follows(C(hand), C(lead), trump, ON))) == legal, name


def test_follow_error_names_the_rule() -> None:
    err = kernel.follow_error(C("6C 6D 6H 6S 3C 4D 7H 9S"), C("5C 5D 5H 5S"), C("3C 4D 7H 9S"), NT, ON)
    assert err is not None and "rainbow" in err


# (name, plays, trump, winner)
WINNERS = [
    ("test_rainbow_winner_higher_number_wins", ["5C 5D 5H 5S", "6C 6D 6H 6S", "3C 3D 3H 3S", "2C 2D 2H 2S"], NT, 1),
    ("test_rainbow_winner_leader_wins_if_no_higher_rainbow",
     ["8C 8D 8H 8S", "3C 4D 5H 6S", "3C 4D 5H 6S", "3C 4D 5H 6S"], NT, 0),
    ("test_rainbow_must_play_rainbow_if_available", ["5C 5D 5H 5S", "6C 6D 6H 6S"], NT, 1),
    ("test_rainbow_no_rainbow_available_anything_legal", ["5C 5D 5H 5S", "3C 4D 7H 9S"], NT, 0),
    ("test_multi_rainbow_throw_follower_must_play_rainbows",
     ["5C 5D 5H 5S 8C 8D 8H 8S", "2C 2D 2H 2S 3C 3D 3H 3S"], NT, 0),
    ("hand: trumps do not beat a rainbow", ["5C 5D 5H 5S", "AS AS KS KS"], Trump(2, SPADES), 0),
    ("hand: one rank in one suit beats by rank", ["5C 5D 5H 5S", "9H 9H 9H 9H"], NT, 1),
    ("hand: a tie stays with the earlier play", ["5C 5D 5H 5S", "5C 5D 5H 5S", "6C 6D 6H 6S", "6C 6D 6H 6S"],
     NT, 2),
    ("hand: [9, 9] beats [8, 5]", ["5C 5D 5H 5S 8C 8D 8H 8S", "9C 9C 9D 9D 9H 9H 9S 9S"], NT, 1),
    ("hand: [10, 2] beats [8, 5] (the first place decides)", ["5C 5D 5H 5S 8C 8D 8H 8S", "10C 10D 10H 10S 2C 2D 2H 2S"], NT, 1),
    ("hand: the greedy split fails (K takes the first unit, A has three)",
     ["5C 5D 5H 5S 8C 8D 8H 8S", "KC KD KH KS KS AC AD AH"], NT, 0),
    ("hand: widest unit first, ranks [9, 8] against [6, 5]", ["5C 5D 5H 5S 5S 6C 6D 6H 6S",
                                                            "8C 8D 8H 8S 8S 9C 9D 9H 9S"], NT, 1),
]


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name,plays,trump,winner", WINNERS, ids=[r[0] for r in WINNERS])
def test_winner(impl: Any, name: str, plays: list[str], trump: Trump, winner: int) -> None:
    assert impl.trick_winner([C(p) for p in plays], trump, ON) == winner, name


# (name, lead, others, failed_throw_unit, stands, kept, by)
THROWS = [
    ("test_multi_rainbow_throw_detection", "5C 5D 5H 5S 8C 8D 8H 8S", ["2C 2D 2H 2S 3C 3D 3H 3S"],
     "smallest_lowest", True, None, None),
    ("test_multi_rainbow_throw_invalidated_when_beatable", "5C 5D 5H 5S 8C 8D 8H 8S",
     ["9C 9D 9H 9S 2C 3D 4H 7S"], "smallest_lowest", False, "5C 5D 5H 5S", 0),
    ("test_multi_rainbow_throw_invalidated_when_beatable (first_found)", "5C 5D 5H 5S 8C 8D 8H 8S",
     ["9C 9D 9H 9S 2C 3D 4H 7S"], "first_found", False, "8C 8D 8H 8S", 0),
    ("hand: sixes beat only the fives, in the second hand", "5C 5D 5H 5S 8C 8D 8H 8S",
     ["AC AD AH", "6S 6S 6H 6H"], "first_found", False, "5C 5D 5H 5S", 1),
    ("hand: a wider unit needs as many cards", "5C 5D 5H 5S 8C 8D 8H 8S 8S", ["9C 9D 9H 9S"],
     "smallest_lowest", False, "5C 5D 5H 5S", 0),
    ("hand: four nines do not beat five eights", "7C 7D 7H 7S 8C 8D 8H 8S 8S", ["9C 9D 9H 9S 7C"],
     "first_found", False, "7C 7D 7H 7S", 0),
    ("hand: a single rainbow always stands", "5C 5D 5H 5S", ["AC AD AH AS"], "smallest_lowest", True, None, None),
]


@pytest.mark.parametrize("impl", IMPLS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name,lead,others,how,stands,kept,by", THROWS, ids=[r[0] for r in THROWS])
def test_throw(impl: Any, name: str, lead: str, others: list[str], how: str, stands: bool,
               kept: str | None, by: int | None) -> None:
    rules = Rules.preset("pagat", players=12, rainbow=True, failed_throw_unit=how)
    got = impl.check_throw(C(lead), [C(h) for h in others], NT, rules)
    assert got.stands == stands, name
    if not stands:
        assert got.unit == Cards(C(kept)) and got.beaten_by == by, name
        assert got.withdrawn == len(C(lead)) - len(C(kept))
        assert got.penalty == 10 * got.withdrawn


def test_safe_lead_rule_reads_unseen_cards_by_rank() -> None:
    """Under ``safe`` a rainbow throw may be led only if no unseen rank above a unit has its width."""
    rules = Rules.preset("pagat", players=12, rainbow=True, throw_check="safe")
    hand = C("5C 5D 5H 5S 8C 8D 8H 8S")
    assert reference.lead_rule(hand, hand, C(""), NT, rules) == 2
    assert kernel.lead_error(hand, hand, C(""), NT, rules) is not None
    # a single rainbow is one unit: always allowed
    assert kernel.lead_error(C("5C 5D 5H 5S"), hand, C(""), NT, rules) is None
    assert reference.lead_rule(C("5C 5D 5H 5S"), hand, C(""), NT, rules) == 0
    # every rank above 5 is left out of sight in three copies (three spades): the throw may be led
    ranks = ("6", "7", "8", "9", "10", "J", "Q", "K", "A")
    played = Cards(sorted(f for r in ranks for x in "CDHS" for f in C(f"{r}{x}") * (
        (1 if x == "S" else 4) - (r == "8"))))
    assert kernel.lead_error(hand, hand, played, NT, rules) is None
    assert reference.lead_rule(hand, hand, played, NT, rules) == 0


@pytest.mark.parametrize("lead,code", [
    ("5C 5D 5H 5S 8C 8D 8H 8S", 0),          # two ranks, every card once
    ("5C 5D 5H 5S 5S 8C 8D 8H 8S", 3),       # 5S twice, the others once
    ("5C 5D 5H 5S 5S", 0),                   # one rank: a single unit, no throw
    ("5C 5C 5D 5D 5H 5H 5S 5S 8C 8C 8D 8D 8H 8H 8S 8S", 0),  # every card twice
])
def test_equal_throw_counts_count_a_rainbow_by_card(lead: str, code: int) -> None:
    """Under ``throw_counts`` ``equal`` a rainbow throw is counted card by card
    (suit and rank), over the whole lead, like any throw."""
    rules = Rules.preset("pagat", players=12, rainbow=True, throw_counts="equal")
    assert reference.lead_rule(C(lead), C(lead), C(""), NT, rules) == code
    assert kernel.lead_error(C(lead), C(lead), C(""), NT, rules) == LEAD_RULE_ERRORS.get(code)


def test_play_engine_keeps_the_beatable_rank_and_scores_the_trick() -> None:
    """rbtying's invalidated throw in the engine: the fives are led, the sixes take them."""
    rules = Rules.preset("pagat", players=5, rainbow=True)
    hands = [C("5C 5D 5H 5S 8C 8D 8H 8S"), C("9C 9D 9H 9S 2C 3D 4H 7S"), C("6C 6D 6H 6S AC AD AH AS"),
             C("KC KD KH 3S 3C 4C 4D 4H"), C("10C 10D 10H 2S 2D 2H 7C 7D")]
    pc = PlayCore.start(rules, NT, 0, hands)
    seat, played, attempt = pc.play(C("5C 5D 5H 5S 8C 8D 8H 8S"))
    assert attempt == Cards(C("5C 5D 5H 5S 8C 8D 8H 8S")) and played == Cards(C("5C 5D 5H 5S"))
    assert [str(u.cards) for u in pc.lead_units] == ["5C 5D 5H 5S"]
    assert pc.play_error(C("2C 3D 4H 7S")) is not None        # the nines fit
    pc.play(C("9C 9D 9H 9S"))
    assert pc.holder == 1
    assert not pc.can_play(C("AC AD AH 6C")) and pc.can_play(C("AC AD AH AS"))
    pc.play(C("AC AD AH AS"))
    pc.play(C("KC KD KH 3S"))                                  # no four of a rank: anything
    pc.play(C("10C 10D 10H 2S"))
    assert pc.leader == 2
    assert pc.points[2] == 20 + 30 + 30 and pc.penalties[0] == 40   # four fives, three kings, three tens


def test_setting() -> None:
    assert Rules().rainbow is False and "rainbow" in SETTINGS
    with pytest.raises(RulesError, match="rainbow: expected true or false"):
        Rules.preset("pagat", rainbow="yes")  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="^bombs and rainbow: ") as ei:
        Rules.preset("pagat", players=12, rainbow=True, bombs="any_suit")
    assert "\n" not in str(ei.value)


def test_lead_enumeration_lists_the_rainbows() -> None:
    hand = C("5C 5D 5H 5S 5S 8C 8D 8H 8S 3C")
    rainbows = {Cards(C(x)) for x in ("5C 5D 5H 5S", "5C 5D 5H 5S 5S", "8C 8D 8H 8S", "5C 5D 5H 5S 8C 8D 8H 8S",
                                      "5C 5D 5H 5S 5S 8C 8D 8H 8S")}
    got = {Cards(c) for c in play_options(hand, None, NT, ON)}
    assert {c for c in got if kernel.make_lead(c, NT, ON).is_rainbow} == rainbows
    assert {Cards(c) for c in rainbow_leads(hand, kernel.context(NT))} == rainbows
    off = {Cards(c) for c in play_options(hand, None, NT, OFF)}
    assert off == got - rainbows


def test_random_lead_leads_rainbows_and_random_follows_are_legal() -> None:
    rng = random.Random(5)
    hand = C("5C 5D 5H 5S 8C 8D 8H 8S 3C 4D JH QS")
    leads = [kernel.random_lead(hand, NT, ON, rng) for _ in range(400)]
    rb = [x for x in leads if kernel.make_lead(x, NT, ON).is_rainbow]
    assert 40 < len(rb) < 200 and any(len(kernel.make_lead(x, NT, ON).units) == 2 for x in rb)
    assert not any(kernel.make_lead(x, NT, OFF).is_rainbow
                   for x in (kernel.random_lead(hand, NT, OFF, rng) for _ in range(200)))
    for _ in range(300):
        follower = C(" ".join(rng.sample("6C 6D 6H 6S 6S 9C 9D 9H 7S 7S 7C 2D 2H 2S KH".split(), 9)))
        lead = C("5C 5D 5H 5S") if rng.random() < 0.5 else C("5C 5D 5H 5S 8C 8D 8H 8S")
        if len(follower) < len(lead):
            continue
        play = kernel.random_follow(follower, lead, NT, ON, rng)
        assert reference.is_legal_follow(follower, lead, play, NT, ON), (follower, play)


def test_the_examples_of_kernel_md() -> None:
    """docs/kernel.md, Rainbows: the examples at trump rank 2 in spades (four packs)."""
    t = Trump(2, SPADES)
    for impl in IMPLS:
        assert len(impl.decompose(C("5C 5D 5H 5S"), t, ON)) == 1
        for bad in ("5C 5D 5H", "5C 6D 5H 5S"):
            with pytest.raises(IllegalActionError):
                impl.decompose(C(bad), t, ON)
        assert [u.width for u in impl.decompose(C("2C 2D 2H 2S"), t, ON)] == [1, 1, 1, 1]
        lead = C("5C 5D 5H 5S")
        assert set(impl.legal_follows(C("6C 6D 6H 6S 3C 4D 7H 9S"), lead, t, ON)) == {Cards(C("6C 6D 6H 6S"))}
        assert impl.trick_winner([lead, C("6C 6D 6H 6S")], t, ON) == 1
        assert impl.is_legal_follow(C("3C 4D 7H 9C 9D 9S 10H JH"), lead, C("9C 9D 9S 10H"), t, ON)
        assert impl.trick_winner([lead, C("9C 9D 9S 10H")], t, ON) == 0
        throw = C("5C 5D 5H 5S 8C 8D 8H 8S")
        assert impl.trick_winner([throw, C("9C 9C 9D 9H 9S 9S 9H 9D")], t, ON) == 1
        assert impl.trick_winner([throw, C("KC KD KH KS KS AC AD AH")], t, ON) == 0
        for how, kept in (("smallest_lowest", "5C 5D 5H 5S"), ("first_found", "8C 8D 8H 8S")):
            rules = Rules.preset("pagat", players=12, rainbow=True, failed_throw_unit=how)
            res = impl.check_throw(throw, [C("9C 9D 9H 9S")], t, rules)
            assert not res.stands and res.unit == Cards(C(kept)) and res.penalty == 40


# ------------------------------------------------------------------ kernel against reference
POSITIONS = 10_000


def _rainbow_position(rng: random.Random, rules: Rules) -> tuple[Trump, Cards, list[Cards]]:
    """A trump, a rainbow lead of one to three ranks, and two to four hands dealt from what is left,
    biased to hold sets of ranks."""
    while True:
        trump = Trump(rng.randint(2, 14), rng.choice((CLUBS, DIAMONDS, HEARTS, SPADES, None)))
        deck = rules.deck()
        rng.shuffle(deck)
        ranks = [r for r in range(13) if r + 2 != trump.rank]
        lead = []
        for r in rng.sample(ranks, rng.choice((1, 1, 2, 2, 3))):
            faces = [s * 13 + r for s in range(4)] + [s * 13 + r for s in range(4) if rng.random() < 0.25]
            lead += faces
        for f in lead:
            if f in deck:
                deck.remove(f)
            else:
                break
        else:
            break
    hands = []
    for _ in range(rng.randint(2, 4)):
        base = rng.sample(range(13), 3)
        pool = [f for f in deck if f >= 52 or f % 13 in base]
        size = rng.randint(len(lead), len(lead) + 4)
        mine = rng.sample(pool, min(size, len(pool)))
        for f in mine:
            deck.remove(f)
        while len(mine) < len(lead):
            mine.append(deck.pop())
        hands.append(Cards(sorted(mine)))
    return trump, Cards(sorted(lead)), hands


def test_kernel_matches_reference_on_random_rainbows() -> None:
    rng = random.Random(20261204)
    crng = random.Random(20261205)          # throw_counts, apart from the positions' draws
    tables = {}
    counts = {"fit": 0, "follower wins": 0, "failed": 0, "safe refused": 0, "unequal refused": 0}
    for _ in range(POSITIONS):
        key = (rng.choice((5, 6, 8)), rng.choice(("smallest_lowest", "first_found")),
               rng.choice(("others_hands", "safe")), crng.choice(("free", "equal")))
        if key not in tables:
            tables[key] = Rules.preset("pagat", players=key[0], rainbow=True, failed_throw_unit=key[1],
                                       throw_check=key[2], throw_counts=key[3])
        rules = tables[key]
        trump, lead, hands = _rainbow_position(rng, rules)
        ld = kernel.make_lead(lead, trump, rules)
        assert ld.is_rainbow
        assert [(u.width, u.top, u.cards) for u in ld.units] == [
            (u.width, u.top, u.cards) for u in reference.decompose(lead, trump, rules)]
        hand = hands[0]
        plays = [kernel.random_follow(h, ld, trump, rules, rng) for h in hands]
        for play in plays[:1] + [Cards(sorted(rng.sample(list(hand), len(lead))))]:
            want = reference.is_legal_follow(hand, lead, play, trump, rules)
            assert kernel.is_legal_follow(hand, ld, play, trump, rules) == want, (trump, lead, hand, play)
        for h, p in zip(hands, plays):
            assert reference.is_legal_follow(h, lead, p, trump, rules), (trump, lead, h, p)
        trick = [lead] + plays
        w = kernel.trick_winner(trick, trump, rules)
        assert w == reference.trick_winner(trick, trump, rules), (trump, trick)
        counts["follower wins"] += w > 0
        got = kernel.check_throw(lead, hands, trump, rules)
        assert got == reference.check_throw(lead, hands, trump, rules), (trump, lead, hands)
        counts["failed"] += not got.stands
        played = Cards(sorted(hands[-1]))
        k = kernel.lead_error(lead, lead, played, trump, rules)
        r = reference.lead_rule(lead, lead, played, trump, rules)
        assert k == LEAD_RULE_ERRORS.get(r), (trump, lead, played, rules.throw_counts)
        counts["safe refused"] += r == 2
        counts["unequal refused"] += r == 3
    assert min(counts["follower wins"], counts["failed"], counts["safe refused"],
               counts["unequal refused"]) > POSITIONS // 50, counts


def test_legal_follow_lists_match_on_small_hands() -> None:
    rng = random.Random(77)
    checked = 0
    while checked < 300:
        trump, lead, hands = _rainbow_position(rng, ON)
        if len(lead) > 8 or len(hands[0]) > 11:
            continue
        checked += 1
        got = set(kernel.legal_follows(hands[0], lead, trump, ON))
        assert got == reference.legal_follows(hands[0], lead, trump, ON), (trump, lead, hands[0])


# ------------------------------------------------------------------ whole deals
def test_whole_deals_with_rainbows_match_the_reference() -> None:
    """Random deals of five packs in five hands of 50 (where rainbows are common) and of pagat at 12
    players: every play to a rainbow is legal for the reference, a rainbow led passes its lead rule,
    the engine gives each trick to the kernel's winner and each rainbow trick to the reference's;
    rainbows (single and thrown) occur, and followers take some of them."""
    rng = random.Random(3)
    seen = {"rainbow": 0, "thrown": 0, "taken": 0}
    wide = Rules(players=5, packs=5, red_jokers=5, black_jokers=5, hand_size=50, kitty_size=20, friend_calls=2,
                 rainbow=True)
    for deal in range(40):
        rules = wide if deal % 2 else Rules.preset("pagat", players=12, rainbow=True)
        deck = rules.deck()
        rng.shuffle(deck)
        n, hs = rules.players, rules.hand_size
        hands = [Cards(sorted(deck[i * hs:(i + 1) * hs])) for i in range(n)]
        trump = Trump(rng.randint(2, 14), rng.choice((0, 1, 2, 3, None)))
        pc = PlayCore.start(rules, trump, 0, hands)
        trick: list[Cards] = []
        first = 0
        rainbow = False
        while not pc.done:
            seat = pc.current_player
            held = pc.hand(seat)
            play = pc.random_play(rng)
            if not trick:
                first = seat
                rainbow = kernel.make_lead(play, trump, rules).is_rainbow
                if rainbow:
                    assert reference.lead_rule(play, held, pc.played(), trump, rules) == 0
            elif rainbow:
                assert reference.is_legal_follow(held, trick[0], play, trump, rules)
            _, played, attempt = pc.play(play)
            trick.append(played)
            if len(trick) == 1 and rainbow:
                seen["rainbow"] += 1
                seen["thrown"] += len(kernel.decompose(play, trump, rules)) >= 2
            if len(trick) == n:
                w = kernel.trick_winner(trick, trump, rules)
                assert pc.leader == (first + w) % n
                if rainbow:
                    assert w == reference.trick_winner(trick, trump, rules)
                    seen["taken"] += w > 0
                trick = []
    assert seen["rainbow"] >= 40 and seen["thrown"] >= 3 and seen["taken"] >= 10, seen
