"""The play phase in public: :class:`PlayCore` and :func:`playouts` (the face
of the compiled ``core._play``), and the play helpers that the phase
handlers (:mod:`core.phases`) and a seat's view (:mod:`core.view`) share:
the legal plays listed lazily (:func:`play_options`, :func:`play_actions`)
and the inference a forced follow shows (:func:`no_set_width`,
:func:`holds_set`), which the sampler reads too.

>>> import random
>>> from core.cards import SPADES, Trump, parse_cards
>>> from core.rules import Rules
>>> r = Rules.preset("pagat", players=5)
>>> hands = [parse_cards("AS KS"), parse_cards("3H 4H"), parse_cards("5C 6C"), parse_cards("7D 8D"), parse_cards("9S 10S")]
>>> pc = PlayCore.start(r, Trump(2, SPADES), 0, hands)
>>> pc.current_player, pc.can_play(parse_cards("AS")), pc.can_play(parse_cards("3H"))
(0, True, False)
>>> pc.playout(random.Random(1))
>>> pc.done
True
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Optional

from . import kernel
from ._play import PlayCore, playouts
from .actions import Action
from .cards import Cards, Trump
from .rules import Rules

__all__ = ["PlayCore", "playouts", "play_options", "play_actions", "rainbow_leads", "no_set_width", "holds_set"]


def play_options(hand: Cards, lead: Optional[Cards], trump: Trump, rules: Rules,
                 played: Sequence[int] = ()) -> Iterator[Sequence[int]]:
    """Every legal play as its faces in ascending order, lazily: any non-empty
    part of one suit's holding when leading (that the lead rules allow, see
    :func:`core.kernel.lead_error`; ``played``: the cards of the deal's earlier
    tricks, read under ``throw_check`` ``safe``), else the legal follows of
    ``lead`` (the one enumeration behind :func:`play_actions` and the referee's lists).

    >>> from core.cards import format_cards, parse_cards, SPADES
    >>> [format_cards(p) for p in play_options(parse_cards("3S 3S 4H"), None, Trump(2, SPADES), Rules.preset("pagat"))]
    ['4H', '3S', '3S 3S']
    """
    if lead is not None:
        yield from kernel.legal_follows(hand, lead, trump, rules)
        return
    ctx = kernel.context(trump, rules.tractor_past_ace)
    by_suit: dict[int, list[tuple[int, int]]] = {}
    for f in sorted(set(hand)):
        by_suit.setdefault(ctx.effective_suit(f), []).append((f, hand.count(f)))
    checked = not rules.trump_throws or rules.throw_check == "safe" or rules.throw_counts == "equal"
    for e in sorted(by_suit):
        faces = by_suit[e]
        for size in range(1, sum(k for _, k in faces) + 1):
            if not checked:
                yield from kernel.multisets(faces, size)
                continue
            for cards in kernel.multisets(faces, size):
                if kernel.lead_error(cards, hand, played, trump, rules) is None:
                    yield cards
    if rules.rainbow:
        for cards in rainbow_leads(hand, ctx):
            if kernel.lead_error(cards, hand, played, trump, rules) is None:
                yield cards


def rainbow_leads(hand: Sequence[int], ctx: kernel.TrumpContext) -> Iterator[list[int]]:
    """Every rainbow ``hand`` can lead (``rules.rainbow``; docs/kernel.md,
    Rainbows), as ascending faces: for each set of ranks it holds in four
    effective suits, each choice of four or more of each rank's cards that
    keeps the four suits.

    >>> from core.cards import Trump, format_cards, parse_cards
    >>> ctx = kernel.context(Trump(2, 3))
    >>> [format_cards(c) for c in rainbow_leads(parse_cards("5C 5D 5H 5S 5S 6C"), ctx)]
    ['5C 5D 5H 5S', '5C 5D 5H 5S 5S']
    """
    per_rank: list[list[list[int]]] = []
    for r in range(13):
        faces = [(f, hand.count(f)) for f in range(r, 52, 13) if f in hand]
        ways = [list(c) for size in range(4, sum(k for _, k in faces) + 1)
                for c in kernel.multisets(faces, size)
                if len({ctx.effective_suit(f) for f in c}) >= 4]
        if ways:
            per_rank.append(ways)
    for pick in range(1, 1 << len(per_rank)):
        chosen = [per_rank[i] for i in range(len(per_rank)) if pick >> i & 1]
        for parts in itertools.product(*chosen):
            yield sorted(f for part in parts for f in part)


def play_actions(hand: Cards, lead: Optional[Cards], trump: Trump, rules: Rules,
                 played: Sequence[int] = ()) -> Iterator[Action]:
    """Every legal play, lazily, as actions (:func:`play_options`).

    >>> from core.cards import parse_cards, SPADES
    >>> [str(a) for a in play_actions(parse_cards("3S 3S 4H"), parse_cards("5S"), Trump(2, SPADES), Rules.preset("pagat"))]
    ['play 3S']
    """
    for faces in play_options(hand, lead, trump, rules, played):
        yield Action.play(faces if isinstance(faces, Cards) else Cards(faces))


def no_set_width(lead: Cards, trump: Optional[Trump], rules: Rules) -> int:
    """The no-set inference from forced follows, written once: ``k`` (2 or more)
    when a follow to ``lead`` that is all of the led suit but holds no set of
    ``k`` shows that the follower has no set of ``k`` left in that suit; 0 when
    no follow to it shows that (a throw, a tractor or a single led, or rules
    under which a set may be kept back: ``protect_longer_sets``,
    ``follow_format=count``). Under ``follow_ladder`` the led set is the
    ladder's first step, owed whenever the hand can make it, so it reads too.

    >>> from core.cards import Trump, parse_cards
    >>> r = Rules.preset("pagat")
    >>> no_set_width(parse_cards("KS KS"), Trump(2, 0), r), no_set_width(parse_cards("KS QS"), Trump(2, 0), r)
    (2, 0)
    """
    if rules.protect_longer_sets or rules.follow_format == "count":
        return 0
    if rules.rainbow and kernel.make_lead(lead, trump, rules).is_rainbow:
        return 0  # a rainbow is followed by rank, not by suit: no set of a face is owed
    units = kernel.decompose(lead, trump, rules)
    if len(units) != 1 or units[0].length >= 2 or units[0].width < 2:
        return 0
    width: int = units[0].width
    return width


def holds_set(cards: Sequence[int], k: int) -> bool:
    """Whether ``cards`` hold ``k`` copies of one face.

    >>> holds_set([3, 5, 3], 2), holds_set([3, 5, 3], 3)
    (True, False)
    """
    counts: dict[int, int] = {}
    for f in cards:
        counts[f] = counts.get(f, 0) + 1
    return any(c >= k for c in counts.values())
