"""The search that bots run on the play engine, compiled: playout policies
(:mod:`bots.search._policy`) and the ISMCTS statistics tree
(:mod:`bots.search._tree`).

The engine (``core._play``) only says what the game allows and what a play
does; every choice of *what* to play in a playout or a tree walk is made
here, so a new policy or a stronger search changes nothing in ``core``.

- :func:`policy_play`: the play a policy would make now, without making it.
- :func:`standing_play`: a random play, a throw that fails in this world
  drawn again (the tree's widening with ``standing``).
- :func:`playout`: finish a play phase with a policy.
- :class:`SearchTree`: one ISMCTS tree, iterated on determinized worlds.
- :class:`Splitter`: the burial model's redraw of the maker's hand and kitty
  (:mod:`bots.search.belief` reads the model; this draws from it), and
  :func:`count_table`, the count odds it draws from.
- :data:`POLICIES`: the policy numbers (0 random, 1 greedy follows,
  2 greedy leads and partner-aware follows too).
- :class:`Node` and :func:`play_key`: a tree node's statistics as Python
  values, found by its play's key (what a search returns).
- :mod:`bots.search.reference`: the same search in plain Python, the twin
  the tree is tested and measured against.

>>> POLICIES
(0, 1, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from core.cards import Cards

from ._belief import Splitter, count_table
from ._policy import POLICIES, playout, policy_play, standing_play
from ._tree import SearchTree

__all__ = ["POLICIES", "SearchTree", "Splitter", "count_table", "playout", "policy_play", "standing_play", "Node", "play_key"]


class Node:
    """Statistics of one action from its parent: visits, reward total, availability.

    >>> Node(None).visits, Node(None).children
    (0, {})
    """

    __slots__ = ("cards", "children", "visits", "total", "avail")

    def __init__(self, cards: Optional[Cards]) -> None:
        self.cards = cards
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 0


def play_key(cards: Sequence[int]) -> int:
    """A play's card counts packed in one number (3 bits a face): the key of
    its node among its parent's children.

    >>> play_key([0, 0, 1]) == 2 + 8
    True
    """
    k = 0
    for f in cards:
        k += 1 << (3 * f)
    return k
