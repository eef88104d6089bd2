"""Random whole deals through the deal engine, every step checked.

For each preset (200 seeded deals each; ``heli`` and ``stack`` half of them
with a predetermined maker and random levels, ``pagat`` and ``thirteen`` some
with passive players) and for ``pagat`` at every table size, a random legal
action is applied until the deal is over, and at *every* step:

- cards are conserved: hands + undrawn cards (draw) or buried cards (bury) or
  kitty + played cards (later) are exactly the deck of the deal, and the played
  cards are exactly the cards of the recorded tricks;
- card points are conserved: points won by seats + points in the trick in
  progress + points in hands + kitty points = 100 per pack; at the end the
  hands are empty, unless a failed throw stopped the play (``failed_throw``
  ``end_deal``), and then the points left in them are the engine's count;
- the random action is legal (``action_error`` is None, ``in legal_actions()``)
  and, where the enumeration is small (at most 200 actions), is one of the
  enumerated actions, which are all distinct and all accepted by ``in``, and
  whose notation is exactly what ``legal_actions().texts()`` lists;
- views: ``view.hand`` is the seat's hand, the kitty shows only to its burier
  (the maker, or the seat that took it last under ``kitty_theft``; to everyone
  once the opponents take it), the inferred voids and missing
  sets are true of the hidden hands;
- once per deal (every other deal), privacy by counterfactual: two cards the
  current player cannot see (another seat's cards, undrawn cards, the kitty
  unless it is the maker's) are swapped in the deck and the deal is replayed
  with the same actions; when the public record comes out the same, the
  current player's view key must be identical;
- at the end, the deal's JSON-lines record replays through every check to
  the same view key at every step and the same result.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter

import pytest

from core import kernel, reference
from core.cards import points
from core.errors import IllegalActionError, PengyouError, RulesError
from core.levels import PlayerLevel
from core.records import deal_record, replay_deal
from core.actions import Action
from core.cards import Cards
from core.rules import Rules
from core.state import BURY_PHASE, DONE, DRAW, MAX_REDEALS, PLAY_PHASE, State, seed_decks

DEALS = 200
ENUM_LIMIT = 200

VIEW_FIELDS = {
    "seat", "rules_name", "players", "phase", "current_player", "hand", "hand_sizes", "levels",
    "starter", "cards_drawn", "exposures", "trump", "maker", "kitty", "calls", "calls_filled",
    "tricks", "current_trick", "failed_throws", "throw_stoppers", "points", "voids", "no_sets",
}


def _levels(rules: Rules, rng: random.Random, passive: bool):
    top = 29 if rules.joker_level else 14
    out = []
    for _ in range(rules.players):
        active = True if rules.levels == "plain" else (rng.random() < 0.6 if passive else True)
        out.append(PlayerLevel(rng.randint(2, top), active))
    return out


def _new_state(rules: Rules, seed: int) -> dict:
    """Constructor arguments of the deal ``seed``."""
    rng = random.Random(10_000 + seed)
    n = rules.players
    if rules.exposure in ("heli", "stack") and seed % 2:
        return dict(seed=seed, levels=_levels(rules, rng, False), starter=seed % n,
                    maker=rng.randrange(n))
    if seed % 3 == 0:
        return dict(seed=seed, levels=_levels(rules, rng, True), starter=seed % n)
    return dict(seed=seed, starter=seed % n)


def _seat_of(s: State, i: int) -> int:
    """The seat that draws deck position ``i`` (-1 for the kitty)."""
    n = s.rules.players
    if i >= n * s.rules.hand_size:
        return -1
    return (s.starter + i) % n


class _Tracker:
    """Running totals of the completed tricks (so each step costs little),
    and the current player's view of this step."""

    def __init__(self) -> None:
        self.view = None
        self.tricks = 0
        self.cards: Counter = Counter()
        self.points = 0

    def update(self, s: State) -> None:
        for _, plays in s.tricks[self.tricks:]:
            for p in plays:
                self.cards.update(p)
                self.points += points(p)
        self.tricks = len(s.tricks)


def _check_cards_and_points(s: State, tr: _Tracker, hands: list) -> None:
    r = s.rules
    n = r.players
    deck = s.decks[-1]
    held = Counter()
    for h in hands:
        held.update(h)
    if s.phase == DRAW:
        drawn = tr.view.cards_drawn
        assert sum(map(len, hands)) == drawn
        seat = (s.starter + drawn - 1) % n           # the last drawer holds what it drew
        mine = sorted(deck[i] for i in range((drawn - 1) % n, drawn, n))
        assert list(hands[seat]) == mine, f"seat {seat}'s hand is not what it drew"
        held.update(deck[drawn:])
    elif s.phase == BURY_PHASE:
        held.update(tr.view.kitty)            # the maker is to bury: its view
    else:
        held.update(s.kitty)
        assert len(s.kitty) == r.kitty_size
    if s.phase in (PLAY_PHASE, DONE):
        played = Counter(s.play.played())
        held.update(played)
        tr.update(s)
        leader, current = s.current_trick()
        in_tricks = Counter(tr.cards)
        for p in current:
            in_tricks.update(p)
        assert in_tricks == played, "the recorded tricks are not the played cards"
        assert sum(s.play.points) == tr.points
        on_table = sum(points(p) for p in current)
        in_hands = sum(points(h) for h in hands)
        assert sum(s.play.points) + on_table + in_hands + points(s.kitty) == r.total_points
        if s.phase == DONE:
            # failed_throw end_deal: a failed throw may have stopped the play with cards in hands
            left = s.play.left_points
            assert sum(s.play.points) + points(s.kitty) + left == r.total_points and not current
            if s.play.ended:
                assert left == in_hands and s.failed_throws and r.failed_throw == "end_deal"
            else:
                assert left == 0 and all(len(h) == 0 for h in hands)
    assert held == Counter(deck), "cards not conserved"


def _check_views(s: State, tr: _Tracker, hands: list, rng: random.Random, full: bool) -> None:
    n = s.rules.players
    views = [tr.view]
    if full:
        views.append(s.view(rng.randrange(n)))
    res = s.result
    for v in views:
        seat = v.seat
        assert v.hand == hands[seat]
        if full:
            d = v.to_json()
            assert VIEW_FIELDS <= set(d)
            assert d["hand"] == str(hands[seat])
        shows_kitty = (seat == s.burier and s.phase != DRAW) or (
            s.phase == DONE and res is not None and res.kitty_to_opponents)
        if not shows_kitty:
            assert v.kitty is None, f"seat {seat} sees the kitty"
        if s.phase == DRAW:
            assert v.trump is None and v.maker is None
    # the inferences shown in every view must be true of the hidden hands
    if s.phase in (PLAY_PHASE, DONE):
        ctx_suit = kernel.context(s.trump, s.rules.tractor_past_ace).effective_suit
        for seat, e in s.voids:
            assert not any(ctx_suit(f) == e for f in hands[seat]), (seat, e)
        for seat, e, k in s.no_sets:
            c = Counter(f for f in hands[seat] if ctx_suit(f) == e)
            assert all(x < k for x in c.values()), (seat, e, k)


def _check_actions(s: State, a, rng: random.Random, stats: Counter) -> None:
    err = s.action_error(a)
    assert err is None, f"random action {a} refused: {err}"
    if s.rules.rainbow and s.phase == PLAY_PHASE and s.play.is_leading:
        stats["rainbows"] += kernel.make_lead(a.cards, s.trump, s.rules).is_rainbow
    legal = s.legal_actions()
    assert a in legal
    acts = list(itertools.islice(iter(legal), ENUM_LIMIT + 1))
    if len(acts) <= ENUM_LIMIT:
        stats["enumerated"] += 1
        assert len(set(acts)) == len(acts), "an action is listed twice"
        assert a in set(acts), f"random action {a} is not among the {len(acts)} enumerated"
        for b in acts:
            assert b in legal, f"enumerated {b} refused: {s.action_error(b)}"
        # the notation list a referee sends is the same actions, in the same order
        assert list(legal.texts()) == [str(b) for b in acts]
    # a follow is also legal for the naive reference (sampled: it is slow), and a lead passes its lead rule
    if s.phase == PLAY_PHASE and not s.play.is_leading and rng.random() < 0.05:
        lead = s.current_trick()[1][0]
        hand = s.hand(s.current_player())
        assert reference.is_legal_follow(hand, lead, a.cards, s.trump, s.rules)
        stats["reference"] += 1
    elif s.phase == PLAY_PHASE and s.play.is_leading and rng.random() < 0.2:
        hand = s.hand(s.current_player())
        assert reference.lead_rule(a.cards, hand, s.play.played(), s.trump, s.rules) == 0, a
        stats["reference leads"] += 1
        if s.rules.throw_counts == "equal" and len(kernel.decompose(a.cards, s.trump, s.rules)) >= 2:
            stats["equal throws"] += 1


def _public(s: State):
    """What every seat is told: with ``throw_stopper`` ``shown`` that includes
    who stopped each failed throw, which the hidden cards decide."""
    shown = s.throw_stoppers if s.rules.throw_stopper == "shown" else None
    return (s.phase, s.current_player(), s.trump, s.maker, s.redeals, s.levels, s.exposures,
            s.calls, s.tricks, s.failed_throws, shown, s.current_trick(),
            s.view(0).cards_drawn)


def _replay(s: State, args: dict, deck: list[int]) -> State:
    t = State(s.rules, **{**args, "decks": s.decks[:-1] + [deck]})
    for seat, a in s.history:
        if t.current_player() != seat:
            raise IllegalActionError("the decisions came in another order")
        t.apply(a)
    return t


def _privacy_probe(s: State, args: dict, rng: random.Random, stats: Counter) -> None:
    """Swap two cards the current player cannot see; replay; same public record => same view."""
    viewer = s.current_player()
    deck = s.decks[-1]
    sees_kitty = viewer == s.maker and s.phase != DRAW
    hidden = [i for i in range(len(deck))
              if _seat_of(s, i) != viewer and not (_seat_of(s, i) == -1 and sees_kitty)]
    key = str(s.view(viewer))
    pub = _public(s)
    for _ in range(12):
        i, j = rng.sample(hidden, 2)
        if deck[i] == deck[j] or _seat_of(s, i) == _seat_of(s, j):
            continue
        d2 = list(deck)
        d2[i], d2[j] = d2[j], d2[i]
        stats["probe_tries"] += 1
        try:
            t = _replay(s, args, d2)
        except PengyouError:          # illegal now, or the draw went another way
            continue
        if _public(t) != pub:
            continue
        stats["probes"] += 1
        assert str(t.view(viewer)) == key, (
            f"seat {viewer}'s view changed when hidden cards at deck positions {i} and {j} "
            f"(seats {_seat_of(s, i)} and {_seat_of(s, j)}) were swapped")
        return


def _run(rules: Rules, seeds, stats: Counter, choose=None, stack=None) -> None:
    """Whole deals of ``seeds``, every check above at every step; ``choose(state, rng)`` picks the
    actions (default: the state's random legal action); ``stack(rules, args)`` may give the deal's
    constructor arguments decks of its own."""
    for seed in seeds:
        args = _new_state(rules, seed)
        if stack is not None:
            args = stack(rules, args)
        s = State(rules, **args)
        tr = _Tracker()
        rng = random.Random(seed)
        probe_at = rng.randrange(120) if seed % 2 == 0 else -1
        step = 0
        keys = []
        while True:
            hands = [s.hand(i) for i in range(rules.players)]
            tr.view = s.view(max(s.current_player(), 0))
            keys.append(str(tr.view))
            _check_cards_and_points(s, tr, hands)
            _check_views(s, tr, hands, rng, step % 4 == 0 or s.is_terminal())
            if s.is_terminal():
                break
            if step == probe_at:
                _privacy_probe(s, args, rng, stats)
            a = choose(s, rng) if choose is not None else s.random_legal_action(rng)
            _check_actions(s, a, rng, stats)
            s.apply(a)
            step += 1
            stats["steps"] += 1
        res = s.result
        assert res is not None and s.current_player() == -1
        # the record replays to the same states (same views at every step) and result
        replayed: list[str] = []

        def observe(t: State, replayed: list[str] = replayed) -> None:
            replayed.append(str(t.view(max(t.current_player(), 0))))

        again = replay_deal(json.loads(json.dumps(deal_record(s))), observer=observe)
        assert replayed == keys and again.result == res
        assert list(s.legal_actions()) == []
        with pytest.raises(IllegalActionError):
            s.random_legal_action(rng)
        stats["deals"] += 1
        stats["ended"] += s.play is not None and s.play.ended
        stats["steals"] += sum(1 for _, kind, _ in s.exposures if kind == "steal")
        if rules.bombs != "none":
            stats["bombs"] += sum(1 for _, ps in s.tricks for p in ps[1:] if len(p) >= 4 and len(set(p)) == 1)
            stats["bomb_wins"] += sum(1 for _, ps in s.tricks if len(ps[0]) >= 4
                                      and len(set(ps[kernel.trick_winner(ps, s.trump, rules)])) == 1)


def _assert_coverage(stats: Counter, deals: int) -> None:
    assert stats["deals"] == deals
    assert stats["enumerated"] > stats["steps"] // 3
    assert stats["reference"] > 0
    assert stats["probes"] >= deals // 6, dict(stats)


@pytest.mark.parametrize("preset", ["pagat", "heli", "thirteen", "bottom-eight", "stack", "tractor",
                                    "shengji-online"])
def test_random_deals_per_preset(preset):
    rules = Rules.preset(preset)
    stats: Counter = Counter()
    _run(rules, range(DEALS), stats)
    _assert_coverage(stats, DEALS)


@pytest.mark.parametrize("players", range(5, 13))
def test_random_pagat_deals_every_table_size(players):
    rules = Rules.preset("pagat", players=players)
    stats: Counter = Counter()
    deals = DEALS // 8
    _run(rules, range(1000, 1000 + deals), stats)
    _assert_coverage(stats, deals)


#: Deal shapes of more than four packs (no preset has one): the shape set explicitly.
WIDE_TABLES = [
    dict(players=10, packs=5, red_jokers=5, black_jokers=5, hand_size=25, kitty_size=20, friend_calls=3),
    dict(players=12, packs=6, red_jokers=6, black_jokers=6, hand_size=26, kitty_size=12, friend_calls=4),
    dict(players=6, packs=5, red_jokers=2, black_jokers=2, hand_size=40, kitty_size=24, friend_calls=2,
         follow_ladder=True, tractor_min_width=3),
    dict(players=8, packs=6, red_jokers=3, black_jokers=3, hand_size=38, kitty_size=14, friend_calls=3,
         protect_longer_sets=True, throw_check="safe"),
    # long hands of five packs: rainbows (all four suits of a rank) are common
    dict(players=5, packs=5, red_jokers=5, black_jokers=5, hand_size=50, kitty_size=20, friend_calls=2,
         rainbow=True),
]


@pytest.mark.parametrize("shape", range(len(WIDE_TABLES)))
def test_random_deals_with_five_and_six_packs(shape):
    """Every check above on whole deals of five and six packs (sets of five and six copies)."""
    rules = Rules(**WIDE_TABLES[shape])
    stats: Counter = Counter()
    deals = DEALS // 8
    _run(rules, range(3000, 3000 + deals), stats)
    _assert_coverage(stats, deals)
    if rules.rainbow:
        assert stats["rainbows"] >= deals, dict(stats)


#: The house-rule settings and their values; each deal below draws one of each.
HOUSE = {
    "bands_above_top": ("capped", "open"),
    "call_points": (True, False),
    "call_trumps": (False, True),
    "call_by_side": ("counts", "skipped"),
    "joker_bids": ("none", "pairs"),
    "call_highest": (True, False),
    "self_overcall": ("none", "reinforce", "any"),
    "maker_by": ("standing", "first"),
    "no_declaration": ("redeal", "kitty"),
    "kitty_suit": ("level_or_highest", "first_card", "top_card"),
    "follow_ladder": (False, True),
    "protect_longer_sets": (False, True),
    "tractor_past_ace": (False, True),
    "band_step": (20, 10, 25),
    "dead_zone": (1, 0, 2),
    "short_side_multiplier": (True, False),
    "short_side_bonus": (False, True),
    "jack_reset": (False, True),
    "kitty_multiplier": ("double", "unit_double", "pairs_power"),
    "throw_penalty_per": ("card", "attempt"),
    "failed_throw": ("withdraw", "end_deal"),
    "throw_winner": ("largest", "highest", "all", "longest"),
    "throw_stopper": ("hidden", "shown"),
    "bombs": ("none", "any_suit", "follow_suit"),
    "follow_format": ("shape", "count"),
    "set_reading": ("counting", "genuine"),
    "ladder": ("subset", "cards", "decompose"),
    "tractor_owed": ("always", "lone"),
    "shorter_tractor": ("owed", "free"),
    "trump_throws": (True, False),
    "tractor_min_width": (2, 3),
    "tractor_min_length": (2, 3),
    "throw_check": ("others_hands", "safe"),
    "throw_counts": ("free", "equal"),
    "rainbow": (False, True),
    "kitty_theft": (False, True),
    "exposure_defence": (True, False),
}
HOUSE_DEALS = 500


def _house_settings(rng: random.Random) -> dict[str, object]:
    """One value of each house-rule setting, drawn independently; then a
    follow setting the others leave without meaning goes back to its default
    (the rules refuse it: ``core.rules._NEEDS``)."""
    s = {k: rng.choice(v) for k, v in HOUSE.items()}
    if s["follow_ladder"] or s["protect_longer_sets"]:
        s["follow_format"] = "shape"
    if not s["protect_longer_sets"]:
        s["set_reading"] = "counting"
    if not s["follow_ladder"]:
        s.update(ladder="subset", tractor_owed="always", shorter_tractor="owed")
    if s["ladder"] == "decompose":
        s.update(protect_longer_sets=False, set_reading="counting", tractor_owed="always", shorter_tractor="owed")
    return s


def _house_rules(rng: random.Random, preset: str, players: int) -> Rules:
    """A random combination of :data:`HOUSE` on a preset (:func:`_house_settings`);
    one that still contradicts itself or the preset (a scoring setting the
    pagat table lacks, two short-side rules) is drawn again."""
    while True:
        try:
            return Rules.preset(preset, players=players, **_house_settings(rng))
        except RulesError:
            continue


def test_random_deals_under_random_house_rules():
    """Every check above on 500 deals, each under its own random combination of
    the house-rule settings, on a random preset and table size (``tractor`` too)."""
    rng = random.Random(2026)
    tables = [("pagat", n) for n in range(5, 13)] + [("heli", 6), ("thirteen", 7), ("bottom-eight", 5),
                                                     ("stack", 6), ("tractor", 4), ("shengji-online", 7)]
    stats: Counter = Counter()
    for i in range(HOUSE_DEALS):
        preset, players = rng.choice(tables)
        _run(_house_rules(rng, preset, players), [7_000 + i], stats)
    _assert_coverage(stats, HOUSE_DEALS)
    assert stats["rainbows"] > 0, "no rainbow was led (rainbow)"
    assert stats["steals"] > 0, "no deal had its kitty taken (kitty_theft)"
    assert stats["reference leads"] > 0 and stats["equal throws"] > 0, "no throw led under throw_counts equal"
    assert stats["ended"] > 0, "no failed throw ended a deal (failed_throw)"


def _bomb_minded(s: State, rng: random.Random) -> Action:
    """A random legal action, except in the play: half the leads are four of a card held, else the four
    highest cards of a suit (where the lead rules allow them), and a follow to four or more cards plays a bomb whenever the hand may (random
    leads are rarely long enough to be answered by one)."""
    if s.phase == PLAY_PHASE:
        hand = s.hand(s.current_player())
        trick = s.current_trick()[1]
        ctx = kernel.context(s.trump, s.rules.tractor_past_ace)
        if not trick and rng.random() < 0.5:
            quads = [f for f in sorted(set(hand)) if hand.count(f) >= 4]
            if quads:
                return Action.play(Cards([rng.choice(quads)] * 4))
            by_suit: dict[int, list[int]] = {}
            for f in hand:
                by_suit.setdefault(ctx.effective_suit(f), []).append(f)
            long = [sorted(c, key=ctx.level) for c in by_suit.values() if len(c) >= 4]
            if long:
                lead = Action.play(Cards(sorted(rng.choice(long)[-4:])))
                if s.action_error(lead) is None:        # a throw the lead rules allow (throw_counts and the others)
                    return lead
        elif trick and len(trick[0]) >= 4:
            n = len(trick[0])
            for f in sorted(set(hand)):
                if hand.count(f) >= n and kernel.is_legal_follow(hand, trick[0], Cards([f] * n), s.trump, s.rules):
                    return Action.play(Cards([f] * n))
    return s.random_legal_action(rng)


BOMB_DEALS = 40


def _stack_quads(rules: Rules, args: dict) -> dict:
    """The deal's own decks (every redeal's), each rearranged so that half the seats are dealt four copies
    of one card: with twelve hands of 17 from four packs a seat holds four of a card about once in six
    hundred deals, so random deals alone would hardly ever show a bomb."""
    rng = random.Random(args["seed"])
    n, size = rules.players, rules.hand_size
    decks = []
    for deck in seed_decks(rules, args["seed"], MAX_REDEALS + 1):
        locked: set[int] = set()
        faces = rng.sample(range(52), n // 2)
        for seat, f in zip(rng.sample(range(n), n // 2), faces):
            mine = [i for i in range(n * size) if (args["starter"] + i) % n == seat and i not in locked]
            where = [i for i, g in enumerate(deck) if g == f][:4]
            for i in where:
                if i in mine:
                    mine.remove(i)
                    locked.add(i)
            for i in where:
                if i not in locked:
                    j = next(j for j in mine if deck[j] not in faces)
                    mine.remove(j)
                    deck[i], deck[j] = deck[j], deck[i]
                    locked.add(j)
        decks.append(deck)
    return {**args, "decks": decks}


def test_random_deals_with_bombs():
    """Every check above on whole deals at twelve seats (four packs, so four of a card exist), each under a
    random combination of :data:`HOUSE` with ``bombs`` on, played by :func:`_bomb_minded`: bombs are played
    (and win tricks), and what a bomb shows (no void when a seat holding the suit may play it) holds."""
    rng = random.Random(4040)
    stats: Counter = Counter()
    for i in range(BOMB_DEALS):
        rules = _house_rules(rng, "pagat", 12)
        while rules.bombs == "none":
            rules = _house_rules(rng, "pagat", 12)
        _run(rules, [9_000 + i], stats, _bomb_minded, _stack_quads)
    assert stats["deals"] == BOMB_DEALS
    assert stats["bombs"] > BOMB_DEALS // 4, dict(stats)
    assert stats["bomb_wins"] > BOMB_DEALS // 8, dict(stats)
