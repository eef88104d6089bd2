"""The pages of an SPRT and of a tuning run lead with the answer; no report scrolls sideways.

An SPRT's page (``pengyou report --sprt``) opens with the verdict in words,
the hypotheses, the LLR with its bounds and the groups played, every number
the one stored with the test; the standings follow and the games come last,
paged (a browser clicks through the pages and finds every game). A tuning
run's page (``pengyou report --tune``) opens with its final test's verdict, or
says it was skipped, then the tuned bot as ``pengyou tune`` prints it, the
schedule of the stored spec and each parameter in its type. In a real
browser, at 1400 and 1000 pixels wide, no report (a run's, an SPRT's, a
tuning run's, a ladder's) is wider than the window, and the tables the
issue named (margins by role and seat, games) fit their box at 1400 pixels.
Screenshots go to ``/tmp/shots/``.
"""

from __future__ import annotations

import html
import math
import re
from pathlib import Path

import pytest

from arena.commands import main
from arena.stats.spsa import ALPHA, GAMMA
from arena.store import Store
from arena.tournament.sprt import saved_state
from arena.tournament.tune import load_tune

from test_browser import ROOT, browser  # noqa: F401  (the headless chromium fixture)

SHOTS = Path("/tmp/shots")
CRASH = f"crash={ROOT / 'tests' / 'arena' / 'faulty_bots.py'}:CrashBot"
NOISY = f"{ROOT / 'tests' / 'arena' / 'noisy_bot.py'}:NoisyBot"      # an integer and a real parameter
HEADS = {"H0": "H0 accepted", "H1": "H1 accepted", "limit": "no verdict", None: "still running"}


def _cli(capsys, *argv: str) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def _span(page: str, element: str, cls: str) -> str:
    """The text of ``<span class=CLS>`` inside the element of id ``element``."""
    body = re.search(rf"id={element}>(.*?)</td>", page, re.S).group(1)
    return _text(re.search(rf"<span class={cls}>(.*?)</span>", body).group(1))


# ------------------------------------------------------------------ the pages, written once
@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """An SPRT (heuristic against random, long enough for three pages of
    games), a plain run, two tuning runs (one ending with its test, one with
    ``--no-sprt``, both of :mod:`noisy_bot`, whose parameters move at once)
    and a small ladder, each with its report."""
    import io
    import contextlib

    tmp = tmp_path_factory.mktemp("pages")
    fast = ["--players", "5", "--time-limit", "0", "--trusted", "builtins"]
    out: dict[str, object] = {"tmp": tmp}
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
        assert main(["sprt", "heuristic", "random", "--elo0", "0", "--elo1", "40", "--max-deals", "60", *fast,
                     "--db", str(tmp / "s.db"), "--secret", "p", "--workers", "1"]) == 0
        assert main(["report", "--sprt", "--db", str(tmp / "s.db"), "-o", str(tmp / "sprt.html"),
                     "--samples", "20", "--games", "5"]) == 0
        assert main(["arena", "run", "--bots", "random", "heuristic", CRASH, "--players", "5", "--deals", "2",
                     "--db", str(tmp / "r.db"), "--no-progress", "--samples", "20", "--secret", "p"]) == 0
        assert main(["report", "--db", str(tmp / "r.db"), "-o", str(tmp / "run.html"), "--samples", "20",
                     "--games", "0"]) == 0
        tune = ["tune", NOISY, "--param", "n=5,0,10,2,1", "--param", "p=0.2,0,0.5,0.1,1", "--iterations", "8",
                *fast, "--no-progress", "--secret", "t"]
        for name, extra in (("tuned", ["--sprt-elo1", "200", "--sprt-max-deals", "2"]), ("nosprt", ["--no-sprt"])):
            buf.truncate(0)
            buf.seek(0)
            assert main([*tune, *extra, "--db", str(tmp / f"{name}.db"), "--out", str(tmp / f"{name}-traj")]) == 0
            out[f"{name}-printed"] = buf.getvalue()
            assert main(["report", "--tune", "1", "--db", str(tmp / f"{name}.db"),
                         "-o", str(tmp / f"{name}.html")]) == 0
    from arena.ladder import Ladder, LadderRules, run_ladder

    lad = Ladder.create(str(tmp / "lad"), LadderRules(players=5, time_limit=1.0))
    lad.submit_builtin("random", name="rnd", owner="ann")
    lad.submit_builtin("heuristic", name="heur", owner="bob")
    run_ladder(lad, workers=1, games=10, groups_per_round=1)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["report", "--ladder", lad.folder, "-o", str(tmp / "ladder.html"), "--games", "0"]) == 0
    return out


# ------------------------------------------------------------------ the SPRT's page
def test_the_sprt_page_leads_with_the_stored_verdict_then_the_standings_then_the_games(pages):
    tmp = pages["tmp"]
    page = (tmp / "sprt.html").read_text(encoding="utf-8")
    (test,) = saved_state(str(tmp / "s.db"), 1)
    st, h = test["state"], test["state"]["hypotheses"]
    order = [m.group(1) for m in re.finditer(r'<section id="([^"]+)">', page)]
    assert order[0] == "sprt-0" and order[-1] == "games"
    assert order.index("sprt-0") < order.index("standings") < order.index("games")
    first = re.search(r'<section id="sprt-0">(.*?)</section>', page, re.S).group(1)
    assert re.search(r'<section id="sprt-0">', page).start() < page.index('<section id="standings">')
    assert f'data-verdict="{st["verdict"]}"' in first
    words = _text(re.search(r"<div class=\"verdict[^>]*>(.*?)</div>", first, re.S).group(1))
    assert words.startswith(HEADS[st["verdict"]] + ": ")
    if st["verdict"] == "H0":
        assert f"heuristic is not {h['high']:g} Elo better than random" in words
    elif st["verdict"] == "H1":
        assert "heuristic is better than random" in words and f"at least +{h['high']:g} Elo" in words
    assert _span(first, "sprt-hypotheses-0", "elo0") == f"{h['low']:g}"
    assert _span(first, "sprt-hypotheses-0", "elo1") == f"{h['high']:g}"
    assert _span(first, "sprt-errors-0", "alpha") == f"{h['alpha']:g}"
    assert _span(first, "sprt-errors-0", "beta") == f"{h['beta']:g}"
    assert _span(first, "sprt-llr-0", "llr") == f"{st['llr']:+.3f}"
    assert _span(first, "sprt-llr-0", "lo") == f"{st['bounds'][0]:+.3f}"
    assert _span(first, "sprt-llr-0", "hi") == f"{st['bounds'][1]:+.3f}"
    assert _span(first, "sprt-played-0", "groups") == str(st["groups"])
    assert _span(first, "sprt-played-0", "most") == str(st["max_groups"])
    assert _span(first, "sprt-played-0", "deals") == str(st["deals"])
    assert "<svg" in first                                           # the LLR's path
    assert "<title>SPRT test 1: heuristic against random</title>" in page
    hyp = _text(re.search(r"<td class=name id=sprt-hypotheses-0>(.*?)</td>", first, re.S).group(1))
    assert hyp.startswith(f"H0: heuristic is at most {'0' if h['low'] == 0 else format(h['low'], '+g')} Elo better")
    # the deals its last batch played after the test decided: in the standings, not in the test
    with Store(str(tmp / "s.db"), read_only=True) as store:
        run_deals = sum(len(r.deals) for r in store.results(1))
    beyond = re.search(r"<span class=beyond>(\d+)</span>", first)
    if st["verdict"] and run_deals > st["deals"]:
        assert beyond and int(beyond.group(1)) == run_deals - st["deals"]
    else:
        assert beyond is None
    # the test's own Elo and margin head the standings
    standings = re.search(r'<section id="standings">(.*?)</section>', page, re.S).group(1)
    row = re.search(r'<tr data-test="0">(.*?)</tr>', standings, re.S).group(1)
    elo = _text(re.search(r"<td class=elo>(.*?)</td>", row).group(1))
    e = st["elo"]
    assert elo == f"{e['mean']:+.1f} [{e['lo']:+.1f}, {e['hi']:+.1f}]"
    m = st["margin"]
    margin = _text(re.search(r"<td class=margin>(.*?)</td>", row).group(1))
    assert margin == f"{m['mean']:+.2f} [{m['lo']:+.2f}, {m['hi']:+.2f}]"
    # every game is listed, in the paged box
    with Store(str(tmp / "s.db"), read_only=True) as store:
        keys = {r.key for r in store.results(1)}
    games = re.search(r'<div class="wide paged" id=games-box data-page-size="(\d+)">(.*?)</div>', page, re.S)
    listed = re.findall(r"<tr data-row[^>]*><td class=name>(?:<a class=game href=\"[^\"]+\">)?([^<]+)<",
                        games.group(2))
    assert set(listed) == keys and len(listed) == len(keys) > 2 * int(games.group(1))


def test_a_plain_runs_report_has_no_test_and_keeps_its_order(pages):
    page = (pages["tmp"] / "run.html").read_text(encoding="utf-8")
    order = [m.group(1) for m in re.finditer(r'<section id="([^"]+)">', page)]
    assert order == ["standings", "duplicate", "head-to-head", "faults", "roles", "games"]
    assert "id=\"sprt-" not in page and "data-verdict" not in page and "<title>arena: report</title>" in page


# ------------------------------------------------------------------ the tuning run's page
def _params(page: str) -> dict[str, dict[str, str]]:
    table = re.search(r"<table id=params-table>(.*?)</table>", page, re.S).group(1)
    out = {}
    for name, row in re.findall(r'<tr data-param="([^"]+)">(.*?)</tr>', table, re.S):
        cells = [_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        out[name] = dict(zip(("name", "type", "start", "low", "high", "now"), cells))
    return out


@pytest.mark.parametrize("name", ["tuned", "nosprt"])
def test_the_tune_page_shows_the_tuned_bot_the_schedule_and_each_parameter_in_its_type(pages, name):
    tmp = pages["tmp"]
    page = (tmp / f"{name}.html").read_text(encoding="utf-8")
    spec, run, _ = load_tune(str(tmp / f"{name}.db"), 1)
    last = run.trajectory[-1]
    order = [m.group(1) for m in re.finditer(r'<section id="([^"]+)">', page)]
    assert order == ["final-test", "tuned", "schedule", "parameters", "trajectory"]
    # the tuned bot: the spec of the stored trajectory's last values, as the command printed it
    values = [round(v) if p.integer else v for p, v in zip(spec.params, last)]
    shown = _text(re.search(r"<code id=tuned-spec>(.*?)</code>", page, re.S).group(1))
    assert shown == spec.spec_at(values)
    assert f"tuned bot: {shown}\n" in pages[f"{name}-printed"]
    play = _text(re.search(r"<code id=tuned-play>(.*?)</code>", page, re.S).group(1))
    assert play.startswith("pengyou duel ") and shown in play
    # each parameter in its type: the integer one as a whole number, the real one with its digits
    rows = _params(page)
    for p, v in zip(spec.params, last):
        row = rows[p.name]
        if p.integer:
            assert row["type"] == "integer" and v != round(v)            # it moved off the integers
            assert row["now"] == str(round(v)) and row["start"] == str(round(p.start))
            assert all(re.fullmatch(r"-?\d+", row[k]) for k in ("start", "low", "high", "now")), row
        else:
            assert row["type"] == "real" and row["now"] == f"{v:.6g}"
    # the schedule: the stored spec's gains and what they make
    n = spec.iterations
    gains = _text(re.search(r"<p id=schedule-gains>(.*?)</p>", page, re.S).group(1))
    assert gains.startswith(f"N = {n} iterations; A = {n / 10:g} (N / 10), alpha = {ALPHA:g}, gamma = {GAMMA:g}")
    table = re.search(r"<table id=schedule-table>(.*?)</table>", page, re.S).group(1)
    for p in spec.params:
        row = re.search(rf'<tr data-schedule="{p.name}">(.*?)</tr>', table, re.S).group(1)
        cell = {k: _text(re.search(rf"<td class={k}>(.*?)</td>", row).group(1)) for k in ("c_end", "r_end", "c", "a")}
        assert cell["c_end"] == f"{p.c_end:.6g}" and cell["r_end"] == f"{p.r_end:.6g}"
        assert math.isclose(float(cell["c"]), p.c_end * n ** GAMMA, rel_tol=1e-5)
        assert math.isclose(float(cell["a"]), p.r_end * p.c_end ** 2 * (n / 10 + n) ** ALPHA, rel_tol=1e-5)


def test_the_tune_page_leads_with_the_final_tests_verdict(pages):
    tmp = pages["tmp"]
    page = (tmp / "tuned.html").read_text(encoding="utf-8")
    db = str(tmp / "tuned.db")
    with Store(db, read_only=True) as store:
        (run_id,) = [r.id for r in store.runs() if r.name == "tune-1-sprt"]
    st = saved_state(db, run_id)[-1]["state"]
    first = re.search(r'<section id="final-test">(.*?)</section>', page, re.S).group(1)
    assert f'data-verdict="{st["verdict"]}"' in first
    words = _text(re.search(r"<div class=\"verdict[^>]*>(.*?)</div>", first, re.S).group(1))
    assert words.startswith(HEADS[st["verdict"]] + ": ") and "tuned" in words and "start" in words
    assert _span(first, "sprt-llr-0", "llr") == f"{st['llr']:+.3f}"
    assert _span(first, "sprt-hypotheses-0", "elo1") == f"{st['hypotheses']['high']:g}" == "200"
    assert _span(first, "sprt-played-0", "groups") == str(st["groups"]) and _span(first, "sprt-played-0", "most") == "2"
    assert f"pengyou report --sprt {run_id} --db {db}" in _text(first)


def test_the_tune_page_says_when_the_final_test_was_skipped(pages):
    page = (pages["tmp"] / "nosprt.html").read_text(encoding="utf-8")
    first = re.search(r'<section id="final-test">(.*?)</section>', page, re.S).group(1)
    words = _text(re.search(r"<div class=\"verdict[^>]*>(.*?)</div>", first, re.S).group(1))
    assert 'data-verdict="none"' in first and words.startswith("skipped: ") and "--no-sprt" in words
    assert "LLR" not in first


# ------------------------------------------------------------------ in a browser
def _visible_keys(browser) -> list[str]:  # noqa: F811
    return [r.find_element("css selector", "td").text
            for r in browser.find_elements("css selector", "#games-table tr[data-row]") if r.is_displayed()]


def test_the_games_are_paged_and_every_game_is_on_a_page(browser, pages):  # noqa: F811
    tmp = pages["tmp"]
    with Store(str(tmp / "s.db"), read_only=True) as store:
        keys = [r.key for r in store.results(1)]
    browser.set_window_size(1400, 900)
    browser.get((tmp / "sprt.html").resolve().as_uri())
    label = browser.find_element("css selector", "#games-box-pager-top .page")
    pages_count = -(-len(keys) // 50)
    assert label.text == f"page 1 of {pages_count}: rows 1\u201350 of {len(keys)}"
    prev = browser.find_element("css selector", "#games-box-pager-top .prev")
    nxt = browser.find_element("css selector", "#games-box-pager-bottom .next")
    assert not prev.is_enabled() and nxt.is_enabled()
    seen = [_visible_keys(browser)]
    assert len(seen[0]) == 50
    for _ in range(pages_count - 1):
        nxt.click()
        seen.append(_visible_keys(browser))
        assert not set(seen[-1]) & set(seen[-2]) and seen[-1]
    assert not nxt.is_enabled() and prev.is_enabled()
    assert sorted(k for page in seen for k in page) == sorted(keys)
    prev.click()
    assert _visible_keys(browser) == seen[-2]
    SHOTS.mkdir(exist_ok=True)
    browser.execute_script("document.getElementById('games').scrollIntoView()")
    browser.save_screenshot(str(SHOTS / "report-sprt-games.png"))


def test_the_tuned_bot_is_copied_with_one_click(browser, pages):  # noqa: F811
    tmp = pages["tmp"]
    browser.set_window_size(1400, 900)
    browser.get((tmp / "tuned.html").resolve().as_uri())
    code = browser.find_element("id", "tuned-spec").text
    button = browser.find_element("css selector", "button[data-copy=tuned-spec]")
    button.click()
    assert browser.execute_script("return window.getSelection().toString()") == code
    assert button.text in ("copied", "selected: press Ctrl+C")


@pytest.mark.parametrize("width", [1400, 1000])
def test_no_report_scrolls_sideways(browser, pages, width):  # noqa: F811
    tmp = pages["tmp"]
    SHOTS.mkdir(exist_ok=True)
    browser.set_window_size(width, 900)
    for name in ("run", "sprt", "tuned", "nosprt", "ladder"):
        browser.get((tmp / f"{name}.html").resolve().as_uri())
        wide, inner = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        assert wide <= inner, (name, width, wide, inner)
        for table in browser.find_elements("css selector", "table"):     # each in a box of its own
            box = browser.execute_script("var b = arguments[0].parentElement; return [b.className, "
                                         "getComputedStyle(b).overflowX]", table)
            assert "wide" in box[0].split() and box[1] == "auto", (name, table.get_attribute("id"), box)
        if width == 1400:
            for tid in ("roles-table", "games-table"):                  # the tables the issue named fit
                found = browser.find_elements("id", tid)
                if found:
                    fits = browser.execute_script("return arguments[0].scrollWidth <= "
                                                  "arguments[0].parentElement.clientWidth", found[0])
                    assert fits, (name, tid)
        browser.save_screenshot(str(SHOTS / f"report-{name}-{width}.png"))


def test_the_tune_page_of_an_unfinished_run_says_its_test_is_not_run_yet(pages, tmp_path, capsys):
    import shutil
    import sqlite3

    db = tmp_path / "half.db"
    shutil.copy(pages["tmp"] / "nosprt.db", db)
    with sqlite3.connect(db) as con:                       # as if stopped after 5 of its 8 iterations
        con.execute("DELETE FROM tune_steps WHERE tune_id = 1 AND k > 5")
    con.close()
    _cli(capsys, "report", "--tune", "1", "--db", str(db), "-o", str(tmp_path / "half.html"))
    page = (tmp_path / "half.html").read_text(encoding="utf-8")
    spec, run, _ = load_tune(str(db), 1)
    assert len(run.trajectory) == 5
    words = _text(re.search(r"<div class=\"verdict[^>]*>(.*?)</div>", page, re.S).group(1))
    assert words == (f"not run yet: the tuning has played 5 of its {spec.iterations} iterations; pengyou tune "
                     "tests the tuned values against the start values when they are done.")
    values = [round(v) if p.integer else v for p, v in zip(spec.params, run.trajectory[-1])]
    assert _text(re.search(r"<code id=tuned-spec>(.*?)</code>", page, re.S).group(1)) == spec.spec_at(values)
