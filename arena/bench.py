"""Speed of the compiled kernel against the naive reference, measured in one run.

Both implementations see the same random positions; the figures are operations
per second of wall time on one core, and their ratios.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from core import kernel, reference
from core._play import PlayCore, playouts
from core.cards import Cards, Trump, make_face
from core.positions import deck
from core.refplay import reference_playout
from core.positions import Position, random_position
from core.rules import Rules

__all__ = ["run_bench"]


def _positions(n: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    tables = [Rules.preset("pagat", players=p) for p in (6, 8, 12)]
    return [random_position(rng, tables[i % 3], max_lead=6, max_suit=9) for i in range(n)]


def _rate(fn: Callable[[], int], min_time: float) -> float:
    """Operations per second: repeat ``fn`` (which returns its op count) for min_time."""
    ops = 0
    start = time.perf_counter()
    while True:
        ops += fn()
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            return ops / elapsed


def _suite(impl: Any, positions: list[Position], plays: list[list[Cards]], seed: int,
           min_time: float) -> dict[str, float]:
    # arguments are laid out before timing, so the loops time the calls only
    follow_args = [(p.hands[0], p.lead, ps[1], p.trump, p.rules) for p, ps in zip(positions, plays)]
    winner_args = [(ps, p.trump, p.rules) for p, ps in zip(positions, plays)]
    clear = getattr(impl, "clear_caches", lambda: None)
    rng = random.Random(seed)
    random_args = [(p.hands[0], p.lead, p.trump, p.rules, rng) for p in positions]
    is_legal, winner = impl.is_legal_follow, impl.trick_winner

    def follow_checks() -> int:
        clear()
        for a in follow_args:
            is_legal(*a)
        return len(follow_args)

    def winners() -> int:
        clear()
        for a in winner_args:
            winner(*a)
        return len(winner_args)

    if hasattr(impl, "random_follow"):
        draw = impl.random_follow
    else:
        def draw(hand: Cards, lead: Cards, trump: Any, rules: Rules, rng: random.Random) -> Cards:
            # the reference draws uniformly from its full list of legal follows
            return rng.choice(sorted(impl.legal_follows(hand, lead, trump, rules)))

    def random_follows() -> int:
        clear()
        for a in random_args:
            draw(*a)
        return len(random_args)

    return {
        "follow_checks_per_s": _rate(follow_checks, min_time),
        "winners_per_s": _rate(winners, min_time),
        "random_follows_per_s": _rate(random_follows, min_time),
    }


def _deals(count: int, seed: int) -> list[tuple[Rules, Trump, list[Cards], list[tuple[int, int]]]]:
    """Dealt 6-player pagat deals: hands, a trump of rank 2, two non-trump aces called."""
    rules = Rules.preset("pagat", players=6)
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        d = deck(rules)
        rng.shuffle(d)
        hands = [Cards(d[i * rules.hand_size:(i + 1) * rules.hand_size]) for i in range(rules.players)]
        suit = rng.randrange(4)
        calls = [(make_face(14, s), 1) for s in range(4) if s != suit][:2]
        out.append((rules, Trump(2, suit), hands, calls))
    return out


def _playout_rates(seed: int, min_time: float) -> tuple[float, float]:
    """Complete random play phases per second: compiled core, then reference."""
    deals = _deals(20, seed)
    starts = [PlayCore.start(r, t, 0, h, c) for r, t, h, c in deals]
    rng = random.Random(seed)

    def core_batch() -> int:
        for pc in starts:
            playouts(pc, 50, rng)
        return 50 * len(starts)

    def ref_batch() -> int:
        reference.clear_caches()
        for r, t, h, c in deals:
            reference_playout(r, t, 0, h, c, rng)
        return len(deals)

    return _rate(core_batch, min_time), _rate(ref_batch, min_time)


def run_bench(positions: int = 200, seed: int = 1, min_time: float = 1.0) -> dict[str, Any]:
    """Measure the kernel and the reference on the same positions; return figures and ratios."""
    pos = _positions(positions, seed)
    rng = random.Random(seed + 1)
    plays = []
    for p in pos:
        trick = [p.lead] + [kernel.random_follow(h, p.lead, p.trump, p.rules, rng) for h in p.hands]
        plays.append(trick)
    core_figs = _suite(kernel, pos, plays, seed, min_time)
    ref_figs = _suite(reference, pos, plays, seed, min_time)
    core_figs["random_playouts_per_s"], ref_figs["random_playouts_per_s"] = _playout_rates(seed, min_time)
    return {
        "positions": positions,
        "seed": seed,
        "core": core_figs,
        "reference": ref_figs,
        "ratio": {k: core_figs[k] / ref_figs[k] for k in core_figs},
    }
