"""The deal engine phase by phase (``core/state.py``): draw, bury, call, play, end.

Every deal here is built by hand: :func:`build_deck` takes the cards each seat
must draw first (in draw order) and the kitty, fills the rest of the deck with
a seeded shuffle, and interleaves everything in draw order (card ``i`` goes to
seat ``(starter + i) % players``). Level-rank cards nobody asked for are sent
to the kitty (then to a passive "dump" seat, then to the very end of the draw)
so that they create no unplanned decisions.

The friend, throw and kitty tests use *tiny* deals: a preset whose hands are
cut to a few cards (the rest is kitty, which the maker buries), so every card
in play is chosen by the test and every trick is scripted. Expected values are
worked out by hand from ``shared/design/RULES.md``; the comments show the sums.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from core.actions import Action
from core.cards import Cards, Trump, card_name, parse_card, parse_cards, points
from core.errors import IllegalActionError, RulesError
from core.levels import PlayerLevel

from core.rules import Rules
from core.scoring import kitty_multiplier, score_deal
from core.state import BURY_PHASE, CALL_PHASE, DRAW, PLAY_PHASE, State

C, D, H, S = 0, 1, 2, 3


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------

def faces(text) -> list:
    """Card faces in the order written (``parse_cards`` would sort them);
    ``*`` stands for any filler card (None)."""
    if isinstance(text, str):
        return [None if t == "*" else parse_card(t) for t in text.split()]
    return list(text)


def build_deck(rules, hands=None, kitty="", starter=0, seed=0, late_ranks=(), dump=None):
    """A deck whose draw gives ``hands[seat]`` (a card string, in draw order)
    as the first cards of that seat (``*``: any card), and ``kitty`` as the
    first kitty cards.

    Cards of ``late_ranks`` not placed by the test fill the kitty first, then
    the ``dump`` seat's free slots, then the last draws of the deal."""
    n, hs = rules.players, rules.hand_size
    want = {s: faces(h) for s, h in (hands or {}).items()}
    kit = faces(kitty)
    pool = Counter(rules.deck())
    for cards in list(want.values()) + [kit]:
        for f in cards:
            if f is not None:
                assert pool[f] > 0, f"no copy of {card_name(f)} left for the test deck"
                pool[f] -= 1
    rest = sorted(pool.elements())
    random.Random(seed).shuffle(rest)

    def late(f):
        return f < 52 and f % 13 + 2 in late_ranks

    rest.sort(key=lambda f: not late(f))           # late cards first: into the kitty
    k = rules.kitty_size - len(kit)
    assert k >= 0
    kit = kit + rest[:k]
    del rest[:k]
    full = {s: list(want.get(s, [])) for s in range(n)}
    if dump is not None:
        while rest and late(rest[0]) and len(full[dump]) < hs:
            full[dump].append(rest.pop(0))
    rest.sort(key=late)                            # what is left of them: the last draws
    for h in full.values():                        # the test's "any card" slots
        for j, f in enumerate(h):
            if f is None:
                assert not late(rest[0])
                h[j] = rest.pop(0)
    for j in range(hs):
        for s in range(n):
            if len(full[s]) <= j:
                full[s].append(rest.pop(0))
    assert not rest and all(len(h) == hs for h in full.values())
    d = [full[(starter + i) % n][i // n] for i in range(n * hs)] + kit
    assert sorted(d) == sorted(rules.deck())
    return d


def drawn_at(rules, seat, j, starter=0):
    """Cards drawn when ``seat`` has just drawn its ``j``-th card (from 0)."""
    return j * rules.players + (seat - starter) % rules.players + 1


def decision_key(s):
    seat = s.current_player()
    return (s.view(seat).cards_drawn, seat)


def run_draw(s, script=None):
    """Finish the draw: the scripted action at each ``(cards drawn, seat)``
    decision, else pass. Returns the decisions met, with their legal actions."""
    script = dict(script or {})
    met = []
    while s.phase == DRAW:
        key = decision_key(s)
        met.append((key, sorted(str(a) for a in s.legal_actions())))
        s.apply(script.pop(key, "pass"))
    assert not script, f"scripted decisions never reached: {script}"
    return met


def bury_keep(s, keep):
    """Bury everything in the maker's hand but ``keep``."""
    assert s.phase == BURY_PHASE
    keep = Counter(parse_cards(keep))
    hand = Counter(s.hand(s.maker))
    assert not keep - hand, "the cards to keep are not in the maker's hand"
    for f in sorted((hand - keep).elements()):
        s.apply(Action.bury(f))
    assert s.phase != BURY_PHASE


def tiny(preset="pagat", hand=2, players=None, **overrides):
    """A preset whose hands are cut to ``hand`` cards (the rest is kitty)."""
    if players is None and preset not in ("bottom-eight", "stack"):
        players = 5
    base = Rules.preset(preset, players=players, **overrides)
    total = 52 * base.packs + base.red_jokers + base.black_jokers
    return base.replace(hand_size=hand, kitty_size=total - hand * base.players)


def tiny_deal(rules, hands, keep, calls, trump_card="2S"):
    """Seat 0 draws ``trump_card`` first, exposes it and keeps ``keep`` after
    burying; ``hands`` are the other seats' whole hands; then the calls."""
    all_hands = {0: trump_card, **hands}
    rank = parse_card(trump_card) % 13 + 2
    s = State(rules, decks=[build_deck(rules, all_hands, late_ranks=(rank,))])
    run_draw(s, {(1, 0): f"expose {trump_card}"})
    assert s.maker == 0
    bury_keep(s, keep)
    for c in calls:
        s.apply(f"call {c}")
    assert s.phase == PLAY_PHASE
    return s


def play(s, *moves):
    """Apply ``"seat: cards"`` moves, checking whose turn it is."""
    for m in moves:
        seat, cards = m.split(":")
        assert s.current_player() == int(seat), f"{m}: seat {s.current_player()} is to play"
        s.apply(Action.play(cards))


def expected_opponents(s):
    """The opponents' points recomputed from the record (RULES: Scoring one deal)."""
    res = s.result
    side = res.maker_side
    pts, pen = s.play.points, s.play.penalties
    total = 0
    for seat in range(s.rules.players):
        total += pen[seat] if seat in side else pts[seat] - pen[seat]
    if res.kitty_to_opponents:
        total += points(s.kitty) * res.kitty_multiplier
    return max(total, 0)


# --------------------------------------------------------------------------
# the draw
# --------------------------------------------------------------------------

P5 = Rules.preset("pagat", players=5)
P8 = Rules.preset("pagat", players=8)
B8 = Rules.preset("bottom-eight")
#: three packs, so that a triple can override a pair
P5x3 = Rules.preset("pagat", players=5, packs=3, hand_size=30, kitty_size=10)
B8x3 = Rules.preset("bottom-eight", packs=3, hand_size=30, kitty_size=10)
HELI6 = Rules.preset("heli", players=6)
STACK = Rules.preset("stack")


def lv(*spec):
    """Levels: ints are active, ``-x`` is passive at x."""
    return [PlayerLevel(abs(x), x > 0) for x in spec]


# Each row: rules, levels, fixed maker, hands, late ranks, dump seat, script,
# expected decisions [(cards drawn, seat)], legal actions at some decisions,
# expected trump, maker and exposure record.
DRAW_CASES = [
    pytest.param(
        P5, None, None, {2: "4C 5C 2H"}, (2,), None,
        {(13, 2): "expose 2H"},
        [(13, 2)], {(13, 2): ["expose 2H", "pass"]},
        Trump(2, H), 2, [(2, "expose", "2H")],
        id="first-exposable-card-is-the-first-decision"),
    pytest.param(
        P5, None, None, {2: "2H"}, (2,), None,
        {(8, 2): "expose 2H"},
        [(3, 2), (8, 2)], {(3, 2): ["expose 2H", "pass"]},
        Trump(2, H), 2, [(2, "expose", "2H")],
        id="a-pass-keeps-the-card-exposable-at-the-next-own-draw"),
    pytest.param(
        P5, None, None, {2: "2H 2C"}, (2,), None,
        {(8, 2): "expose 2C"},
        [(3, 2), (8, 2)], {(8, 2): ["expose 2C", "expose 2H", "pass"]},
        Trump(2, C), 2, [(2, "expose", "2C")],
        id="choice-of-suit"),
    pytest.param(
        P5, lv(5, 5, 5, 5, 5), None, {1: "2H 5D"}, (5,), None,
        {(7, 1): "expose 5D"},
        [(7, 1)], {(7, 1): ["expose 5D", "pass"]},
        Trump(5, D), 1, [(1, "expose", "5D")],
        id="only-the-own-level-rank"),
    pytest.param(
        P5, None, None, {1: "2H", 3: "4S 2S 2S"}, (2,), None,
        {(2, 1): "expose 2H", (14, 3): "expose 2S 2S"},
        [(2, 1), (14, 3)], {(14, 3): ["expose 2S 2S", "pass"]},
        Trump(2, S), 3, [(1, "expose", "2H"), (3, "expose", "2S 2S")],
        id="pair-overrides-single-no-defence-possible"),
    pytest.param(
        P5, lv(-2, 2, -2, 7, -2), None, {1: "2H", 3: "7S 7S"}, (2, 7), 0,
        {(2, 1): "expose 2H", (9, 3): "expose 7S 7S"},
        [(2, 1), (9, 3)], {(9, 3): ["expose 7S 7S", "pass"]},
        Trump(7, S), 3, [(1, "expose", "2H"), (3, "expose", "7S 7S")],
        id="override-with-the-overriders-own-level"),
    pytest.param(
        P5, None, None, {1: "2H 2H", 3: "2S 2S"}, (2,), None,
        {(2, 1): "expose 2H", (9, 3): "expose 2S 2S", (9, 1): "expose 2H 2H"},
        [(2, 1), (9, 3), (9, 1)], {(9, 1): ["expose 2H 2H", "pass"]},
        Trump(2, H), 1,
        [(1, "expose", "2H"), (3, "expose", "2S 2S"), (1, "defend", "2H 2H"), (3, "withdraw", "2S 2S")],
        id="defence-at-once-challenger-takes-back"),
    pytest.param(
        P5.replace(exposure_defence=False), None, None, {1: "2H 2H", 3: "2S 2S"}, (2,), None,
        {(2, 1): "expose 2H", (9, 3): "expose 2S 2S"},
        # seat 1 holds the pair that would defend, but without exposure_defence the override stands
        [(2, 1), (9, 3)], {(9, 3): ["expose 2S 2S", "pass"]},
        Trump(2, S), 3, [(1, "expose", "2H"), (3, "expose", "2S 2S")],
        id="no-exposure-defence-the-override-stands"),
    pytest.param(
        P5, None, None, {1: "2H 2H", 4: "* " * 18 + "2S 2S"}, (2,), None,
        {(2, 1): "expose 2H", (100, 4): "expose 2S 2S", (100, 1): "expose 2H 2H"},
        [(2, 1), (100, 4), (100, 1)], {(100, 1): ["expose 2H 2H", "pass"]},
        Trump(2, H), 1,
        [(1, "expose", "2H"), (4, "expose", "2S 2S"), (1, "defend", "2H 2H"), (4, "withdraw", "2S 2S")],
        id="override-and-defence-on-the-last-card"),
    pytest.param(
        P5, None, None, {1: "2H 2H", 4: "* " * 18 + "2S 2S"}, (2,), None,
        {(2, 1): "expose 2H", (100, 4): "expose 2S 2S"},
        [(2, 1), (100, 4), (100, 1)], {},
        Trump(2, S), 4, [(1, "expose", "2H"), (4, "expose", "2S 2S")],
        id="override-on-the-last-card-not-defended"),
    pytest.param(
        P5, None, None, {1: "2H 2H", 3: "2S 2S"}, (2,), None,
        {(2, 1): "expose 2H", (9, 3): "expose 2S 2S", (9, 1): "pass"},
        [(2, 1), (9, 3), (9, 1)], {},
        Trump(2, S), 3, [(1, "expose", "2H"), (3, "expose", "2S 2S")],
        id="defence-declined"),
    pytest.param(
        P8, None, None, {1: "2H 2H", 3: "2S 2S 2S", 5: "2D 2D"}, (2,), None,
        {(2, 1): "expose 2H", (12, 3): "expose 2S 2S", (12, 1): "expose 2H 2H",
         (20, 3): "expose 2S 2S 2S"},
        # seat 5's pair (drawn 14) cannot override the defended pair; seat 1 cannot defend a triple
        [(2, 1), (12, 3), (12, 1), (20, 3)], {(20, 3): ["expose 2S 2S 2S", "pass"]},
        Trump(2, S), 3,
        [(1, "expose", "2H"), (3, "expose", "2S 2S"), (1, "defend", "2H 2H"),
         (3, "withdraw", "2S 2S"), (3, "expose", "2S 2S 2S")],
        id="after-a-defence-an-override-needs-one-more-card"),
    pytest.param(
        P5, lv(2, -2, 2, 2, 2), None, {1: "2H 2H", 4: "2C"}, (2,), None,
        {(5, 4): "expose 2C"},
        [(5, 4)], {},
        Trump(2, C), 4, [(4, "expose", "2C")],
        id="passive-player-neither-exposes-nor-overrides"),
    pytest.param(
        P5x3, None, None, {1: "2H", 3: "2S 2S", 4: "2D 2D 2D"}, (2,), None,
        {(2, 1): "expose 2H", (9, 3): "expose 2S 2S", (15, 4): "expose 2D 2D 2D"},
        [(2, 1), (9, 3), (15, 4)], {},
        Trump(2, D), 4,
        [(1, "expose", "2H"), (3, "expose", "2S 2S"), (4, "expose", "2D 2D 2D")],
        id="pagat-3-packs-triple-overrides-pair"),
    pytest.param(
        B8x3, None, None, {1: "2H", 3: "2S 2S", 4: "2D 2D 2D"}, (2,), None,
        {(2, 1): "expose 2H", (9, 3): "expose 2S 2S"},
        [(2, 1), (9, 3)], {},
        Trump(2, S), 3, [(1, "expose", "2H"), (3, "expose", "2S 2S")],
        id="bottom-eight-one-pair-override-only"),
    pytest.param(
        B8, None, None, {1: "2H 2H", 3: "2S 2S", 4: "3C 2D 2D"}, (2,), None,
        {(2, 1): "expose 2H", (9, 3): "expose 2S 2S", (9, 1): "expose 2H 2H"},
        [(2, 1), (9, 3), (9, 1)], {(9, 1): ["expose 2H 2H", "pass"]},
        Trump(2, H), 1,
        [(1, "expose", "2H"), (3, "expose", "2S 2S"), (1, "defend", "2H 2H"), (3, "withdraw", "2S 2S")],
        id="bottom-eight-defence-with-a-pair-then-no-change"),
    pytest.param(
        HELI6, lv(2, 2, 2, 9, 2, 2), 3, {1: "2C 9H 9C"}, (9,), None,
        {(8, 1): "expose 9H"},
        [(8, 1)], {(8, 1): ["expose 9H", "pass"]},
        Trump(9, H), 3, [(1, "expose", "9H")],
        id="heli-anyone-exposes-the-makers-rank-maker-keeps-the-deal"),
    pytest.param(
        STACK, lv(2, 2, 6, 2, 2, 2), 2, {4: "6C 6C"}, (6,), None,
        {(5, 4): "expose 6C"},
        [(5, 4)], {(5, 4): ["expose 6C", "pass"]},
        Trump(6, C), 2, [(4, "expose", "6C")],
        id="stack-predetermined-caller-anyone-sets-the-suit"),
]


@pytest.mark.parametrize(
    "rules,levels,maker,hands,late,dump,script,decisions,options,trump,want_maker,exposures",
    DRAW_CASES)
def test_draw(rules, levels, maker, hands, late, dump, script, decisions, options, trump,
              want_maker, exposures):
    d = build_deck(rules, hands, late_ranks=late, dump=dump)
    s = State(rules, levels=levels, maker=maker, decks=[d])
    met = run_draw(s, script)
    assert [k for k, _ in met] == decisions
    got = dict(met)
    for key, acts in options.items():
        assert got[key] == acts, key
    assert s.phase == BURY_PHASE and s.redeals == 0
    assert s.trump == trump
    assert s.maker == want_maker
    assert [(seat, kind, str(c)) for seat, kind, c in s.exposures] == \
        [(seat, kind, str(parse_cards(c))) for seat, kind, c in exposures]
    # the maker takes the kitty
    n = rules.players
    kit = d[n * rules.hand_size:]
    drawn = [f for i, f in enumerate(d[:n * rules.hand_size]) if i % n == want_maker % n]
    assert Counter(s.hand(want_maker)) == Counter(drawn) + Counter(kit)
    assert s.current_player() == want_maker


def test_nothing_to_expose_means_no_decision_at_all():
    # everyone active at 3 and all eight 3s in the kitty: no decision, a redeal
    lvs = lv(3, 3, 3, 3, 3)
    d1 = build_deck(P5, {}, kitty="3C 3C 3D 3D 3H 3H 3S 3S")
    d2 = build_deck(P5, {4: "3H"}, late_ranks=(3,), seed=1)
    s = State(P5, levels=lvs, decks=[d1, d2])
    assert s.redeals == 1 and s.phase == DRAW
    assert decision_key(s) == (5, 4)


def test_no_exposure_redeal_same_starter_everyone_active():
    # seats 2 and 4 are active at 5 and every 5 is in the kitty; the rest are passive
    levels = lv(-3, -4, 5, -6, 5)
    d1 = build_deck(P5, {0: "3H 3H", 1: "4D 4D", 3: "6S"}, late_ranks=(5,), seed=3, starter=2)
    d2 = build_deck(P5, {0: "3H"}, late_ranks=(3, 4, 5, 6), seed=4, starter=2)
    s = State(P5, levels=levels, starter=2, decks=[d1, d2])
    assert s.redeals == 1
    assert s.decks == [d1, d2]
    assert s.levels == lv(3, 4, 5, 6, 5)                    # all active, same levels
    assert s.starter == 2
    assert s.view(0).levels == ((3, True), (4, True), (5, True), (6, True), (5, True))
    # seat 0 is now active: its first card (the 4th drawn, from seat 2) is exposable
    assert decision_key(s) == (4, 0)
    assert sorted(map(str, s.legal_actions())) == ["expose 3H", "pass"]
    for seat in range(5):
        assert list(s.hand(seat)) == sorted(d2[i] for i in range(4) if (2 + i) % 5 == seat)
    run_draw(s, {(4, 0): "expose 3H"})
    assert (s.maker, s.trump, s.redeals) == (0, Trump(3, H), 1)


def test_redeal_in_a_clone_leaves_the_original_alone():
    """A clone is independent: its redeal must not touch the original's record
    (``decks``) nor change which deck the original redeals to."""
    da = build_deck(P5, {0: "2H"}, late_ranks=(2,), seed=1)
    db = build_deck(P5, {1: "2C"}, late_ranks=(2,), seed=2)
    dc = build_deck(P5, {2: "2D"}, late_ranks=(2,), seed=3)
    s = State(P5, decks=[da, db, dc])
    c = s.clone()
    while c.redeals == 0:
        c.apply("pass")
    assert c.decks == [da, db] and decision_key(c) == (2, 1)
    assert s.redeals == 0 and s.decks == [da], "the clone's redeal changed the original's decks"
    while s.redeals == 0:
        s.apply("pass")
    assert s.decks == [da, db]
    assert decision_key(s) == (2, 1), "the original redealt from the wrong deck"


@pytest.mark.parametrize("kitty,suit,turned", [
    ("3C 4C 9D 9S 5C 6C", D, "3C 4C 9D"),          # the first nine turned up
    ("9H 3C 9D 4C 5C 6C", H, "9H"),
    ("3C QS KD 4H KH BJ", D, "3C QS KD 4H KH BJ"),  # no nine: the highest card (first of equal highest)
    ("BJ RJ 4H 3C AS 5D", S, "BJ RJ 4H 3C AS 5D"),
])
def test_heli_no_exposure_kitty_turn_up(kitty, suit, turned):
    levels = lv(2, 2, 2, 9, 2, 2)
    d = build_deck(HELI6, {}, kitty=kitty, late_ranks=(9,))
    s = State(HELI6, levels=levels, maker=3, decks=[d])
    met = run_draw(s)                    # every nine in a hand is offered, and passed
    assert met and all(acts[0].startswith("expose 9") for _, acts in met)
    assert (s.maker, s.trump, s.redeals) == (3, Trump(9, suit), 0)
    assert len(s.hand(3)) == HELI6.hand_size + HELI6.kitty_size
    # the turned cards are public: every seat's view shows them, as the maker's
    for seat in range(6):
        assert s.view(seat).exposures == ((3, "turned", str(parse_cards(turned))),)


def test_joker_level_no_trump_suit():
    levels = lv(2, 2, 15, 2, 2, 2)
    s = State(HELI6, levels=levels, maker=2, seed=5)
    # nobody can expose anything at the Joker level: no decision during the draw
    assert s.phase == BURY_PHASE
    assert (s.maker, s.trump) == (2, Trump(None, None))
    bury_keep(s, Cards(sorted(s.hand(2))[:HELI6.hand_size]))
    # no trump rank and no trump suit: twos and every suit can be called, jokers cannot
    assert s.action_error(Action.from_str("call 2C 1")) is None
    assert s.action_error(Action.from_str("call AS 2")) is None
    assert s.action_error(Action.from_str("call BJ 1")) is not None


def test_no_one_overrides_themselves():
    # seat 1 exposes 2H, then draws 2S 2S: never a decision for it again
    d = build_deck(P5, {1: "2H 2S 2S"}, late_ranks=(2,))
    s = State(P5, decks=[d])
    met = run_draw(s, {(2, 1): "expose 2H"})
    assert [k for k, _ in met] == [(2, 1)]
    assert s.trump == Trump(2, H)


def test_draw_actions_refused():
    d = build_deck(P5, {1: "2H", 3: "2S 2S"}, late_ranks=(2,))
    s = State(P5, decks=[d])
    assert decision_key(s) == (2, 1)
    for bad in ("expose 2S", "expose 2H 2H", "bury 2H", "play 2H", "call AC 1"):
        with pytest.raises(IllegalActionError):
            s.apply(bad)
    assert s.history == []
    s.apply("expose 2H")
    assert decision_key(s) == (9, 3)
    with pytest.raises(IllegalActionError):
        s.apply("expose 2S")              # a single cannot override a single


# --------------------------------------------------------------------------
# bury
# --------------------------------------------------------------------------

def test_bury():
    r = Rules.preset("pagat", players=6)
    d = build_deck(r, {0: "2H"}, late_ranks=(2,))
    s = State(r, decks=[d])
    run_draw(s, {(1, 0): "expose 2H"})
    kit = Cards(d[102:])
    own = Cards(f for i, f in enumerate(d[:102]) if i % 6 == 0)
    assert s.phase == BURY_PHASE and s.current_player() == 0
    assert s.hand(0) == own + kit and len(s.hand(0)) == 23
    assert s.view(0).kitty == Cards()                      # buried so far
    assert all(s.view(k).kitty is None for k in range(1, 6))
    assert sorted(a.cards[0] for a in s.legal_actions()) == sorted(set(s.hand(0)))
    missing = next(f for f in range(54) if f not in s.hand(0))
    with pytest.raises(IllegalActionError):
        s.apply(Action.bury(missing))
    with pytest.raises(IllegalActionError):
        s.apply(Action.play(Cards([s.hand(0)[0]])))
    to_bury = list(s.hand(0))[-6:]
    for i, f in enumerate(to_bury):
        assert s.phase == BURY_PHASE
        s.apply(Action.bury(f))
        assert s.view(0).kitty == Cards(to_bury[:i + 1])
        assert len(s.hand(0)) == 23 - i - 1
        assert all(s.view(k).kitty is None for k in range(1, 6))
        assert s.view(3).hand_sizes[0] == 23 - i - 1
    assert s.phase == CALL_PHASE
    assert s.kitty == Cards(to_bury) and len(s.hand(0)) == 17
    assert s.view(0).kitty == Cards(to_bury)
    assert s.view(0).hand == s.hand(0)
    for k in range(1, 6):
        v = s.view(k)
        assert v.kitty is None and json.loads(str(v))["kitty"] is None


# --------------------------------------------------------------------------
# calls
# --------------------------------------------------------------------------

def _call_state(preset="pagat", players=6, card="2H"):
    r = Rules.preset(preset, players=players)
    s = State(r, decks=[build_deck(r, {0: card}, late_ranks=(2,))])
    run_draw(s, {(1, 0): f"expose {card}"})
    bury_keep(s, Cards(sorted(s.hand(0))[:r.hand_size]))
    assert s.phase == CALL_PHASE
    return s


@pytest.mark.parametrize("preset,players,calls,error", [
    ("pagat", 6, ["call AC 1"], None),
    ("pagat", 6, ["call AC 2"], None),
    ("pagat", 6, ["call AH 1"], "trump"),            # trump suit
    ("pagat", 6, ["call 2C 1"], "trump"),            # trump rank, off suit
    ("pagat", 6, ["call 2H 1"], "trump"),
    ("pagat", 6, ["call BJ 1"], "trump"),
    ("pagat", 6, ["call RJ 2"], "trump"),
    ("pagat", 6, ["call AC 3"], "ordinal"),          # two packs
    ("pagat", 8, ["call AC 3"], None),               # three packs
    ("pagat", 8, ["call AC 4"], "ordinal"),
    ("pagat", 6, ["call AC other"], "other"),
    ("bottom-eight", 5, ["call AC other"], None),
    ("bottom-eight", 5, ["call AC 2"], None),
    ("pagat", 6, ["call AC 1", "call AC 1"], "already"),
    ("pagat", 6, ["call AC 1", "call AC 2"], None),
    ("pagat", 6, ["call KD 1", "call AC 1"], None),
])
def test_calls(preset, players, calls, error):
    s = _call_state(preset, players)
    for c in calls[:-1]:
        s.apply(c)
    a = Action.from_str(calls[-1])
    before = list(s.calls)
    if error is None:
        assert a in s.legal_actions()
        assert a in list(s.legal_actions())
        s.apply(a)
        assert s.calls[-1] == (a.cards[0], a.ordinal)
    else:
        assert a not in s.legal_actions()
        assert a not in list(s.legal_actions())
        with pytest.raises(IllegalActionError, match=error):
            s.apply(a)
        assert s.calls == before


@pytest.mark.parametrize("preset,players,count", [
    ("pagat", 6, 36 * 2),          # 52 - 13 hearts - three other twos = 36 faces, ordinals 1-2
    ("pagat", 8, 36 * 3),
    ("bottom-eight", 5, 36 * 3),   # ordinals other, 1, 2
])
def test_call_enumeration(preset, players, count):
    s = _call_state(preset, players)
    acts = list(s.legal_actions())
    assert len(acts) == len(set(acts)) == count
    s.apply(acts[0])
    if s.phase == CALL_PHASE:
        assert acts[0] not in s.legal_actions()
        assert len(list(s.legal_actions())) == count - 1
    else:
        assert s.phase == PLAY_PHASE and s.current_player() == 0   # the maker leads


# --------------------------------------------------------------------------
# friends (tiny deals: trump rank 2, spades; seat 0 makes trump)
# --------------------------------------------------------------------------

def _finish_checks(s):
    res = s.result
    assert s.is_terminal() and res is not None
    assert res.opponents_points == expected_opponents(s)
    sc = score_deal(s.rules, res.opponents_points, len(res.maker_side))
    assert (res.winner, res.game_points, res.next_side) == tuple(sc)
    return res


def test_maker_plays_the_called_card():
    r = tiny("pagat", hand=3)
    s = tiny_deal(r, {1: "3C 3D 4D", 2: "4C 6D 7D", 3: "6C 8D 9D", 4: "7C JD QD"},
                  keep="AC RJ RJ", calls=["AC 1"])
    play(s, "0:AC")
    assert s.play.calls_filled == [0] and s.play.maker_side == {0}
    play(s, "1:3C", "2:4C", "3:6C", "4:7C",
         "0:RJ", "1:3D", "2:6D", "3:8D", "4:JD",
         "0:RJ", "1:4D", "2:7D", "3:9D", "4:QD")
    res = _finish_checks(s)
    assert res.maker_side == {0}
    assert res.opponents_points == 0 and not res.kitty_to_opponents
    # P = 0: maker side wins 2, times 1 + one missing member
    assert (res.winner, res.game_points) == ("maker", 4)
    assert s.returns() == [4, -4, -4, -4, -4]
    assert s.winners() == {0}


@pytest.mark.parametrize("hands,keep,calls,moves", [
    pytest.param(
        {1: "4C 4D", 2: "AC AD", 3: "6C 6D", 4: "7C 7D", 5: "8C 8D"}, "3C 3D", ["AC 1", "AD 1"],
        ["0:3C", "1:4C", "2:AC", "3:6C", "4:7C", "5:8C",
         "2:AD", "3:6D", "4:7D", "5:8D", "0:3D", "1:4D"],
        id="two-faces-two-tricks"),
    pytest.param(
        {1: "3C 4C", 2: "AC AC", 3: "6C 7C", 4: "8C 9C", 5: "JC 3D"}, "QC QC", ["AC 1", "AC 2"],
        ["0:QC QC", "1:3C 4C", "2:AC AC", "3:6C 7C", "4:8C 9C", "5:JC 3D"],
        id="both-copies-in-one-pair"),
])
def test_one_player_fills_two_calls(hands, keep, calls, moves):
    r = tiny("pagat", hand=2, players=6)
    s = tiny_deal(r, hands, keep=keep, calls=calls)
    play(s, *moves)
    res = _finish_checks(s)
    assert s.play.calls_filled == [2, 2]
    assert res.maker_side == {0, 2}
    # P = 0: maker side wins 2, times 1 + one missing member (full side is 3)
    assert (res.winner, res.game_points) == ("maker", 4)
    assert s.returns() == [4, -4, 4, -4, -4, -4]


@pytest.mark.parametrize("call,side,filled,game_points", [
    ("AC 1", {0, 3}, [3], 2),         # the buried copy is not counted: seat 3's is the first played
    ("AC 2", {0}, [None], 4),         # no second copy is ever played: the maker is alone
])
def test_called_copy_buried_in_the_kitty(call, side, filled, game_points):
    r = tiny("pagat", hand=2)
    s = tiny_deal(r, {1: "4C 7D", 2: "6C 8D", 3: "AC 3D", 4: "7C 4D"}, keep="3C AD", calls=[call])
    assert parse_card("AC") in s.kitty
    play(s, "0:3C", "1:4C", "2:6C", "3:AC")
    # revealed the moment the copy is played, before the trick is over
    assert s.play.maker_side == side
    assert s.view(4).calls_filled == tuple(filled)
    assert s.current_trick()[0] == 0 and len(s.current_trick()[1]) == 4
    play(s, "4:7C", "3:3D", "4:4D", "0:AD", "1:7D", "2:8D")
    res = _finish_checks(s)
    assert res.maker_side == side and s.play.calls_filled == filled
    assert res.opponents_points == 0
    assert (res.winner, res.game_points) == ("maker", game_points)


@pytest.mark.parametrize("preset,call,side,game_points", [
    ("pagat", "AC 1", {0}, 4),                 # the maker's own copy fills it: alone, 2 x 2
    ("bottom-eight", "AC 1", {0}, 3),          # bands: P = 0 is maker +3, no short-side factor
    ("bottom-eight", "AC other", {0, 2}, 3),   # "the other": the first copy by anyone else
])
def test_the_other(preset, call, side, game_points):
    r = tiny(preset, hand=2)
    s = tiny_deal(r, {1: "3C 3D", 2: "AC 4D", 3: "4C 6D", 4: "6C 7D"}, keep="AC AD", calls=[call])
    play(s, "0:AC", "1:3C")
    assert s.play.maker_side == {0}
    play(s, "2:AC")
    assert s.play.maker_side == side
    play(s, "3:4C", "4:6C", "0:AD", "1:3D", "2:4D", "3:6D", "4:7D")
    res = _finish_checks(s)
    assert res.maker_side == side and res.opponents_points == 0
    assert (res.winner, res.game_points) == ("maker", game_points)


def test_points_won_before_the_reveal_count_for_the_final_side():
    r = tiny("pagat", hand=2)
    s = tiny_deal(r, {1: "10C 6D", 2: "4C 7D", 3: "KC AD", 4: "5C 3D"}, keep="3C 4D", calls=["AD 1"])
    play(s, "0:3C", "1:10C", "2:4C", "3:KC", "4:5C")
    # seat 3 took 10 + 10 + 5 while still an opponent as far as anyone knows
    assert s.play.points == [0, 0, 0, 25, 0]
    assert s.play.maker_side == {0}
    assert s.view(1).points == (0, 0, 0, 25, 0)
    play(s, "3:AD")
    assert s.play.maker_side == {0, 3}
    play(s, "4:3D", "0:4D", "1:6D", "2:7D")
    res = _finish_checks(s)
    assert res.maker_side == {0, 3}
    # the 25 count for the maker side: the opponents have 0, maker side wins 2
    assert res.opponents_points == 0
    assert (res.winner, res.game_points) == ("maker", 2)
    assert s.returns() == [2, -2, -2, 2, -2]


# --------------------------------------------------------------------------
# failed throws
# --------------------------------------------------------------------------

def test_failed_throw_by_the_maker():
    r = tiny("pagat", hand=3)
    s = tiny_deal(r, {1: "3H 6D 7H", 2: "KH 3D 8H", 3: "4H 4D 9H", 4: "6H 7D JH"},
                  keep="AH QH RJ", calls=["AC 1"])
    play(s, "0:AH QH")
    # seat 2's KH beats the QH: the QH is led, the AH goes back to the hand
    assert s.failed_throws == [(0, parse_cards("AH QH"), parse_cards("QH"))]
    assert s.current_trick() == (0, [parse_cards("QH")])
    assert s.hand(0) == parse_cards("AH RJ")
    assert s.play.penalties == [10, 0, 0, 0, 0]
    for k in range(5):
        assert s.view(k).failed_throws == ((0, "QH AH", "QH"),)
        assert json.loads(str(s.view(k)))["failed_throws"] == [[0, "QH AH", "QH"]]
    play(s, "1:3H", "2:KH", "3:4H", "4:6H",
         "2:3D", "3:4D", "4:7D", "0:RJ", "1:6D",
         "0:AH", "1:7H", "2:8H", "3:9H", "4:JH")
    res = _finish_checks(s)
    assert res.maker_side == {0} and not res.kitty_to_opponents
    # opponents: 10 (KH) + the maker's 10 penalty
    assert res.opponents_points == 20
    assert (res.winner, res.game_points) == ("maker", 2)
    assert s.view(3).failed_throws == ((0, "QH AH", "QH"),)


@pytest.mark.parametrize("stopper", ["hidden", "shown"])
def test_throw_stopper_in_views(stopper):
    """Seat 0 throws AH QH; seat 1 holds no higher heart, seat 2 holds KH: seat 2
    stopped it. ``hidden``: no view (the thrower's, the stopper's, the others')
    names it, as a value or in JSON; ``shown``: every view does."""
    r = tiny("pagat", hand=3, throw_stopper=stopper)
    s = tiny_deal(r, {1: "3H 6D 7H", 2: "KH 3D 8H", 3: "4H 4D 9H", 4: "6H 7D JH"},
                  keep="AH QH RJ", calls=["AC 1"])
    play(s, "0:AH QH")
    assert s.throw_stoppers == [2]
    want = (2,) if stopper == "shown" else (-1,)
    for k in range(5):
        assert s.view(k).throw_stoppers == want
        assert json.loads(str(s.view(k)))["throw_stoppers"] == list(want)
    play(s, "1:3H", "2:KH", "3:4H", "4:6H")
    assert all(s.view(k).throw_stoppers == want for k in range(5))


@pytest.mark.parametrize("unit,kept,stopper", [("smallest_lowest", "KH", 3), ("first_found", "9H 9H", 2)])
def test_throw_stopper_is_the_seat_that_showed_the_beating_cards(unit, kept, stopper):
    """9H 9H KH thrown: seat 2 can beat only the pair (10H 10H), seat 3 only the
    KH (AH). smallest_lowest keeps the KH, first beaten after the leader by
    seat 3; first_found meets seat 2 first, which beats the pair."""
    r = tiny("pagat", hand=3, throw_stopper="shown", failed_throw_unit=unit)
    s = tiny_deal(r, {1: "3H 6D 7C", 2: "10H 10H 8D", 3: "AH 4D 9C", 4: "6H 7D JC"},
                  keep="9H 9H KH", calls=["AC 1"])
    play(s, "0:9H 9H KH")
    assert s.failed_throws == [(0, parse_cards("9H 9H KH"), parse_cards(kept))]
    assert s.throw_stoppers == [stopper]
    assert all(s.view(k).throw_stoppers == (stopper,) for k in range(5))


def test_throw_stopper_values():
    assert Rules.preset("pagat").throw_stopper == "hidden"
    with pytest.raises(RulesError, match="throw_stopper"):
        Rules.preset("pagat", throw_stopper="secret")


def test_the_sampler_conditions_on_a_shown_throw_stopper():
    """With the stopper shown, every sampled world has the shown seat stop
    the throw (the first seat after the leader able to beat the kept KH);
    with it hidden, worlds where another seat would have stopped it occur."""
    import dataclasses
    from core.sample import Sampler
    from core import kernel
    from core.sample_checks import as_cards
    r = tiny("pagat", hand=3, throw_stopper="shown")
    s = tiny_deal(r, {1: "3H 6D 7C", 2: "10H 10H 8D", 3: "AH 4D 9C", 4: "6H 7D JC"},
                  keep="9H 9H KH", calls=["AC 1"])
    play(s, "0:9H 9H KH", "1:3H")
    view = s.view(4)
    assert view.throw_stoppers == (3,)
    hidden = dataclasses.replace(view, throw_stoppers=(-1,))
    lead = parse_cards("9H 9H KH")

    def stopper(world) -> int:
        # the hands as they were at the throw: each seat's hand now plus what it played since
        since = {0: "KH", 1: "3H"}
        others = [as_cards(list(world.hands[k]) + list(parse_cards(since.get(k, "")))) for k in range(1, 5)]
        res = kernel.check_throw(lead, others, view.trump, r)
        assert not res.stands
        return 1 + res.beaten_by

    shown_by = {stopper(Sampler(view).sample(random.Random(seed))) for seed in range(40)}
    hidden_by = {stopper(Sampler(hidden).sample(random.Random(seed))) for seed in range(40)}
    assert shown_by == {3}
    assert hidden_by != {3}


def test_called_copy_withdrawn_by_a_failed_throw_does_not_count():
    r = tiny("pagat", hand=3)
    s = tiny_deal(r, {1: "3H 6D 7H", 2: "KH AH 3D", 3: "4H 9H 4D", 4: "6H JH 7D"},
                  keep="AH QH RJ", calls=["AH 1"])
    play(s, "0:AH QH")
    # the throw fails on the QH: the maker's AH goes back to the hand, unplayed
    assert s.failed_throws == [(0, parse_cards("AH QH"), parse_cards("QH"))]
    assert s.play.calls_filled == [None] and s.play.maker_side == {0}
    play(s, "1:3H", "2:KH", "3:4H", "4:6H",
         "2:AH")
    # seat 2's AH is the first copy played
    assert s.play.calls_filled == [2] and s.play.maker_side == {0, 2}
    play(s, "3:9H", "4:JH", "0:AH", "1:7H",
         "2:3D", "3:4D", "4:7D", "0:RJ", "1:6D")
    res = _finish_checks(s)
    assert res.maker_side == {0, 2} and s.play.calls_filled == [2]
    # opponents: the maker's 10-point penalty only (the KH went to seat 2)
    assert res.opponents_points == 10
    assert (res.winner, res.game_points) == ("maker", 1)


def test_failed_throw_by_a_friend_not_yet_revealed():
    r = tiny("pagat", hand=4)
    s = tiny_deal(r, {1: "4C 7H 6D JH", 2: "AC AH QH AD", 3: "6C 3H 7D 8H", 4: "7C KH 3D 9H"},
                  keep="3C 4H 4D 6H", calls=["AD 1"])
    play(s, "0:3C", "1:4C", "2:AC", "3:6C", "4:7C",
         "2:AH QH")
    assert s.failed_throws == [(2, parse_cards("AH QH"), parse_cards("QH"))]
    assert s.play.penalties == [0, 0, 10, 0, 0]
    assert s.play.maker_side == {0}            # the thrower is not known as a friend yet
    play(s, "3:3H", "4:KH", "0:4H", "1:7H",
         "4:3D", "0:4D", "1:6D", "2:AD", "3:7D",
         "2:AH", "3:8H", "4:9H", "0:6H", "1:JH")
    res = _finish_checks(s)
    assert res.maker_side == {0, 2}
    # the penalty moves from the thrower's final side (maker) to the opponents: 10 (KH) + 10
    assert res.opponents_points == 20
    assert (res.winner, res.game_points) == ("maker", 1)


def test_failed_throw_by_an_opponent():
    r = tiny("pagat", hand=4)
    s = tiny_deal(r, {1: "4C KH 3D JD", 2: "6C 3H AD QD", 3: "7C 6H 4D 8D", 4: "AC AH QH 6D"},
                  keep="3C 4H 7D 9D", calls=["AD 1"])
    play(s, "0:3C", "1:4C", "2:6C", "3:7C", "4:AC",
         "4:AH QH")
    assert s.failed_throws == [(4, parse_cards("AH QH"), parse_cards("QH"))]
    play(s, "0:4H", "1:KH", "2:3H", "3:6H",
         "1:3D", "2:AD", "3:4D", "4:6D", "0:7D",
         "2:QD", "3:8D", "4:AH", "0:9D", "1:JD")
    res = _finish_checks(s)
    assert res.maker_side == {0, 2}
    # opponents: 10 (seat 1's KH) minus seat 4's 10 penalty
    assert s.play.points == [0, 10, 0, 0, 0]
    assert res.opponents_points == 0
    assert (res.winner, res.game_points) == ("maker", 2)


def test_no_throw_penalty_in_bottom_eight():
    r = tiny("bottom-eight", hand=4)
    s = tiny_deal(r, {1: "4C KH 3D JD", 2: "6C 3H AD QD", 3: "7C 6H 4D 8D", 4: "AC AH QH 6D"},
                  keep="3C 4H 7D 9D", calls=["AD 1"])
    play(s, "0:3C", "1:4C", "2:6C", "3:7C", "4:AC", "4:AH QH")
    assert s.failed_throws == [(4, parse_cards("AH QH"), parse_cards("QH"))]
    assert s.play.penalties == [0] * 5
    play(s, "0:4H", "1:KH", "2:3H", "3:6H",
         "1:3D", "2:AD", "3:4D", "4:6D", "0:7D",
         "2:QD", "3:8D", "4:AH", "0:9D", "1:JD")
    res = _finish_checks(s)
    assert res.opponents_points == 10
    assert (res.winner, res.game_points) == ("maker", 2)    # bands: 5..35 is maker +2


# --------------------------------------------------------------------------
# the kitty at the end
# --------------------------------------------------------------------------

# the hands hold no card points, so the kitty holds all 200
LAST_TRICKS = {
    "single": ({1: "AC", 2: "4C", 3: "6C", 4: "7C"}, "3C", ["0:3C", "1:AC", "2:4C", "3:6C", "4:7C"]),
    "pair": ({1: "AC AC", 2: "4C 6C", 3: "7C 8C", 4: "9C JC"}, "3C 3C",
             ["0:3C 3C", "1:AC AC", "2:4C 6C", "3:7C 8C", "4:9C JC"]),
    "tractor": ({1: "JC JC QC QC", 2: "6C 7C 8C 9C", 3: "6C 7C 8C 9C", 4: "3D 4D 6D 7D"},
                "3C 3C 4C 4C",
                ["0:3C 3C 4C 4C", "1:JC JC QC QC", "2:6C 7C 8C 9C", "3:6C 7C 8C 9C", "4:3D 4D 6D 7D"]),
}


@pytest.mark.parametrize("shape,setting,mult", [
    ("single", "double", 2), ("single", "by_cards", 2), ("single", "unit_double", 2),
    ("single", "unit_power", 2), ("single", "cards_per_player", 2),
    ("pair", "double", 2), ("pair", "by_cards", 3), ("pair", "unit_double", 4),
    ("pair", "unit_power", 4), ("pair", "cards_per_player", 4),
    ("tractor", "double", 2), ("tractor", "by_cards", 4), ("tractor", "unit_double", 8),
    ("tractor", "unit_power", 16), ("tractor", "cards_per_player", 8),
])
def test_kitty_to_the_opponents(shape, setting, mult):
    hands, keep, moves = LAST_TRICKS[shape]
    r = tiny("pagat", hand=len(keep.split()), kitty_multiplier=setting)
    s = tiny_deal(r, hands, keep=keep, calls=["AD 1"])
    play(s, *moves)
    res = _finish_checks(s)
    assert res.maker_side == {0}
    assert points(s.kitty) == 200 == res.kitty_points
    assert res.kitty_to_opponents and res.kitty_multiplier == mult
    assert res.opponents_points == 200 * mult
    assert (res.winner, res.game_points) == ("opponents", 3)
    # the kitty is shown to everyone once the opponents take it
    assert all(s.view(k).kitty == s.kitty for k in range(5))


def test_kitty_not_counted_when_the_maker_side_takes_the_last_trick():
    r = tiny("pagat", hand=2)
    s = tiny_deal(r, {1: "3C 3C", 2: "4C 6C", 3: "7C 8C", 4: "9C JC"}, keep="AC AC", calls=["AD 1"])
    play(s, "0:AC AC", "1:3C 3C", "2:4C 6C", "3:7C 8C", "4:9C JC")
    res = _finish_checks(s)
    assert not res.kitty_to_opponents
    assert res.opponents_points == 0
    assert (res.winner, res.game_points) == ("maker", 4)
    assert all(s.view(k).kitty is None for k in range(1, 5))
    assert s.view(0).kitty == s.kitty


@pytest.mark.parametrize("setting,mult", [("double", 2), ("by_cards", 3), ("unit_double", 4),
                                          ("unit_power", 4), ("cards_per_player", 4)])
def test_kitty_after_a_failed_throw_on_the_last_lead(setting, mult):
    """Three cards each; the maker throws all three, the throw fails and only the
    3C is led. The real last trick is then seat 1's pair (two cards, a pair):
    the multiplier follows it, and the maker's 20-point penalty is added."""
    r = tiny("pagat", hand=3, kitty_multiplier=setting)
    s = tiny_deal(r, {1: "QC 4D 4D", 2: "4C 6D 7D", 3: "6C 8D 9D", 4: "7C JD QD"},
                  keep="AC AC 3C", calls=["AD 1"])
    play(s, "0:AC AC 3C")
    assert s.failed_throws == [(0, parse_cards("AC AC 3C"), parse_cards("3C"))]
    assert s.play.penalties == [20, 0, 0, 0, 0]
    play(s, "1:QC", "2:4C", "3:6C", "4:7C",
         "1:4D 4D", "2:6D 7D", "3:8D 9D", "4:JD QD", "0:AC AC")
    res = _finish_checks(s)
    assert res.kitty_to_opponents and res.kitty_multiplier == mult
    assert res.opponents_points == 20 + 200 * mult
    assert (res.winner, res.game_points) == ("opponents", 3)


# --------------------------------------------------------------------------
# result and returns agree with core.scoring, in whole random deals
# --------------------------------------------------------------------------

@pytest.mark.parametrize("preset,players", [("pagat", 5), ("pagat", 6), ("pagat", 9), ("heli", 6),
                                            ("thirteen", 7), ("bottom-eight", 5), ("stack", 6)])
def test_result_agrees_with_scoring(preset, players):
    r = Rules.preset(preset, players=players)
    seen = set()
    for seed in range(60):
        s = State(r, seed=seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            s.apply(s.random_legal_action(rng))
        res = s.result
        side = res.maker_side
        assert s.maker in side and s.maker == res.maker
        assert side == {s.maker} | {x for x in s.play.calls_filled if x is not None}
        # the last trick: winner by the rules, multiplier from its shape
        leader, plays = s.tricks[-1]
        from core import reference
        w = (leader + reference.trick_winner(plays, s.trump, r)) % players
        assert res.kitty_to_opponents == (w not in side)
        units = reference.decompose(plays[0], s.trump, r)
        biggest = max(u.width * u.length for u in units)
        assert res.kitty_multiplier == kitty_multiplier(r, len(plays[0]), biggest, len(plays[0]))
        assert res.kitty_points == points(s.kitty)
        assert res.opponents_points == expected_opponents(s)
        sc = score_deal(r, res.opponents_points, len(side))
        assert (res.winner, res.game_points, res.next_side) == tuple(sc)
        ret = s.returns()
        if sc.winner is None:
            assert ret == [0] * players and s.winners() == frozenset()
        else:
            win = side if sc.winner == "maker" else frozenset(range(players)) - side
            assert s.winners() == win
            assert ret == [sc.game_points if x in win else -sc.game_points for x in range(players)]
        seen.add(sc.winner)
    assert "maker" in seen and "opponents" in seen


# --------------------------------------------------------------------------
# views
# --------------------------------------------------------------------------

def _replay(rules, deck, history):
    s = State(rules, decks=[deck])
    for seat, a in history:
        assert s.current_player() == seat
        s.apply(a)
    return s


def _public(s):
    return (s.trump, s.maker, s.exposures, s.tricks, s.failed_throws, s.current_trick(),
            s.redeals, s.calls)


def _mid_play(seed=2, plays=31):
    r = Rules.preset("pagat", players=6)
    s = State(r, seed=seed)
    rng = random.Random(seed)
    while s.phase != PLAY_PHASE or len(s.play.played()) < plays:
        s.apply(s.random_legal_action(rng))
    assert s.redeals == 0 and not s.is_terminal()
    return r, s


def _deck_positions(s, seat):
    n = s.rules.players
    return [i for i in range(n * s.rules.hand_size) if i % n == (seat - s.starter) % n]


def test_view_key_is_stable():
    r, s = _mid_play()
    for k in range(6):
        v = s.view(k)
        assert str(v) == str(s.view(k)) == str(s.clone().view(k))
        assert json.loads(str(v)) == json.loads(json.dumps(v.to_json()))
        assert str(v) == json.dumps(json.loads(str(v)), sort_keys=True, separators=(",", ":"))
        assert v.hand == s.hand(k)
    # the views of different seats differ (at least by the seat and the hand)
    assert len({str(s.view(k)) for k in range(6)}) == 6


def test_view_hides_other_hands_and_shows_own():
    r, s = _mid_play()
    viewer = s.current_player()
    key = str(s.view(viewer))
    others = [k for k in range(6) if k != viewer and k != s.maker]
    a, b = others[0], others[1]
    swapped = own_changed = 0
    d = s.decks[0]
    # swap two different cards still held by two other seats: the viewer cannot tell
    for i in _deck_positions(s, a):
        for j in _deck_positions(s, b):
            if d[i] == d[j] or d[i] % 13 == 0 or d[j] % 13 == 0:       # keep the twos (trump making)
                continue
            if d[i] not in s.hand(a) or d[j] not in s.hand(b):
                continue
            d2 = list(d)
            d2[i], d2[j] = d2[j], d2[i]
            try:
                t = _replay(r, d2, s.history)
            except (IllegalActionError, AssertionError):
                continue          # the swap changed what could be played: not the same knowledge
            if _public(t) != _public(s):
                continue
            assert t.hand(a) != s.hand(a)
            assert str(t.view(viewer)) == key, (card_name(d[i]), card_name(d[j]))
            assert str(t.view(a)) != str(s.view(a))
            swapped += 1
    assert swapped >= 5
    # swap a card of the viewer's own hand with one of another seat: the view changes
    for i in _deck_positions(s, viewer):
        for j in _deck_positions(s, a):
            if d[i] == d[j] or d[i] % 13 == 0 or d[j] % 13 == 0:
                continue
            if d[i] not in s.hand(viewer) or d[j] not in s.hand(a):
                continue
            d2 = list(d)
            d2[i], d2[j] = d2[j], d2[i]
            try:
                t = _replay(r, d2, s.history)
            except (IllegalActionError, AssertionError):
                continue
            if _public(t) != _public(s):
                continue
            assert str(t.view(viewer)) != key
            assert t.view(viewer).hand != s.view(viewer).hand
            own_changed += 1
    assert own_changed >= 5


def test_view_during_the_draw_hides_undrawn_cards():
    d = build_deck(P5, {1: "2H", 3: "4S 2S 2S"}, late_ranks=(2,))
    s = State(P5, decks=[d])
    assert decision_key(s) == (2, 1)
    v = s.view(1)
    # the others are not told who is deciding (it would show that seat 1 holds a level card)
    for k in (0, 2, 3, 4):
        assert s.view(k).current_player != 1
    assert v.hand == parse_cards(card_name(d[1]))
    assert v.cards_drawn == 2 and v.hand_sizes == (1, 1, 0, 0, 0)
    assert v.kitty is None and v.trump is None
    # the cards still to come (another seat's or one's own) do not show
    d2 = list(d)
    d2[2], d2[40] = d2[40], d2[2]
    t = State(P5, decks=[d2])
    assert str(t.view(1)) == str(v)
