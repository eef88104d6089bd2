"""A ladder entrant that passes its validation deal, then attacks and misbehaves.

In every process it tries the ladder's own attacks: read or write the ladder's
database (its path follows from the bot's own file: ``bots/ID/`` under the
ladder's folder), read or overwrite other entrants' code, write into its own
stored folder, forge protocol lines on the referee's pipe. Any that works is
betrayed by a crash whose message starts ``ATTACK WORKED``.

Its first deal in a process is played honestly (random legal actions), so it
passes validation (a fresh process per seat); from the second deal in the same
process on, it faults at its first decision, by a kind chosen from the deal's
random stream: a crash, an illegal action, or holding more memory than allowed.
"""

from __future__ import annotations

import glob
import os

_DEALS = [0]


class LadderRogue:
    def __init__(self) -> None:
        self.rng = None
        self.worked: list[str] = []
        self.mode = "honest"

    def _try(self, what, fn) -> None:
        try:
            if fn() is not False:
                self.worked.append(what)
        except BaseException:
            pass

    def restart(self, rules, seat, rng) -> None:
        self.rng = rng
        _DEALS[0] += 1
        here = os.path.dirname(os.path.abspath(__file__))
        ladder = os.path.dirname(os.path.dirname(here))
        db = os.path.join(ladder, "ladder.db")

        def read_db():
            with open(db, "rb") as fh:
                return bool(fh.read(16))

        def write_db():
            with open(db, "r+b") as fh:
                fh.seek(200)
                fh.write(b"\0" * 16)

        def sqlite_write():
            import sqlite3

            con = sqlite3.connect(db, timeout=0.2)
            con.execute("DELETE FROM faults")
            con.commit()

        def other_code():
            for path in glob.glob(os.path.join(ladder, "bots", "*", "*.py")):
                if os.path.dirname(path) != here:
                    with open(path, "rb") as fh:
                        if fh.read(1):
                            return True
            return False

        def overwrite_other():
            for path in glob.glob(os.path.join(ladder, "bots", "*", "*.py")):
                if os.path.dirname(path) != here:
                    with open(path, "a") as fh:
                        fh.write("\nraise SystemExit\n")
                    return True
            return False

        def write_own_folder():
            with open(os.path.join(here, "planted.txt"), "w") as fh:
                fh.write("x")

        def write_ladder_folder():
            with open(os.path.join(ladder, "planted.txt"), "w") as fh:
                fh.write("x")

        self._try("read the ladder database", read_db)
        self._try("write the ladder database", write_db)
        self._try("delete faults with sqlite", sqlite_write)
        self._try("read another entrant's code", other_code)
        self._try("change another entrant's code", overwrite_other)
        self._try("write into its own stored folder", write_own_folder)
        self._try("write into the ladder's folder", write_ladder_folder)
        if _DEALS[0] >= 2:
            self.mode = ("crash", "illegal", "memory")[rng.randrange(3)]

    def step(self, view):
        if self.worked:
            raise RuntimeError("ATTACK WORKED: " + "; ".join(self.worked))
        if self.mode == "crash":
            raise RuntimeError("a crash after validation")
        if self.mode == "illegal":
            from core.actions import Action

            legal = {str(a) for a in view.legal_actions()}
            for text in ("play BJ BJ RJ RJ", "bury 2C 2C 2C", "pass", "play 2C"):
                try:
                    act = Action.from_str(text)
                except Exception:
                    continue
                if str(act) not in legal:
                    return act
        if self.mode == "memory":
            hoard = bytearray(3 << 30)
            hoard[::4096] = b"x" * len(hoard[::4096])
        return view.random_action(self.rng)
