"""The sampler's swap walk: worlds for a view whose fresh deals starve.

:class:`core.sample.Sampler` deals the unseen cards afresh and rejects the
deals that break a fact of the view. With twelve seats, six packs and a long
history of follows to replay, a few views reject thousands of deals in a row.
Once one world is found, :class:`SwapWalk` moves from it instead: it
proposes swaps of two unseen cards between two piles (each card to a pile its
classes allow) and keeps a swap only if every fact still holds, with the
Metropolis odds that give the chain the fresh deals' distribution:

- a swap picks a pile, a position in it, another pile and a position there,
  all uniformly; the reverse swap is proposed with the same odds, so the
  chain's long-run distribution is proportional to the odds below;
- the fresh deal draws the maker-or-kitty copies of a face (cards the maker
  showed, which may be in its hand or buried) as a class of their own, so a
  deal is as likely as the ways to tell those copies from the face's other
  copies: ``C(copies in the piles both may lie in, mk - copies where only
  they may lie)``;
- the fresh deal keeps a deal with odds ``1 / weight`` (the cards known to be
  in a hand, counted once), so the odds are ``ways / weight``.

Successive worlds are correlated, as in any Markov chain; the sampler's
marginal test (``tests/core/test_sample_marginals.py``) checks the walk
against plain rejection sampling.
"""

from __future__ import annotations

from collections.abc import Callable
from math import comb
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from .sample import World

__all__ = ["SwapWalk", "Homes"]

#: per face with unseen copies: where its free copies may lie (every cap), where
#: the voids alone let them lie, and where its maker-or-kitty copies may lie
Homes = dict[int, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]
Piles = list[list[int]]


class SwapWalk:
    """A Metropolis chain over the deals of the unseen cards (see the module
    docstring). ``fits``, ``weight``, ``world`` and ``agrees`` are the
    sampler's: the caps and throw beats, the known-card weight, the world of a
    deal (it may sort the piles it is given), and the replay of the history
    (told the two piles a swap changed: the chain's world agreed before it)."""

    def __init__(self, homes: Homes, loose: set[int], mk: list[int], piles: tuple[int, ...],
                 fixed: list[tuple[int, list[int]]], fits: Callable[[Piles], bool],
                 weight: Callable[[Piles], int], world: Callable[[Piles], World],
                 agrees: Callable[[World, tuple[int, ...]], bool]) -> None:
        """``loose``: the faces whose free copies' exclusions were demoted to
        the caps check (they may lie wherever the voids let them)."""
        self.allowed: list[set[int]] = [set() for _ in range(54)]
        self.mk_faces: list[tuple[int, tuple[int, ...], tuple[int, ...], int]] = []
        for f, (fine, coarse, mk_home) in homes.items():
            free = coarse if f in loose else fine
            self.allowed[f].update(free if free else ())
            self.allowed[f].update(mk_home)
            if mk[f] and free:
                self.mk_faces.append((f, tuple(d for d in mk_home if d not in free),
                                      tuple(d for d in mk_home if d in free), mk[f]))
        self.piles = piles
        self.fixed = fixed
        self.fits, self.weight, self.world, self.agrees = fits, weight, world, agrees
        self.base: Optional[Piles] = None
        self.odds: Optional[float] = None

    def start(self, base: Piles) -> None:
        """Walk on from this deal (the piles before the known cards are added; the walk owns the lists)."""
        self.base = base
        self.odds = None

    def _full(self, base: Piles) -> Piles:
        full = base[:]
        for s, fx in self.fixed:
            full[s] = base[s] + fx
        return full

    def _odds(self, base: Piles, full: Piles) -> float:
        """The deal's odds under the fresh draws, up to a constant (0 when it cannot be dealt)."""
        ways = 1
        for f, mk_only, shared, mk in self.mk_faces:
            forced = sum(base[d].count(f) for d in mk_only)
            if forced > mk:
                return 0.0
            ways *= comb(sum(base[d].count(f) for d in shared), mk - forced)
            if not ways:                                # too few copies left where they must lie
                return 0.0
        return ways / self.weight(full)

    def step(self, r: Any, swaps: int) -> World:
        """``swaps`` proposed swaps from the current deal; the world it ends on."""
        base = self.base
        assert base is not None, "start() comes first"
        odds = self.odds if self.odds is not None else self._odds(base, self._full(base))
        piles = [d for d in self.piles if base[d]]
        allowed = self.allowed
        world = None
        for _ in range(swaps):
            d1 = piles[int(r() * len(piles))]
            d2 = piles[int(r() * len(piles))]
            if d1 == d2:
                continue
            a, b = base[d1], base[d2]
            i, j = int(r() * len(a)), int(r() * len(b))
            f, g = a[i], b[j]
            if f == g or d2 not in allowed[f] or d1 not in allowed[g]:
                continue
            a[i], b[j] = g, f
            full = self._full(base)
            o = self._odds(base, full) if self.fits(full) else 0.0
            if o and (o >= odds or r() * odds < o):
                w = self.world([pile[:] for pile in full])     # copies: the walk still indexes its piles
                if self.agrees(w, (d1, d2) if d1 < d2 else (d2, d1)):
                    world, odds = w, o
                    continue
            a[i], b[j] = f, g                               # refused: undo
        self.odds = odds
        if world is None:                               # every swap refused: the chain stays put
            world = self.world([pile[:] for pile in self._full(base)])
        return world
