"""The ladder: submitted bots validated in the sandbox, playing continuously,
with persistent ratings (guide: ``docs/ladder.md``).

- :mod:`arena.ladder.folder`: a ladder's folder, its rules, submission and
  validation, retirement;
- :mod:`arena.ladder.files`: an upload's files taken into storage safely;
- :mod:`arena.ladder.store`: its SQLite database;
- :mod:`arena.ladder.rounds`: scheduling rounds and playing them;
- :mod:`arena.ladder.fits`: the ratings, fitted, kept and read.
"""

from .folder import Ladder, LadderRules, validate_entrant
from .fits import RatingRow, ratings
from .rounds import LadderSummary, pick_pairs, run_ladder

__all__ = ["Ladder", "LadderRules", "validate_entrant", "LadderSummary", "RatingRow", "pick_pairs", "ratings",
           "run_ladder"]
