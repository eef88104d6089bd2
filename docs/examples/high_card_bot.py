"""A complete example bot: plays its highest legal card when leading or when it
can win, its lowest otherwise; leaves exposing, burying and calling to chance.

Run it against the built-in bots with:

    pengyou duel docs/examples/high_card_bot.py:HighCardBot random --deals 20
"""

from __future__ import annotations

import random

from core import kernel
from core.actions import Action
from core.cards import parse_cards
from core.rules import Rules
from core.state import PlayerView


class HighCardBot:
    """The smallest useful bot: every method of the protocol, nothing more."""

    def restart(self, rules: Rules, seat: int, rng: random.Random) -> None:
        """Called before each deal: remember the rules, the seat and the random stream."""
        self.rules, self.seat, self.rng = rules, seat, rng

    def step(self, view: PlayerView) -> Action:
        """Choose an action from this seat's view (it is this seat's turn)."""
        if view.phase != "play":
            return view.random_action(self.rng)      # draw, bury, call: leave it to chance
        ctx = kernel.context(view.trump, view.rules.tractor_past_ace)
        lead = view.lead
        if lead is None or len(lead) > 1:             # lead, or a multi-card trick: keep it simple
            return view.random_action(self.rng)
        follows = list(kernel.legal_follows(view.hand, lead, view.trump, view.rules))
        trick = [parse_cards(p) for p in view.current_trick[1]]

        def wins(play):
            return kernel.trick_winner(trick + [play], view.trump, view.rules) == len(trick)

        winners = [p for p in follows if wins(p)]
        if winners:                                   # win as cheaply as possible
            return Action.play(min(winners, key=lambda p: ctx.level(p[0])))
        return Action.play(min(follows, key=lambda p: (ctx.effective_suit(p[0]) == 4, ctx.level(p[0]))))
