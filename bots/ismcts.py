"""Determinized single-observer information-set MCTS (SO-ISMCTS).

Each iteration samples a world consistent with the bot's view (the hidden
hands, :mod:`core.sample`), rebuilds the play phase from it in C
(:func:`core.state.play_from_view`), walks one tree shared by all worlds
(children are actions of whoever is to move, selected by UCB over the
children *available* in this world), adds one child, and finishes the deal
with a C playout (see ``rollout``). Rewards are each seat's result on its
final side. The walk, the playout and the backup run in C
(:class:`bots.search.SearchTree`); :func:`bots.search.reference.search_reference`
is the same loop in plain Python, kept apart as the reference it is tested
and measured against.

Large move sets are handled by progressive widening: a node may have
``ceil(widen_c * visits ** widen_alpha)`` children, and new children are
drawn from the world's random legal plays, so every legal play stays
reachable. A node is found by its play's card counts (a 64-bit hash, then
an exact comparison); no strings or Python objects in the loop.

Two variants share the machinery: ``others="policy"`` lets the other seats
play the rollout policy inside the tree (only the bot's own moves are
searched), and ``root="halving"`` replaces the tree by flat Monte Carlo at
the root with sequential halving, every remaining play scored on the same
sampled worlds and playout seeds so that plays are compared in pairs.

Defaults: partner-aware ``informed`` playouts at every table, in which a seat
off the maker's side races for a live call half the time (``race=0.5``);
worlds drawn from a model of the maker's burial and calls
(``infer="maker"``, :mod:`bots.search.belief`). ``others`` is ``auto``: where
partners are fixed (``tractor``: every seat knows its partner from the first
trick) the other seats play the playout policy inside the tree, where they
are called they are searched (:func:`rollout_for`, :func:`others_for`).

Scope: the search plays the *play phase*. Exposing during the draw, burying
and calling friends are handed to the ``fallback`` bot (the heuristic bot by
default: the registry builds the bot a ``fallback`` spec names and hands it
in), and the bot says so here.
"""

from __future__ import annotations

import math
import random
import time
from itertools import islice
from collections.abc import Callable, Iterator
from typing import Any, Optional, Union, cast

from core.actions import Action
from core.cards import Cards, points
from core.errors import SamplingError
from core.play import PlayCore
from core.rules import Rules
from core.sample import Sampler, World
from core.scoring import MAKER, card_share, score_deal
from core.state import PlayerView, State, play_from_view

from .heuristic import HeuristicBot
from .protocol import Bot, Param, keep_params
from .search import Node, SearchTree, play_key, playout, policy_play, standing_play
from .search.belief import MODELS, InferredSampler

__all__ = ["IsmctsBot", "OracleBot", "Node", "ROLLOUTS", "rollout_for", "others_for"]

#: playout policies, in the order of :data:`bots.search.POLICIES`
ROLLOUTS = ("random", "greedy", "informed")


def rollout_for(rules: Rules) -> str:
    """The playout policy ``rollout="auto"`` picks for a table: ``informed``
    (partner-aware) at every table. It was first measured where partners
    are fixed; with called partners it gains once the playouts race for the
    friendships (``race``) and the worlds read the maker (``infer``), see
    :file:`docs/bots.md`. The rules stay an argument so that a table where
    another policy measures better can have it.

    >>> rollout_for(Rules.preset("tractor")), rollout_for(Rules.preset("pagat", players=6))
    ('informed', 'informed')
    """
    return "informed"


def others_for(rules: Rules) -> str:
    """How ``others="auto"`` treats the other seats inside the tree: with
    fixed partners they play the (informed) rollout policy, a fair model of
    play when every seat knows its side, so the whole budget goes to the
    bot's own choices; with called partners they are searched, as measured
    there.

    >>> others_for(Rules.preset("tractor")), others_for(Rules.preset("pagat", players=6))
    ('policy', 'search')
    """
    return "policy" if rules.partners == "fixed" else "search"


class IsmctsBot:
    """Information-set MCTS for the play phase; a fallback bot for the rest.

    :attr:`PARAMS` says what each parameter means and the span worth tuning
    the numbers over (``pengyou bots ismcts`` prints them).

    >>> bot = IsmctsBot(iterations=200, root="halving")
    >>> (bot.root, bot.rollout, bot.others)
    ('halving', 'auto', 'auto')
    >>> bot.restart(Rules.preset("tractor"), 0, random.Random(0))
    >>> ROLLOUTS[bot.policy], bot.others_policy
    ('informed', True)
    """

    #: The parameters' meanings and tuning spans.
    PARAMS = {
        "iterations": Param("search iterations per decision", 100, 20000),
        "seconds": Param("a time budget per decision used instead of iterations when positive "
                         "(root='ucb' only)"),
        "c": Param("UCB exploration constant", 0.0, 3.0),
        "widen_c": Param("progressive widening: a node may have ceil(widen_c * (visits + 1) ** widen_alpha) "
                          "children", 0.5, 8.0),
        "widen_alpha": Param("progressive widening exponent (0 to 1)", 0.0, 1.0),
        "reward": Param("what the search maximises: the card-point margin, game points, or late: game points "
                        "(the card margin breaking ties) once the seat holds at most `late` cards, the card "
                        "margin before", choices=("points", "game", "late")),
        "late": Param("with reward=late, the cards left in the seat's hand at or below which it plays for "
                      "game points", 0, 20),
        "rollout": Param("the playout policy: random play; greedy follows (cheap wins, small losses); "
                         "informed (leads no opponent's sampled hand beats, feeding a known partner); "
                         "auto: informed",
                         choices=("auto",) + ROLLOUTS),
        "others": Param("the other seats inside the tree: searched by UCB on their own reward, or playing "
                        "the rollout policy; auto: policy with fixed partners, else search",
                        choices=("auto", "search", "policy")),
        "race": Param("the friend race in the playouts and the other seats' policy: the chance that a seat "
                      "off the maker's side plays a copy filling an open call at its first chance (a "
                      "lead or a follow of one card); when positive, seats on the maker's side also "
                      "keep back copies that would fill another call", 0.0, 1.0),
        "standing": Param("a new child that is a throw failing in the iteration's world is drawn again, up to "
                          "this many times (0: throws are drawn as any other play)", 0, 16),
        "reuse": Param("iterations each sampled world serves in a row (sampling costs about as much as "
                       "an iteration's walk and playout)", 1, 8),
        "steady": Param("the fallback bot's play is searched from the start and kept unless the most visited "
                        "play's mean reward beats it by more than steady * sqrt(1/n_best + 1/n_fallback) "
                        "(0: off)", 0.0, 2.0),
        "infer": Param("what the sampled worlds read into the seats' choices: nothing (uniform over the "
                       "deals the view allows), a model of the maker's burial and calls, or that and the "
                       "friend races the other seats passed up (bots.search.belief)",
                       choices=("none", "maker", "table")),
        "root": Param("the root search: the UCB tree, or flat Monte Carlo with sequential halving and "
                      "paired worlds", choices=("ucb", "halving")),
        "fallback": Param("bot spec for exposing, burying and calling", bot=True),
    }

    iterations: int
    seconds: float
    c: float
    widen_c: float
    widen_alpha: float
    reward: str
    late: int
    rollout: str
    others: str
    race: float
    standing: int
    reuse: int
    steady: float
    infer: str
    root: str

    def __init__(self, iterations: int = 1000, seconds: float = 0.0, c: float = 0.7,
                 widen_c: float = 2.0, widen_alpha: float = 0.5, reward: str = "points",
                 late: int = 6, rollout: str = "auto", others: str = "auto", race: float = 0.5, standing: int = 0,
                 reuse: int = 1, steady: float = 0.0, infer: str = "maker", root: str = "ucb",
                 fallback: Union[str, Bot] = "heuristic") -> None:
        if iterations < 1:
            raise ValueError("iterations must be at least 1")
        if c < 0 or widen_c <= 0 or not 0 <= widen_alpha <= 1:
            raise ValueError("c >= 0, widen_c > 0 and 0 <= widen_alpha <= 1 are required")
        if not 0.0 <= race <= 1.0:
            raise ValueError("race is a chance: from 0 to 1")
        if standing < 0:
            raise ValueError("standing is a number of redraws: 0 or more")
        if steady < 0:
            raise ValueError("steady is a margin of reward: 0 or more")
        if late < 0:
            raise ValueError("late is a number of cards in hand: 0 or more")
        if reuse < 1:
            raise ValueError("reuse: each world serves at least 1 iteration")
        if root == "halving" and seconds > 0:
            raise ValueError("root='halving' plans its rounds on an iteration budget: use iterations, not seconds")
        keep_params(self, {"iterations": iterations, "seconds": seconds, "c": c, "widen_c": widen_c,
                           "widen_alpha": widen_alpha, "reward": reward, "late": late, "rollout": rollout, "others": others,
                           "race": race, "standing": standing, "reuse": reuse, "steady": steady, "infer": infer, "root": root})
        # "auto" is settled by the rules in restart(); informed until then
        self._policy = ROLLOUTS.index("informed" if rollout == "auto" else rollout)
        self._others_policy = others == "policy"            # likewise for "auto"
        #: the bot that exposes, buries and calls: built by the registry from the spec and handed in;
        #: a bot built directly with the default spec makes its own heuristic bot
        self.fallback: Bot = _fallback(fallback)
        # News reaches the fallback only if it listens; otherwise this bot has no inform at all
        # (None), so the table skips building views for it and a sandboxed host need not follow
        # every action (it asks for the coalesced protocol).
        self.inform: Optional[Callable[[PlayerView, int, Action], None]] = getattr(self.fallback, "inform", None)
        self.rng = random.Random(0)
        self.seat = 0
        self.rules: Optional[Rules] = None
        self.last_iterations = 0
        self.last_nodes = 0
        #: plays left to the fallback because no world agreeing with the view was found
        self.sampling_failures = 0
        self._game_cache: dict[tuple[int, int], float] = {}
        self._late_cache: dict[tuple[int, int], float] = {}
        self._prior: tuple[Optional[PlayerView], Optional[Cards]] = (None, None)   # (view, the fallback's play)
        #: the last view's uniform sampler (this deal's, this bot's): its rounds are the next view's hint
        self._sampler: tuple[Optional[PlayerView], Optional[Sampler]] = (None, None)

    def restart(self, rules: Rules, seat: int, rng: random.Random) -> None:
        """New deal."""
        if rules != self.rules:
            self._game_cache.clear()       # game points depend on the rules
            self._late_cache.clear()
        self.rules = rules
        self.seat = seat
        self.rng = rng
        self._sampler = (None, None)
        if self.rollout == "auto":
            self._policy = ROLLOUTS.index(rollout_for(rules))
        if self.others == "auto":
            self._others_policy = others_for(rules) == "policy"
        self.fallback.restart(rules, seat, random.Random(rng.getrandbits(64)))

    def step(self, view: PlayerView) -> Action:
        """Search in the play phase (a forced play is made at once); ask the
        fallback bot otherwise, and for a play whose view the sampler cannot
        deal (:class:`core.errors.SamplingError`, counted in ``sampling_failures``)."""
        if view.phase != "play":
            return self.fallback.step(view)
        first_two = list(islice(view.legal_actions(), 2))
        if len(first_two) == 1:            # a forced play needs no search
            self.last_iterations = 0
            return first_two[0]
        try:
            if self.root == "halving":
                return Action.play(self.search_halving(view))
            root = self.search(view)
        except SamplingError:              # no deal agrees with the view in the sampler's budget
            self.last_iterations = 0
            self.sampling_failures += 1
            return self.fallback.step(view)
        best = max(root.children.values(), key=lambda n: (n.visits, n.total))
        if self.steady > 0 and best.visits:
            best = self._steadied(view, root, best)
        assert best.cards is not None      # only the root has no cards
        return Action.play(best.cards)

    def prior_play(self, view: PlayerView) -> Optional[Cards]:
        """With ``steady`` on, the fallback bot's play, which the root holds
        from the start and which is kept when the search cannot tell it from
        the best (:meth:`_steadied`); else None. Asked once per decision."""
        if self.steady <= 0:
            return None
        if self._prior[0] is not view:
            self._prior = (view, self.fallback.step(view).cards)
        return self._prior[1]

    def _steadied(self, view: PlayerView, root: Node, best: Node) -> Node:
        """The fallback bot's play instead of the most visited one when the
        search cannot tell them apart: its mean reward is below the best's by
        at most ``steady * sqrt(1 / n_best + 1 / n_fallback)`` (``steady``
        reads as a z-score times the rewards' spread, which is about 0.25).
        Two searches of one position then agree where the search alone would
        pick between near-equal plays by chance."""
        prior = self.prior_play(view)
        if prior is None:
            return best
        child = root.children.get(play_key(prior))
        if child is None or child is best or not child.visits:
            return best
        margin = self.steady * math.sqrt(1.0 / best.visits + 1.0 / child.visits)
        if best.total / best.visits - child.total / child.visits <= margin:
            return child
        return best

    # ------------------------------------------------------------------ search
    @property
    def policy(self) -> int:
        """The playout policy's number (:data:`bots.search.POLICIES`), from
        ``rollout`` (``auto``: :func:`rollout_for` the rules of the deal)."""
        return self._policy

    @property
    def others_policy(self) -> bool:
        """Whether the other seats play the rollout policy inside the tree
        (``others``; ``auto``: :func:`others_for` the rules of the deal)."""
        return self._others_policy

    def value_at(self, view: PlayerView) -> Optional[Callable[[int, int], float]]:
        """How the search at ``view`` values a finished play: ``None`` for the
        card-point margin (as a share of the deal's points), else a function
        (opponents' points, maker side's size) -> the maker side's reward.
        ``reward="game"``: game points; ``reward="late"``: game points plus a
        tenth of the card share once the seat holds at most ``late`` cards
        (where the scoring table decides the deal), the card margin before.

        >>> bot = IsmctsBot(reward="late", late=4)
        >>> bot.restart(Rules.preset("pagat", players=6), 0, random.Random(0))
        >>> value = bot._late_value       # what value_at gives late in the deal
        >>> value(75, 3), value(80, 3)      # 75 wins the maker's side one level, 80 loses one
        (1.025, -0.98)
        """
        if self.reward == "game":
            return self._game_value
        if self.reward == "late" and len(view.hand) <= self.late:
            return self._late_value
        return None

    def rewards(self, pc: PlayCore, kitty_points: int,
                value: Optional[Callable[[int, int], float]] = None) -> list[float]:
        """Each seat's reward for the finished play ``pc`` on its final side,
        the kitty holding ``kitty_points``: the card-point margin as a share
        of the deal's points, or ``value`` (from :meth:`value_at`) of the
        opponents' points and the maker side's size."""
        r = cast(Rules, self.rules)        # set by restart(), which comes before any step()
        side = pc.maker_side
        opp = pc.opponents_points(r, kitty_points)[0]
        n = r.players
        v = card_share(r, opp) if value is None else value(opp, len(side))
        return [v if s in side else -v for s in range(n)]

    def _world_source(self, view: PlayerView) -> Callable[[random.Random], World | _TrueWorld]:
        """A function rng -> world (hands, kitty) consistent with the view
        (drawn from the maker model's posterior with ``infer="maker"``, and
        the races passed up weighed too with ``infer="table"``)."""
        model = MODELS.get(self.infer)
        plain = self.uniform(view)
        return plain.sample if model is None else InferredSampler(view, plain, model=model).sample

    def uniform(self, view: PlayerView) -> Sampler:
        """The uniform sampler of ``view`` (one per view). A table too big to
        count costs as much as one that fits, and a view's table needs about
        as many demotions as the last one's
        (:func:`core.dealing.deal_demoting`): the count starts one round of
        demotion short of the last view's. The worlds are the same
        (demoted exclusions are checked per sample); only fewer tables are
        counted in vain. The hint is this bot's, for this deal."""
        last, sampler = self._sampler
        if last is not view or sampler is None:
            sampler = Sampler(view, demote_from=max(0, sampler.rounds - 1) if sampler is not None else 0)
            self._sampler = (view, sampler)
        return sampler

    def _candidates(self, view: PlayerView, cap: int) -> list[Cards]:
        """The root's plays: all legal ones, or ``cap`` distinct random ones
        (with the rollout policy's choice) when there are more."""
        listed = list(islice((a.cards for a in view.legal_actions()), cap + 1))
        if len(listed) <= cap:
            return listed
        rng = self.rng
        pc = play_from_view(view, list(self.uniform(view).sample(rng).hands))
        seen = {play_key(c): c for c in [policy_play(pc, rng, self._policy, self.race)]}
        for _ in range(8 * cap):
            if len(seen) >= cap:
                break
            c = standing_play(pc, rng, self.standing)
            seen.setdefault(play_key(c), c)
        return list(seen.values())

    def search_halving(self, view: PlayerView) -> Cards:
        """Flat Monte Carlo at the root with sequential halving: every
        remaining play is tried on the same sampled worlds with the same
        playout seed (paired comparisons), and the worse half is dropped
        after each round. The plays are all legal ones, or, when there are
        more than ``max(8, iterations // 32)``, that many distinct random ones
        with the rollout policy's choice among them, so that each play gets a
        few worlds in the first round. Returns the chosen play."""
        rng = self.rng
        budget = self.iterations
        sample = self._world_source(view)
        cands = self._candidates(view, max(8, budget // 32))
        rounds = max(1, math.ceil(math.log2(len(cands)))) if len(cands) > 1 else 1
        totals = [0.0] * len(cands)
        counts = [0] * len(cands)
        alive = list(range(len(cands)))
        view_kitty = points(view.kitty) if view.kitty is not None else None
        me = view.seat
        policy = self._policy
        value = self.value_at(view)
        used = 0
        for rnd in range(rounds):
            per = max(1, (budget - used) // ((rounds - rnd) * len(alive)))
            for _ in range(per):
                world = sample(rng)
                kitty_points = view_kitty if view_kitty is not None else points(world.kitty)
                base = play_from_view(view, list(world.hands))
                seed = rng.getrandbits(63)
                for i in alive:
                    pc = base.clone()
                    pc.play(cands[i], check=False)
                    playout(pc, random.Random(seed), policy, self.race)
                    totals[i] += self.rewards(pc, kitty_points, value)[me]
                    counts[i] += 1
                    used += 1
            if len(alive) > 1:
                alive.sort(key=lambda i: -totals[i] / counts[i])
                alive = alive[:max(1, (len(alive) + 1) // 2)]
        self.last_iterations = used
        return cands[max(alive, key=lambda i: totals[i] / counts[i])]

    def search(self, view: PlayerView) -> Node:
        """Run the search from ``view``; returns the root (children = own moves).

        The tree lives in C (:class:`bots.search.SearchTree`); the worlds are
        sampled here. It makes exactly the choices of :func:`bots.search.reference.search_reference`
        (the same search in plain Python).
        """
        rng = self.rng
        game_value = self.value_at(view)
        tree = SearchTree(self.rules, view.seat, self.c, self.widen_c, self.widen_alpha, self._policy,
                          self._others_policy, game_value, self.race, self.standing)
        prior = self.prior_play(view)
        if prior is not None:
            tree.seed(prior)
        iterate = tree.iterate
        for world, kitty in self.worlds(view):
            iterate(play_from_view(view, list(world.hands)), rng, kitty)
        self.last_nodes = tree.node_count
        root = Node(None)
        root.visits = tree.visits
        for cards, visits, total, avail in tree.root_children():
            child = Node(cards)
            child.visits, child.total, child.avail = visits, total, avail
            root.children[play_key(cards)] = child
        return root

    def worlds(self, view: PlayerView) -> Iterator[tuple[World | _TrueWorld, int]]:
        """Sampled worlds with the kitty points each is scored with (the
        view's own kitty if it knows it), one per iteration (each sampled
        world serving ``reuse`` iterations in a row), until the budget
        (iterations, or ``seconds`` when positive) is spent; counted in
        ``last_iterations``."""
        rng = self.rng
        sample = self._world_source(view)
        deadline = time.perf_counter() + self.seconds if self.seconds > 0 else None
        view_kitty = points(view.kitty) if view.kitty is not None else None
        it = 0
        reuse = self.reuse
        while it < self.iterations if deadline is None else not it or time.perf_counter() < deadline:
            if it % reuse == 0:
                world = sample(rng)
                kitty = view_kitty if view_kitty is not None else points(world.kitty)
            it += 1
            yield world, kitty
        self.last_iterations = it

    def _late_value(self, opp: int, side_size: int) -> float:
        """Game points of the maker's side plus a tenth of the card share
        (which breaks ties between plays of the same result), cached."""
        key = (opp, side_size)
        v = self._late_cache.get(key)
        if v is None:
            v = self._game_value(opp, side_size) + card_share(cast(Rules, self.rules), opp) / 10
            self._late_cache[key] = v
        return v

    def _game_value(self, opp: int, side_size: int) -> float:
        """Game points of the maker's side (negative when it loses), cached."""
        key = (opp, side_size)
        v = self._game_cache.get(key)
        if v is None:
            sc = score_deal(cast(Rules, self.rules), opp, side_size)     # set by restart()
            v = float(sc.game_points if sc.winner == MAKER else -sc.game_points if sc.winner else 0)
            self._game_cache[key] = v
        return v


def _fallback(fallback: Union[str, Bot]) -> Bot:
    """The fallback bot: the one handed in, or a heuristic bot for the
    default spec (any other spec is the registry's to build)."""
    if not isinstance(fallback, str):
        return fallback
    if fallback != "heuristic":
        raise ValueError(f"fallback {fallback!r}: a bot spec is built by bots.registry.make_bot, "
                         "which hands the bot in")
    return HeuristicBot()


class _TrueWorld:
    __slots__ = ("hands", "kitty")

    def __init__(self, hands: list[Cards], kitty: Cards) -> None:
        self.hands = hands
        self.kitty = kitty


class OracleBot(IsmctsBot):
    """CHEATING: the same search on the true hands of every seat.

    It exists only as an upper bound when measuring the other bots: the deal
    loop hands it the state through :meth:`peek` (the ``cheats`` flag asks for
    that); every other bot only ever sees its own view.
    """

    cheats = True

    def __init__(self, **params: Any) -> None:                # IsmctsBot's parameters, passed on as they are
        super().__init__(**params)
        self._state: Optional[State] = None

    def peek(self, state: State) -> None:
        """Be shown the true state before deciding (cheating by design)."""
        self._state = state

    def _world_source(self, view: PlayerView) -> Callable[[random.Random], World | _TrueWorld]:
        s = self._state
        if s is None:
            raise ValueError("the oracle bot needs peek(state) before each decision")
        world = _TrueWorld([s.hand(i) for i in range(view.players)], s.kitty)
        return lambda rng: world
