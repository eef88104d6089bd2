"""Rule settings: a frozen, validated configuration and the named presets.

Every difference between the rules texts is a field here; the engine reads
fields, never preset names.

>>> r = Rules.preset("pagat", players=6)
>>> (r.packs, r.hand_size, r.kitty_size, r.friend_calls)
(2, 17, 6, 2)
>>> Rules.preset("pagat", players=6, kitty_multiplier="triple")
Traceback (most recent call last):
...
core.errors.RulesError: kitty_multiplier: 'triple' is not one of double, by_cards, unit_double, unit_power, cards_per_player, pairs_power
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .cards import BJ, RJ
from .errors import RulesError
from .presets import PLAYER_TABLE, PRESETS, preset_players, preset_settings, shengji_online_deal

__all__ = ["Rules", "PLAYER_TABLE", "PRESETS", "SETTINGS", "MAX_PACKS", "setting_values", "preset_players",
           "shengji_online_deal"]

#: The most packs a deal may hold. The presets use at most four (``PLAYER_TABLE``);
#: more are set explicitly (players, packs, jokers, hand_size, kitty_size).
MAX_PACKS = 8

_CHOICES: dict[str, tuple[str, ...]] = {
    "throw_check": ("others_hands", "safe"),
    "throw_counts": ("free", "equal"),
    "failed_throw_unit": ("smallest_lowest", "first_found"),
    "failed_throw": ("withdraw", "end_deal"),
    "throw_penalty_per": ("card", "attempt"),
    "throw_winner": ("largest", "highest", "all", "longest"),
    "throw_stopper": ("hidden", "shown"),
    "bombs": ("none", "any_suit", "follow_suit"),
    "call_by_side": ("counts", "skipped"),
    "kitty_multiplier": ("double", "by_cards", "unit_double", "unit_power", "cards_per_player", "pairs_power"),
    "scoring": ("pagat", "bands", "heli"),
    "exposure": ("pagat", "heli", "bottom_eight", "stack"),
    "levels": ("active_passive", "plain"),
    "partners": ("called", "fixed"),
    "bands_above_top": ("capped", "open"),
    "self_overcall": ("none", "reinforce", "any"),
    "joker_bids": ("none", "pairs"),
    "maker_by": ("standing", "first"),
    "must_defend": ("none", "points", "ace", "points_ace", "ace_joker"),
    "match_end": ("reach", "defend"),
    "no_declaration": ("redeal", "kitty"),
    "kitty_suit": ("level_or_highest", "first_card", "top_card"),
    "follow_format": ("shape", "count"),
    "set_reading": ("counting", "genuine"),
    "ladder": ("subset", "cards", "decompose"),
    "tractor_owed": ("always", "lone"),
    "shorter_tractor": ("owed", "free"),
}

#: Follow settings meaningful only under another: (setting, its value, the setting it needs, the
#: value needed, why). :meth:`Rules.__post_init__` refuses any other combination in one line.
_NEEDS: list[tuple[str, object, str, object, str]] = [
    ("follow_ladder", True, "follow_format", "shape", "following by count owes no shape to fall back from"),
    ("protect_longer_sets", True, "follow_format", "shape", "following by count asks for no set to protect"),
    ("set_reading", "genuine", "protect_longer_sets", True, "it tells protected sets from the others"),
    ("ladder", "cards", "follow_ladder", True, "there is no ladder without it"),
    ("ladder", "decompose", "follow_ladder", True, "there is no ladder without it"),
    ("tractor_owed", "lone", "follow_ladder", True, "without the ladder no tractor is owed, only its sets"),
    ("shorter_tractor", "free", "follow_ladder", True, "without the ladder no tractor is owed, only its sets"),
    ("ladder", "decompose", "protect_longer_sets", False, "its weakening order breaks longer sets as it goes"),
    ("ladder", "decompose", "tractor_owed", "always", "its weakening order says which tractors are owed"),
    ("ladder", "decompose", "shorter_tractor", "owed", "its weakening order says which tractors are owed"),
]

#: What each rule setting means, in the order of :class:`Rules`'s fields:
#: the one place a setting is described (``pengyou rules --list`` prints it,
#: ``docs/kernel.md`` lists it).
SETTINGS: dict[str, str] = {
    "players": "seats at the table, in play order (4 only with fixed partners)",
    "packs": "full packs of 52 cards shuffled together (up to 8: five or more only with an explicit deal "
             "shape, as no preset table has one)",
    "red_jokers": "red (big) jokers added to the packs",
    "black_jokers": "black (small) jokers added to the packs",
    "hand_size": "cards dealt to each seat",
    "kitty_size": "cards left for the kitty (hands and kitty hold every card)",
    "follow_ladder": "when the led shape cannot be met, fall back step by step: tractors, then shorter or "
                     "narrower tractors, sets, smaller sets",
    "protect_longer_sets": "a set larger than the one asked for never has to be broken to follow",
    "tractor_past_ace": "trump-suit A, the off-suit trump-rank sets, the trump-suit trump-rank set and the "
                        "jokers form one chain for tractors",
    "tractor_min_width": "the narrowest sets a tractor is made of: 2 (pairs and wider), 3 (triples and wider, "
                         "so adjacent pairs are two pairs), and so on up to packs",
    "tractor_min_length": "the fewest adjacent sets that make a tractor (2 as written; with 3, two adjacent "
                          "pairs are two pairs)",
    "follow_format": "what a follow with enough cards of the led suit owes: shape (the sets and tractors the "
                     "lead asks for, as the other follow settings read them) or count (the cards only, any "
                     "of them; follow_ladder and protect_longer_sets stay off)",
    "set_reading": "what meets a set the lead asks for when longer sets are protected: counting (any set the "
                   "play holds, one broken out of a longer set too) or genuine (only a set whose face the hand "
                   "held exactly that many times; needs protect_longer_sets)",
    "ladder": "how far the follow_ladder falls: subset (a led k x L unit takes sets or tractors no wider than "
              "k, no longer than L, L at most), cards (any no wider than k, up to its k*L cards: a quad owes a "
              "tractor or two pairs) or decompose (rbtying/shengji's weakening order: a format the hand cannot "
              "meet is weakened one step at a time along a fixed order, the first step it meets owed)",
    "tractor_owed": "which led tractors owe tractors under follow_ladder: always, or lone (only a tractor led "
                    "alone; in a throw its sets are owed instead; needs follow_ladder)",
    "shorter_tractor": "under follow_ladder, whether a tractor shorter than the led one is owed (owed) or "
                       "only its sets are (free; needs follow_ladder)",
    "trump_throws": "whether a throw (a lead of two or more units) may be led in trumps; false: a trump lead "
                    "is one unit",
    "throw_check": "when a throw stands: others_hands (it is led freely and fails when another hand could "
                   "beat one of its units) or safe (it may be led only when no card the leader cannot see, "
                   "every card but its hand and the cards played in earlier tricks, could beat one of its "
                   "units; so it never fails)",
    "throw_counts": "which throws may be led by their cards' copies: free (any) or equal (only one in which "
                    "every distinct card, suit and rank or joker, appears as many times as each other one: "
                    "A-Q or K-K-Q-Q, not A-K-K; counted over the whole lead, a rainbow throw too; a single "
                    "unit is no throw)",
    "rainbow": "whether a rainbow may be led: cards of one rank (no jokers) in four or more effective suits, "
               "read as one set of all its cards, or several such ranks as a throw; the trick is played by "
               "rank alone (docs/kernel.md, Rainbows)",
    "failed_throw_unit": "which beatable unit a failed throw leaves: the fewest cards, then the lowest "
                         "(smallest_lowest), or the first one found (first_found)",
    "failed_throw": "what a failed throw does: withdraw (the thrower leads only the unit failed_throw_unit "
                    "leaves and play goes on) or end_deal (play stops there: every card still in a hand, the "
                    "thrower's whole hand too, and the kitty, counted as if they won the last trick with that "
                    "unit led, go to the thrower's opponents)",
    "throw_winner": "who takes a trick led by a throw (two or more units), among the plays matching its "
                    "shape, trumps above the led suit: largest (the best unit matching the lead's biggest "
                    "unit), highest (the play's highest card), all (a play takes it only if each of its "
                    "units beats the holding play's unit in the same place) or longest (units compared "
                    "biggest first, the first that differs deciding, singles skipped unless the lead is all "
                    "singles); one unit led reads alike under all",
    "throw_penalty": "card points moved to the other side for a failed throw, per throw_penalty_per",
    "throw_penalty_per": "what throw_penalty is counted by: card (each card withdrawn from the failed throw) "
                         "or attempt (once for each failed throw)",
    "throw_stopper": "whether the seats learn who stopped a failed throw: hidden (views and the records "
                     "bots see name no seat) or shown (each failed throw names the seat that showed the cards "
                     "beating it)",
    "bombs": "whether a bomb (as many copies of one card as the lead has cards, four or more) may be "
             "played and takes the trick above every other play, trumps above plain, then the higher card: "
             "none; any_suit (a bomb of any suit may follow whatever the follow rules ask); follow_suit (a "
             "bomb of the led suit or of trumps may, another suit's only from a seat void in the led suit); "
             "needs packs of 4",
    "kitty_multiplier": "what the kitty's points count for the side that takes the last trick: double; "
                        "by_cards (x2, x3, x4 by the cards of the winning play); unit_double (2 x its "
                        "largest unit); unit_power (2 ** its largest unit); cards_per_player (2 x its cards); pairs_power "
                        "(2 ** (1 + the pairs in the last lead, each set of two or more cards one pair))",
    "scoring": "the table from opponents' points to levels: pagat, bands (two-pack bands scaled by packs), "
               "heli",
    "bands_above_top": "opponents' points past the table's last band: capped (its gain, as written) or open "
                       "(one more level for each further band_step points per pack, 40 with two packs)",
    "band_step": "card points per pack in one band of the bands and heli tables (20: bands of 40 with two "
                 "packs); a whole divisor of 100 from 5 to 50",
    "dead_zone": "bands of the bands and heli tables in which nobody scores and the opponents take the next "
                 "deal (1 as written; 0: the opponents score from two bands up)",
    "partners": "who plays with the maker: called (the maker calls friend cards; the friends are hidden "
                "until they play one) or fixed (every other seat, known from the start: 0 and 2 against 1 and 3 "
                "at four players; needs an even table and no friend calls)",
    "friend_calls": "friend cards the maker calls",
    "friend_other": "a call may name \"the other\" copy (ordinal 0)",
    "call_by_side": "a called copy played by a seat already on the maker's side: counts (it counts toward the "
                    "ordinal, and the called copy itself uses the call up, no friend joining) or skipped (it "
                    "does not count: the call waits for a seat off the side)",
    "call_trumps": "a call may name a trump: a joker, a trump-rank card or a card of the trump suit",
    "call_points": "a call may name a point card (5, 10, K)",
    "call_highest": "a call may name the highest card of its suit (A; K when A is the trump rank)",
    "exposure": "how trump is made: pagat (exposing trump-rank cards), heli, bottom_eight, stack",
    "joker_bids": "none, or pairs: two or more copies of one joker may be exposed as a bid for no trump suit "
                  "(at the bidder's rank), above as many trump-rank cards, the red joker above the black",
    "no_declaration": "when nobody exposes and no maker is set by the deal before: redeal, or kitty (the "
                      "starter makes trump at its level, the kitty naming the suit)",
    "kitty_suit": "how a turned-up kitty names the trump suit: level_or_highest (the first card of the trump "
                  "rank, else the highest card), first_card (the first card that is not a joker) or "
                  "top_card (the first card alone; a joker there names no suit)",
    "exposure_defence": "whether an overridden seat may defend its exposure by showing as many copies of its "
                        "face as the override (true, as written), or an override simply stands (false)",
    "self_overcall": "whether a seat may override its own standing exposure with more copies: none; reinforce "
                     "(the same face only); any (any suit)",
    "kitty_theft": "false (off), or true (on): once the kitty is buried, the other seats in turn from the "
                   "burier's left may overcall the standing exposure (more copies of the trump rank, or a joker "
                   "bid, by the exposure comparison); the first to do so names the trump suit, takes the kitty "
                   "and buries again, and the round starts over; the maker and the trump rank stay (not with "
                   "bottom_eight)",
    "maker_by": "who makes trump where the maker is not set by the deal before: the seat whose exposure "
                "stands (standing), or the first seat that exposed (first; the trump is still the standing "
                "exposure's)",
    "levels": "who goes up: active_passive (the maker's side and the opponents by their own rules) or "
              "plain",
    "must_defend": "levels that must be defended: none; points (a seat at 5, 10 or K climbs past it only from "
                   "the maker's side, with the first level of its gain; its climb stops there otherwise); ace "
                   "(the same at A, which needs joker_level); points_ace (5, 10, K and A); ace_joker (A and "
                   "the Joker level, passed only in a deal played at a Joker level; needs joker_level)",
    "match_end": "how levels end a match: reach (a level reaching target_rank) or defend (the maker's side "
                 "winning a deal played at target_rank; levels stop there until then)",
    "jack_reset": "at trump rank J, opponents who take the last trick with a single jack send every seat of "
                  "the maker's side back to 2",
    "target_rank": "the last rank of a match (14: ace); see match_end",
    "target_points": "a match also ends when a player's game points reach this (0: unused)",
    "joker_level": "a level above ace, played with jokers as the trump rank",
    "short_side_multiplier": "a maker side left short of its full size multiplies the game points it wins "
                             "by 1 + its missing members",
    "short_side_bonus": "a maker side left short of its full size wins one more level when it wins",
}

#: The values a whole-number setting takes, in words (its checks are in
#: :meth:`Rules.__post_init__`; the tests hold the two together).
_RANGES: dict[str, str] = {
    "players": "4 to 12",
    "packs": "1 to 8",
    "tractor_min_width": "2 to packs (2 with one pack)",
    "tractor_min_length": "2 to 13",
    "red_jokers": "0 to packs",
    "black_jokers": "0 to packs",
    "hand_size": "1 or more",
    "kitty_size": "0 or more",
    "throw_penalty": "0 or more",
    "friend_calls": "0 to players - 1",
    "target_rank": "2 to 14",
    "target_points": "0 or more",
    "band_step": "5, 10, 20, 25 or 50",
    "dead_zone": "0 or more, while (2 + dead_zone) x band_step <= 100",
}


def setting_values(name: str) -> str:
    """The values rule setting ``name`` takes, in words.

    >>> setting_values("follow_ladder"), setting_values("levels"), setting_values("packs")
    ('true or false', 'active_passive | plain', '1 to 8')
    >>> setting_values("colour")
    Traceback (most recent call last):
    ...
    core.errors.RulesError: colour: no such rule setting
    """
    if name not in SETTINGS:
        raise RulesError(f"{_setting_name(name)}: no such rule setting")
    if name in Rules._BOOLS:
        return "true or false"
    if name in _CHOICES:
        return " | ".join(_CHOICES[name])
    return _RANGES[name]


def _word(value: object) -> str:
    """A setting's value as ``pengyou rules`` and the settings files spell it."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _setting_name(name: object) -> str:
    """A setting name fit for a one-line message."""
    text = str(name)
    return text if text.isidentifier() else repr(text)


@dataclass(frozen=True)
class Rules:
    """One table's rules. Build with :meth:`preset`; every field is validated.

    Deal shape: ``players``, ``packs``, ``red_jokers``, ``black_jokers``,
    ``hand_size``, ``kitty_size`` (``hand_size * players + kitty_size`` must be
    every card); then the play, scoring and match settings. What each field
    means is :data:`SETTINGS`, and the values it takes :func:`setting_values`
    (``pengyou rules --list`` prints both).
    """

    players: int = 6
    packs: int = 2
    red_jokers: int = 2
    black_jokers: int = 2
    hand_size: int = 17
    kitty_size: int = 6
    follow_ladder: bool = False
    protect_longer_sets: bool = False
    tractor_past_ace: bool = False
    tractor_min_width: int = 2
    tractor_min_length: int = 2
    follow_format: str = "shape"
    set_reading: str = "counting"
    ladder: str = "subset"
    tractor_owed: str = "always"
    shorter_tractor: str = "owed"
    trump_throws: bool = True
    throw_check: str = "others_hands"
    throw_counts: str = "free"
    rainbow: bool = False
    failed_throw_unit: str = "smallest_lowest"
    failed_throw: str = "withdraw"
    throw_winner: str = "largest"
    throw_penalty: int = 10
    throw_penalty_per: str = "card"
    throw_stopper: str = "hidden"
    bombs: str = "none"
    kitty_multiplier: str = "double"
    scoring: str = "pagat"
    bands_above_top: str = "capped"
    band_step: int = 20
    dead_zone: int = 1
    partners: str = "called"
    friend_calls: int = 2
    friend_other: bool = False
    call_by_side: str = "counts"
    call_trumps: bool = False
    call_points: bool = True
    call_highest: bool = True
    exposure: str = "pagat"
    joker_bids: str = "none"
    no_declaration: str = "redeal"
    kitty_suit: str = "level_or_highest"
    exposure_defence: bool = True
    self_overcall: str = "none"
    kitty_theft: bool = False
    maker_by: str = "standing"
    levels: str = "active_passive"
    must_defend: str = "none"
    match_end: str = "reach"
    jack_reset: bool = False
    target_rank: int = 14
    target_points: int = 0
    joker_level: bool = False
    short_side_multiplier: bool = True
    short_side_bonus: bool = False
    name: str = field(default="custom", compare=False)

    _BOOLS: ClassVar[tuple[str, ...]] = (
        "follow_ladder", "protect_longer_sets", "tractor_past_ace", "friend_other", "call_points",
        "call_highest", "call_trumps", "joker_level", "short_side_multiplier", "jack_reset", "short_side_bonus",
        "trump_throws", "kitty_theft", "exposure_defence", "rainbow",
    )

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.name in self._BOOLS:
                if not isinstance(v, bool):
                    raise RulesError(f"{f.name}: expected true or false, got {v!r}")
            elif f.name in _CHOICES:
                if v not in _CHOICES[f.name]:
                    raise RulesError(f"{f.name}: {v!r} is not one of {', '.join(_CHOICES[f.name])}")
            elif f.name != "name":
                if not isinstance(v, int) or isinstance(v, bool):
                    raise RulesError(f"{f.name}: expected a whole number, got {v!r}")
        if not 4 <= self.players <= 12:
            raise RulesError(f"players: {self.players} is not a table size from 4 to 12")
        if self.partners == "fixed":
            if self.players % 2:
                raise RulesError(f"partners and players: fixed partners need an even number of players, "
                                 f"not {self.players}")
            if self.friend_calls:
                raise RulesError(f"partners and friend_calls: fixed partners make no friend calls "
                                 f"(friend_calls is {self.friend_calls}, must be 0)")
        elif self.players < 5:
            raise RulesError(f"players and partners: {self.players} players play with fixed partners only "
                             "(partners=fixed, or the preset tractor)")
        for name, value, needed, wanted, why in _NEEDS:
            if getattr(self, name) == value and getattr(self, needed) != wanted:
                raise RulesError(f"{name} and {needed}: {name}={_word(value)} needs {needed}={_word(wanted)} "
                                 f"({why})")
        if not 1 <= self.packs <= MAX_PACKS:
            raise RulesError(f"packs: {self.packs} is not from 1 to {MAX_PACKS}")
        if self.bombs != "none" and self.packs < 4:
            raise RulesError(f"bombs and packs: bombs={self.bombs} needs packs of 4 or more "
                             f"(a bomb is four or more copies of one card), not {self.packs}")
        if self.bombs != "none" and self.rainbow:
            raise RulesError(f"bombs and rainbow: bombs={self.bombs} and rainbow=true cannot be played together "
                             f"(no engine defines a bomb against a rainbow)")
        for name in ("red_jokers", "black_jokers"):
            if not 0 <= getattr(self, name) <= self.packs:
                raise RulesError(f"{name}: {getattr(self, name)} is not from 0 to packs ({self.packs})")
        if not 2 <= self.tractor_min_width <= max(2, self.packs):
            raise RulesError(f"tractor_min_width and packs: {self.tractor_min_width} is not from 2 to packs "
                             f"({self.packs}): no face has more copies")
        if not 2 <= self.tractor_min_length <= 13:
            raise RulesError(f"tractor_min_length: {self.tractor_min_length} is not from 2 to 13")
        total = 52 * self.packs + self.red_jokers + self.black_jokers
        if self.hand_size < 1:
            raise RulesError("hand_size: must be positive")
        if self.kitty_size < 0:
            raise RulesError("kitty_size: must not be negative")
        if self.hand_size * self.players + self.kitty_size != total:
            raise RulesError(
                f"hand_size: {self.players} hands of {self.hand_size} plus a kitty of "
                f"{self.kitty_size} is not the {total} cards in play"
            )
        if self.throw_penalty < 0:
            raise RulesError("throw_penalty: must not be negative")
        if not 0 <= self.friend_calls < self.players:
            raise RulesError(f"friend_calls: {self.friend_calls} is not from 0 to {self.players - 1}")
        if not 2 <= self.target_rank <= 14:
            raise RulesError(f"target_rank: {self.target_rank} is not a rank from 2 to 14 (ace)")
        if self.target_points < 0:
            raise RulesError("target_points: must not be negative (0 means unused)")
        self._check_scoring()
        self._check_levels()

    def _check_scoring(self) -> None:
        """The bands' shape, and settings that only the bands and heli tables read."""
        if self.band_step not in (5, 10, 20, 25, 50):
            raise RulesError(f"band_step: {self.band_step} is not 5, 10, 20, 25 or 50 (a band is a whole "
                             "divisor of a pack's 100 points)")
        if self.dead_zone < 0:
            raise RulesError("dead_zone: must not be negative")
        if (2 + self.dead_zone) * self.band_step > 100:
            raise RulesError(f"dead_zone and band_step: {2 + self.dead_zone} bands of {self.band_step} points "
                             "per pack pass a pack's 100 points, so the opponents could never score")
        if self.scoring == "pagat":
            for name, usual in (("band_step", 20), ("dead_zone", 1)):
                if getattr(self, name) != usual:
                    raise RulesError(f"{name} and scoring: the pagat table has no bands to change "
                                     "(use scoring=bands or heli)")
        if self.short_side_bonus and self.short_side_multiplier:
            raise RulesError("short_side_bonus and short_side_multiplier: a short maker side gains either "
                             "one more level or a multiple, not both")

    def _check_levels(self) -> None:
        """Settings of the climb and the match's end that contradict each other."""
        if self.must_defend in ("ace", "points_ace", "ace_joker") and not self.joker_level:
            raise RulesError(f"must_defend and joker_level: must_defend {self.must_defend} holds seats at A, "
                             "the last level without joker_level (match_end=defend asks a side to win at A)")
        if self.kitty_theft and self.exposure == "bottom_eight":
            raise RulesError("kitty_theft and exposure: bottom_eight allows one override a deal, so the kitty "
                             "cannot be taken by overcalling")
        if self.match_end == "defend" and self.joker_level:
            raise RulesError("match_end and joker_level: with the Joker level the levels never end a match, "
                             "so there is no last rank to defend")

    @property
    def total_points(self) -> int:
        """Card points in the deal: 100 per pack."""
        return 100 * self.packs

    @property
    def predetermined_maker(self) -> bool:
        """Whether the maker of a deal after the first is set by the deal before
        (``heli`` and ``stack`` exposure) instead of being won by exposing.

        >>> Rules.preset("heli").predetermined_maker, Rules.preset("pagat").predetermined_maker
        (True, False)
        """
        return self.exposure in ("heli", "stack")

    @property
    def side_size(self) -> int:
        """Seats on a full maker side: the maker and a friend per call, or half
        the table with fixed partners.

        >>> Rules.preset("pagat", players=6).side_size, Rules.preset("tractor").side_size
        (3, 2)
        """
        return self.players // 2 if self.partners == "fixed" else 1 + self.friend_calls

    def first_side(self, maker: int) -> frozenset[int]:
        """The seats known to be on the maker's side when play begins: the
        maker alone (friends reveal themselves later), or with fixed partners
        every other seat from the maker.

        >>> sorted(Rules.preset("tractor").first_side(1)), sorted(Rules.preset("pagat").first_side(1))
        ([1, 3], [1])
        """
        if self.partners == "fixed":
            return frozenset(range(maker % 2, self.players, 2))
        return frozenset((maker,))

    def copies(self, face: int) -> int:
        """Copies of ``face`` in a deal: one a pack, or the jokers of its colour.

        >>> r = Rules.preset("pagat", players=7)
        >>> r.copies(0), r.copies(BJ), Rules.preset("pagat", players=9).copies(RJ)
        (2, 0, 3)
        """
        if face == BJ:
            return self.black_jokers
        if face == RJ:
            return self.red_jokers
        return self.packs

    def deck(self) -> list[int]:
        """Every card of a deal, as a sorted list of faces (each face once a pack, then the jokers).

        >>> d = Rules.preset("pagat", players=6).deck()
        >>> len(d), d[:3], d[-4:]
        (108, [0, 0, 1], [52, 52, 53, 53])
        """
        cards = [f for f in range(52) for _ in range(self.packs)]
        return cards + [BJ] * self.black_jokers + [RJ] * self.red_jokers

    def replace(self, **changes: Any) -> Rules:
        """A copy with some settings changed (validated)."""
        bad = sorted(set(changes) - {f.name for f in dataclasses.fields(self)})
        if bad:
            raise RulesError(f"{_setting_name(bad[0])}: no such rule setting")
        return dataclasses.replace(self, **changes)

    @classmethod
    def preset(cls, name: str = "pagat", players: int | None = None, **overrides: Any) -> Rules:
        """Build a named preset for a table size, then apply overrides.

        >>> Rules.preset("bottom-eight").kitty_size
        8
        >>> Rules.preset("stack", players=7)
        Traceback (most recent call last):
        ...
        core.errors.RulesError: players: preset 'stack' is for 6 players, not 7
        >>> t = Rules.preset("tractor")
        >>> (t.players, t.hand_size, t.kitty_size, t.partners, t.friend_calls)
        (4, 25, 8, 'fixed', 0)
        """
        base = preset_settings(name, players)
        bad = sorted(set(overrides) - {f.name for f in dataclasses.fields(cls)})
        if bad:
            raise RulesError(f"{_setting_name(bad[0])}: no such rule setting")
        base.update(overrides)
        return cls(**base)
