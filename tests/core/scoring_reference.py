"""The end-of-deal scoring written out in plain Python: the independent twin the
kernel's compiled owner (``c_kitty_multiplier``, ``c_opponents_points``,
``c_card_margin``) is checked against. Not used by the engine."""

from __future__ import annotations

from collections.abc import Collection, Sequence


def multiplier(kind: str, winning_play_cards: int, largest_unit_cards: int, cards_per_player: int,
               lead_pairs: int = 0) -> int:
    """How many times the kitty counts, by ``rules.kitty_multiplier`` (docs: RULES.md, scoring)."""
    table = {
        "double": lambda: 2,
        "by_cards": lambda: {1: 2, 2: 3}.get(winning_play_cards, 4),
        "unit_double": lambda: largest_unit_cards * 2,
        "unit_power": lambda: pow(2, largest_unit_cards),
        "cards_per_player": lambda: cards_per_player * 2,
        "pairs_power": lambda: pow(2, lead_pairs + 1),
    }
    return table[kind]()


def opponents_total(points_by_seat: Sequence[int], side: Collection[int], kitty_points: int,
                    kitty_to_opponents: bool, mult: int, penalties_by_seat: Sequence[int]) -> int:
    """The opponents' card points: theirs, the maker side's penalties added, their own taken off."""
    theirs = sum(p for s, p in enumerate(points_by_seat) if s not in side)
    moved = sum(q for s, q in enumerate(penalties_by_seat) if s in side)
    paid = sum(q for s, q in enumerate(penalties_by_seat) if s not in side)
    kitty = kitty_points * mult if kitty_to_opponents else 0
    return max(0, theirs + moved - paid + kitty)


def card_margin(total_points: int, opponents_points: int) -> int:
    """The maker side's points (what the opponents do not have) minus the opponents'."""
    return (total_points - opponents_points) - opponents_points


def ended_total(points_by_seat: Sequence[int], side: Collection[int], penalties_by_seat: Sequence[int],
                thrower: int, left_points: int, kitty_points: int, kind: str, kept_units: Sequence[tuple[int, int]]
                ) -> tuple[int, int, bool]:
    """``failed_throw`` ``end_deal``: the opponents' card points when ``thrower``'s failed throw,
    reduced to the units ``kept_units`` (``(width, length)`` each: one unit), stopped the play with
    ``left_points`` still in hands; with the kitty multiplier and whether the opponents take the
    kitty. The left points and the kitty go to the side the thrower is not on; the kitty counts
    as if that side had won a last trick led by the kept cards."""
    cards = sum(k * n for k, n in kept_units)
    largest = max(k * n for k, n in kept_units)
    pairs = sum(n for k, n in kept_units if k >= 2)
    mult = multiplier(kind, cards, largest, cards, pairs)
    to_opponents = thrower in side
    theirs = sum(p for s, p in enumerate(points_by_seat) if s not in side)
    moved = sum(q for s, q in enumerate(penalties_by_seat) if s in side)
    paid = sum(q for s, q in enumerate(penalties_by_seat) if s not in side)
    taken = left_points + kitty_points * mult if to_opponents else 0
    return max(0, theirs + moved - paid + taken), mult, to_opponents
