#!/usr/bin/env python3
"""A stand-alone Zhao Pengyou bot that speaks the bot protocol (docs/protocol.md) itself.

It is written from ``docs/protocol.md`` alone and uses only the Python 3.11 standard library:
nothing of the engine (``core``, ``bots``, ``arena``) is imported.  It reads JSON lines on
standard input, writes JSON lines on standard output, and keeps its view of the deal from the
``deal`` / ``view`` / ``event`` messages (section 7.3).

Strategy (deliberately simple):

* draw: pass, unless the exposure would make a good share of the hand trumps, or the draw is
  nearly over with nothing exposed (to avoid a redeal);
* bury: the lowest non-trump, non-point cards, keeping pairs;
* call: an ace (then a king) the bot does not hold;
* lead: a non-trump card (or set) that no unseen card can beat, else a low non-trump,
  non-point card;
* follow: the lowest legal cards, unless the trick can be won cheaply (a single or a set lead);
  when a known partner is winning, give it point cards.

By default it asks for ``"want": ["legal"]`` and checks its own choice against the list (a
disagreement is logged on standard error and a listed action is played instead).  With
``--no-legal`` it does not ask for the list and works out legal actions from the rules of
section 8 alone.  With ``--coalesce`` it asks for ``"coalesce"`` too: its view then changes only
through the ``update`` sent before each request (events name the actions and nothing more).

Run it from the project's root, naming the real interpreter (the sandbox lets the bot read only
the system, the Python installation and the files named on its command line):

    PY=$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')
    pengyou duel "cmd:$PY docs/examples/standalone_bot.py" random --deals 4

i.e. ``cmd:<sys.executable> docs/examples/standalone_bot.py`` with ``sys.executable`` resolved by
``os.path.realpath`` (this is what tests/arena/test_examples.py does).  Checked on this machine:
the real interpreter, ``/usr/bin/python3`` and ``/usr/bin/env python3`` (the bot's ``PATH`` is
scrubbed to ``/usr/local/bin:/usr/bin:/bin``, so ``env`` finds the system Python) all work; a
bare ``cmd:python3`` does not, because the referee looks it up on its own ``PATH`` and finds a
pyenv shim, which cannot read pyenv's files inside the sandbox (exit 127 before ``hello``).
Add ``--no-legal`` after the file name to play without the ``legal`` lists.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter

RANKS = {"2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10,
         "J": 11, "Q": 12, "K": 13, "A": 14}
RANK_TEXT = {v: k for k, v in RANKS.items()}
SUITS = "CDHS"


def log(*args) -> None:
    print("[standalone_bot]", *args, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- cards (section 5)

def parse_card(text: str) -> str:
    """Normalise one card's text to the referee's form (``10H``, ``BJ``)."""
    t = text.strip().upper()
    if t in ("BJ", "RJ"):
        return t
    if t.startswith("T"):
        t = "10" + t[1:]
    if t[:-1] not in RANKS or t[-1] not in SUITS:
        raise ValueError(f"bad card {text!r}")
    return t


def parse_cards(text: str) -> list[str]:
    return [parse_card(c) for c in text.replace(",", " ").split()]


def face(card: str) -> int:
    if card == "BJ":
        return 52
    if card == "RJ":
        return 53
    return SUITS.index(card[-1]) * 13 + RANKS[card[:-1]] - 2


def card_rank(card: str) -> int | None:
    return None if card in ("BJ", "RJ") else RANKS[card[:-1]]


def card_suit(card: str) -> int | None:
    return None if card in ("BJ", "RJ") else SUITS.index(card[-1])


def points(card: str) -> int:
    r = card_rank(card)
    return 10 if r in (10, 13) else 5 if r == 5 else 0


def canon(verb: str, cards) -> str:
    return verb + " " + " ".join(sorted(cards, key=face))


def canon_text(text: str) -> str:
    """Canonical form of an action text, for comparing with the ``legal`` list."""
    words = text.split(None, 1)
    verb = words[0].lower()
    if verb in ("play", "bury", "expose") and len(words) == 2:
        return canon(verb, parse_cards(words[1]))
    return " ".join(text.split())


class Trump:
    """Trump, effective suits and order levels (sections 5 and 8.6)."""

    def __init__(self, trump):
        self.rank, self.suit = (trump if trump else (None, None))

    def is_trump(self, card: str) -> bool:
        if card in ("BJ", "RJ"):
            return True
        return card_rank(card) == self.rank or card_suit(card) == self.suit

    def esuit(self, card: str) -> int:
        return 4 if self.is_trump(card) else card_suit(card)

    def level(self, card: str) -> int:
        if card == "BJ":
            return 14
        if card == "RJ":
            return 15
        r, s = card_rank(card), card_suit(card)
        if self.rank is not None and r == self.rank:
            return 13 if (self.suit is None or s == self.suit) else 12
        lvl = r - 2
        if self.rank is not None and r > self.rank:
            lvl -= 1
        return lvl

    def tractor_ok(self, card: str, past_ace: bool) -> bool:
        if past_ace:
            return True
        return card not in ("BJ", "RJ") and card_rank(card) != self.rank


# ---------------------------------------------------------------- lead units (section 8.4)

def split_units(cards: list[str], tr: Trump, packs: int, past_ace: bool):
    """Greedy split of a lead into units: list of (kind, width, length, top_level, cards)."""
    left = Counter(cards)
    units = []
    while sum(left.values()) > 0:
        best = None  # (key, unit)
        for card, c in left.items():
            if c <= 0:
                continue
            lvl = tr.level(card)
            for k in range(1, c + 1):
                key = (k, 0, k, lvl)
                if best is None or key > best[0]:
                    best = (key, ("set" if k > 1 else "single", k, 1, lvl, [card] * k))
        for k in range(2, packs + 1):
            by_level = {}
            for card, c in left.items():
                if c >= k and tr.tractor_ok(card, past_ace):
                    lvl = tr.level(card)
                    if lvl not in by_level or left[by_level[lvl]] < c:
                        by_level[lvl] = card
            levels = sorted(by_level)
            i = 0
            while i < len(levels):
                j = i
                while j + 1 < len(levels) and levels[j + 1] == levels[j] + 1:
                    j += 1
                length = j - i + 1
                if length >= 2:
                    run = [by_level[lv] for lv in levels[i:j + 1]]
                    key = (length * k, 1, k, levels[j])
                    if best is None or key > best[0]:
                        best = (key, ("tractor", k, length, levels[j],
                                      [c for c in run for _ in range(k)]))
                i = j + 1
        unit = best[1]
        for card in unit[4]:
            left[card] -= 1
        units.append(unit)
    return units


def decompositions(c: int, widths: list[int]):
    """Ways to use c copies of one card as sets of the given widths (descending)."""
    out = []

    def rec(i, remaining, parts):
        out.append(list(parts))
        for j in range(i, len(widths)):
            w = widths[j]
            if w <= remaining:
                parts.append(w)
                rec(j, remaining - w, parts)
                parts.pop()

    rec(0, c, [])
    return out


# ---------------------------------------------------------------- the bot

class Bot:
    def __init__(self, want_legal: bool = True, coalesce: bool = False):
        self.want_legal = want_legal
        self.coalesce = coalesce
        self.view: dict = {}
        self.seat = 0
        self.rules: dict = {}
        self.rng = random.Random(0)

    # ---- protocol plumbing

    def send(self, obj) -> None:
        sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
        sys.stdout.flush()

    def run(self) -> None:
        for raw in sys.stdin.buffer:
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                log("unreadable line ignored:", line[:200])
                continue
            if not isinstance(msg, dict):
                continue
            kind = msg.get("type")
            if kind == "hello":
                if msg.get("protocol") != 1:
                    self.send({"type": "error", "kind": "crash",
                               "message": f"protocol {msg.get('protocol')} not supported"})
                    return
                ready = {"type": "ready", "name": "standalone-doc-bot"}
                want = (["legal"] if self.want_legal else []) + (["coalesce"] if self.coalesce else [])
                if want:
                    ready["want"] = want
                self.send(ready)
            elif kind == "deal":
                self.seat = msg["seat"]
                self.rules = msg.get("rules", {})
                self.view = msg["view"]
                self.rng = random.Random(msg.get("seed", 0))
            elif kind == "view":
                self.view = msg["view"]
            elif kind == "event":
                self.apply_event(msg)
            elif kind == "update":          # only after asking for "coalesce"
                if "view" in msg:
                    self.view = msg["view"]
                else:
                    self.apply_event(msg)
            elif kind == "request":
                self.send({"type": "action", "id": msg["id"], "action": self.answer(msg)})
            elif kind in ("quit", "error"):
                if kind == "error":
                    log("referee error:", msg.get("kind"), msg.get("message"))
                return
            # "end" and unknown types: nothing to do

    def apply_event(self, msg) -> None:
        for field, value in (msg.get("set") or {}).items():
            self.view[field] = value
        for field, items in (msg.get("add") or {}).items():
            self.view.setdefault(field, [])
            self.view[field].extend(items)
            if field in ("voids", "no_sets"):
                self.view[field].sort()

    def answer(self, req) -> str:
        legal = req.get("legal")
        complete = req.get("complete", True) is not False
        try:
            choice = self.choose()
        except Exception as exc:  # never crash on a strategy bug: fall back below
            log("strategy failed:", repr(exc))
            choice = None
        if legal is not None:
            canon_legal = {canon_text(a): a for a in legal}
            if choice is not None and canon_text(choice) in canon_legal:
                return choice
            if choice is not None and not complete and self.default_follow_rules():
                return choice  # the list was cut to 100; trust the rules of section 8
            log(f"request {req.get('id')}: own choice {choice!r} not in legal "
                f"({len(legal)} listed, complete={complete}); choosing from the list")
            return self.pick_from_legal(legal)
        if choice is None:
            choice = self.safe_fallback()
        return choice

    def default_follow_rules(self) -> bool:
        return not self.rules.get("follow_ladder") and not self.rules.get("protect_longer_sets")

    # ---- view helpers

    def hand(self) -> list[str]:
        return parse_cards(self.view.get("hand") or "")

    def trump(self) -> Trump:
        return Trump(self.view.get("trump"))

    def packs(self) -> int:
        return int(self.rules.get("packs", 2))

    def unseen(self) -> Counter:
        """Cards not in my hand, not played, not in the kitty I know of."""
        packs = self.packs()
        total = Counter()
        for s in SUITS:
            for r in RANKS:
                total[r + s] = packs
        total["RJ"] = int(self.rules.get("red_jokers", packs))
        total["BJ"] = int(self.rules.get("black_jokers", packs))
        total.subtract(self.hand())
        for _, plays in list(self.view.get("tricks") or []) + [self.view.get("current_trick") or [-1, []]]:
            for p in plays:
                total.subtract(parse_cards(p))
        if self.view.get("kitty") and self.view.get("phase") != "done":
            total.subtract(parse_cards(self.view["kitty"]))
        return total

    def partners(self) -> set[int]:
        v = self.view
        maker = v.get("maker")
        if maker is None:
            return set()
        filled = v.get("calls_filled") or []
        side = {maker} | {s for s in filled if s is not None}
        if self.seat in side:
            return side - {self.seat}
        if filled and all(s is not None for s in filled):
            return set(range(v["players"])) - side - {self.seat}
        return set()

    # ---- choosing

    def choose(self) -> str:
        phase = self.view.get("phase")
        if phase == "draw":
            return self.choose_draw()
        if phase == "bury":
            return self.choose_bury()
        if phase == "call":
            return self.choose_call()
        if phase == "play":
            return self.choose_play()
        raise RuntimeError(f"request in phase {phase!r}")

    def choose_draw(self) -> str:
        options = self.view.get("options") or ["pass"]
        hand = self.hand()
        hand_size = int(self.rules.get("hand_size", 20))
        n = int(self.view.get("players", 5))
        drawn = int(self.view.get("cards_drawn", 0))
        others_exposed = any(e[0] != self.seat and e[1] in ("expose", "defend")
                             for e in self.view.get("exposures") or [])
        best, best_score = "pass", 0.0
        for opt in options:
            words = opt.split(None, 1)
            if words[0].lower() != "expose" or len(words) < 2:
                continue
            shown = parse_cards(words[1])
            rank, suit = card_rank(shown[0]), card_suit(shown[0])
            tr = Trump([rank, suit])
            share = sum(tr.is_trump(c) for c in hand) / max(1, len(hand))
            score = share + 0.05 * len(shown)
            enough = len(hand) >= 0.4 * hand_size and share >= 0.3
            late = drawn >= 0.75 * n * hand_size and not others_exposed
            if (enough or late) and score > best_score:
                best, best_score = opt, score
        return best if best in options else options[0]

    def choose_bury(self) -> str:
        hand = self.hand()
        tr = self.trump()
        counts = Counter(hand)
        suit_len = Counter(tr.esuit(c) for c in hand)
        card = min(hand, key=lambda c: (tr.is_trump(c), points(c) > 0, counts[c] >= 2,
                                        tr.level(c) >= 11, suit_len[tr.esuit(c)], tr.level(c)))
        return "bury " + card

    def choose_call(self) -> str:
        options = list(self.view.get("options") or [])
        hand = Counter(self.hand())
        tr = self.trump()
        if not options:  # build them from section 8.3
            for s in SUITS:
                for r in RANKS:
                    c = r + s
                    if not tr.is_trump(c):
                        options += [f"call {c} {i}" for i in range(1, self.packs() + 1)]
        made = {(c, o) for c, o in self.view.get("calls") or []}

        def score(opt):
            _, card, ordinal = opt.split()
            card = parse_card(card)
            held = hand[card]
            r = card_rank(card)
            o = 0 if ordinal.lower() == "other" else int(ordinal)
            if (card, o) in made:
                return (9,)
            if r == 14 and held == 0:
                return (0, o)
            if r == 13 and held == 0:
                return (1, o)
            if r == 14 and o == 0:
                return (2, 0)
            if r == 14 and o == held + 1:
                return (3, o)
            return (4, -r, o)

        return min(options, key=score)

    # ---- the play

    def follow_key(self, tr: Trump, partner_wins: bool):
        if partner_wins:
            return lambda c: (tr.is_trump(c), -points(c), tr.level(c))
        return lambda c: (tr.is_trump(c), points(c), tr.level(c))

    def choose_play(self) -> str:
        tr = self.trump()
        hand = self.hand()
        leader, plays = self.view.get("current_trick") or [-1, []]
        if not plays:
            return canon("play", self.choose_lead(hand, tr))
        return canon("play", self.choose_follow(hand, tr, leader, plays))

    def choose_lead(self, hand: list[str], tr: Trump) -> list[str]:
        unseen = self.unseen()
        counts = Counter(hand)

        def is_boss(card):
            e, lvl = tr.esuit(card), tr.level(card)
            return not any(n > 0 and tr.esuit(c) == e and tr.level(c) > lvl
                           for c, n in unseen.items())

        plain = [c for c in counts if not tr.is_trump(c)]
        bosses = [c for c in plain if is_boss(c)]
        if bosses:
            card = max(bosses, key=lambda c: (counts[c], tr.level(c)))
            return [card] * counts[card]
        if plain:
            card = min(plain, key=lambda c: (points(c) > 0, counts[c] >= 2, tr.level(c)))
            return [card]
        trumps = sorted(counts, key=tr.level)
        if is_boss(trumps[-1]):
            return [trumps[-1]] * counts[trumps[-1]]
        return [trumps[0]]

    def winner(self, tr: Trump, leader: int, plays: list[list[str]], units):
        """Seat winning so far and its (class, level), for a one-unit lead; else None."""
        if len(units) != 1 or units[0][0] == "tractor":
            return None
        k = units[0][1]
        lead_suit = tr.esuit(plays[0][0])
        best_seat, best_key = None, None
        n = self.view["players"]
        for i, p in enumerate(plays):
            if len(p) != k or len(set(p)) != 1:
                continue
            e = tr.esuit(p[0])
            if e == lead_suit:
                key = (0, tr.level(p[0]))
            elif e == 4:
                key = (1, tr.level(p[0]))
            else:
                continue
            if best_key is None or key > best_key:
                best_seat, best_key = (leader + i) % n, key
        return best_seat, best_key

    def choose_follow(self, hand, tr: Trump, leader, plays_text) -> list[str]:
        plays = [parse_cards(p) for p in plays_text]
        lead = plays[0]
        n = len(lead)
        lead_suit = tr.esuit(lead[0])
        units = split_units(lead, tr, self.packs(), bool(self.rules.get("tractor_past_ace")))
        H = [c for c in hand if tr.esuit(c) == lead_suit]
        others = [c for c in hand if tr.esuit(c) != lead_suit]
        win = self.winner(tr, leader, plays, units)
        partner_wins = win is not None and win[0] in self.partners()
        key = self.follow_key(tr, partner_wins)
        trick_points = sum(points(c) for p in plays for c in p)
        last = len(plays) == self.view["players"] - 1

        if len(H) <= n:
            # Rule 1: all of H, then any other cards.
            if not H and win is not None and not partner_wins and lead_suit != 4 \
                    and (trick_points >= 5 or last):
                ruff = self.cheapest_set(others, tr, n, win[1], cls=1)
                if ruff is not None:
                    return ruff
            rest = sorted(others, key=key)
            return H + rest[:n - len(H)]

        # Rule 2: n cards of H, meeting the shape obligation.
        if win is not None and not partner_wins and win[1][0] == 0 \
                and (trick_points >= 5 or last or units[0][1] >= 2):
            beat = self.cheapest_set(H, tr, n, win[1], cls=0)
            if beat is not None and (tr.level(beat[0]) < 12 or trick_points >= 10):
                return beat
        return self.lowest_follow(H, units, n, key)

    def cheapest_set(self, cards, tr: Trump, k, best_key, cls):
        """The lowest k identical cards among ``cards`` that beat ``best_key`` with class cls."""
        counts = Counter(cards)
        good = [c for c, m in counts.items() if m >= k and (cls, tr.level(c)) > tuple(best_key)
                and (cls == 0 or tr.is_trump(c))]
        if not good:
            return None
        c = min(good, key=lambda c: (points(c), tr.level(c)))
        return [c] * k

    def lowest_follow(self, H, units, n, key) -> list[str]:
        owed = Counter()
        for _kind, width, length, _, _ in units:
            if width >= 2:
                owed[width] += length
        widths = sorted(owed, reverse=True)
        counts = Counter(H)
        chosen: list[str] = []
        if widths:
            caps = tuple(owed[w] for w in widths)
            states = {tuple(0 for _ in widths): []}
            for card in sorted(counts, key=key):
                new_states = dict(states)
                for state, assign in states.items():
                    for parts in decompositions(counts[card], widths):
                        if not parts:
                            continue
                        st = list(state)
                        for p in parts:
                            i = widths.index(p)
                            st[i] = min(caps[i], st[i] + 1)
                        st = tuple(st)
                        if st not in new_states:
                            new_states[st] = assign + [(card, p) for p in parts]
                states = new_states
            best = max(states)
            used = Counter()
            for card, p in states[best]:
                i = widths.index(p)
                if used[p] < caps[i]:
                    chosen += [card] * p
                    used[p] += 1
        rest = Counter(H)
        rest.subtract(chosen)
        filler = sorted(rest.elements(), key=key)
        return chosen + filler[:n - len(chosen)]

    # ---- fallbacks

    def pick_from_legal(self, legal: list[str]) -> str:
        phase = self.view.get("phase")
        tr = self.trump()
        if phase == "play":
            def cost(a):
                cards = parse_cards(a.split(None, 1)[1])
                return (sum(tr.is_trump(c) for c in cards),
                        sum(points(c) for c in cards), sum(tr.level(c) for c in cards))
            return min(legal, key=cost)
        if phase == "draw" and "pass" in legal:
            return "pass"
        return legal[0]

    def safe_fallback(self) -> str:
        phase = self.view.get("phase")
        options = self.view.get("options") or []
        if phase in ("draw", "call") and options:
            return options[0]
        hand = self.hand()
        if phase == "bury":
            return "bury " + hand[0]
        leader, plays = self.view.get("current_trick") or [-1, []]
        if not plays:
            return "play " + hand[0]
        tr = self.trump()
        lead = parse_cards(plays[0])
        H = [c for c in hand if tr.esuit(c) == tr.esuit(lead[0])]
        rest = [c for c in hand if c not in H]
        return canon("play", (H + rest)[:len(lead)])


def main(argv: list[str]) -> int:
    bot = Bot(want_legal="--no-legal" not in argv, coalesce="--coalesce" in argv)
    try:
        bot.run()
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
