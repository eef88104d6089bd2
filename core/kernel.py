"""The fast rules kernel (compiled): the public face of ``core._kernel``.

Same API as :mod:`core.reference`; exact definitions in ``docs/kernel.md``.

>>> from core.cards import parse_cards, Trump, SPADES, DIAMONDS
>>> from core.rules import Rules
>>> rules = Rules.preset("pagat", players=6)
>>> trump = Trump(rank=4, suit=DIAMONDS)
>>> lead = parse_cards("AS KS JS JS")
>>> check_throw(lead, [parse_cards("QS QS 3H")], trump, rules)
ThrowResult(stands=False, unit=Cards.from_str('JS JS'), withdrawn=2, penalty=20, beaten_by=0)
>>> trick_winner([parse_cards("QS QS"), parse_cards("AS KS"), parse_cards("3D 3D")], trump, rules)
2
"""

from ._kernel import _multisets as multisets  # noqa: F401
from ._kernel import (  # noqa: F401
    Lead,
    TrumpContext,
    check_follow,
    check_throw,
    context,
    decompose,
    effective_suit,
    follow_error,
    free_bomb,
    is_legal_follow,
    lead_error,
    legal_follows,
    level,
    make_lead,
    random_follow,
    random_lead,
    throw_penalty,
    trick_winner,
)
# the C owners that other core modules call through this face: the scoring's
# arithmetic (core.scoring) and the shuffle of the dealing table (core.dealing)
from ._kernel import card_margin, kitty_multiplier_of, opponents_total, shuffled_lists  # noqa: F401
from .cards import points  # noqa: F401

__all__ = [
    "Lead", "TrumpContext", "check_follow", "check_throw", "context", "decompose",
    "effective_suit", "follow_error", "free_bomb", "is_legal_follow", "lead_error", "legal_follows", "level",
    "make_lead", "multisets", "points", "random_follow", "random_lead", "throw_penalty", "trick_winner",
    "card_margin", "kitty_multiplier_of", "opponents_total", "shuffled_lists",
]
