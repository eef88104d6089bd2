"""The search of :class:`bots.search.SearchTree` in plain Python (slow): the
twin the compiled tree is tested against (it draws the same random numbers
at the same points, so the two give identical statistics) and the bench
measures it against.

>>> import random
>>> from core.rules import Rules
>>> from core.state import PLAY_PHASE, State
>>> from bots.registry import make_bot
>>> s = State(Rules.preset("pagat", players=5), seed=4)
>>> rng = random.Random(4)
>>> while s.phase != PLAY_PHASE:
...     s.apply(s.random_legal_action(rng))
>>> view = s.view(s.current_player())
>>> bots = [make_bot("ismcts:iterations=40") for _ in range(2)]
>>> for bot in bots:
...     bot.restart(view.rules, view.seat, random.Random(1))
>>> stats = [sorted((k, c.visits, c.total) for k, c in root.children.items())
...          for root in (bots[0].search(view), search_reference(bots[1], view))]
>>> stats[0] == stats[1]
True
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING

from core.play import PlayCore
from core.view import PlayerView, play_from_view

from . import Node, play_key, playout, policy_play, standing_play

if TYPE_CHECKING:
    from bots.ismcts import IsmctsBot

__all__ = ["search_reference", "select"]


def search_reference(bot: IsmctsBot, view: PlayerView) -> Node:
    """The search ``bot`` makes from ``view`` (:meth:`bots.ismcts.IsmctsBot.search`),
    in plain Python: its worlds, random numbers and rewards; returns the root
    (children = the bot's own plays)."""
    rng = bot.rng
    root = Node(None)
    policy = bot.policy
    race = bot.race
    me = view.seat
    model_others = bot.others_policy
    value = bot.value_at(view)
    prior = bot.prior_play(view)
    if prior is not None:
        root.children[play_key(prior)] = Node(prior)
    for world, kitty_points in bot.worlds(view):
        pc = play_from_view(view, list(world.hands))
        node = root
        path: list[tuple[Node, int]] = []
        expanded = False
        at_root = True         # the root's plays are the bot's own: legal in every world
        while not pc.done:
            player = pc.current_player
            if model_others and player != me:
                cards = policy_play(pc, rng, policy, race)
                key = play_key(cards)
                child = node.children.get(key)
                if child is None:
                    child = Node(cards)
                    node.children[key] = child
                    expanded = True
            else:
                child, expanded = select(bot, node, pc, rng, at_root)
            pc.play(child.cards, check=False)
            path.append((child, player))
            node = child
            at_root = False
            if expanded:
                break
        if not pc.done:
            playout(pc, rng, policy, race)
        rewards = bot.rewards(pc, kitty_points, value)
        root.visits += 1
        for child, player in path:
            child.visits += 1
            child.total += rewards[player]
    return root


def select(bot: IsmctsBot, node: Node, pc: PlayCore, rng: random.Random, at_root: bool) -> tuple[Node, bool]:
    """The child of ``node`` to walk to, and whether it is new: a new one
    while widening allows (a random legal play of this world not yet
    here; a throw that fails in this world drawn again, ``standing`` times), else the best by UCB among those playable in this world (a new
    random one if none is); counts availability."""
    can_play = pc.can_play
    if len(node.children) < math.ceil(bot.widen_c * (node.visits + 1) ** bot.widen_alpha):
        cards = standing_play(pc, rng, bot.standing)
        key = play_key(cards)
        if key not in node.children:
            child = Node(cards)
            node.children[key] = child
            for other in node.children.values():
                if at_root or other is child or can_play(other.cards):
                    other.avail += 1
            return child, True
    best = None
    best_v = -1e300
    for other in node.children.values():
        if at_root or can_play(other.cards):
            other.avail += 1
            n_vis = other.visits
            if n_vis == 0:
                v = 1e300
            else:
                v = other.total / n_vis + bot.c * math.sqrt(math.log(other.avail) / n_vis)
            if v > best_v:
                best_v = v
                best = other
    if best is not None:
        return best, False
    cards = standing_play(pc, rng, bot.standing)                # nothing here is playable in this world
    best = Node(cards)
    node.children[play_key(cards)] = best
    best.avail += 1
    return best, True
