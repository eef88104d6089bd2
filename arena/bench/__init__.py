"""Speed of the compiled kernel against the naive reference, measured in one run.

Both implementations see the same random positions; the figures are operations
per second of wall time on one core, and their ratios.
"""

from __future__ import annotations

import functools
import math
import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Optional, cast

from core import kernel, reference
from core.play import PlayCore, playouts
from core.cards import Cards, Trump, make_face
from core.errors import PengyouError
from core.rules import Rules

from ..stats.sprt import Estimate, estimate
from .positions import Position, random_position
from .refplay import reference_playout
from .timing import rate

if TYPE_CHECKING:
    from bots.ismcts import IsmctsBot

__all__ = ["run_bench"]


def _positions(n: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    tables = [Rules.preset("pagat", players=p) for p in (6, 8, 12)]
    return [random_position(rng, tables[i % 3], max_lead=6, max_suit=9) for i in range(n)]


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
        "follow_checks_per_s": rate(follow_checks, min_time),
        "winners_per_s": rate(winners, min_time),
        "random_follows_per_s": rate(random_follows, min_time),
    }


def _deals(count: int, seed: int, rules: Optional[Rules] = None
           ) -> list[tuple[Rules, Trump, list[Cards], list[tuple[int, int]]]]:
    """Dealt deals (6-player pagat unless ``rules`` says otherwise): hands, a
    trump of rank 2, and as many non-trump aces called as the rules call."""
    rules = rules or Rules.preset("pagat", players=6)
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        d = rules.deck()
        rng.shuffle(d)
        hands = [Cards(d[i * rules.hand_size:(i + 1) * rules.hand_size]) for i in range(rules.players)]
        suit = rng.randrange(4)
        calls = [(make_face(14, s), 1) for s in range(4) if s != suit][:rules.friend_calls]
        out.append((rules, Trump(2, suit), hands, calls))
    return out


def _playout_rates(seed: int, min_time: float, rules: Optional[Rules] = None) -> tuple[float, float]:
    """Complete random play phases per second (6-player pagat unless
    ``rules`` says otherwise): compiled core, then reference."""
    deals = _deals(20, seed, rules)
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

    return rate(core_batch, min_time), rate(ref_batch, min_time)


def _heuristic_decision_us(seed: int) -> float:
    """Microseconds of one ``heuristic`` decision on average, over whole
    ``pagat`` deals at 6, 9 and 12 seats (every decision of every phase:
    exposing, burying, calling and playing), the bot's ``step`` alone timed."""
    from bots.heuristic import HeuristicBot
    from bots.table import play_deal

    spent = [0.0, 0]

    class Timed(HeuristicBot):
        def step(self, view: Any) -> Any:
            t = time.perf_counter()
            a = super().step(view)
            spent[0] += time.perf_counter() - t
            spent[1] += 1
            return a

    for players in (6, 9, 12):
        rules = Rules.preset("pagat", players=players)
        for k in range(3):
            play_deal(rules, seed + k, [Timed() for _ in range(players)], random.Random(seed + k))
    return 1e6 * spent[0] / spent[1]


def _first_trick_view(seed: int, follower: bool = False):
    """A 6-player pagat deal played at random up to the first lead; the
    leader's (the maker's) view, or with ``follower`` that of the next seat
    once the lead is made (a seat that does not know the kitty)."""
    from core.state import PLAY_PHASE, State

    rng = random.Random(seed)
    s = State(Rules.preset("pagat", players=6), seed=seed)
    while s.phase != PLAY_PHASE:
        s.apply(s.random_legal_action(rng))
    if follower:
        s.apply(s.random_legal_action(rng))
    return s.view(s.current_player())


def _ismcts_rate(seed: int, min_time: float, rollout: str = "greedy", method: str = "search",
                 settings: str = ",race=0,infer=none", follower: bool = False) -> float:
    """ISMCTS iterations per second from the first trick (``method``:
    ``search`` for the C tree, ``search_reference`` for the Python loop;
    ``settings``: more of the spec, by default the search as it was before
    today's defaults, so the figure compares across versions; ``follower``:
    the seat after the leader, which reads the maker into its worlds)."""
    from bots import make_bot

    view = _first_trick_view(seed, follower)
    bot = cast("IsmctsBot", make_bot(f"ismcts:iterations=500,rollout={rollout}{settings}"))
    bot.restart(view.rules, view.seat, random.Random(seed))
    search: Callable[[Any], Any] = bot.search
    if method == "search_reference":
        from bots.search.reference import search_reference

        search = functools.partial(search_reference, bot)

    def batch() -> int:
        search(view)
        return bot.last_iterations

    return rate(batch, min_time)


def _sample_us(seed: int, min_time: float, inferred: bool = False) -> float:
    """Microseconds per sampled world for a first-trick 6-player view: the
    uniform sampler's for the leader, or with ``inferred`` the model of the
    maker's (:mod:`bots.search.belief`) for the next seat."""
    from bots.search.belief import InferredSampler
    from core.sample import Sampler

    if inferred:
        sample = InferredSampler(_first_trick_view(seed, follower=True)).sample
    else:
        sample = Sampler(_first_trick_view(seed)).sample
    rng = random.Random(seed)

    def batch() -> int:
        for _ in range(200):
            sample(rng)
        return 200

    return 1e6 / rate(batch, min_time)


def _search_peak_mb(iterations: int, seed: int) -> float:
    """Peak resident memory (MB) of a fresh process that imports the engine
    and runs one search. Fresh (``spawn``): a process forked from the bench
    would count the pages the earlier measurements left in the bench's own
    memory (the kernel's and the reference's caches), not the search's."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    proc = ctx.Process(target=_search_peak_child, args=(q, iterations, seed))
    proc.start()
    before, after = q.get()
    proc.join()
    return after / 1024.0


def _search_peak_child(q: Any, iterations: int, seed: int) -> None:
    """The child of :func:`_search_peak_mb`: its peak resident memory (KB) before and after one search."""
    import resource

    from bots import make_bot

    view = _first_trick_view(seed)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    bot = cast("IsmctsBot", make_bot(f"ismcts:iterations={iterations}"))
    bot.restart(view.rules, view.seat, random.Random(seed))
    bot.search(view)
    q.put((before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))


def _arena_rate(workers: int, deals: int, bot: str = "random", trusted: str = "builtins",
                cluster: str = "") -> float:
    """Tournament throughput: deals (jobs) per second of wall time, from the
    spec to every result stored in a fresh database; two entrants of ``bot``,
    in the referee's process (``trusted="builtins"``) or sandboxed. Every
    run has the same secret, so both ways play the very same cards and bot
    seeds (the same games, for bots that follow their seed): the ratio of
    two rates measures the wall alone, not a luckier deal."""
    import os
    import tempfile

    from ..tournament.runner import run_tournament
    from ..tournament.spec import TournamentSpec
    from ..types import Entrant

    spec = TournamentSpec(name="bench", entrants=(Entrant("a", bot), Entrant("b", bot)),
                          preset="pagat", players=6, suite="bench", deals=deals, trusted=trusted,
                          time_limit=0.0)
    spec.validate()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        summary = run_tournament(spec, os.path.join(tmp, "bench.db"), workers=workers, progress=False,
                                 secret="bench", cluster=cluster or None)
        elapsed = time.perf_counter() - start
    if summary.failed or not summary.played or summary.faults * 10 > summary.played:
        # a faulting bot's deals end early (a bot that cannot start forfeits every one):
        # a rate of them would measure nothing real
        raise PengyouError(f"bench: {bot} ({'in-process' if trusted == 'builtins' else 'sandboxed'}) played "
                           f"{summary.played} deals with {summary.faults} faults and {summary.failed} failed jobs")
    return summary.played / elapsed


def dask_and_local_rates(deals: int, rounds: int = 2) -> tuple[float, float]:
    """Deals per second of two ``random`` entrants on a Dask cluster of two
    single-threaded workers and on a local pool of two workers, in
    alternating rounds. The cluster is started, and warmed by one small
    run, before the clock starts: a cluster outlives the runs it serves
    (a pool is started by every run, and that start is counted)."""
    import logging

    from distributed import LocalCluster

    times = {"dask": 0.0, "local": 0.0}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster:
        address = cluster.scheduler_address
        _arena_rate(2, 8, cluster=address)
        for r in range(rounds):
            for where in (("dask", "local") if r % 2 == 0 else ("local", "dask")):
                times[where] += deals / _arena_rate(2, deals, cluster=address if where == "dask" else "")
    return rounds * deals / times["dask"], rounds * deals / times["local"]


def run_bench(positions: int = 200, seed: int = 1, min_time: float = 1.0,
              search_iterations: int = 100_000, arena_deals: int = 300, arena_search_deals: int = 8,
              arena_search_iterations: int = 1000) -> dict[str, Any]:
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
    core_figs["random_playouts_per_s_tractor"], ref_figs["random_playouts_per_s_tractor"] = _playout_rates(
        seed, min_time, Rules.preset("tractor"))
    c_tree = _ismcts_rate(seed, min_time)
    py_tree = _ismcts_rate(seed, min_time, method="search_reference")
    return {
        "positions": positions,
        "seed": seed,
        "core": core_figs,
        "reference": ref_figs,
        "ratio": {k: core_figs[k] / ref_figs[k] for k in core_figs},
        "search": {
            "ismcts_iterations_per_s": c_tree,
            "ismcts_random_rollout_iterations_per_s": _ismcts_rate(seed, min_time, "random"),
            "ismcts_python_tree_iterations_per_s": py_tree,
            "ismcts_c_tree_over_python": c_tree / py_tree,
            "sample_world_us": _sample_us(seed, min_time),
            "ismcts_default_iterations_per_s": _ismcts_rate(seed, min_time, "auto", settings=""),
            "ismcts_default_follower_iterations_per_s": _ismcts_rate(seed, min_time, "auto", settings="",
                                                                     follower=True),
            "sample_world_inferred_us": _sample_us(seed, min_time, inferred=True),
            "heuristic_decision_us": _heuristic_decision_us(seed),
            "search_iterations": search_iterations,
            "search_peak_mb": _search_peak_mb(search_iterations, seed),
        },
        "arena": _arena_figures(arena_deals, arena_search_deals, arena_search_iterations),
        "adapters": _adapter_figures(seed, min_time),
    }


def _adapter_figures(seed: int, min_time: float) -> dict[str, float]:
    """The OpenSpiel adapter's random playouts against the native ones
    (:func:`arena.bench.adapters.openspiel_figures`); none without OpenSpiel,
    an optional dependency (``pip install 'pengyou[openspiel]'``)."""
    import importlib.util

    if importlib.util.find_spec("pyspiel") is None:
        return {}
    from .adapters import openspiel_figures

    return openspiel_figures(seed, min_time)


def _cold_rate(deals: int, bot: str, trusted: str) -> float:
    """:func:`_arena_rate` on one worker, in a forked process of its own: an
    in-process round starts with the engine imported and nothing cached, as
    a run does (and as the fork server's bots do), not with what the bench's
    earlier rounds left in this process."""
    from ..tournament.executors import run_forked

    answered, value, how = run_forked(_rate_or_error, deals, bot, trusted)
    if not answered:
        raise PengyouError(f"bench: a round of {bot} ended without a rate ({how})")
    rate, error = value
    if error:
        raise PengyouError(error)
    return float(rate)


def _rate_or_error(deals: int, bot: str, trusted: str) -> tuple[float, str]:
    try:
        return _arena_rate(1, deals, bot, trusted=trusted), ""
    except PengyouError as exc:
        return 0.0, str(exc)


def _paired_rates(bot: str, deals: int, rounds: int) -> tuple[float, float, Estimate]:
    """Deals per second of ``bot`` trusted and sandboxed, measured in
    ``rounds`` alternating rounds of ``deals`` deals each (so a machine that
    speeds up or slows down during the bench weighs on both alike); each
    rate is all the deals of its mode over all its time. Both modes run on
    one and the same CPU (a machine's CPUs need not be equally fast; a run's
    worker holds one CPU in either mode, see :func:`arena.tournament.executors.pin_cpu`).
    Also sandboxed over trusted: the geometric mean of the rounds' ratios,
    with its 95 % interval (Student's t over the rounds' log ratios)."""
    from ..tournament.executors import pin_cpu, this_cpu, unpin

    times = {"builtins": 0.0, "none": 0.0}
    logs = []
    before = pin_cpu(this_cpu())
    try:
        for r in range(rounds):
            order = ("builtins", "none") if r % 2 == 0 else ("none", "builtins")
            took = {trusted: deals / _cold_rate(deals, bot, trusted) for trusted in order}
            for trusted, t in took.items():
                times[trusted] += t
            logs.append(math.log(took["builtins"] / took["none"]))
    finally:
        unpin(before)
    ratio = estimate(logs, math.exp, student=True)
    if ratio is None:
        raise ValueError(f"paired rates: {rounds} round(s); an interval needs 2 or more")
    return rounds * deals / times["builtins"], rounds * deals / times["none"], ratio


def _ladder_rate(games: int, workers: int = 2) -> tuple[float, float]:
    """A fresh ladder of four ``random`` entrants on ``workers`` workers:
    games per second of wall time from the first round to the last stored
    game and ratings refit, and the scheduling time per game (picking
    line-ups, writing groups, refitting ratings after each round), in ms."""
    import os
    import tempfile

    from ..ladder import Ladder, LadderRules, run_ladder

    with tempfile.TemporaryDirectory() as tmp:
        lad = Ladder.create(os.path.join(tmp, "bench"), LadderRules(players=6), secret="bench")
        for k in range(4):
            lad.submit_builtin("random", name=f"random{k}", owner="bench")
        summary = run_ladder(lad, workers=workers, games=games, seed=1)
    if summary.failed or not summary.games:
        raise PengyouError(f"bench: the ladder played {summary.games} games and {summary.failed} failed")
    return summary.games / summary.seconds, 1000.0 * summary.scheduling_seconds / summary.games


def _arena_figures(deals: int, search_deals: int = 8, search_iterations: int = 1000) -> dict[str, float]:
    """Arena throughput on 1 and 2 workers, and sandboxed against trusted
    (1 worker each, in alternating rounds): random bots on ``deals`` seeds,
    ``ismcts`` with ``search_iterations`` a decision on ``search_deals``
    deal seeds (one a round, each round a run of its own: starting the
    sandbox's processes is counted once a run, as a real run counts it)."""
    one = _arena_rate(1, deals)
    two = _arena_rate(2, deals)
    rounds = max(2, min(6, deals))
    trusted, boxed, ratio = _paired_rates("random", max(1, deals // rounds), rounds)
    ism = f"ismcts:iterations={search_iterations}"
    # one seed a round: a search deal takes seconds, and this machine's speed drifts over that
    # long; the more often the two ways alternate, the less the drift weighs on their ratio
    ism_trusted, ism_boxed, ism_ratio = _paired_rates(ism, 1, search_deals)
    ladder_rate, ladder_ms = _ladder_rate(max(40, deals))
    try:
        far, near = dask_and_local_rates(deals)
        cluster = {"dask_deals_per_s_2_workers": far, "local_deals_per_s_2_workers": near,
                   "dask_over_local_2_workers": far / near}
    except ImportError:         # Dask is optional (pip install 'pengyou[cluster]'): no cluster figures
        cluster = {}
    return {"ladder_games_per_s": ladder_rate, "ladder_scheduling_ms_per_game": ladder_ms, **cluster,
            "arena_deals_per_s_1_worker": one, "arena_deals_per_s_2_workers": two,
            "arena_2_workers_over_1": two / one,
            "arena_deals_per_s_trusted": trusted, "arena_deals_per_s_sandboxed": boxed,
            "arena_sandboxed_over_trusted": ratio.mean,
            "arena_sandboxed_over_trusted_lo95": ratio.lo, "arena_sandboxed_over_trusted_hi95": ratio.hi,
            "arena_ismcts_deals_per_s_trusted": ism_trusted, "arena_ismcts_deals_per_s_sandboxed": ism_boxed,
            "arena_ismcts_sandboxed_over_trusted": ism_ratio.mean,
            "arena_ismcts_sandboxed_over_trusted_lo95": ism_ratio.lo,
            "arena_ismcts_sandboxed_over_trusted_hi95": ism_ratio.hi}
