"""Hand-computed checks of the naive reference kernel (core/reference.py)."""

from __future__ import annotations


import pytest

from core.cards import BJ, RJ, CLUBS, DIAMONDS, HEARTS, SPADES, Trump, parse_card, parse_cards
from core.errors import IllegalActionError
from core.reference import (
    check_throw, decompose, effective_suit, is_legal_follow, legal_follows, level, points,
    trick_winner,
)
from core.rules import Rules

C = parse_cards
TWO_PACKS = Rules.preset("pagat", players=6)
THREE_PACKS = Rules.preset("pagat", players=8)
FOUR_PACKS = Rules.preset("pagat", players=12)


def L(card: str, trump: Trump) -> int:
    return level(parse_card(card), trump)


def cards_set(*texts: str) -> set:
    return {C(t) for t in texts}


# ---------------------------------------------------------------- trump order

def test_trump_order_eights_and_diamonds():
    t = Trump(rank=8, suit=DIAMONDS)
    assert level(RJ, t) == 15 and level(BJ, t) == 14
    assert L("8D", t) == 13
    assert L("8C", t) == L("8H", t) == L("8S", t) == 12
    assert [L(c, t) for c in ("AD", "KD", "QD", "JD", "10D", "9D", "7D", "2D")] == [11, 10, 9, 8, 7, 6, 5, 0]
    for c in ("8C", "8H", "8S", "8D", "AD", "2D"):
        assert effective_suit(parse_card(c), t) == 4
    assert effective_suit(BJ, t) == effective_suit(RJ, t) == 4
    assert effective_suit(parse_card("3C"), t) == CLUBS
    assert effective_suit(parse_card("AS"), t) == SPADES
    # off-suit order skips the trump rank too: 9S is next above 7S
    assert L("9S", t) == L("7S", t) + 1 == 6


def test_levels_without_rank_or_suit():
    t = Trump(rank=5, suit=HEARTS)
    assert [L(c, t) for c in ("2C", "3C", "4C", "6C", "AC")] == [0, 1, 2, 3, 11]
    no_rank = Trump(rank=None, suit=None)
    assert [L(c, no_rank) for c in ("2C", "AC")] == [0, 12]
    assert effective_suit(parse_card("AC"), no_rank) == CLUBS and effective_suit(BJ, no_rank) == 4
    no_suit = Trump(rank=7, suit=None)
    assert L("7C", no_suit) == L("7S", no_suit) == 13
    assert effective_suit(parse_card("7H"), no_suit) == 4


def test_points():
    assert points("KS 10D 5H 5H AS") == 30
    assert points(C("KS KH 10C 5D")) == 35
    assert points("") == 0


# -------------------------------------------------------------- decomposition

def shapes(units):
    return [(u.width, u.length, str(u.cards)) for u in units]


def test_decompose_222_33_three_packs():
    t = Trump(rank=5, suit=HEARTS)
    assert shapes(decompose(C("2S 2S 2S 3S 3S"), t, THREE_PACKS)) == [(2, 2, "2S 2S 3S 3S"), (1, 1, "2S")]


def test_tractor_skips_trump_rank():
    t = Trump(rank=5, suit=HEARTS)
    units = decompose(C("6S 6S 4S 4S"), t, TWO_PACKS)
    assert shapes(units) == [(2, 2, "4S 4S 6S 6S")] and units[0].top == L("6S", t)
    # in the trump suit too
    assert shapes(decompose(C("6H 6H 4H 4H"), t, TWO_PACKS)) == [(2, 2, "4H 4H 6H 6H")]
    # trump-rank cards never join a tractor by default: two pairs
    assert shapes(decompose(C("5S 5S AH AH"), t, TWO_PACKS)) == [(2, 1, "5S 5S"), (2, 1, "AH AH")]
    assert shapes(decompose(C("BJ BJ RJ RJ"), t, TWO_PACKS)) == [(2, 1, "RJ RJ"), (2, 1, "BJ BJ")]


def test_tractor_past_ace():
    t = Trump(rank=4, suit=DIAMONDS)
    past = TWO_PACKS.replace(tractor_past_ace=True)
    assert shapes(decompose(C("AD AD 4C 4C"), t, past)) == [(2, 2, "4C 4C AD AD")]
    assert shapes(decompose(C("4D 4D 4D 4D BJ BJ"), t, FOUR_PACKS.replace(tractor_past_ace=True))) == [
        (2, 2, "4D 4D BJ BJ"), (2, 1, "4D 4D")]
    # two different off-suit trump-rank sets are never adjacent
    assert [u.length for u in decompose(C("4C 4C 4H 4H"), t, past)] == [1, 1]
    # without the setting, no tractor
    assert [u.length for u in decompose(C("AD AD 4C 4C"), t, TWO_PACKS)] == [1, 1]


def test_decompose_throw_order_and_suit_checks():
    t = Trump(rank=3, suit=SPADES)
    units = decompose(C("AD AD KD KD JD JD JD"), t, THREE_PACKS)
    assert shapes(units) == [(2, 2, "KD KD AD AD"), (3, 1, "JD JD JD")]
    with pytest.raises(IllegalActionError, match="mixed suits"):
        decompose(C("AD AC"), t, TWO_PACKS)
    with pytest.raises(IllegalActionError):
        decompose(C(""), t, TWO_PACKS)
    # trumps of different printed suits are one suit
    assert len(decompose(C("3H 2S BJ"), t, TWO_PACKS)) == 3


# ------------------------------------------------------------------ following

FIVES_HEARTS = Trump(rank=5, suit=HEARTS)
QQJJ = C("QS QS JS JS")
QQJJTT = C("QS QS JS JS 10S 10S")


def test_follow_tractor_with_unconnected_pairs_from_triples():
    t = FIVES_HEARTS
    hand = C("AS AS AS KS KS KS 4S 4S 3D 7C")
    assert legal_follows(hand, QQJJTT, t, TWO_PACKS) == cards_set("AS AS KS KS 4S 4S")
    assert not is_legal_follow(hand, QQJJTT, C("AS AS AS KS KS KS"), t, TWO_PACKS)
    # only six spades: play them all; they do not beat the lead
    short = C("AS AS AS KS KS KS 3D")
    assert legal_follows(short, QQJJTT, t, TWO_PACKS) == cards_set("AS AS AS KS KS KS")
    assert trick_winner([QQJJTT, C("AS AS AS KS KS KS")], t, TWO_PACKS) == 0


def test_follow_one_pair():
    hand = C("AS QS 10S 10S 7S 6S 2D")
    expected = {C("10S 10S") + C(x) for x in ("AS QS", "AS 7S", "AS 6S", "QS 7S", "QS 6S", "7S 6S")}
    assert legal_follows(hand, QQJJ, FIVES_HEARTS, TWO_PACKS) == expected


def test_follow_any_two_pairs():
    hand = C("AS AS 10S 10S 9S 9S")
    assert legal_follows(hand, QQJJ, FIVES_HEARTS, TWO_PACKS) == cards_set(
        "AS AS 10S 10S", "AS AS 9S 9S", "10S 10S 9S 9S")


def test_follow_four_aces_as_two_pairs():
    hand = C("AS AS AS AS 6S 4S")
    assert legal_follows(hand, QQJJ, FIVES_HEARTS, FOUR_PACKS) == cards_set("AS AS AS AS")
    assert trick_winner([QQJJ, C("AS AS AS AS")], FIVES_HEARTS, FOUR_PACKS) == 0


def test_follow_two_of_three_pairs_and_kkqq_wins():
    hand = C("KS KS QS QS 8S 7S 7S")
    assert legal_follows(hand, QQJJ, FIVES_HEARTS, FOUR_PACKS) == cards_set(
        "KS KS QS QS", "KS KS 7S 7S", "QS QS 7S 7S")
    assert trick_winner([QQJJ, C("KS KS 7S 7S"), C("KS KS QS QS")], FIVES_HEARTS, FOUR_PACKS) == 2


def test_follow_short_suit_and_void():
    t = FIVES_HEARTS
    hand = C("QS 3C 4C")
    assert legal_follows(hand, C("KS KS"), t, TWO_PACKS) == cards_set("QS 3C", "QS 4C")
    void = C("3C 4C 5D")
    assert legal_follows(void, C("KS KS"), t, TWO_PACKS) == cards_set("3C 4C", "3C 5D", "4C 5D")
    assert not is_legal_follow(hand, C("KS KS"), C("3C 4C"), t, TWO_PACKS)


def test_is_legal_follow_bad_plays_are_false():
    hand = C("AS AS 10S 9S")
    lead = C("KS KS")
    assert not is_legal_follow(hand, lead, C("AS AS 10S"), FIVES_HEARTS, TWO_PACKS)
    assert not is_legal_follow(hand, lead, C("KS KS"), FIVES_HEARTS, TWO_PACKS)
    assert not is_legal_follow(hand, lead, C("AS 10S"), FIVES_HEARTS, TWO_PACKS)
    assert is_legal_follow(hand, lead, C("AS AS"), FIVES_HEARTS, TWO_PACKS)


def test_trump_lead_follows_with_trump_rank_and_jokers():
    t = Trump(rank=4, suit=DIAMONDS)
    hand = C("4C 4C 2D BJ 9S")
    assert legal_follows(hand, C("3D 3D"), t, TWO_PACKS) == cards_set("4C 4C")
    # 4C 4H is not a pair
    hand2 = C("4C 4H 2D 9S")
    assert legal_follows(hand2, C("3D 3D"), t, TWO_PACKS) == cards_set("4C 4H", "4C 2D", "4H 2D")


def test_follow_ladder_triple_led():
    t = FIVES_HEARTS
    lead = C("7S 7S 7S")
    hand = C("AS KS KS 8S 4S")
    ladder = THREE_PACKS.replace(follow_ladder=True)
    assert legal_follows(hand, lead, t, ladder) == cards_set("KS KS AS", "KS KS 8S", "KS KS 4S")
    assert C("AS 8S 4S") in legal_follows(hand, lead, t, THREE_PACKS)


def test_follow_ladder_prefers_tractor():
    hand = C("AS AS KS KS 9S 9S 3S")
    assert len(legal_follows(hand, QQJJ, FIVES_HEARTS, TWO_PACKS)) == 3
    ladder = TWO_PACKS.replace(follow_ladder=True)
    assert legal_follows(hand, QQJJ, FIVES_HEARTS, ladder) == cards_set("AS AS KS KS")


def test_follow_ladder_shorter_tractor_for_triple_tractor():
    lead = C("8S 8S 8S 9S 9S 9S")
    hand = C("AS AS KS KS 6S 4S 2S 2S")
    ladder = THREE_PACKS.replace(follow_ladder=True)
    rest = ("6S 4S", "6S 2S", "4S 2S", "2S 2S")
    assert legal_follows(hand, lead, FIVES_HEARTS, ladder) == {C("AS AS KS KS") + C(r) for r in rest}


def test_protect_longer_sets():
    lead = C("9S 9S")
    hand = C("KS KS KS 7S 6S")
    assert legal_follows(hand, lead, FIVES_HEARTS, THREE_PACKS) == cards_set("KS KS")
    protect = THREE_PACKS.replace(protect_longer_sets=True)
    assert legal_follows(hand, lead, FIVES_HEARTS, protect) == cards_set("KS KS", "KS 7S", "KS 6S", "7S 6S")
    # an exact pair is still owed
    hand2 = C("KS KS KS 7S 7S 6S")
    assert legal_follows(hand2, lead, FIVES_HEARTS, protect) == cards_set("KS KS", "7S 7S")


# -------------------------------------------------------------------- winning

FOURS_DIAMONDS = Trump(rank=4, suit=DIAMONDS)
AKJJ = C("AS KS JS JS")


def test_ruffs_pair_beats_triple_read_as_pair():
    t = FOURS_DIAMONDS
    plays = [AKJJ, C("5D 5D 5D QD"), C("7D 7D 3D 2D")]
    assert trick_winner(plays, t, THREE_PACKS) == 2
    assert trick_winner(plays[:2], t, THREE_PACKS) == 1
    # a ruff without the lead's shape never wins
    assert trick_winner([AKJJ, C("AD KD QD JD")], t, TWO_PACKS) == 0
    # mixing trumps with other cards never wins
    assert trick_winner([AKJJ, C("3C 3C AD KD")], t, TWO_PACKS) == 0


def test_threes_and_spades_ruffs():
    t = Trump(rank=3, suit=SPADES)
    lead = C("AD AD KD KD JD JD JD")
    b = C("AS AS AS 8S 8S 7S 7S")
    c = C("10S 10S 9S 9S 4S 4S 4S")
    assert trick_winner([lead, b, c], t, THREE_PACKS) == 2
    assert trick_winner([lead, c, b], t, THREE_PACKS) == 1
    assert trick_winner([lead, b], t, THREE_PACKS) == 1


def test_equal_trump_rank_cards_first_played_wins():
    t = FOURS_DIAMONDS
    assert trick_winner([C("3D"), C("4H"), C("4C"), C("4S")], t, TWO_PACKS) == 1
    assert trick_winner([C("3D"), C("4H"), C("4D"), C("BJ")], t, TWO_PACKS) == 3
    # 4H 4C is no pair
    assert trick_winner([C("2D 2D"), C("4H 4C"), C("3D 3D")], t, TWO_PACKS) == 2
    assert trick_winner([C("2D 2D"), C("4H 4H"), C("4C 4C")], t, TWO_PACKS) == 1
    # a higher off-suit card does not beat a single lead of another suit
    assert trick_winner([C("KS"), C("AC"), C("AS")], t, TWO_PACKS) == 2


def test_tractor_win_needs_same_suit_or_all_trumps():
    t = FIVES_HEARTS
    assert trick_winner([QQJJ, C("KS KS QS QS"), C("3H 3H 2H 2H")], t, TWO_PACKS) == 2
    # 6S 6S 4S 4S is a tractor (fives skipped)
    assert trick_winner([C("3S 3S 2S 2S"), C("6S 6S 4S 4S")], t, TWO_PACKS) == 1


# --------------------------------------------------------------------- throws

def test_throw_beaten_by_single_ace():
    r = check_throw(AKJJ, [C("3C 5H"), C("AS 2S")], FOURS_DIAMONDS, TWO_PACKS)
    assert r.stands is False
    assert r.unit == C("KS") and r.withdrawn == 3 and r.penalty == 30 and r.beaten_by == 1


def test_throw_beaten_by_pair_of_queens():
    r = check_throw(AKJJ, [C("QS QS 3S")], FOURS_DIAMONDS, TWO_PACKS)
    assert (r.stands, r.unit, r.withdrawn, r.penalty, r.beaten_by) == (False, C("JS JS"), 2, 20, 0)


def test_throw_choice_of_unit():
    others = [C("QS QS"), C("AS")]
    r = check_throw(AKJJ, others, FOURS_DIAMONDS, TWO_PACKS)
    assert (r.unit, r.withdrawn, r.penalty, r.beaten_by) == (C("KS"), 3, 30, 1)
    first = TWO_PACKS.replace(failed_throw_unit="first_found")
    r = check_throw(AKJJ, others, FOURS_DIAMONDS, first)
    assert (r.unit, r.withdrawn, r.penalty, r.beaten_by) == (C("JS JS"), 2, 20, 0)
    nopen = TWO_PACKS.replace(throw_penalty=0)
    assert check_throw(AKJJ, others, FOURS_DIAMONDS, nopen).penalty == 0


def test_throw_stands():
    # equal cards and trumps do not beat; only led-suit cards count
    r = check_throw(AKJJ, [C("KS JS JS 2S"), C("AD AD BJ")], FOURS_DIAMONDS, TWO_PACKS)
    assert r == (True, None, 0, 0, None)
    # a single-unit lead always stands
    assert check_throw(C("2S"), [C("AS")], FOURS_DIAMONDS, TWO_PACKS) == (True, None, 0, 0, None)


def test_throw_tractor_beaten_only_by_tractor():
    lead = C("JS JS 10S 10S AS")
    t = FOURS_DIAMONDS
    assert check_throw(lead, [C("KS KS 9S 9S")], t, TWO_PACKS).stands
    r = check_throw(lead, [C("KS KS QS QS")], t, TWO_PACKS)
    assert (r.stands, r.unit, r.withdrawn, r.penalty) == (False, C("JS JS 10S 10S"), 1, 10)
    # Q-J overlaps the lead's levels but is higher: it beats
    assert not check_throw(lead, [C("QS QS JS JS")], t, TWO_PACKS).stands
    # tractor skipping the trump rank: 5-3 is adjacent with fours
    assert not check_throw(C("3S 3S 2S 2S AS"), [C("5S 5S 3S 3S")], t, TWO_PACKS).stands


# ------------------------------------------------- a larger holding, exactly

def test_legal_follows_12_card_holding_each_setting():
    t = FIVES_HEARTS
    four_packs = Rules.preset("pagat", players=12)
    hand = C("AS AS KS KS QS 10S 10S 9S 8S 8S 7S 6S 3H 4D")
    lead = C("QS QS JS JS 10S 10S")
    # pairs held: A, K, 10, 8 (A-K adjacent); three pairs are asked for
    expected = {
        # default: any three of the four pairs
        (False, False): {"AS AS KS KS 10S 10S", "AS AS KS KS 8S 8S", "AS AS 10S 10S 8S 8S", "KS KS 10S 10S 8S 8S"},
        # ladder: the A-K tractor first, then one more pair
        (True, False): {"AS AS KS KS 10S 10S", "AS AS KS KS 8S 8S"},
        # protection changes nothing: every pair is exactly a pair
        (False, True): {"AS AS KS KS 10S 10S", "AS AS KS KS 8S 8S", "AS AS 10S 10S 8S 8S", "KS KS 10S 10S 8S 8S"},
    }
    for (ladder, protect), plays in expected.items():
        rules = four_packs.replace(follow_ladder=ladder, protect_longer_sets=protect)
        got = legal_follows(hand, lead, t, rules)
        assert got == {C(p) for p in plays}, (ladder, protect)
