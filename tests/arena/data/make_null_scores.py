"""Regenerate ``null_scores.json``: duplicate group scores of a bot against
itself (true difference 0), as ``pengyou sprt`` scores them, for the SPRT's
simulation tests. Run from the repository root:

    python tests/arena/data/make_null_scores.py

It plays ``random`` against ``random`` (1000 deal seeds) and
``ismcts:iterations=20`` against itself (300 deal seeds), 6 players, on
generated seeds with a fixed secret, so the file comes out the same.
"""

from __future__ import annotations

import json
import os
import tempfile

from arena.tournament.runner import run_tournament
from arena.tournament.spec import spec_from_options
from arena.stats.sprt import group_scores
from arena.store import Store

HERE = os.path.dirname(os.path.abspath(__file__))


def scores(bot: str, deals: int) -> dict[str, list[float]]:
    """Both units' group scores of ``bot`` against itself."""
    spec = spec_from_options([f"A={bot}", f"B={bot}"], name="null", players=6, suite="gen:null-scores",
                             deals=deals, trusted="builtins", time_limit=0.0)
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "null.db")
        run_tournament(spec, db, workers=2, progress=False, secret="null-scores", grow=True)
        with Store(db, read_only=True) as store:
            results = store.results(1)
    return {unit: [round(x, 6) for x in group_scores(results, 2, 0, unit)] for unit in ("elo", "points")}


if __name__ == "__main__":
    out = {"random": scores("random", 1000), "ismcts20": scores("ismcts:iterations=20", 300)}
    with open(os.path.join(HERE, "null_scores.json"), "w") as fh:
        json.dump(out, fh)
        fh.write("\n")
