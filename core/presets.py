"""The named presets: the deal of each table size and the settings each
preset changes from the defaults of :class:`core.rules.Rules` (which builds
them, :meth:`core.rules.Rules.preset`, and re-exports these names).

>>> preset_settings("tractor", 4)["partners"], PLAYER_TABLE[6]
('fixed', (2, 2, 2, 17))
"""

from __future__ import annotations

from typing import Any

from .errors import RulesError

__all__ = ["PLAYER_TABLE", "FRIEND_CALLS", "PRESETS", "SHENGJI_ONLINE_PLAYERS", "shengji_online_deal",
           "preset_players", "preset_settings"]

#: players -> (packs, red jokers, black jokers, cards per player), from the
#: table of ``000_99040cfb4a5a08c4.txt`` (four players: the Tractor deal of
#: ``003_5364679ce7d70e16.txt``); the kitty is whatever is left.
PLAYER_TABLE: dict[int, tuple[int, int, int, int]] = {
    4: (2, 2, 2, 25),
    5: (2, 2, 2, 20),
    6: (2, 2, 2, 17),
    7: (2, 0, 0, 14),
    8: (3, 2, 0, 19),
    9: (3, 3, 0, 17),
    10: (3, 0, 0, 15),
    11: (3, 2, 2, 14),
    12: (4, 2, 0, 17),
}

#: friend cards called per player count (``000``; four players have fixed partners).
FRIEND_CALLS = {4: 0, 5: 1, 6: 2, 7: 2, 8: 3, 9: 3, 10: 4, 11: 4, 12: 5}

PRESETS = ("pagat", "heli", "thirteen", "bottom-eight", "stack", "tractor", "shengji-online")

#: the table sizes of the preset ``shengji-online`` (``players // 2`` packs)
SHENGJI_ONLINE_PLAYERS = range(5, 13)


def shengji_online_deal(players: int) -> tuple[int, int]:
    """(packs, kitty size) of rbtying/shengji's default deal for ``players``:
    ``players // 2`` packs, each with both jokers; the kitty is what the
    cards leave over a whole number of hands, or ``players`` cards when they
    divide evenly, plus ``players`` more while it is under 5.

    >>> [shengji_online_deal(n) for n in range(5, 13)]
    [(2, 8), (3, 6), (3, 8), (4, 8), (4, 9), (5, 10), (5, 6), (6, 12)]
    """
    packs = players // 2
    kitty = 54 * packs % players or players
    if kitty < 5:
        kitty += players
    return packs, kitty

#: presets for one table size only
_FIXED_PLAYERS = {"bottom-eight": 5, "stack": 6, "tractor": 4}

def preset_players(name: str) -> int:
    """The table size preset ``name`` is played at when none is given: its
    only size, or 6 (an unknown name is refused later, by :meth:`Rules.preset`).

    >>> preset_players("tractor"), preset_players("bottom-eight"), preset_players("pagat")
    (4, 5, 6)
    """
    return _FIXED_PLAYERS.get(name, 6)


def preset_settings(name: str, players: int | None = None) -> dict[str, Any]:
    """The settings preset ``name`` gives a table of ``players`` (None: its
    usual size), its one-line refusal where the preset has no such table."""
    fixed = _FIXED_PLAYERS
    if name not in PRESETS:
        raise RulesError(f"preset: unknown preset {name!r} (known: {', '.join(PRESETS)})")
    if players is None:
        players = preset_players(name)
    if not isinstance(players, int) or isinstance(players, bool):
        raise RulesError(f"players: expected a whole number, got {players!r}")
    if name in fixed and players != fixed[name]:
        raise RulesError(f"players: preset {name!r} is for {fixed[name]} players, not {players}")
    if players not in PLAYER_TABLE:
        raise RulesError(f"players: {players} is not a table size from 4 to 12")
    if name == "shengji-online" and players not in SHENGJI_ONLINE_PLAYERS:
        _shengji_online(players)                     # its one-line refusal
    if players == 4 and name != "tractor":
        raise RulesError(f"players: 4 players play the preset tractor (preset {name!r} is for 5 to 12)")
    packs, red, black, hand = PLAYER_TABLE[players]
    base: dict[str, Any] = dict(
        players=players, packs=packs, red_jokers=red, black_jokers=black, hand_size=hand,
        kitty_size=52 * packs + red + black - hand * players,
        friend_calls=FRIEND_CALLS[players], name=name,
    )
    if name == "shengji-online":
        base.update(_shengji_online(players))
    if name == "thirteen":
        base.update(target_points=13)
    elif name == "heli":
        base.update(scoring="heli", exposure="heli", levels="plain", joker_level=True)
    elif name == "bottom-eight":
        base.update(
            scoring="bands", exposure="bottom_eight", levels="plain", throw_penalty=0,
            friend_calls=1, friend_other=True, kitty_multiplier="double",
            short_side_multiplier=False,
        )
    elif name == "stack":
        base.update(
            scoring="bands", exposure="stack", levels="plain", friend_calls=2,
            kitty_multiplier="unit_double", short_side_multiplier=False,
        )
    elif name == "tractor":
        base.update(
            partners="fixed", scoring="bands", exposure="heli", levels="plain",
            kitty_multiplier="unit_double", short_side_multiplier=False,
        )
    return base


def _shengji_online(players: int) -> dict[str, Any]:
    """The settings of the preset ``shengji-online``: rbtying/shengji's
    Finding Friends game with its default settings (``docs/kernel.md``,
    Presets, maps each of its settings to these)."""
    if players not in SHENGJI_ONLINE_PLAYERS:
        raise RulesError(f"players: preset 'shengji-online' is for 5 to 12 players (players // 2 packs), "
                         f"not {players}")
    packs, kitty = shengji_online_deal(players)
    return dict(
        packs=packs, red_jokers=packs, black_jokers=packs, kitty_size=kitty,
        hand_size=(54 * packs - kitty) // players, friend_calls=players // 2 - 1,
        exposure="heli", levels="plain", joker_bids="pairs", self_overcall="reinforce",
        maker_by="standing", exposure_defence=False, no_declaration="redeal", kitty_suit="top_card",
        kitty_theft=False, scoring="bands", band_step=20, dead_zone=1, bands_above_top="open",
        short_side_multiplier=False, short_side_bonus=True, kitty_multiplier="unit_double", throw_penalty=0,
        failed_throw_unit="first_found", call_trumps=False, call_points=True, call_highest=True,
        friend_other=False, call_by_side="counts", joker_level=True, must_defend="ace_joker",
        match_end="reach", jack_reset=False, tractor_past_ace=True, follow_ladder=True,
        protect_longer_sets=False, throw_winner="all", throw_stopper="shown", tractor_min_width=2,
        tractor_min_length=2, ladder="decompose",
    )
