"""What a sampled deal is checked against, sample by sample: the failed
throws some other hand must have been able to beat, and the follows and
throws that only a replay on the sampled hands settles (the facts of
:class:`core.sample.Sampler` that its counting table cannot hold)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Optional

from . import kernel
from .cards import Cards, Trump
from .rules import Rules

if TYPE_CHECKING:
    from .dealing import Bounds, ClassKey

__all__ = ["Beat", "beaten", "has_set", "history_ok", "as_cards", "deal_checks"]

#: a failed throw some other hand could beat: (faces, k, [(seat, its since counts)])
Beat = tuple[frozenset[int], int, list[tuple[int, dict[int, int]]]]


def as_cards(faces: Sequence[int]) -> Cards:
    """A :class:`Cards` from faces, without re-validating them (sorted)."""
    return tuple.__new__(Cards, sorted(faces))


def history_ok(checks: list[tuple[str, tuple[Any, ...]]], hands: list[Cards], trump: Optional[Trump], rules: Rules,
               since: Callable[[int, int], list[int]], n: int) -> bool:
    """The throws and follows the cap facts do not settle (``checks``, as
    :class:`core.sample.Sampler` lists them), replayed on ``hands`` as they
    were at their trick (``since(seat, t)``: the cards the seat played from
    trick ``t`` on)."""
    for kind, data in checks:
        if kind == "follow":
            t, s, lead_obj, p = data
            held = as_cards(list(hands[s]) + since(s, t))
            if not kernel.is_legal_follow(held, lead_obj, p, trump, rules):
                return False
        else:
            t, ld, lead_obj, kept, pre, stopper = data
            if pre is not None and not any(has_set(hands[s], since_s, faces, k)
                                           for faces, k in pre[0] for s, since_s in pre[1]):
                continue
            others = [as_cards(list(hands[(ld + j) % n]) + since((ld + j) % n, t)) for j in range(1, n)]
            res = kernel.check_throw(lead_obj, others, trump, rules)
            if kept is None:
                if not res.stands:
                    return False
            elif res.stands or res.unit != kept:
                return False
            elif stopper >= 0 and (res.beaten_by is None or (ld + 1 + res.beaten_by) % n != stopper):
                return False                # another seat would have stopped it than the one shown
    return True


def has_set(hand: Sequence[int], since: dict[int, int], faces: frozenset[int], k: int) -> bool:
    """True when a hand (plus the cards it played since) holds k copies of one of the faces."""
    if k == 1:
        return not faces.isdisjoint(hand)
    return any(hand.count(f) + since.get(f, 0) >= k for f in faces.intersection(hand))


def beaten(out: list[list[int]], beats: list[Beat]) -> bool:
    """For each failed throw: some seat held k copies of one of the faces
    (its hand now plus what it played since)."""
    for faces, k, seats in beats:
        for s, since in seats:
            h = out[s]
            if k == 1:
                if not faces.isdisjoint(h):
                    break
            elif any(h.count(f) + since.get(f, 0) >= k for f in faces.intersection(h)):
                break
        else:
            return False
    return True


def deal_checks(classes: dict[ClassKey, list[int]], demoted: set[ClassKey], pool: list[int], mk: list[int],
                cap: Bounds, need: Bounds, others: list[int],
                maker: Optional[int]) -> tuple[list[tuple[int, int, int]], ...]:
    """What the deal does not build in, checked on each sample: the caps above 0 that a deal could
    exceed, and every exclusion of a demoted class, as ``(seat, face, most)``; the lower bounds where
    more copies of the face could reach the seat, as weights ``(seat, face, need)``; and the
    maker-or-kitty copies where more could reach those piles, ``(face, mk, copies needed in the hand)``."""
    cap_checks = []
    loose = {(d, f) for key in demoted for f in set(classes[key]) for d in key[1]
             if d not in key[0]}
    for s in others:
        for f in range(54):
            most = cap[s][f]
            if 0 < most < need[s][f] + pool[f] + mk[f] or (s, f) in loose:
                cap_checks.append((s, f, most))
    need_checks = [(s, f, need[s][f]) for s in others for f in range(54)
                   if need[s][f] and pool[f] + mk[f] > 0]
    mk_checks = [(f, mk[f], need[maker][f] if maker in need else 0) for f in range(54)
                 if mk[f] and pool[f] > 0]
    return cap_checks, need_checks, mk_checks
