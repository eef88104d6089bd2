"""A short soak of both databases under readers (``tests/soak_store.py``):
a tournament and a ladder written while other processes read them, then
``integrity_check`` and every result and game once. The long one (three
minutes and more) is the same script run by hand."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from soak_store import soak  # noqa: E402


def test_a_tournament_and_a_ladder_stay_whole_under_readers(tmp_path):
    said: list[str] = []
    ok = soak(str(tmp_path), seconds=25, deals=3, bots=["random", "heuristic"], say=said.append)
    assert ok, "\n".join(said)
    assert len(said) >= 12 and all(line.startswith("ok") for line in said)
