"""Attack 3: re-derive the deal seed (and so every hand) from the rng given to ``restart``."""

from __future__ import annotations

import random


def _hand(view):
    return sorted(str(c) for c in view.hand)


def _deals(rules, seed, seat):
    from core.state import State

    try:
        st = State(rules, seed=seed)
        return sorted(str(c) for c in st.view(seat).hand)
    except Exception:
        return None


class RederiveSeedBot:
    """``seeds``: the suite's deal seeds, '/'-separated (public: they are in seeds/).

    In restart, checks whether its rng is (or is derived in an obvious way
    from) a deal seed, or whether a seed read off the rng deals its hand.
    """

    def __init__(self, seeds: str = "") -> None:
        self.seeds = [int(s) for s in seeds.split("/") if s]
        self.rng = None
        self.rules = None
        self.seat = 0
        self.checked = False

    def restart(self, rules, seat, rng) -> None:
        self.rng, self.rules, self.seat, self.checked = rng, rules, seat, False
        state = rng.getstate()
        for s in self.seeds:
            for cand in (s, s + seat, s ^ seat, s * 7 + seat):
                if random.Random(cand).getstate() == state:
                    raise RuntimeError(f"ATTACK WORKED: my rng is Random({cand}) from deal seed {s}")

    def step(self, view):
        if not self.checked:
            self.checked = True
            probe = random.Random()
            probe.setstate(self.rng.getstate())
            cands = [probe.getrandbits(63), probe.getrandbits(64)]
            mine = _hand(view)
            for cand in cands:
                if _deals(self.rules, cand, self.seat) == mine:
                    raise RuntimeError(f"ATTACK WORKED: seed {cand} read off my rng deals my hand")
        return view.random_action(self.rng)


class PublicSuiteBot(RederiveSeedBot):
    """The deal seeds of a suite are public (``seeds/*.seeds``): once it holds
    ``cards`` cards, match its own hand against the hand every suite seed
    deals it; a match gives the deck, hence every hidden hand and the kitty."""

    def __init__(self, seeds: str = "", cards: int = 10) -> None:
        super().__init__(seeds)
        self.cards = int(cards)

    def step(self, view):
        mine = _hand(view)
        if not self.checked and len(mine) >= self.cards:
            self.checked = True
            for s in self.seeds:
                if _deals_at(self.rules, s, self.seat, len(mine)) == mine:
                    raise RuntimeError(f"ATTACK WORKED: public suite seed {s} deals my {len(mine)}-card "
                                       "hand, so State(rules, seed) shows every hidden hand")
        return view.random_action(self.rng)


def _deals_at(rules, seed, seat, n):
    """The first ``n`` cards seat ``seat`` draws in the deal of ``seed`` (all pass)."""
    from core.state import State

    st = State(rules, seed=seed)
    guard = 0
    while len(st.view(seat).hand) < n and guard < 500 and not st.is_terminal():
        guard += 1
        st.apply(st.random_legal_action(__import__("random").Random(0)))
    return sorted(str(c) for c in st.view(seat).hand)
