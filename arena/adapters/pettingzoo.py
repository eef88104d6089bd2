"""The game as a PettingZoo AEC environment (``pip install .[pettingzoo]``).

One episode is one deal of a preset at a table size; the agents are
``player_0`` .. ``player_{n-1}`` (seat ``i`` is ``player_i``). The adapter
only translates: the deal is a :class:`core.State`, every observation is
built from the seat's :class:`core.PlayerView` alone, and every mask comes
from the legal actions that view lists.

The action space is one fixed ``Discrete(ACTION_SIZE)`` for every preset and
table size (``docs/adapters.md``, PettingZoo):

- ``0 .. 53`` a card face: in the play phase it adds one card to the play
  being built (the mask allows only faces that extend the selection towards
  some legal play); in the bury phase it buries that card;
- ``PLAY`` (54) plays the selection (allowed only when it is a legal play);
- ``PASS`` (55) declines to expose or to defend;
- ``EXPOSE + 8 * face + (copies - 1)`` shows ``copies`` (1 to 8) of ``face``;
- ``CALL + 8 * face + ordinal`` calls that copy of ``face`` (0: "the other").

>>> env = env_for("tractor", seed=None, reward="margin")
>>> env.reset(seed=2)
>>> obs, reward, term, trunc, info = env.last()
>>> obs["observation"].shape == env.observation_space(env.agent_selection)["observation"].shape
True
>>> sorted(set(obs["action_mask"].tolist())), int(env.action_space("player_0").n) == ACTION_SIZE
([0, 1], True)
"""

from __future__ import annotations

import random
from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from core.actions import Action, ActionKind
from core.cards import NUM_FACES, Cards, card_name, format_cards
from core.errors import IllegalActionError, InvalidActionError, RulesError
from core.rules import Rules
from core.scoring import card_margin
from core.state import PHASE_NAMES, State
from core.view import PlayerView

__all__ = ["PengyouEnv", "env_for", "observation_of", "action_id", "action_of_id", "ACTION_SIZE", "PLAY", "PASS",
           "EXPOSE", "CALL", "MAX_COPIES", "REWARDS"]

MAX_COPIES = 8                                  # copies of one face an exposure may show; call ordinals 0..7
PLAY = NUM_FACES                                # play the selection
PASS = NUM_FACES + 1
EXPOSE = NUM_FACES + 2
CALL = EXPOSE + NUM_FACES * MAX_COPIES
ACTION_SIZE = CALL + NUM_FACES * MAX_COPIES     # 920
REWARDS = ("game", "margin")
PHASES = ("draw", "bury", "steal", "call", "play", "done")
_SUITS = 5                                      # effective suits: 0..3 plain, 4 trumps
_HIGH = 10_000.0                                # every observation entry is a count, a flag, a level or points


def action_id(action: Action) -> int:
    """The id of a pass, exposure, bury or call (a play is built card by card).

    >>> action_id(Action.from_str("expose 2H 2H")) == EXPOSE + 8 * 26 + 1
    True
    >>> action_id(Action.from_str("call AC other")) == CALL + 8 * 12
    True
    """
    if action.kind == ActionKind.PASS:
        return PASS
    if action.kind == ActionKind.BURY:
        return action.cards[0]
    if action.kind == ActionKind.EXPOSE and len(set(action.cards)) == 1 and len(action.cards) <= MAX_COPIES:
        return EXPOSE + MAX_COPIES * action.cards[0] + len(action.cards) - 1
    if action.kind == ActionKind.CALL and 0 <= action.ordinal < MAX_COPIES:
        return CALL + MAX_COPIES * action.cards[0] + action.ordinal
    raise ValueError(f"action {action} has no id in the PettingZoo action space")


def action_of_id(aid: int, phase: str) -> Optional[Action]:
    """The engine action of an id in ``phase`` (None for a face added to a play).

    >>> str(action_of_id(EXPOSE + 8 * 26 + 1, "draw")), str(action_of_id(3, "bury")), action_of_id(3, "play")
    ('expose 2H 2H', 'bury 5C', None)
    """
    if 0 <= aid < NUM_FACES:
        return Action.bury(aid) if phase == "bury" else None
    if aid == PASS:
        return Action.pass_()
    if EXPOSE <= aid < CALL:
        face, copies = divmod(aid - EXPOSE, MAX_COPIES)
        return Action.expose(Cards((face,) * (copies + 1)))
    if CALL <= aid < ACTION_SIZE:
        face, ordinal = divmod(aid - CALL, MAX_COPIES)
        return Action.call(face, ordinal)
    raise ValueError(f"action id {aid!r} is not a single decision")


def _counts(cards: Any) -> np.ndarray:
    out = np.zeros(NUM_FACES, dtype=np.float32)
    for f in cards:
        out[f] += 1
    return out


def observation_size(players: int) -> int:
    """The length of :func:`observation_of`'s vector at a table of ``players``."""
    faces = NUM_FACES * (5 + 2 * players)   # hand, selection, played, kitty, calls/8; trick and exposures per seat
    return faces + NUM_FACES * (MAX_COPIES - 1) + 15 + 6 + len(PHASES) + players * (9 + _SUITS) + 2


def observation_of(view: PlayerView, selection: Optional[np.ndarray] = None) -> np.ndarray:
    """The observation vector of ``view`` (and the play being selected): a
    function of what the seat may know and nothing else. Seats are relative
    to the viewer (block ``k`` is the seat ``k`` places to its left).

    Blocks in order: hand counts (54), the selection (54), cards of finished
    tricks (54), the kitty when the seat knows it (54), the friend calls
    (54 x 8 face by ordinal), the current trick's plays by seat (n x 54), each
    seat's last exposure (n x 54), the trump rank (13 ranks, none, unknown),
    trump suit (4, none, unknown), the phase (6), by seat: the maker, known
    maker side, revealed friends, current player, points, hand sizes, level,
    active, whether it leads the trick, voids (5 effective suits); then cards
    drawn and tricks played.
    """
    n, me = view.players, view.seat

    def rel(seat: int) -> int:
        return (seat - me) % n

    trick_leader, trick_plays = view.current_trick
    trick = np.zeros((n, NUM_FACES), dtype=np.float32)
    for i, text in enumerate(trick_plays):
        trick[rel(trick_leader + i)] = _counts(Cards.from_str(text))
    exposed = np.zeros((n, NUM_FACES), dtype=np.float32)
    for seat, _kind, text in view.exposures:
        exposed[rel(seat)] = _counts(Cards.from_str(text))
    calls = np.zeros((NUM_FACES, MAX_COPIES), dtype=np.float32)
    for name, ordinal in view.calls:
        calls[Cards.from_str(name)[0], ordinal] += 1
    rank = np.zeros(15, dtype=np.float32)
    suit = np.zeros(6, dtype=np.float32)
    if view.trump is None:
        rank[14] = suit[5] = 1
    else:
        rank[13 if view.trump.rank is None else view.trump.rank - 2] = 1
        suit[4 if view.trump.suit is None else view.trump.suit] = 1
    phase = np.zeros(len(PHASES), dtype=np.float32)
    phase[PHASES.index(view.phase)] = 1
    seats = np.zeros((9 + _SUITS, n), dtype=np.float32)
    if view.maker is not None:
        seats[0, rel(view.maker)] = 1
    for s in view.known_side:
        seats[1, rel(s)] = 1
    for friend in view.calls_filled:
        if friend is not None:
            seats[2, rel(friend)] = 1
    if view.current_player >= 0:
        seats[3, rel(view.current_player)] = 1
    for s in range(n):
        seats[4, rel(s)] = view.points[s]
        seats[5, rel(s)] = view.hand_sizes[s]
        seats[6, rel(s)] = view.levels[s][0]
        seats[7, rel(s)] = view.levels[s][1]
    if trick_leader >= 0:
        seats[8, rel(trick_leader)] = 1
    for s, e in view.voids:
        seats[9 + e, rel(s)] = 1
    parts = [_counts(view.hand), np.zeros(NUM_FACES, dtype=np.float32) if selection is None else
             selection.astype(np.float32), _counts(view.played_before),
             _counts(view.kitty) if view.kitty is not None else np.zeros(NUM_FACES, dtype=np.float32),
             calls.ravel(), trick.ravel(), exposed.ravel(), rank, suit, phase, seats.ravel(),
             np.array([view.cards_drawn, len(view.tricks)], dtype=np.float32)]
    return np.concatenate(parts)


class PengyouEnv(AECEnv):  # type: ignore[misc]
    """One deal of ``rules`` per episode (see the module). ``reward`` is
    ``game`` (each seat's game points, :meth:`core.State.returns`) or
    ``margin`` (the maker side's card-point margin, negated for the others),
    given once, when the deal ends."""

    metadata: dict[str, Any] = {"name": "pengyou_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(self, rules: Rules, reward: str = "game", render_mode: Optional[str] = None) -> None:
        super().__init__()
        if not isinstance(rules, Rules):
            raise RulesError("rules: expected a Rules value (see Rules.preset)")
        if reward not in REWARDS:
            raise RulesError(f"reward: expected one of {', '.join(REWARDS)}, got {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise RulesError(f"render_mode: expected ansi, human or None, got {render_mode!r}")
        self.rules = rules
        self.reward = reward
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(rules.players)]
        size = observation_size(rules.players)
        self._obs_space = {a: spaces.Dict({
            "observation": spaces.Box(0.0, _HIGH, (size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (ACTION_SIZE,), dtype=np.int8)}) for a in self.possible_agents}
        self._act_space = {a: spaces.Discrete(ACTION_SIZE) for a in self.possible_agents}
        self._seeds = random.Random()
        self.state: Optional[State] = None
        self._selection = np.zeros(NUM_FACES, dtype=np.int16)
        self._plays: Optional[np.ndarray] = None     # the legal plays of the decision under way (rows of counts)
        self._mask: Optional[np.ndarray] = None

    def observation_space(self, agent: str) -> spaces.Space:  # type: ignore[type-arg]
        return self._obs_space[agent]

    def action_space(self, agent: str) -> spaces.Space:  # type: ignore[type-arg]
        return self._act_space[agent]

    # ------------------------------------------------------------------ episode
    def reset(self, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None) -> None:
        """Deal a new hand: the deal ``State(rules, seed=seed)`` (the deal of
        that seed everywhere in pengyou), or without a seed the next deal of
        the stream the last ``reset(seed=...)`` started."""
        if seed is not None:
            self._seeds = random.Random(seed)
            deal_seed = seed
        else:
            deal_seed = self._seeds.randrange(2 ** 62)
        self.state = State(self.rules, seed=deal_seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._new_decision()

    def _new_decision(self) -> None:
        s = self.state
        assert s is not None
        self._selection[:] = 0
        self._plays = None
        self._mask = None
        if s.is_terminal():
            self._finish()
            return
        self.agent_selection = self.possible_agents[s.current_player()]

    def _finish(self) -> None:
        s = self.state
        assert s is not None and s.result is not None
        res = s.result
        if self.reward == "game":
            values = [float(v) for v in s.returns()]
        else:
            m = float(card_margin(self.rules, res.opponents_points))
            values = [m if seat in res.maker_side else -m for seat in range(self.rules.players)]
        for a, v in zip(self.possible_agents, values):
            self.rewards[a] = v
            self.terminations[a] = True
        self.infos = {a: {"result": res} for a in self.agents}
        self.agent_selection = self.possible_agents[0]

    # ------------------------------------------------------------------ masks
    def _legal_plays(self) -> np.ndarray:
        if self._plays is None:
            s = self.state
            assert s is not None
            acts = list(s.view(s.current_player()).legal_actions())
            self._plays = np.array([_counts(a.cards) for a in acts], dtype=np.int16).reshape(-1, NUM_FACES)
        return self._plays

    def action_mask(self) -> np.ndarray:
        """The legal ids of the agent to move now (the engine's legal actions
        of its view, translated)."""
        if self._mask is not None:
            return self._mask
        s = self.state
        assert s is not None
        mask = np.zeros(ACTION_SIZE, dtype=np.int8)
        if s.is_terminal():
            return mask
        view = s.view(s.current_player())
        if view.phase == "play":
            plays = self._legal_plays()
            sel = self._selection
            fits = plays[np.all(plays >= sel, axis=1)]
            mask[:NUM_FACES] = np.any(fits > sel, axis=0)
            mask[PLAY] = bool(sel.any()) and bool(np.any(np.all(fits == sel, axis=1)))
        else:
            for a in view.legal_actions():
                mask[action_id(a)] = 1
        self._mask = mask
        return mask

    # ------------------------------------------------------------------ AEC
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        s = self.state
        assert s is not None
        seat = self.possible_agents.index(agent)
        mine = not s.is_terminal() and s.current_player() == seat
        obs = observation_of(s.view(seat), self._selection if mine else None)
        mask = self.action_mask().copy() if mine else np.zeros(ACTION_SIZE, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self.state
        assert s is not None
        try:
            aid = int(action)
        except (TypeError, ValueError):
            raise InvalidActionError(f"action {action!r} is not an id from 0 to {ACTION_SIZE - 1}") from None
        if not (0 <= aid < ACTION_SIZE and self.action_mask()[aid]):
            raise IllegalActionError(f"action {aid} is not legal for {agent} now (see its action_mask)")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        phase = PHASE_NAMES[s.phase]
        if phase == "play" and aid < NUM_FACES:
            self._selection[aid] += 1             # one more card of the play being built
            self._mask = None
        else:
            if aid == PLAY:
                act = Action.play(Cards(f for f in range(NUM_FACES) for _ in range(int(self._selection[f]))))
            else:
                got = action_of_id(aid, phase)
                assert got is not None
                act = got
            s.apply(act)
            self._new_decision()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Optional[str]:
        """The whole table as text (every hand shown: a view for watching,
        not for a seat); printed under ``render_mode="human"``."""
        s = self.state
        if s is None:
            text = "(no deal yet: call reset)"
        else:
            text = table_text(s, self._selection)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.state = None


def table_text(s: State, selection: np.ndarray) -> str:
    """The text :meth:`PengyouEnv.render` shows."""
    r = s.rules
    trump = "not made" if s.trump is None else (
        f"rank {'none' if s.trump.rank is None else s.trump.rank}, "
        f"suit {'none' if s.trump.suit is None else 'CDHS'[s.trump.suit]}")
    phase = s.view(0).phase
    lines = [f"{r.name} {r.players}p, phase {phase}, trump {trump}, maker {s.maker}"]
    points = s.view(0).points
    for seat in range(r.players):
        mark = ">" if seat == s.current_player() else " "
        lines.append(f"{mark} player_{seat} [{points[seat]:3d} pts] {format_cards(s.hand(seat))}")
    leader, plays = s.current_trick()
    if plays:
        lines.append("trick: " + "; ".join(f"player_{(leader + i) % r.players} {format_cards(p)}"
                                           for i, p in enumerate(plays)))
    if selection.any():
        lines.append("selected: " + " ".join(card_name(f) for f in range(NUM_FACES) for _ in range(int(selection[f]))))
    if s.result is not None:
        lines.append(f"result: winner {s.result.winner}, game points {s.result.game_points}, "
                     f"opponents' points {s.result.opponents_points}")
    return "\n".join(lines)


def env_for(preset: str = "pagat", players: Optional[int] = None, reward: str = "game",
            render_mode: Optional[str] = None, seed: Optional[int] = 0) -> PengyouEnv:
    """An environment for ``preset`` at ``players`` (None: its usual size),
    reset with ``seed`` unless it is None."""
    env = PengyouEnv(Rules.preset(preset, players=players), reward=reward, render_mode=render_mode)
    if seed is not None:
        env.reset(seed=seed)
    return env
