"""Perft for the play phase: the number of legal action sequences from fixed
positions, to depth 2 and 3, with the breakdown per first move ("divide").

The positions and the expected counts live in ``tests/core/perft/*.json``: the
rules, the deck (card names in draw order), the actions that lead to the
position (replayed through the engine, so the random generator that found the
position plays no part), and ``perft[depth]`` / ``divide[depth][first move]``.

The expected numbers were produced once by :func:`perft_reference`, a separate
brute-force counter: its actions are *not* the engine's enumeration but
``core.reference.legal_follows`` for follows and, for leads, every non-empty
sub-multiset of one effective suit of the hand (effective suits from
``core.reference.effective_suit``). Both counters apply the chosen actions
through :class:`core.state.State` (a failed throw changes the lead, so the
subtree is the engine's); only the enumeration differs.

Regenerate (after a deliberate rules change) with::

    python3 tests/core/test_perft.py --generate
"""

from __future__ import annotations

import itertools
import json
import random
import sys
from collections import Counter
from pathlib import Path

import pytest

if __name__ == "__main__":                       # run as a script from the repository root
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core import reference
from core.actions import Action
from core.cards import Cards, card_name, format_cards, parse_card
from core.rules import Rules
from core.state import PLAY_PHASE, State

DATA = Path(__file__).resolve().parent / "perft"


# --------------------------------------------------------------------------
# positions
# --------------------------------------------------------------------------

def load_position(data: dict) -> State:
    """Rebuild a position: the deck, then the recorded actions."""
    r = data["rules"]
    rules = Rules.preset(r["preset"], players=r["players"], **r.get("overrides", {}))
    deck = [parse_card(c) for c in data["deck"].split()]
    s = State(rules, starter=data.get("starter", 0), decks=[deck])
    for seat, text in data["history"]:
        assert s.current_player() == seat, f"replay: seat {s.current_player()} to act, record says {seat}"
        s.apply(text)
    assert s.phase == PLAY_PHASE
    return s


def position_files() -> list[Path]:
    return sorted(DATA.glob("*.json"))


# --------------------------------------------------------------------------
# the two counters
# --------------------------------------------------------------------------

def engine_actions(s: State) -> list[Action]:
    return list(s.legal_actions())


def reference_actions(s: State) -> list[Action]:
    """The plays of the current player, enumerated independently of the engine."""
    seat = s.current_player()
    hand = s.hand(seat)
    leader, plays = s.current_trick()
    if plays:
        return [Action.play(p) for p in reference.legal_follows(hand, plays[0], s.trump, s.rules)]
    by_suit: dict[int, Counter] = {}
    for f in hand:
        by_suit.setdefault(reference.effective_suit(f, s.trump), Counter())[f] += 1
    out = []
    for suit in sorted(by_suit):
        items = sorted(by_suit[suit].items())
        for takes in itertools.product(*(range(c + 1) for _, c in items)):
            cards = [f for (f, _), t in zip(items, takes) for _ in range(t)]
            if cards:
                out.append(Action.play(Cards(cards)))
    return out


def _perft(s: State, depth: int, actions, check: bool) -> int:
    if depth == 0 or s.is_terminal():
        return 1
    acts = actions(s)
    if depth == 1:
        return len(acts)
    total = 0
    for a in acts:
        t = s.clone()
        t.apply(a, check=check)
        total += _perft(t, depth - 1, actions, check)
    return total


def divide(s: State, depth: int, actions, check: bool) -> dict[str, int]:
    """Sequences of ``depth`` actions, per first action."""
    out = {}
    for a in actions(s):
        key = str(a)
        assert key not in out, f"{key} enumerated twice"
        t = s.clone()
        t.apply(a, check=check)
        out[key] = _perft(t, depth - 1, actions, check)
    return out


def perft_engine(s: State, depth: int) -> dict[str, int]:
    """The engine's count: ``state.legal_actions()``, each applied with its check."""
    return divide(s, depth, engine_actions, True)


def perft_reference(s: State, depth: int) -> dict[str, int]:
    """The brute-force count (used to make the data files)."""
    return divide(s, depth, reference_actions, False)


def explain(want: dict[str, int], got: dict[str, int]) -> str:
    """The per-first-move differences, for a failure message."""
    lines = []
    for key in sorted(set(want) | set(got)):
        w, g = want.get(key), got.get(key)
        if w != g:
            lines.append(f"  {key}: expected {w}, got {g}")
    return f"{len(lines)} first moves differ (expected total {sum(want.values())}, " \
           f"got {sum(got.values())}):\n" + "\n".join(lines[:60])


# --------------------------------------------------------------------------
# tests
# --------------------------------------------------------------------------

def _cases():
    for path in position_files():
        data = json.loads(path.read_text())
        for depth in sorted(data["divide"], key=int):
            yield pytest.param(path, int(depth), id=f"{path.stem}-depth{depth}")


def test_data_files_exist():
    names = {p.stem for p in position_files()}
    assert {"first_lead", "follow_pair", "follow_tractor", "follow_throw", "first_lead_3_packs"} <= names


@pytest.mark.parametrize("path,depth", list(_cases()))
def test_perft(path, depth):
    data = json.loads(path.read_text())
    s = load_position(data)
    want = data["divide"][str(depth)]
    assert sum(want.values()) == data["perft"][str(depth)]
    got = perft_engine(s, depth)
    assert got == want, f"{path.name} depth {depth}: " + explain(want, got)


@pytest.mark.parametrize("path", position_files(), ids=lambda p: p.stem)
def test_position_is_what_it_says(path):
    data = json.loads(path.read_text())
    s = load_position(data)
    leader, plays = s.current_trick()
    kind = data["kind"]
    if kind == "lead":
        assert not plays and s.play.tricks_played == 0 and s.current_player() == s.maker
    else:
        units = reference.decompose(plays[0], s.trump, s.rules)
        u = units[0]
        if kind == "throw":
            # it stood: a failed throw would have left a single unit on the table
            assert len(units) >= 2 and len(plays) == 1
            assert Action.play(plays[0]) == s.history[-1][1]
        elif kind == "pair":
            assert len(units) == 1
            assert (u.width, u.length) == (2, 1) and len(plays) == s.rules.players - 2
        else:
            assert len(units) == 1
            assert u.width == 2 and u.length >= 2 and len(plays) == 1
    assert data["perft"]["1"] == len(reference_actions(s)) == len(engine_actions(s))


@pytest.mark.parametrize("path", position_files(), ids=lambda p: p.stem)
def test_reference_counter_agrees_with_the_data(path):
    """The brute-force counter that made the data, rerun at depth 2."""
    data = json.loads(path.read_text())
    s = load_position(data)
    got = perft_reference(s, 2)
    assert got == data["divide"]["2"], explain(data["divide"]["2"], got)


# --------------------------------------------------------------------------
# making the data files
# --------------------------------------------------------------------------

#: name -> (preset, players, seed, kind, depths)
POSITIONS = {
    "first_lead": ("pagat", 6, 3, "lead", (1, 2, 3, 4)),
    "follow_pair": ("pagat", 6, 27, "pair", (1, 2, 3, 4)),
    "follow_tractor": ("pagat", 6, 22, "tractor", (1, 2, 3)),
    "follow_throw": ("pagat", 6, 170, "throw", (1, 2, 3, 4)),
    "first_lead_3_packs": ("pagat", 8, 0, "lead", (1, 2, 3, 4)),
}


def _unit_to_lead(s: State, kind: str):
    """A pair, a tractor or a throw (a whole suit holding with a set in it)
    the leader holds, or None."""
    hand = s.hand(s.current_player())
    by_suit: dict[int, list[int]] = {}
    for f in hand:
        by_suit.setdefault(reference.effective_suit(f, s.trump), []).append(f)
    for suit in sorted(by_suit):
        units = reference.decompose(Cards(by_suit[suit]), s.trump, s.rules)
        if kind == "throw" and len(units) >= 2 and any(u.width >= 2 for u in units):
            return Cards(by_suit[suit])
        for u in units:
            if kind == "pair" and (u.width, u.length) == (2, 1):
                return u.cards
            if kind == "tractor" and u.width == 2 and u.length >= 2:
                return u.cards
    return None


def _follower_is_interesting(s: State, lead: Cards, choices: int) -> bool:
    """The player to follow holds a pair of the led suit and has a few choices."""
    suit = reference.effective_suit(lead[0], s.trump)
    mine = Counter(f for f in s.hand(s.current_player()) if reference.effective_suit(f, s.trump) == suit)
    pairs = sum(1 for c in mine.values() if c >= 2)
    return pairs >= 1 and len(reference.legal_follows(s.hand(s.current_player()), lead, s.trump,
                                                      s.rules)) >= choices


def find_position(preset: str, players: int, seed: int, kind: str, tries: int = 500) -> dict:
    """A position of ``kind`` in seeded random deals from ``seed`` on:

    - ``lead``: the first lead of the deal;
    - ``pair``: a leader leads a pair it holds, the trick goes on at random
      until two players are left to follow, the next of whom holds a pair of
      the led suit and has a choice (depth 3 reaches the next lead);
    - ``tractor``: a leader leads a tractor of pairs it holds and the next
      player, holding a pair of that suit, has at least four legal plays;
    - ``throw``: a leader throws a whole suit holding with a set in it, the
      throw stands, and the next player, holding a pair of that suit, has at
      least four legal plays."""
    rules = Rules.preset(preset, players=players)
    for sd in range(seed, seed + tries):
        s = State(rules, seed=sd)
        rng = random.Random(sd)
        while not s.is_terminal() and s.redeals == 0:
            if s.phase == PLAY_PHASE and s.play.is_leading:
                if kind == "lead":
                    return _record(s, sd, kind)
                unit = _unit_to_lead(s, kind)
                if unit is not None:
                    t = s.clone()
                    t.apply(Action.play(unit))
                    while kind == "pair" and len(t.current_trick()[1]) < players - 2:
                        t.apply(t.random_legal_action(rng))
                    stood = t.current_trick()[1][0] == unit      # a failed throw leads less
                    if stood and _follower_is_interesting(t, unit, 2 if kind == "pair" else 4):
                        return _record(t, sd, kind)
            s.apply(s.random_legal_action(rng))
    raise RuntimeError(f"no {kind} position found")


def _record(s: State, sd: int, kind: str) -> dict:
    return {
        "rules": {"preset": s.rules.name, "players": s.rules.players},
        "seed_used": sd,
        "kind": kind,
        "deck": " ".join(card_name(f) for f in s.decks[0]),
        "history": [[seat, str(a)] for seat, a in s.history],
    }


def generate(limit: int = 100_000) -> None:
    DATA.mkdir(exist_ok=True)
    for name, (preset, players, seed, kind, depths) in POSITIONS.items():
        data = find_position(preset, players, seed, kind)
        s = load_position(data)
        leader, plays = s.current_trick()
        data["description"] = (
            f"{preset} {players}p, trump {s.trump}, seat {s.current_player()} to play"
            + (f" after {[format_cards(p) for p in plays]} led by seat {leader}" if plays else
               " the first lead of the deal")
            + f"; hand {format_cards(s.hand(s.current_player()))}")
        data["perft"], data["divide"] = {}, {}
        for depth in depths:
            ref = perft_reference(s, depth)
            eng = perft_engine(s, depth)
            total = sum(ref.values())
            print(f"{name} depth {depth}: reference {total}, engine {sum(eng.values())}")
            if ref != eng:
                print(explain(ref, eng))
            if total > limit and depth > 2:
                break
            data["perft"][str(depth)] = total
            data["divide"][str(depth)] = ref
        (DATA / f"{name}.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    if "--generate" in sys.argv:
        generate()
