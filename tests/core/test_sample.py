"""The determinization sampler (``core/sample.py``).

Views come from seeded random deals (random legal actions, stopped at random
points of the play and bury phases, and of the draw, call and end). Every
sampled world must agree with its view:

- state-like checks: the viewer's hand, every hand size, the kitty (or undealt
  stock) size, the unseen cards conserved, voids and no-set facts respected,
  shown cards still held (the maker may have buried them), cards taken back
  from a failed throw still held unless played;
- the strongest check: a state rebuilt from the world (the same public
  history replayed on the sampled hands) gives the viewer exactly the view it
  had. This covers every follow being legal and every throw ending the same.

The marginals against plain rejection sampling are in ``test_sample_marginals``, the
deal engine on its own in ``test_dealing``, ``Sampler.agrees`` in ``test_sample_agrees``.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest

from core import kernel
from core.play import PlayCore
from core.cards import Cards, parse_cards
from core.errors import PengyouError
from core.rules import Rules
from core.sample import Sampler, SamplingError, World, sample_world
from core.state import BURY_PHASE, CALL_PHASE, DONE, DRAW, PLAY_PHASE, STEAL_PHASE, State
from test_state_random import _bomb_minded, _new_state, _stack_quads


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------

def play_until(rules, seed, rng, phase, at, maker=None):
    """Random legal actions from deal ``seed`` until ``at`` decisions of
    ``phase`` were made (or the deal ends). Returns the state and ``start``:
    a copy of the state when the play phase began, with the history length."""
    s = State(rules, seed=seed, maker=maker)
    start = None
    done = 0
    while not s.is_terminal():
        if s.phase == PLAY_PHASE and start is None:
            start = (s.clone(), len(s.history))
        if s.phase == phase:
            if done >= at:
                break
            done += 1
        s.apply(s.random_legal_action(rng))
    return s, start


def public_plays(view):
    """(seat, cards) of every card play the view shows, in order."""
    n = view.players
    out = []
    for ld, ps in list(view.tricks) + [view.current_trick]:
        for j, p in enumerate(ps):
            out.append(((ld + j) % n, parse_cards(p)))
    return out


def unseen_cards(view) -> Counter:
    c = Counter(view.rules.deck())
    c.subtract(view.hand)
    if view.kitty is not None:
        c.subtract(view.kitty)
    for _, p in public_plays(view):
        c.subtract(p)
    assert min(c.values()) >= 0
    return +c


def shown_left(view) -> dict:
    """seat -> cards it showed in the draw and has not played since."""
    played = [Counter() for _ in range(view.players)]
    for s, p in public_plays(view):
        played[s].update(p)
    shown: dict = {}
    for s, _, text in view.exposures:
        m = shown.setdefault(s, Counter())
        for f, c in Counter(parse_cards(text)).items():
            m[f] = max(m[f], c)
    return {s: +Counter({f: c - played[s][f] for f, c in m.items()}) for s, m in shown.items()}


def holds_shown(view, hands, kitty) -> bool:
    """Every card shown and not played since is in the shower's hand (or,
    for the maker while the viewer does not know the kitty, in the kitty)."""
    return shown_checker(view)(hands, kitty)


def shown_checker(view):
    # a kitty taken (kitty_theft) moved buried cards between hands: the maker's and takers' shows prove nothing
    moved = {s for s, kind, _ in view.exposures if kind == "steal"}
    if moved:
        moved.add(view.maker)
    needs = [(s, need) for s, need in shown_left(view).items() if s != view.seat and need and s not in moved]
    maker_too = view.phase != "draw"

    def ok(hands, kitty) -> bool:
        for s, need in needs:
            have = Counter(hands[s])
            if s == view.burier and maker_too:
                have.update(f for f in kitty if f in need)
            if any(have[f] < c for f, c in need.items()):
                return False
        return True

    return ok


def rebuild(state, start, seat, world):
    """A state with the world's hidden cards and the same public history."""
    n = state.rules.players
    if state.phase in (PLAY_PHASE, DONE):
        base, k = start
        s = base.clone()
        hands = [list(world.hands[i]) for i in range(n)]
        for who, p in public_plays(state.view(seat)):
            hands[who].extend(p)
        s.play = PlayCore.start(state.rules, state.trump, state.maker, [Cards(h) for h in hands], state.calls)
        if state.burier != seat:
            s.kitty = world.kitty
        for _, action in state.history[k:]:
            s.apply(action, check=True)
        return s
    s = state.clone()
    for i in range(n):
        s._hands[i] = world.hands[i].counts()
    if state.phase == BURY_PHASE:
        s._buried = list(world.kitty)
    elif state.phase == STEAL_PHASE:
        s.kitty, s._buried = world.kitty, list(world.kitty)
    elif state.phase == CALL_PHASE:
        s.kitty = world.kitty
    return s


def check_world(view, world, state, start):
    """Every check of the module docstring (raises AssertionError)."""
    rules = view.rules
    n = view.players
    me = view.seat
    assert isinstance(world, World)
    assert world.hands[me] == view.hand
    assert [len(h) for h in world.hands] == list(view.hand_sizes)
    for h in world.hands:
        assert isinstance(h, Cards) and list(h) == sorted(h)
    total = len(rules.deck())
    played = sum(len(p) for _, p in public_plays(view))
    rest = total - sum(view.hand_sizes) - played
    if view.phase == "draw":
        assert world.kitty == Cards() and len(world.stock) == rest
        assert len(world.stock) == total - view.cards_drawn
    else:
        assert world.stock == Cards()
        if view.kitty is not None:
            assert world.kitty == view.kitty
        else:
            assert len(world.kitty) == rest
            if view.phase in ("call", "play"):
                assert len(world.kitty) == rules.kitty_size
    hidden = Counter()
    for s in range(n):
        if s != me:
            hidden.update(world.hands[s])
    if view.kitty is None:
        hidden.update(world.kitty)
        hidden.update(world.stock)
    assert hidden == unseen_cards(view)
    if view.trump is not None:
        ctx = kernel.context(view.trump, rules.tractor_past_ace)
        for s, e in view.voids:
            assert not any(ctx.effective_suit(f) == e for f in world.hands[s]), (s, e)
        for s, e, k in view.no_sets:
            counts = Counter(f for f in world.hands[s] if ctx.effective_suit(f) == e)
            assert all(c < k for c in counts.values()), (s, e, k)
    assert holds_shown(view, world.hands, world.kitty)
    mine = [Counter() for _ in range(n)]
    for s, p in public_plays(view):
        mine[s].update(p)
    for s, attempt, kept in view.failed_throws:
        back = Counter(parse_cards(attempt)) - Counter(parse_cards(kept))
        have = Counter(world.hands[s]) + mine[s]
        assert all(have[f] >= c for f, c in back.items()), (s, attempt, kept)
    # the strongest check: the rebuilt state shows this seat the same view
    try:
        again = rebuild(state, start, me, world).view(me)
    except PengyouError as e:
        raise AssertionError(f"the public history does not replay on the sampled hands: {e}") from None
    assert again == view


# --------------------------------------------------------------------------
# every sampled world agrees with its view
# --------------------------------------------------------------------------

CONFIGS = [
    ("pagat", 5, {}, 8, None),
    ("pagat", 6, {}, 8, None),
    ("pagat", 8, {}, 4, None),
    ("pagat", 12, {}, 1, None),
    ("pagat", 6, {"follow_ladder": True}, 4, None),
    ("pagat", 7, {"protect_longer_sets": True, "follow_ladder": True}, 4, None),
    ("pagat", 6, {"failed_throw_unit": "first_found"}, 4, None),
    ("pagat", 6, {"follow_format": "count"}, 4, None),
    ("pagat", 8, {"follow_ladder": True, "protect_longer_sets": True, "set_reading": "genuine",
                  "ladder": "cards", "tractor_owed": "lone", "shorter_tractor": "free"}, 3, None),
    ("pagat", 9, {"tractor_past_ace": True}, 3, None),
    ("heli", 6, {}, 4, "fixed"),
    ("bottom-eight", 5, {}, 4, None),
    ("stack", 6, {}, 3, "fixed"),
    ("shengji-online", 10, {}, 1, None),
    ("shengji-online", 12, {}, 1, None),
]


@pytest.mark.parametrize("phase", [PLAY_PHASE, BURY_PHASE], ids=["play", "bury"])
@pytest.mark.parametrize("preset,players,overrides,seeds,maker", CONFIGS,
                         ids=[f"{c[0]}-{c[1]}{'-' + '-'.join(c[2]) if c[2] else ''}" for c in CONFIGS])
def test_sampled_worlds_agree_with_the_view(preset, players, overrides, seeds, maker, phase):
    rules = Rules.preset(preset, players=players, **overrides)
    rng = random.Random(players * 1000 + phase)
    # decisions to make in the phase before stopping (a play phase has at
    # least hand_size / 2 tricks' worth of plays: leads are mostly short)
    length = rules.players * rules.hand_size // 2 if phase == PLAY_PHASE else rules.kitty_size
    checked = 0
    for seed in range(seeds):
        state, start = play_until(rules, seed, rng, phase, rng.randrange(length),
                                  maker=(seed % players if maker else None))
        if state.phase != phase:
            continue
        for seat in range(players):
            view = state.view(seat)
            sampler = Sampler(view)
            for _ in range(3):
                check_world(view, sampler.sample(rng), state, start)
                checked += 1
    assert checked >= 3 * players


@pytest.mark.parametrize("preset,players", [("shengji-online", 12), ("pagat", 12), ("pagat", 10)])
def test_sequential_deal_where_the_table_is_too_big(monkeypatch, preset, players):
    """Where the counting table is too big even with every exclusion demoted
    (twelve seats with six packs late in a deal, about one view in a hundred
    past the eighth trick), the sequential deal takes over. Here the budget
    is cut so that it takes over on ordinary views: its worlds still agree
    with the view (every check of check_world), and they are not all alike."""
    import core.dealing
    monkeypatch.setattr(core.dealing.Deal, "BUDGET", 3)
    rules = Rules.preset(preset, players=players)
    rng = random.Random(players)
    seen = 0
    for seed in range(4):
        state, start = play_until(rules, seed, rng, PLAY_PHASE, rules.players * rules.hand_size // 3)
        if state.phase != PLAY_PHASE:
            continue
        for seat in range(players):
            view = state.view(seat)
            sampler = Sampler(view)
            if not sampler.checks["sequential"]:
                continue
            worlds = [sampler.sample(rng) for _ in range(3)]
            for w in worlds:
                check_world(view, w, state, start)
            assert len({tuple(w.hands) for w in worlds}) > 1
            seen += 1
    assert seen >= players // 2


WALK_CONFIGS = [
    ("pagat", 6, {}), ("pagat", 8, {"follow_ladder": True, "protect_longer_sets": True}),
    ("heli", 6, {}), ("shengji-online", 12, {}), ("shengji-online", 9, {"throw_stopper": "shown"}),
]


@pytest.mark.parametrize("preset,players,overrides", WALK_CONFIGS,
                         ids=[f"{c[0]}-{c[1]}{'-' + '-'.join(c[2]) if c[2] else ''}" for c in WALK_CONFIGS])
def test_walked_worlds_agree_with_the_view(monkeypatch, preset, players, overrides):
    """With fresh draws cut to none after the first world, every later sample
    is a step of the swap walk (``Sampler._walk``): its worlds pass every
    check of check_world, and the walk moves (the worlds are not all alike)."""
    monkeypatch.setattr(Sampler, "FRESH_TRIES", 0)
    rules = Rules.preset(preset, players=players, **overrides)
    rng = random.Random(players + 7)
    walked = 0
    for seed in range(3):
        state, start = play_until(rules, seed, rng, PLAY_PHASE, rng.randrange(rules.players * rules.hand_size // 2))
        if state.phase != PLAY_PHASE:
            continue
        for seat in range(0, players, 2):
            view = state.view(seat)
            sampler = Sampler(view)
            worlds = [sampler.sample(rng) for _ in range(4)]
            for w in worlds:
                check_world(view, w, state, start)
            assert sampler.walks == 3
            if sum(view.hand_sizes) - len(view.hand) > 2:
                assert len({tuple(w.hands) for w in worlds}) > 1
            walked += 3
    assert walked >= 3 * (players // 2)


def test_sampled_worlds_agree_with_the_view_after_a_kitty_theft():
    """Deals in which a kitty changed hands (``kitty_theft``), stopped while
    it is offered, while a taker buries and during the play: every seat's
    samples pass every check (the maker's and the takers' shown cards prove
    nothing once the kitty moved; the last burier knows the kitty)."""
    rules = Rules.preset("pagat", players=6, joker_bids="pairs", self_overcall="any", kitty_theft=True)
    rng = random.Random(6)
    stops = Counter()
    for seed in range(1500):
        s, r2 = State(rules, seed=seed), random.Random(seed)
        start, where = None, (STEAL_PHASE, BURY_PHASE, PLAY_PHASE)[seed % 3]
        while not s.is_terminal():
            stolen = any(kind == "steal" for _, kind, _c in s.exposures)
            if s.phase == PLAY_PHASE and start is None:
                start = (s.clone(), len(s.history))
            if s.phase == where == STEAL_PHASE or (stolen and s.phase == where and (
                    where == BURY_PHASE and len(s._buried) == 3 or where == PLAY_PHASE and len(s.tricks) == 3)):
                break
            s.apply(s.random_legal_action(r2))
        if s.is_terminal() or not any(kind == "steal" for _, kind, _c in s.exposures) and s.phase != STEAL_PHASE:
            continue
        stops[s.phase] += 1
        for seat in range(rules.players):
            view = s.view(seat)
            sampler = Sampler(view)
            for _ in range(2):
                check_world(view, sampler.sample(rng), s, start)
        if len(stops) == 3 and min(stops.values()) >= 2:
            break
    assert set(stops) == {STEAL_PHASE, BURY_PHASE, PLAY_PHASE}, stops


@pytest.mark.parametrize("overrides,kind", [
    ({}, "beats"), ({}, "follows"), ({"follow_ladder": True}, "follows"),
    ({"failed_throw_unit": "first_found"}, "throws"), ({"protect_longer_sets": True}, "follows"),
    ({"follow_ladder": True, "ladder": "cards", "tractor_owed": "lone", "shorter_tractor": "free"}, "follows"),
    ({"protect_longer_sets": True, "set_reading": "genuine"}, "follows"),
], ids=["beats", "follows", "ladder-follows", "first_found-throws", "protect-follows", "ladder-settings-follows",
        "genuine-follows"])
def test_facts_checked_per_sample_hold(overrides, kind):
    """Views whose sampler checks throws and follows on each sample (what no
    void or no-set fact states: someone could beat a failed throw, what a
    follow to a tractor or a throw implies): every world replays the same."""
    rules = Rules.preset("pagat", players=6, **overrides)
    deal_rng = random.Random(77)
    rng = random.Random(78)
    views = 0
    for seed in range(300):
        state, start = play_until(rules, seed, deal_rng, PLAY_PHASE, deal_rng.randrange(40, 100))
        for seat in range(6):
            view = state.view(seat)
            sampler = Sampler(view)
            if not sampler.checks[kind]:
                continue
            for _ in range(12):
                check_world(view, sampler.sample(rng), state, start)
            views += 1
        if views >= 16:
            break
    assert views >= 16


@pytest.mark.parametrize("preset,players", [("pagat", 6), ("bottom-eight", 5), ("pagat", 10)])
def test_draw_call_and_end_views(preset, players):
    rules = Rules.preset(preset, players=players)
    rng = random.Random(5)
    seen = set()
    for seed in range(4):
        for phase, at in ((DRAW, rng.randrange(3)), (CALL_PHASE, 0), (DONE, 0)):
            state, start = play_until(rules, seed, rng, phase, at)
            if state.phase != phase:
                continue
            seen.add(phase)
            for seat in range(players):
                view = state.view(seat)
                for _ in range(2):
                    check_world(view, sample_world(view, rng), state, start)
    assert seen == {DRAW, CALL_PHASE, DONE}


@pytest.mark.parametrize("preset", ["heli", "stack"])
def test_turned_up_kitty_cards_stay_with_the_maker(preset):
    """A predetermined maker and nobody exposing: the kitty cards turned for
    the trump suit are public, so every world puts each one not yet played in
    the maker's hand or the kitty."""
    from core.actions import Action

    rules = Rules.preset(preset, players=6)
    pass_ = Action.from_str("pass")
    checked = 0
    for seed in range(3):
        rng = random.Random(seed)
        s = State(rules, seed=seed, maker=1)
        start = None
        while not s.is_terminal():
            if s.phase == PLAY_PHASE and start is None:
                start = (s.clone(), len(s.history))
            if start is not None and len(s.history) >= start[1] + 10 + 7 * seed:
                break
            s.apply(pass_ if s.phase == DRAW and pass_ in s.legal_actions() else s.random_legal_action(rng))
        (maker, kind, text), = s.view(0).exposures
        assert (maker, kind) == (1, "turned")
        turned = Counter(parse_cards(text))
        for seat in (0, 2, 3, 4, 5):
            view = s.view(seat)
            played = Counter(f for who, p in public_plays(view) if who == maker for f in p)
            sampler = Sampler(view)
            for _ in range(20):
                world = sampler.sample(rng)
                have = Counter(world.hands[maker]) + Counter(world.kitty) + played
                assert all(have[f] >= c for f, c in turned.items()), (seed, seat, text)
                check_world(view, world, s, start)
                checked += 1
    assert checked == 3 * 5 * 20


def test_draw_phase_keeps_shown_cards_in_hand():
    """A seat that showed cards during the draw holds them in every world."""
    rules = Rules.preset("pagat", players=6)
    rng = random.Random(9)
    found = 0
    for seed in range(30):
        s = State(rules, seed=seed)
        while s.phase == DRAW and not s.exposures:
            s.apply(s.random_legal_action(rng))
        if s.phase != DRAW:
            continue
        shower, _, shown = s.exposures[0]
        seat = (shower + 1) % 6
        view = s.view(seat)
        for _ in range(20):
            w = sample_world(view, rng)
            assert all(f in w.hands[shower] for f in shown)
            check_world(view, w, s, None)
        found += 1
    assert found >= 3


def test_same_rng_same_world_and_counters():
    rules = Rules.preset("pagat", players=6)
    state, _ = play_until(rules, 3, random.Random(3), PLAY_PHASE, 40)
    view = state.view(1)
    a = [sample_world(view, random.Random(11)) for _ in range(2)]
    assert a[0] == a[1]
    sampler = Sampler(view)
    worlds = [sampler.sample(random.Random(11)) for _ in range(2)]
    assert worlds[0] == a[0] == worlds[1]
    assert sampler.samples == 2 and sampler.tries >= 2
    rng = random.Random(1)
    assert len({tuple(sampler.sample(rng).hands[2]) for _ in range(30)}) > 1


def test_impossible_views_raise():
    rules = Rules.preset("pagat", players=6)
    state, _ = play_until(rules, 2, random.Random(2), PLAY_PHASE, 30)
    view = state.view(0)
    others = [s for s in range(6) if s != 0 and view.hand_sizes[s]]
    every_void = tuple((s, e) for s in others for e in range(5))
    bad = dataclasses.replace(view, voids=every_void)
    with pytest.raises(SamplingError) as info:
        Sampler(bad)
    assert isinstance(info.value, PengyouError)
    too_many = dataclasses.replace(view, hand_sizes=tuple(h + 1 for h in view.hand_sizes))
    with pytest.raises(SamplingError):
        Sampler(too_many)


def test_sampled_worlds_agree_with_the_view_after_rainbows():
    """Five packs in five hands of 50 with ``rainbow`` on, views taken once rainbows were led and
    followed: a rainbow has no suit, so its follows give no void or no-set fact; each follow to it and
    each rainbow throw is replayed on every sample, and every world passes every check."""
    rules = Rules(players=5, packs=5, red_jokers=5, black_jokers=5, hand_size=50, kitty_size=20, friend_calls=2,
                  rainbow=True)
    deal_rng = random.Random(55)
    rng = random.Random(56)
    views = 0
    for seed in range(60):
        state, start = play_until(rules, seed, deal_rng, PLAY_PHASE, deal_rng.randrange(40, 160))
        if state.phase != PLAY_PHASE or not any(
                kernel.make_lead(ps[0], state.trump, rules).is_rainbow for _, ps in state.view(0).tricks):
            continue
        for seat in range(rules.players):
            view = state.view(seat)
            sampler = Sampler(view)
            assert sampler.checks["follows"] > 0
            for _ in range(3):
                check_world(view, sampler.sample(rng), state, start)
            views += 1
        if views >= 15:
            break
    assert views >= 15


def test_sampled_worlds_agree_with_the_view_under_bombs():
    """Twelve seats, four packs, ``bombs`` on: deals with four of a card stacked into half the hands and
    bombs played whenever a hand may (tests/core/test_state_random.py's ``_stack_quads`` and
    ``_bomb_minded``), stopped at a random point of the play; every sampled world agrees with each
    seat's view (a bomb played while holding the led suit shows no void, so none is assumed)."""
    rng = random.Random(77)
    checked = bombs = 0
    for seed in range(6):
        rules = Rules.preset("pagat", players=12, bombs=("any_suit", "follow_suit")[seed % 2])
        s = State(rules, **_stack_quads(rules, _new_state(rules, seed)))
        start = None
        stop = rng.randrange(40, 160)
        while not s.is_terminal() and (start is None or len(s.history) - start[1] < stop):
            if s.phase == PLAY_PHASE and start is None:
                start = (s.clone(), len(s.history))
            s.apply(_bomb_minded(s, rng))
        bombs += sum(1 for _, ps in s.tricks for p in ps[1:] if len(p) >= 4 and len(set(p)) == 1)
        if s.phase != PLAY_PHASE:
            continue
        for seat in range(0, 12, 3):
            view = s.view(seat)
            check_world(view, Sampler(view).sample(rng), s, start)
            checked += 1
    assert checked >= 12 and bombs > 0, (checked, bombs)
