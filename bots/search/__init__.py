"""The search that bots run on the play engine, compiled: playout policies
and the ISMCTS statistics tree (:mod:`bots.search._tree`).

The engine (``core._play``) only says what the game allows and what a play
does; every choice of *what* to play in a playout or a tree walk is made
here, so a new policy or a stronger search changes nothing in ``core``.

- :func:`policy_play`: the play a policy would make now, without making it.
- :func:`playout`: finish a play phase with a policy.
- :class:`SearchTree`: one ISMCTS tree, iterated on determinized worlds.
- :data:`POLICIES`: the policy numbers (0 random, 1 greedy follows,
  2 greedy leads and partner-aware follows too).

>>> POLICIES
(0, 1, 2)
"""

from __future__ import annotations

from ._tree import POLICIES, SearchTree, playout, policy_play

__all__ = ["POLICIES", "SearchTree", "playout", "policy_play"]
