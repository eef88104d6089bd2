"""``pengyou duel``: duplicate seating, the per-seed arithmetic, reproducibility,
and one-line errors for bots that break."""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.tournament import duel
from arena.tournament import jobs
from arena.tournament.duel import mean_interval, play_game
from arena.tournament.duel import run_duel as _run_duel
from bots.base import load_bot_module, register
from bots import BotError
from core.rules import Rules

ROOT = Path(__file__).resolve().parents[2]
RULES = Rules.preset("pagat", players=5)

BOTS = textwrap.dedent('''
    from bots.random_bot import RandomBot

    SEEN = []

    class Seats(RandomBot):
        """Plays at random; notes each seat it is given."""
        def restart(self, rules, seat, rng):
            SEEN.append((type(self).__name__, seat))
            super().restart(rules, seat, rng)

    class Other(Seats):
        pass

    class Crash(Seats):
        def step(self, view):
            raise RuntimeError("boom")

    class Illegal(Seats):
        def step(self, view):
            return None

    class Init(Seats):
        def __init__(self):
            raise KeyError("k")

    class Inform(Seats):
        def inform(self, view, seat, action):
            return 1 / 0

    class SysExit(Seats):
        def step(self, view):
            raise SystemExit(4)

    class Exit(Seats):
        def step(self, view):
            import os
            os._exit(3)

    class Talk(Seats):
        """Says on stderr which seat decides."""
        def step(self, view):
            import sys
            print(f"TALK seat={self.seat}", file=sys.stderr, flush=True)
            return super().step(view)

    class InitExit(Seats):
        def __init__(self):
            import os
            os._exit(5)
''')


def run_duel(*args, **kw):
    """The duel with a fixed secret: its figures are then the same on every call
    (the command's default is a fresh random secret, kept by --save)."""
    kw.setdefault("secret", "t")
    return _run_duel(*args, **kw)


OPTS = {"secret": b"t", "trusted": "builtins", "time_limit": 5.0, "overage": 0.0}


@pytest.fixture()
def mod(tmp_path):
    path = tmp_path / "duelbots.py"
    path.write_text(BOTS)
    return str(path)


def test_each_bot_holds_each_hand_once(mod):
    from bots import make_bot

    seen = type(make_bot(f"{mod}:Seats")).__module__
    record = sys.modules[seen].SEEN
    record.clear()
    register("test-Seats")(load_bot_module(f"{mod}:Seats"))     # in this process, to see its seats
    register("test-Other")(load_bot_module(f"{mod}:Other"))
    for rotation in (0, 1):
        play_game(("test-Seats", "test-Other", RULES, 7, rotation, OPTS))
    assert len(record) == 2 * RULES.players
    first, second = record[:RULES.players], record[RULES.players:]
    a_seats = [{s for n, s in game if n == "Seats"} for game in (first, second)]
    b_seats = [{s for n, s in game if n == "Other"} for game in (first, second)]
    assert a_seats[0] == {0, 2, 4} and b_seats[0] == {1, 3}
    assert a_seats[1] == b_seats[0] and b_seats[1] == a_seats[0]   # the same hands, swapped


def test_per_seed_arithmetic(monkeypatch):
    # A's margin: seed-dependent, B's: rotation-dependent; games of one seed
    # are averaged before the differences and intervals are taken.
    def fake(item, res):
        seed, rot = item.tag
        return [float(seed % 7), float(rot * 10)], [float(rot), -1.0]

    monkeypatch.setattr(jobs, "play_item", lambda item, died=None: jobs.Played(item, None))   # nothing played
    monkeypatch.setattr(duel, "_scored", fake)
    res = run_duel("random", "heuristic", RULES, deals=5, seed=2, workers=1)
    seeds = [2 * 100_003 + d for d in range(5)]
    diffs = [s % 7 - 5.0 for s in seeds]
    assert res["deals"] == 5 and res["a"]["bot"] == "random" and res["b"]["bot"] == "heuristic"
    assert res["difference"]["card_margin"] == pytest.approx(mean_interval(diffs))
    assert res["a"]["game_points"] == {"mean": 0.5, "lo": 0.5, "hi": 0.5}
    assert res["b"]["card_margin"]["mean"] == 5.0
    assert res["difference"]["game_points"]["mean"] == 1.5
    assert res["deals_won"] == {"first": sum(1 for d in diffs if d > 0), "second": sum(1 for d in diffs if d < 0),
                                "even": sum(1 for d in diffs if d == 0)}


def test_mean_interval():
    iv = mean_interval([1.0, 2.0, 3.0, 4.0])
    half = 1.96 * math.sqrt((2.25 + 0.25 + 0.25 + 2.25) / 3 / 4)
    assert iv == pytest.approx({"mean": 2.5, "lo": 2.5 - half, "hi": 2.5 + half})
    assert mean_interval([3.0]) == {"mean": 3.0, "lo": -math.inf, "hi": math.inf}


def test_bots_that_never_make_trump_stop_the_duel_with_a_stall(mod):
    class Pass:                                   # never exposes: no trump is ever made
        def restart(self, rules, seat, rng):
            pass

        def step(self, view):
            return next(iter(view.legal_actions()))

    from bots.base import _REGISTRY

    _REGISTRY["test-pass"] = Pass
    try:
        with pytest.raises(BotError, match=r"^bot 'test-pass' in seat \d \(deal seed 100003, rotation 0\): "
                                          r"stall: passed all \d+ chances to make trump while the deal was "
                                          r"dealt 51 times"):
            play_game(("test-pass", "test-pass", RULES, 100003, 0, OPTS))
    finally:
        del _REGISTRY["test-pass"]


def test_same_seed_same_result_on_any_worker_count():
    one = run_duel("heuristic", "random", RULES, deals=3, seed=5, workers=1)
    two = run_duel("heuristic", "random", RULES, deals=3, seed=5, workers=2)
    assert one == two
    other = run_duel("heuristic", "random", RULES, deals=3, seed=6, workers=1)
    assert other != one


@pytest.mark.parametrize("cls,fragments", [
    ("Crash", [" in seat ", "(deal seed 100003, rotation 0): crash: step() raised RuntimeError: boom (duelbots.py:"]),
    ("Illegal", ["(deal seed 100003, rotation 0): illegal: step returned None, not an Action"]),
    ("Init", [": loading the bot raised KeyError: 'k' (duelbots.py:"]),
    ("Inform", [": crash: inform() raised ZeroDivisionError: division by zero"]),
    ("SysExit", [": crash: step() raised SystemExit: 4"]),
])
def test_a_broken_bot_stops_the_duel_with_one_line(mod, cls, fragments):
    spec = f"{mod}:{cls}"
    with pytest.raises(BotError) as exc:
        run_duel(spec, "random", RULES, deals=1, workers=1)
    text = str(exc.value)
    assert "\n" not in text and text.startswith(f"bot {spec!r}")
    for f in fragments:
        assert f in text, (f, text)


def test_the_command_reports_a_broken_bot_in_one_line(mod):
    for extra in ([], ["--json"], ["--workers", "2"]):
        p = subprocess.run([sys.executable, "-m", "arena", "duel", f"{mod}:Crash", "random", "--deals", "2",
                            "--players", "5", *extra],
                           cwd=ROOT, env=dict(os.environ, PYTHONUTF8="1"), capture_output=True, text=True,
                           timeout=120)
        assert p.returncode == 2 and p.stdout == "" and "Traceback" not in p.stderr
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        assert lines[-1].startswith("pengyou: error: bot ") and "RuntimeError: boom" in lines[-1]
        assert all("error" not in ln for ln in lines[:-1])     # at most the progress bar before it


# ------------------------------------------------------------------ --save and resume
def _figures(res):
    return {k: v for k, v in res.items() if k != "resumed"}


def test_a_saved_duel_resumes_and_extends_to_the_same_figures(tmp_path):
    path = tmp_path / "d.jsonl"
    whole = run_duel("heuristic", "random", RULES, deals=5, seed=3)
    first = run_duel("heuristic", "random", RULES, deals=3, seed=3, save=path)
    assert first["resumed"] == 0 and len(path.read_text().splitlines()) == 1 + 6
    again = run_duel("heuristic", "random", RULES, deals=5, seed=3, save=path)
    assert again["resumed"] == 6 and _figures(again) == _figures(whole)
    assert len(path.read_text().splitlines()) == 1 + 10
    fewer = run_duel("heuristic", "random", RULES, deals=2, seed=3, save=path)
    assert fewer["resumed"] == 4 and _figures(fewer) == _figures(run_duel("heuristic", "random", RULES, 2, 3))


def test_an_interrupted_duel_keeps_every_finished_game(tmp_path, monkeypatch):
    path = tmp_path / "d.jsonl"
    real = jobs.play_item
    calls = []

    def flaky(item, died=None):
        calls.append(item)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(item, died)

    monkeypatch.setattr(jobs, "play_item", flaky)
    with pytest.raises(KeyboardInterrupt):
        run_duel("heuristic", "random", RULES, deals=4, seed=3, save=path)
    monkeypatch.setattr(jobs, "play_item", real)
    assert len(path.read_text().splitlines()) == 1 + 3
    res = run_duel("heuristic", "random", RULES, deals=4, seed=3, save=path)
    assert res["resumed"] == 3
    assert _figures(res) == _figures(run_duel("heuristic", "random", RULES, deals=4, seed=3))


def test_a_killed_command_resumes(tmp_path):
    path = tmp_path / "d.jsonl"
    cmd = [sys.executable, "-m", "arena", "duel", "random", "random", "--deals", "400", "--players", "5",
           "--seed", "4", "--json", "--save", str(path), "--secret", "t", "--trusted", "builtins"]
    env = dict(os.environ, PYTHONUTF8="1")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import time

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if path.exists() and path.read_bytes().count(b"\n") >= 30:
                break
            time.sleep(0.01)
        assert proc.poll() is None, "the duel ended before it could be killed"
        proc.kill()
    finally:
        proc.wait()
    kept = path.read_bytes().count(b"\n") - 1        # whole game lines (a cut one has no newline)
    assert 29 <= kept < 800
    p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    import json

    res = json.loads(p.stdout)
    assert res["resumed"] >= kept                  # a line cut by the kill is dropped and its game replayed
    assert _figures(res) == _figures(run_duel("random", "random", RULES, deals=400, seed=4, workers=2,
                                              trusted="builtins"))


def test_cut_lines_at_the_end_are_mended(tmp_path):
    path = tmp_path / "d.jsonl"
    run_duel("heuristic", "random", RULES, deals=2, seed=3, save=path)
    full = path.read_bytes()
    lines = full.splitlines(keepends=True)
    # the last game's line cut short: dropped, the game replayed
    path.write_bytes(b"".join(lines[:-1]) + lines[-1][:15])
    assert run_duel("heuristic", "random", RULES, deals=2, seed=3, save=path)["resumed"] == 3
    assert path.read_bytes() == full
    # a whole last line without its newline: kept
    path.write_bytes(full[:-1])
    assert run_duel("heuristic", "random", RULES, deals=2, seed=3, save=path)["resumed"] == 4
    assert path.read_bytes() == full
    # the header cut short: started again
    path.write_bytes(lines[0][:20])
    assert run_duel("heuristic", "random", RULES, deals=2, seed=3, save=path)["resumed"] == 0
    assert path.read_bytes() == full


@pytest.mark.parametrize("content,args,fragment", [
    (None, {"spec_b": "heuristic"}, "holds another duel (b 'random', not 'heuristic')"),
    (None, {"seed": 9}, "holds another duel (seed 3, not 9)"),
    (None, {"rules": Rules.preset("pagat", players=6)}, "holds another duel (players 5, not 6;"),
    ("line3", {}, "line 3: not a game of this duel"),
    (b'{"results": []}\n', {}, "not a duel results file"),
    (b"\xff\xfe", {}, "not a duel results file"),
    (b"name,score\nme,3\n", {}, "not a duel results file"),
])
def test_a_save_file_that_does_not_fit_is_refused_and_kept(tmp_path, content, args, fragment):
    path = tmp_path / "d.jsonl"
    run_duel("heuristic", "random", RULES, deals=2, seed=3, save=path)
    if content == "line3":
        lines = path.read_bytes().splitlines(keepends=True)
        lines[2] = b'{"seed": "x"}\n'
        path.write_bytes(b"".join(lines))
    elif content is not None:
        path.write_bytes(content)
    before = path.read_bytes()
    kw = dict(spec_a="heuristic", spec_b="random", rules=RULES, deals=2, seed=3)
    kw.update(args)
    with pytest.raises(duel.DuelError) as exc:
        run_duel(save=path, **kw)
    assert fragment in str(exc.value) and "\n" not in str(exc.value)
    assert path.read_bytes() == before


def test_the_command_says_what_it_resumed(tmp_path):
    path = tmp_path / "d.jsonl"
    run_duel("heuristic", "random", RULES, deals=2, seed=1, save=path)
    p = subprocess.run([sys.executable, "-m", "arena", "duel", "heuristic", "random", "--deals", "3",
                        "--players", "5", "--save", str(path)],
                       cwd=ROOT, env=dict(os.environ, PYTHONUTF8="1"), capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert f"  4 of 6 games taken from {path}" in p.stdout.splitlines()


def test_a_bot_that_ends_its_process_stops_the_duel_and_keeps_the_games(mod, tmp_path):
    path = tmp_path / "d.jsonl"
    with pytest.raises(BotError) as exc:
        run_duel(f"{mod}:Exit", "random", RULES, deals=3, workers=2, save=path)
    text = str(exc.value)
    assert ": died: its process ended (exit code 3)" in text and "\n" not in text
    assert path.read_text().startswith('{"duel": 1')


def test_a_bot_that_ends_the_process_when_built_is_refused_first(mod):
    with pytest.raises(BotError, match=r"its process ended before answering hello \(exit code 5\)$"):
        run_duel(f"{mod}:InitExit", "random", RULES, deals=1, workers=1)


# ------------------------------------------------------------------ bots' stderr
def _duel_cmd(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena", "duel", *args, "--players", "5", "--secret", "t"],
                          cwd=ROOT, env=dict(os.environ, PYTHONUTF8="1"), capture_output=True, text=True,
                          timeout=180)


def test_the_duel_keeps_bots_stderr_beside_the_save_file_per_side_and_seat(mod, tmp_path):
    import json

    from arena.table.remote import log_name

    path = tmp_path / "d.jsonl"
    p = _duel_cmd(f"{mod}:Talk", "random", "--deals", "2", "--json", "--save", str(path))
    assert p.returncode == 0, p.stderr
    folder = Path(f"{path}.logs")
    assert json.loads(p.stdout)["logs"] == str(folder)
    sides = sorted(d.name for d in folder.iterdir())
    assert sides == [log_name(f"a-{mod}:Talk")]    # random writes nothing (the name is cut at 80 characters)
    seats = {int(f.stem.split("-")[1]): f.read_text() for f in (folder / sides[0]).glob("seat-*.log")}
    assert set(seats) == {0, 1, 2, 3, 4}       # A holds the even seats, then the odd ones
    for seat, text in seats.items():
        jobs = [ln for ln in text.splitlines() if ln.startswith("--- job ")]
        assert jobs and all(j.endswith(f"-r{seat % 2} ---") for j in jobs), (seat, jobs)
        assert len(jobs) == 2                  # one game of each of the two deals in that rotation
        talk = {ln for ln in text.splitlines() if ln.startswith("TALK")}
        assert talk == {f"TALK seat={seat}"}
    p = _duel_cmd(f"{mod}:Talk", "random", "--deals", "2", "--save", str(path), "--logs", str(tmp_path / "elsewhere"))
    assert p.returncode == 0, p.stderr
    assert "  bot logs in " not in p.stdout    # every game resumed from the file: none played, nothing written
    p = _duel_cmd(f"{mod}:Talk", "random", "--deals", "1", "--logs", str(tmp_path / "mine"))
    assert p.returncode == 0, p.stderr
    assert f"  bot logs in {tmp_path / 'mine'}" in p.stdout.splitlines()
    assert (tmp_path / "mine" / sides[0] / "seat-0.log").read_text().count("TALK seat=0") > 0


def test_bot_logs_are_capped_as_in_arena_run(mod, tmp_path):
    from arena.tournament.runner import BotLogs
    from arena.types import JobResult

    logs = BotLogs(str(tmp_path / "logs"), duel.duel_log_names(f"{mod}:Talk", "random"), 100)
    for _ in range(3):
        logs.keep(JobResult(key="s1-r0", group=0, seats=(0, 1, 0, 1, 0), deals=(), logs=((0, 2, b"x" * 60),)))
    (side,) = (tmp_path / "logs").iterdir()
    text = (side / "seat-2.log").read_text()
    assert text.endswith("[... the log is full]\n") and text.count("x") < 100


def test_a_logs_path_that_is_a_file_is_refused_in_one_line(tmp_path):
    f = tmp_path / "file"
    f.write_text("")
    p = _duel_cmd("random", "random", "--deals", "1", "--logs", str(f))
    assert p.returncode == 2 and p.stderr.strip().splitlines()[-1] == f"pengyou: error: duel: --logs {f}: not a folder"


# ------------------------------------------------------------------ names, the table and what it says
def _rows(stdout: str) -> list[str]:
    """The printed table's header and three rows (the difference, then each bot)."""
    lines = stdout.splitlines()
    at = next(i for i, ln in enumerate(lines) if "card margin" in ln and "game points" in ln)
    return lines[at:at + 4]


def test_name_equals_spec_names_the_bot_in_the_table_json_and_logs(mod, tmp_path):
    import json

    p = _duel_cmd("mine=random", "heuristic", "--deals", "1", "--trusted", "builtins")
    assert p.returncode == 0, p.stderr
    head, diff, first, second = _rows(p.stdout)
    assert diff.split()[:3] == ["first", "-", "second"]          # the difference is the headline
    assert first.split()[:2] == ["first", "mine"] and second.split()[:2] == ["second", "heuristic"]
    assert "random" not in p.stdout.split("first - second:")[0]
    p = _duel_cmd("mine=random", "heuristic", "--deals", "1", "--trusted", "builtins", "--json")
    res = json.loads(p.stdout)
    assert (res["a"]["name"], res["a"]["bot"]) == ("mine", "random")
    assert (res["b"]["name"], res["b"]["bot"]) == ("heuristic", "heuristic")
    # the logs' folders are named by the name; the save file keeps the specs, so a name never refuses it
    path = tmp_path / "d.jsonl"
    p = _duel_cmd(f"talker={mod}:Talk", "random", "--deals", "1", "--json", "--save", str(path))
    assert p.returncode == 0, p.stderr
    assert sorted(d.name for d in Path(f"{path}.logs").iterdir()) == ["a-talker"]
    assert json.loads(path.read_text().splitlines()[0])["a"] == f"{mod}:Talk"
    again = run_duel(f"{mod}:Talk", "random", RULES, deals=1, save=path, secret=None)
    assert again["resumed"] == 2 and again["a"]["name"] == f"{mod}:Talk"


def test_a_long_program_spec_keeps_the_table_aligned(tmp_path):
    import json

    folder = tmp_path / ("a-folder-with-a-rather-long-name-" * 3)
    folder.mkdir()
    shutil.copy(ROOT / "docs" / "examples" / "standalone_bot.py", folder / "my_bot.py")
    spec = f"cmd:{os.path.realpath(sys.executable)} {folder / 'my_bot.py'} --coalesce"
    assert len(spec) > 150
    for a, b in ((spec, "random"), ("random", spec), (f"prog={spec}", "random")):
        p = _duel_cmd(a, b, "--deals", "1")
        assert p.returncode == 0, p.stderr
        rows = _rows(p.stdout)
        assert max(len(r) for r in rows) < 120, rows
        cells = [[i for i, c in enumerate(r) if c == "["] for r in rows[1:]]
        assert cells[0] == cells[1] == cells[2] and len(cells[0]) == 2, rows     # both columns, in every row
        assert rows[0].index("card margin") == cells[0][0] - 9                 # the header over its column
        assert rows[0].index("game points") == cells[0][1] - 9
        shown = [r.split()[1] for r in rows[2:]]
        if a.startswith("prog="):
            assert shown == ["prog", "random"]
        else:
            long = rows[2] if a == spec else rows[3]
            assert "..." in long and long.rstrip().count("my_bot.py --coalesce") == 1
    p = _duel_cmd(spec, "random", "--deals", "1", "--json")
    res = json.loads(p.stdout)
    assert res["a"]["name"] == res["a"]["bot"] == spec              # --json keeps it whole


def test_the_table_says_what_each_row_means():
    p = _duel_cmd("heuristic", "random", "--deals", "2", "--trusted", "builtins")
    assert p.returncode == 0, p.stderr
    text = " ".join(p.stdout.split())
    assert ("first - second: the first bot's result minus the second's, deal by deal, on the same cards "
            "(each bot held each hand once); the mean over 2 deals, with its 95 % interval.") in text
    assert ("first, second: each bot's own mean, that of the side each of its seats ended on (card margin: "
            "that side's card points minus the other side's; game points: plus for a win), with its 95 % "
            "interval; both bots sit on both sides, so it is not a margin against the other bot.") in text


def test_table_cells_fit_any_name():
    from arena.commands.duel import LABEL_WIDTH, _width, cell, table_lines

    iv = {"mean": -1.5, "lo": -120.25, "hi": 3.0}
    bot = {"card_margin": iv, "game_points": iv}
    for name in ("x", "a\nb\tc\x1b[31m", "n" * 300, "朋友" * 40, "é" * 60):
        res = {"deals": 3, "a": {"name": name, **bot}, "b": {"name": "random", **bot}, "difference": bot}
        lines = table_lines(res)
        assert all("\n" not in ln and "\x1b" not in ln for ln in lines)
        shown = cell(name)
        assert len(shown) <= LABEL_WIDTH and shown in lines[2]
        assert len({_width(ln[:ln.index(" [")]) for ln in lines[1:4]}) == 1, lines     # in a terminal's columns
    assert cell("朋友" * 40).count("朋") < 20                    # a wide character takes two columns
    assert cell("x" * 41) == "x" * 12 + "..." + "x" * 25


@pytest.mark.parametrize("a,b,fragment", [
    ("=random", "heuristic", "bot '=random': no NAME before '='"),
    (" =random", "heuristic", "bot ' =random': no NAME before '='"),
    ("x=", "heuristic", "bot 'x=': bot spec '': expected a bot name"),
    ("x=random", "x=heuristic", "both bots are named 'x'; give each its own NAME (NAME=SPEC)"),
    ("random=heuristic", "random", "both bots are named 'random'; give each its own NAME (NAME=SPEC)"),
    ("x=nosuch", "random", "unknown bot 'nosuch'"),
])
def test_bad_names_are_refused_in_one_line(a, b, fragment):
    p = _duel_cmd(a, b, "--deals", "1", "--trusted", "builtins")
    assert p.returncode == 2 and p.stdout == "" and "Traceback" not in p.stderr
    assert p.stderr.splitlines() == [f"pengyou: error: {fragment}" + p.stderr.split(fragment, 1)[1].rstrip("\n")]
    if "nosuch" not in a:
        with pytest.raises(duel.DuelError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
            duel.duel_entrants(a, b)


def test_a_bot_may_meet_itself_unnamed():
    assert duel.duel_entrants("random", "random")[0] == duel.duel_entrants("random", "random")[1]
    assert duel.duel_entrants("ismcts:iterations=50", "fast=ismcts:iterations=50")[1].name == "fast"
