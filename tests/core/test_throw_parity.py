"""The failed-throw rule has one compiled owner (``c_kept_unit``, with its tie-break
``c_unit_before`` and ``c_throw_penalty``); the naive reference is its independent twin.

On 10,000 random throws (two or more units) under both ``failed_throw_unit`` settings and
several penalties counted by card or by attempt, the kernel's check (which the play engine's own check calls) gives the
reference's result: whether the throw stands, the unit kept, the cards withdrawn, the
penalty and the hand that showed the beating cards; ``kernel.throw_penalty`` agrees with it.
"""

from __future__ import annotations

import random

from arena.bench.positions import random_position
from core import kernel, reference
from core.rules import Rules

THROWS = 10_000


def test_failed_throws_match_the_reference():
    rng = random.Random(20261201)
    throws = failed = 0
    tables = {}
    while throws < THROWS:
        players = rng.choice((5, 6, 8, 12))
        key = (players, rng.choice(("smallest_lowest", "first_found")), rng.choice((0, 5, 10)),
               rng.random() < 0.3, rng.choice(("card", "attempt")))
        if key not in tables:
            tables[key] = Rules.preset("pagat", players=players, failed_throw_unit=key[1],
                                       throw_penalty=key[2], tractor_past_ace=key[3], throw_penalty_per=key[4])
        rules = tables[key]
        p = random_position(rng, rules, max_lead=8, max_suit=10, others=rng.randint(1, 4))
        if len(kernel.decompose(p.lead, p.trump, rules)) < 2:
            continue
        throws += 1
        got = kernel.check_throw(p.lead, p.hands, p.trump, rules)
        want = reference.check_throw(p.lead, p.hands, p.trump, rules)
        assert got == want, (rules, p)
        if not got.stands:
            failed += 1
            assert kernel.throw_penalty(p.lead, got.unit, rules) == want.penalty
            # the units ranked before the kept one were beaten by nobody
            lead = kernel.make_lead(p.lead, p.trump, rules)
            if rules.failed_throw_unit == "smallest_lowest":
                before = lead.kept_before(got.unit)
                assert all(lead.units[i].cards != got.unit for i in before)
    assert failed > THROWS // 10, failed


def test_the_tractor_takes_the_higher_off_suit_rank_pair():
    """docs/kernel.md's unit key ends with the unit's faces: at a no-trump level of 8,
    BJ BJ 8S 8S is a bigger tractor than BJ BJ 8H 8H, so the 8H pair is left over
    (the reference once compared only the highest face and read it the other way)."""
    from core.cards import Trump, format_cards

    rules = Rules.preset("pagat", players=5, tractor_past_ace=True)
    for impl in (kernel, reference):
        units = impl.decompose("8D 8H 8H 8S 8S BJ BJ", Trump(8, None), rules)
        assert [format_cards(u.cards) for u in units] == ["8S 8S BJ BJ", "8H 8H", "8D"], impl.__name__
