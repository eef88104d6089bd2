"""Card faces, their notation, and the ``Cards`` multiset (``core/cards.py``)."""

from __future__ import annotations

import pytest

import core.cards as cards_mod
from core.cards import (
    ACE, BJ, CLUBS, DIAMONDS, HEARTS, JACK, KING, NUM_FACES, QUEEN, RJ, SPADES,
    Cards, card_name, card_points, format_cards, is_joker, make_face, parse_card,
    parse_cards, points, rank_of, suit_of,
)
from core.errors import InvalidActionError

ALL_FACES = list(range(NUM_FACES))
SUIT_SYMBOL = {CLUBS: "♣", DIAMONDS: "♦", HEARTS: "♥", SPADES: "♠"}


def F(text: str) -> int:
    return parse_card(text)


# --------------------------------------------------------------------------
# faces and names


def test_face_layout():
    assert NUM_FACES == 54
    assert (BJ, RJ) == (52, 53)
    assert make_face(2, CLUBS) == 0
    assert make_face(ACE, SPADES) == 51
    assert make_face(10, HEARTS) == 2 * 13 + 8
    for face in range(52):
        assert make_face(rank_of(face), suit_of(face)) == face
        assert not is_joker(face)
    assert is_joker(BJ) and is_joker(RJ)
    assert (rank_of(BJ), suit_of(BJ), rank_of(RJ), suit_of(RJ)) == (0, -1, 0, -1)


@pytest.mark.parametrize("face", ALL_FACES, ids=[card_name(f) for f in ALL_FACES])
def test_name_round_trip(face):
    name = card_name(face)
    sym = card_name(face, symbols=True)
    assert parse_card(name) == face
    assert parse_card(sym) == face
    assert parse_card(name.lower()) == face
    assert name.isascii()
    if face < 52:
        assert sym.endswith(SUIT_SYMBOL[suit_of(face)])
        assert sym[:-1] == name[:-1]
        assert name[-1] == "CDHS"[suit_of(face)]
    else:
        assert sym == name


def test_all_names_distinct():
    names = [card_name(f) for f in ALL_FACES]
    assert len(set(names)) == NUM_FACES
    assert names[0] == "2C" and names[51] == "AS" and names[52:] == ["BJ", "RJ"]


@pytest.mark.parametrize(
    "text,rank,suit",
    [
        ("10H", 10, HEARTS),
        ("TH", 10, HEARTS),
        ("th", 10, HEARTS),
        ("10h", 10, HEARTS),
        ("As", ACE, SPADES),
        ("as", ACE, SPADES),
        ("jd", JACK, DIAMONDS),
        ("qC", QUEEN, CLUBS),
        ("K♠", KING, SPADES),
        ("10♥", 10, HEARTS),
        ("T♥", 10, HEARTS),
        ("2♦", 2, DIAMONDS),
        ("A♣", ACE, CLUBS),
        ("  5S ", 5, SPADES),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_parse_card_spellings(text, rank, suit):
    assert parse_card(text) == make_face(rank, suit)


@pytest.mark.parametrize("text,face", [("BJ", BJ), ("bj", BJ), ("RJ", RJ), ("rJ", RJ)])
def test_parse_jokers(text, face):
    assert parse_card(text) == face


def test_parse_cards_mixed_notation():
    got = parse_cards("AS 10h TH 2C bj RJ A♠")
    assert format_cards(got) == "2C 10H 10H AS AS BJ RJ"
    assert parse_cards("AS, KS") == parse_cards("KS AS")
    assert parse_cards("") == Cards()
    assert parse_cards([F("AS"), F("2C")]) == parse_cards("2C AS")
    c = parse_cards("KH KH")
    assert parse_cards(c) is c


# --------------------------------------------------------------------------
# formatting


def test_format_cards_sorted_and_ascii_by_default():
    faces = [RJ, F("AS"), F("2C"), BJ, F("10H"), F("5D"), F("AS")]
    out = format_cards(faces)
    assert out == "2C 5D 10H AS AS BJ RJ"
    assert out.isascii()
    assert format_cards(list(reversed(faces))) == out


def test_format_cards_with_symbols():
    out = format_cards([F("AS"), F("10H"), BJ], symbols=True)
    assert out == "10♥ A♠ BJ"
    assert not out.isascii()


def test_format_empty():
    assert format_cards([]) == ""
    assert str(Cards()) == ""


def test_format_parse_round_trip_full_deck():
    deck = Cards(ALL_FACES * 2)
    assert parse_cards(format_cards(deck)) == deck
    assert parse_cards(format_cards(deck, symbols=True)) == deck


# --------------------------------------------------------------------------
# Cards: a hashable, immutable multiset


def test_cards_equal_regardless_of_order():
    a = Cards([F("KH"), F("5S"), F("KH")])
    b = Cards([F("5S"), F("KH"), F("KH")])
    assert a == b
    assert a == parse_cards("KH 5S KH") == Cards.from_str("5S KH KH")
    assert hash(a) == hash(b)
    assert tuple(a) == tuple(sorted(a))
    assert a != parse_cards("KH 5S")


def test_cards_hashable():
    s = {parse_cards("AS KS"), parse_cards("KS AS"), parse_cards("AS AS")}
    assert len(s) == 2
    d = {parse_cards("QD JD"): 1}
    assert d[parse_cards("JD QD")] == 1


def test_cards_immutable():
    c = parse_cards("AS KS")
    with pytest.raises(TypeError):
        c[0] = F("2C")  # type: ignore[index]
    with pytest.raises(AttributeError):
        c.extra = 1  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        c.append(F("2C"))  # type: ignore[attr-defined]


def test_cards_repr_and_str():
    c = parse_cards("KH 5S KH")
    assert str(c) == "KH KH 5S"
    assert repr(c) == "Cards.from_str('KH KH 5S')"
    assert eval(repr(c), {"Cards": Cards}) == c


def test_cards_counts_round_trip():
    c = parse_cards("AS AS BJ 2C")
    counts = c.counts()
    assert len(counts) == NUM_FACES
    assert counts[F("AS")] == 2 and counts[BJ] == 1 and counts[F("2C")] == 1
    assert sum(counts) == 4
    assert Cards.from_counts(counts) == c


@pytest.mark.parametrize(
    "a,b,want",
    [
        ("AS", "KS", "KS AS"),
        ("AS", "AS", "AS AS"),
        ("", "BJ RJ", "BJ RJ"),
        ("2C 3C", "", "2C 3C"),
        ("RJ 2C", "AS 2C", "2C 2C AS RJ"),
    ],
)
def test_cards_add(a, b, want):
    got = parse_cards(a) + parse_cards(b)
    assert isinstance(got, Cards)
    assert got == parse_cards(want)
    assert got == parse_cards(b) + parse_cards(a)
    assert len(got) == len(parse_cards(a)) + len(parse_cards(b))


@pytest.mark.parametrize(
    "a,b,want",
    [
        ("AS KS", "KS", "AS"),
        ("AS AS KS", "AS", "AS KS"),
        ("AS AS KS", "AS AS", "KS"),
        ("AS KS", "AS KS", ""),
        ("BJ RJ 2C", "", "BJ RJ 2C"),
    ],
)
def test_cards_sub(a, b, want):
    got = parse_cards(a) - parse_cards(b)
    assert isinstance(got, Cards)
    assert got == parse_cards(want)
    assert got + parse_cards(b) == parse_cards(a)


@pytest.mark.parametrize(
    "a,b",
    [("AS", "KS"), ("AS", "AS AS"), ("", "2C"), ("BJ", "RJ")],
    ids=["other-face", "too-many-copies", "from-empty", "joker"],
)
def test_cards_sub_missing_raises(a, b):
    start = parse_cards(a)
    with pytest.raises(InvalidActionError) as ei:
        start - parse_cards(b)
    assert "not in" in str(ei.value)
    assert start == parse_cards(a)  # unchanged


def test_cards_rejects_bad_faces():
    for bad in (54, -1, 100, "AS", 1.0):
        with pytest.raises(InvalidActionError):
            Cards([bad])


# --------------------------------------------------------------------------
# points


@pytest.mark.parametrize("face", ALL_FACES, ids=[card_name(f) for f in ALL_FACES])
def test_card_points(face):
    want = {KING: 10, 10: 10, 5: 5}.get(rank_of(face), 0)
    assert card_points(face) == want
    assert points(Cards([face])) == want


def test_points_of_lists():
    assert points("KS 10D 5H 5H AS") == 30
    assert points("") == 0
    assert points("BJ RJ AS QS JS 2C") == 0
    assert parse_cards("KH 5S KH").points() == 25
    assert points([F("KC"), F("5C")]) == 15


def test_full_pack_is_100():
    pack = Cards(ALL_FACES)
    assert points(pack) == 100
    assert pack.points() == 100
    assert points(Cards(ALL_FACES * 3)) == 300
    assert sum(card_points(f) for f in range(52)) == 100


# --------------------------------------------------------------------------
# named constants


def test_named_constants_match_parse_card():
    exported = {n for n in cards_mod.__all__ if len(n) == 2 and n[0] in "TJQKABR" and n[1] in "CDHSJ"}
    # T, J, Q, K, A in four suits, and the two jokers
    assert exported == {r + s for r in "TJQKA" for s in "CDHS"} | {"BJ", "RJ"}
    for name in exported:
        assert getattr(cards_mod, name) == parse_card(name), name
    assert cards_mod.AS == parse_card("AS") == make_face(ACE, SPADES)
    assert cards_mod.TH == parse_card("10H") == make_face(10, HEARTS)
    assert cards_mod.KD == parse_card("KD")
    assert cards_mod.JC == parse_card("JC")
    assert cards_mod.QS == parse_card("QS")
    assert cards_mod.BJ == parse_card("BJ") == 52
    assert cards_mod.RJ == parse_card("RJ") == 53
    from core import AS, TH  # re-exported by the package

    assert (AS, TH) == (cards_mod.AS, cards_mod.TH)
