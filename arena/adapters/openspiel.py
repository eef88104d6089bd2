"""Every preset as an OpenSpiel game (``pip install .[openspiel]``).

Importing this module registers, with :func:`pyspiel.register_game`, one
game per preset and table size: ``pengyou_<preset>_<players>`` (a dash in
the preset's name becomes ``_``: ``pengyou_bottom_eight_5``). Load one with
``pyspiel.load_game("pengyou_pagat_6")`` or, for a terminal reward in card
points, ``pyspiel.load_game("pengyou_pagat_6", {"returns": "card_margin"})``;
:func:`game_for` builds the game of any :class:`~core.rules.Rules` value
(house rules included) without registering it.

The adapter only translates: every rule is :class:`core.state.State`'s.

*Chance.* The shuffle is explicit: one chance node per card of the deck, in
the order the deck is drawn, whose outcomes are the faces still undealt
(face ids 0..53, each with probability copies left / cards left). When
nobody makes trump the engine redeals, and a fresh deck is dealt the same
way (``max_chance_outcomes`` is 54).

*Actions* (``num_distinct_actions`` = 542), one fixed numbering for every
phase:

====================  =========================================================
id                    meaning
====================  =========================================================
0                     ``pass``
1                     end the card selection (play or expose the cards picked)
2 + f (f < 54)        pick one card of face ``f``
56 + f                ``bury`` one card of face ``f``
110 + 8 f + o         ``call`` face ``f``, ordinal ``o`` (1..7; 0 is "the other")
====================  =========================================================

A play or an exposure is a multiset of cards, too many to number one by one,
so it is chosen card by card: the player picks its cards in ascending face
order (ids ``2 + f``), then ends the selection (id 1). Only picks that
extend to some legal play (or exposure) are legal, and the end only when the
cards picked are one; so every legal play is reachable, by exactly one
sequence of ids, and nothing else is. The player stays to move during the
selection, and the cards picked are part of its information state.

*Returns*, at the end of the deal, per seat: ``game_points`` (the default:
``State.returns()``, plus for the winning side, minus for the losers) or
``card_margin`` (the maker side's card-point margin, its negation for the
opponents: the arena's margin) or ``card_share`` (that margin over the deal's
total points, about -1 to 1: the scale of our search's reward, and the
scale OpenSpiel's searches tune their exploration constants for).

*Observations.* The information state string is the seat's
:class:`~core.view.PlayerView` (everything the seat may know, the public
history included) and the cards picked so far; the observation string is the
part of it a seat sees now (its hand, the trump, the current trick, the
points). Both tensors hold the same fixed-size summary (:class:`Observer`).

*Resampling.* :meth:`PengyouState.resample_from_infostate` deals the cards the
seat cannot see with :class:`core.sample.Sampler` (every fact of the seat's
view holds in the world drawn), so OpenSpiel's ``ISMCTSBot`` searches it with
our sampler. The state returned is for searching: its action history is the
original's, so serialising it gives back the original deal.
"""

from __future__ import annotations

import random
from typing import Any, Optional

import numpy as np
import pyspiel

from core.actions import BURY, CALL, PASS, Action
from core.cards import Cards, card_name, parse_card, parse_cards
from core.levels import PlayerLevel
from core.errors import InvalidActionError, RulesError
from core.phases import BURY_PHASE, CALL_PHASE, DONE, DRAW, PLAY_PHASE, STEAL_PHASE
from core.presets import PRESETS, preset_players
from core.rules import PLAYER_TABLE, Rules
from core.sample import Sampler
from core.scoring import card_margin, card_share
from core.state import MAX_REDEALS, State
from core.view import PlayerView, play_from_view

__all__ = ["FACES", "PASS_ID", "END_ID", "PICK", "BURY_AT", "CALL_AT", "NUM_ACTIONS", "RETURNS", "game_name",
           "game_for", "registered_games", "PengyouGame", "PengyouState", "Observer", "action_ids",
           "register_all", "resampled", "state_from_view"]

FACES = 54
PASS_ID = 0
END_ID = 1
PICK = 2
BURY_AT = PICK + FACES
CALL_AT = BURY_AT + FACES
NUM_ACTIONS = CALL_AT + 8 * FACES
RETURNS = ("game_points", "card_margin", "card_share")
_PHASES = ("draw", "bury", "steal", "call", "play", "done")


def game_name(preset: str, players: int) -> str:
    """The registered name of ``preset`` at ``players``.

    >>> game_name("bottom-eight", 5)
    'pengyou_bottom_eight_5'
    """
    return f"pengyou_{preset.replace('-', '_')}_{players}"


def _tables(preset: str) -> list[int]:
    """The table sizes ``preset`` is played at."""
    out = []
    for n in sorted(PLAYER_TABLE):
        try:
            Rules.preset(preset, players=n)
        except RulesError:              # a size the preset does not have
            continue
        out.append(n)
    return out or [preset_players(preset)]


def registered_games() -> dict[str, tuple[str, int]]:
    """Every registered game name -> (preset, players)."""
    return {game_name(p, n): (p, n) for p in PRESETS for n in _tables(p)}


def action_ids(action: Action) -> list[int]:
    """The ids that make ``action``: one for pass, bury and call, the cards
    in ascending face order then :data:`END_ID` for a play or an exposure.

    >>> action_ids(Action.from_str("play 3S 3S")), action_ids(Action.from_str("call AC other"))
    ([42, 42, 1], [206])
    """
    if action.kind == PASS:
        return [PASS_ID]
    if action.kind == BURY:
        return [BURY_AT + action.cards[0]]
    if action.kind == CALL:
        return [CALL_AT + 8 * action.cards[0] + action.ordinal]
    return [PICK + f for f in sorted(action.cards)] + [END_ID]


def _id_text(action_id: int) -> str:
    if action_id == PASS_ID:
        return "pass"
    if action_id == END_ID:
        return "end"
    if action_id < BURY_AT:
        return f"pick {card_name(action_id - PICK)}"
    if action_id < CALL_AT:
        return f"bury {card_name(action_id - BURY_AT)}"
    face, o = divmod(action_id - CALL_AT, 8)
    return f"call {card_name(face)} {o or 'other'}"


def _game_type(name: str, rules: Rules) -> Any:
    return pyspiel.GameType(
        short_name=name, long_name=f"Zhao Pengyou ({rules.name}, {rules.players} players)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=rules.players, min_num_players=rules.players,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification={"returns": "game_points"})


def _game_info(rules: Rules, returns: str) -> Any:
    deck = len(rules.deck())
    bound = {"card_margin": float(4 * rules.total_points), "card_share": 4.0}.get(returns, 100.0)
    return pyspiel.GameInfo(
        num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=FACES, num_players=rules.players,
        min_utility=-bound, max_utility=bound,
        # each redeal: a decision per card drawn and its defence; then the bury, the calls and
        # at most two ids a card played
        max_game_length=(MAX_REDEALS + 1) * 2 * deck + 4 * deck + 64)


class PengyouGame(pyspiel.Game):  # type: ignore[misc]
    """One preset at one table size as an OpenSpiel game (or any ``rules``)."""

    def __init__(self, params: Optional[dict[str, Any]] = None, *, rules: Optional[Rules] = None,
                 name: str = "") -> None:
        params = dict(params or {})
        returns = params.setdefault("returns", "game_points")
        if returns not in RETURNS:
            raise ValueError(f"returns: {returns!r} is not one of {', '.join(RETURNS)}")
        assert rules is not None
        self.rules = rules
        self.returns_kind = returns
        super().__init__(_game_type(name or f"pengyou_{rules.name}", rules), _game_info(rules, returns), params)

    def new_initial_state(self) -> PengyouState:
        """The deal before its first card."""
        return PengyouState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        """The observer of information states (perfect recall) or observations."""
        return Observer(self.rules, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class _Box:
    """What an OpenSpiel state holds of the deal. OpenSpiel clones a Python
    state with :func:`copy.deepcopy`; the box makes that cheap: the engine is
    copied with :meth:`State.clone` (the compiled play phase is not
    pickled), the action list is copied, and what no state changes once made
    is shared (the rules, the decks dealt, the legal ids of a decision)."""

    __slots__ = ("state", "rules", "decks", "actions", "legal", "samplers")

    def __init__(self, state: Optional[State], rules: Rules) -> None:
        self.state = state
        self.rules = rules
        self.decks: list[list[int]] = []            # each deck once dealt (never changed after)
        self.actions: list[Action] = []             # the engine's actions, all decks
        self.legal: Optional[tuple[list[int], dict[tuple[int, ...], Any]]] = None
        self.samplers: dict[int, Sampler] = {}      # per seat, for this state's views (not copied)

    def __deepcopy__(self, memo: Any) -> _Box:
        out = _Box(None if self.state is None else self.state.clone(), self.rules)
        out.decks, out.actions, out.legal = list(self.decks), list(self.actions), self.legal
        return out

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled as its deal: the rules, the decks and the actions, replayed."""
        return (_replayed, (self.rules, self.decks, self.actions, self.state is not None))


def _replayed(rules: Rules, decks: list[list[int]], actions: list[Action], engine: bool) -> _Box:
    box = _Box(None, rules)
    box.decks, box.actions = decks, actions
    if engine:
        box.state = State(rules, seed=None, decks=decks)
        for a in actions:
            box.state.apply(a, check=False)
    return box


class PengyouState(pyspiel.State):  # type: ignore[misc]
    """A deal: the chance nodes of its shuffle(s), then the engine's state."""

    def __init__(self, game: PengyouGame) -> None:
        super().__init__(game)
        self._box = _Box(None, game.rules)
        self.returns_kind = game.returns_kind
        self.picked: list[int] = []
        self._dealing: list[int] = []
        self._left = self._full_counts()

    def _full_counts(self) -> list[int]:
        counts = [0] * FACES
        for f in self.rules.deck():
            counts[f] += 1
        return counts

    @property
    def engine(self) -> Optional[State]:
        """The engine's state of the deal (None while a deck is dealt)."""
        return self._box.state

    @engine.setter
    def engine(self, state: Optional[State]) -> None:
        self._box.state = state
        self._box.legal = None
        self._box.samplers.clear()

    @property
    def rules(self) -> Rules:
        """The deal's rules."""
        return self._box.rules

    @property
    def decks(self) -> list[list[int]]:
        """The decks dealt so far (each complete; a redeal adds one)."""
        return self._box.decks

    @property
    def actions(self) -> list[Action]:
        """The engine's actions so far (the ids of a card selection make one)."""
        return self._box.actions

    # ------------------------------------------------------------- OpenSpiel
    def current_player(self) -> int:
        """The seat to move, CHANCE while a deck is dealt, TERMINAL at the end."""
        if self.engine is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.engine.phase == DONE:
            return int(pyspiel.PlayerId.TERMINAL)
        return self.engine.current_player()

    def is_terminal(self) -> bool:
        """Whether the deal is over."""
        return self.engine is not None and self.engine.phase == DONE

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The faces still undealt, each with its share of the cards left."""
        left = sum(self._left)
        return [(f, c / left) for f, c in enumerate(self._left) if c]

    def _legal_actions(self, player: int) -> list[int]:
        table = self._table()
        picked = tuple(self.picked)
        nexts, singles = table[1].get(picked, ({}, None))[0], table[0] if not picked else []
        out = list(singles) + [PICK + f for f in nexts]
        if picked in table[1] and table[1][picked][1] is not None:
            out.append(END_ID)
        return sorted(out)

    def steps_left(self) -> int:
        """How many more steps of this decision may be choices: the cards
        the shortest legal play extending the picks still needs (at least
        one), and one more when legal plays differ in length (ending is then
        a choice too). A pass, bury or call decision is one step.

        >>> from core.rules import Rules
        >>> PengyouState(game_for(Rules.preset("pagat", players=5))).steps_left()
        1
        """
        if self.engine is None:
            return 1
        tree, picked = self._table()[1], tuple(self.picked)
        sizes = {len(k) for k, (_, done) in tree.items() if done is not None and k[:len(picked)] == picked}
        if not sizes:
            return 1
        return max(1, min(sizes) - len(picked)) + (1 if len(sizes) > 1 else 0)

    def _table(self) -> tuple[list[int], dict[tuple[int, ...], Any]]:
        """The decision's single-id actions, and for each prefix of a card
        selection: (the faces that may follow, the action it completes)."""
        if self._box.legal is None:
            assert self.engine is not None
            singles: list[int] = []
            tree: dict[tuple[int, ...], Any] = {}
            for a in self.engine.legal_actions():
                if a.kind in (PASS, BURY, CALL):
                    singles.append(action_ids(a)[0])
                    continue
                faces = tuple(sorted(a.cards))
                for k in range(len(faces)):
                    tree.setdefault(faces[:k], [{}, None])[0][faces[k]] = True
                tree.setdefault(faces, [{}, None])[1] = a
            self._box.legal = (singles, tree)
        return self._box.legal

    def _apply_action(self, action: int) -> None:
        if self.engine is None:
            self._deal(action)
            return
        if action == END_ID:
            done = self._table()[1][tuple(self.picked)][1]
            self.picked = []
            self._play(done)
        elif PICK <= action < BURY_AT:
            self.picked.append(action - PICK)
        else:
            kind, face, o = (PASS, 0, 0) if action == PASS_ID else (
                (BURY, action - BURY_AT, 0) if action < CALL_AT else (CALL, *divmod(action - CALL_AT, 8)))
            self._play(Action(kind, Cards((face,)) if kind != PASS else Cards(), o))

    def _deal(self, face: int) -> None:
        if not self._left[face]:
            raise pyspiel.SpielError(f"chance outcome {face}: no card of that face is left")
        self._left[face] -= 1
        self._dealing.append(face)
        if not any(self._left):
            self.decks.append(self._dealing)
            self._dealing = []
            self._left = self._full_counts()
            self._rebuild()

    def _rebuild(self) -> None:
        """The engine from the decks dealt and the actions taken (a redeal that
        needs another deck: back to chance)."""
        try:
            engine = State(self.rules, seed=None, decks=self.decks)
            for a in self.actions:
                engine.apply(a, check=False)
        except InvalidActionError as exc:
            if "fewer decks" not in str(exc):
                raise
            self.engine = None
            return
        self.engine = engine

    def _play(self, action: Action) -> None:
        assert self.engine is not None
        self._box.legal = None
        self._box.samplers.clear()
        self.actions.append(action)
        try:
            self.engine.apply(action, check=False)
        except InvalidActionError as exc:       # nobody made trump: the next deck is dealt by chance
            if "fewer decks" not in str(exc):
                raise
            self.engine = None

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {card_name(action)}"
        return _id_text(action)

    def returns(self) -> list[float]:
        """Each seat's return: zero until the end, then game points or card margin."""
        n = self.rules.players
        if not self.is_terminal():
            return [0.0] * n
        assert self.engine is not None
        if self.returns_kind == "game_points":
            return [float(x) for x in self.engine.returns()]
        res = self.engine.result
        assert res is not None
        opp = res.opponents_points
        margin = card_share(self.rules, opp) if self.returns_kind == "card_share" else float(
            card_margin(self.rules, opp))
        return [margin if s in res.maker_side else -margin for s in range(n)]

    def __str__(self) -> str:
        if self.engine is None:
            return f"dealing: {len(self._dealing)} of {len(self.rules.deck())} cards"
        return f"{self.engine!r} picked={[card_name(f) for f in self.picked]}"

    # ------------------------------------------------------------- search
    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> PengyouState:
        """A state the seat ``player_id`` cannot tell from this one: the cards
        it cannot see dealt again by :class:`core.sample.Sampler`."""
        if self.engine is None:
            raise pyspiel.SpielError("resample_from_infostate: the cards are being dealt")
        seed = random.getrandbits(64)
        if probability_sampler is not None:
            try:
                seed = int(probability_sampler() * 2 ** 53)
            except TypeError:               # a sampler that is not callable: our own seed
                pass
        sampler = self._box.samplers.get(player_id)
        if sampler is None:
            sampler = self._box.samplers[player_id] = Sampler(self.engine.view(player_id))
        out = self.clone()
        out.engine = resampled(self.engine, player_id, random.Random(seed), sampler)
        out._box.legal = self._box.legal        # the seat's hand and the table are the same: so are its ids
        return out  # type: ignore[no-any-return]

    def view(self, seat: int) -> Any:
        """The engine's view of ``seat`` (None while dealing)."""
        return None if self.engine is None else self.engine.view(seat)


def resampled(engine: State, seat: int, rng: random.Random, sampler: Optional[Sampler] = None) -> State:
    """A copy of ``engine`` whose hidden cards are a world the sampler drew
    from ``seat``'s view (the seat's own view unchanged)."""
    view = engine.view(seat)
    world = (sampler or Sampler(view)).sample(rng)
    s = engine.clone()
    counts = [[0] * FACES for _ in world.hands]
    for seat_counts, hand in zip(counts, world.hands):
        for f in hand:
            seat_counts[f] += 1
    if s.phase == DRAW:
        stock = list(world.stock)
        rng.shuffle(stock)
        s._deck = s._deck[:s._drawn] + stock
        s.decks[-1] = s._deck
        s._hands = counts
    elif s.phase in (BURY_PHASE, STEAL_PHASE):
        s._hands = counts
        s._buried = list(world.kitty)
        if s.phase == STEAL_PHASE:              # the kitty offered: buried, and kept as the kitty too
            s.kitty = Cards(world.kitty)
    elif s.phase == CALL_PHASE:
        s._hands = counts
        s.kitty = Cards(world.kitty)
    elif s.phase == PLAY_PHASE:
        s.play = play_from_view(view, list(world.hands))
        s.kitty = Cards(world.kitty)
    return s


def state_from_view(game: PengyouGame, view: PlayerView, rng: random.Random) -> PengyouState:
    """An OpenSpiel state of the play phase that ``view``'s seat cannot tell
    from the deal it sees: the view's public facts, its hand, and the other
    hands and the kitty drawn by the sampler (what an arena entrant searches;
    it has no action history, as the deal's is not the seat's to know)."""
    if view.phase != "play":
        raise pyspiel.SpielError(f"state_from_view: the view is in the {view.phase} phase, not the play")
    r = view.rules
    world = Sampler(view).sample(rng)
    s = State(r, seed=0)            # a deal's fields, then each one the play phase reads set from the view
    s.starter = view.starter
    s.levels = [PlayerLevel(level, active) for level, active in view.levels]
    s.initial_levels = list(s.levels)
    s.phase = PLAY_PHASE
    s.trump, s.maker, s.burier = view.trump, view.maker, view.burier
    s.kitty = Cards(world.kitty)
    s.calls = [(parse_card(name), o) for name, o in view.calls]
    s.exposures = [(seat, kind, parse_cards(cards)) for seat, kind, cards in view.exposures]
    s.tricks = [(leader, [parse_cards(p) for p in plays]) for leader, plays in view.tricks]
    s._trick_text = list(view.tricks)
    leader, plays = view.current_trick
    s._trick = (leader, [parse_cards(p) for p in plays])
    s.failed_throws = [(seat, parse_cards(a), parse_cards(k)) for seat, a, k in view.failed_throws]
    s.throw_stoppers = list(view.throw_stoppers)
    s.voids, s.no_sets = set(view.voids), set(view.no_sets)
    s._drawn = r.players * r.hand_size
    s.play = play_from_view(view, list(world.hands))
    out = game.new_initial_state()
    out.engine = s
    return out


class Observer:
    """The tensor and string of what a seat knows: its seat, the phase, its
    hand and the cards it has picked, the trump rank and suit, the maker, the
    cards each seat has shown, played and has in the current trick, the kitty
    when it knows it, and each seat's card points (over the deal's total).
    The information state's string is the whole view; the observation's
    the present part of it."""

    def __init__(self, rules: Rules, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; given {params}")
        n = rules.players
        self.rules = rules
        self.perfect_recall = bool(getattr(iig_obs_type, "perfect_recall", False))
        pieces = [("player", n), ("phase", len(_PHASES)), ("hand", FACES), ("picked", FACES), ("trump_rank", 14),
                  ("trump_suit", 5), ("maker", n), ("shown", n * FACES), ("played", n * FACES),
                  ("trick", n * FACES), ("kitty", FACES), ("points", n)]
        self.tensor = np.zeros(sum(size for _, size in pieces), np.float32)
        self.dict: dict[str, Any] = {}
        at = 0
        for name, size in pieces:
            shape = (n, FACES) if size == n * FACES else (size,)
            self.dict[name] = self.tensor[at:at + size].reshape(shape)
            at += size

    def set_from(self, state: PengyouState, player: int) -> None:
        """Fill the tensor with what ``player`` knows of ``state``."""
        self.tensor.fill(0)
        d = self.dict
        d["player"][player] = 1
        view = state.view(player)
        if view is None:
            return
        n = self.rules.players
        d["phase"][_PHASES.index(view.phase)] = 1
        for f in view.hand:
            d["hand"][f] += 1
        for f in state.picked if state.current_player() == player else ():
            d["picked"][f] += 1
        if view.trump is not None:
            d["trump_rank"][0 if view.trump.rank is None else view.trump.rank - 1] = 1
            d["trump_suit"][4 if view.trump.suit is None else view.trump.suit] = 1
        if view.maker is not None:
            d["maker"][view.maker] = 1
        for seat, _, cards in view.exposures:
            for f in parse_cards(cards):
                d["shown"][seat, f] = 1
        for leader, plays in view.tricks:
            for j, p in enumerate(plays):
                for f in parse_cards(p):
                    d["played"][(leader + j) % n, f] += 1
        leader, plays = view.current_trick
        for j, p in enumerate(plays):
            for f in parse_cards(p):
                d["trick"][(leader + j) % n, f] += 1
        for f in view.kitty or ():
            d["kitty"][f] += 1
        total = max(1, self.rules.total_points)
        d["points"][:] = [p / total for p in view.points]

    def string_from(self, state: PengyouState, player: int) -> str:
        """The seat's information state (its whole view) or observation."""
        view = state.view(player)
        picked = " ".join(card_name(f) for f in state.picked) if state.current_player() == player else ""
        if view is None:
            return f"seat {player} dealing {len(state.decks)}"
        if self.perfect_recall:
            return f"seat {player} picked [{picked}] {view}"
        return (f"seat {player} {view.phase} hand {view.hand} trump {view.trump} maker {view.maker} "
                f"trick {view.current_trick} points {view.points} picked [{picked}]")


def game_for(rules: Rules, returns: str = "game_points") -> PengyouGame:
    """The OpenSpiel game of ``rules`` (any rules, house rules included), not registered."""
    return PengyouGame({"returns": returns}, rules=rules, name=game_name(rules.name, rules.players))


def _factory(preset: str, players: int) -> Any:
    class Registered(PengyouGame):
        def __init__(self, params: Optional[dict[str, Any]] = None) -> None:
            super().__init__(params, rules=Rules.preset(preset, players=players), name=game_name(preset, players))
    Registered.__name__ = f"PengyouGame_{game_name(preset, players)}"
    return Registered


def register_all() -> list[str]:
    """Register every preset at every table size (once); the names."""
    known = set(pyspiel.registered_names())
    for name, (preset, n) in registered_games().items():
        if name not in known:
            pyspiel.register_game(_game_type(name, Rules.preset(preset, players=n)), _factory(preset, n))
    return sorted(registered_games())


register_all()
