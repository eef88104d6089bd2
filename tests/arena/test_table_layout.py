"""The replay viewer drawn as a card table, in a real headless browser.

The seats sit round the trick (in seat order going round, the viewing seat at
the bottom, no two boxes overlapping, all inside a 1280x800 window); the
middle shows exactly the cards the record says were played to the trick at
each step, each play toward its seat; ``L`` and the button show exactly the
trick before; the points each side has taken are those the record's views
give (the maker and the friends revealed so far against the others); a
revealed friend is marked from the step it is revealed, not before; the keys
move the step as they say, also after a choice in a list; a narrow window
shows the seats as a list. One text at a time in the middle; every count
says "1 card", "2 cards"; each key of the legend stays with its words.

Everything expected is computed here from the record (a replay of its
actions, and the views the record carries applied the protocol's way), never
written down. The play table itself is driven in ``test_browser.py``.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from arena.render.viewer import viewer_data, write_page
from core.observe import ViewBuilder
from core.records import deal_record
from core.rules import Rules
from core.state import State

from test_browser import ARTIFACTS, browser, played  # noqa: F401  (the browser fixture)

GEOMETRY = """
const r = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; };
const felt = document.getElementById('seats');
const plays = (box) => [...box.querySelectorAll('.play')].map(p => [Number(p.dataset.seat), r(p),
  [...p.querySelectorAll('.card')].map(c => c.dataset.card)]);
const last = document.getElementById('last-trick');
return {seats: [...felt.querySelectorAll(':scope > .seat')].map(s => [Number(s.dataset.seat), r(s)]),
        trick: r(document.getElementById('trick')), felt: r(felt), aside: r(document.querySelector('aside')),
        header: r(document.querySelector('header')), plays: plays(document.getElementById('trick')),
        last: last.hidden ? null : plays(last), lastShown: !last.hidden && last.offsetParent !== null,
        narrow: felt.classList.contains('narrow'), vw: window.innerWidth, vh: window.innerHeight,
        scrollWidth: document.documentElement.scrollWidth,
        step: document.getElementById('step-count').textContent};
"""


def _open(browser, tmp_path: Path, s: State, name: str) -> list[dict]:  # noqa: F811
    records = deal_record(s)
    records[0]["players"] = [f"bot-{i}" for i in range(s.rules.players)]
    out = tmp_path / f"{name}.html"
    write_page(records, name, str(out))
    browser.set_window_size(1280, 800)
    browser.get(out.resolve().as_uri())
    return records


def _steps(s: State) -> list[dict]:
    """Per step (0: before any action): the trick the middle should show
    ({seat: sorted cards} or None), the trick before it (same, or None),
    and the tricks complete so far."""
    probe = State(s.rules, seed=s.seed)
    n = s.rules.players
    out = []

    def cards(leader: int, plays) -> dict[int, list[str]]:
        return {(leader + j) % n: sorted(str(p).split()) for j, p in enumerate(plays)}

    done = 0
    for k in range(len(s.history) + 1):
        if k:
            probe.apply(s.history[k - 1][1])
        if len(probe.tricks) > done:             # a trick ended with this action: it stays in the middle
            middle = cards(*probe.tricks[-1])
            number = len(probe.tricks)
        else:
            leader, plays = probe.current_trick()
            middle = cards(leader, plays) if plays else None
            number = len(probe.tricks) + 1
        done = len(probe.tricks)
        before = cards(*probe.tricks[number - 2]) if number >= 2 and probe.tricks else None
        out.append({"middle": middle, "before": before, "done": done})
    return out


def _centre(box: list[float]) -> tuple[float, float]:
    return box[0] + box[2] / 2, box[1] + box[3] / 2


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[0] + b[2] - 0.5 and b[0] < a[0] + a[2] - 0.5 and a[1] < b[1] + b[3] - 0.5 and \
        b[1] < a[1] + a[3] - 0.5


def _crosses(p: tuple[float, float], q: tuple[float, float], box: list[float]) -> bool:
    """Whether the segment p-q passes through the box (its inside, not grazing its edge)."""
    x0, y0, x1, y1 = box[0] + 1, box[1] + 1, box[0] + box[2] - 1, box[1] + box[3] - 1
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for d, lo, hi, start in ((dx, x0, x1, p[0]), (dy, y0, y1, p[1])):
        if abs(d) < 1e-9:
            if not lo <= start <= hi:
                return False
            continue
        a, b = (lo - start) / d, (hi - start) / d
        t0, t1 = max(t0, min(a, b)), min(t1, max(a, b))
    return t0 < t1


def _angle(frm: tuple[float, float], to: tuple[float, float]) -> float:
    """The direction from ``frm`` to ``to`` in degrees, counter-clockwise as seen on the screen."""
    return math.degrees(math.atan2(-(to[1] - frm[1]), to[0] - frm[0]))


def _turn(a: float, b: float) -> float:
    """From direction a to direction b, in (-180, 180]."""
    d = (b - a) % 360
    return d - 360 if d > 180 else d


def _check_ring(g: dict, n: int, bottom: int) -> None:
    seats = dict(g["seats"])
    assert sorted(seats) == list(range(n)) and not g["narrow"]
    boxes = [g["trick"], g["header"], g["aside"]] + [seats[i] for i in range(n)]
    for i, a in enumerate(boxes):
        assert a[0] >= -0.5 and a[1] >= -0.5 and a[0] + a[2] <= g["vw"] + 0.5 and a[1] + a[3] <= g["vh"] + 0.5, a
        for b in boxes[i + 1:]:
            assert not _overlap(a, b), (a, b)
    assert g["scrollWidth"] <= g["vw"]
    # the trick in the middle of the table
    t, f = _centre(g["trick"]), _centre(g["felt"])
    assert abs(t[0] - f[0]) <= 0.05 * g["felt"][2] and abs(t[1] - f[1]) <= 0.05 * g["felt"][3]
    assert g["trick"][2] >= 0.25 * g["felt"][2] and g["trick"][3] >= 0.2 * g["felt"][3]
    # one ring: each seat in plain sight of the middle (no other seat box between them)
    centres = {i: _centre(seats[i]) for i in range(n)}
    for i in range(n):
        for j in range(n):
            assert i == j or not _crosses(t, centres[i], seats[j]), (i, j)
    # the viewing seat at the bottom, then every seat in order going round (counter-clockwise)
    assert abs(centres[bottom][0] - t[0]) < 2 and centres[bottom][1] > g["trick"][1] + g["trick"][3]
    order = [(bottom + k) % n for k in range(n)]
    turns = [_turn(_angle(t, centres[a]), _angle(t, centres[b])) for a, b in zip(order, order[1:] + order[:1])]
    assert all(0.4 * 360 / n <= d <= 2.0 * 360 / n for d in turns), turns
    assert abs(sum(turns) - 360) < 1e-6


def _go(browser, s: State, k: int) -> None:  # noqa: F811
    """Step to step k: the first step, then k presses of the right arrow."""
    from selenium.webdriver.common.keys import Keys

    body = browser.find_element("tag name", "body")
    body.send_keys(Keys.HOME)
    for _ in range(k):
        body.send_keys(Keys.ARROW_RIGHT)
    assert browser.find_element("id", "step-count").text == f"step {k} / {len(s.history)}"


@pytest.mark.parametrize("players,seed,view", [(5, 31, "all"), (8, 32, "all"), (12, 33, "all"), (8, 34, "5"),
                                               (4, 35, "all"), (4, 36, "1")])
def test_the_seats_sit_round_the_trick_in_order(browser, tmp_path, players, seed, view):  # noqa: F811
    from selenium.webdriver.support.ui import Select

    s = played("tractor" if players == 4 else "pagat", players, seed)
    assert s.rules.players == players
    _open(browser, tmp_path, s, f"ring-{players}")
    steps = _steps(s)
    Select(browser.find_element("id", "viewer")).select_by_value(view)
    bottom = 0 if view == "all" else int(view)
    # mid-trick in the second trick, and the longest hands (the first step of the burial)
    mid = next(k for k, st in enumerate(steps) if st["done"] == 1 and st["middle"] and len(st["middle"]) == 2)
    probe = State(s.rules, seed=s.seed)
    bury = 0
    for k, (_, action) in enumerate(s.history, 1):
        probe.apply(action)
        if probe.view(0).phase == "bury":
            bury = k
            break
    for k in (mid, bury):
        _go(browser, s, k)
        g = browser.execute_script(GEOMETRY)
        _check_ring(g, players, bottom)
        if k == mid:
            # each play lies toward its seat: within a seat's share of the circle of its direction
            t = _centre(g["trick"])
            seats = dict(g["seats"])
            assert g["plays"]
            for seat, box, _ in g["plays"]:
                assert _overlap(box, g["trick"]) and box[0] >= g["trick"][0] - 0.5
                off = _turn(_angle(t, _centre(seats[seat])), _angle(t, _centre(box)))
                assert abs(off) <= 180 / players, (seat, off)
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            browser.save_screenshot(str(ARTIFACTS / f"table-{players}-{view}-mid-trick.png"))
    # a seat's own cards stay inside its box
    outside = browser.execute_script("""return [...document.querySelectorAll('.seat .card')].filter(c => {
      const r = c.getBoundingClientRect(), s = c.closest('.seat').getBoundingClientRect();
      return r.right > s.right + 0.5 || r.left < s.left - 0.5 || r.bottom > s.bottom + 0.5 || r.top < s.top - 0.5;
    }).length;""")
    assert outside == 0


def test_the_middle_shows_the_trick_and_L_the_one_before(browser, tmp_path):  # noqa: F811
    from selenium.webdriver.common.keys import Keys

    s = played("pagat", 6, 35)
    _open(browser, tmp_path, s, "tricks-6")
    steps = _steps(s)
    body = browser.find_element("tag name", "body")
    looked = 0
    for k, st in enumerate(steps):
        if k:
            body.send_keys(Keys.ARROW_RIGHT)
        g = browser.execute_script(GEOMETRY)
        assert g["step"] == f"step {k} / {len(s.history)}"
        shown = {seat: sorted(cards) for seat, _, cards in g["plays"]}
        assert shown == (st["middle"] or {}), k
        assert g["last"] is None and not g["lastShown"]
        if st["before"] is not None and (looked < 3 or k == len(steps) - 1) and st["middle"] and \
                len(st["middle"]) == 1:
            # the next trick has been led: L shows the one that ended, the button hides it
            looked += 1
            body.send_keys("l")
            g = browser.execute_script(GEOMETRY)
            assert g["lastShown"] and {seat: sorted(c) for seat, _, c in g["last"]} == st["before"], k
            button = browser.find_element("id", "last-trick-btn")
            assert button.get_attribute("aria-pressed") == "true"
            button.click()
            assert not browser.execute_script(GEOMETRY)["lastShown"]
            button.click()
            g = browser.execute_script(GEOMETRY)
            assert g["lastShown"] and {seat: sorted(c) for seat, _, c in g["last"]} == st["before"], k
            body.send_keys("L")
            assert not browser.execute_script(GEOMETRY)["lastShown"]
    assert looked >= 3


def test_points_per_side_and_friends_follow_the_records_views(browser, tmp_path):  # noqa: F811
    s = played("pagat", 5, 36)
    records = _open(browser, tmp_path, s, "sides-5")
    deal = viewer_data(records)["deals"][0]
    n = s.rules.players
    builder = ViewBuilder(s.rules)
    body = browser.find_element("tag name", "body")
    from selenium.webdriver.common.keys import Keys

    reveals = 0
    friends_before: set[int] = set()
    for k, msg in enumerate(deal["views"][0]):
        if k:
            body.send_keys(Keys.ARROW_RIGHT)
        builder.apply(json.loads(json.dumps(msg)))
        view = builder.view()
        got = browser.execute_script("""
          const b = document.getElementById('score');
          return {maker: b.dataset.maker, others: b.dataset.others,
                  friends: [...document.querySelectorAll('#seats > .seat.friend')].map(e => Number(e.dataset.seat)),
                  makers: [...document.querySelectorAll('#seats > .seat.maker')].map(e => Number(e.dataset.seat)),
                  tags: [...document.querySelectorAll('#seats > .seat')].map(e => e.querySelector('.tags').textContent)};
        """)
        if view.maker is None:
            assert got["maker"] is None and got["others"] is None and got["makers"] == []
            continue
        side = {view.maker} | {f for f in view.calls_filled if f is not None}
        assert int(got["maker"]) == sum(view.points[i] for i in side), k
        assert int(got["others"]) == sum(view.points[i] for i in range(n) if i not in side), k
        friends = side - {view.maker}
        assert set(got["friends"]) == friends and got["makers"] == [view.maker], k
        for i in range(n):
            assert ("friend" in got["tags"][i].split(" \u00b7 ")) == (i in friends), (k, i)
        if friends - friends_before:
            reveals += 1
            # revealed by this very step's action: the step before did not know it
            assert all(f not in friends_before for f in friends - friends_before)
        friends_before = friends
    assert reveals >= 1 and sum(view.points) > 0


def test_the_keys_move_the_step(browser, tmp_path):  # noqa: F811
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    s = played("pagat", 5, 37)
    _open(browser, tmp_path, s, "keys-5")
    steps = _steps(s)
    total = len(s.history)
    ends = [k for k in range(1, len(steps)) if steps[k]["done"] > steps[k - 1]["done"]]
    assert len(ends) == len(s.tricks)
    body = browser.find_element("tag name", "body")

    def at() -> int:
        text = browser.find_element("id", "step-count").text
        assert text.endswith(f" / {total}")
        return int(text.split()[1])

    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.ARROW_RIGHT)
    assert at() == 2
    body.send_keys(Keys.ARROW_LEFT)
    assert at() == 1
    body.send_keys(Keys.END)
    assert at() == total
    body.send_keys(Keys.ARROW_RIGHT)
    assert at() == total
    body.send_keys(Keys.HOME)
    assert at() == 0
    body.send_keys(Keys.ARROW_LEFT)
    assert at() == 0
    # the next trick's end, and back, with both keys of each
    body.send_keys("]")
    assert at() == ends[0]
    body.send_keys(Keys.PAGE_DOWN)
    assert at() == ends[1]
    for _ in range(3):
        body.send_keys(Keys.ARROW_RIGHT)             # into the third trick
    body.send_keys(Keys.PAGE_UP)
    assert at() == ends[1]
    body.send_keys("[")
    assert at() == ends[0]
    body.send_keys("[")
    assert at() == 0
    body.send_keys(Keys.END)
    body.send_keys("]")
    assert at() == total
    body.send_keys("[")
    assert ends[-1] == total and at() == ends[-2]       # the last action ends the last trick
    # the buttons do the same
    browser.find_element("id", "first").click()
    browser.find_element("id", "next-trick").click()
    assert at() == ends[0]
    browser.find_element("id", "next-trick").click()
    browser.find_element("id", "prev-trick").click()
    assert at() == ends[0]
    # a select with the focus keeps the keys: typing in it moves nothing, shows nothing
    viewer = browser.find_element("id", "viewer")
    Select(viewer).select_by_value("all")
    viewer.send_keys("]")
    viewer.send_keys("l")
    viewer.send_keys(Keys.HOME)
    assert at() == ends[0]
    assert not browser.execute_script(GEOMETRY)["lastShown"]
    hint = browser.find_element("id", "keys").text
    for key in ("Home", "End", "[", "]", "PgUp", "PgDn", "L"):
        assert key in hint


@pytest.mark.parametrize("width", [800, 560])
def test_a_narrow_window_degrades_without_overlap(browser, tmp_path, width):  # noqa: F811
    """800 px: the side panel goes under the table; 560 px: the seats become a list."""
    s = played("pagat", 8, 38)
    _open(browser, tmp_path, s, "narrow-8")
    try:
        browser.set_window_size(width, 800)
        _go(browser, s, len(s.history) // 2)
        g = browser.execute_script(GEOMETRY)
        assert g["scrollWidth"] <= g["vw"]
        assert g["narrow"] == (width < 700)
        boxes = [box for _, box in g["seats"]] + [g["trick"], g["header"], g["aside"]]
        for i, a in enumerate(boxes):
            assert a[0] >= -0.5 and a[0] + a[2] <= g["vw"] + 0.5
            for b in boxes[i + 1:]:
                assert not _overlap(a, b), (a, b)
        assert [i for i, _ in g["seats"]] == list(range(8))
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(ARTIFACTS / f"table-8-{width}px.png"))
        browser.set_window_size(1280, 800)
        _check_ring(browser.execute_script(GEOMETRY), 8, 0)
    finally:
        browser.set_window_size(1280, 800)



# ------------------------------------------------------------------ what a newcomer's walk found

def _press(browser, key: str, total: int) -> tuple[int, str]:  # noqa: F811
    """A key pressed as a person does (to what has the focus): the step it leads to, and the seat viewed."""
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(browser).send_keys(key).perform()
    text = browser.find_element("id", "step-count").text
    assert text.endswith(f" / {total}")
    return int(text.split()[1]), browser.execute_script("return document.getElementById('viewer').value")


def test_a_chosen_select_gives_the_keys_back(browser, tmp_path):  # noqa: F811
    """After a seat, a trick or a deal is chosen in its list, the keys step again (and change no choice)."""
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    from core.match import play_random_match
    from core.records import match_record

    s = played("pagat", 5, 37)
    _open(browser, tmp_path, s, "select-keys-5")
    steps, total = _steps(s), len(s.history)
    ends = [k for k in range(1, len(steps)) if steps[k]["done"] > steps[k - 1]["done"]]
    Select(browser.find_element("id", "viewer")).select_by_value("2")
    assert _press(browser, "]", total) == (ends[0], "2")
    assert _press(browser, Keys.ARROW_RIGHT, total) == (ends[0] + 1, "2")
    Select(browser.find_element("id", "viewer")).select_by_value("4")
    assert _press(browser, Keys.ARROW_LEFT, total) == (ends[0], "4")
    Select(browser.find_element("id", "jump")).select_by_value("3")      # the end of trick 3
    assert _press(browser, Keys.ARROW_RIGHT, total) == (ends[2] + 1, "4")
    assert _press(browser, "[", total) == (ends[2], "4")         # then the deal list of a match record
    records = match_record(play_random_match(Rules.preset("pagat", players=5), 2, random.Random(3), 2))
    write_page(records, "match", str(out := tmp_path / "select-keys-match.html"))
    browser.get(out.resolve().as_uri())
    Select(browser.find_element("id", "deal")).select_by_value("1")
    total = len(viewer_data(records)["deals"][1]["steps"]) - 1
    assert _press(browser, Keys.END, total)[0] == total
    assert _press(browser, Keys.HOME + Keys.ARROW_RIGHT, total)[0] == 1
    assert browser.execute_script("return document.getElementById('deal').value") == "1"


# The visible text in the middle: each piece's group (a box's title, or one of
# its plays) and its rectangle; the cards of one play overlap (a fan), no two groups may.
MIDDLE_TEXT = """
const out = [], r = (q) => [q.left, q.top, q.width, q.height];
const seen = (e) => e.checkVisibility({visibilityProperty: true, opacityProperty: true});
for (const box of document.querySelectorAll('#seats > .middle')) {
  const title = box.querySelector('.trick-title'), rg = document.createRange(); rg.selectNodeContents(title);
  if (seen(title)) for (const q of rg.getClientRects()) if (q.width) out.push([box.id + ' title', r(q), title.textContent]);
  box.querySelectorAll('.play').forEach((p, j) => p.querySelectorAll('.by, .card').forEach((e) => {
    if (seen(e)) out.push([box.id + ' play ' + j, r(e.getBoundingClientRect()), '']); }));
}
const lt = document.getElementById('last-trick');
return {pieces: out, last: lt.hidden ? null : lt.querySelector('.trick-title').textContent,
        number: document.getElementById('trick').dataset.number || null,
        button: document.getElementById('last-trick-btn').title};
"""


def _no_overlap_in_the_middle(got: dict, k: int) -> None:
    assert len({p[0] for p in got["pieces"] if p[0].endswith("title")}) == 1, (k, got["pieces"])
    for i, (ga, a, ta) in enumerate(got["pieces"]):
        for gb, b, tb in got["pieces"][i + 1:]:
            assert ga == gb or not _overlap(a, b), (k, ga, ta, gb, tb)


def test_one_caption_in_the_middle_and_L_names_its_trick(browser, tmp_path):  # noqa: F811
    """At every step, with the trick before shown and without: one title in the middle, no two pieces
    of text there on each other; the trick before is named by its number, also at the deal's end."""
    from selenium.webdriver.common.keys import Keys

    s = played("pagat", 6, 35)
    _open(browser, tmp_path, s, "middle-6")
    steps = _steps(s)
    body = browser.find_element("tag name", "body")
    kinds: set[str] = set()
    for k, st in enumerate(steps):
        if k:
            body.send_keys(Keys.ARROW_RIGHT)
        got = browser.execute_script(MIDDLE_TEXT)
        assert got["last"] is None
        _no_overlap_in_the_middle(got, k)
        body.send_keys("l")
        got = browser.execute_script(MIDDLE_TEXT)
        _no_overlap_in_the_middle(got, k)
        if got["number"] is not None and int(got["number"]) > 1:
            before = int(got["number"]) - 1
            kinds.add("end" if k == len(steps) - 1 else "mid-trick" if st["done"] == before else "between tricks")
            assert f"trick {before}, the one before" in got["last"] and f"trick {before + 1}" not in got["last"], k
        body.send_keys("l")
    assert kinds == {"end", "mid-trick", "between tricks"} and got["number"] == str(len(s.tricks))
    assert "before the one in the middle" in got["button"]


# Counts with the wrong number: "1 cards", "2 card" and the like.
WRONG_COUNT = r"""
const text = document.body.innerText, nouns = '(card|point|pt|trick|friend|seat|called friend)';
return [...text.matchAll(new RegExp('(^|[^0-9.])1 ' + nouns + 's\\b', 'g')),
        ...text.matchAll(new RegExp('(^|[^0-9.])([02-9]|[1-9][0-9]+) ' + nouns + '\\b(?!s)', 'g'))].map(m => m[0]);
"""


def test_one_card_one_point_one_trick_and_the_sides_at_the_end(browser, tmp_path):  # noqa: F811
    """Every count on the page takes the noun's number: a seat with one card
    left says '1 card' (its tag, and its back in a seat's view). The points
    the sides took in tricks are 'so far' until the end, then said plainly,
    the kitty's points apart."""
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    s = played("pagat", 6, 35)
    result = viewer_data(_open(browser, tmp_path, s, "plural-6"))["deals"][0]["result"]
    body = browser.find_element("tag name", "body")
    ones = 0
    for view in ("all", "1"):
        Select(browser.find_element("id", "viewer")).select_by_value(view)
        body.send_keys(Keys.HOME)
        for k in range(len(s.history) + 1):
            if k:
                body.send_keys(Keys.ARROW_RIGHT)
            assert browser.execute_script(WRONG_COUNT) == [], (view, k)
            ones += browser.execute_script("return [...document.querySelectorAll('#seats > .seat')].filter(e => "
                                           "/(^|\\n| \u00b7 )1 card( \u00b7 |$)/m.test(e.innerText)).length")
            if view == "all" and k in (len(s.history) // 2, len(s.history)):
                sides = [r.text for r in browser.find_elements("css selector", "#info tr") if r.text.startswith("sides")]
                assert len(sides) == 1 and ("so far" in sides[0]) == (k < len(s.history)) and "in tricks" in sides[0]
    assert "so far" not in sides[0] and f"kitty's {result['kitty_points']} points" in sides[0], sides
    assert ones > 0
    assert browser.execute_script("return [plural(1, 'card'), plural(2, 'card'), plural(0, 'point'), "
                                  "plural([3], 'seat'), plural([0, 2], 'seat')]") == \
        ["1 card", "2 cards", "0 points", "seat 3", "seats 0 2"]


# The key legend's entries (the text between two '·'), each with the vertical
# centre and right edge of every box it is drawn in; the "to act" marker's text.
LEGEND = r"""
const keys = document.getElementById('keys'), nodes = [], entries = [];
const walk = document.createTreeWalker(keys, NodeFilter.SHOW_TEXT);
for (let t = walk.nextNode(); t; t = walk.nextNode()) nodes.push(t);
let start = [nodes[0], 0];
const close = (node, off) => {
  const rg = document.createRange(); rg.setStart(...start); rg.setEnd(node, off);
  entries.push([rg.toString().trim(), [...rg.getClientRects()].filter(q => q.width).map(q => [q.top + q.height / 2, q.right])]);
};
for (const t of nodes) for (let i = t.data.indexOf('\u00b7'); i >= 0; i = t.data.indexOf('\u00b7', i + 1)) {
  close(t, i); start = [t, i + 1];
}
close(nodes[nodes.length - 1], nodes[nodes.length - 1].data.length);
const name = document.querySelector('#seats > .seat.to-act .name');
return {entries, right: keys.getBoundingClientRect().right - parseFloat(getComputedStyle(keys).paddingRight),
        toAct: name && getComputedStyle(name, '::after').content};
"""


@pytest.mark.parametrize("width", [1280, 1000])
def test_the_legend_keeps_each_key_with_its_words_and_to_act_is_spaced(browser, tmp_path, width):  # noqa: F811
    _open(browser, tmp_path, s := played("pagat", 6, 35), "legend-6")
    try:
        browser.set_window_size(width, 800)
        for k in (3, len(s.history)):                   # the side panel without a scroll bar, and with one
            _go(browser, s, k)
            got = browser.execute_script(LEGEND)
            told = {w for text, _ in got["entries"] for w in text.split()}
            assert {"\u2190", "\u2192", "Home", "End", "[", "]", "PgUp", "PgDn", "L"} <= told, got
            for text, boxes in got["entries"]:
                assert max(c for c, _ in boxes) - min(c for c, _ in boxes) < 8, (text, boxes)      # one line
                assert max(r for _, r in boxes) <= got["right"] + 0.5, (k, text, boxes)
            assert k > 3 or got["toAct"] and "\u25c0\u00a0to act" in got["toAct"], got["toAct"]
    finally:
        browser.set_window_size(1280, 800)


def test_the_play_table_names_the_trick_before_and_counts_right(browser, tmp_path):  # noqa: F811
    """The play table mid-deal: L's box names its trick as the one before the
    trick in the middle, one title shows there, and every count takes the noun's number."""
    import re
    import subprocess
    import sys
    import urllib.request

    from selenium.webdriver.support.ui import WebDriverWait

    from core.observe import view_from_json
    from test_browser import ROOT

    proc = subprocess.Popen([sys.executable, "-m", "arena", "play", "--human", "0", "--bots", "random", "--players",
                             "6", "--seed", "12", "--port", "0", "--pace", "0", "--no-open", "--record",
                             str(tmp_path / "t.jsonl"), "--linger", "0"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        url = re.search(r"(http://127\.0\.0\.1:\d+/)", proc.stdout.readline()).group(1)

        def api(path: str, body: dict | None = None) -> dict:
            req = urllib.request.Request(url + path, None if body is None else json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=30) as r:
                return json.load(r)

        rng, version = random.Random(12), -1
        while True:                              # random actions until the seat is to follow in trick 4 or later
            snap = api(f"api/state?since={version}")
            version, v = snap["version"], snap.get("view")      # none before the deal starts
            assert not snap["done"]
            if v is not None and snap["waiting"] and v["phase"] == "play" and len(v["tricks"]) >= 3 and v["current_trick"][1]:
                break
            if snap["waiting"]:
                assert api("api/action", {"action": str(view_from_json(v, Rules(**snap["rules"])).random_action(rng))})["ok"]
        browser.set_window_size(1280, 800)
        browser.get(url)
        WebDriverWait(browser, 20).until(lambda b: b.find_element("id", "status").text == "your turn")
        assert browser.execute_script(WRONG_COUNT) == [] and browser.execute_script("return plural(1, 'card')") == "1 card"
        browser.find_element("tag name", "body").send_keys("l")
        _no_overlap_in_the_middle(got := browser.execute_script(MIDDLE_TEXT), -1)
        assert f"trick {len(v['tricks'])}, the one before" in got["last"], got["last"]
        assert "before the one in the middle" in got["button"]
    finally:
        proc.kill()
        proc.communicate()


@pytest.mark.parametrize("view", ["all", "2"])
def test_fixed_partners_show_as_one_side_from_the_first_trick(browser, tmp_path, view):  # noqa: F811
    """Tractor: the maker's partner is tagged from the start and the points
    panel counts both seats of the maker's side (not the maker alone)."""
    from selenium.webdriver.support.ui import Select

    s = played("tractor", 4, 41)
    _open(browser, tmp_path, s, f"tractor-{view}")
    Select(browser.find_element("id", "viewer")).select_by_value(view)
    first = next(k for k, st in enumerate(_steps(s)) if st["middle"])
    _go(browser, s, first)
    maker = s.maker
    mate = (maker + 2) % 4
    tags = browser.execute_script(
        "return [...document.querySelectorAll('#seats > .seat')].map(b => [Number(b.dataset.seat), b.textContent]);")
    text = dict(tags)
    assert "partner" in text[mate] and "maker" in text[maker]
    assert all("partner" not in t for i, t in text.items() if i != mate)
    lo, hi = sorted((maker, mate))
    assert browser.find_element("css selector", "#score .side.maker .label").text == f"maker's side (seats {lo} {hi})"
    # the end of the deal: the panel's sum is the two partners' points
    _go(browser, s, len(s.history))
    got = int(browser.find_element("css selector", "#score .side.maker b").text)
    assert got == s.play.points[maker] + s.play.points[mate]
