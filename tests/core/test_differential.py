"""The compiled kernel against the naive reference on many random positions.

12 groups (2, 3 and 4 packs, times ``follow_ladder`` and
``protect_longer_sets``) of 900 seeded positions each: 10,800 positions per
run. Each position draws the other follow settings that its group allows
(:func:`follow_settings`): ``follow_format``, ``set_reading``, ``ladder`` (all three
values: ``decompose`` only without ``protect_longer_sets``),
``tractor_owed``, ``shorter_tractor``; ``throw_winner``; (four packs) ``bombs``; and half of them
random tractor requirements (:func:`tractor_settings`). On each, both implementations must
agree on the lead's reading, the full set of legal follows, the legality of
random (often illegal) plays, the trick winner (the kernel's, and the play
engine's running best play) and the throw check; and the kernel's random
follow must be legal for the reference. Then 10,000 leads played by the play
engine under both ``failed_throw`` values, against the reference's throw check
and the scoring twin's count of a deal a failed throw ends.
"""

from __future__ import annotations

import itertools
import random

import pytest

from core import kernel, reference
from core.play import PlayCore
from core.cards import Cards, Trump, format_cards
from arena.bench.positions import random_position, random_trump
from core.rules import Rules

POSITIONS_PER_GROUP = 900
PLAYERS = {2: 6, 3: 8, 4: 12}


def _describe(p, extra=""):
    hands = " / ".join(format_cards(h) for h in p.hands)
    return f"trump={p.trump} lead={format_cards(p.lead)} hands={hands} {extra}"


def follow_settings(rng: random.Random, ladder: bool, protect: bool, decompose: float = 0.3) -> dict[str, object]:
    """Random values of the follow settings that depend on ``follow_ladder``
    and ``protect_longer_sets`` (each value where the rules allow it;
    ``ladder=decompose`` with probability ``decompose`` where it is allowed)."""
    out: dict[str, object] = {"follow_ladder": ladder, "protect_longer_sets": protect}
    if not ladder and not protect and rng.random() < 0.25:
        out["follow_format"] = "count"
    if protect:
        out["set_reading"] = rng.choice(("counting", "genuine"))
    if ladder:
        out["ladder"] = rng.choice(("subset", "cards"))
        out["tractor_owed"] = rng.choice(("always", "lone"))
        out["shorter_tractor"] = rng.choice(("owed", "free"))
        if decompose and not protect and rng.random() < decompose:  # ladder=decompose refuses the two others' non-defaults
            out.update(ladder="decompose", tractor_owed="always", shorter_tractor="owed")
    return out


def tractor_settings(rng: random.Random, packs: int, share: float = 0.5) -> dict[str, object]:
    """Random tractor requirements (``tractor_min_width`` up to ``packs``,
    ``tractor_min_length`` 2 to 4) with probability ``share``, else the defaults."""
    if rng.random() >= share:
        return {}
    return {"tractor_min_width": rng.randint(2, packs), "tractor_min_length": rng.choice((2, 3, 4))}


def _random_play(rng: random.Random, hand: Cards, n: int) -> Cards:
    return Cards(rng.sample(list(hand), n))


@pytest.mark.parametrize(
    "packs,ladder,protect",
    list(itertools.product((2, 3, 4), (False, True), (False, True))),
)
def test_kernel_matches_reference(packs, ladder, protect):
    seed = packs * 100 + ladder * 10 + protect
    rng = random.Random(seed)
    trng = random.Random(seed + 7_000)      # the tractor requirements, apart from the positions' draws
    checked = 0
    for _ in range(POSITIONS_PER_GROUP):
        rules = Rules.preset(
            "pagat", players=PLAYERS[packs], **follow_settings(rng, ladder, protect),
            tractor_past_ace=rng.random() < 0.3,
            failed_throw_unit=rng.choice(("smallest_lowest", "first_found")),
            **tractor_settings(trng, packs),
            throw_winner=rng.choice(("largest", "highest", "all", "longest")),
            bombs=rng.choice(("none", "any_suit", "follow_suit")) if packs == 4 else "none",
        )
        p = random_position(rng, rules, max_lead=6, max_suit=9)
        hand = p.hands[0]
        where = _describe(p, f"rules={rules}")

        # reading of the lead
        k_units = [(u.width, u.length, u.top, tuple(u.cards)) for u in kernel.decompose(p.lead, p.trump, rules)]
        r_units = [(u.width, u.length, u.top, tuple(u.cards)) for u in reference.decompose(p.lead, p.trump, rules)]
        assert k_units == r_units, where

        # every legal follow
        k_set = set(kernel.legal_follows(hand, p.lead, p.trump, rules))
        r_set = set(reference.legal_follows(hand, p.lead, p.trump, rules))
        assert len(k_set) == len(list(kernel.legal_follows(hand, p.lead, p.trump, rules))), where
        assert k_set == r_set, f"{where} kernel-only={sorted(map(str, k_set - r_set))[:5]} " \
                               f"reference-only={sorted(map(str, r_set - k_set))[:5]}"

        # random plays, legal or not
        for _ in range(3):
            play = _random_play(rng, hand, len(p.lead))
            assert kernel.is_legal_follow(hand, p.lead, play, p.trump, rules) == \
                reference.is_legal_follow(hand, p.lead, play, p.trump, rules), f"{where} play={play}"

        # random legal follows from every hand, then the winner
        trick = [p.lead]
        for h in p.hands:
            f = kernel.random_follow(h, p.lead, p.trump, rules, rng)
            assert reference.is_legal_follow(h, p.lead, f, p.trump, rules), f"{where} random follow {f}"
            trick.append(f)
        assert kernel.trick_winner(trick, p.trump, rules) == reference.trick_winner(trick, p.trump, rules), \
            f"{where} trick={[str(t) for t in trick]}"

        # the play engine's running best play, built one play at a time, holds where the reference says
        pc = PlayCore.resume(rules, p.trump, 0, [Cards()] * len(trick) + [p.lead] + [Cards()] * (
            rules.players - len(trick) - 1), [], [], [], [0] * rules.players, [0] * rules.players, 0, 0, trick)
        assert pc.holder == reference.trick_winner(trick, p.trump, rules), f"{where} trick={[str(t) for t in trick]}"

        # any subset of plays forms a trick too (winner over fewer players)
        assert kernel.trick_winner(trick[:2], p.trump, rules) == reference.trick_winner(trick[:2], p.trump, rules)

        # throw check against the hands
        assert kernel.check_throw(p.lead, p.hands, p.trump, rules) == \
            reference.check_throw(p.lead, p.hands, p.trump, rules), where
        checked += 1
    assert checked == POSITIONS_PER_GROUP


# --------------------------------------------------------------------------
# positions rich in sets and tractors, where the ladder settings tell apart

SHAPED_POSITIONS = 2_000
#: lead shapes as units (width, length), tractors' sets on adjacent faces
LEAD_SHAPES = [((4, 1),), ((3, 2),), ((2, 3),), ((2, 2),), ((3, 1),), ((2, 2), (1, 1)), ((2, 3), (2, 1)),
               ((4, 1), (2, 1)), ((2, 2), (2, 2)), ((3, 2), (1, 1)), ((2, 4),), ((4, 2),)]


def _shaped_position(rng: random.Random, rules: Rules) -> tuple[Trump, Cards, Cards]:
    """A trump, a lead of sets and tractors (as ``LEAD_SHAPES`` draws them; it may read otherwise) and a
    follower whose holding in the led suit is runs of sets of random widths, plus a few other cards."""
    trump = random_trump(rng)
    ctx = kernel.context(trump, rules.tractor_past_ace)
    suits: dict[int, list[int]] = {}
    for f in range(54):
        suits.setdefault(ctx.effective_suit(f), []).append(f)
    e = rng.choice(sorted(suits))
    faces = sorted(suits[e], key=lambda f: (ctx.level(f), f))
    left = {f: (rules.black_jokers if f == 52 else rules.red_jokers if f == 53 else rules.packs) for f in faces}
    lead: list[int] = []
    for k, L in rng.choice(LEAD_SHAPES):
        at = rng.randrange(len(faces))
        for f in faces[at:at + L]:
            take = min(k, left[f])
            lead += [f] * take
            left[f] -= take
    hand: list[int] = []
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(faces))
        for f in faces[at:at + rng.randint(1, 5)]:
            take = min(rng.randint(1, rules.packs), left[f])
            hand += [f] * take
            left[f] -= take
    others = [f for f in rules.deck() if ctx.effective_suit(f) != e]
    hand += rng.sample(others, rng.randint(0, 3))
    return trump, Cards(lead), Cards(hand[:14])


def test_kernel_matches_reference_on_sets_and_tractors():
    """2,000 positions with set and tractor leads and holdings (3 and 4 packs), the follow settings drawn
    per position: both implementations agree on every legal follow and on random plays, and the kernel's
    random follow is legal for the reference; each position again under ``ladder=decompose`` where the
    settings allow it. Each value of a ladder setting changes the answer somewhere."""
    rng = random.Random(4242)
    trng = random.Random(4243)              # the tractor requirements, apart from the positions' draws
    drng = random.Random(4244)              # the random follows under ladder=decompose, apart as well
    changed: dict[str, int] = {}
    default = Rules()
    for _ in range(SHAPED_POSITIONS):
        packs = rng.choice((3, 4))
        settings = follow_settings(rng, rng.random() < 0.75, rng.random() < 0.4, decompose=0)
        settings.update(tractor_settings(trng, packs, 0.3))
        rules = Rules.preset("pagat", players=PLAYERS[packs], tractor_past_ace=rng.random() < 0.3, **settings)
        trump, lead, hand = _shaped_position(rng, rules)
        if not lead:
            continue
        where = f"trump={trump} lead={format_cards(lead)} hand={format_cards(hand)} settings={settings}"
        k_set = set(kernel.legal_follows(hand, lead, trump, rules))
        r_set = reference.legal_follows(hand, lead, trump, rules)
        assert k_set == r_set, f"{where} kernel-only={sorted(map(str, k_set - r_set))[:5]} " \
                               f"reference-only={sorted(map(str, r_set - k_set))[:5]}"
        if len(hand) >= len(lead):
            for _ in range(3):
                play = _random_play(rng, hand, len(lead))
                assert kernel.is_legal_follow(hand, lead, play, trump, rules) == \
                    reference.is_legal_follow(hand, lead, play, trump, rules), f"{where} play={play}"
            f = kernel.random_follow(hand, lead, trump, rules, rng)
            assert f in r_set, f"{where} random follow {f}"
        if not rules.protect_longer_sets:      # the same position under ladder=decompose
            weak = rules.replace(follow_format="shape", follow_ladder=True, ladder="decompose",
                                 tractor_owed="always", shorter_tractor="owed")
            kd = set(kernel.legal_follows(hand, lead, trump, weak))
            assert kd == reference.legal_follows(hand, lead, trump, weak), f"{where} ladder=decompose"
            if len(hand) >= len(lead):
                assert kernel.random_follow(hand, lead, trump, weak, drng) in kd, f"{where} ladder=decompose"
            if kd != set(kernel.legal_follows(hand, lead, trump, weak.replace(ladder="subset"))):
                changed["decompose"] = changed.get("decompose", 0) + 1
        for name in ("ladder", "tractor_owed", "shorter_tractor", "set_reading", "follow_format",
                     "tractor_min_width", "tractor_min_length"):
            if getattr(rules, name) != getattr(default, name):
                plain = rules.replace(**{name: getattr(default, name)})
                if set(kernel.legal_follows(hand, lead, trump, plain)) != k_set:
                    changed[name] = changed.get(name, 0) + 1
    assert all(changed.get(name, 0) >= 10 for name in
               ("ladder", "decompose", "tractor_owed", "shorter_tractor", "set_reading", "follow_format",
                "tractor_min_width", "tractor_min_length")), str(changed)


THROW_POSITIONS = 10_000


def test_the_play_engine_plays_a_throw_as_the_reference_checks_it_under_both_failed_throw_values():
    """3,000 random leads, each played by the play engine at seat 0 against the position's other
    hands (seats 1 on, in order), the maker drawn among the seats, ``failed_throw`` and the settings
    it reads drawn too (``failed_throw_unit``, ``throw_penalty``, ``throw_penalty_per``,
    ``kitty_multiplier``): the reference's throw check (core/reference.py) says whether the lead
    stands and which unit it leaves, for how much; with ``withdraw`` that unit is led and play goes
    on; with ``end_deal`` the play stops and the opponents' points, the multiplier and the kitty's
    side are the scoring twin's (tests/core/scoring_reference.py, ``ended_total``) on the cards
    still in the hands."""
    import scoring_reference as ref
    from core.cards import points

    rng = random.Random(9090)
    seen: dict[tuple[str, bool], int] = {}
    for _ in range(THROW_POSITIONS):
        packs = rng.choice((2, 3, 4))
        n = PLAYERS[packs]
        rules = Rules.preset(
            "pagat", players=n, failed_throw=rng.choice(("withdraw", "end_deal")),
            failed_throw_unit=rng.choice(("smallest_lowest", "first_found")),
            throw_penalty=rng.choice((0, 5, 10)), throw_penalty_per=rng.choice(("card", "attempt")),
            kitty_multiplier=rng.choice(("double", "by_cards", "unit_double", "unit_power", "cards_per_player",
                                         "pairs_power")),
            tractor_past_ace=rng.random() < 0.3)
        p = random_position(rng, rules, max_lead=6, max_suit=9, others=rng.randint(1, n - 2))
        hands = [p.lead] + list(p.hands) + [Cards()] * (n - 1 - len(p.hands))
        maker = rng.randrange(n)
        won = [rng.choice((0, 0, 10, 25, 40)) for _ in range(n)]
        kitty = rng.choice((0, 5, 15, 30))
        pc = PlayCore.resume(rules, p.trump, maker, hands, [], [], [], won, [0] * n, 3, 0, [])
        want = reference.check_throw(p.lead, hands[1:], p.trump, rules)
        where = _describe(p, f"maker={maker} rules={rules}")
        seat, played, attempt = pc.play(p.lead)
        assert seat == 0
        if want.stands:
            assert attempt is None and played == p.lead and not pc.ended, where
            continue
        assert attempt == p.lead and played == want.unit, where
        assert pc.penalties == [want.penalty] + [0] * (n - 1), where
        seen[(rules.failed_throw, maker == 0)] = seen.get((rules.failed_throw, maker == 0), 0) + 1
        if rules.failed_throw == "withdraw":
            assert not pc.ended and pc.left_points == 0 and pc.trick() == [want.unit], where
            continue
        assert pc.ended and pc.done and pc.current_player == -1 and pc.trick() == [], where
        assert [pc.hand(i) for i in range(n)] == hands, where
        left = sum(points(h) for h in hands)
        assert pc.left_points == left, where
        units = [(u.width, u.length) for u in reference.decompose(want.unit, p.trump, rules)]
        assert len(units) == 1, where
        got = pc.opponents_points(rules, kitty)
        assert got == ref.ended_total(won, {maker}, pc.penalties, 0, left, kitty, rules.kitty_multiplier, units), \
            where
    assert all(seen.get((value, on_side), 0) >= 50 for value in ("withdraw", "end_deal")
               for on_side in (True, False)), seen
