"""The ladder's web server (:mod:`arena.ladder.web`), served for real on
127.0.0.1 (a free port) from a thread, and asked over HTTP.

A small ladder is built once for the module: two built-in entrants and a
submitted bot that plays legally through its validation and crashes in its
later games (so pages have faults to link), a few rounds played. Then:
submissions (answered at once, validated in the background, their status
followed to the end; or, with ``?wait=1``, answered once validated) and
retirements with the owner's token succeed; without it,
with a wrong one, or on another owner's name they are refused and change
nothing; oversized, malformed and hostile uploads are refused with one line
and leave no file behind, inside the ladder or out of it; unknown entrants
and games are 404s; the pages show what :func:`arena.ladder.fits.ratings`
says.
"""

from __future__ import annotations

import http.client
import io
import json
import logging
import os
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

import pytest

from arena.ladder import Ladder, LadderRules, ratings, run_ladder
from arena.ladder.web import serve
from arena.sandbox.jail import UID_BASE
from arena.types import ArenaError
from test_hostile import procs

TOKENS = {"ann": "tok-ann-0123456789", "bob": "tok-bob-9876543210"}

GOOD_BOT = b"""class Good:
    def restart(self, rules, seat, rng):
        self.rng = rng

    def step(self, view):
        return view.random_action(self.rng)
"""

FAILING_BOT = b"""class Failing:
    def restart(self, rules, seat, rng):
        self.rng = rng

    def step(self, view):
        raise ValueError("this bot always fails")
"""


def flaky_bot(deadline: float) -> bytes:
    """A bot that plays legally until ``deadline`` (its validation) and crashes in every play step after."""
    return f"""import time

DEADLINE = {deadline!r}


class Flaky:
    def restart(self, rules, seat, rng):
        self.rng = rng

    def step(self, view):
        if time.time() > DEADLINE and view.phase == "play":
            raise RuntimeError("past its deadline")
        return view.random_action(self.rng)
""".encode()


def slow_bot(until: float) -> bytes:
    """A bot that plays legally, but takes half a second a decision until ``until`` (its validation's end)."""
    return f"""import time

UNTIL = {until!r}


class Slow:
    def restart(self, rules, seat, rng):
        self.rng = rng

    def step(self, view):
        time.sleep(max(0.0, min(0.5, UNTIL - time.time())))
        return view.random_action(self.rng)
""".encode()


def build_ladder(folder: Path) -> Ladder:
    """The test ladder: ``rnd`` (ann), ``heur`` and ``flaky`` (bob), three rounds played."""
    lad = Ladder.create(str(folder), LadderRules(players=5, time_limit=1.0, upload_mb=1))
    with lad.store() as st:
        for owner, token in TOKENS.items():
            st.add_owner(owner, token)
    lad.submit_builtin("random", name="rnd", owner="ann")
    lad.submit_builtin("heuristic", name="heur", owner="bob")
    deadline = time.time() + 1.5
    lad.submit_file(io.BytesIO(flaky_bot(deadline)), "flaky.py", name="flaky", owner="bob", note="crashes later")
    time.sleep(max(0.0, deadline - time.time()))
    run_ladder(lad, workers=1, games=15, groups_per_round=1)
    return lad


class Served:
    """The ladder's server on a free port, from a thread, until :meth:`stop`."""

    def __init__(self, lad: Ladder) -> None:
        self._stop = threading.Event()
        self._ready = threading.Event()
        self.url = ""
        self.error: BaseException | None = None

        def run() -> None:
            try:
                serve(lad, "127.0.0.1", 0, ready=self._listening, stop=self._stop)
            except BaseException as exc:      # shown by the fixture
                self.error = exc
                self._ready.set()

        self._thread = threading.Thread(target=run, name="ladder-server-test", daemon=True)
        self._thread.start()
        assert self._ready.wait(30), "the server did not start"
        assert self.error is None, self.error

    def _listening(self, url: str) -> None:
        self.url = url.rstrip("/")
        self._ready.set()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(30)
        assert not self._thread.is_alive(), "the server did not stop"


@pytest.fixture(scope="module")
def ladder(tmp_path_factory):
    root = tmp_path_factory.mktemp("ladder-server")
    return build_ladder(root / "lad")


@pytest.fixture(scope="module")
def server(ladder):
    served = Served(ladder)
    try:
        yield served
    finally:
        served.stop()


# ---------------------------------------------------------------------- HTTP helpers


def call(server: Served, method: str, path: str, body: bytes | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(server.url + path, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, dict(exc.headers), exc.read()


def get_json(server: Served, path: str) -> tuple[int, object]:
    status, headers, body = call(server, "GET", path)
    assert headers["Content-Type"].startswith("application/json"), (path, headers)
    return status, json.loads(body)


def multipart(fields: dict[str, str], files: dict[str, tuple[str, bytes]]) -> tuple[bytes, str]:
    """A multipart/form-data body and its content type."""
    boundary = "----ladder-test-boundary-7MA4YWxkTrZu0gW"
    out = io.BytesIO()
    for name, value in fields.items():
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode())
        out.write(value.encode() + b"\r\n")
    for name, (filename, data) in files.items():
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                  "Content-Type: application/octet-stream\r\n\r\n".encode())
        out.write(data + b"\r\n")
    out.write(f"--{boundary}--\r\n".encode())
    return out.getvalue(), f"multipart/form-data; boundary={boundary}"


def auth(owner: str | None = None, token: str | None = None) -> dict[str, str]:
    if token is None and owner is not None:
        token = TOKENS[owner]
    return {} if token is None else {"Authorization": f"Bearer {token}"}


def submit(server: Served, fields: dict[str, str], filename: str = "bot.py", data: bytes = GOOD_BOT,
           headers: dict[str, str] | None = None, wait: bool = True) -> tuple[int, dict[str, str], dict]:
    """POST a submission; ``wait``: with ``?wait=1``, the answer waits for the validation (201 or the refusal),
    else the server answers 202 at once with the submission's status."""
    body, kind = multipart(fields, {"file": (filename, data)} if filename else {})
    path = "/api/submit?wait=1" if wait else "/api/submit"
    status, got, raw = call(server, "POST", path, body, {"Content-Type": kind, **(headers or {})})
    assert got["Content-Type"].startswith("application/json"), raw[:200]
    return status, got, json.loads(raw)


def retire(server: Served, name: str, body: object = None, headers: dict[str, str] | None = None
           ) -> tuple[int, dict[str, str], dict]:
    data = None if body is None else json.dumps(body).encode()
    status, got, raw = call(server, "POST", f"/api/entrants/{name}/retire", data or b"",
                            {"Content-Type": "application/json", **(headers or {})})
    return status, got, json.loads(raw)


def snapshot(lad: Ladder) -> tuple[list[dict], set[str]]:
    """The entrants in the database and every file under the ladder's folder (the database's journal aside)."""
    files = set()
    for root, dirs, names in os.walk(lad.folder):
        for n in dirs + names:
            rel = os.path.relpath(os.path.join(root, n), lad.folder)
            if not rel.startswith("ladder.db"):
                files.add(rel)
    return [e.to_json() for e in lad.entrants()], files


def outside(lad: Ladder) -> set[str]:
    """Every file around the ladder's folder (its parent), and in the working folder."""
    parent = os.path.dirname(lad.folder)
    names = {os.path.join(parent, n) for n in os.listdir(parent)}
    return names | {os.path.join(os.getcwd(), n) for n in os.listdir(os.getcwd())}


# ---------------------------------------------------------------------- reading


def test_the_api_reads_the_ladder(server, ladder):
    status, info = get_json(server, "/api/ladder")
    assert status == 200 and info["rules"]["players"] == 5 and info["rules"]["time_limit"] == 1.0
    with ladder.store(read_only=True) as st:
        games = st.count_games()
    assert info["games"] == games >= 15
    status, got = get_json(server, "/api/standings")
    n, rows = ratings(ladder)
    assert status == 200 and got["games"] == n
    assert got["rows"] == [r.to_json() for r in rows]
    status, got = get_json(server, "/api/entrants")
    assert status == 200
    assert [e["label"] for e in got["entrants"]] == [e.label for e in ladder.entrants()]
    by_id = {r.id: r.to_json() for r in rows}
    for e in got["entrants"]:
        assert e["rating"]["elo"] == by_id[e["id"]]["elo"] and e["rating"]["deals"] == by_id[e["id"]]["deals"]


def test_an_entrant_has_its_history_games_and_faults(server, ladder):
    status, got = get_json(server, "/api/entrants/flaky")
    assert status == 200 and got["owner"] == "bob" and [v["version"] for v in got["versions"]] == [1]
    v = got["versions"][0]
    assert v["note"] == "crashes later"
    with ladder.store(read_only=True) as st:
        row = st.versions("flaky")[0]
        faults = st.faults_of(row.id)
        history = st.rating_history(row.id)
        recent = st.games_of(row.id, 20)
    assert faults, "the flaky bot crashed in its games"
    assert v["faults"]["crash"]["count"] == len(faults)
    assert sorted(v["faults"]["crash"]["games"]) == sorted({g for g, _ in faults})
    assert [h["games"] for h in v["history"]] == [n for _, n, _ in history] and len(history) >= 2
    assert [g["id"] for g in v["games"]] == [g.id for g in recent]
    first = v["games"][0]
    me = next(s for s in first["entrants"] if s["id"] == row.id)
    deal = recent[0].result.deals[0]
    assert me["points"] == sum(deal.game_points[s] for s in me["seats"])
    assert first["viewer"] == f"/games/{first['id']}" and first["record"] == f"/api/games/{first['id']}/record"


def test_a_game_and_its_record(server, ladder):
    with ladder.store(read_only=True) as st:
        row, record = st.game(1)
        labels = {e.id: e.label for e in st.entrants()}
    status, got = get_json(server, "/api/games/1")
    assert status == 200 and got["id"] == 1
    assert [s["label"] for s in got["seats"]] == [labels[e] for e in row.seats]
    assert got["deal"]["opponents_points"] == row.result.deals[0].opponents_points
    status, headers, body = call(server, "GET", "/api/games/1/record")
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    assert body.decode() == record and json.loads(body.decode().split("\n")[0])["type"] == "deal"


@pytest.mark.parametrize("path", ["/api/entrants/nobody", "/api/entrants/..%2F..%2Fetc", "/api/games/99999",
                                  "/api/games/99999/record", "/api/games/abc", "/api/nothing-here"])
def test_unknown_things_are_404_json(server, path):
    status, got = get_json(server, path)
    assert status == 404 and set(got) == {"error"} and "\n" not in got["error"]


@pytest.mark.parametrize("path", ["/entrants/nobody", "/games/99999", "/no/such/page"])
def test_unknown_pages_are_404_pages(server, path):
    status, headers, body = call(server, "GET", path)
    assert status == 404 and headers["Content-Type"].startswith("text/html")
    assert b"Not found" in body and b"href='/'" in body


def test_a_server_error_is_one_line_without_a_traceback(server, monkeypatch):
    from arena.ladder.web import service as module

    def broken(self):
        raise RuntimeError("secret detail /srv/private")

    monkeypatch.setattr(module.Service, "standings", broken)
    status, got = get_json(server, "/api/standings")
    assert status == 500 and set(got) == {"error"}
    assert "secret" not in got["error"] and "Traceback" not in got["error"]
    status, _, body = call(server, "GET", "/")
    assert status == 500 and b"secret" not in body and b"Traceback" not in body


def test_a_ladder_error_is_one_line_in_the_log(server, monkeypatch, caplog):
    from arena.ladder.web import service as module

    def damaged(self):
        raise ArenaError("/srv/lad/ladder.db is damaged (a ratings snapshot is not JSON)")

    monkeypatch.setattr(module.Service, "standings", damaged)
    caplog.set_level(logging.WARNING)
    status, got = get_json(server, "/api/standings")
    assert status == 500 and "damaged" not in got["error"] and "log" in got["error"]
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1 and lines[0].exc_info is None, [r.getMessage() for r in lines]
    assert lines[0].getMessage() == ("GET /api/standings failed: /srv/lad/ladder.db is damaged (a ratings snapshot "
                                     "is not JSON)")


# ---------------------------------------------------------------------- pages


def _cells(page: str, table: str) -> list[tuple[str, str]]:
    """(label, Elo cell) of each row of the page's table ``table``."""
    body = page.split(f"<table id='{table}'>", 1)[1].split("</table>", 1)[0]
    return re.findall(r"<tr data-entrant='([^']*)'.*?<td class='num elo'>([^<]*)</td>", body)


def test_the_leaderboard_shows_the_ratings(server, ladder):
    status, headers, body = call(server, "GET", "/")
    page = body.decode()
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    _, rows = ratings(ladder)
    active = [r for r in rows if not r.retired]
    want = [(r.label, f"{r.elo:+.0f}" if r.elo == r.elo else "&ndash;") for r in active]
    assert _cells(page, "standings") == want
    retired = [r for r in rows if r.retired]
    if retired:
        assert [c[0] for c in _cells(page, "retired")] == [r.label for r in retired]
    assert page.count("<svg class='ci'") == sum(1 for r in rows if r.elo == r.elo)
    for r in rows:
        assert f"href='/entrants/{r.name}#v{r.version}'" in page
    flaky = next(r for r in rows if r.name == "flaky")
    assert f">{sum(flaky.faults.values())}</a></td>" in page
    assert "provisional" in page and "http://" not in page.replace(server.url, "")


def test_an_entrant_page_shows_versions_history_faults_and_games(server, ladder):
    status, _, body = call(server, "GET", "/entrants/flaky")
    page = body.decode()
    assert status == 200
    with ladder.store(read_only=True) as st:
        row = st.versions("flaky")[0]
        faults = st.faults_of(row.id)
        recent = st.games_of(row.id, 20)
    assert f"data-label='{row.label}'" in page and row.code_hash[:16] in page and "crashes later" in page
    assert "<svg class='history'" in page and "<polygon class='band'" in page
    for game_id, _ in faults[:30]:
        assert f"href='/games/{game_id}'" in page
    for g in recent:
        assert f"href='/games/{g.id}'" in page and f"href='/api/games/{g.id}/record'" in page
    _, rows = ratings(ladder)
    assert f"{next(r for r in rows if r.id == row.id).elo:+.0f}" in page


def test_the_game_page_is_the_viewer(server, ladder):
    with ladder.store(read_only=True) as st:
        row, _ = st.game(2)
        labels = {st.entrant(e).label for e in row.pair}
    status, headers, body = call(server, "GET", "/games/2")
    page = body.decode()
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert "<title>ladder game 2: " in page and all(label in page for label in labels)
    assert "id=\"step-count\"" in page and "script-src 'unsafe-inline'" in headers["Content-Security-Policy"]


# ---------------------------------------------------------------------- acting


def test_submit_resubmit_and_retire(server, ladder):
    status, headers, got = submit(server, {"name": "mine", "note": "first try <b>bold</b>"}, "good.py",
                                  headers=auth("ann"))
    assert status == 201, got
    assert got["name"] == "mine" and got["version"] == 1 and got["owner"] == "ann" and got["kind"] == "module"
    assert headers["Location"] == "/entrants/mine"
    _, listed = get_json(server, "/api/entrants")
    assert "mine" in [e["label"] for e in listed["entrants"]]
    status, _, again = submit(server, {"name": "mine", "class": "Good"}, "good.py", GOOD_BOT + b"# v2\n",
                              auth("ann"))
    assert status == 201 and again["version"] == 2 and again["label"] == "mine@v2"
    page = call(server, "GET", "/entrants/mine")[2].decode()
    assert "first try &lt;b&gt;bold&lt;/b&gt;" in page and "<b>bold" not in page
    assert page.count("<section class='version box'") == 2
    status, _, done = retire(server, "mine", {"version": 1}, auth("ann"))
    assert status == 200 and [r["label"] for r in done["retired"]] == ["mine"]
    assert done["retired"][0]["retired"] is not None
    rows = {e.label: e for e in ladder.entrants()}
    assert rows["mine"].retired is not None and rows["mine@v2"].retired is None
    status, _, done = retire(server, "mine", None, auth("ann"))
    assert status == 200 and {r["label"] for r in done["retired"]} == {"mine", "mine@v2"}
    assert all(e.retired is not None for e in ladder.entrants() if e.name == "mine")
    board = call(server, "GET", "/")[2].decode()
    assert "mine@v2" in [c[0] for c in _cells(board, "retired")]


def _refused(server, ladder, act, status: int, words: str) -> dict:
    before = snapshot(ladder)
    around = outside(ladder)
    code, headers, got = act()
    assert code == status, got
    assert set(got) == {"error"} and "\n" not in got["error"] and words in got["error"], got
    assert "Traceback" not in got["error"] and ladder.folder not in got["error"]
    assert snapshot(ladder) == before, "a refused action changed the ladder"
    assert outside(ladder) == around, "a refused action left a file outside the ladder"
    if status == 401:
        assert headers["WWW-Authenticate"].startswith("Bearer")
    return got


@pytest.mark.parametrize("headers,status,words", [
    ({}, 401, "token"),
    ({"Authorization": ""}, 401, "token"),
    ({"Authorization": "Bearer "}, 401, "Bearer"),
    ({"Authorization": "Basic YW5uOnRvaw=="}, 401, "Bearer"),
    ({"Authorization": "Bearer tok-ann-0123456789 extra"}, 401, "Bearer"),
    ({"Authorization": "Bearer wrong-token"}, 401, "not valid"),
    (auth("bob"), 403, "another owner"),
])
def test_acting_without_the_owners_token_is_refused(server, ladder, headers, status, words):
    _refused(server, ladder, lambda: submit(server, {"name": "rnd"}, "good.py", headers=headers), status, words)
    _refused(server, ladder, lambda: retire(server, "rnd", None, headers), status, words)
    _refused(server, ladder, lambda: retire(server, "rnd", {"version": 1}, headers), status, words)


def test_retiring_unknown_names_and_versions(server, ladder):
    _refused(server, ladder, lambda: retire(server, "nobody", None, auth("ann")), 404, "no entrant")
    _refused(server, ladder, lambda: retire(server, "rnd", {"version": 9}, auth("ann")), 404, "no version 9")
    _refused(server, ladder, lambda: retire(server, "rnd", {"version": "x"}, auth("ann")), 400, "version")
    _refused(server, ladder, lambda: retire(server, "rnd", ["v"], auth("ann")), 400, "version")


def send_in_pieces(server: Served, path: str, pieces: list[bytes], headers: dict[str, str],
                   pause: float = 0.3) -> tuple[int, dict[str, str], dict]:
    """POST a body in chunks (chunked transfer), ``pause`` seconds apart, so the
    server sees each piece arrive on its own."""
    host, port = server.url.split("//")[1].split(":")

    def body():
        for k, piece in enumerate(pieces):
            if k:
                time.sleep(pause)
            yield piece

    con = http.client.HTTPConnection(host, int(port), timeout=60)
    try:
        con.request("POST", path, body=body(), headers=headers, encode_chunked=True)
        resp = con.getresponse()
        return resp.status, dict(resp.getheaders()), json.loads(resp.read())
    finally:
        con.close()


def test_a_retire_body_is_read_whole_however_it_arrives(server, ladder):
    ann = {"Content-Type": "application/json", **auth("ann")}
    for k in (1, 2, 3):
        status, _, got = submit(server, {"name": "pieces"}, "good.py", GOOD_BOT + f"# v{k}\n".encode(), auth("ann"))
        assert status == 201 and got["version"] == k, got
    path = "/api/entrants/pieces/retire"
    status, _, got = send_in_pieces(server, path, [b'{"version"', b': 1}'], ann)
    assert status == 200 and [r["label"] for r in got["retired"]] == ["pieces"], got
    # whitespace first, then a version there is not: nothing is retired
    _refused(server, ladder, lambda: send_in_pieces(server, path, [b"   ", b'{"version": 7}'], ann), 404,
             "no version 7")
    # a body of whitespace only is not an empty body
    _refused(server, ladder, lambda: send_in_pieces(server, path, [b" ", b"\n"], ann), 400, "not JSON")
    _refused(server, ladder, lambda: call_json(server, "POST", path, b"  \n", ann), 400, "not JSON")
    # too large, however it arrives
    _refused(server, ladder, lambda: send_in_pieces(server, path, [b" " * 3000, b" " * 3000], ann), 413,
             "at most 4096 bytes")
    status, _, got = send_in_pieces(server, path, [b'{"vers', b'ion": 3', b"}"], ann)
    assert status == 200 and [r["label"] for r in got["retired"]] == ["pieces@v3"], got
    assert {e.label: e.retired is None for e in ladder.entrants() if e.name == "pieces"} == {
        "pieces": False, "pieces@v2": True, "pieces@v3": False}
    status, _, got = retire(server, "pieces", None, auth("ann"))         # an empty body: every version
    assert status == 200 and all(e.retired is not None for e in ladder.entrants() if e.name == "pieces")


def call_json(server: Served, method: str, path: str, body: bytes, headers: dict[str, str]
              ) -> tuple[int, dict[str, str], dict]:
    status, got, raw = call(server, method, path, body, headers)
    assert got["Content-Type"].startswith("application/json"), raw[:200]
    return status, got, json.loads(raw)


def raw_request(server: Served, data: bytes, timeout: float = 30) -> tuple[int, bytes]:
    """Send ``data`` as it is on a connection of its own: the status and body of the answer."""
    host, port = server.url.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as s:
        s.sendall(data)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
            head, _, body = answer.partition(b"\r\n\r\n")
            length = re.search(rb"(?im)^content-length: *([0-9]+)", head)
            if length and len(body) >= int(length[1]):
                break
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def test_a_retire_body_that_cannot_be_read_is_refused(server, ladder, monkeypatch):
    from arena.ladder.web import api as module

    ann = {"Content-Type": "application/json", **auth("ann")}
    path = "/api/entrants/rnd/retire"
    deep = b"[" * 2000 + b"]" * 2000
    _refused(server, ladder, lambda: call_json(server, "POST", path, deep, ann), 400, "not JSON")
    _refused(server, ladder, lambda: call_json(server, "POST", path, b"\xff\xfe", ann), 400, "not JSON")
    _refused(server, ladder, lambda: call_json(server, "POST", path, b'{"version": 1}',
                                               {"Content-Encoding": "gzip", **ann}), 400, "could not be read")
    # a body that never ends
    monkeypatch.setattr(module, "BODY_SECONDS", 1)
    head = (f"POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKENS['ann']}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{").encode()
    started = time.monotonic()
    status, body = raw_request(server, head)
    assert status == 408 and "did not arrive" in json.loads(body)["error"]
    assert time.monotonic() - started < 10


def test_an_oversized_upload_is_refused_while_it_streams(server, ladder):
    big = b"#" * ((1 << 20) + 4096)
    got = _refused(server, ladder, lambda: submit(server, {"name": "huge"}, "huge.py", big, auth("ann")), 413,
                   "1 MiB")
    assert "larger" in got["error"]
    # without a Content-Length (chunked), the limit holds as the body streams in
    body, kind = multipart({"name": "huge"}, {"file": ("huge.py", big * 3)})

    def chunked() -> tuple[int, dict[str, str], dict]:
        host, port = server.url.split("//")[1].split(":")
        con = http.client.HTTPConnection(host, int(port), timeout=60)
        try:
            con.request("POST", "/api/submit", body=(body[i:i + 65536] for i in range(0, len(body), 65536)),
                        headers={"Content-Type": kind, **auth("ann")}, encode_chunked=True)
            resp = con.getresponse()
            return resp.status, dict(resp.getheaders()), json.loads(resp.read())
        finally:
            con.close()

    _refused(server, ladder, chunked, 413, "1 MiB")


def test_a_slow_submission_holds_up_its_owner_only(server, ladder):
    from arena.ladder.web import service as module

    until = time.time() + 12
    slow: dict[str, object] = {}

    def ann_submits() -> None:
        slow["answer"] = submit(server, {"name": "slowpoke"}, "slow.py", slow_bot(until), auth("ann"))
        slow["at"] = time.time()

    thread = threading.Thread(target=ann_submits)
    thread.start()
    try:
        time.sleep(1.5)                  # ann's upload is in, its validation under way
        assert thread.is_alive()
        # ann waits for the answer to her first submission before sending another
        started = time.monotonic()
        got = _refused(server, ladder, lambda: submit(server, {"name": "another"}, "good.py", GOOD_BOT, auth("ann")),
                       429, "earlier submission")
        assert "wait" in got["error"] and time.monotonic() - started < 5
        # the cap on everyone's submissions holds
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(module, "MAX_WAITING", 1)
            _refused(server, ladder, lambda: submit(server, {"name": "quick"}, "good.py", GOOD_BOT, auth("bob")),
                     503, "try again")
        # bob's submission is validated beside ann's, not after it
        status, _, got = submit(server, {"name": "quick"}, "good.py", GOOD_BOT, auth("bob"))
        assert status == 201 and got["label"] == "quick", got
        assert thread.is_alive() and time.time() < until, "bob's submission waited for ann's"
    finally:
        thread.join(120)
    status, _, got = slow["answer"]
    assert status == 201 and got["label"] == "slowpoke", got
    assert slow["at"] >= until
    for e in ladder.entrants():         # validated side by side, each version keeps its own files
        if e.name in ("slowpoke", "quick"):
            assert os.path.isfile(os.path.join(ladder.folder, e.spec.rpartition(":")[0])), e
    # once answered, ann may submit again
    status, _, got = submit(server, {"name": "slowpoke"}, "slow.py", slow_bot(0.0), auth("ann"))
    assert status == 201 and got["label"] == "slowpoke@v2", got


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in members.items():
            z.writestr(zipfile.ZipInfo(name), data)
    return buf.getvalue()


def test_malformed_and_hostile_uploads_are_refused(server, ladder):
    parent = os.path.dirname(ladder.folder)
    ann = auth("ann")

    def post(body: bytes, kind: str) -> tuple[int, dict[str, str], dict]:
        status, headers, raw = call(server, "POST", "/api/submit", body, {"Content-Type": kind, **ann})
        return status, headers, json.loads(raw)

    _refused(server, ladder, lambda: post(b'{"name": "x"}', "application/json"), 415, "multipart")
    _refused(server, ladder, lambda: post(b"--nope\r\n", "multipart/form-data; boundary=zzz"), 400, "form")
    _refused(server, ladder, lambda: submit(server, {}, "good.py", headers=ann), 400, "name")
    _refused(server, ladder, lambda: submit(server, {"name": "nofile"}, "", headers=ann), 400, "file")
    _refused(server, ladder, lambda: submit(server, {"name": "../up"}, "good.py", headers=ann), 400, "name")
    _refused(server, ladder, lambda: submit(server, {"name": "x", "extra": "1"}, "good.py", headers=ann), 400,
             "unknown field")
    _refused(server, ladder, lambda: submit(server, {"name": "x", "note": "n" * 5000}, "good.py", headers=ann),
             400, "longer")
    got = _refused(server, ladder, lambda: submit(server, {"name": "failing"}, "failing.py", FAILING_BOT, ann),
                   400, "refused: the validation deal")
    assert "this bot always fails" in got["error"]
    _refused(server, ladder, lambda: submit(server, {"name": "broken"}, "broken.py", b"def (:\n", ann), 400, "line 1")
    _refused(server, ladder, lambda: submit(server, {"name": "x", "class": "Nope"}, "good.py", headers=ann), 400,
             "no class 'Nope'")
    climb = _zip({"bot.py": GOOD_BOT, "../../../evil.py": b"print('escaped')\n"})
    _refused(server, ladder, lambda: submit(server, {"name": "climb"}, "climb.zip", climb, ann), 400, "not allowed")
    absolute = os.path.join(parent, "abs_evil.py")
    rooted = _zip({"bot.py": GOOD_BOT, absolute: b"print('escaped')\n"})
    _refused(server, ladder, lambda: submit(server, {"name": "rooted"}, "rooted.zip", rooted, ann), 400,
             "not allowed")
    _refused(server, ladder, lambda: submit(server, {"name": "notzip"}, "x.zip", b"PK not a zip", ann), 400, "zip")
    _refused(server, ladder, lambda: submit(server, {"name": "dots"}, "../../evil.py", FAILING_BOT, ann), 400,
             "refused")
    for path in (absolute, os.path.join(parent, "evil.py"), os.path.join(os.path.dirname(parent), "evil.py")):
        assert not os.path.exists(path)


def test_a_zip_of_a_folder_is_taken(server, ladder):
    data = _zip({"bot.py": GOOD_BOT, "data/notes.txt": b"hello\n"})
    status, _, got = submit(server, {"name": "zipped"}, "zipped.zip", data, auth("bob"))
    assert status == 201, got
    assert got["owner"] == "bob" and got["kind"] == "module"
    row = next(e for e in ladder.entrants() if e.id == got["id"])
    stored = os.path.join(ladder.folder, os.path.dirname(row.spec))
    assert sorted(os.listdir(os.path.join(stored, "data"))) == ["notes.txt"]


def test_requests_it_cannot_parse_are_one_line_each_in_the_log(ladder, caplog):
    from arena.ladder.web import app as module

    served = Served(ladder)              # a server of its own, with its own count of lines
    try:
        caplog.set_level(logging.WARNING)
        bad = [b"GET /api/ladder HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n",
               b"GET /api/ladder HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(200))
               + b"\r\n",
               b"POST /api/entrants/rnd/retire HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"]
        for data in bad:
            assert raw_request(served, data)[0] == 400

        def lines() -> list[logging.LogRecord]:
            return [r for r in caplog.records if r.levelno >= logging.WARNING]

        assert len(lines()) == len(bad), [r.getMessage() for r in lines()]
        for r in lines():
            text = r.getMessage()
            assert r.exc_info is None and "\n" not in text and len(text) < 300, text
            assert text.startswith("a bad request from 127.0.0.1: ")
        # a flood of them: a few lines a minute, no more
        for _ in range(module.BAD_REQUEST_LINES):
            assert raw_request(served, bad[0])[0] == 400
        assert len(lines()) == module.BAD_REQUEST_LINES
        assert all(r.exc_info is None for r in lines())
    finally:
        served.stop()


def test_a_port_in_use_is_one_line(ladder):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(ArenaError, match=f"^port {port} on 127.0.0.1 is in use$"):
            serve(ladder, "127.0.0.1", port)


# ---------------------------------------------------------------------- escaping

HOSTILE = ("<script>alert(1)</script>", '"><img src=x onerror=alert(1)>')


def assert_escaped(page: str, where: str) -> None:
    """No hostile text is in ``page`` as markup."""
    assert "<script>alert(1)" not in page and "<img src=x" not in page, where


@pytest.fixture(scope="module")
def hostile_ladder(ladder, tmp_path_factory):
    """A copy of the test ladder whose owner, note, an entrant's name and
    every fault message are hostile markup (written past the checks the
    ladder makes on the way in)."""
    import shutil
    import sqlite3

    folder = tmp_path_factory.mktemp("hostile") / "lad"
    shutil.copytree(ladder.folder, folder, ignore=shutil.ignore_patterns("bots", "logs"))
    con = sqlite3.connect(folder / "ladder.db")
    with con:
        con.execute("UPDATE entrants SET owner = ?, note = ? WHERE name = 'flaky'", HOSTILE)
        con.execute("UPDATE entrants SET name = ? WHERE name = 'heur'", (HOSTILE[1],))
        con.execute("UPDATE faults SET message = ?", (HOSTILE[0],))
        for game_id, text in con.execute("SELECT id, result_json FROM games").fetchall():
            result = json.loads(text)
            for f in result.get("faults", []):
                f["message"] = HOSTILE[1]
            con.execute("UPDATE games SET result_json = ? WHERE id = ?", (json.dumps(result), game_id))
    con.close()
    return Ladder(str(folder))


def test_hostile_names_notes_and_messages_are_escaped_on_every_page(hostile_ladder, tmp_path):
    served = Served(hostile_ladder)
    try:
        board = call(served, "GET", "/")[2].decode()
        assert_escaped(board, "leaderboard")
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in board and "&#34;&gt;&lt;img src=x" in board
        entrant = call(served, "GET", "/entrants/flaky")[2].decode()
        assert_escaped(entrant, "entrant page")
        assert entrant.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 1 and "&#34;&gt;&lt;img" in entrant
        with hostile_ladder.store(read_only=True) as st:
            game_id = st.faults_of(next(e.id for e in st.entrants() if e.name == "flaky"))[0][0]
            heur = next(e.id for e in st.entrants() if e.name == HOSTILE[1])
            played = st.games_of(heur, 1)[0].id
        for gid in (game_id, played):
            status, _, body = call(served, "GET", f"/games/{gid}")
            assert status == 200
            assert_escaped(body.decode(), f"game {gid}")
            assert body.decode().count("</script>") == 2          # the data's and the script's own ends
        status, _, body = call(served, "GET", "/entrants/" + urllib.parse.quote(HOSTILE[0]))
        assert status == 404
        assert_escaped(body.decode(), "404 page")
        status, got = get_json(served, f"/api/games/{game_id}")
        assert status == 200 and any(f["message"] == HOSTILE[1] for f in got["faults"])     # JSON: as it is
    finally:
        served.stop()
    from arena.commands import main

    out = tmp_path / "hostile.html"
    assert main(["report", "--ladder", hostile_ladder.folder, "-o", str(out), "--samples", "50", "--games", "3"]) == 0
    text = out.read_text(encoding="utf-8")
    assert_escaped(text, "ladder report")
    assert "&#34;&gt;&lt;img src=x" in text          # the name and the faults' messages (from the games)
    for page in (tmp_path / "hostile_games").iterdir():
        assert_escaped(page.read_text(encoding="utf-8"), page.name)


# ---------------------------------------------------------------------- submissions in the background

ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def follow(server: Served, status_path: str, limit: float = 120) -> dict:
    """The submission's status once it is answered (every state seen is checked on the way)."""
    deadline = time.monotonic() + limit
    while True:
        code, got = get_json(server, status_path)
        assert code == 200 and got["state"] in ("validating", "accepted", "refused"), got
        if got["state"] != "validating":
            return got
        assert time.monotonic() < deadline, "the validation did not end"
        time.sleep(0.2)


def test_a_submission_is_answered_at_once_and_validated_in_the_background(server, ladder):
    until = time.time() + 5
    started = time.monotonic()
    status, headers, got = submit(server, {"name": "background"}, "slow.py", slow_bot(until), auth("ann"),
                                  wait=False)
    assert status == 202 and time.monotonic() - started < 1.0, got
    assert got["state"] == "validating" and got["name"] == "background" and got["owner"] == "ann"
    assert got["url"] == f"/submissions/{got['id']}" and got["api"] == f"/api/submissions/{got['id']}"
    assert headers["Location"] == got["url"] and ISO.fullmatch(got["submitted"]) and got["finished"] is None
    # the page reloads itself while the validation runs
    code, page_headers, page = call(server, "GET", got["url"])
    assert code == 200 and page_headers["Content-Type"].startswith("text/html")
    assert b"<meta http-equiv='refresh'" in page and b"validating" in page
    # its owner has one submission in the server at a time
    _refused(server, ladder, lambda: submit(server, {"name": "another"}, "good.py", GOOD_BOT, auth("ann"), wait=False),
             429, "earlier submission")
    assert get_json(server, got["api"])[1]["state"] == "validating" and time.time() < until
    done = follow(server, got["api"])
    assert done["state"] == "accepted", done
    assert done["entrant"]["label"] == "background" and done["entrant"]["owner"] == "ann"
    assert done["page"] == "/entrants/background#v1" and done["logs"] == "/api/entrants/background/logs"
    assert ISO.fullmatch(done["finished"]) and ISO.fullmatch(done["entrant"]["created"])
    assert "background" in [e.label for e in ladder.entrants()]
    code, _, page = call(server, "GET", got["url"])
    assert code == 200 and b"http-equiv='refresh'" not in page
    assert b"href='/entrants/background#v1'" in page and b"href='/api/entrants/background/logs'" in page
    # a bad bot is refused with the line the validation gives (the same as ?wait=1 answers)
    status, _, bad = submit(server, {"name": "failing"}, "failing.py", FAILING_BOT, auth("ann"), wait=False)
    assert status == 202, bad
    refused = follow(server, bad["api"])
    assert refused["state"] == "refused" and refused["http_status"] == 400 and "entrant" not in refused
    assert refused["reason"].startswith("refused: the validation deal: seat ")
    assert "this bot always fails" in refused["reason"] and "\n" not in refused["reason"]
    code, _, page = call(server, "GET", bad["url"])
    assert code == 200 and b"this bot always fails" in page and b"http-equiv='refresh'" not in page
    status, _, sync = submit(server, {"name": "failing"}, "failing.py", FAILING_BOT, auth("ann"))
    assert status == 400 and sync["error"].startswith("refused: the validation deal: seat ")
    assert "failing" not in [e.name for e in ladder.entrants()]
    for path in ("/api/submissions/nope", "/submissions/nope"):
        assert call(server, "GET", path)[0] == 404


def test_every_time_in_the_json_is_iso_text(server, ladder):
    _, got = get_json(server, "/api/entrants/flaky")
    v = got["versions"][0]
    times = [v["created"]] + [h["at"] for h in v["history"]] + [g["written"] for g in v["games"]]
    assert len(times) > 3 and all(isinstance(t, str) and ISO.fullmatch(t) for t in times), times
    _, listed = get_json(server, "/api/entrants")
    assert all(ISO.fullmatch(e["created"]) for e in listed["entrants"])
    assert all(e["retired"] is None or ISO.fullmatch(e["retired"]) for e in listed["entrants"])
    _, game = get_json(server, "/api/games/1")
    assert ISO.fullmatch(game["written"])
    status, _, done = submit(server, {"name": "isotime"}, "good.py", GOOD_BOT + b"# iso\n", auth("bob"))
    assert status == 201 and ISO.fullmatch(done["created"]) and done["retired"] is None
    status, _, gone = retire(server, "isotime", None, auth("bob"))
    assert status == 200 and ISO.fullmatch(gone["retired"][0]["retired"])


TALKER = b"""import sys


class Talker:
    def restart(self, rules, seat, rng):
        self.rng = rng
        print(f"talker in seat {seat} starts a deal", file=sys.stderr, flush=True)

    def step(self, view):
        return view.random_action(self.rng)
"""


def test_an_owner_reads_its_own_bots_logs_and_no_one_elses(tmp_path):
    lad = Ladder.create(str(tmp_path / "lad"), LadderRules(players=5, time_limit=1.0))
    with lad.store() as st:
        for owner, token in TOKENS.items():
            st.add_owner(owner, token)
    lad.submit_builtin("random", name="rnd", owner="ann")
    lad.submit_file(io.BytesIO(TALKER), "talker.py", name="talker", owner="bob")
    run_ladder(lad, workers=1, games=6, groups_per_round=1)
    with lad.store(read_only=True) as st:
        talker = st.versions("talker")[0]
        played = {g.id for g in st.games_of(talker.id, 100)}
    assert played
    served = Served(lad)
    try:
        status, headers, raw = call(served, "GET", "/api/entrants/talker/logs", headers=auth("bob"))
        assert status == 200 and headers["Content-Type"].startswith("application/json"), raw[:200]
        got = json.loads(raw)
        assert got["name"] == "talker" and got["owner"] == "bob" and got["limit"] > 0
        [v] = got["versions"]
        assert v["label"] == "talker" and v["games"], v
        ids = [g["game"] for g in v["games"]]
        assert set(ids) <= played and ids == sorted(ids, reverse=True)            # the latest games first
        assert all("talker in seat" in g["text"] for g in v["games"])
        assert sum(len(g["text"].encode()) for g in v["games"]) <= got["limit"]
        status, _, raw = call(served, "GET", "/api/entrants/talker/logs?version=1", headers=auth("bob"))
        assert status == 200 and json.loads(raw)["versions"] == got["versions"]
        # another owner's bot, no token, a wrong token, an unknown name or version: refused in one line
        for path, headers, code, words in [
            ("/api/entrants/talker/logs", auth("ann"), 403, "another owner"),
            ("/api/entrants/talker/logs", {}, 401, "token"),
            ("/api/entrants/talker/logs", auth(token="wrong-token"), 401, "not valid"),
            ("/api/entrants/nobody/logs", auth("bob"), 404, "no entrant"),
            ("/api/entrants/talker/logs?version=7", auth("bob"), 404, "no version 7"),
            ("/api/entrants/talker/logs?version=x", auth("bob"), 400, "version"),
        ]:
            status, _, raw = call(served, "GET", path, headers=headers)
            answer = json.loads(raw)
            assert status == code and set(answer) == {"error"} and words in answer["error"], (path, answer)
            assert "\n" not in answer["error"] and "talker in seat" not in raw.decode()
        # the cap holds
        from arena.ladder.web import service as module

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(module, "LOG_BYTES", 60)
            patch.setattr(module.Service.logs, "__defaults__", (60,))
            status, _, raw = call(served, "GET", "/api/entrants/talker/logs", headers=auth("bob"))
            small = json.loads(raw)["versions"][0]
            assert status == 200 and small["truncated"] and sum(len(g["text"].encode()) for g in small["games"]) <= 60
    finally:
        served.stop()


def _children() -> dict[int, str]:
    """pid -> command line of this process's children."""
    out = {}
    for pid, (_uid, cmd) in procs().items():
        try:
            with open(f"/proc/{pid}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid():
            out[pid] = cmd
    return out


def test_a_server_stopped_mid_validation_leaves_nothing_running(ladder):
    served = Served(ladder)
    stopped = False
    try:
        before = set(_children())
        entrants = [e.id for e in ladder.entrants()]
        bots_folder = os.path.join(ladder.folder, "bots")
        staged = {n for n in os.listdir(bots_folder) if n.startswith(".new-")}
        status, _, got = submit(served, {"name": "cutshort"}, "slow.py", slow_bot(time.time() + 300), auth("bob"),
                                wait=False)
        assert status == 202, got
        deadline = time.monotonic() + 60
        validation, bots = None, []
        while time.monotonic() < deadline and not bots:
            new = [pid for pid, cmd in _children().items() if pid not in before and "spawn_main" in cmd]
            if new:
                validation = new[0]
                bots = [pid for pid, (uid, cmd) in procs().items()
                        if uid >= UID_BASE and cmd.split()[-1:] == [str(validation)]]
            time.sleep(0.2)
        assert validation is not None and bots, "the validation's bots did not start"
        assert get_json(served, got["api"])[1]["state"] == "validating"
        started = time.monotonic()
        served.stop()
        stopped = True
        assert time.monotonic() - started < 20, "the server waited for the validation"
        grace = time.monotonic() + 10
        while True:
            left = [pid for pid, (uid, cmd) in procs().items()
                    if pid == validation or cmd.split()[-1:] == [str(validation)]]
            if not left or time.monotonic() > grace:
                break
            time.sleep(0.1)
        assert left == [], "processes of the validation are left"
        assert {n for n in os.listdir(bots_folder) if n.startswith(".new-")} == staged     # its files are removed
        assert [e.id for e in ladder.entrants()] == entrants
    finally:
        if not stopped:
            served.stop()
