"""House rules other engines offer, each a setting with today's behaviour as
its default: open bands above the top of the scoring table, and restrictions
on what a friend call may name. Every value is worked out by hand."""

from __future__ import annotations

import random

import pytest
from test_state_phases import build_deck

from core import kernel
from core.actions import Action
from core.cards import card_name, parse_card, parse_cards, points, rank_of
from core.errors import IllegalActionError, PengyouError, RulesError
from core.levels import PlayerLevel, apply_deal
from core.match import play_random_match
from core.rules import Rules
from core.scoring import MAKER, OPPONENTS, score_deal
from core.state import CALL_PHASE, DRAW, State

# (scoring, packs, opponents' points, capped gain, open gain): the opponents' side of each table;
# the last band starts at 100p (pagat) or 5 * 20p (bands, heli); open adds one per further 20p
OPEN = [
    ("pagat", 2, 199, 2, 2), ("pagat", 2, 200, 3, 3), ("pagat", 2, 239, 3, 3), ("pagat", 2, 240, 3, 4),
    ("pagat", 2, 320, 3, 6), ("pagat", 3, 300, 3, 3), ("pagat", 3, 359, 3, 3), ("pagat", 3, 360, 3, 4),
    ("bands", 2, 200, 3, 3), ("bands", 2, 240, 3, 4), ("bands", 2, 279, 3, 4), ("bands", 2, 280, 3, 5),
    ("bands", 3, 300, 3, 3), ("bands", 3, 420, 3, 5), ("heli", 2, 260, 3, 4), ("heli", 4, 480, 3, 4),
]


@pytest.mark.parametrize("scoring,packs,opp,capped,opened", OPEN)
def test_open_bands_go_on_past_the_top(scoring, packs, opp, capped, opened):
    players = {2: 6, 3: 9, 4: 12}[packs]
    base = Rules.preset("pagat", players=players, scoring=scoring, short_side_multiplier=False)
    assert base.packs == packs
    for setting, gain in (("capped", capped), ("open", opened)):
        sc = score_deal(base.replace(bands_above_top=setting), opp, maker_side_size=1)
        assert (sc.winner, sc.game_points) == (OPPONENTS, gain), (setting, sc)


@pytest.mark.parametrize("opp", [0, 35, 75, 80, 115, 120, 160])
def test_open_bands_change_nothing_below_the_top(opp):
    r = Rules.preset("tractor")
    assert score_deal(r, opp, 2) == score_deal(r.replace(bands_above_top="open"), opp, 2)


def test_open_bands_never_reward_the_maker_more():
    r = Rules.preset("pagat", players=6, bands_above_top="open")
    assert score_deal(r, 0, 3) == (MAKER, 2, MAKER)


def _call_state(seed: int, rules: Rules, level: int = 2) -> State:
    """A deal played at random to its call phase, every seat at ``level``."""
    rng = random.Random(seed)
    s = State(rules, seed=seed, levels=[PlayerLevel(level, True)] * rules.players)
    while s.phase != CALL_PHASE:
        s.apply(s.random_legal_action(rng))
    return s


def _called_faces(s: State) -> set[int]:
    return {a.cards[0] for a in s.legal_actions()}


@pytest.mark.parametrize("seed", range(4))
def test_no_point_cards_called(seed):
    free = _call_state(seed, Rules.preset("pagat", players=6))
    strict = _call_state(seed, Rules.preset("pagat", players=6, call_points=False))
    assert strict.trump == free.trump
    pointed = {f for f in _called_faces(free) if points((f,))}
    assert len(pointed) == 12 - 3 * (free.trump.suit is not None) - (free.trump.rank in (5, 10, 13)) * 3
    assert _called_faces(strict) == _called_faces(free) - pointed
    f = min(pointed)
    why = strict.action_error(Action.call(f, 1))
    assert why == f"{card_name(f)} is a point card: these rules call no point cards"


@pytest.mark.parametrize("level,highest", [(2, 14), (9, 14), (14, 13)])
def test_no_highest_card_called(level, highest):
    r = Rules.preset("pagat", players=6, call_highest=False)
    s = _call_state(3, r, level)
    assert s.trump.rank == level
    faces = _called_faces(s)
    assert not any(rank_of(f) == highest for f in faces)
    assert any(rank_of(f) == highest - 1 for f in faces)
    suit = next(x for x in range(4) if x != s.trump.suit)
    top = parse_card(("K" if highest == 13 else "A") + "CDHS"[suit])
    assert s.action_error(Action.call(top, 1)) == \
        f"{card_name(top)} is the highest card of its suit: these rules do not call it"
    free = _call_state(3, Rules.preset("pagat", players=6), level)
    assert {f for f in _called_faces(free) if rank_of(f) != highest} == faces


@pytest.mark.parametrize("seed", range(4))
def test_trumps_called_only_with_call_trumps(seed):
    free = _call_state(seed, Rules.preset("pagat", players=6))
    trumps = _call_state(seed, Rules.preset("pagat", players=6, call_trumps=True))
    assert trumps.trump == free.trump
    ctx = kernel.context(free.trump, False)
    assert not any(ctx.is_trump(f) for f in _called_faces(free))
    added = _called_faces(trumps) - _called_faces(free)
    assert added == {f for f in range(54) if ctx.is_trump(f)}
    rj = parse_card("RJ")
    assert free.action_error(Action.call(rj, 1)) == "RJ is a trump: only non-trump cards can be called"
    assert trumps.action_error(Action.call(rj, 2)) is None
    assert trumps.action_error(Action.call(rj, 3)) == "ordinal 3 is more than the 2 packs"


def test_a_joker_the_deal_lacks_cannot_be_called():
    r = Rules.preset("pagat", players=7, call_trumps=True)          # seven seats: no jokers
    s = _call_state(1, r)
    assert s.action_error(Action.call(parse_card("BJ"), 1)) == "the deal has no BJ"
    nine = _call_state(1, Rules.preset("pagat", players=9, call_trumps=True))    # 3 red jokers, no black
    assert nine.action_error(Action.call(parse_card("RJ"), 3)) is None
    assert nine.action_error(Action.call(parse_card("BJ"), 1)) == "the deal has no BJ"


def test_a_called_trump_reveals_its_player():
    """Deals whose maker calls a trump: the seat playing the called copy joins the side."""
    r = Rules.preset("pagat", players=6, call_trumps=True, friend_calls=1)
    joined = 0
    for seed in range(30):
        s = _call_state(seed, r)
        ctx = kernel.context(s.trump, False)
        call = next(a for a in s.legal_actions() if ctx.is_trump(a.cards[0]) and a.ordinal == 1)
        s.apply(call)
        rng = random.Random(seed)
        first = None
        while not s.is_terminal():
            a = s.random_legal_action(rng)
            if first is None and call.cards[0] in a.cards:
                first = s.current_player()
            s.apply(a)
        if first is not None and first != s.maker:
            assert first in s.result.maker_side
            joined += 1
    assert joined >= 10


@pytest.mark.parametrize("text,setting", [("bands_above_top", "sometimes"), ("call_points", 0),
                                          ("call_highest", "no")])
def test_bad_values_name_the_setting(text, setting):
    with pytest.raises(RulesError, match=f"^{text}: "):
        Rules.preset("pagat", **{text: setting})


def test_every_deal_still_finds_its_calls_under_both_restrictions():
    r = Rules.preset("pagat", players=12, call_points=False, call_highest=False)
    rng = random.Random(5)
    for seed in range(20):
        s = State(r, seed=seed)
        while not s.is_terminal():
            s.apply(s.random_legal_action(rng))
        for f, _ in s.calls:
            assert not points((f,)) and rank_of(f) != (13 if s.trump.rank == 14 else 14)


def _played(rules: Rules, seed: int) -> State:
    rng = random.Random(seed)
    s = State(rules, seed=seed)
    while not s.is_terminal():
        s.apply(s.random_legal_action(rng))
    return s


def _self_overrides(s: State) -> list[tuple[int, int]]:
    """(face before, face after) for each exposure that overrode the same seat's own."""
    out, standing = [], None
    for seat, kind, cards in s.exposures:
        if kind == "expose":
            if standing is not None and standing[0] == seat:
                out.append((standing[1], cards[0]))
            standing = (seat, cards[0])
        elif kind == "defend":
            standing = (seat, cards[0])
    return out


@pytest.mark.parametrize("setting", ["none", "reinforce", "any"])
def test_self_overcall(setting):
    """Over 300 random 5-player deals: never with ``none``; the same face only
    with ``reinforce``; and another suit too with ``any``."""
    r = Rules.preset("pagat", players=5, self_overcall=setting)
    seen = [pair for seed in range(300) for pair in _self_overrides(_played(r, seed))]
    if setting == "none":
        assert seen == []
    else:
        assert seen, "no self-override in 300 deals"
        same = all(a == b for a, b in seen)
        assert same if setting == "reinforce" else not same


def test_a_seat_reinforcing_itself_is_not_asked_to_defend():
    r = Rules.preset("pagat", players=5, self_overcall="reinforce")
    for seed in range(300):
        s = _played(r, seed)
        kinds = [(seat, kind) for seat, kind, _ in s.exposures]
        for (a, k1), (b, k2) in zip(kinds, kinds[1:]):
            assert not (k2 == "defend" and a == b and k1 == "expose")


@pytest.mark.parametrize("setting", ["standing", "first"])
def test_the_maker_is_the_standing_or_the_first_declarer(setting):
    r = Rules.preset("pagat", players=6, maker_by=setting)
    differ = 0
    for seed in range(120):
        s = _played(r, seed)
        shows = [(seat, cards[0]) for seat, kind, cards in s.exposures if kind in ("expose", "defend")]
        first, (standing, face) = shows[0][0], shows[-1]
        assert s.maker == (first if setting == "first" else standing)
        assert (s.trump.rank, s.trump.suit) == (rank_of(face), face // 13)      # trump: the standing exposure
        differ += first != standing
    assert differ > 0                            # the two readings part somewhere in these deals


# (level, levels won, on the maker's side) -> level after, under must_defend "points"
DEFEND = [
    (4, 3, False, 5), (4, 3, True, 5), (5, 1, False, 5), (5, 1, True, 6), (5, 3, True, 8),
    (9, 3, True, 10), (10, 2, True, 12), (12, 3, True, 13), (13, 2, False, 13), (11, 5, False, 13),
    (6, 2, False, 8), (13, 3, True, 14),
]


@pytest.mark.parametrize("level,gain,defending,after", DEFEND)
def test_must_defend_points(level, gain, defending, after):
    r = Rules.preset("tractor", must_defend="points")
    levels = [PlayerLevel(level, True)] * 4
    side = {0, 2} if defending else {1, 3}
    got = apply_deal(r, levels, {0, 2}, gain, maker_side=side)
    assert [lv.level for lv in got] == [after, level, after, level]
    free = apply_deal(r.replace(must_defend="none"), levels, {0, 2}, gain, maker_side=side)
    assert free[0].level == min(level + gain, 14)


# ace_joker (rbtying/shengji's advancement Unrestricted up to the NoTrump rank): (winner's level, the
# maker's level, levels won, on the maker's side) -> level after; 14 is A, 15 the Joker level, 16 is 2+
ACE_JOKER = [
    (13, 13, 3, True, 14),      # climbs to A and stops there
    (14, 14, 2, True, 15),      # passes A with the first level only
    (14, 14, 1, False, 14),     # attacking at A: held
    (15, 15, 1, True, 16),      # a Joker level defended in a deal played at it: on to 2+
    (15, 15, 3, True, 18),      # passed with the first level; 2+ and 3+ are not held
    (15, 9, 2, True, 15),       # on the maker's side, but the deal was played at 9: held at Joker
    (15, 15, 2, False, 15),     # attacking at Joker: held
    (12, 15, 2, False, 14),     # attackers climb Q, K, A and stop
    (28, 29, 3, True, 29),      # A+ passed (first level) up to Joker+, and held there
    (29, 29, 1, True, 30),      # Joker+ defended at Joker+: 2++
]


@pytest.mark.parametrize("level,maker_level,gain,defending,after", ACE_JOKER)
def test_must_defend_ace_joker(level, maker_level, gain, defending, after):
    r = Rules.preset("pagat", players=5, joker_level=True, must_defend="ace_joker")
    levels = [PlayerLevel(level, True), PlayerLevel(maker_level, True)] + [PlayerLevel(2, True)] * 3
    side = {0, 1} if defending else {1, 2}
    got = apply_deal(r, levels, {0}, gain, maker_side=side, maker=1)
    assert got[0].level == after
    with pytest.raises(PengyouError, match="^maker: needed"):
        apply_deal(r, levels, {0}, gain, maker_side=side)


def test_must_defend_ace_joker_needs_the_joker_level():
    with pytest.raises(RulesError, match="^must_defend and joker_level"):
        Rules.preset("pagat", players=5, must_defend="ace_joker")


def test_must_defend_needs_the_maker_side():
    r = Rules.preset("tractor", must_defend="points")
    with pytest.raises(PengyouError, match="^maker_side: needed"):
        apply_deal(r, [PlayerLevel(5, True)] * 4, {0, 2}, 1)


@pytest.mark.parametrize("seed", range(3))
def test_a_match_under_must_defend_never_passes_a_point_rank_in_attack(seed):
    r = Rules.preset("pagat", players=6, must_defend="points", target_rank=14)
    m = play_random_match(r, seed=seed, max_deals=25)
    for i, s in enumerate(m.deals):
        before = m.level_history[i]
        after = m.level_history[i + 1] if i + 1 < len(m.deals) else m.levels
        res = s.result
        for seat in range(6):
            for lv in range(before[seat].level, after[seat].level):
                if lv in (5, 10, 13):
                    assert seat in res.maker_side and lv == before[seat].level, (i, seat, lv)


def _all_pass(rules: Rules, seed: int, starter: int = 0) -> State:
    """A deal where nobody exposes: every draw decision passes; the rest is random."""
    s = State(rules, seed=seed, starter=starter)
    while s.phase == DRAW:
        s.apply(Action.pass_())
    return s


def test_nobody_exposing_redeals_by_default():
    with pytest.raises(IllegalActionError, match="nobody made trump in 50 deals"):
        _all_pass(Rules.preset("pagat", players=5), 1)


@pytest.mark.parametrize("seed,starter", [(1, 0), (2, 3), (3, 4)])
@pytest.mark.parametrize("kitty_suit", ["level_or_highest", "first_card", "top_card"])
def test_nobody_exposing_the_starter_makes_trump_from_the_kitty(seed, starter, kitty_suit):
    r = Rules.preset("pagat", players=5, no_declaration="kitty", kitty_suit=kitty_suit)
    s = _all_pass(r, seed, starter)
    assert s.redeals == 0 and s.maker == starter
    kitty = s.decks[0][5 * r.hand_size:]
    assert s.trump.rank == 2                              # the starter's level
    seat, kind, turned = s.exposures[-1]
    assert (seat, kind) == (starter, "turned")
    turned = list(turned)
    assert sorted(turned) == sorted(kitty[:len(turned)])
    plain = [f for f in kitty if f < 52]
    if kitty_suit == "first_card":
        want = plain[0] // 13 if plain else None
        assert len(turned) == (kitty.index(plain[0]) + 1 if plain else len(kitty))
    elif kitty_suit == "top_card":
        want = kitty[0] // 13 if kitty[0] < 52 else None
        assert turned == kitty[:1]
    else:
        of_rank = [f for f in kitty if f < 52 and rank_of(f) == 2]
        if of_rank:
            want = of_rank[0] // 13
        else:
            top = max(rank_of(f) for f in plain)
            want = next(f for f in plain if rank_of(f) == top) // 13
    assert s.trump.suit == want
    hand = list(s.hand(starter))                          # the kitty went to the maker
    assert len(hand) == r.hand_size + r.kitty_size and all(hand.count(f) >= kitty.count(f) for f in kitty)


def test_a_set_maker_turns_the_kitty_by_the_same_rule():
    """heli's later deals: no exposure, the kitty names the suit, first_card here."""
    r = Rules.preset("heli", players=5, kitty_suit="first_card")
    for seed in range(10):
        s = State(r, seed=seed, maker=2)
        while s.phase == DRAW:
            s.apply(Action.pass_())
        kitty = s.decks[-1][5 * r.hand_size:]
        plain = [f for f in kitty if f < 52]
        assert s.maker == 2 and s.trump.suit == (plain[0] // 13 if plain else None)


# (kitty's first cards, kitty_suit, trump suit named, cards turned): heli, five seats, seat 2 the maker at 2
TURNED = [
    ("RJ 7H", "top_card", None, "RJ"),
    ("RJ 7H", "first_card", 2, "RJ 7H"),
    ("7H BJ", "top_card", 2, "7H"),
    ("BJ 2S 7H", "top_card", None, "BJ"),
    ("BJ 2S 7H", "level_or_highest", 3, "BJ 2S"),
    ("KD 2S", "top_card", 1, "KD"),
]


@pytest.mark.parametrize("kitty,kitty_suit,suit,turned", TURNED)
def test_the_kitty_names_the_suit(kitty, kitty_suit, suit, turned):
    """A maker set by the deal before, nobody exposing: the kitty names the
    suit; ``top_card`` (rbtying/shengji's first card) turns one card only,
    and a joker there leaves no trump suit."""
    r = Rules.preset("heli", players=5, kitty_suit=kitty_suit)
    s = State(r, maker=2, decks=[build_deck(r, {}, kitty=kitty, late_ranks=(2,))])
    while s.phase == DRAW:
        s.apply(Action.pass_())
    assert s.trump.rank == 2 and s.trump.suit == suit
    assert s.exposures == [(2, "turned", parse_cards(turned))]


# (calls, plays as (seat, cards), filled by counts, filled by skipped): maker 0, seven seats
BY_SIDE = [
    ([("AC", 1)], [(0, "AC"), (3, "AC")], [0], [3]),
    ([("AC", 2)], [(0, "AC"), (3, "AC")], [3], [None]),
    ([("AC", 2)], [(0, "AC"), (3, "AC"), (5, "AC")], [3], [5]),
    ([("AC", 1), ("KD", 1)], [(2, "AC"), (2, "KD"), (4, "KD")], [2, 2], [2, 4]),
    ([("AC", 1), ("AC", 2)], [(1, "AC AC"), (3, "AC")], [1, 1], [1, None]),
    ([("AC", 0), ("KD", 1)], [(2, "KD"), (0, "AC"), (2, "AC"), (6, "AC")], [2, 2], [6, 2]),
]


@pytest.mark.parametrize("calls,plays,counts,skipped", BY_SIDE)
def test_call_by_side(calls, plays, counts, skipped):
    from core.cards import Trump
    from core.play import PlayCore
    r = Rules.preset("pagat", players=7, friend_other=True, friend_calls=len(calls))
    faces = [(parse_card(c), o) for c, o in calls]
    for setting, want in (("counts", counts), ("skipped", skipped)):
        filled, _ = PlayCore.calls_after(r.replace(call_by_side=setting), Trump(3, 0), 0, faces, plays)
        assert filled == want, setting


@pytest.mark.parametrize("setting", ["counts", "skipped"])
def test_views_count_the_calls_as_the_engine_does(setting):
    """At random points of random deals, the calls a view's replay counts are the engine's own,
    and under skipped no call is ever filled by a seat already on the maker's side."""
    from core.view import calls_seen
    r = Rules.preset("pagat", players=8, call_by_side=setting)
    rng = random.Random(17)
    checked = 0
    for seed in range(40):
        s = State(r, seed=seed)
        while not s.is_terminal():
            if s.play is not None and rng.random() < 0.1:
                assert calls_seen(s.view(rng.randrange(8))) == s.play.calls_seen
                checked += 1
            s.apply(s.random_legal_action(rng))
        filled = [x for x in s.play.calls_filled if x is not None]
        if setting == "skipped":
            assert s.maker not in filled and len(set(filled)) == len(filled)
    assert checked > 100


def _draw_decisions(rules: Rules, seed: int, prefer_jokers: bool):
    """A deal played to its end, preferring joker bids when ``prefer_jokers``;
    yields (state, options) at each draw decision before the choice."""
    from core.actions import EXPOSE
    from core.state import DRAW as DRAW_PHASE
    rng = random.Random(seed)
    s = State(rules, seed=seed)
    while not s.is_terminal():
        if s.phase == DRAW_PHASE:
            opts = list(s.legal_actions())
            yield s, opts
            bids = [a for a in opts if a.kind == EXPOSE and a.cards[0] >= 52]
            if prefer_jokers and bids and rng.random() < 0.8:
                s.apply(rng.choice(bids))
                continue
        s.apply(s.random_legal_action(rng))
    yield s, []


@pytest.mark.parametrize("preset,players", [("pagat", 6), ("heli", 6), ("tractor", 4), ("bottom-eight", 5)])
def test_joker_bids(preset, players):
    """Joker pairs bid for no trump: offered only as pairs or more, only where
    they outrank the standing exposure; a defence never beats a higher bid;
    a standing joker bid makes the bidder's rank trump with no trump suit."""
    from core.trump_making import exposure_key
    r = Rules.preset(preset, players=players, joker_bids="pairs")
    stood = 0
    for seed in range(60):
        last = None
        for s, opts in _draw_decisions(r, seed, prefer_jokers=True):
            if s._defender is not None:
                ch, ex = s._challenger, s._exp
                assert exposure_key(ex.face, ch.count) >= exposure_key(ch.face, ch.count)
            elif s.phase == DRAW:
                for a in opts:
                    f = a.cards[0] if a.cards else None
                    if f is not None and f >= 52:
                        assert len(a.cards) >= 2 and s._hands[s.current_player()][f] >= len(a.cards)
                        if s._exp is not None:
                            assert exposure_key(f, len(a.cards)) > exposure_key(s._exp.face, s._exp.count)
            last = s
        if last._exp is not None and last._exp.face >= 52 and last.fixed_maker is None:
            stood += 1
            from core.levels import level_rank
            assert last.trump.suit is None
            assert last.trump.rank == level_rank(last.levels[last._exp.seat].level, r)
    free = Rules.preset(preset, players=players)
    for seed in range(10):
        for _s, opts in _draw_decisions(free, seed, prefer_jokers=False):
            assert not any(a.cards and a.cards[0] >= 52 for a in opts)
    if preset != "bottom-eight":
        assert stood >= 5, stood
