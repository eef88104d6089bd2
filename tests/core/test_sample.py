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

Marginals: on small positions, the destinations of each unseen card over
20,000 samples are compared with plain rejection sampling (deal the unseen
cards uniformly at random, keep the deals whose rebuilt state replays the
public history and whose hands hold the shown cards) by a chi-square test of
homogeneity per card, family-wise significance 0.001 (Bonferroni).
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections import Counter

import pytest

from core import kernel
from core.play import PlayCore
from core.cards import Cards, parse_cards
from core.errors import PengyouError
from core.rules import Rules
from core.sample import Sampler, SamplingError, World, sample_world
from core.state import BURY_PHASE, CALL_PHASE, DONE, DRAW, PLAY_PHASE, State

try:                                   # the chi-square tail: scipy if present
    from scipy.stats import chi2 as _scipy_chi2
except ImportError:                    # pragma: no cover - depends on the environment
    _scipy_chi2 = None


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
    needs = [(s, need) for s, need in shown_left(view).items() if s != view.seat and need]
    maker_too = view.phase != "draw"

    def ok(hands, kitty) -> bool:
        for s, need in needs:
            have = Counter(hands[s])
            if s == view.maker and maker_too:
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
        if state.maker != seat:
            s.kitty = world.kitty
        for _, action in state.history[k:]:
            s.apply(action, check=True)
        return s
    s = state.clone()
    for i in range(n):
        s._hands[i] = world.hands[i].counts()
    if state.phase == BURY_PHASE:
        s._buried = list(world.kitty)
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


# --------------------------------------------------------------------------
# marginals against plain rejection sampling
# --------------------------------------------------------------------------

def replays(state, start, view):
    """A test of a deal (hands list): does replaying the public play history
    on those hands give the same plays (every follow legal, every throw
    ending the same)? The other fields of the view are functions of the
    public plays, so this is the rebuilt-view check, done on the play core."""
    rules = state.rules
    n = rules.players
    base, k = start
    actions = [a.cards for _, a in state.history[k:]]
    shown = [p for _, p in public_plays(view)]
    done = [Counter() for _ in range(n)]
    for s, p in public_plays(view):
        done[s].update(p)

    def ok(hands) -> bool:
        full = [Cards(list(hands[i]) + list(done[i].elements())) for i in range(n)]
        pc = PlayCore.start(rules, state.trump, state.maker, full, state.calls)
        try:
            for cards, seen in zip(actions, shown):
                if pc.play(cards, check=True)[1] != seen:
                    return False
        except PengyouError:
            return False
        return True

    return ok


def rejection_sample(view, state, start, rng, count, max_tries=None):
    """Plain rejection: deal the unseen cards uniformly, keep the consistent
    deals. Cheap necessary conditions (voids; cards shown, or taken back from
    a failed throw and not played since, still held) filter before the replay."""
    n = view.players
    me = view.seat
    pool = sorted(unseen_cards(view).elements())
    others = [s for s in range(n) if s != me]
    sizes = [view.hand_sizes[s] for s in others]
    ctx = kernel.context(view.trump, view.rules.tractor_past_ace)
    voids = [(s, frozenset(f for f in range(54) if ctx.effective_suit(f) == e))
             for s, e in view.voids if s != me]
    played = [Counter() for _ in range(n)]
    for s, p in public_plays(view):
        played[s].update(p)
    back = []
    for s, attempt, kept in view.failed_throws:
        need = Counter(parse_cards(attempt)) - Counter(parse_cards(kept))
        need -= played[s] - Counter(parse_cards(kept))
        if s != me and need:
            back.append((s, need))
    shown = shown_checker(view)
    ok = replays(state, start, view)
    verdicts: dict = {}
    out = []
    tries = 0
    r = rng.random
    while len(out) < count and (max_tries is None or tries < max_tries):
        tries += 1
        cards = sorted(pool, key=lambda _: r())
        hands = [tuple(view.hand)] * n
        at = 0
        for s, c in zip(others, sizes):
            hands[s] = tuple(sorted(cards[at:at + c]))
            at += c
        if any(not suit.isdisjoint(hands[s]) for s, suit in voids):
            continue
        if any(hands[s].count(f) < c for s, need in back for f, c in need.items()):
            continue
        kitty = tuple(sorted(cards[at:])) if view.kitty is None else tuple(view.kitty)
        if not shown(hands, kitty):
            continue
        key = tuple(hands)
        if key not in verdicts:
            verdicts[key] = ok(hands)
        if verdicts[key]:
            out.append((hands, kitty))
    return out, tries


def destinations(view, worlds) -> dict:
    """card -> Counter of where its unseen copies went (sorted seat tuples; the
    kitty is seat ``players``)."""
    n = view.players
    out: dict = {}
    for hands, kitty in worlds:
        where: dict = {}
        for s in range(n):
            if s != view.seat:
                for f in hands[s]:
                    where.setdefault(f, []).append(s)
        if view.kitty is None:
            for f in kitty:
                where.setdefault(f, []).append(n)
        for f, ds in where.items():
            out.setdefault(f, Counter())[tuple(sorted(ds))] += 1
    return out


def chi2_sf(x: float, df: int) -> float:
    """P(chi-square with df degrees of freedom > x): scipy when installed, else
    the regularized upper incomplete gamma function Q(df/2, x/2)."""
    if _scipy_chi2 is not None:
        return float(_scipy_chi2.sf(x, df))
    return _gamma_q(df / 2.0, x / 2.0)


def _gamma_q(a: float, x: float) -> float:
    if x <= 0:
        return 1.0
    lg = math.lgamma(a)
    if x < a + 1:                      # series for P(a, x)
        term = total = 1.0 / a
        ap = a
        for _ in range(1000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - lg))
    b = x + 1 - a                      # continued fraction for Q(a, x) (Lentz)
    c = 1.0 / 1e-300
    d = 1.0 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - lg) * h


def homogeneity_p(a: Counter, b: Counter) -> float:
    """p-value of the chi-square test that two samples share one distribution."""
    cats = sorted(set(a) | set(b))
    na, nb = sum(a.values()), sum(b.values())
    stat = 0.0
    for c in cats:
        col = a[c] + b[c]
        for obs, size in ((a[c], na), (b[c], nb)):
            exp = col * size / (na + nb)
            stat += (obs - exp) ** 2 / exp
    return chi2_sf(stat, len(cats) - 1)


def test_chi2_tail():
    assert abs(_gamma_q(1.0, 2.0) - math.exp(-2.0)) < 1e-12            # df 2: exp(-x/2)
    assert abs(_gamma_q(0.5, 3.84145882 / 2) - 0.05) < 1e-6              # df 1, 95 %
    assert abs(_gamma_q(5.0, 23.2092512 / 2) - 0.01) < 1e-6              # df 10, 99 %
    assert abs(_gamma_q(2.0, 18.4668269 / 2) - 0.001) < 1e-7             # df 4, 99.9 %


TINY = dict(hand_size=6, kitty_size=108 - 30)        # 5 seats of 6 cards: small positions
SHORT = dict(hand_size=18, kitty_size=108 - 90)      # 5 seats of 18 cards, a kitty of 18


def late_positions(rules, lo, hi, want, seeds=200):
    """Views after ``lo``..``hi`` random card plays, that satisfy ``want``."""
    for seed in range(seeds):
        rng = random.Random(seed)
        state, start = play_until(rules, seed, rng, PLAY_PHASE, rng.randrange(lo, hi))
        if state.phase != PLAY_PHASE:
            continue
        for seat in range(rules.players):
            view = state.view(seat)
            if want(view):
                yield state, start, view


def voided(view, k=2):
    """At least k other seats, each with two or more cards, are void in a
    suit of which some cards are unseen."""
    ctx = kernel.context(view.trump, view.rules.tractor_past_ace)
    suits = {ctx.effective_suit(f) for f in unseen_cards(view)}
    return len({s for s, e in view.voids
                if s != view.seat and view.hand_sizes[s] >= 2 and e in suits}) >= k


def kept_back(view):
    """Another seat still holds a card taken back from its failed throw, and
    another copy of that card is unseen."""
    unseen = unseen_cards(view)
    for s, attempt, kept in view.failed_throws:
        if s == view.seat:
            continue
        back = Counter(parse_cards(attempt)) - Counter(parse_cards(kept))
        later = Counter()
        for who, p in public_plays(view):
            if who == s:
                later.update(p)
        later -= Counter(parse_cards(kept))
        if any(c > later[f] and unseen[f] > c for f, c in back.items()):
            return True
    return False


def no_pair(view):
    """Another seat holding two or more cards is known to hold no pair in a
    suit of which both copies of some card are unseen."""
    ctx = kernel.context(view.trump, view.rules.tractor_past_ace)
    unseen = unseen_cards(view)
    pairs = {ctx.effective_suit(f) for f, c in unseen.items() if c >= 2}
    return any(s != view.seat and view.hand_sizes[s] >= 2 and k == 2 and e in pairs
               for s, e, k in view.no_sets)


def maker_shown(view):
    """The maker showed a card not played (nor thrown) since, the viewer does
    not know the kitty, and another copy of that card is unseen."""
    left = shown_left(view).get(view.maker, Counter())
    for s, attempt, _ in view.failed_throws:
        if s == view.maker:
            left -= Counter(parse_cards(attempt))
    unseen = unseen_cards(view)
    return view.kitty is None and view.seat != view.maker and any(unseen[f] > c for f, c in left.items())


SCENARIOS = {
    # late pagat positions: 2 or 3 cards a hand, voids of several seats
    "voids": (Rules.preset("pagat", players=5), 86, 93, lambda v: voided(v) and v.kitty is None),
    "voids-maker": (Rules.preset("pagat", players=5), 86, 93, lambda v: voided(v) and v.kitty is not None),
    "no-pair": (Rules.preset("pagat", players=5), 86, 93, lambda v: no_pair(v) and voided(v, 1)),
    # cards known to be in a hand (taken back from a failed throw), early in
    # a small deal, seen by the maker (who knows the kitty)
    "taken-back": (Rules.preset("pagat", players=5, **TINY), 5, 16,
                   lambda v: kept_back(v) and v.kitty is not None),
    # a card the maker showed and has not played: in its hand or the kitty
    "maker-shown": (Rules.preset("pagat", players=5, **SHORT), 76, 83,
                    lambda v: maker_shown(v) and voided(v, 1)),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_marginals_match_rejection_sampling(name):
    rules, lo, hi, want = SCENARIOS[name]
    n_samples = 20_000
    for state, start, view in late_positions(rules, lo, hi, want):
        # keep positions where plain rejection is cheap enough for a unit test
        probe, tries = rejection_sample(view, state, start, random.Random(1), 100, max_tries=4000)
        if len(probe) == 100:
            break
    else:
        pytest.fail(f"no {name} position found")
    sampler = Sampler(view)
    rng = random.Random(2024)
    ours = [(w.hands, w.kitty) for w in (sampler.sample(rng) for _ in range(n_samples))]
    ref, _ = rejection_sample(view, state, start, random.Random(4242), n_samples)
    a = destinations(view, ours)
    b = destinations(view, ref)
    assert set(a) == set(b)
    tests = [(f, homogeneity_p(a[f], b[f])) for f in sorted(a) if len(set(a[f]) | set(b[f])) > 1]
    assert tests, "the position leaves no card any choice"
    worst = min(tests, key=lambda t: t[1])
    alpha = 0.001 / len(tests)
    assert worst[1] > alpha, (f"card {Cards([worst[0]])}: p = {worst[1]:.3g} < {alpha:.3g}; "
                              f"ours {a[worst[0]]} vs rejection {b[worst[0]]}")
