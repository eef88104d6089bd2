"""The lead rules past the reading of a lead: ``trump_throws`` (may a throw be
led in trumps), ``throw_counts`` (``free``: any throw; ``equal``: only one
holding each of its distinct cards as many times) and ``throw_check``
(``others_hands``: a throw is led freely and checked against the other hands;
``safe``: it may be led only when nothing the leader cannot see could beat one
of its units).

The compiled owner is ``c_lead_rule`` (through :func:`core.kernel.lead_error`,
the play engine's ``play_error``, ``c_random_lead`` and :func:`core.play.play_options`);
:func:`core.reference.lead_rule` is its independent twin. Hand-computed tables
for each value, both implementations; then 10,000 random throws against each
other; then the engine, the lead lists and the random leads under the rules.
"""

from __future__ import annotations

import random

import pytest

from arena.bench.positions import random_position
from core import kernel, reference
from core._kernel import LEAD_RULE_ERRORS
from core.cards import HEARTS, SPADES, Cards, Trump, parse_cards
from core.errors import RulesError
from core.play import PlayCore, play_options
from core.records import LATER_SETTINGS
from core.rules import Rules

TRUMP = Trump(2, HEARTS)          # rank 2, hearts: 2H above the other 2s, the jokers on top


def kernel_code(lead, hand, played, trump, rules) -> int:
    """The kernel's answer as the reference's code (0: allowed)."""
    why = kernel.lead_error(lead, hand, played, trump, rules)
    if why is None:
        return 0
    return {text: code for code, text in LEAD_RULE_ERRORS.items()}[why]


def _errors() -> dict[int, str]:
    return dict(LEAD_RULE_ERRORS)


# (lead, hand beyond the lead, played in earlier tricks, expected code)
NO_TRUMP_THROWS = [
    ("AH KH", "", "", 1),                     # two trump singles: a throw in trumps
    ("BJ RJ", "", "", 1),                     # the jokers are trumps too
    ("2S 2S 2C", "", "", 1),                  # trump-rank cards: a pair and a single
    ("AS KS", "", "", 0),                     # a throw in a plain suit is still led
    ("AH AH", "", "", 0),                     # one trump unit is no throw
    ("3H 3H 4H 4H", "", "", 0),               # a trump tractor is one unit
    ("QH", "KH", "", 0),
]

SAFE = [
    ("AS KS", "", "", 2),                     # the other AS is unseen and beats KS
    ("AS KS", "3C", "AS", 0),                 # ... unless it was played
    ("AS AS KS", "", "", 0),                  # nothing unseen beats KS or the AS pair
    ("KS KS QS", "", "AS AS", 0),             # both aces gone, both kings held
    ("KS KS QS", "", "AS", 2),                # one unseen ace beats QS (not the pair)
    ("AS AS KS KS QS", "", "", 0),            # the top tractor, and QS with every A and K held
    ("QS QS JS JS", "AS AS KS KS", "", 0),    # a single tractor is no throw
    ("QS QS JS JS 9S", "AS AS KS KS", "", 2),  # 10S and higher singles are unseen
    ("RJ RJ BJ", "", "", 0),                  # both red jokers held: the black one is safe
    ("BJ 2H", "", "", 2),                     # unseen red jokers beat BJ
    ("AC AC KC KC", "", "", 0),               # one tractor
    ("AC KC", "AC", "", 0),                   # both aces seen: KC's betters are all known
]


# throw_counts equal: every distinct card (suit and rank, a joker by colour) of a throw as often as each other
EQUAL = [
    ("AS QS", "", "", 0),                     # each once
    ("AS KS KS", "", "", 3),                  # A once, K twice
    ("KS KS QS QS 10S 10S", "", "", 0),       # the tractor KK-QQ and the pair 10-10: each twice
    ("AS AS QS QS", "", "", 0),               # two pairs
    ("AS AS QS QS 10S", "", "", 3),           # two pairs and a single
    ("AS AS KS KS QS", "", "", 3),            # the tractor AA-KK and a single
    ("AS AS KS KS", "", "", 0),               # one tractor: no throw
    ("AS AS", "", "", 0),                     # one pair: no throw
    ("AH KH KH", "", "", 3),                  # in trumps too (trump_throws on)
    ("2S 2C", "", "", 0),                     # two trump-rank cards of two suits: two cards, once each
    ("2S 2S 2C", "", "", 3),
    ("BJ RJ", "", "", 0),                     # each joker by its colour
    ("BJ BJ RJ", "", "", 3),
]

# three packs (eight players): a face can be split between two units, and is counted over the whole lead
EQUAL_THREE_PACKS = [
    ("KS KS KS QS QS", "", "", 3),            # the tractor KK-QQ and a single K: K three times, Q twice
    ("KS KS KS QS QS QS", "", "", 0),         # one tractor of triples
    ("KS KS KS QS QS QS 9S 9S 9S", "", "", 0),  # that tractor and a triple: each three times
    ("AS AS AS KS", "", "", 3),
    ("AS AS AS 10S 10S 10S", "", "", 0),      # two triples
]


def _check_table(cases, rules, trump=TRUMP):
    for lead, extra, played, want in cases:
        hand = parse_cards(lead + " " + extra)
        for name, code in (("kernel", kernel_code(lead, hand, played, trump, rules)),
                           ("reference", reference.lead_rule(parse_cards(lead), hand, parse_cards(played),
                                                             trump, rules))):
            assert code == want, (name, lead, extra, played, rules.trump_throws, rules.throw_check,
                                  rules.throw_counts)


def test_trump_throws_off_refuses_throws_in_trumps_only():
    _check_table(NO_TRUMP_THROWS, Rules.preset("pagat", players=5, trump_throws=False))


def test_trump_throws_on_refuses_nothing():
    rules = Rules.preset("pagat", players=5)
    _check_table([(lead, extra, played, 0) for lead, extra, played, _ in NO_TRUMP_THROWS + SAFE + EQUAL], rules)
    _check_table([(lead, extra, played, 0) for lead, extra, played, _ in EQUAL_THREE_PACKS],
                 Rules.preset("pagat", players=8))


def test_equal_throw_counts_refuse_a_throw_holding_cards_unequally():
    _check_table(EQUAL, Rules.preset("pagat", players=5, throw_counts="equal"))
    _check_table(EQUAL_THREE_PACKS, Rules.preset("pagat", players=8, throw_counts="equal"))


def test_equal_throw_counts_the_house_rules_examples():
    """The house rule's own examples: threes, spades trumps."""
    rules = Rules.preset("pagat", players=5, throw_counts="equal")
    _check_table([("AS QS", "", "", 0), ("KS KS QS QS 10S 10S", "", "", 0), ("AS KS KS", "", "", 3),
                  ("AH QH", "", "", 0), ("KH KH QH QH 10H 10H", "", "", 0), ("AH KH KH", "", "", 3)],
                 rules, Trump(3, SPADES))


def test_equal_counts_come_after_trumps_and_before_safety():
    rules = Rules.preset("pagat", players=5, throw_counts="equal", trump_throws=False, throw_check="safe")
    _check_table([("AH KH KH", "", "", 1),     # a throw in trumps, unequal too
                  ("AH KH", "", "", 1),
                  ("KS QS QS", "", "", 3),     # unequal, and the unseen aces could beat KS
                  ("KS QS", "", "", 2),        # equal, but the unseen aces could beat KS
                  ("AS AS KS KS", "", "", 0),  # one tractor
                  ("AS AS QS QS", "KS KS", "", 0)], rules)


def test_safe_throws_need_nothing_unseen_to_beat_a_unit():
    _check_table(SAFE, Rules.preset("pagat", players=5, throw_check="safe"))


def test_trumps_are_refused_before_safety_is_asked():
    rules = Rules.preset("pagat", players=5, throw_check="safe", trump_throws=False)
    _check_table([("RJ RJ BJ", "", "", 1), ("BJ 2H", "", "", 1), ("AS AS KS", "", "", 0),
                  ("AS KS", "", "", 2)], rules)


def test_lead_error_still_reads_the_lead():
    rules = Rules.preset("pagat", players=5, throw_check="safe")
    assert kernel.lead_error("AS KH", "AS KH", "", TRUMP, rules) is not None       # two suits
    assert kernel.lead_error("AS AS", "AS", "", TRUMP, rules) == "AS is not in the hand"
    assert kernel.lead_error("", "AS", "", TRUMP, rules) is not None


def test_settings_are_validated_and_old_records_read_the_defaults():
    with pytest.raises(RulesError, match="trump_throws: expected true or false"):
        Rules.preset("pagat", trump_throws="no")
    with pytest.raises(RulesError, match="throw_check: 'always' is not one of others_hands, safe"):
        Rules.preset("pagat", throw_check="always")
    with pytest.raises(RulesError, match="^throw_counts: 'same' is not one of free, equal$"):
        Rules.preset("pagat", throw_counts="same")
    with pytest.raises(RulesError, match="^throw_counts: True is not one of free, equal$"):
        Rules.preset("pagat", throw_counts=True)
    r = Rules()
    assert (LATER_SETTINGS["trump_throws"], LATER_SETTINGS["throw_check"], LATER_SETTINGS["throw_counts"]) == \
        (r.trump_throws, r.throw_check, r.throw_counts) == (True, "others_hands", "free")


THROWS = 10_000


def test_random_throws_match_the_reference():
    """10,000 random throws, each with a random part of the rest of the deck
    played before, under random values of the three settings: the kernel and
    the reference give the same code; each code is seen."""
    rng = random.Random(20261204)
    seen = {0: 0, 1: 0, 2: 0, 3: 0}
    done = 0
    tables = {}
    while done < THROWS:
        players = rng.choice((5, 6, 8, 12))
        key = (players, rng.choice((True, False)), rng.choice(("others_hands", "safe")), rng.random() < 0.3,
               rng.choice(("free", "equal")))
        if key not in tables:
            tables[key] = Rules.preset("pagat", players=players, trump_throws=key[1], throw_check=key[2],
                                       tractor_past_ace=key[3], throw_counts=key[4])
        rules = tables[key]
        p = random_position(rng, rules, max_lead=8, max_suit=10, others=1)
        if len(kernel.decompose(p.lead, p.trump, rules)) < 2:
            continue
        done += 1
        hand = Cards(list(p.lead) + list(p.hands[1]))
        rest = list(rules.deck())
        for f in hand:
            rest.remove(f)
        played = Cards(rng.sample(rest, rng.randint(0, len(rest))))
        got = kernel_code(p.lead, hand, played, p.trump, rules)
        want = reference.lead_rule(p.lead, hand, played, p.trump, rules)
        assert got == want, (rules, p, played)
        seen[got] += 1
    assert min(seen.values()) > THROWS // 50, seen


def _small_deal(rules, hands, leader=0, played=()):
    return PlayCore.resume(rules, TRUMP, 0, [parse_cards(h) for h in hands], [], [], [], [0] * rules.players,
                           [0] * rules.players, 0, leader, [], played)


HANDS = ["AH KH AS AS KS BJ", "3C 4C 5C 6C 7C 8C", "3D 4D 5D 6D 7D 8D", "9C 10C JC QC KC AC",
         "9D 10D JD QD KD AD"]


def test_the_engine_refuses_what_the_rules_refuse():
    rules = Rules.preset("pagat", players=5, trump_throws=False, throw_check="safe")
    pc = _small_deal(rules, HANDS)
    assert pc.play_error(parse_cards("AH KH")) == _errors()[1]
    assert pc.play_error(parse_cards("AS AS KS")) is None          # both AS held: only a KS is unseen
    assert pc.play_error(parse_cards("AS KS")) is None              # both AS held: KS cannot be beaten
    pc2 = _small_deal(rules, ["AH KH AS KS QS BJ"] + HANDS[1:])
    assert pc2.play_error(parse_cards("KS QS")) == _errors()[2]     # the other AS and KS are unseen
    pc3 = _small_deal(rules, ["AH KH AS KS QS BJ"] + HANDS[1:], played=parse_cards("AS KS"))
    assert pc3.play_error(parse_cards("KS QS")) is None             # ... unless they were played
    seat, cards, attempt = pc3.play(parse_cards("KS QS"))
    assert (seat, cards, attempt) == (0, parse_cards("KS QS"), None)  # a safe throw stands


def test_the_engine_refuses_unequal_throws():
    rules = Rules.preset("pagat", players=5, throw_counts="equal")
    pc = _small_deal(rules, HANDS)                                   # AH KH AS AS KS BJ
    assert pc.play_error(parse_cards("AS AS KS")) == _errors()[3]   # AS twice, KS once
    assert pc.play_error(parse_cards("AH KH BJ")) is None            # trumps, each once
    assert pc.play_error(parse_cards("AS AS")) is None               # a pair is no throw
    assert not pc.can_play(parse_cards("AS AS KS"))
    seat, cards, attempt = pc.play(parse_cards("AS KS"))
    assert (seat, cards, attempt) == (0, parse_cards("AS KS"), None)  # nobody else holds a spade: it stands


def test_the_default_engine_takes_throws_in_trumps():
    pc = _small_deal(Rules.preset("pagat", players=5), HANDS)
    assert pc.play_error(parse_cards("AH KH")) is None
    assert pc.play_error(parse_cards("KS AS")) is None


@pytest.mark.parametrize("overrides", [dict(trump_throws=False), dict(throw_check="safe"),
                                       dict(trump_throws=False, throw_check="safe"), dict(throw_counts="equal"),
                                       dict(throw_counts="equal", throw_check="safe")])
def test_lead_lists_hold_exactly_the_allowed_leads(overrides):
    """play_options when leading: every part of one suit's holding that the
    reference allows, and nothing else; the engine accepts each one."""
    rules = Rules.preset("pagat", players=5, **overrides)
    hand = parse_cards("AH AH KH 2S 2C BJ AS KS KS QS 3C")
    played = parse_cards("AS 10S")
    pc = _small_deal(rules, [str(hand)] + HANDS[1:], played=played)
    listed = {Cards(c) for c in play_options(hand, None, TRUMP, rules, played)}
    ctx = kernel.context(TRUMP)
    want = set()
    for e in range(5):
        faces = sorted({(f, hand.count(f)) for f in hand if ctx.effective_suit(f) == e})
        for size in range(1, sum(k for _, k in faces) + 1):
            for c in kernel.multisets(faces, size):
                if reference.lead_rule(Cards(c), hand, played, TRUMP, rules) == 0:
                    want.add(Cards(c))
    assert listed == want
    assert all(pc.can_play(c) for c in listed)
    everything = {Cards(c) for c in play_options(hand, None, TRUMP, Rules.preset("pagat", players=5))}
    assert len(everything) > len(listed)


@pytest.mark.parametrize("overrides", [dict(trump_throws=False), dict(throw_check="safe"),
                                       dict(throw_counts="equal")])
def test_random_leads_keep_to_the_rules(overrides):
    """kernel.random_lead and the engine's random plays never lead a refused
    throw, and still throw now and then."""
    rules = Rules.preset("pagat", players=5, **overrides)
    hand = parse_cards("AH AH KH QH 2S 2C BJ RJ AS AS KS KS QS 3S")
    played = parse_cards("10S 9S")
    throws = 0
    for seed in range(3000):
        lead = kernel.random_lead(hand, TRUMP, rules, seed, played)
        assert reference.lead_rule(lead, hand, played, TRUMP, rules) == 0, lead
        throws += len(kernel.decompose(lead, TRUMP, rules)) >= 2
        if seed % 10 == 0:
            pc = _small_deal(rules, [str(hand)] + HANDS[1:], played=played)
            assert pc.can_play(pc.random_play(random.Random(seed)))
    assert throws > 50


@pytest.mark.parametrize("overrides", [dict(throw_check="safe"), dict(trump_throws=False, throw_check="safe"),
                                       dict(throw_counts="equal")])
def test_a_views_random_lead_is_the_engines(overrides):
    """At every lead of whole random deals, the random lead drawn from a seat's
    view (the cards of the earlier tricks passed as seen) is the one the play
    engine draws from the same numbers, and the listed leads are the engine's."""
    from core.state import PLAY_PHASE, State

    rules = Rules.preset("pagat", players=5, **overrides)
    leads = 0
    for seed in range(6):
        s = State(rules, seed=seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            if s.phase == PLAY_PHASE and s.play.is_leading:
                seat = s.current_player()
                view = s.view(seat)
                assert s.random_legal_action(random.Random(leads)) == view.random_action(random.Random(leads))
                if leads % 10 == 0:
                    assert set(view.legal_actions()) == set(s.legal_actions())
                leads += 1
            s.apply(s.random_legal_action(rng))
    assert leads > 50
