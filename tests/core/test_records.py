"""Deal and match records (``core/records.py``): JSON lines that replay.

Round trips: a deal (or match) played between random players is written,
read back and replayed, and every seat's view (``str(state.view(seat))``)
after every action must be the same in the replay as in the original run.
Corrupt records are refused with a one-line ``InvalidActionError`` naming
the line.
"""

from __future__ import annotations

import copy
import dataclasses
import io
import json
import random

import pytest

from core.actions import Action
from core.cards import Cards, card_name, format_cards, parse_card
from core.errors import InvalidActionError
from core.match import Match, play_random_match
from core.levels import PlayerLevel
from core.account import account, deal_account, match_account
from core.records import (
    deal_record, match_record, read_deal, read_match,
    read_records, replay_deal, replay_match, rules_json, write_deal, write_match, write_records,
)
from core.rules import PRESETS, Rules
from core.state import DRAW, State, seed_decks

CONFIGS = [("pagat", n) for n in range(5, 13)] + [
    ("heli", 5), ("heli", 7), ("thirteen", 6), ("bottom-eight", 5), ("stack", 6), ("tractor", 4),
    ("shengji-online", 5), ("shengji-online", 8)]
SEEDS = [1, 7, 23]


def views(state: State) -> tuple[str, ...]:
    return tuple(str(state.view(i)) for i in range(state.rules.players))


def play(state: State, rng: random.Random, log: list | None = None) -> State:
    """Random play to the end, logging every seat's view after every action."""
    if log is not None:
        log.append(views(state))
    while not state.is_terminal():
        state.apply(state.random_legal_action(rng))
        if log is not None:
            log.append(views(state))
    return state


def replay_views(records, replay=replay_deal):
    log: list = []
    result = replay(records, lambda s: log.append(views(s)))
    return result, log


def played(preset="pagat", players=6, seed=1, **kw) -> tuple[State, list]:
    log: list = []
    s = play(State(Rules.preset(preset, players=players), seed=seed, **kw), random.Random(seed), log)
    return s, log


def check_error(exc_info, *fragments):
    err = exc_info.value
    assert isinstance(err, InvalidActionError), type(err)
    msg = str(err)
    assert msg and "\n" not in msg and "\r" not in msg, repr(msg)
    for frag in fragments:
        assert frag in msg, (frag, msg)


def refuse(records, *fragments, replay=replay_deal):
    with pytest.raises(InvalidActionError) as ei:
        replay(records)
    check_error(ei, *fragments)


def lines_of(records) -> list[str]:
    f = io.StringIO()
    write_records(records, f)
    return f.getvalue().splitlines()


def from_lines(lines) -> list:
    return read_records(io.StringIO("\n".join(lines) + "\n"))


# --------------------------------------------------------------------------
# round trips


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("preset,players", CONFIGS, ids=[f"{p}-{n}" for p, n in CONFIGS])
def test_deal_round_trip_every_view(preset, players, seed, tmp_path):
    state, log = played(preset, players, seed)
    path = tmp_path / "deal.jsonl"
    write_deal(state, path)
    records = read_deal(path)
    assert records == deal_record(state)
    again, log2 = replay_views(records)
    assert len(log2) == len(log) == len(state.history) + 1
    for i, (a, b) in enumerate(zip(log, log2)):
        assert a == b, f"views differ after action {i}"
    assert again.result == state.result
    assert again.returns() == state.returns()
    assert again.history == state.history
    assert again.decks == state.decks
    # every line is one JSON object; the action lines are exactly seat + action
    text = path.read_text(encoding="utf-8").splitlines()
    assert len(text) == len(state.history) + 2
    assert all(set(json.loads(t)) == {"seat", "action"} for t in text[1:-1])


def test_header_and_result_lines():
    state, _ = played("pagat", 6, 5)
    recs = deal_record(state)
    head, result = recs[0], recs[-1]
    assert list(head) == ["type", "version", "rules", "seed", "starter", "levels", "maker", "decks"]
    assert head["type"] == "deal" and head["version"] == 1
    assert head["rules"] == rules_json(state.rules)
    assert list(head["rules"]) == [f.name for f in dataclasses.fields(Rules)]
    assert head["seed"] == 5 and head["starter"] == 0 and head["maker"] is None
    assert head["levels"] == [[2, True]] * 6
    assert [[parse_card(c) for c in d] for d in head["decks"]] == state.decks
    assert all(isinstance(c, str) for d in head["decks"] for c in d)
    res = state.result
    assert result == {
        "type": "result", "maker": res.maker, "maker_side": sorted(res.maker_side),
        "opponents_points": res.opponents_points, "kitty_points": res.kitty_points,
        "kitty_multiplier": res.kitty_multiplier, "kitty_to_opponents": res.kitty_to_opponents,
        "winner": res.winner, "game_points": res.game_points, "next_side": res.next_side,
        "returns": state.returns(),
    }
    for (seat, action), line in zip(state.history, recs[1:-1]):
        assert line == {"seat": seat, "action": str(action)}
        assert Action.from_str(line["action"]) == action


@pytest.mark.parametrize("preset,players,levels,starter,maker", [
    ("pagat", 6, [(5, True), (3, False), (5, True), (2, False), (7, True), (7, False)], 3, None),
    ("heli", 5, [(15, True), (4, True), (20, True), (2, True), (9, True)], 4, 0),    # maker at Joker
    ("heli", 6, [(16, True), (29, True)] + [(3, True)] * 4, 1, 1),                 # Joker+ maker
    ("heli", 5, [(13, True), (4, True), (20, True), (2, True), (9, True)], 2, 2),    # maker at 2+
    ("stack", 6, [(9, True), (4, True), (10, True), (2, True), (9, True), (3, True)], 5, 3),
    ("thirteen", 6, [(4, False), (4, True), (3, False), (5, True), (6, False), (6, True)], 2, None),
])
def test_round_trip_levels_starter_maker(preset, players, levels, starter, maker):
    lv = [PlayerLevel(*x) for x in levels]
    for seed in (2, 9):
        state, log = played(preset, players, seed, levels=lv, starter=starter, maker=maker)
        recs = deal_record(state)
        assert recs[0]["levels"] == [list(x) for x in levels]
        assert recs[0]["starter"] == starter and recs[0]["maker"] == maker
        if maker is not None:
            assert state.maker == maker
        again, log2 = replay_views(from_lines(lines_of(recs)))
        assert log2 == log
        assert again.result == state.result


def redealt(rules: Rules, levels, seed: int, log: list | None = None) -> State:
    """A deal whose first draw is passed out (so it is redealt), then random."""
    s = State(rules, seed=seed, levels=levels)
    if log is not None:
        log.append(views(s))
    while s.phase == DRAW and s.redeals == 0:
        s.apply(Action.pass_())
        if log is not None:
            log.append(views(s))
    assert s.redeals >= 1
    return play_rest(s, random.Random(seed), log)


def play_rest(s: State, rng, log) -> State:
    while not s.is_terminal():
        s.apply(s.random_legal_action(rng))
        if log is not None:
            log.append(views(s))
    return s


def test_redealt_deal_round_trip():
    rules = Rules.preset("pagat", players=6)
    levels = [PlayerLevel(4, True), PlayerLevel(3, False), PlayerLevel(4, False),
              PlayerLevel(6, True), PlayerLevel(2, False), PlayerLevel(5, True)]
    log: list = []
    s = redealt(rules, levels, 4, log)
    assert len(s.decks) == s.redeals + 1 >= 2
    assert all(lv.active for lv in s.levels)              # a redeal makes everyone active
    # the state keeps the levels the deal started with, from before the redeal
    assert s.initial_levels == levels
    assert deal_record(s) == deal_record(s, levels)
    recs = deal_record(s)
    assert recs[0]["levels"] == [list(x) for x in levels]
    assert len(recs[0]["decks"]) == len(s.decks)
    again, log2 = replay_views(recs)
    assert log2 == log
    assert again.redeals == s.redeals and again.result == s.result
    # replaying with everyone active from the start is not the same deal
    wrong = copy.deepcopy(recs)
    wrong[0]["levels"] = [[lv.level, True] for lv in levels]
    with pytest.raises(InvalidActionError):
        replay_deal(wrong)
    # one deck too few
    short = copy.deepcopy(recs)
    del short[0]["decks"][-1]
    refuse(short, "fewer decks")


def test_redealt_plain_levels_need_no_levels():
    rules = Rules.preset("heli", players=5)
    log: list = []
    s = redealt(rules, None, 3, log)
    again, log2 = replay_views(deal_record(s))
    assert log2 == log and again.result == s.result


def test_redeal_inside_the_constructor():
    """Everyone passive: nobody may expose, so the first draw is redealt at once."""
    rules = Rules.preset("pagat", players=6)
    levels = [PlayerLevel(3, False)] * 6
    log: list = []
    s = play(State(rules, seed=2, levels=levels), random.Random(2), log)
    assert s.redeals >= 1 and len(s.decks) == s.redeals + 1
    assert s.initial_levels == levels
    recs = deal_record(s)
    again, log2 = replay_views(recs)
    assert log2 == log and again.result == s.result
    lines = deal_account(recs)
    assert lines[1] == "levels: " + "  ".join(f"{i}:passive 3" for i in range(6))
    assert lines[3] == "nobody made trump: redeal 1 by the same starter, everyone active"


def test_account_tells_overrides_and_defences():
    for seed in range(40):
        state, _ = played("pagat", 8, seed)
        kinds = [k for _, k, _ in state.exposures]
        if "defend" in kinds:
            break
    else:
        pytest.fail("none of the first 40 seeds has a defence: choose seeds that do")
    lines = deal_account(deal_record(state))
    told = [x for x in lines if " exposes " in x or " overrides with " in x or " defends with " in x
            or " takes back " in x]
    want = []
    for i, (seat, kind, cards) in enumerate(state.exposures):
        verb = {"expose": "exposes" if i == 0 else "overrides with", "defend": "defends with",
                "withdraw": "takes back"}[kind]
        want.append(f"seat {seat} {verb} {format_cards(cards)}")
    assert told == want


def test_unfinished_deal_record_has_no_result():
    s = State(Rules.preset("pagat", players=6), seed=3)
    rng = random.Random(3)
    for _ in range(40):
        s.apply(s.random_legal_action(rng))
    recs = deal_record(s)
    assert recs[-1].get("type") is None and len(recs) == 41
    refuse(recs, "line 41:", "ends before the result", "truncated")


@pytest.mark.parametrize("preset,players,kw", [
    ("pagat", 6, {"max_deals": 3}),
    ("pagat", 5, {}),                                   # target_rank lowered below
    ("heli", 5, {"max_deals": 4}),
    ("thirteen", 7, {"max_deals": 2}),
    ("bottom-eight", 5, {"max_deals": 3}),
    ("stack", 6, {"max_deals": 4}),
])
def test_match_round_trip_every_view(preset, players, kw, tmp_path):
    over = {"target_rank": 4} if not kw else {}
    rules = Rules.preset(preset, players=players, **over)
    log: list = []
    rng = random.Random(11)
    m = Match(rules, 11, **kw)
    while not m.is_over():
        s = play(m.new_deal(), rng, log)
        m.finish_deal(s)
    path = tmp_path / "match.jsonl"
    write_match(m, path)
    recs = read_match(path)
    assert recs == match_record(m)
    assert recs[0] == {"type": "match", "version": 1, "rules": rules_json(rules), "seed": 11,
                       "max_deals": m.max_deals}
    assert recs[-1] == {"type": "match_result", "deals": len(m.deals),
                        "levels": [[lv.level, lv.active] for lv in m.levels],
                        "game_points_total": m.game_points_total, "over": True}
    assert sum(1 for r in recs if r.get("type") == "deal") == len(m.deals)
    m2, log2 = replay_views(recs, replay_match)
    assert len(log2) == len(log)
    for i, (a, b) in enumerate(zip(log, log2)):
        assert a == b, f"views differ at step {i}"
    assert m2.levels == m.levels and m2.game_points_total == m.game_points_total
    assert m2.starter == m.starter and m2.maker_next == m.maker_next
    assert [s.result for s in m2.deals] == [s.result for s in m.deals]
    assert m2.level_history == m.level_history


def test_unfinished_match_record():
    rules = Rules.preset("pagat", players=6)
    m = Match(rules, 4)
    rng = random.Random(4)
    for _ in range(2):
        m.finish_deal(play(m.new_deal(), rng))
    m.new_deal()                                    # a deal in progress is not recorded
    recs = match_record(m)
    assert recs[-1]["over"] is False and recs[-1]["deals"] == 2
    m2 = replay_match(recs)
    assert m2.levels == m.levels and not m2.is_over()


# --------------------------------------------------------------------------
# corrupt deal records


@pytest.fixture(scope="module")
def deal_lines() -> list[str]:
    state, _ = played("pagat", 6, 8)
    return lines_of(deal_record(state))


@pytest.fixture(scope="module")
def deal_recs(deal_lines) -> list:
    return from_lines(deal_lines)


def test_truncated_at_a_line(deal_recs):
    n = len(deal_recs)
    refuse(deal_recs[:-1], f"line {n - 1}:", "ends before the result", "truncated")
    refuse(deal_recs[:30], "line 30:", "truncated")
    refuse(deal_recs[:1], "line 1:", "truncated")
    refuse([], "line 1:", "empty")


def test_truncated_mid_line(deal_lines, tmp_path):
    text = "\n".join(deal_lines)
    path = tmp_path / "cut.jsonl"
    path.write_text(text[:-20], encoding="utf-8")
    with pytest.raises(InvalidActionError) as ei:
        read_deal(path)
    check_error(ei, f"line {len(deal_lines)}:", "bad JSON")


@pytest.mark.parametrize("bad,what", [
    ("{not json", "bad JSON"),
    ('{"seat": 1, "action": "pass"', "bad JSON"),
    ("[1, 2]", "expected a JSON object"),
    ('"play AS"', "expected a JSON object"),
    ("", "empty line"),
])
def test_bad_json_line(deal_lines, bad, what):
    lines = list(deal_lines)
    lines[4] = bad
    with pytest.raises(InvalidActionError) as ei:
        from_lines(lines)
    check_error(ei, "line 5:", what)


def test_empty_and_missing_files(tmp_path):
    (tmp_path / "empty.jsonl").write_text("\n\n", encoding="utf-8")
    with pytest.raises(InvalidActionError) as ei:
        read_deal(tmp_path / "empty.jsonl")
    check_error(ei, "empty")
    with pytest.raises(InvalidActionError) as ei:
        read_deal(tmp_path / "nope.jsonl")
    check_error(ei, "nope.jsonl", "no such file")
    with pytest.raises(InvalidActionError) as ei:
        read_deal(tmp_path)
    check_error(ei, "cannot read")
    (tmp_path / "bin").write_bytes(b"\xff\xfe\x00junk")
    with pytest.raises(InvalidActionError) as ei:
        read_deal(tmp_path / "bin")
    check_error(ei, "not a UTF-8")


def test_wrong_record_type(deal_lines, tmp_path):
    path = tmp_path / "deal.jsonl"
    path.write_text("\n".join(deal_lines) + "\n", encoding="utf-8")
    with pytest.raises(InvalidActionError) as ei:
        read_match(path)
    check_error(ei, "line 1:", "expected a match record")


def first_play(recs) -> int:
    return next(i for i, r in enumerate(recs) if r.get("action", "").startswith("play"))


def test_wrong_action(deal_recs):
    recs = copy.deepcopy(deal_recs)
    i = first_play(recs)
    recs[i]["action"] = "play " + " ".join(["AS"] * 5)     # nobody holds five AS in two packs
    refuse(recs, f"line {i + 1}:", f"seat {recs[i]['seat']} cannot play")
    recs = copy.deepcopy(deal_recs)
    recs[i]["action"] = "shout AS"
    refuse(recs, f"line {i + 1}:", "bad action")
    recs = copy.deepcopy(deal_recs)
    recs[i]["action"] = "pass"
    refuse(recs, f"line {i + 1}:", "play cards now")
    recs = copy.deepcopy(deal_recs)
    recs[i]["action"] = 42
    refuse(recs, f"line {i + 1}:", "action: expected text")


def test_legal_but_different_action(deal_recs):
    """A different legal play makes the rest of the record (or its result) wrong."""
    recs = copy.deepcopy(deal_recs)
    head = recs[0]
    s = State(Rules(**head["rules"]), seed=head["seed"],
              decks=[[parse_card(c) for c in d] for d in head["decks"]])
    i = 1
    while True:
        seat, text = recs[i]["seat"], recs[i]["action"]
        if text.startswith("play") and s.play.is_leading:
            # (single-card leads from the hand: listing s.legal_actions() at a lead
            # fails, see test_game.py::test_legal_actions_at_a_lead)
            other = [a for a in (Action.play(Cards((f,))) for f in sorted(set(s.hand(seat))))
                     if str(a) != text and a in s.legal_actions()]
            if other:
                recs[i]["action"] = str(other[0])
                break
        s.apply(text)
        i += 1
    with pytest.raises(InvalidActionError) as ei:
        replay_deal(recs)
    check_error(ei, "line ")
    assert int(str(ei.value).split(":")[0].split()[1]) > i


def test_wrong_seat(deal_recs):
    recs = copy.deepcopy(deal_recs)
    i = first_play(recs) + 1
    right = recs[i]["seat"]
    recs[i]["seat"] = (right + 1) % 6
    refuse(recs, f"line {i + 1}:", f"seat {(right + 1) % 6} acting", f"seat {right} is to act")
    recs[i]["seat"] = "1"
    refuse(recs, f"line {i + 1}:", "seat: expected a seat number")


def test_action_line_fields(deal_recs):
    recs = copy.deepcopy(deal_recs)
    del recs[3]["seat"]
    refuse(recs, "line 4:", "missing field 'seat'")
    recs = copy.deepcopy(deal_recs)
    recs[3]["note"] = "hi"
    refuse(recs, "line 4:", "unknown field 'note'")
    recs = copy.deepcopy(deal_recs)
    recs[3]["type"] = "deal"
    refuse(recs, "line 4:", "expected an action or the result")


@pytest.mark.parametrize("field,change", [
    ("opponents_points", lambda v: v + 5),
    ("winner", lambda v: "maker" if v == "opponents" else "opponents"),
    ("game_points", lambda v: v + 1),
    ("maker_side", lambda v: v[:-1]),
    ("maker", lambda v: (v + 1) % 6),
    ("kitty_points", lambda v: v + 10),
    ("kitty_multiplier", lambda v: v * 2),
    ("kitty_to_opponents", lambda v: not v),
    ("next_side", lambda v: None),
    ("returns", lambda v: [-x for x in v]),
    ("game_points", lambda v: float(v)),
])
def test_changed_result(deal_recs, field, change):
    recs = copy.deepcopy(deal_recs)
    recs[-1][field] = change(recs[-1][field])
    refuse(recs, f"line {len(recs)}:", f"result field {field!r}", "in the record, but the replay gives")


def test_result_fields(deal_recs):
    n = len(deal_recs)
    recs = copy.deepcopy(deal_recs)
    del recs[-1]["returns"]
    refuse(recs, f"line {n}:", "missing field 'returns'")
    recs = copy.deepcopy(deal_recs)
    recs[-1]["bonus"] = 3
    refuse(recs, f"line {n}:", "unknown field 'bonus'")
    recs = copy.deepcopy(deal_recs)          # kitty_to_opponents written as 1 / 0
    recs[-1]["kitty_to_opponents"] = int(recs[-1]["kitty_to_opponents"])
    refuse(recs, f"line {n}:", "kitty_to_opponents")


def test_result_too_early_and_lines_after(deal_recs):
    n = len(deal_recs)
    recs = copy.deepcopy(deal_recs)
    del recs[n - 7:n - 1]                    # the last trick (6 plays) is missing
    refuse(recs, f"line {n - 6}:", "not over", "seat ")
    recs = copy.deepcopy(deal_recs) + [{"seat": 0, "action": "pass"}]
    refuse(recs, f"line {n + 1}:", "after the result")
    recs = copy.deepcopy(deal_recs)
    recs.insert(n - 1, {"seat": 0, "action": "play AS"})
    refuse(recs, f"line {n}:", "after the end of the deal")


@pytest.mark.parametrize("change,fragments", [
    (lambda h: h["rules"].update(foo=1), ("line 1:", "unknown rules field 'foo'")),
    (lambda h: h["rules"].pop("throw_penalty"), ("line 1:", "missing rules field 'throw_penalty'")),
    (lambda h: h["rules"].update(players=13), ("line 1:", "rules: players")),
    (lambda h: h["rules"].update(partners="fixed"), ("line 1:", "rules: partners and")),
    (lambda h: h["rules"].update(kitty_multiplier="triple"), ("line 1:", "kitty_multiplier")),
    (lambda h: h["rules"].update(failed_throw="stop"), ("line 1:", "failed_throw: 'stop' is not one of")),
    (lambda h: h["rules"].update(name=3), ("line 1:", "name")),
    (lambda h: h.__setitem__("rules", "pagat"), ("line 1:", "rules: expected an object")),
    (lambda h: h.pop("decks"), ("line 1:", "missing field 'decks'")),
    (lambda h: h.pop("seed"), ("line 1:", "missing field 'seed'")),
    (lambda h: h.update(extra=1), ("line 1:", "unknown field 'extra'")),
    (lambda h: h.update(version=2), ("line 1:", "version 2 is not supported")),
    (lambda h: h.update(type="match"), ("line 1:", "expected a deal header")),
    (lambda h: h.update(starter=6), ("line 1:", "starter: 6")),
    (lambda h: h.update(starter=True), ("line 1:", "starter")),
    (lambda h: h.update(maker=-1), ("line 1:", "maker: -1")),
    (lambda h: h.update(seed=1.5), ("line 1:", "seed")),
    (lambda h: h.update(levels=[[2, True]] * 5), ("line 1:", "levels")),
    (lambda h: h["levels"].__setitem__(2, [1, True]), ("line 1:", "levels: seat 2")),
    (lambda h: h["levels"].__setitem__(2, [15, True]), ("line 1:", "levels: seat 2", "Joker")),
    (lambda h: h["levels"].__setitem__(2, [3, "yes"]), ("line 1:", "levels: seat 2")),
    (lambda h: h["decks"][0].__setitem__(5, "1S"), ("line 1:", "decks[0]", "bad card '1S'")),
    (lambda h: h["decks"][0].__setitem__(5, 5), ("line 1:", "decks[0]")),
    (lambda h: h["decks"][0].pop(), ("line 1:", "decks[0]", "does not hold exactly")),
    (lambda h: h["decks"][0].__setitem__(0, "RJ"), ("line 1:", "does not hold exactly")),
    (lambda h: h.update(decks=[]), ("line 1:", "decks")),
])
def test_bad_header(deal_recs, change, fragments):
    recs = copy.deepcopy(deal_recs)
    change(recs[0])
    refuse(recs, *fragments)


def test_a_record_from_before_a_setting_plays_its_old_value(deal_recs):
    """Records kept before a setting existed have no such field: they read
    (and replay) with the value they were played under."""
    recs = copy.deepcopy(deal_recs)
    old = {"partners": "called", "bands_above_top": "capped", "call_points": True, "call_highest": True,
           "self_overcall": "none", "maker_by": "standing", "must_defend": "none", "no_declaration": "redeal",
           "kitty_suit": "level_or_highest"}
    for name, value in old.items():
        assert recs[0]["rules"].pop(name) == value
    again = replay_deal(recs)
    assert {name: getattr(again.rules, name) for name in old} == old
    assert again.result == replay_deal(deal_recs).result


def test_wrong_deck_order(deal_recs):
    """Two cards swapped in the deck: a well-formed deck, but not this deal's."""
    found = 0
    for i, j in ((0, 1), (3, 40), (10, 101), (50, 99), (20, 75)):     # two hands, not the kitty
        recs = copy.deepcopy(deal_recs)
        d = recs[0]["decks"][0]
        if d[i] == d[j]:
            continue
        d[i], d[j] = d[j], d[i]
        with pytest.raises(InvalidActionError) as ei:
            replay_deal(recs)
        check_error(ei, "line ")
        found += 1
    assert found >= 3


def test_extra_deck(deal_recs):
    recs = copy.deepcopy(deal_recs)
    head = recs[0]
    second = seed_decks(Rules(**head["rules"]), head["seed"], 2)[1]     # the deck a redeal would take
    head["decks"].append([card_name(f) for f in second])
    refuse(recs, f"line {len(recs)}:", "2 decks", "used 1")


def test_decks_the_seed_does_not_deal_are_refused_unless_the_seed_is_null(deal_recs):
    """The header's seed must deal its decks: two cards swapped in a deck is
    found on line 1; the same decks under "seed": null (built by hand) replay."""
    recs = copy.deepcopy(deal_recs)
    deck = recs[0]["decks"][0]
    i = next(k for k in range(1, len(deck)) if deck[k] != deck[0])
    deck[0], deck[i] = deck[i], deck[0]
    refuse(recs, "line 1:", "decks[0]", f"seed {recs[0]['seed']}", '"seed": null')
    recs = copy.deepcopy(deal_recs)
    recs[0]["seed"] = 12345
    refuse(recs, "line 1:", "not the deck that seed 12345 deals")
    recs[0]["seed"] = None
    state = replay_deal(recs)
    assert not state.dealt_by_seed and deal_record(state)[0]["seed"] is None
    assert replay_deal(deal_record(state)).result == state.result
    assert replay_deal(deal_recs).dealt_by_seed
    assert deal_record(replay_deal(deal_recs))[0]["seed"] == deal_recs[0]["seed"]


def test_records_must_be_objects(deal_recs):
    recs = copy.deepcopy(deal_recs)
    recs[5] = ["play", "AS"]
    refuse(recs, "line 6:", "expected a JSON object")
    refuse(["x"], "line 1:", "expected a JSON object")


def test_errors_are_one_line_everywhere(deal_recs):
    """Each single-line corruption (every line, several ways) is refused with one line."""
    rng = random.Random(0)
    for i in rng.sample(range(1, len(deal_recs)), 25):
        for mutate in (lambda r: r.update(seat=r.get("seat", 0) + 1) if "seat" in r else r.update(maker=9),
                       lambda r: r.clear()):
            recs = copy.deepcopy(deal_recs)
            mutate(recs[i])
            with pytest.raises(InvalidActionError) as ei:
                replay_deal(recs)
            check_error(ei, "line ")


# --------------------------------------------------------------------------
# corrupt match records


@pytest.fixture(scope="module")
def match_recs() -> list:
    m = play_random_match(Rules.preset("stack"), seed=6, max_deals=3)
    return from_lines(lines_of(match_record(m)))


def deal_header_lines(recs) -> list[int]:
    return [i for i, r in enumerate(recs) if r.get("type") == "deal"]


def test_match_truncated(match_recs):
    refuse(match_recs[:-1], "truncated", replay=replay_match)
    cut = deal_header_lines(match_recs)[2] + 10
    refuse(match_recs[:cut], f"line {cut}:", "truncated", replay=replay_match)


@pytest.mark.parametrize("field,value,fragment", [
    ("starter", 0, "starter is 0 in the record, but the match gives 1"),
    ("seed", 12, "seed is 12 in the record"),
    ("levels", [[3, True]] * 6, "levels is"),
])
def test_match_deal_header_mismatch(match_recs, field, value, fragment):
    recs = copy.deepcopy(match_recs)
    i = deal_header_lines(recs)[1]
    recs[i][field] = value
    refuse(recs, f"line {i + 1}:", "deal 2:", fragment, replay=replay_match)


def test_match_deal_maker_mismatch(match_recs):
    recs = copy.deepcopy(match_recs)
    i = deal_header_lines(recs)[1]
    recs[i]["maker"] = None
    refuse(recs, f"line {i + 1}:", "deal 2: maker is null", replay=replay_match)
    recs = copy.deepcopy(match_recs)
    recs[i]["rules"]["throw_penalty"] = 5
    refuse(recs, f"line {i + 1}:", "rules differ", replay=replay_match)


def test_match_result_mismatch(match_recs):
    n = len(match_recs)
    for field, value in (("deals", 2), ("levels", [[2, True]] * 6), ("game_points_total", [99] * 6),
                         ("over", False)):
        recs = copy.deepcopy(match_recs)
        recs[-1][field] = value
        refuse(recs, f"line {n}:", f"match result field {field!r}", replay=replay_match)
    recs = copy.deepcopy(match_recs)
    del recs[-1]["over"]
    refuse(recs, f"line {n}:", "missing field 'over'", replay=replay_match)


def test_match_header_problems(match_recs):
    for change, frag in ((lambda h: h.update(max_deals=2), "the match was already over"),
                         (lambda h: h.update(max_deals=0), "max_deals"),
                         (lambda h: h.update(seed="x"), "seed"),
                         (lambda h: h["rules"].update(foo=1), "unknown rules field 'foo'"),
                         (lambda h: h.update(version=0), "version 0"),
                         (lambda h: h.pop("max_deals"), "missing field 'max_deals'"),
                         (lambda h: h.update(type="deal"), "expected a match header")):
        recs = copy.deepcopy(match_recs)
        change(recs[0])
        refuse(recs, "line ", frag, replay=replay_match)


def test_match_lines_out_of_place(match_recs):
    recs = copy.deepcopy(match_recs) + [{"type": "match_result"}]
    refuse(recs, f"line {len(recs)}:", "after the match result", replay=replay_match)
    recs = copy.deepcopy(match_recs)
    recs.insert(1, {"seat": 0, "action": "pass"})
    refuse(recs, "line 2:", "expected a deal header or the match result", replay=replay_match)


def test_changed_action_inside_match(match_recs):
    recs = copy.deepcopy(match_recs)
    i = deal_header_lines(recs)[2] + 1 + first_play(recs[deal_header_lines(recs)[2]:]) - 1
    recs[i]["action"] = "play RJ RJ RJ"
    refuse(recs, f"line {i + 1}:", "cannot play", replay=replay_match)


# --------------------------------------------------------------------------
# accounts


def test_account_dispatch_and_hidden_kitty():
    shown = hidden = 0
    for seed in range(1, 30):
        state, _ = played("pagat", 6, seed)
        recs = deal_record(state)
        lines = account(recs)
        assert lines == deal_account(recs)
        kitty = format_cards(state.kitty)
        text = "\n".join(lines)
        if state.result.kitty_to_opponents:
            shown += 1
            assert f"the kitty: {kitty} " in text
        else:
            hidden += 1
            assert kitty not in text and "keeps the kitty (hidden)" in text
        assert sum(1 for x in lines if x.startswith("trick ")) == len(state.tricks)
        if shown and hidden:
            break
    assert shown and hidden


def test_match_account():
    m = play_random_match(Rules.preset("heli", players=5), seed=2, max_deals=2)
    recs = match_record(m)
    lines = account(recs)
    assert lines == match_account(recs)
    assert lines[0] == "match seed 2: heli rules, 5 players, up to 2 deals"
    assert "== deal 1 ==" in lines and "== deal 2 ==" in lines and "== deal 3 ==" not in lines
    assert lines[-3] == "match over after 2 deals"
    refuse([{"type": "hand"}], "line 1:", "expected a deal or match header", replay=account)


def test_presets_covered():
    assert {p for p, _ in CONFIGS} == set(PRESETS)


def test_account_tells_the_turned_up_kitty_cards():
    """heli, a predetermined maker and nobody exposing: the kitty cards turned
    to find the trump suit are told, and the record replays to the same state."""
    rules = Rules.preset("heli", players=6)
    s = State(rules, maker=2, seed=4)
    rng = random.Random(4)
    while not s.is_terminal():
        passing = s.phase == DRAW and Action.from_str("pass") in s.legal_actions()
        s.apply(Action.from_str("pass") if passing else s.random_legal_action(rng))
    (seat, kind, cards), = s.exposures
    assert (seat, kind) == (2, "turned") and len(cards) >= 1
    lines = deal_account(deal_record(s))
    assert f"kitty cards turned up for the trump suit: {format_cards(cards)}" in lines
    again = replay_deal(deal_record(s))
    assert again.exposures == s.exposures and again.view(0) == s.view(0)
