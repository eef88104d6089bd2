"""The partner-play review (``bots/review.py``): its counts add up, and they
tell a bot that races for its friends from one that does not."""

from __future__ import annotations

import pytest

from bots.review import main, review


def test_counts_add_up_and_examples_name_real_decisions():
    r = review("heuristic", deals=8, seed=3)
    assert r.deals == 8 and r.decisions > 8 * 6 * 8
    assert r.race_taken + r.race_missed == r.race_chances > 0
    for kind, text in r.examples.items():
        assert kind in ("race taken", "race missed", "double fill", "fed before joining")
        assert text.startswith("deal ")
    assert any("friend-race" in line for line in r.lines())


def test_the_review_tells_racing_from_waiting():
    """The heuristic races (takes most chances, feeds the opponents little
    before joining); with ``race=0`` it waits (misses most chances)."""
    racing = review("heuristic", deals=16, seed=5)
    waiting = review("heuristic:race=0", deals=16, seed=5)
    assert racing.race_taken > 0.8 * racing.race_chances
    assert waiting.race_missed > 0.5 * waiting.race_chances
    assert racing.fed_by_friends < waiting.fed_by_friends


def test_bad_input_is_one_line(capsys):
    assert main(["nope", "--deals", "1"]) == 2
    assert capsys.readouterr().err.strip().startswith("error: unknown bot")
    with pytest.raises(SystemExit):
        main(["heuristic", "--deals", "0"])
