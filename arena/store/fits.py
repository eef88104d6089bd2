"""The fits kept beside a run's results: computed once, read by every surface.

A run's standings (Elo, intervals, duplicate scores, head-to-head) are kept
as their JSON form in the table ``fits``, one row per run, bootstrap samples
and seed, with the *stamp* of the results they were computed from (how
many results the run holds and the newest one's row). A kept fit is read
back only while the stamp is the run's stamp now: a result added since makes
it stale, and it is computed again and kept again. The table is made on first
use, so older files read as they are.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Optional

from .sqlite import SQLiteFile, now_utc, one_line
from ..types import ArenaError

__all__ = ["KeptFits"]

#: One kept fit per run, samples and seed (made on first use).
_FITS = """CREATE TABLE IF NOT EXISTS fits (
    run_id   INTEGER NOT NULL,
    samples  INTEGER NOT NULL,
    seed     INTEGER NOT NULL,
    stamp    TEXT NOT NULL,
    fit_json TEXT NOT NULL,
    updated  TEXT NOT NULL,
    PRIMARY KEY (run_id, samples, seed)
)"""


def _stamp(con: sqlite3.Connection, run_id: int) -> str:
    n, last = con.execute("SELECT count(*), coalesce(max(rowid), 0) FROM results WHERE run_id = ?",
                          (run_id,)).fetchone()
    return f"{int(n)}:{int(last)}"


class KeptFits(SQLiteFile):
    """The ``fits`` table of a results database (see the module's text)."""

    def results_stamp(self, run_id: int) -> str:
        """What a fit of run ``run_id``'s results is computed from: the count
        of its results and the newest one's row (``"0:0"`` with none)."""
        with self._errors():
            return _stamp(self._db, run_id)

    def kept_fit(self, run_id: int, samples: int, seed: int, stamp: str) -> Optional[dict[str, Any]]:
        """The fit kept for the run, ``samples`` and ``seed`` when it was
        computed from the results of ``stamp``; None when there is none."""
        with self._errors():
            if self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'fits'").fetchone() \
                    is None:
                return None
            row = self._db.execute("SELECT stamp, fit_json FROM fits WHERE run_id = ? AND samples = ? AND seed = ?",
                                   (run_id, samples, seed)).fetchone()
        if row is None or row[0] != stamp:
            return None
        try:
            out = json.loads(row[1])
        except ValueError as exc:
            raise ArenaError(f"{self.path} is damaged (the kept fit of run {run_id}: {one_line(exc)})") from None
        if not isinstance(out, dict):
            raise ArenaError(f"{self.path} is damaged (the kept fit of run {run_id} is not an object)")
        return out

    def keep_fit(self, run_id: int, samples: int, seed: int, stamp: str, fit: dict[str, Any]) -> bool:
        """Keep ``fit`` (JSON) as the run's fit for ``samples`` and ``seed``
        if the run's results are still those of ``stamp``; whether it was kept."""
        with self._errors(), self._transaction() as con:
            con.execute(_FITS)
            if _stamp(con, run_id) != stamp:
                return False
            con.execute("INSERT INTO fits (run_id, samples, seed, stamp, fit_json, updated) VALUES (?, ?, ?, ?, ?, ?) "
                        "ON CONFLICT (run_id, samples, seed) DO UPDATE SET stamp = excluded.stamp, "
                        "fit_json = excluded.fit_json, updated = excluded.updated",
                        (run_id, samples, seed, stamp, json.dumps(fit, separators=(",", ":")), now_utc()))
        return True
