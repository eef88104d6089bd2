"""The determinization sampler's marginals (``core/sample.py``): on small
positions, the destinations of each unseen card over 20,000 samples are
compared with plain rejection sampling (deal the unseen cards uniformly at
random, keep the deals whose rebuilt state replays the public history and
whose hands hold the shown cards) by a chi-square test of homogeneity per
card, family-wise significance 0.001 (Bonferroni). The views and their
checks come from ``test_sample``."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from core import kernel
from core.cards import Cards, parse_cards
from core.errors import PengyouError
from core.play import PlayCore
from core.rules import Rules
from core.sample import Sampler
from core.state import PLAY_PHASE

from test_sample import play_until, public_plays, shown_checker, shown_left, unseen_cards

try:                                   # the chi-square tail: scipy if present
    from scipy.stats import chi2 as _scipy_chi2
except ImportError:                    # pragma: no cover - depends on the environment
    _scipy_chi2 = None


def replays(state, start, view):
    """A test of a deal (hands list): does replaying the public play history
    on those hands give the same plays (every follow legal, every throw
    ending the same, stopped by the same seat where the view shows who)?
    The other fields of the view are functions of the public plays, so this
    is the rebuilt-view check, done on the play core."""
    rules = state.rules
    n = rules.players
    base, k = start
    actions = [a.cards for _, a in state.history[k:]]
    shown = [p for _, p in public_plays(view)]
    done = [Counter() for _ in range(n)]
    for s, p in public_plays(view):
        done[s].update(p)
    stoppers = list(view.throw_stoppers)

    def ok(hands) -> bool:
        full = [Cards(list(hands[i]) + list(done[i].elements())) for i in range(n)]
        pc = PlayCore.start(rules, state.trump, state.maker, full, state.calls)
        stopped = []
        try:
            for cards, seen in zip(actions, shown):
                if pc.play(cards, check=True)[1] != seen:
                    return False
                if cards != seen:               # a throw that failed: who stopped it
                    stopped.append(pc.last_stopper)
        except PengyouError:
            return False
        assert len(stopped) == len(stoppers)
        return all(x < 0 or x == y for x, y in zip(stoppers, stopped))

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


def stopped_throw(view):
    """Another seat's throw failed and the seat that stopped it is shown: the
    sampler checks first that this seat could beat the kept unit."""
    return (any(x >= 0 for x in view.throw_stoppers)
            and any(s != view.seat for s, _, _ in view.failed_throws) and Sampler(view).checks["beats"] > 0)


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
    # a failed throw and the seat that stopped it, early in a small deal
    "stopped-throw": (Rules.preset("shengji-online", players=5, **TINY), 5, 25, stopped_throw),
    "stopped-throw-smallest": (Rules.preset("pagat", players=5, throw_stopper="shown", **TINY), 5, 25,
                               stopped_throw),
}


@pytest.mark.parametrize("mode", ["fresh", "walk"])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_marginals_match_rejection_sampling(name, mode, monkeypatch):
    """``walk``: no fresh draw after the first world, so every later sample is
    a step of the sampler's swap walk (its Metropolis chain must keep the same
    distribution; fewer samples, each after a full step of swaps)."""
    if mode == "walk":
        monkeypatch.setattr(Sampler, "FRESH_TRIES", 0)
    _check_marginals(name, 20_000 if mode == "fresh" else 5_000, walk=mode == "walk")


@pytest.mark.parametrize("demote_from", [1, 99])
def test_marginals_hold_with_exclusions_demoted(demote_from):
    """A table started with demotions made (``demote_from``, the hint a
    search passes from one view to the next; 99: every one) leaves those
    exclusions to the per-sample check: the same worlds, however many
    demotions. (Of the scenarios, only a failed throw's caps leave anything
    to demote: a void is never demoted.)"""
    _check_marginals("stopped-throw", 20_000, demote_from=demote_from)


def _check_marginals(name: str, n_samples: int, walk: bool = False, demote_from: int = 0) -> None:
    rules, lo, hi, want = SCENARIOS[name]
    for state, start, view in late_positions(rules, lo, hi, want):
        # keep positions where plain rejection is cheap enough for a unit test
        probe, tries = rejection_sample(view, state, start, random.Random(1), 100, max_tries=4000)
        if len(probe) == 100:
            break
    else:
        pytest.fail(f"no {name} position found")
    sampler = Sampler(view, demote_from=demote_from)
    if demote_from:
        assert sampler.rounds > 0 and sampler.checks["demoted"] > 0, "nothing to demote in this position"
    rng = random.Random(2024)
    ours = [(w.hands, w.kitty) for w in (sampler.sample(rng) for _ in range(n_samples))]
    assert sampler.walks == (n_samples - 1 if walk else 0)
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
