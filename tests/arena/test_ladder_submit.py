"""Submissions under attack: two at once, a module that the parser chokes on,
an owner filling the disk or the schedule, names with a trailing newline, a
zip whose names collide, and damaged rows in a ladder's database. Each gets
a one-line answer, and nothing of one submission is lost to another."""

from __future__ import annotations

import io
import os
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from arena.ladder import Ladder, LadderRules
from arena.ladder.files import bot_classes, safe_name
from arena.ladder.folder import validate_name
from arena.types import ArenaError

PENGYOU = str(Path(sys.executable).with_name("pengyou"))

GOOD = """class Good:
    def restart(self, rules, seat, rng):
        self.rng = rng

    def step(self, view):
        return view.random_action(self.rng)
"""


def new_ladder(tmp_path: Path, **kw) -> Ladder:
    return Ladder.create(str(tmp_path / "lad"), LadderRules(players=5, **kw), secret="submit-tests")


def good(tag: str) -> bytes:
    """A legal bot whose code differs by ``tag``."""
    return (GOOD + f"\nTAG = {tag!r}\n").encode()


def one_line(proc: subprocess.CompletedProcess) -> str:
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("pengyou: error: "), proc.stderr
    return lines[0]


def test_two_submissions_at_once_keep_their_own_files(tmp_path):
    lad = new_ladder(tmp_path)
    srcs = []
    for who in ("ann", "bob"):
        path = tmp_path / f"{who}.py"
        path.write_bytes(good(who))
        srcs.append((who, path))
    procs = [subprocess.Popen([PENGYOU, "ladder", "submit", f"{path}:Good", "--name", f"{who}bot", "--owner", who,
                               "--ladder", lad.folder], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for who, path in srcs]
    outs = [p.communicate(timeout=240) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    rows = {e.name: e for e in lad.entrants()}
    assert set(rows) == {"annbot", "bobbot"} and rows["annbot"].id != rows["bobbot"].id
    for who, path in srcs:
        folder = lad.files_of(rows[f"{who}bot"])
        assert (Path(folder) / path.name).read_bytes() == path.read_bytes()     # its own code, where its spec says
    assert sorted(os.listdir(Path(lad.folder) / "bots")) == sorted(os.path.basename(lad.files_of(e))
                                                                    for e in rows.values())


def test_a_module_the_parser_chokes_on_is_read_in_a_child_and_refused_in_one_line(tmp_path):
    deep = tmp_path / "deep.py"
    deep.write_text("x = " + "-" * 200_000 + "1\n" + GOOD)
    with pytest.raises(ArenaError, match="too large or too deeply nested"):
        bot_classes(str(deep))
    assert bot_classes(str(deep), optional=True) is None
    lad = new_ladder(tmp_path)
    before = sorted(os.listdir(Path(lad.folder) / "bots"))
    with pytest.raises(ArenaError, match="name the bot class"):
        lad.submit(str(deep), name="deep", owner="ann")
    with pytest.raises(ArenaError, match="^refused: the validation deal"):   # named: the sandbox tells
        lad.submit(str(deep), name="deep", owner="ann", cls="Good")
    assert sorted(os.listdir(Path(lad.folder) / "bots")) == before and lad.entrants() == []
    bad = tmp_path / "bad.py"
    bad.write_text("class Good(:\n")
    with pytest.raises(ArenaError, match=r"^bad\.py: line 1: "):
        bot_classes(str(bad))


def test_an_owners_share_of_the_ladder_is_capped(tmp_path):
    lad = new_ladder(tmp_path, owner_active=2, owner_mb=1)
    src = tmp_path / "bot.py"
    src.write_bytes(good("one"))
    first = lad.submit(f"{src}", name="mine", owner="ann", cls="Good")
    with pytest.raises(ArenaError, match=r"the same code as mine, which is still playing"):
        lad.submit(f"{src}", name="mine", owner="ann", cls="Good")
    src.write_bytes(good("two"))
    lad.submit(f"{src}", name="mine", owner="ann", cls="Good")
    src.write_bytes(good("three"))
    with pytest.raises(ArenaError, match="has 2 active versions, the ladder's most; retire one first"):
        lad.submit(f"{src}", name="other", owner="ann", cls="Good")
    lad.submit(f"{src}", name="theirs", owner="bob", cls="Good")      # another owner's share is its own
    lad.retire("mine", "ann", first.version)
    folder = tmp_path / "big"
    folder.mkdir()
    (folder / "bot.py").write_bytes(good("big"))
    (folder / "weights.bin").write_bytes(os.urandom(900_000))
    lad.submit(str(folder), name="big", owner="ann", cls="Good")       # 0.9 MiB with the old ones: under 1
    lad.retire("big", "ann")
    (folder / "bot.py").write_bytes(good("bigger"))
    with pytest.raises(ArenaError, match=r"would hold 1\.\d MiB, over the ladder's 1 MiB an owner"):
        lad.submit(str(folder), name="big", owner="ann", cls="Good")   # retired versions' files count too
    assert [e.label for e in lad.entrants(active=True)] == ["mine@v2", "theirs"]
    with pytest.raises(ArenaError, match="owner_active"):
        LadderRules(owner_active=0).validate()


@pytest.mark.parametrize("name", ["ann\n", "ann\r", " ann", "ann/x", "", "a" * 41])
def test_names_are_whole_words(name):
    with pytest.raises(ArenaError, match="use 1 to 40 letters"):
        validate_name(name)


@pytest.mark.parametrize("name", ["bot.py\n", "sub\n/inner.txt", "data.txt\r"])
def test_file_names_are_whole_words(name):
    with pytest.raises(ArenaError, match="is not allowed"):
        safe_name(name)


def test_a_zip_whose_names_collide_is_refused_in_one_line(tmp_path):
    lad = new_ladder(tmp_path)
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as zf:
        zf.writestr("bot.py", GOOD)
        zf.writestr("a", "a file")
        zf.writestr("a/b", "and a file under it")
    data.seek(0)
    with pytest.raises(ArenaError, match="'a/b' cannot be placed"):
        lad.submit_zip(data, name="clash", owner="ann")
    assert os.listdir(Path(lad.folder) / "bots") == []


@pytest.mark.parametrize("sql, says", [
    ("UPDATE ladder SET rules_json = 'not json'", "the ladder's rules is not JSON"),
    ("UPDATE ladder SET rules_json = '[1, 2]'", "rules are not an object"),
    ("UPDATE ladder SET rules_json = json_set(rules_json, '$.players', 'five')", "its rules"),
    ("INSERT INTO ratings (at, games, rows_json) VALUES (0, 0, 'not json')", "a ratings snapshot is not JSON"),
])
def test_damaged_rows_get_one_line_and_are_left_as_they_are(tmp_path, sql, says):
    lad = new_ladder(tmp_path)
    lad.submit_builtin("random", name="rnd", owner="admin")
    lad.submit_builtin("heuristic", name="heur", owner="admin")
    con = sqlite3.connect(lad.db)
    con.execute(sql)
    con.commit()
    con.close()
    def kept() -> list:
        con = sqlite3.connect(lad.db)
        try:
            return [con.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()
                    for t in ("ladder", "entrants", "groups", "games", "ratings")]
        finally:
            con.close()

    before = kept()
    cmds = [["standings"], ["entrants"], ["run", "--games", "2"], ["submit", "--builtin", "random", "--name", "r2"]]
    if "ratings" in sql:
        cmds = [["run", "--games", "2"]]     # only the runner reads the kept ratings (for matchmaking)
    for cmd in cmds:
        proc = subprocess.run([PENGYOU, "ladder", *cmd, "--ladder", lad.folder], capture_output=True, text=True,
                              timeout=120)
        assert says in one_line(proc), (cmd, proc.stderr)
        assert "damaged" in proc.stderr
    assert kept() == before              # the damaged row is there as it was, and nothing was added


def test_submit_through_a_server_follows_the_validation_to_its_answer(tmp_path):
    import time

    from test_ladder_server import FAILING_BOT, Served, slow_bot

    lad = new_ladder(tmp_path)
    with lad.store() as st:
        st.add_owner("ann", "tok-ann-0123456789")
    slow = tmp_path / "slow.py"
    slow.write_bytes(slow_bot(time.time() + 4))
    failing = tmp_path / "failing.py"
    failing.write_bytes(FAILING_BOT)
    served = Served(lad)
    try:
        server = ["--server", served.url, "--token", "tok-ann-0123456789"]
        proc = subprocess.run([PENGYOU, "ladder", "submit", str(slow), "--name", "slowpoke", *server],
                              capture_output=True, text=True, timeout=240)
        row = next(e for e in lad.entrants() if e.name == "slowpoke")
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == f"accepted slowpoke, id {row.id}\n"            # the line it always printed
        assert proc.stderr.startswith("validating slowpoke on the server (the status: "), proc.stderr
        assert "/submissions/" in proc.stderr and "Traceback" not in proc.stderr
        proc = subprocess.run([PENGYOU, "ladder", "submit", str(failing), "--name", "failing", *server],
                              capture_output=True, text=True, timeout=240)
        assert proc.returncode == 2 and proc.stdout == "", proc
        last = proc.stderr.strip().splitlines()[-1]
        assert last.startswith("pengyou: error: the server refused (400): refused: the validation deal: seat ")
        assert last.endswith("this bot always fails (failing.py:6)") and "Traceback" not in proc.stderr
        assert [e.name for e in lad.entrants()] == ["slowpoke"]
    finally:
        served.stop()
