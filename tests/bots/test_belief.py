"""The maker model read into the sampled worlds (``bots/search/belief.py``).

- the compiled count table against the exact odds of each count,
  enumerated here; the conditional Bernoulli draw of the kitty's kinds
  against its exact distribution, and the burial model's log odds against
  brute force;
- the compiled redraw of the maker's split (``bots/search/_belief.pyx``)
  against a plain-Python twin written here: the same worlds, draw by draw;
- every world of :class:`InferredSampler` agrees with the view, and its
  kitties and makers look like the model's (fewer trumps and points buried,
  fewer called cards held) where the uniform sampler's do not;
- nothing changes for the maker itself;
- the true deal is likelier under the model than under the uniform sampler
  (the measure the strength issue quotes), on deals of the built-in bots;
- the races passed up are the chances a play-by-play replay finds, and
  the table model's worlds give those seats the copies less often;
- the search bot takes ``infer`` and plays whole deals with it.
"""

from __future__ import annotations

import gc
import itertools
import math
import random
import statistics
from collections import Counter

import pytest

from bots.base import make_bot
from bots.search import Splitter, count_table
from bots.search.belief import (KINDS, MAKER_MODEL, InferredSampler, _count_table, _elementary, card_kind,
                                measure_gain)
from core.cards import Cards, card_points
from core.history import suits
from core.rules import Rules
from core.sample import Sampler, World
from core.state import PLAY_PHASE, State


def _played_to(rules: Rules, seed: int, tricks: int, bot: str = "heuristic") -> State:
    """A deal of ``bot`` at every seat, stopped at the start of trick ``tricks``."""
    s = State(rules, seed=seed)
    bots = [make_bot(bot) for _ in range(rules.players)]
    for i, b in enumerate(bots):
        b.restart(rules, i, random.Random(seed * 31 + i))
    while not s.is_terminal() and not (s.phase == PLAY_PHASE and len(s.tricks) >= tricks
                                       and not s.view(0).current_trick[1]):
        p = s.current_player()
        s.apply(bots[p].step(s.view(p)))
    return s


def _inferred_views(rules: Rules, seeds: range, rng: random.Random):
    """``(state, InferredSampler)`` for every seat of deals stopped at a
    random trick of the first half (deals that end before play skipped)."""
    for seed in seeds:
        s = _played_to(rules, seed, rng.randrange(rules.hand_size // 2))
        if s.phase == PLAY_PHASE:
            for seat in range(rules.players):
                yield s, InferredSampler(s.view(seat))


def _exact_count_odds(sizes, theta, i, left):
    """The odds of each count of kind ``i`` when ``left`` cards are still to
    take from kinds ``i..``: every way to take them, enumerated."""
    odds = [0.0] * (min(sizes[i], left) + 1)
    for counts in itertools.product(*(range(s + 1) for s in sizes[i:])):
        if sum(counts) == left:
            odds[counts[0]] += math.prod(math.comb(s, c) * t ** c for s, c, t in zip(sizes[i:], counts, theta[i:]))
    return odds


def test_count_table_holds_the_exact_odds_of_each_count():
    rng = random.Random(11)
    for _ in range(60):
        n = rng.randint(1, 5)
        sizes = tuple(rng.randint(0, 4) for _ in range(n))
        theta = tuple(rng.choice([1.0, rng.random(), rng.random() * 1e-3]) for _ in range(n))
        k = rng.randint(0, sum(sizes))
        cum = count_table(sizes, theta, k)
        assert len(cum) == n and all(len(rows) == k + 1 for rows in cum)
        for i in range(n):
            for left in range(k + 1):
                row = cum[i][left]
                want = list(itertools.accumulate(_exact_count_odds(sizes, theta, i, left)))
                assert len(row) == len(want)
                assert all(math.isclose(g, w, rel_tol=1e-12, abs_tol=1e-300) for g, w in zip(row, want)), \
                    (sizes, theta, k, i, left, row, want)


def test_count_tables_leave_the_cycle_collector_alone():
    # The tables are kept for the life of a process (thousands a deal). Held as lists, they
    # kept hundreds of thousands of objects tracked, and the collector's full passes paused a
    # search for 0.1-0.3 s in mid-decision; tuples of floats stop being tracked.
    tables = [count_table(sizes, (1.0, 0.3, 0.05), 3) for sizes in ((3, 2, 4), (5, 1, 2), (2, 2, 2))]
    for _ in range(3):
        gc.collect()
    tracked = [x for t in tables for x in (t, *t, *(row for rows in t for row in rows)) if gc.is_tracked(x)]
    assert not tracked, f"{len(tracked)} parts of the count tables are still tracked"


@pytest.mark.parametrize("bad", [((), (), 1), ((1, 2), (1.0,), 1), ((1,) * 17, (1.0,) * 17, 1), ((2,), (1.0,), -1),
                                 ((2,), (1.0,), 65), ((-1,), (1.0,), 0)])
def test_count_table_refuses_what_it_cannot_hold(bad):
    with pytest.raises(ValueError):
        count_table(*bad)


@pytest.mark.parametrize("sizes,theta,k", [((3, 2, 4), (1.0, 0.3, 0.05), 3), ((5, 1, 2, 6), (1.0, 0.11, 0.17, 0.01), 4),
                                           ((2, 2), (1.0, 0.5), 4)])
def test_kind_counts_follow_the_exact_distribution(sizes, theta, k):
    exact = {}
    for counts in itertools.product(*(range(s + 1) for s in sizes)):
        if sum(counts) == k:
            exact[counts] = math.prod(math.comb(s, c) * t ** c for s, c, t in zip(sizes, counts, theta))
    z = sum(exact.values())
    rng = random.Random(5)
    n = 20000
    # faces 0.. of kind 0, then kind 1, ...: the kitty's cards counted by kind
    kinds = [i for i, size in enumerate(sizes) for _ in range(size)]
    split = Splitter(kinds + [-1] * (54 - len(kinds)), len(sizes))
    hand = tuple(range(len(kinds) - k))
    assert split.prepare(hand, tuple(range(len(hand), len(kinds)))) == (sizes, k)
    cum = _count_table(sizes, theta, k, {})
    seen = Counter()
    for _ in range(n):
        got = split.split(cum, rng.random)
        if got is not None:
            seen[tuple(sum(1 for f in got[1] if kinds[f] == i) for i in range(len(sizes)))] += 1
    assert sum(seen.values()) >= n - 2
    n = sum(seen.values())
    assert set(seen) <= set(exact)
    for counts, w in exact.items():
        p = w / z
        se = math.sqrt(p * (1 - p) / n)
        assert abs(seen[counts] / n - p) <= 5 * se + 1e-9, (counts, seen[counts] / n, p)


def _twin_split(hand, kitty, void, kind, theta, cum, r):
    """The redraw in plain Python: the kitty's count of each kind from
    ``cum``, then the first cards of a partial shuffle of each kind."""
    both = list(hand) + list(kitty)
    forced = [f for f in both if void[f]]
    groups = [[] for _ in theta]
    for f in both:
        if not void[f]:
            groups[kind[f]].append(f)
    left = len(kitty) - len(forced)
    taken = [0] * len(theta)
    for i in range(len(theta)):
        if left == 0:
            break
        row = cum[i][left]
        x = r() * row[-1]
        c = next((j for j, v in enumerate(row) if v > x), len(row))
        taken[i] = min(c, len(row) - 1)
        left -= taken[i]
    if left:
        return None
    out_kitty, keep = list(forced), []
    for g, t in zip(groups, taken):
        g = g[:]
        for i in range(t):
            j = i + int(r() * (len(g) - i))
            g[i], g[j] = g[j], g[i]
        out_kitty += g[:t]
        keep += g[t:]
    return tuple(sorted(keep)), tuple(sorted(out_kitty))


@pytest.mark.parametrize("preset,players", [("pagat", 6), ("pagat", 8), ("bottom-eight", 5), ("tractor", 4)])
def test_the_compiled_split_draws_what_its_plain_twin_draws(preset, players):
    """World by world, from generators in the same state: the compiled redraw
    of the maker's split and the plain one give the same hand and kitty."""
    rng = random.Random(players)
    compared = 0
    for s, inferred in _inferred_views(Rules.preset(preset, players=players), range(300, 306), rng):
        if not inferred.burial:
            continue
        for _ in range(10):
            w = inferred.sampler.sample(rng)
            hand, kitty = w.hands[s.maker], w.kitty
            sizes, k = inferred._splitter.prepare(hand, kitty)
            if k < 0:
                continue
            cum = _count_table(sizes, inferred._theta, k, {})
            a, b = random.Random(compared), random.Random(compared)
            got = inferred._splitter.split(cum, a.random)
            want = _twin_split(hand, kitty, inferred._void, inferred._kind, inferred._theta, cum, b.random)
            assert got == want and a.random() == b.random()
            compared += 1
    assert compared >= 100


def test_a_split_refuses_what_it_cannot_hold():
    with pytest.raises(ValueError, match="faces"):
        Splitter([0] * 53, 1)
    with pytest.raises(ValueError, match="kinds"):
        Splitter([0] * 54, 0)
    split = Splitter([0] * 54, 1)
    with pytest.raises(ValueError, match="before prepare"):
        split.split((), random.random)
    with pytest.raises(ValueError, match="no card face"):
        split.prepare((54,), ())


def test_split_log_odds_is_the_models_odds_against_a_uniform_split():
    rules = Rules.preset("pagat", players=6)
    s = _played_to(rules, 11, 0)
    seat = (s.maker + 1) % 6
    inferred = InferredSampler(s.view(seat))
    assert inferred.burial
    hand, kitty = s.hand(s.maker), s.kitty
    # brute force over a small pile: the kitty and four cards of the hand
    both = list(kitty) + list(hand)[:4]
    theta = [inferred._theta[inferred._kind[f]] for f in both]
    k = len(kitty)
    total = sum(math.prod(theta[i] for i in sub) for sub in itertools.combinations(range(len(both)), k))
    assert math.isclose(total, _elementary(theta, k))
    p_model = math.prod(theta[:k]) / total
    expected = math.log(p_model) + math.log(math.comb(len(both), k))
    if not any(inferred._void[f] for f in both):
        got = inferred.split_log_odds(Cards(sorted(list(hand)[:4])), kitty)
        assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-9)


def test_card_kinds():
    rules = Rules.preset("pagat", players=6)
    s = _played_to(rules, 2, 0)
    esuit, _, _ = suits(s.trump, rules)
    for f in set(s.rules.deck()):
        kind = KINDS[card_kind(f, esuit, s.trump.rank)]
        assert (kind in ("trump", "high_trump")) == (esuit[f] == 4)
        assert (kind in ("five", "count")) == (card_points(f) > 0 and esuit[f] != 4)


@pytest.mark.parametrize("preset,players", [("pagat", 5), ("pagat", 6), ("pagat", 8), ("bottom-eight", 5),
                                            ("tractor", 4), ("stack", 6)])
def test_inferred_worlds_agree_with_the_view(preset, players):
    rng = random.Random(players)
    checked = 0
    for _, inferred in _inferred_views(Rules.preset(preset, players=players), range(100, 104), rng):
        for _ in range(20):
            w = inferred.sample(rng)
            assert inferred.sampler.agrees(w)
            checked += 1
    assert checked >= 20 * players


def test_kitties_and_makers_look_like_the_model():
    """Over 12 deals of the built-in bots, seen by the seat after the maker:
    the inferred kitties hold far fewer trumps and points than the uniform
    ones, and the maker holds a copy it called (at its ordinal) far less
    often; the true deals are as the model says."""
    rules = Rules.preset("pagat", players=6)
    rng = random.Random(9)
    uni, inf = Counter(), Counter()
    for seed in range(12):
        s = _played_to(rules, 200 + seed, 2)
        view = s.view((s.maker + 1) % 6)
        inferred = InferredSampler(view)
        esuit, _, _ = suits(view.trump, rules)
        calls = [(c, o) for c, o in s.calls]
        for tally, draw in ((uni, inferred.sampler.sample), (inf, inferred.sample)):
            for _ in range(100):
                w = draw(rng)
                tally["worlds"] += 1
                tally["trumps"] += sum(esuit[f] == 4 for f in w.kitty)
                tally["points"] += sum(card_points(f) for f in w.kitty)
                tally["held"] += any(w.hands[s.maker].count(f) >= o for f, o in calls)
    for key in ("trumps", "points", "held"):
        assert inf[key] / inf["worlds"] < 0.5 * uni[key] / uni["worlds"], (key, inf, uni)
    assert inf["trumps"] / inf["worlds"] < 0.3


def test_the_maker_samples_as_before():
    rules = Rules.preset("pagat", players=6)
    s = _played_to(rules, 7, 3)
    view = s.view(s.maker)
    inferred = InferredSampler(view)
    assert not inferred.burial and not inferred.calls
    plain = Sampler(view)
    a, b = random.Random(4), random.Random(4)
    for _ in range(10):
        assert inferred.sample(a) == plain.sample(b)


def test_the_true_deal_is_likelier_under_the_model():
    gains = measure_gain("pagat", 6, deals=30, bot="heuristic", seed=17)
    m = statistics.mean(gains)
    half = 1.96 * statistics.stdev(gains) / math.sqrt(len(gains))
    assert len(gains) == 60 and m - half > 1.0, (m, half)


def test_the_model_is_floored():
    """No kind of card is ruled out of the kitty: a maker that buries a trump
    or an ace is still sampled."""
    assert min(MAKER_MODEL.theta) > 0 and 0 < MAKER_MODEL.call_odds <= 1


@pytest.mark.parametrize("spec", ["ismcts:iterations=60,infer=maker", "ismcts:iterations=60,infer=maker,root=halving",
                                  "ismcts:iterations=60,infer=table"])
def test_the_search_bot_plays_whole_deals_with_the_model(spec):
    rules = Rules.preset("pagat", players=6)
    s = State(rules, seed=5)
    bots = [make_bot(spec if i % 2 == 0 else "heuristic") for i in range(6)]
    for i, b in enumerate(bots):
        b.restart(rules, i, random.Random(i))
    while not s.is_terminal():
        p = s.current_player()
        s.apply(bots[p].step(s.view(p)))          # apply() checks legality
    assert all(b.sampling_failures == 0 for b in bots[::2])
    assert s.result is not None


def test_infer_is_checked():
    with pytest.raises(Exception, match="infer"):
        make_bot("ismcts:infer=everything")
    assert make_bot("ismcts:infer=none").infer == "none" and make_bot("ismcts:infer=table").infer == "table"


def test_a_world_moved_by_the_model_keeps_every_card():
    rules = Rules.preset("pagat", players=6)
    s = _played_to(rules, 31, 4)
    view = s.view((s.maker + 2) % 6)
    inferred = InferredSampler(view)
    rng = random.Random(2)
    for _ in range(50):
        w = inferred.sample(rng)
        assert isinstance(w, World)
        assert Counter(f for h in w.hands for f in h) + Counter(w.kitty) == \
            Counter(f for h in (s.hand(i) for i in range(6)) for f in h) + Counter(s.kitty)


def _passes_by_replay(s: State, seat: int) -> list[tuple[int, int, int]]:
    """The races passed up, read play by play: at a lead, or a follow of a
    one-card lead, by a seat off the maker's side (and not ``seat``), each
    called face it did not play, that it could legally have played (any card
    when leading; when following, a face of the led suit, or any face once
    its own card shows it void), and that the engine says would fill a call."""
    from bots.heuristic_friends import fills
    from core.cards import parse_card, parse_cards
    from core.play import PlayCore

    view = s.view(seat)
    n = s.rules.players
    esuit, _, _ = suits(view.trump, s.rules)
    calls = [(parse_card(c), o) for c, o in view.calls]
    plays = []                                   # (seat, cards, leader, trick so far)
    for leader, ps in list(view.tricks) + ([view.current_trick] if view.current_trick[1] else []):
        cards = [parse_cards(p) for p in ps]
        for j, c in enumerate(cards):
            plays.append(((leader + j) % n, c, leader, cards[:j]))
    out = []
    for i, (p, cards, leader, trick) in enumerate(plays):
        if p in (s.maker, seat) or (trick and len(trick[0]) != 1):
            continue
        filled, seen = PlayCore.calls_after(s.rules, view.trump, s.maker, calls, [(q, c) for q, c, _, _ in plays[:i]])
        if p in filled:
            continue
        for f in sorted({f for f, _ in calls}):
            legal = not trick or esuit[f] == esuit[trick[0][0]] or esuit[cards[0]] != esuit[trick[0][0]]
            if f not in cards and legal and fills(s.rules, view.trump, s.maker, p, calls, filled, seen, leader,
                                                  trick, Cards([f])):
                out.append((p, f, sum(c.count(f) for q, c, _, _ in plays[i:] if q == p)))
    return out


def test_races_passed_are_the_leads_that_let_a_call_go():
    """Over deals of the built-in bots: every race passed up that the view
    lists is one a play-by-play replay finds, and the other way round; on
    these deals some seats pass, and few of those held the copy."""
    from bots.search.belief import races_passed

    rules = Rules.preset("pagat", players=6)
    found = held = 0
    for seed in range(16):
        s = _played_to(rules, 300 + seed, 9)
        if s.phase != PLAY_PHASE:
            continue
        for seat in range(6):
            got = races_passed(s.view(seat))
            assert got == _passes_by_replay(s, seat)
            found += len(got)
            held += sum(1 for p, f, later in got if later or f in s.hand(p))
        assert races_passed(s.view(s.maker)) == _passes_by_replay(s, s.maker)
    assert found >= 10, found
    assert held < found


def test_the_table_model_moves_copies_away_from_seats_that_passed():
    """Worlds of the table model give a seat that passed up a race a filling
    copy less often than the maker model's worlds do, and still agree with
    the view."""
    from bots.search.belief import TABLE_MODEL, races_passed

    rules = Rules.preset("pagat", players=6)
    rng = random.Random(11)
    tally = Counter()
    for seed in range(16):
        s = _played_to(rules, 300 + seed, 9)
        if s.phase != PLAY_PHASE:
            continue
        for seat in range(6):
            view = s.view(seat)
            passes = races_passed(view)
            if not passes:
                continue
            for name, model in (("maker", MAKER_MODEL), ("table", TABLE_MODEL)):
                inferred = InferredSampler(view, model=model)
                for _ in range(40):
                    w = inferred.sample(rng)
                    assert inferred.sampler.agrees(w)
                    tally[name] += sum(1 for p, f, later in passes if later or f in w.hands[p])
                    tally[name + " worlds"] += 1
    assert tally["table worlds"] == tally["maker worlds"] >= 200
    assert tally["table"] < 0.7 * tally["maker"], tally


def test_the_table_model_reads_nothing_more_without_passes():
    """With ``pass_odds`` 1 (the maker model) the races passed up are not read."""
    rules = Rules.preset("pagat", players=6)
    s = _played_to(rules, 301, 9)
    assert InferredSampler(s.view((s.maker + 1) % 6)).passes == []
