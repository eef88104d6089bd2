"""The library refuses bad input with a one-line ``ValueError`` subclass.

Every error a user can cause is an :class:`~core.errors.PengyouError`
(``InvalidActionError`` for text or values that cannot be read,
``IllegalActionError`` for well-formed actions that break a rule,
``RulesError`` for settings), and its message is a single line.
"""

from __future__ import annotations

import random

import pytest

from core import kernel
from core.cards import HEARTS, SPADES, Cards, Trump, card_name, parse_card, parse_cards
from core.errors import IllegalActionError, InvalidActionError, PengyouError, RulesError
from core.rules import Rules

R6 = Rules.preset("pagat", players=6)     # 2 packs, BJ x2, RJ x2
R11 = Rules.preset("pagat", players=11)   # 3 packs
R12 = Rules.preset("pagat", players=12)   # 4 packs, no black joker
T5H = Trump(5, HEARTS)


def C(text: str):
    return parse_cards(text)


def check_error(exc_info, kind, *fragments):
    """The raised error is ``kind`` (a ValueError), one line, and mentions each fragment."""
    err = exc_info.value
    assert isinstance(err, kind)
    assert isinstance(err, PengyouError)
    assert isinstance(err, ValueError)
    msg = str(err)
    assert msg and "\n" not in msg and "\r" not in msg, repr(msg)
    for frag in fragments:
        assert frag in msg, (frag, msg)


def test_error_hierarchy():
    for cls in (InvalidActionError, IllegalActionError, RulesError):
        assert issubclass(cls, PengyouError)
        assert issubclass(cls, ValueError)


# --------------------------------------------------------------------------
# malformed card text

MALFORMED = ["1S", "AX", "10", "ZZ", "11H", "0S", "A", "S", "AS!", "JJ", "B", "10HH", "1OH", "♠A"]


@pytest.mark.parametrize("text", MALFORMED)
def test_parse_card_malformed(text):
    with pytest.raises(InvalidActionError) as ei:
        parse_card(text)
    check_error(ei, InvalidActionError, f"bad card {text!r}", "expected rank 2-10")


@pytest.mark.parametrize("text", ["", "   "])
def test_parse_card_empty(text):
    with pytest.raises(InvalidActionError) as ei:
        parse_card(text)
    check_error(ei, InvalidActionError, "bad card")


def test_parse_card_message_exact():
    with pytest.raises(InvalidActionError) as ei:
        parse_card("1S")
    assert str(ei.value) == (
        "bad card '1S': expected rank 2-10, J, Q, K or A then suit C, D, H or S (or BJ / RJ)"
    )


@pytest.mark.parametrize("text", ["AS 1S", "AS AX KS", "10 H", "ZZ", "AS\nZZ"])
def test_parse_cards_malformed(text):
    with pytest.raises(InvalidActionError) as ei:
        parse_cards(text)
    check_error(ei, InvalidActionError, "bad card")


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda: kernel.make_lead("AS 1S", T5H, R6), id="make_lead"),
        pytest.param(lambda: kernel.decompose("ZZ", T5H, R6), id="decompose"),
        pytest.param(lambda: kernel.check_follow("AS KS", "QS", "AX", T5H, R6), id="check_follow-play"),
        pytest.param(lambda: kernel.follow_error("AS 10", "QS", "AS", T5H, R6), id="follow_error-hand"),
        pytest.param(lambda: kernel.trick_winner(["AS", "1S"], T5H, R6), id="trick_winner"),
        pytest.param(lambda: kernel.check_throw("AS KS", ["QS ZZ"], T5H, R6), id="check_throw-hand"),
        pytest.param(lambda: kernel.is_legal_follow("AS", "1S", "AS", T5H, R6), id="is_legal_follow"),
    ],
)
def test_kernel_malformed_text(call):
    with pytest.raises(InvalidActionError) as ei:
        call()
    check_error(ei, InvalidActionError, "bad card")


# --------------------------------------------------------------------------
# more copies of a face than the deal holds

TOO_MANY = [
    pytest.param(lambda: kernel.make_lead("AS AS AS", T5H, R6), "lead: AS appears 3 times but only 2", id="3AS-2packs"),
    pytest.param(lambda: kernel.make_lead("AS AS AS AS", T5H, R11), "lead: AS appears 4 times but only 3", id="4AS-3packs"),
    pytest.param(lambda: kernel.make_lead("2C " * 5, T5H, R12), "lead: 2C appears 5 times but only 4", id="5x2C-4packs"),
    pytest.param(lambda: kernel.make_lead("BJ", T5H, R12), "lead: BJ appears 1 times but only 0", id="BJ-12p"),
    pytest.param(lambda: kernel.make_lead("RJ RJ RJ", T5H, R6), "lead: RJ appears 3 times but only 2", id="3RJ-6p"),
    pytest.param(lambda: kernel.decompose("KS KS KS", T5H, R6), "lead: KS appears 3", id="decompose"),
    pytest.param(lambda: kernel.follow_error("QS QS QS 2C", "AS", "QS", T5H, R6), "hand: QS appears 3", id="follow_error-hand"),
    pytest.param(lambda: kernel.check_follow("QS QS 2C", "AS AS AS", "QS QS 2C", T5H, R6), "lead: AS appears 3", id="check_follow-lead"),
    pytest.param(lambda: kernel.check_follow("QS QS BJ", "AS", "BJ", T5H, R12), "hand: BJ appears 1 times but only 0", id="check_follow-BJ-12p"),
    pytest.param(lambda: kernel.trick_winner(["AS", "BJ"], T5H, R12), "play: BJ appears 1 times but only 0", id="trick_winner-BJ-12p"),
    pytest.param(lambda: kernel.check_throw("AS KS", ["QS QS QS"], T5H, R6), "hand 0: QS appears 3", id="check_throw-hand0"),
    pytest.param(lambda: kernel.check_throw("AS KS", ["2C", "JS JS JS"], T5H, R6), "hand 1: JS appears 3", id="check_throw-hand1"),
    pytest.param(lambda: list(kernel.legal_follows("QS QS QS", "AS", T5H, R6)), "hand: QS appears 3", id="legal_follows"),
    pytest.param(lambda: kernel.random_follow("QS QS QS", "AS", T5H, R6, 1), "hand: QS appears 3", id="random_follow"),
]


@pytest.mark.parametrize("call,fragment", TOO_MANY)
def test_face_count_above_pack_count(call, fragment):
    with pytest.raises(InvalidActionError) as ei:
        call()
    check_error(ei, InvalidActionError, fragment)


def test_pack_counts_allowed_up_to_the_limit():
    # the limits themselves are fine
    assert len(kernel.make_lead("AS AS", T5H, R6)) == 2
    assert len(kernel.make_lead("AS AS AS", T5H, R11)) == 3
    assert len(kernel.make_lead("2C 2C 2C 2C", T5H, R12)) == 4
    assert len(kernel.make_lead("RJ RJ", T5H, R12)) == 2
    assert len(kernel.make_lead("BJ BJ", T5H, R6)) == 2


# --------------------------------------------------------------------------
# cards not in hand


@pytest.mark.parametrize(
    "hand,lead,play,missing",
    [
        ("KS QS", "AS", "JS", "JS"),
        ("KS QS 3D", "AS AS", "KS KS", "KS"),
        ("KS QS 3D", "AS AS", "QS 4D", "4D"),
        ("2C 3C", "AC", "BJ", "BJ"),
    ],
)
def test_cards_not_in_hand(hand, lead, play, missing):
    want = f"{missing} is not in the hand"
    assert kernel.follow_error(hand, lead, play, T5H, R6) == want
    with pytest.raises(IllegalActionError) as ei:
        kernel.check_follow(hand, lead, play, T5H, R6)
    check_error(ei, IllegalActionError, want)
    assert kernel.is_legal_follow(C(hand), C(lead), C(play), T5H, R6) is False


# --------------------------------------------------------------------------
# wrong number of cards


@pytest.mark.parametrize(
    "hand,lead,play,want",
    [
        ("KS QS 3D", "AS", "KS QS", "the lead has 1 card, so the play must have 1, not 2"),
        ("KS QS 3D", "AS AS", "KS", "the lead has 2 cards, so the play must have 2, not 1"),
        ("KS QS 3D", "AS AS", "", "the lead has 2 cards, so the play must have 2, not 0"),
    ],
    ids=["too-many", "too-few", "empty"],
)
def test_follow_wrong_size(hand, lead, play, want):
    with pytest.raises(IllegalActionError) as ei:
        kernel.check_follow(hand, lead, play, T5H, R6)
    check_error(ei, IllegalActionError, want)
    assert kernel.follow_error(hand, lead, play, T5H, R6) == want
    assert kernel.is_legal_follow(C(hand), C(lead), C(play), T5H, R6) is False


@pytest.mark.parametrize(
    "plays,want",
    [
        (["AS AS", "KS"], "play 1 has 1 card; the lead has 2"),
        (["AS", "KS", "QS JS"], "play 2 has 2 cards; the lead has 1"),
        (["AS KS", "2C 3C", ""], "play 2 has 0 cards; the lead has 2"),
    ],
)
def test_trick_winner_wrong_size(plays, want):
    with pytest.raises(IllegalActionError) as ei:
        kernel.trick_winner([C(p) for p in plays], T5H, R6)
    check_error(ei, IllegalActionError, want)


def test_trick_winner_no_plays():
    with pytest.raises(IllegalActionError) as ei:
        kernel.trick_winner([], T5H, R6)
    check_error(ei, IllegalActionError, "at least the lead")


def test_trick_winner_too_many_plays():
    with pytest.raises(IllegalActionError) as ei:
        kernel.trick_winner([C("2C")] * 17, T5H, R12)
    check_error(ei, IllegalActionError, "at most 16 plays")


def test_random_follow_hand_too_short():
    with pytest.raises(IllegalActionError) as ei:
        kernel.random_follow("KS", "AS AS", T5H, R6, random.Random(1))
    check_error(ei, IllegalActionError, "fewer than the 2 led")


def test_random_follow_no_rng():
    with pytest.raises(InvalidActionError) as ei:
        kernel.random_follow("KS QS", "AS", T5H, R6, None)
    check_error(ei, InvalidActionError, "rng")


# --------------------------------------------------------------------------
# mixed-suit and empty leads

MIXED = [
    ("AS KH", T5H),              # spades and trumps (hearts)
    ("AS AD", T5H),              # two plain suits
    ("AS 5S KD", T5H),           # 5S is a trump (trump rank), KD is not
    ("2C RJ", Trump(None, None)),  # jokers-only level: 2C is plain
    ("10S 9S", Trump(10, HEARTS)),  # 10S is a trump (trump rank)
    ("AC KC QD", Trump(7, SPADES)),
]
MIXED_IDS = ["spade+trump", "two-suits", "rank+plain", "jokers-level", "trump-rank-10", "clubs+diamond"]


@pytest.mark.parametrize("lead,trump", MIXED, ids=MIXED_IDS)
@pytest.mark.parametrize("fn", ["make_lead", "decompose", "check_throw", "trick_winner"])
def test_mixed_suit_lead(fn, lead, trump):
    calls = {
        "make_lead": lambda: kernel.make_lead(C(lead), trump, R6),
        "decompose": lambda: kernel.decompose(C(lead), trump, R6),
        "check_throw": lambda: kernel.check_throw(C(lead), [C("3C")], trump, R6),
        "trick_winner": lambda: kernel.trick_winner([C(lead)], trump, R6),
    }
    with pytest.raises(IllegalActionError) as ei:
        calls[fn]()
    check_error(ei, IllegalActionError, "mixes suits", "a lead must be all one suit")


@pytest.mark.parametrize("lead,trump", [("AH 5S RJ BJ", T5H), ("5S 5C", Trump(5, None)), ("BJ RJ", Trump(None, None))],
                         ids=["trump-suit+rank+jokers", "rank-no-suit", "jokers-only"])
def test_all_trump_lead_is_one_suit(lead, trump):
    ld = kernel.make_lead(C(lead), trump, R6)
    assert ld.suit == 4
    assert sorted(f for u in ld.units for f in u.cards) == list(C(lead))


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda: kernel.make_lead(C(""), T5H, R6), id="make_lead"),
        pytest.param(lambda: kernel.make_lead("", T5H, R6), id="make_lead-str"),
        pytest.param(lambda: kernel.decompose(C(""), T5H, R6), id="decompose"),
        pytest.param(lambda: kernel.check_throw(C(""), [C("AS")], T5H, R6), id="check_throw"),
        pytest.param(lambda: kernel.trick_winner([C("")], T5H, R6), id="trick_winner"),
        pytest.param(lambda: kernel.check_follow("AS", "", "", T5H, R6), id="check_follow"),
    ],
)
def test_empty_lead(call):
    with pytest.raises(IllegalActionError) as ei:
        call()
    check_error(ei, IllegalActionError, "a lead needs at least one card")


# --------------------------------------------------------------------------
# bad trump values

BAD_TRUMPS = [
    pytest.param(Trump(15, HEARTS), "trump rank 15", id="rank15"),
    pytest.param(Trump(1, HEARTS), "trump rank 1", id="rank1"),
    pytest.param(Trump(0, None), "trump rank 0", id="rank0"),
    pytest.param(Trump(5, 7), "trump suit 7", id="suit7"),
    pytest.param(Trump(5, 4), "trump suit 4", id="suit4"),
    pytest.param(Trump(5, -1), "trump suit -1", id="suit-1"),
    pytest.param(Trump(None, 7), "trump suit 7", id="no-rank-suit7"),
    pytest.param(Trump("5", HEARTS), "trump rank '5'", id="rank-str"),
]


@pytest.mark.parametrize("trump,fragment", BAD_TRUMPS)
@pytest.mark.parametrize("fn", ["context", "make_lead", "decompose", "check_follow", "trick_winner", "check_throw"])
def test_bad_trump(fn, trump, fragment):
    calls = {
        "context": lambda: kernel.context(trump),
        "make_lead": lambda: kernel.make_lead(C("AS"), trump, R6),
        "decompose": lambda: kernel.decompose(C("AS AS"), trump, R6),
        "check_follow": lambda: kernel.check_follow(C("KS QS"), C("AS"), C("KS"), trump, R6),
        "trick_winner": lambda: kernel.trick_winner([C("AS"), C("KS")], trump, R6),
        "check_throw": lambda: kernel.check_throw(C("AS KS"), [C("QS")], trump, R6),
    }
    with pytest.raises(InvalidActionError) as ei:
        calls[fn]()
    check_error(ei, InvalidActionError, fragment)


@pytest.mark.parametrize("face", [54, 60, -1])
def test_bad_face_numbers(face):
    with pytest.raises(InvalidActionError) as ei:
        kernel.context(T5H).level(face)
    check_error(ei, InvalidActionError, f"no card face {face}")


# --------------------------------------------------------------------------
# explicit units given to make_lead

BAD_UNITS = [
    pytest.param("AS AS", ["KS KS"], "do not split the lead exactly", id="not-in-lead"),
    pytest.param("AS AS", ["AS"], "do not split the lead exactly", id="too-few-cards"),
    pytest.param("AS AS", ["AS AS", "AS AS"], "do not split the lead exactly", id="too-many-cards"),
    pytest.param("AS AS KS", ["AS AS", "QS"], "do not split the lead exactly", id="wrong-card"),
    pytest.param("AS KS", [], "do not split the lead exactly", id="no-units"),
    pytest.param("AS AS KS", ["AS AS KS"], "is not a unit: every face must appear equally often", id="uneven"),
    pytest.param("AS KS", ["AS KS"], "is not a unit: a tractor is made of sets of two or more", id="run-of-singles"),
    pytest.param("AS AS KS", ["AS", "AS KS"], "is not a unit", id="single-plus-run"),
    pytest.param("AS AS QS QS", ["AS AS QS QS"], "is not a tractor: its sets are not on adjacent ranks", id="gap"),
    pytest.param("6S 6S 3S 3S", ["6S 6S 3S 3S"], "is not a tractor", id="gap-across-trump-rank"),
    pytest.param("5S 5S 5C 5C", ["5S 5S 5C 5C"], "is not a tractor", id="off-suit-rank-same-level"),
]


@pytest.mark.parametrize("lead,units,fragment", BAD_UNITS)
def test_make_lead_bad_units(lead, units, fragment):
    with pytest.raises(IllegalActionError) as ei:
        kernel.make_lead(C(lead), T5H, R6, units=[C(u) for u in units])
    check_error(ei, IllegalActionError, fragment)


@pytest.mark.parametrize("units", [["AS 1S"], ["ZZ"]])
def test_make_lead_malformed_units(units):
    with pytest.raises(InvalidActionError) as ei:
        kernel.make_lead(C("AS AS"), T5H, R6, units=units)
    check_error(ei, InvalidActionError, "bad card")


@pytest.mark.parametrize(
    "lead,units,want",
    [
        ("AS AS KS KS", ["AS AS KS KS"], [(2, 2)]),
        ("AS AS KS KS", ["AS AS", "KS KS"], [(2, 1), (2, 1)]),
        ("AS AS KS KS", ["KS", "AS AS", "KS"], [(2, 1), (1, 1), (1, 1)]),
        ("6S 6S 4S 4S", ["6S 6S", "4S 4S"], [(2, 1), (2, 1)]),
        ("6S 6S 4S 4S", ["6S 6S 4S 4S"], [(2, 2)]),  # the trump rank 5 is left out of the order
    ],
    ids=["tractor", "two-pairs", "pair-and-singles", "pairs-across-trump-rank", "tractor-across-trump-rank"],
)
def test_make_lead_good_units(lead, units, want):
    ld = kernel.make_lead(C(lead), T5H, R6, units=[C(u) for u in units])
    assert [(u.width, u.length) for u in ld.units] == want
    assert sorted(f for u in ld.units for f in u.cards) == list(C(lead))
    assert ld.is_throw == (len(want) >= 2)


# --------------------------------------------------------------------------
# a legal follow passes


@pytest.mark.parametrize(
    "hand,lead,play",
    [
        ("KS QS 3D", "AS", "QS"),
        ("KS QS 3D", "AS", "KS"),
        ("3D 4D 2C", "AS", "3D"),              # void in spades: anything
        ("AS AS KS 3S 2D", "QS QS", "AS AS"),  # must play the pair
        ("KS 3D 2D", "QS QS", "KS 2D"),        # one spade, then anything
        ("KH 5S 3D", "AH", "5S"),              # trump lead: trump rank card follows
        ("BJ 3C", "2H", "BJ"),                 # jokers are trumps
    ],
)
def test_legal_follow_passes(hand, lead, play):
    assert kernel.check_follow(C(hand), C(lead), C(play), T5H, R6) is None
    assert kernel.follow_error(C(hand), C(lead), C(play), T5H, R6) is None
    assert kernel.is_legal_follow(C(hand), C(lead), C(play), T5H, R6) is True
    assert C(play) in set(kernel.legal_follows(C(hand), C(lead), T5H, R6))


@pytest.mark.parametrize(
    "hand,lead,play,fragment",
    [
        ("KS QS 3D", "AS", "3D", "must play 1 card of the led suit, not 0"),
        ("AS AS KS 3S 2D", "QS QS", "AS KS", "must follow the led shape"),
        ("KH 5S 3D", "AH", "3D", "must play 1 card of the led suit"),
    ],
)
def test_illegal_follow_is_refused(hand, lead, play, fragment):
    with pytest.raises(IllegalActionError) as ei:
        kernel.check_follow(C(hand), C(lead), C(play), T5H, R6)
    check_error(ei, IllegalActionError, fragment)
    assert kernel.is_legal_follow(C(hand), C(lead), C(play), T5H, R6) is False


# --- inputs that once crashed the interpreter or slipped through ------------------------

def _six():
    from core.rules import Rules
    return Rules.preset("pagat", players=6)


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda: kernel.make_lead("AS AS", Trump(5, HEARTS), _six(), units=["AS AS", ""]), id="empty-unit"),
        pytest.param(lambda: kernel.make_lead("AS KS", (5,), _six()), id="trump-too-short"),
        pytest.param(lambda: kernel.make_lead("AS KS", None, _six()), id="trump-none"),
        pytest.param(lambda: kernel.make_lead("AS", (5, 2, 1), _six()), id="trump-too-long"),
        pytest.param(lambda: kernel.make_lead(Cards([parse_card("AS")] * 258), Trump(5, HEARTS), _six()), id="count-overflow"),
        pytest.param(lambda: kernel.follow_error(Cards([parse_card("AS")] * 256 + [parse_card("KS")]), "QS", "KS",
                                                 Trump(5, HEARTS), _six()), id="hand-count-overflow"),
        pytest.param(lambda: Cards.from_str("AS") - [100], id="subtract-bad-face"),
        pytest.param(lambda: Cards.from_str("RJ") - [-1], id="subtract-negative-face"),
        pytest.param(lambda: card_name(True), id="bool-face"),
    ],
)
def test_refused_with_one_line(call):
    with pytest.raises(ValueError) as exc:
        call()
    assert "\n" not in str(exc.value) and str(exc.value)
