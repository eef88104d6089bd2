"""``throw_winner``: who takes a trick led by a throw, in the kernel and the reference.

Each row is a trick worked out by hand (trump rank 5, trump suit hearts; the
level table is in docs/kernel.md, "Trump context") with the winning play's
index under ``largest``, ``highest``, ``all`` and ``longest``. Both implementations, and the
play engine's running best play, must give that index.
"""

from __future__ import annotations

import random

import pytest

from core import kernel, reference
from core.cards import HEARTS, Cards, Trump, parse_cards
from core.errors import RulesError
from core.play import PlayCore
from core.rules import Rules

FIVES_HEARTS = Trump(rank=5, suit=HEARTS)
BASE = Rules.preset("pagat", players=6)

# (lead and follows, winner under largest, highest, all, longest, why)
CASES = [
    (["AS AS KS", "3H 3H RJ", "AH AH 4H"], 2, 1, 1, 2,
     "trumped twice: pair AH (11) beats pair 3H (1); RJ (15) is the highest card; 4H (2) is below RJ"),
    (["AS AS KS", "KS QS 9S", "2H 2H 5S", "6H 6H 7H"], 3, 2, 2, 3,
     "no pair in play 1; pair 6H (3) beats 2H (0); 5S (12) is the highest card and above 7H (4)"),
    (["AS AS KS", "3H 3H 5S", "4H 4H 5C"], 2, 1, 1, 2,
     "5S and 5C are both level 12: under highest and all the earlier play keeps the trick"),
    (["QS QS AS", "KS KS 3S"], 1, 0, 0, 1,
     "pair KS (10) beats pair QS (9); the lead's AS (11) is above KS (10) and 3S (1)"),
    (["QS QS 9S", "KS KS 10S"], 1, 1, 1, 1,
     "K above Q and 10 above 9: every value gives it to the follow"),
    (["AH AH KH", "2H 2H RJ"], 0, 1, 0, 0,
     "a trump throw: pair 2H (0) is below AH (11); RJ (15) is above AH"),
    (["AS AS KS", "3H 3H 4H", "6H 6H 2H"], 2, 2, 1, 2,
     "pair 6H (3) beats 3H (1) and 6H is the highest card, but 2H (0) is below 4H (2)"),
    (["AS AS QS QS", "3H 3H 4H 4H", "6H 6H 2H 2H"], 2, 2, 1, 2,
     "two pairs led: 6H 6H 2H 2H reads (3, 0) or (0, 3), neither above (2, 1) in both places"),
    (["JS JS QS QS", "3H 3H 4H 4H", "7H 7H 6H 6H"], 2, 2, 2, 2,
     "one unit led (a tractor): every value reads it the same"),
    (["KS 9S", "AH 2H", "QS JS"], 1, 1, 1, 1,
     "two singles trumped: a plain follow never takes it from trumps"),
    (["AS AS KS", "3H 4H RJ"], 0, 0, 0, 0,
     "trumps without a pair do not match the lead: it holds under every value"),
    (["AS AS QS QS 3S", "5S 5S 2H 2H 4H", "5C 5C 3H 3H 2H"], 1, 1, 1, 2,
     "pairs 5S and 5C tie at 12; longest goes on to the second pair, 3H (1) above 2H (0)"),
    (["AS AS KS", "5S 5S 2H", "5C 5C RJ"], 1, 2, 1, 1,
     "pairs tie at 12; longest skips the singles, so RJ does not count as it does under highest"),
    (["KS 9S", "AH 4H", "BJ 3H"], 2, 2, 1, 2,
     "all singles: longest compares them in order, BJ (14) above AH (11) decides; all needs 3H above 4H"),
]


def _rules(value: str) -> Rules:
    return BASE.replace(throw_winner=value)


@pytest.mark.parametrize("plays,largest,highest,all_,longest,why", CASES, ids=[c[5][:40] for c in CASES])
@pytest.mark.parametrize("impl", [kernel, reference], ids=["kernel", "reference"])
def test_throw_winner_table(impl, plays, largest, highest, all_, longest, why):
    trick = [parse_cards(p) for p in plays]
    for value, want in (("largest", largest), ("highest", highest), ("all", all_), ("longest", longest)):
        assert impl.trick_winner(trick, FIVES_HEARTS, _rules(value)) == want, (value, why)


@pytest.mark.parametrize("plays,largest,highest,all_,longest,why", CASES, ids=[c[5][:40] for c in CASES])
def test_play_engine_holder(plays, largest, highest, all_, longest, why):
    """The play engine's running best play, built a play at a time, agrees."""
    for value, want in (("largest", largest), ("highest", highest), ("all", all_), ("longest", longest)):
        rules = _rules(value)
        trick = [parse_cards(p) for p in plays]
        hands = [parse_cards("2C")] * rules.players   # the next seat holds a card: the trick is under way
        pc = PlayCore.resume(rules, FIVES_HEARTS, 0, hands, [], [], [], [0] * rules.players,
                             [0] * rules.players, 0, 0, trick)
        assert pc.holder == want, (value, why)


def test_throw_winner_bad_value():
    with pytest.raises(RulesError, match="throw_winner"):
        Rules.preset("pagat", throw_winner="all_units")


def test_default_is_largest():
    assert Rules.preset("pagat").throw_winner == "largest"
    assert all(Rules.preset(p, **({} if p in ("bottom-eight", "stack", "tractor") else {"players": 5})).throw_winner
               == "largest" for p in ("pagat", "heli", "thirteen", "bottom-eight", "stack", "tractor"))


RANDOM_TRICKS = 3_000


def _pool(rules: Rules, trump: Trump, suit: int) -> list[int]:
    """Every card of one effective suit in the deal, each copy once."""
    ctx = kernel.context(trump, rules.tractor_past_ace)
    out: list[int] = []
    for f in range(54):
        if ctx.effective_suit(f) == suit:
            out += [f] * (rules.black_jokers if f == 52 else rules.red_jokers if f == 53 else rules.packs)
    return out


def test_random_throws_kernel_matches_reference():
    """Random throws of plain suits against random plays drawn from the trumps
    and the led suit (so trumping plays that match the lead's shape are common):
    the kernel and the reference name the same winner under every value, and
    the values tell apart in pairs on more than one in a hundred."""
    from arena.bench.positions import random_position
    rng = random.Random(5)
    checked = 0
    differ = {("largest", "highest"): 0, ("largest", "all"): 0, ("highest", "all"): 0,
              ("largest", "longest"): 0, ("all", "longest"): 0}
    while checked < RANDOM_TRICKS:
        rules = Rules.preset("pagat", players=rng.choice((6, 8)), tractor_past_ace=rng.random() < 0.3)
        p = random_position(rng, rules, max_lead=6, max_suit=9)
        units = kernel.decompose(p.lead, p.trump, rules)
        if len(units) < 2:
            continue
        ctx = kernel.context(p.trump, rules.tractor_past_ace)
        led = ctx.effective_suit(p.lead[0])
        trumps, plain = _pool(rules, p.trump, 4), _pool(rules, p.trump, led)
        for f in p.lead:
            (trumps if led == 4 else plain).remove(f)
        trick = [p.lead]
        for _ in range(rng.randrange(1, 5)):
            src = trumps if rng.random() < 0.7 or led == 4 else plain
            if len(src) < len(p.lead):
                break
            play = rng.sample(src, len(p.lead))
            for f in play:
                src.remove(f)
            trick.append(Cards(sorted(play)))
        got = {}
        for value in ("largest", "highest", "all", "longest"):
            r = rules.replace(throw_winner=value)
            got[value] = kernel.trick_winner(trick, p.trump, r)
            assert got[value] == reference.trick_winner(trick, p.trump, r), \
                (value, str(p.trump), [str(t) for t in trick])
        for a, b in differ:
            differ[a, b] += got[a] != got[b]
        checked += 1
    assert min(differ.values()) > RANDOM_TRICKS // 100, differ
