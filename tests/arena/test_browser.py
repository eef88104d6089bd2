"""The replay viewer in a real headless browser (Debian's chromium through selenium).

The page of a recorded deal is opened from its file (no server), stepped with
keys, buttons and the trick list, and what it shows is checked against the
replay of the same record: the trick, its winner and points at chosen steps,
one seat's view hiding the other hands, and a layout without overlaps at
1280x800 for a 5-player and a 12-player, 4-pack deal. Screenshots are saved in
``build/artifacts/`` for a person to look at.

Without chromium and its driver these tests are skipped, except where
``PENGYOU_REQUIRE_BROWSER=1`` (CI sets it, and installs both), where a missing
browser fails them.
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

from arena.render.viewer import write_page
from core.cards import points
from core.records import deal_record
from core.rules import Rules
from core.state import State

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "build" / "artifacts"


def _browser_paths() -> tuple[str, str] | None:
    chrome = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    driver = shutil.which("chromedriver")
    return (chrome, driver) if chrome and driver else None


@pytest.fixture(scope="module")
def browser():
    paths = _browser_paths()
    if paths is None:
        if os.environ.get("PENGYOU_REQUIRE_BROWSER") == "1":
            pytest.fail("PENGYOU_REQUIRE_BROWSER=1 but chromium or chromedriver is not installed")
        pytest.skip("chromium and chromedriver are not installed (apt-get install chromium chromium-driver)")
    from selenium import webdriver              # a test dependency (pyproject's test extra)
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = paths[0]
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,800", "--force-device-scale-factor=1"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=paths[1]), options=opts)
    try:
        driver.set_window_size(1280, 800)
        yield driver
    finally:
        driver.quit()


def played(preset: str, players: int, seed: int) -> State:
    """A whole deal of random legal moves under ``preset`` (the pages' tests step through it)."""
    s = State(Rules.preset(preset, players=players), seed=seed)
    rng = random.Random(seed)
    while not s.is_terminal():
        s.apply(s.random_legal_action(rng))
    return s


def _open(browser, tmp_path: Path, s: State, name: str) -> None:
    records = deal_record(s)
    records[0]["players"] = [f"bot-{i}" for i in range(s.rules.players)]
    out = tmp_path / f"{name}.html"
    write_page(records, name, str(out))
    browser.get(out.resolve().as_uri())
    assert browser.find_element("id", "step-count").text == f"step 0 / {len(s.history)}"


def _shot(browser, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def _step_of_trick_end(s: State, number: int) -> int:
    """The step (1-based action count) at which trick ``number`` is complete."""
    probe = State(s.rules, seed=s.seed)
    for k, (_, action) in enumerate(s.history, 1):
        probe.apply(action)
        if len(probe.tricks) == number:
            return k
    raise AssertionError("no such trick")


def _trick(browser) -> dict:
    return browser.execute_script(
        "const t = document.getElementById('trick'); return Object.assign({}, t.dataset);")


def test_stepping_shows_the_right_trick_winner_and_points(browser, tmp_path):
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    s = played("pagat", 6, 21)
    _open(browser, tmp_path, s, "viewer-6")
    body = browser.find_element("tag name", "body")
    total = len(s.history)
    for number in (1, 3, len(s.tricks)):
        Select(browser.find_element("id", "jump")).select_by_value(str(number))
        k = _step_of_trick_end(s, number)
        assert browser.find_element("id", "step-count").text == f"step {k} / {total}"
        leader, plays = s.tricks[number - 1]
        winner = s.tricks[number][0] if number < len(s.tricks) else s.play.last_trick[0]
        got = _trick(browser)
        assert got["number"] == str(number) and got["done"] == "true"
        assert got["winner"] == str(winner)
        assert got["points"] == str(sum(points(p) for p in plays))
        shown = browser.find_elements("css selector", "#trick .play")
        assert len(shown) == len(plays)
        for line, play in zip(shown, plays):
            cards = [c.get_attribute("data-card") for c in line.find_elements("css selector", ".card")]
            assert sorted(cards) == sorted(str(play).split())
    # keys and buttons step one at a time, and back
    body.send_keys(Keys.HOME)
    assert browser.find_element("id", "step-count").text == f"step 0 / {total}"
    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.ARROW_RIGHT)
    assert browser.find_element("id", "step-count").text == f"step 2 / {total}"
    browser.find_element("id", "prev").click()
    assert browser.find_element("id", "step-count").text == f"step 1 / {total}"
    body.send_keys(Keys.END)
    assert browser.find_element("id", "step-count").text == f"step {total} / {total}"
    result = browser.find_element("id", "result").text
    assert f"opponents' points: {s.result.opponents_points} of {s.rules.total_points}" in result
    _shot(browser, "viewer-6-players-end")


def test_a_seat_view_hides_the_other_hands(browser, tmp_path):
    from selenium.webdriver.support.ui import Select

    s = played("pagat", 6, 22)
    _open(browser, tmp_path, s, "viewer-seat")
    k = _step_of_trick_end(s, 2)
    probe = State(s.rules, seed=s.seed)
    for _, action in s.history[:k]:
        probe.apply(action)
    Select(browser.find_element("id", "jump")).select_by_value("2")
    Select(browser.find_element("id", "viewer")).select_by_value("3")
    for seat in range(6):
        row = browser.find_element("css selector", f".seat[data-seat='{seat}'] .hand")
        cards = [c.get_attribute("data-card") for c in row.find_elements("css selector", ".card")]
        if seat == 3:
            assert sorted(cards) == sorted(str(probe.view(3).hand).split())
        else:
            assert cards == [] and row.find_elements("css selector", ".back")
    assert "buried" not in browser.find_element("id", "info").text     # the burial is the maker's secret
    _shot(browser, "viewer-seat-3")
    Select(browser.find_element("id", "viewer")).select_by_value("all")
    for seat in range(6):
        row = browser.find_element("css selector", f".seat[data-seat='{seat}'] .hand")
        cards = [c.get_attribute("data-card") for c in row.find_elements("css selector", ".card")]
        assert sorted(cards) == sorted(str(probe.hand(seat)).split())


_OVERLAPS = """
const boxes = [...document.querySelectorAll('.seat, aside, header, #trick')].map(e => e.getBoundingClientRect());
const bad = [];
for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
  const a = boxes[i], b = boxes[j];
  if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
    bad.push([i, j]);
}
const cards = [...document.querySelectorAll('.seat .card')].filter(c => {
  const r = c.getBoundingClientRect(), s = c.closest('.seat').getBoundingClientRect();
  return r.right > s.right + 0.5 || r.left < s.left - 0.5 || r.bottom > s.bottom + 0.5;
});
const low = boxes.filter(b => b.bottom > window.innerHeight + 0.5 || b.right > window.innerWidth + 0.5).length;
return {bad: bad, outside: cards.length, width: document.documentElement.scrollWidth, low: low};
"""


@pytest.mark.parametrize("preset,players,seed", [("pagat", 12, 23), ("pagat", 5, 24)])
def test_big_and_small_tables_fit_1280x800_without_overlap(browser, tmp_path, preset, players, seed):
    from selenium.webdriver.common.keys import Keys

    s = played(preset, players, seed)
    assert s.rules.packs == (4 if players == 12 else 2)
    _open(browser, tmp_path, s, f"viewer-{players}")
    body = browser.find_element("tag name", "body")
    # at the start of the play the hands are longest (the maker holds the kitty during the burial)
    bury = next(k for k in range(1, len(s.history) + 1) if _phase_after(s, k) == "bury")
    for _ in range(bury):
        body.send_keys(Keys.ARROW_RIGHT)
    for moment in ("burial", "end"):
        got = browser.execute_script(_OVERLAPS)
        assert got["bad"] == [] and got["outside"] == 0 and got["width"] <= 1280 and got["low"] == 0, got
        _shot(browser, f"viewer-{players}-players-{moment}")
        body.send_keys(Keys.END)


def _phase_after(s: State, k: int) -> str:
    probe = State(s.rules, seed=s.seed)
    for _, action in s.history[:k]:
        probe.apply(action)
    return probe.view(0).phase


def test_a_report_shows_every_section_and_links_to_its_faulting_games(browser, tmp_path):
    import json as _json

    from arena.commands import main

    db = tmp_path / "rep.db"
    crash = f"crash={ROOT / 'tests' / 'arena' / 'faulty_bots.py'}:CrashBot"
    assert main(["arena", "run", "--bots", "random", "heuristic", crash, "--players", "5", "--deals", "2",
                 "--db", str(db), "--no-progress", "--samples", "50", "--secret", "b"]) == 0
    out = tmp_path / "report.html"
    assert main(["report", "--db", str(db), "-o", str(out), "--samples", "50"]) == 0
    browser.get(out.resolve().as_uri())
    for section in ("standings", "duplicate", "head-to-head", "faults", "roles"):
        assert browser.find_element("id", section).is_displayed()
    assert len(browser.find_elements("css selector", "section svg")) >= 2
    import io
    import contextlib

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["arena", "standings", "--db", str(db), "--json", "--samples", "50"]) == 0
    rows = {r["name"]: r for r in _json.loads(buf.getvalue())["standings"]["rows"]}
    for name, r in rows.items():
        cell = browser.find_element("css selector", f"#standings-table tr[data-entrant='{name}'] td.elo")
        assert cell.text == f"{r['elo']:+.0f}"
    _shot(browser, "report")
    link = browser.find_element("css selector", "#fault-list a.game")
    key = link.text
    link.click()
    assert key in browser.title and browser.find_element("id", "step-count").text.startswith("step 0 / ")


def test_a_person_plays_a_whole_deal_by_clicking(browser, tmp_path):
    import json as _json
    import re as _re
    import subprocess
    import sys
    import time as _time
    import urllib.request

    from core.observe import view_from_json
    from core.records import read_records, replay_deal

    record = tmp_path / "mine.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "arena", "play", "--human", "0", "--bots", "random",
                             "--players", "5", "--seed", "11", "--port", "0", "--pace", "0.05", "--no-open",
                             "--record", str(record), "--linger", "0"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        url = _re.search(r"(http://127\.0\.0\.1:\d+/)", proc.stdout.readline()).group(1)
        browser.get(url)
        rng = random.Random(11)

        def state(since: int = -1) -> dict:
            with urllib.request.urlopen(f"{url}api/state?since={since}", timeout=30) as r:
                return _json.load(r)

        def click(css: str, skip: frozenset = frozenset()) -> str:
            """Click the first element matching ``css`` whose index is not in ``skip``
            (found again if the page redrew it meanwhile); its index."""
            from selenium.common.exceptions import StaleElementReferenceException

            for _ in range(20):
                try:
                    for e in browser.find_elements("css selector", css):
                        k = e.get_attribute("data-index")
                        if k not in skip:
                            e.click()
                            return k
                    raise AssertionError(f"nothing to click: {css}")
                except StaleElementReferenceException:
                    continue
            raise AssertionError(f"{css} kept changing")

        def click_cards(names: list[str]) -> None:
            used: set[str] = set()
            for name in names:
                used.add(click(f"#hand .card[data-card='{name}']", frozenset(used)))

        def wait_page(pred, what: str) -> None:
            end = _time.monotonic() + 20
            while _time.monotonic() < end:
                if pred():
                    return
                _time.sleep(0.05)
            raise AssertionError(f"the page never showed {what}")

        tried_wrong = False
        looked: list[int] = []
        version = -1
        while True:
            snap = state(version)
            version = snap["version"]
            if snap["done"]:
                break
            if not snap["waiting"]:
                continue
            wait_page(lambda v=version: browser.find_element("id", "status").text == "your turn"
                      and browser.find_element("id", "status").get_attribute("data-version") == str(v),
                      "the person's turn")
            view = view_from_json(snap["view"], Rules(**snap["rules"]))
            _check_sides_and_last_trick(browser, snap["view"], looked)
            action = view.random_action(rng)
            text = str(action)
            if view.phase in ("draw", "call"):
                buttons = browser.find_elements("css selector", f"#choices button[data-action='{text}']")
                if buttons:
                    click(f"#choices button[data-action='{text}']")
                else:
                    from selenium.webdriver.support.ui import Select

                    Select(browser.find_element("id", "option-list")).select_by_value(text)
                    browser.find_element("id", "send-option").click()
            elif view.phase == "bury":
                click_cards(text.split()[1:])
                click("#bury")
            else:
                if not tried_wrong and view.lead is not None and len(view.hand) > len(view.lead):
                    tried_wrong = True               # one card too many: refused with the engine's reason
                    click_cards(str(view.hand).split()[:len(view.lead) + 1])
                    click("#play")
                    wait_page(lambda: browser.find_element("id", "message").text != "", "the refusal")
                    message = browser.find_element("id", "message").text
                    assert message == state()["error"] and message
                    assert state()["waiting"]
                    _shot(browser, "play-table-refused")
                    while browser.find_elements("css selector", "#hand .card.selected"):
                        click("#hand .card.selected")  # unselect them
                click_cards(text.split()[1:])
                click("#play")
            wait_page(lambda v=version: state()["version"] > v, "the action taken")
        assert tried_wrong and looked
        wait_page(lambda: "The deal is over" in browser.find_element("id", "prompt").text, "the end")
        assert f"opponents' points: {snap['result']['opponents_points']}" in browser.find_element("id", "result").text
        _shot(browser, "play-table-end")
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    state_ = replay_deal(read_records(str(record)))
    assert state_.result.opponents_points == snap["result"]["opponents_points"]


_TABLE = """
const b = document.getElementById('score');
const plays = (box) => [...box.querySelectorAll('.play')].map(p => [Number(p.dataset.seat),
  [...p.querySelectorAll('.card')].map(c => c.dataset.card)]);
const last = document.getElementById('last-trick');
return {maker: b.dataset.maker, others: b.dataset.others, shown: !last.hidden, last: plays(last),
        trick: plays(document.getElementById('trick')),
        friends: [...document.querySelectorAll('#seats > .seat.friend')].map(e => Number(e.dataset.seat))};
"""


def _check_sides_and_last_trick(browser, view: dict, looked: list[int]) -> None:
    """On the person's turn: the points per side and the friends are the
    view's, the middle holds the trick under way, and (once or twice) L shows
    the trick before it and hides it again."""
    n = view["players"]
    got = browser.execute_script(_TABLE)
    if view["maker"] is None:
        assert got["maker"] is None
        return
    side = {view["maker"]} | {f for f in view["calls_filled"] if f is not None}
    assert int(got["maker"]) == sum(view["points"][i] for i in side)
    assert int(got["others"]) == sum(view["points"][i] for i in range(n) if i not in side)
    assert set(got["friends"]) == side - {view["maker"]}
    leader, plays = view["current_trick"]
    want = {(leader + j) % n: sorted(p.split()) for j, p in enumerate(plays)}
    if plays:
        assert {seat: sorted(c) for seat, c in got["trick"]} == want
    if plays and view["tricks"] and len(looked) < 2 and not got["shown"]:
        ld, ps = view["tricks"][-1]
        body = browser.find_element("tag name", "body")
        body.send_keys("l")
        got = browser.execute_script(_TABLE)
        assert got["shown"] and {seat: sorted(c) for seat, c in got["last"]} == \
            {(ld + j) % n: sorted(p.split()) for j, p in enumerate(ps)}
        body.send_keys("l")
        assert not browser.execute_script(_TABLE)["shown"]
        looked.append(len(view["tricks"]))


@pytest.mark.parametrize("players", [12, 5])
def test_the_play_table_fits_1280x800_without_overlap(browser, tmp_path, players):
    import re as _re
    import subprocess
    import sys
    import time as _time

    proc = subprocess.Popen([sys.executable, "-m", "arena", "play", "--human", "1", "--bots", "random",
                             "--players", str(players), "--seed", "4", "--port", "0", "--pace", "0", "--no-open",
                             "--record", str(tmp_path / "t.jsonl"), "--linger", "0"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = _re.search(r"(http://127\.0\.0\.1:\d+/)", proc.stdout.readline()).group(1)
        browser.get(url)
        end = _time.monotonic() + 30
        while browser.find_element("id", "status").text != "your turn" and _time.monotonic() < end:
            _time.sleep(0.05)
        assert browser.find_element("id", "status").text == "your turn"
        got = browser.execute_script(_OVERLAPS.replace(".seat, aside, header", ".seat, aside, header, #me"))
        assert got["bad"] == [] and got["outside"] == 0 and got["width"] <= 1280 and got["low"] == 0, got
        assert len(browser.find_elements("css selector", ".seat")) == players
        hand = browser.find_elements("css selector", "#hand .card")
        assert hand and all(c.is_displayed() for c in hand)
        _shot(browser, f"play-table-{players}-players")
    finally:
        proc.kill()
        proc.communicate()


def test_a_forfeited_deal_shows_the_score_given_not_the_random_finish(browser, tmp_path):
    """At the end of a forfeited deal the result box leads with the
    forfeit's score and marks the rest as the referee's random finish."""
    from selenium.webdriver.common.keys import Keys

    s = played("pagat", 5, 8)
    records = deal_record(s)
    records[0]["players"] = ["a", "b", "a", "b", "a"]
    records[0]["forfeit"] = {"seat": 1, "kind": "crash", "message": "step() raised RuntimeError: boom",
                             "decision": 30, "game_points": [3, -3, 3, -3, 3],
                             "margins": [200.0, -200.0, 200.0, -200.0, 200.0]}
    out = tmp_path / "forfeit.html"
    write_page(records, "forfeit", str(out))
    browser.get(out.resolve().as_uri())
    browser.find_element("tag name", "body").send_keys(Keys.END)
    result = browser.find_element("id", "result").text
    lines = result.splitlines()
    assert lines[1].startswith("the deal is scored as a forfeit: seats 1 3 -3 game points"), lines
    assert "random finish (it does not count)" in lines[2], lines
    assert f"opponents' points: {s.result.opponents_points}" in result
    _shot(browser, "viewer-forfeit-end")
