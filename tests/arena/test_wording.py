"""What the commands and pages say, where a newcomer's walk found it wrong or unclear.

A figure that rounds to zero is ``+0``, never ``-0.0``; a progress bar only
on a terminal; an SPRT whose bots scored alike on every deal says so; small
standings say their intervals are rough; ``--verbose`` prints the final
standings once; the ladder's submission page gives the logs' command with
this server's address; the help says what ``tune`` trusts.
"""

from __future__ import annotations

import time

import pytest

from arena.commands import main
from arena.ladder.store import EntrantRow
from arena.ladder.web.pages import submission_html
from arena.render.html import elo_text
from arena.render.numbers import signed
from arena.render.standings import FEW_GROUPS, format_standings
from arena.stats.ratings import standings
from arena.stats.sprt import Estimate, Hypotheses, SprtState
from arena.tournament.sprt import format_state
from arena.types import DealOutcome, Entrant, JobResult


@pytest.mark.parametrize("x,digits,want", [
    (-0.0, 1, "+0.0"), (-0.004, 2, "+0.00"), (0.004, 2, "+0.00"), (-0.006, 2, "-0.01"), (12.5, 0, "+12"),
    (-3.0, 0, "-3"), (float("nan"), 1, "-"),
])
def test_a_figure_that_rounds_to_zero_has_no_minus(x, digits, want):
    assert signed(x, digits) == want


def test_pages_and_the_command_line_print_a_near_zero_elo_alike():
    st = SprtState(4, 8, -0.1, (-2.94, 2.94), "limit", Estimate(-0.01, -0.04, -0.001),
                   Estimate(-0.0, -0.0, -0.0), Hypotheses(0, 10), 4)
    line = format_state(st)
    assert "Elo +0.0 [+0.0, +0.0]" in line and "margin +0.00 [+0.00, +0.00]" in line and "-0.0" not in line
    assert elo_text(-0.2) == "+0" == elo_text(0.3)


def _state(margin: Estimate, verdict="limit") -> SprtState:
    return SprtState(16, 32, 0.0, (-2.94, 2.94), verdict, Estimate(0.0, 0.0, 0.0), margin, Hypotheses(0, 10), 16)


def test_an_sprt_whose_bots_scored_alike_on_every_deal_says_so():
    alike = format_state(_state(Estimate(0.0, 0.0, 0.0)), 3)
    assert alike.splitlines()[1].startswith("sprt test 3: stopped at the limit, no verdict; every one of the 16 "
                                            "groups came out exactly even")
    assert _state(Estimate(0.0, 0.0, 0.0)).alike()
    differ = _state(Estimate(0.0, -1.5, 1.5))
    assert not differ.alike() and "exactly even" not in format_state(differ)
    assert "exactly even" not in format_state(_state(Estimate(0.0, 0.0, 0.0), verdict=None))   # not over yet


def _results(groups: int) -> list[JobResult]:
    out = []
    for g in range(groups):
        for rot, seats in enumerate(((0, 1, 0, 1, 0), (1, 0, 1, 0, 1))):
            won = (g + rot) % 3 != 0
            sign = [1 if (s in (0, 2)) == won else -1 for s in range(5)]
            deal = DealOutcome(seats=seats, maker=0, maker_side=(0, 2), opponents_points=40 if won else 120,
                               total_points=200, maker_won=won, game_points=tuple(sign),
                               margins=tuple(40.0 * s for s in sign))
            out.append(JobResult(f"g{g}-r{rot}", g, seats, (deal,)))
    return out


def test_small_standings_say_their_intervals_are_rough():
    entrants = [Entrant("a", "random"), Entrant("b", "heuristic")]
    few = format_standings(standings(_results(3), entrants, samples=50))
    assert f"only 3 duplicate groups: the intervals are rough and the order may change; {FEW_GROUPS} or more" in few
    enough = format_standings(standings(_results(FEW_GROUPS), entrants, samples=50))
    assert "rough" not in enough and enough.splitlines()[-1].startswith("maker-side edge:")


def test_verbose_prints_the_final_standings_once_and_no_bar_off_a_terminal(tmp_path, capsys):
    db = tmp_path / "v.db"
    code = main(["arena", "run", "--bots", "random", "heuristic", "--players", "5", "--deals", "1", "--db", str(db),
                 "--verbose", "--report-every", "1", "--samples", "20", "--secret", "wording"])
    out, err = capsys.readouterr()
    assert code == 0, err
    jobs = out.count("\n[")  + out.startswith("[")
    assert jobs >= 4 and out.count("standings after ") == jobs - 1      # after each job but the last
    assert out.count("maker-side edge:") == out.count("standings after ") + 1   # and once at the end
    code = main(["duel", "random", "heuristic", "--deals", "1", "--trusted", "builtins", "--secret", "wording"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "\r" not in err and "game/s" not in err and "games:" not in err      # stderr is not a terminal here


def test_the_submission_page_gives_the_logs_command_on_this_servers_address():
    from arena.ladder.web.service import Submission

    row = EntrantRow(7, "mine", 1, "ann", "module", "mine.py:Bot", "ab" * 32, "", time.time(), None)
    sub = Submission("abc", "mine", "ann", time.time(), state="accepted", entrant=row, finished=time.time())
    page = submission_html(sub, "http://127.0.0.1:8123")
    assert "curl -H 'Authorization: Bearer TOKEN' http://127.0.0.1:8123/api/entrants/mine/logs" in page
    assert "ORIGIN" not in page


@pytest.mark.parametrize("command,words", [
    (["tune", "--help"], "builtins (the default here"),
    (["duel", "--help"], "real path"),
    (["duel", "--help"], "--no-progress"),
])
def test_the_help_says_what_a_newcomer_tripped_on(command, words, capsys):
    with pytest.raises(SystemExit):
        main(command)
    out = " ".join(capsys.readouterr().out.split())
    assert words in out
