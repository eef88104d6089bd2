"""A review of a bot's partner play over whole deals, decision by decision.

With hidden partners three kinds of decision decide much of a deal, and a
strong player would judge them so:

- *Friend-race chances.* A seat off the maker's side (not the maker, not a
  revealed friend) that can play, now, a copy that would fill a live call
  (a lead, or a legal follow of one card) and so join the maker. Taken: it
  played a copy that filled one. Missed: it did not, and that call was later
  filled by another seat, or never.
- *Double fills.* One seat filling two calls (or the maker filling its own
  call): the maker's side is a member short.
- *Points fed before joining.* Points a seat played into tricks won by the
  side it did not end on, while its own side was still hidden (a friend
  before it revealed itself feeding the opponents, or an opponent feeding
  the maker's side before every call was filled).

:func:`review` plays deals with one bot spec at every seat and counts each
kind, keeping one example of each; whether a copy fills a call is asked of
the play engine (:class:`core.play.PlayCore`, the rule's one owner). Run it as
``python -m bots.review SPEC [--deals N] [--players P] [--preset NAME] [--seed S]``.

>>> r = review("heuristic", deals=2, seed=1)
>>> r.deals, r.race_taken + r.race_missed == r.race_chances
(2, True)
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field
from typing import Optional

from core.cards import Cards, points
from core.play import PlayCore
from core.rules import Rules
from core.state import PLAY_PHASE, State

__all__ = ["Review", "review", "steadiness", "main"]


@dataclass
class Review:
    """Counts over ``deals`` deals (see the module docstring), with one
    example of each kind as a line of text."""

    spec: str
    deals: int = 0
    decisions: int = 0
    race_chances: int = 0           #: decisions with a friend-race chance
    race_taken: int = 0
    race_missed: int = 0
    double_fills: int = 0           #: seats that filled two calls, and makers that filled their own
    fed_by_friends: int = 0         #: points friends gave the opponents before they were revealed
    fed_by_opponents: int = 0       #: points opponents gave the maker's side while sides were hidden
    examples: dict[str, str] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """The review as text."""
        d = max(1, self.deals)
        out = [f"{self.spec}: {self.deals} deals, {self.decisions} play decisions",
               f"  friend-race chances {self.race_chances}: taken {self.race_taken}, missed {self.race_missed}",
               f"  double fills (or a maker filling its own call) {self.double_fills}",
               f"  points fed before joining: by friends to the opponents {self.fed_by_friends} "
               f"({self.fed_by_friends / d:.1f} a deal), by opponents to the maker's side "
               f"{self.fed_by_opponents} ({self.fed_by_opponents / d:.1f} a deal)"]
        for kind, text in sorted(self.examples.items()):
            out.append(f"  e.g. {kind}: {text}")
        return out


def _filling_copy(pc: PlayCore, seat: int) -> Optional[Cards]:
    """A single copy ``seat`` may play now that fills an open call, if any."""
    filled = pc.calls_filled
    for f in sorted(set(pc.hand(seat))):
        cards = Cards([f])
        if not pc.can_play(cards):
            continue
        probe = pc.clone()
        probe.play(cards, check=False)
        if any(a is None and b == seat for a, b in zip(filled, probe.calls_filled)):
            return cards
    return None


def review(spec: str, deals: int = 24, preset: str = "pagat", players: int = 6, seed: int = 0) -> Review:
    """Play ``deals`` deals of ``spec`` at every seat (deal and bot seeds from
    ``seed``) and review them (:class:`Review`)."""
    from .base import seated_deal

    rules = Rules.preset(preset, players=players)
    out = Review(spec)
    for d in range(deals):
        s, bots, rng = seated_deal(spec, rules, seed, d)
        chances: list[tuple[int, int, str]] = []                # (seat, trick, text) of missed chances
        fed: list[tuple[int, int, int, bool]] = []              # (seat, points, trick, hidden) per play
        while not s.is_terminal():
            p = s.current_player()
            view = s.view(p)
            action = bots[p].step(view)
            pc = s.play
            if s.phase == PLAY_PHASE and pc is not None and s.maker is not None:
                out.decisions += 1
                t = len(s.tricks)
                before = list(pc.calls_filled)
                copy = _filling_copy(pc, p) if p not in pc.maker_side else None
                hidden = p not in pc.maker_side and any(c is None for c in before)
                s.apply(action)
                after = s.play.calls_filled if s.play is not None else before
                joined = any(a is None and b == p for a, b in zip(before, after))
                if copy is not None:
                    out.race_chances += 1
                    text = (f"deal {d}, trick {t + 1}: seat {p} could play {copy} to join the maker "
                            f"and played {action.cards}")
                    if joined:
                        out.race_taken += 1
                        out.examples.setdefault("race taken", text)
                    else:
                        out.race_missed += 1
                        chances.append((p, t, text))
                if p != s.maker:                    # the cards played (a failed throw plays its kept unit)
                    plays = s.tricks[t][1] if len(s.tricks) > t else s.current_trick()[1]
                    fed.append((p, points(plays[-1]) if plays else 0, t, hidden))
                continue
            s.apply(action)
        if chances:
            out.examples.setdefault("race missed", chances[0][2])
        final = s.play
        if final is None or s.maker is None:
            out.deals += 1
            continue
        filled = [b for b in final.calls_filled if b is not None]
        for seat in set(filled):
            if filled.count(seat) >= 2 or seat == s.maker:
                out.double_fills += 1
                out.examples.setdefault("double fill", f"deal {d}: seat {seat} filled "
                                        f"{filled.count(seat)} call(s) (the maker is seat {s.maker})")
        side = final.maker_side
        winners = [_winner(s, t) for t in range(len(s.tricks))]
        for seat, pts, t, hidden in fed:
            if not pts or not hidden or t >= len(winners):
                continue
            if (winners[t] in side) != (seat in side):
                if seat in side:
                    out.fed_by_friends += pts
                    out.examples.setdefault("fed before joining", f"deal {d}, trick {t + 1}: seat {seat}, a friend "
                                            f"not yet revealed, gave {pts} points to the opponents' trick")
                else:
                    out.fed_by_opponents += pts
        out.deals += 1
    return out


def steadiness(spec: str, decisions: int = 50, reruns: int = 5, preset: str = "pagat", players: int = 6,
               seed: int = 0, table: str = "heuristic") -> tuple[int, int]:
    """How often a bot's play decisions repeat when searched again with other
    seeds: positions are taken from deals of ``table`` at every seat (a seat
    to play with a choice, at most one a trick); ``spec`` decides each
    ``reruns`` times, each with a random stream of its own. Returns
    ``(decisions where every rerun chose the same play, decisions)``."""
    from itertools import islice

    from .base import make_bot, seated_deal

    rules = Rules.preset(preset, players=players)
    same = seen = 0
    d = 0
    while seen < decisions:
        s, bots, rng = seated_deal(table, rules, seed, d)
        d += 1
        last = -1
        while not s.is_terminal() and seen < decisions:
            p = s.current_player()
            view = s.view(p)
            t = len(s.tricks)
            if (s.phase == PLAY_PHASE and t != last and rng.random() < 0.5
                    and len(list(islice(view.legal_actions(), 2))) == 2):
                last = t
                plays = set()
                for k in range(reruns):
                    bot = make_bot(spec)
                    bot.restart(rules, p, random.Random(rng.getrandbits(64) + k))
                    plays.add(bot.step(view).cards)
                seen += 1
                same += len(plays) == 1
            s.apply(bots[p].step(view))
    return same, seen


def _winner(s: State, t: int) -> int:
    """The seat that won trick ``t`` of the finished deal ``s``: the next
    trick's leader, and for the last trick the play engine's last winner."""
    if t + 1 < len(s.tricks):
        return s.tricks[t + 1][0]
    assert s.play is not None
    return int(s.play.last_trick[0])


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m bots.review SPEC [--deals N] [--preset P] [--players N] [--seed S]``."""
    import argparse

    from core.errors import PengyouError

    from .protocol import BotError

    ap = argparse.ArgumentParser(prog="python -m bots.review", description=__doc__.split("\n\n")[0])
    ap.add_argument("spec", help="the bot spec to seat at every place, e.g. ismcts:infer=maker")
    ap.add_argument("--deals", type=int, default=24)
    ap.add_argument("--preset", default="pagat")
    ap.add_argument("--players", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steady", type=int, default=0, metavar="DECISIONS",
                    help="instead: how many of DECISIONS play decisions (from heuristic deals) the spec "
                         "makes alike in 5 searches with other seeds")
    a = ap.parse_args(argv)
    if a.deals < 1:
        ap.error(f"--deals: {a.deals} is not at least 1")
    try:
        if a.steady > 0:
            same, seen = steadiness(a.spec, a.steady, 5, a.preset, a.players, a.seed)
            print(f"{a.spec}: {same} of {seen} play decisions ({100 * same / seen:.0f} %) alike in 5 searches")
            return 0
        print("\n".join(review(a.spec, a.deals, a.preset, a.players, a.seed).lines()))
    except (PengyouError, BotError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
