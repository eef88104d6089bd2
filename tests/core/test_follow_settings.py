"""The follow settings ``follow_format``, ``set_reading``, ``ladder``,
``tractor_owed`` and ``shorter_tractor`` (docs/kernel.md, Following), each
value on positions worked out by hand, against both the compiled kernel and
the reference; then the combinations the rules refuse, and what a follow
shows the other seats under each format.

Trump is rank 2 of hearts throughout, so spades are a plain suit whose
levels run 3, 4, ..., A without a gap.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from core import kernel, reference
from core.cards import HEARTS, Cards, Trump, parse_cards
from core.errors import RulesError
from core.play import no_set_width
from core.rules import Rules, setting_values

TRUMP = Trump(2, HEARTS)
#: packs -> a table size that deals that many
PLAYERS = {2: 6, 3: 8, 4: 12}

# (id, packs, settings, hand, lead, play, legal); the hand holds the play.
CASES: list[tuple[str, int, dict[str, Any], str, str, str, bool]] = [
    # follow_format: shape owes the pair, count only the cards of the suit
    ("shape-pair-owed", 2, {}, "9S 9S 3S 4S KC", "5S 5S", "3S 4S", False),
    ("shape-pair-played", 2, {}, "9S 9S 3S 4S KC", "5S 5S", "9S 9S", True),
    ("count-pair-free", 2, {"follow_format": "count"}, "9S 9S 3S 4S KC", "5S 5S", "3S 4S", True),
    ("count-pair-still-fine", 2, {"follow_format": "count"}, "9S 9S 3S 4S KC", "5S 5S", "9S 9S", True),
    ("count-suit-owed", 2, {"follow_format": "count"}, "9S 9S 3S 4S KC", "5S 5S", "3S KC", False),
    ("shape-tractor-pairs-owed", 2, {}, "9S 9S 10S 10S 3S 4S", "5S 5S 6S 6S", "3S 4S 9S 10S", False),
    ("count-tractor-free", 2, {"follow_format": "count"}, "9S 9S 10S 10S 3S 4S", "5S 5S 6S 6S",
     "3S 4S 9S 10S", True),
    ("count-short-suit", 2, {"follow_format": "count"}, "9S KC KC", "5S 5S", "9S KC", True),
    ("count-short-suit-kept", 2, {"follow_format": "count"}, "9S KC KC", "5S 5S", "KC KC", False),
    # set_reading (with protect_longer_sets): a pair broken out of a triple
    ("counting-broken-triple", 3, {"protect_longer_sets": True}, "7S 7S 7S 9S 9S 3S", "5S 5S", "7S 7S", True),
    ("genuine-broken-triple", 3, {"protect_longer_sets": True, "set_reading": "genuine"},
     "7S 7S 7S 9S 9S 3S", "5S 5S", "7S 7S", False),
    ("genuine-genuine-pair", 3, {"protect_longer_sets": True, "set_reading": "genuine"},
     "7S 7S 7S 9S 9S 3S", "5S 5S", "9S 9S", True),
    ("genuine-nothing-held", 3, {"protect_longer_sets": True, "set_reading": "genuine"},
     "7S 7S 7S 3S 4S", "5S 5S", "3S 4S", True),
    ("genuine-only-triple", 3, {"protect_longer_sets": True, "set_reading": "genuine"},
     "7S 7S 7S 3S 4S", "5S 5S", "7S 7S", True),
    ("counting-ladder-broken", 3, {"protect_longer_sets": True, "follow_ladder": True},
     "9S 9S 10S 10S 10S 3S 4S", "5S 5S 6S 6S", "10S 10S 3S 4S", True),
    ("genuine-ladder-broken", 3, {"protect_longer_sets": True, "follow_ladder": True, "set_reading": "genuine"},
     "9S 9S 10S 10S 10S 3S 4S", "5S 5S 6S 6S", "10S 10S 3S 4S", False),
    ("genuine-ladder-genuine", 3, {"protect_longer_sets": True, "follow_ladder": True, "set_reading": "genuine"},
     "9S 9S 10S 10S 10S 3S 4S", "5S 5S 6S 6S", "9S 9S 3S 4S", True),
    # ladder: a led quad owes one set (subset) or its four cards' worth (cards)
    ("subset-quad-one-pair", 4, {"follow_ladder": True}, "9S 9S 10S 10S 3S 4S", "5S 5S 5S 5S",
     "9S 9S 3S 4S", True),
    ("cards-quad-tractor", 4, {"follow_ladder": True, "ladder": "cards"}, "9S 9S 10S 10S 3S 4S", "5S 5S 5S 5S",
     "9S 9S 3S 4S", False),
    ("cards-quad-tractor-played", 4, {"follow_ladder": True, "ladder": "cards"}, "9S 9S 10S 10S 3S 4S",
     "5S 5S 5S 5S", "9S 9S 10S 10S", True),
    ("subset-quad-two-pairs", 4, {"follow_ladder": True}, "9S 9S JS JS 3S 4S", "5S 5S 5S 5S", "9S 9S 3S 4S", True),
    ("cards-quad-two-pairs", 4, {"follow_ladder": True, "ladder": "cards"}, "9S 9S JS JS 3S 4S", "5S 5S 5S 5S",
     "9S 9S 3S 4S", False),
    ("cards-quad-two-pairs-played", 4, {"follow_ladder": True, "ladder": "cards"}, "9S 9S JS JS 3S 4S",
     "5S 5S 5S 5S", "9S 9S JS JS", True),
    ("cards-quad-quad-first", 4, {"follow_ladder": True, "ladder": "cards"}, "8S 8S 8S 8S 9S 9S 10S 10S",
     "5S 5S 5S 5S", "9S 9S 10S 10S", False),
    ("subset-triple-tractor", 3, {"follow_ladder": True}, "9S 9S 10S 10S JS JS 3S 4S", "5S 5S 5S 6S 6S 6S",
     "9S 9S 10S 10S 3S 4S", True),
    ("cards-triple-tractor", 3, {"follow_ladder": True, "ladder": "cards"}, "9S 9S 10S 10S JS JS 3S 4S",
     "5S 5S 5S 6S 6S 6S", "9S 9S 10S 10S 3S 4S", False),
    ("cards-triple-tractor-played", 3, {"follow_ladder": True, "ladder": "cards"}, "9S 9S 10S 10S JS JS 3S 4S",
     "5S 5S 5S 6S 6S 6S", "9S 9S 10S 10S JS JS", True),
    # tractor_owed: in a throw, always owes the tractor, lone its pairs
    ("always-throw-tractor", 2, {"follow_ladder": True}, "9S 9S 10S 10S QS QS 3S", "5S 5S 6S 6S AS",
     "9S 9S QS QS 3S", False),
    ("always-throw-tractor-played", 2, {"follow_ladder": True}, "9S 9S 10S 10S QS QS 3S", "5S 5S 6S 6S AS",
     "9S 9S 10S 10S 3S", True),
    ("lone-throw-pairs", 2, {"follow_ladder": True, "tractor_owed": "lone"}, "9S 9S 10S 10S QS QS 3S",
     "5S 5S 6S 6S AS", "9S 9S QS QS 3S", True),
    ("lone-throw-pairs-owed", 2, {"follow_ladder": True, "tractor_owed": "lone"}, "9S 9S 10S 10S QS QS 3S",
     "5S 5S 6S 6S AS", "9S 10S QS QS 3S", False),
    ("lone-alone-tractor", 2, {"follow_ladder": True, "tractor_owed": "lone"}, "9S 9S 10S 10S QS QS",
     "5S 5S 6S 6S", "9S 9S QS QS", False),
    ("lone-alone-tractor-played", 2, {"follow_ladder": True, "tractor_owed": "lone"}, "9S 9S 10S 10S QS QS",
     "5S 5S 6S 6S", "9S 9S 10S 10S", True),
    # shorter_tractor: a two-pair tractor against a led three-pair one
    ("owed-shorter", 2, {"follow_ladder": True}, "9S 9S 10S 10S QS QS AS AS", "5S 5S 6S 6S 7S 7S",
     "9S 9S QS QS AS AS", False),
    ("owed-shorter-played", 2, {"follow_ladder": True}, "9S 9S 10S 10S QS QS AS AS", "5S 5S 6S 6S 7S 7S",
     "9S 9S 10S 10S QS QS", True),
    ("free-shorter", 2, {"follow_ladder": True, "shorter_tractor": "free"}, "9S 9S 10S 10S QS QS AS AS",
     "5S 5S 6S 6S 7S 7S", "9S 9S QS QS AS AS", True),
    ("free-shorter-pairs-owed", 2, {"follow_ladder": True, "shorter_tractor": "free"},
     "9S 9S 10S 10S QS QS AS AS 3S", "5S 5S 6S 6S 7S 7S", "9S 9S QS QS AS 3S", False),
    ("free-full-length-owed", 2, {"follow_ladder": True, "shorter_tractor": "free"},
     "9S 9S 10S 10S JS JS AS AS", "5S 5S 6S 6S 7S 7S", "9S 9S 10S 10S AS AS", False),
    ("free-full-length-played", 2, {"follow_ladder": True, "shorter_tractor": "free"},
     "9S 9S 10S 10S JS JS AS AS", "5S 5S 6S 6S 7S 7S", "9S 9S 10S 10S JS JS", True),
    ("free-cards-quad-tractor", 4, {"follow_ladder": True, "ladder": "cards", "shorter_tractor": "free"},
     "9S 9S 10S 10S 3S 4S", "5S 5S 5S 5S", "9S 9S 3S 4S", False),
]


def _rules(packs: int, settings: dict[str, Any]) -> Rules:
    return Rules.preset("pagat", players=PLAYERS[packs], **settings)


@pytest.mark.parametrize("packs,settings,hand,lead,play,legal", [pytest.param(*c[1:], id=c[0]) for c in CASES])
@pytest.mark.parametrize("impl", [kernel, reference], ids=["kernel", "reference"])
def test_follow_by_hand(impl, packs, settings, hand, lead, play, legal):
    rules = _rules(packs, settings)
    assert impl.is_legal_follow(parse_cards(hand), parse_cards(lead), parse_cards(play), TRUMP, rules) is legal


@pytest.mark.parametrize("packs,settings,hand,lead", sorted({(c[1], tuple(sorted(c[2].items())), c[3], c[4])
                                                             for c in CASES}))
def test_every_follow_of_the_positions_agrees(packs, settings, hand, lead):
    """Every legal follow of each position above, kernel and reference alike, and the kernel's random
    follow and its reason for refusing a play agree with them."""
    rules = _rules(packs, dict(settings))
    h, ld = parse_cards(hand), parse_cards(lead)
    k_set = set(kernel.legal_follows(h, ld, TRUMP, rules))
    assert k_set == reference.legal_follows(h, ld, TRUMP, rules)
    rng = random.Random(7)
    for _ in range(20):
        assert kernel.random_follow(h, ld, TRUMP, rules, rng) in k_set
    for play in set(Cards(p) for p in kernel.multisets(sorted((f, h.count(f)) for f in set(h)), len(ld))):
        assert (kernel.follow_error(h, ld, play, TRUMP, rules) is None) == (play in k_set)


# --------------------------------------------------------------------------
# settings that refuse one another: one line naming both


CONTRADICTIONS = [
    ("follow_ladder", "follow_format", {"follow_format": "count", "follow_ladder": True}),
    ("protect_longer_sets", "follow_format", {"follow_format": "count", "protect_longer_sets": True}),
    ("set_reading", "protect_longer_sets", {"set_reading": "genuine"}),
    ("set_reading", "protect_longer_sets", {"set_reading": "genuine", "follow_ladder": True}),
    ("ladder", "follow_ladder", {"ladder": "cards"}),
    ("tractor_owed", "follow_ladder", {"tractor_owed": "lone"}),
    ("shorter_tractor", "follow_ladder", {"shorter_tractor": "free"}),
]


@pytest.mark.parametrize("first,second,settings", CONTRADICTIONS,
                         ids=[f"{a}-{b}-{i}" for i, (a, b, _) in enumerate(CONTRADICTIONS)])
def test_contradictions_name_both_settings(first, second, settings):
    with pytest.raises(RulesError) as ei:
        Rules.preset("pagat", **settings)
    msg = str(ei.value)
    assert msg.startswith(f"{first} and {second}: "), msg
    assert "\n" not in msg


@pytest.mark.parametrize("name", ["follow_format", "set_reading", "ladder", "tractor_owed", "shorter_tractor"])
def test_unknown_value_is_one_line(name):
    with pytest.raises(RulesError) as ei:
        Rules.preset("pagat", **{name: "sideways"})
    assert str(ei.value) == f"{name}: 'sideways' is not one of {', '.join(setting_values(name).split(' | '))}"


def test_defaults_are_todays_and_every_value_has_a_valid_table():
    r = Rules.preset("pagat")
    assert (r.follow_format, r.set_reading, r.ladder, r.tractor_owed, r.shorter_tractor) == (
        "shape", "counting", "subset", "always", "owed")
    ok = dict(follow_ladder=True, protect_longer_sets=True)
    for name in ("set_reading", "ladder", "tractor_owed", "shorter_tractor"):
        for value in setting_values(name).split(" | "):
            both = dict(ok, protect_longer_sets=False) if value == "decompose" else ok   # it refuses protection
            assert getattr(Rules.preset("pagat", **both, **{name: value}), name) == value
    assert Rules.preset("pagat", follow_format="count").follow_format == "count"


def test_a_follow_by_count_shows_no_missing_set():
    """Under follow_format=count a follow without a pair to a led pair shows nothing (the seat may have
    kept one back), so no no-set fact is drawn from it."""
    lead = parse_cards("5S 5S")
    assert no_set_width(lead, TRUMP, Rules.preset("pagat")) == 2
    assert no_set_width(lead, TRUMP, Rules.preset("pagat", follow_format="count")) == 0
