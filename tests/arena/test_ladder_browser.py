"""The ladder's pages in a real headless browser (Debian's chromium through selenium).

The leaderboard and an entrant's page are loaded from a live ladder server on
127.0.0.1 and read as a person sees them: the rows in the order and with the
Elo numbers of the ladder's fit, an interval bar per rated row, an entrant's
versions and its rating-history plot, and a game link that opens the replay
viewer. Screenshots are saved in ``build/artifacts/``.

Skipped without chromium and its driver, except under
``PENGYOU_REQUIRE_BROWSER=1`` (CI), where a missing browser fails.
"""

from __future__ import annotations

import math

import pytest

from arena.ladder import ratings

from test_browser import ARTIFACTS, browser  # noqa: F401  (the browser fixture)
from test_ladder_server import ladder, server  # noqa: F401  (a played ladder and its server)


def _elo_text(x: float) -> str:
    return f"{x:+.0f}"


def test_the_leaderboard_in_a_browser(browser, server, ladder):  # noqa: F811
    from selenium.webdriver.common.by import By

    browser.get(server.url + "/")
    rows = browser.find_elements(By.CSS_SELECTOR, "table#standings tbody tr")
    _, fitted = ratings(ladder, samples=200)
    active = [r for r in fitted if not r.retired]
    assert len(rows) == len(active)
    labels = [row.find_element(By.CSS_SELECTOR, "td.label a").text for row in rows]
    by_label = {r.label: r for r in active}
    assert sorted(labels) == sorted(by_label)
    # best first, unrated last: the page shows the runner's kept fit, which may differ from this one
    # by a point (as the Elo numbers below may), so two rows rated within a point may come either way
    elos = [by_label[label].elo for label in labels]
    for a, b in zip(elos, elos[1:]):
        assert math.isnan(b) or (not math.isnan(a) and a >= b - 1), (labels, elos)
    for row, r in zip(rows, [by_label[label] for label in labels]):
        elo = row.find_element(By.CSS_SELECTOR, "td.elo").text.replace("−", "-")
        if math.isfinite(r.elo):
            assert abs(int(elo) - round(r.elo)) <= 1, (r.label, elo, r.elo)
            bar = row.find_elements(By.CSS_SELECTOR, "svg.ci rect.interval")
            assert bar and bar[0].is_displayed() and float(bar[0].get_attribute("width")) >= 1
        assert row.find_element(By.CSS_SELECTOR, "td.deals").text == str(r.deals)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "ladder-leaderboard.png"))


def test_an_entrant_page_and_a_replay_in_a_browser(browser, server, ladder):  # noqa: F811
    from selenium.webdriver.common.by import By

    browser.get(server.url + "/")
    link = browser.find_element(By.CSS_SELECTOR, "table#standings tbody tr td.label a")
    name = link.text.split("@")[0]
    link.click()
    assert f"/entrants/{name}" in browser.current_url
    page = browser.find_element(By.TAG_NAME, "body").text
    versions = [v for v in ladder.entrants() if v.name == name]
    for v in versions:
        assert v.label in page
    plots = browser.find_elements(By.CSS_SELECTOR, "svg.history")
    assert plots and plots[0].is_displayed()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "ladder-entrant.png"))
    games = [a for a in browser.find_elements(By.CSS_SELECTOR, "a") if "/games/" in (a.get_attribute("href") or "")
             and "/api/" not in (a.get_attribute("href") or "")]
    assert games, "no game links on the entrant page"
    games[0].click()
    # the replay viewer: its table and step controls are on the page
    body = browser.find_element(By.TAG_NAME, "body").text
    assert browser.find_elements(By.CSS_SELECTOR, "button"), body[:300]
    with ladder.store(read_only=True) as st:
        gid = int(browser.current_url.rstrip("/").rsplit("/", 1)[1])
        game, _ = st.game(gid)
        labels = {st.entrant(e).label for e in game.seats}
    assert all(lab in body for lab in labels), (labels, body[:500])
    browser.save_screenshot(str(ARTIFACTS / "ladder-replay.png"))


@pytest.mark.parametrize("path", ["/entrants/nobody"])
def test_a_missing_page_in_a_browser(browser, server, path):  # noqa: F811
    from selenium.webdriver.common.by import By

    browser.get(server.url + path)
    assert "nobody" in browser.find_element(By.TAG_NAME, "body").text


def test_the_ladders_report_in_a_browser(browser, ladder, tmp_path):  # noqa: F811
    from selenium.webdriver.common.by import By

    from arena.commands import main

    out = tmp_path / "ladder-report.html"
    assert main(["report", "--ladder", ladder.folder, "-o", str(out), "--samples", "200"]) == 0
    browser.get(out.resolve().as_uri())
    for section in ("standings", "history", "duplicate", "head-to-head", "faults", "roles", "games"):
        assert browser.find_element(By.ID, section).is_displayed(), section
    assert len(browser.find_elements(By.CSS_SELECTOR, "section svg")) >= 3
    _, fitted = ratings(ladder, samples=200)
    for r in fitted:
        row = browser.find_element(By.CSS_SELECTOR, f"#standings-table tr[data-entrant='{r.label}']")
        if math.isfinite(r.elo):
            assert row.find_element(By.CSS_SELECTOR, "td.elo").text == _elo_text(r.elo)
        assert ("provisional" in row.find_element(By.CSS_SELECTOR, "td.status").text) == r.provisional
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "ladder-report.png"))
    link = browser.find_element(By.CSS_SELECTOR, "#fault-list a.game")
    gid = link.text.removeprefix("game")
    link.click()
    assert f"ladder game {gid}:" in browser.title
    assert browser.find_element(By.ID, "step-count").text.startswith("step 0 / ")
