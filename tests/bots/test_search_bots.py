"""Every registered bot finishes seeded deals at every seat of every preset."""

from __future__ import annotations

import random

import pytest

from bots import make_bot, play_deal, registry
from bots.search.reference import search_reference
from core.rules import PRESETS, Rules

TABLES = [("pagat", n) for n in range(5, 13)] + [("heli", 6), ("thirteen", 7), ("bottom-eight", 5), ("stack", 6),
                                                 ("tractor", 4), ("shengji-online", 6), ("shengji-online", 9),
                                                 ("shengji-online", 12)]
SPECS = {
    "random": "random",
    "heuristic": "heuristic",
    "ismcts": "ismcts:iterations=12,rollout=random",
    "oracle": "oracle:iterations=12",
}


def test_every_builtin_bot_is_covered():
    assert set(SPECS) == {k for k in registry() if ".py:" not in k}


def test_every_preset_is_covered():
    """A new preset must join TABLES: every bot plays every seat of every preset."""
    assert {p for p, _ in TABLES} == set(PRESETS)


@pytest.mark.parametrize("name", sorted(SPECS))
@pytest.mark.parametrize("preset,players", TABLES)
def test_bot_finishes_deals_in_every_seat(name, preset, players):
    rules = Rules.preset(preset, players=players)
    for s in seat_deals(rules, name, players * 31 + len(preset)):
        assert s.is_terminal() and s.result is not None


def seat_deals(rules, name, seed):
    """One deal for each seat the bot ``name`` takes (every seat up to six,
    else the first, middle and last), the other seats random (fast)."""
    players = rules.players
    for seat in range(players) if players <= 6 else (0, players // 2, players - 1):
        bots = [make_bot("random") for _ in range(players)]
        bots[seat] = make_bot(SPECS[name])
        yield play_deal(rules, seed + seat, bots, random.Random(seed))


@pytest.mark.parametrize("name", sorted(SPECS))
def test_bot_finishes_deals_a_failed_throw_ends(name):
    """Under ``failed_throw`` ``end_deal`` (a failed throw stops the play, and the searches'
    rollouts stop there too) every bot finishes deals in every seat; some of them end early."""
    ended = 0
    for preset, players in (("pagat", 6), ("tractor", 4), ("shengji-online", 7)):
        rules = Rules.preset(preset, players=players, failed_throw="end_deal")
        for s in seat_deals(rules, name, players * 17 + len(preset)):
            assert s.is_terminal() and s.result is not None
            ended += s.play is not None and s.play.ended
    assert ended > 0


@pytest.mark.parametrize("name", ["ismcts", "oracle"])
def test_search_is_reproducible(name):
    rules = Rules.preset("pagat", players=6)
    runs = []
    for _ in range(2):
        bots = [make_bot(SPECS[name])] + [make_bot("heuristic") for _ in range(5)]
        runs.append(play_deal(rules, 5, bots, random.Random(5)).history)
    assert runs[0] == runs[1]


@pytest.mark.parametrize("spec", [
    "ismcts:iterations=40,root=halving",
    "ismcts:iterations=40,root=halving,rollout=informed",
    "ismcts:iterations=40,others=policy",
    "oracle:iterations=40,root=halving",
])
@pytest.mark.parametrize("preset,players", [("pagat", 5), ("pagat", 8), ("heli", 6), ("stack", 6), ("tractor", 4)])
def test_search_variants_finish_deals_with_legal_plays(spec, preset, players):
    """Every search variant plays whole deals (play_deal rejects an illegal action)."""
    rules = Rules.preset(preset, players=players)
    bots = [make_bot(spec) if seat % 2 == 0 else make_bot("heuristic") for seat in range(players)]
    s = play_deal(rules, players + 3, bots, random.Random(players))
    assert s.is_terminal() and s.result is not None


def _first_play_view(rules: Rules, seed: int):
    """The view of the seat to play the first card of a deal dealt and
    prepared by random actions from ``seed``."""
    from core.state import PLAY_PHASE, State

    s = State(rules, seed=seed)
    rng = random.Random(seed)
    while s.phase != PLAY_PHASE:
        s.apply(s.random_legal_action(rng))
    return s.view(s.current_player())


def test_halving_spends_the_budget_and_is_reproducible():
    rules = Rules.preset("pagat", players=6)
    view = _first_play_view(rules, 11)
    picks = []
    for _ in range(2):
        bot = make_bot("ismcts:iterations=600,root=halving")
        bot.restart(rules, view.seat, random.Random(3))
        picks.append(bot.step(view))
        # every round spends its share; rounding loses at most a few playouts per round
        assert 500 <= bot.last_iterations <= 600
    assert picks[0] == picks[1] and picks[0] in list(view.legal_actions())


def test_search_parameters_are_validated():
    for bad in ("ismcts:iterations=0", "ismcts:reward=money", "ismcts:widen_alpha=2", "ismcts:rollout=smart",
                "ismcts:root=best", "ismcts:others=guess", "ismcts:root=halving,seconds=1", "ismcts:late=-1"):
        with pytest.raises(ValueError):
            make_bot(bad)


TREE_TABLES = [
    ("pagat", 6, {}),
    ("pagat", 5, {"kitty_multiplier": "by_cards"}),
    ("pagat", 8, {"kitty_multiplier": "unit_power"}),
    ("heli", 6, {"kitty_multiplier": "unit_double"}),
    ("bottom-eight", 5, {"kitty_multiplier": "cards_per_player"}),
    ("stack", 6, {}),
    ("pagat", 12, {}),
    ("pagat", 12, {"bombs": "any_suit", "throw_winner": "longest"}),
    ("tractor", 4, {}),
    ("pagat", 7, {"failed_throw": "end_deal", "kitty_multiplier": "pairs_power"}),
]
TREE_SPECS = [
    "ismcts:iterations=300",
    "ismcts:iterations=300,reward=game",
    "ismcts:iterations=300,reward=late,late=40",
    "ismcts:iterations=300,rollout=random,c=0.2",
    "ismcts:iterations=300,others=policy,rollout=informed",
    "ismcts:iterations=300,widen_c=1.0,widen_alpha=0.8",
    "ismcts:iterations=300,race=0.8",
    "ismcts:iterations=300,others=policy,race=1",
    "ismcts:iterations=300,standing=4",
    "ismcts:iterations=300,standing=2,infer=maker",
    "ismcts:iterations=300,infer=table",
    "ismcts:iterations=300,reuse=3",
    "ismcts:iterations=300,steady=1",
]


@pytest.mark.parametrize("preset,players,overrides", TREE_TABLES)
def test_c_tree_matches_the_python_reference(preset, players, overrides):
    """The C search tree makes the reference loop's choices exactly: the same
    root children, visits, reward totals and availability counts."""
    from core.state import PLAY_PHASE, State

    rules = Rules.preset(preset, players=players, **overrides)
    compared = 0
    for seed in range(3):
        rng = random.Random(seed)
        s = State(rules, seed=seed)
        while s.phase != PLAY_PHASE:
            s.apply(s.random_legal_action(rng))
        for _ in range(rng.randrange(0, 3 * players)):       # somewhere in the first tricks
            s.apply(s.random_legal_action(rng))
        view = s.view(s.current_player())
        for spec in TREE_SPECS:
            stats = []
            for search in (lambda bot, view: bot.search(view), search_reference):
                bot = make_bot(spec)
                bot.restart(rules, view.seat, random.Random(seed))
                root = search(bot, view)
                stats.append([(c.cards, c.visits, c.total, c.avail) for c in root.children.values()])
            assert stats[0] == stats[1], (preset, seed, spec)
            assert sum(v for _, v, _, _ in stats[0]) == 300
            compared += 1
    assert compared == 3 * len(TREE_SPECS)


def test_reward_late_plays_for_game_points_only_late_in_the_deal():
    """reward=late values a finished play by the card margin while the seat
    holds more than `late` cards, and by game points (the margin a tenth as
    much) from then on: the play that keeps the opponents under a band edge
    beats one that only takes more points."""
    from core.scoring import card_share

    rules = Rules.preset("pagat", players=6)
    view = _first_play_view(rules, 3)
    held = len(view.hand)
    early, late = make_bot(f"ismcts:reward=late,late={held - 1}"), make_bot(f"ismcts:reward=late,late={held}")
    for bot in (early, late):
        bot.restart(rules, view.seat, random.Random(0))
    assert early.value_at(view) is None
    value = late.value_at(view)
    assert value is not None
    for opp in (0, 35, 75, 80, 155, 160, 199, 200):
        assert value(opp, 3) == late._game_value(opp, 3) + card_share(rules, opp) / 10
    # 75 points against keep a one-level win; 80 lose it: the margins alone differ by 0.05
    assert value(75, 3) - value(80, 3) > 2 > card_share(rules, 75) - card_share(rules, 80)
    # a short maker side wins more (the table's multiplier), loses the same
    assert value(75, 1) > value(75, 3) and value(80, 1) == value(80, 3)


def test_game_values_follow_the_rules_of_each_deal():
    import random

    from core.scoring import MAKER, score_deal

    bot = make_bot("ismcts:reward=game")
    for rules in (Rules.preset("pagat", players=6), Rules.preset("heli", players=6),
                  Rules.preset("pagat", players=6)):
        bot.restart(rules, 0, random.Random(1))
        for opp in (0, 45, 80, 120, 160):
            sc = score_deal(rules, opp, 2)
            want = float(sc.game_points if sc.winner == MAKER else -sc.game_points if sc.winner else 0)
            assert bot._game_value(opp, 2) == want, (rules.name, opp)


@pytest.mark.parametrize("preset,players,others", [("tractor", 4, "policy"), ("pagat", 6, "search"),
                                                   ("heli", 6, "search")])
def test_the_defaults_at_each_table(preset, players, others):
    """``rollout=auto`` (the default): partner-aware informed playouts at every
    table, racing for a live call half the time, in worlds that read the
    maker; ``others=auto``: the other seats play the playout policy inside
    the tree where partners are fixed and known from the start, and are
    searched where they are called. Settings named in the spec are kept at
    every table."""
    from bots.ismcts import ROLLOUTS, IsmctsBot

    rules = Rules.preset(preset, players=players)
    bot = make_bot("ismcts:iterations=10")
    assert isinstance(bot, IsmctsBot) and bot.rollout == "auto"
    bot.restart(rules, 0, random.Random(0))
    assert ROLLOUTS[bot.policy] == "informed" and (bot.race, bot.infer) == (0.5, "maker")
    assert bot.others == "auto" and bot.others_policy == (others == "policy")
    named = make_bot("ismcts:iterations=10,rollout=greedy,others=search")
    named.restart(rules, 0, random.Random(0))
    assert ROLLOUTS[named.policy] == "greedy" and not named.others_policy


@pytest.mark.parametrize("root", ["ucb", "halving"])
def test_search_hands_an_undealable_view_to_its_fallback(monkeypatch, root):
    """Where the sampler finds no world agreeing with the view (SamplingError),
    the search's play is the fallback bot's, the deal goes on, and the bot
    counts it; the other plays are still searched."""
    import core.sample
    from core.errors import SamplingError

    real = core.sample.Sampler.sample
    calls = {"n": 0}

    def flaky(self, rng):
        calls["n"] += 1
        if calls["n"] % 3 == 0:
            raise SamplingError("no consistent deal found in 0 tries")
        return real(self, rng)

    monkeypatch.setattr(core.sample.Sampler, "sample", flaky)
    rules = Rules.preset("pagat", players=5)
    bot = make_bot(f"ismcts:iterations=4,root={root}")
    bots = [bot] + [make_bot("random") for _ in range(4)]
    s = play_deal(rules, 3, bots, random.Random(3))
    assert s.is_terminal() and s.result is not None
    assert bot.sampling_failures > 0


def test_each_view_starts_its_table_one_demotion_short_of_the_last(monkeypatch):
    """``IsmctsBot.uniform``: the first view of a deal counts its table from
    no demotion; each later view starts one round short of what the view
    before it needed (a hint of the bot's own, not shared with another bot
    nor carried into the next deal). A 12-seat deal needs demotions."""
    import bots.ismcts as ismcts
    from core.sample import Sampler

    made: list[tuple[int, int, int]] = []        # (seat, demote_from, rounds)

    class Recorded(Sampler):
        def __init__(self, view, max_tries=100_000, demote_from=0):
            super().__init__(view, max_tries, demote_from)
            made.append((view.seat, demote_from, self.rounds))

    monkeypatch.setattr(ismcts, "Sampler", Recorded)
    rules = Rules.preset("shengji-online", players=12)
    searchers = {0: make_bot("ismcts:iterations=4"), 6: make_bot("ismcts:iterations=4")}
    for deal in range(2):
        seats = [searchers.get(seat) or make_bot("random") for seat in range(12)]
        start = len(made)
        play_deal(rules, 3 + deal, seats, random.Random(3 + deal))
        for seat in searchers:
            mine = [(hint, rounds) for s, hint, rounds in made[start:] if s == seat]
            assert mine and mine[0][0] == 0, (deal, seat, mine)
            for (_, before), (hint, _) in zip(mine, mine[1:]):
                assert hint == max(0, before - 1), (deal, seat, mine)
    assert max(rounds for _, _, rounds in made) > 1, made
