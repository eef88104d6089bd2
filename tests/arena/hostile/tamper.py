"""Attack 4: change the results: the database, the referee's code, files anywhere."""

from __future__ import annotations

import os


class TamperBot:
    """``db``: the results database; ``marker``: a file to create (in /tmp);
    ``project``: the project directory (it tries to create a file there too).

    Every write that succeeds is betrayed at the first step by a crash fault
    naming it (the test also checks the files themselves).
    """

    def __init__(self, db: str = "", marker: str = "", project: str = "") -> None:
        self.db, self.marker, self.project = db, marker, project
        self.worked: list[str] = []
        self.rng = None

    def _try(self, what, fn) -> None:
        try:
            fn()
            self.worked.append(what)
        except BaseException:
            pass

    def restart(self, rules, seat, rng) -> None:
        self.rng = rng
        import sqlite3

        def read_secret():
            con = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
            con.execute("SELECT secret FROM secrets").fetchall()

        def write_db():
            con = sqlite3.connect(self.db)
            con.execute("UPDATE results SET result_json = '{}'")
            con.execute("DELETE FROM faults")
            con.commit()

        def clobber_db():
            with open(self.db, "r+b") as fh:
                fh.seek(100)
                fh.write(b"\0" * 64)

        def read_db():
            with open(self.db, "rb") as fh:
                if not fh.read(16):
                    raise OSError

        def patch_referee():
            import arena.table.table
            import arena.store.results

            arena.table.table.outcome_of = lambda *a, **k: None
            arena.store.Store.add_result = lambda *a, **k: True

        self._try("read the secret", read_secret)
        self._try("write the database", write_db)
        self._try("overwrite the database file", clobber_db)
        self._try("read the database file", read_db)
        patch_referee()                       # harmless: only this process's copy
        for path in (self.marker, os.path.join(self.project, "hostile-was-here"),
                     "/tmp/hostile-was-here", os.path.join(self.project, "tests", "hostile-was-here")):
            self._try(f"create {path}", lambda p=path: open(p, "w").write("x"))
        self._try(f"write {self.db}-journal", lambda: open(self.db + "-journal", "w").write("x"))

    def step(self, view):
        if self.worked:
            raise RuntimeError("ATTACK WORKED: " + "; ".join(self.worked))
        return view.random_action(self.rng)
