"""The ladder with real sandboxed processes: submission and validation,
continuous rounds, the fitted order of known strengths, a hostile entrant,
resubmitted versions, a submission picked up while the ladder runs, kill -9
of the runner and resume, and one-line errors for bad input."""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import pytest

from arena.sandbox.jail import UID_BASE
from arena.ladder import Ladder, LadderRules, ratings, run_ladder
from arena.ladder.files import MAX_FILES
from arena.ladder.rounds import pick_pairs
from arena.table.table import outcome_of
from arena.types import ArenaError
from core.records import read_records, replay_deal
from test_hostile import procs

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "arena" / "hostile"
EXAMPLES = ROOT / "docs" / "examples"
PENGYOU = str(Path(sys.executable).with_name("pengyou"))

RANDOMISH = '''
class Randomish:
    """A user's bot: a random legal action (VERSION)."""

    def restart(self, rules, seat, rng):
        self.rng = rng

    def step(self, view):
        return view.random_action(self.rng)
'''

LOW = '''
class LowBot:
    """A user's bot: its lowest legal cards in play, random elsewhere."""

    def restart(self, rules, seat, rng):
        self.rng = rng

    def step(self, view):
        acts = list(view.legal_actions())
        plays = [a for a in acts if str(a).startswith("play")]
        if not plays:
            return self.rng.choice(acts)
        return min(plays, key=lambda a: (len(a.cards), tuple(a.cards)))
'''


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


def tree_hash(folder: Path) -> dict[str, str]:
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            out[str(p.relative_to(folder))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def bot_processes() -> list[int]:
    """Processes of the sandbox's bot users (uid from UID_BASE)."""
    return [pid for pid, (uid, _cmd) in procs().items() if uid >= UID_BASE]


def no_bots_left(grace: float = 5.0) -> list[int]:
    deadline = time.monotonic() + grace
    while True:
        left = bot_processes()
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def new_ladder(tmp_path: Path, players: int = 6, **kw) -> Ladder:
    return Ladder.create(str(tmp_path / "lad"), LadderRules(players=players, **kw), secret="test-ladder")


def replay_checked(lad: Ladder) -> int:
    """Every game's record replays, and an unforfeited deal's stored outcome
    is the replay's; the number of games checked."""
    with lad.store(read_only=True) as st:
        games = st.games()
        n = 0
        for g in games:
            _, text = st.game(g.id)
            state = replay_deal(read_records(io.StringIO(text)))
            deal = g.result.deals[0]
            if deal.forfeit < 0:
                assert outcome_of(state, g.result.seats) == deal, g.id
            n += 1
    return n


# ------------------------------------------------------------------ the order of strengths
def test_six_entrants_fitted_order_and_a_hostile_one(tmp_path: Path) -> None:
    """Built-ins at growing strengths, two user modules and a hostile bot:
    the fit puts the built-ins in their known order, the hostile bot faults
    (recorded by kind, forfeited: it ranks last), none of its attacks works,
    no stored file changes, every record replays to its stored outcome."""
    lad = new_ladder(tmp_path, time_limit=2.0, overage=10.0)
    known = ["random", "heuristic", "ismcts:iterations=150", "ismcts:iterations=1000"]
    for spec in known:
        lad.submit_builtin(spec, name=spec.replace(":iterations=", ""), owner="admin")
    lad.submit(str(write(tmp_path / "randomish.py", RANDOMISH)), name="randomish", owner="ann")
    lad.submit(str(write(tmp_path / "low.py", LOW)), name="low", owner="bob")
    rogue = lad.submit(str(HOSTILE / "ladder_rogue.py"), name="rogue", owner="eve")
    bots_before = tree_hash(Path(lad.folder) / "bots")
    listing_before = sorted(os.listdir(lad.folder))

    summary = run_ladder(lad, workers=2, games=240, seed=7)
    assert summary.games >= 240 and summary.twice == 0 and summary.failed == 0, summary

    games, rows = ratings(lad, samples=300)
    assert games == summary.games
    by_label = {r.label: r for r in rows}
    order = [r.label for r in rows]
    fitted = [lab for lab in order if lab in {s.replace(":iterations=", "") for s in known}]
    shown = [(r.label, round(r.elo), round(r.lo), round(r.hi)) for r in rows]
    # 240 games resolve the strong from the weak, not neighbours (ismcts150 and heuristic trade places
    # from run to run, as the rounds' refits fall): the fit may never put a weaker built-in above a
    # stronger one with separated 95 % intervals, and random is last of them, clearly below ismcts1000
    strength = ["ismcts1000", "ismcts150", "heuristic", "random"]
    for i, strong in enumerate(strength):
        for weak in strength[i + 1:]:
            assert not by_label[weak].lo > by_label[strong].hi, (strong, weak, shown)
    assert fitted[-1] == "random" and by_label["random"].hi < by_label["ismcts1000"].lo, shown
    assert order[-1] == "rogue", [(r.label, round(r.elo)) for r in rows]

    with lad.store(read_only=True) as st:
        rogue_faults = st.faults_of(rogue.id)
        others = [f for r in st.entrants() if r.id != rogue.id for f in st.faults_of(r.id)]
    assert others == []
    kinds = {f.kind for _, f in rogue_faults}
    assert kinds <= {"crash", "illegal", "memory"} and len(kinds) >= 2, kinds
    assert not [f for _, f in rogue_faults if "ATTACK WORKED" in f.message]
    assert sum(by_label["rogue"].faults.values()) == len(rogue_faults)
    assert tree_hash(Path(lad.folder) / "bots") == bots_before
    # SQLite's own -wal and -shm files may stay after a read-only reader (it may not remove them)
    assert sorted(f for f in os.listdir(lad.folder) if not f.endswith(("-wal", "-shm"))) == listing_before
    assert replay_checked(lad) == summary.games
    assert no_bots_left() == []


# ------------------------------------------------------------------ versions
def test_resubmission_is_a_new_version_with_its_own_rating(tmp_path: Path) -> None:
    lad = new_ladder(tmp_path, players=5)
    lad.submit_builtin("random", name="rnd", owner="admin")
    src = write(tmp_path / "mine.py", RANDOMISH.replace("VERSION", "one"))
    v1 = lad.submit(str(src), name="mine", owner="ann", note="first try")
    run_ladder(lad, games=10, seed=1)
    write(src, RANDOMISH.replace("VERSION", "two"))
    v2 = lad.submit(str(src), name="mine", owner="ann", note="second")
    assert (v1.version, v2.version) == (1, 2) and v1.code_hash != v2.code_hash and v2.label == "mine@v2"
    run_ladder(lad, rounds=2, seed=2)
    _, rows = ratings(lad, samples=50)
    by = {r.label: r for r in rows}
    assert by["mine"].deals > 0 and by["mine@v2"].deals > 0
    with lad.store(read_only=True) as st:
        first_games = {g.id for g in st.games_of(v1.id, 1000)}
        second_games = {g.id for g in st.games_of(v2.id, 1000)}
    assert first_games and second_games and first_games != second_games
    # the old version keeps its games when it is retired, and is no longer scheduled
    lad.retire("mine", "ann", version=1)
    with lad.store(read_only=True) as st:
        before = len(st.games_of(v1.id, 1000))
    run_ladder(lad, rounds=1, seed=3)
    with lad.store(read_only=True) as st:
        assert len(st.games_of(v1.id, 1000)) == before
        assert st.entrant(v1.id).retired is not None and st.entrant(v2.id).retired is None


# ------------------------------------------------------------------ a submission while it runs
def _cli(*args: str, timeout: float = 120, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([PENGYOU, *args], capture_output=True, text=True, timeout=timeout, **kw)


def _wait(pred, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def _games(db: Path) -> list[tuple]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return con.execute("SELECT id, group_id, rotation, seats_json, result_json FROM games ORDER BY id").fetchall()
    finally:
        con.close()


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)        # as Ctrl-C under pengyou (SIGINT is ignored in a background job)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_submission_during_a_run_plays_in_the_next_round(tmp_path: Path) -> None:
    lad = new_ladder(tmp_path, players=5)
    for spec in ("random", "heuristic"):
        lad.submit_builtin(spec, name=spec, owner="admin")
    db = Path(lad.db)
    proc = subprocess.Popen([PENGYOU, "ladder", "run", "--ladder", lad.folder, "--until-stopped", "--groups", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait(lambda: len(_games(db)) >= 10, 120, "the first games")
        p = _cli("ladder", "submit", str(write(tmp_path / "late.py", LOW)), "--name", "late", "--owner", "ann",
                 "--ladder", lad.folder)
        assert p.returncode == 0, p.stderr
        late = [e for e in lad.entrants() if e.name == "late"][0]

        def late_played() -> bool:
            with lad.store(read_only=True) as st:
                return bool(st.games_of(late.id, 1))

        _wait(late_played, 120, "a game of the late submission")
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
        try:
            first_round = con.execute("SELECT min(round) FROM groups WHERE a = ? OR b = ?",
                                      (late.id, late.id)).fetchone()[0]
            # the last round scheduled before the submission was accepted
            round_then = con.execute("SELECT coalesce(max(round), 0) FROM groups WHERE created < ?",
                                     (late.created,)).fetchone()[0]
        finally:
            con.close()
        # the round under way when it came in may not know it; the next one plays it
        assert first_round <= round_then + 1, (first_round, round_then)
    finally:
        _stop(proc)
    out, err = proc.communicate()
    assert proc.returncode == 0, err[-2000:]
    assert "Traceback" not in err
    assert no_bots_left() == []


# ------------------------------------------------------------------ kill -9 and resume
def test_kill_9_of_the_runner_loses_and_doubles_nothing(tmp_path: Path) -> None:
    lad = new_ladder(tmp_path, players=5)
    lad.submit_builtin("random", name="random", owner="admin")
    lad.submit_builtin("heuristic", name="heuristic", owner="admin")
    lad.submit(str(write(tmp_path / "low.py", LOW)), name="low", owner="bob")
    db = Path(lad.db)
    rng = random.Random(5)
    seen: dict[int, tuple] = {}
    trials = 8
    for trial in range(trials):
        proc = subprocess.Popen([PENGYOU, "ladder", "run", "--ladder", lad.folder, "--until-stopped",
                                 "--workers", "2", "--groups", "3"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            time.sleep(rng.uniform(1.0, 4.0))
        finally:
            proc.kill()                              # SIGKILL: no chance to clean up
            proc.wait()
        assert no_bots_left() == [], f"trial {trial}: bot processes outlived the runner"
        rows = _games(db)
        now = {r[0]: r for r in rows}
        for gid, row in seen.items():                # nothing written before is lost or changed
            assert now.get(gid) == row, (trial, gid)
        seen = now
        keys = [(r[1], r[2]) for r in rows]
        assert len(keys) == len(set(keys)), f"trial {trial}: a game stored twice"
    played_before = len(seen)
    summary = run_ladder(lad, workers=2, rounds=2, seed=9)
    rows = _games(db)
    assert len(rows) == played_before + summary.games
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        over = con.execute("SELECT g.id FROM groups g JOIN games m ON m.group_id = g.id "
                           "GROUP BY g.id HAVING count(*) > g.rotations").fetchall()
        open_groups = con.execute("SELECT g.id FROM groups g LEFT JOIN games m ON m.group_id = g.id "
                                  "WHERE g.abandoned = 0 GROUP BY g.id HAVING count(m.id) < g.rotations").fetchall()
    finally:
        con.close()
    assert over == [] and open_groups == []         # every group finished, none over-counted
    games, rows_r = ratings(lad, samples=20)
    assert games == len(rows) and sum(r.deals for r in rows_r) >= len(rows)
    assert replay_checked(lad) == len(rows)
    assert no_bots_left() == []


# ------------------------------------------------------------------ matchmaking
def test_pick_pairs_serves_the_neediest_against_a_near_rating() -> None:
    from arena.ladder.fits import RatingRow
    from arena.ladder.store import EntrantRow

    def ent(i: int) -> EntrantRow:
        return EntrantRow(i, f"e{i}", 1, "o", "builtin", "random", "h", "", 0.0, None)

    def rated(i: int, elo: float, deals: int, width: float) -> RatingRow:
        return RatingRow(i, f"e{i}", f"e{i}", 1, "o", elo, elo - width / 2, elo + width / 2, deals, False, False, {})

    active = [ent(i) for i in range(1, 6)]
    table = {1: rated(1, -300, 500, 60), 2: rated(2, 0, 500, 60), 3: rated(3, 40, 500, 60),
             4: rated(4, 400, 500, 60)}                        # 5 is new: no rating, no deals
    pairs = pick_pairs(active, table, {}, 3, random.Random(1))
    assert pairs[0][0] == 5                                    # the new entrant first
    assert len(pairs) == 3 and all(a != b for a, b in pairs)
    # among the rated: the widest interval goes first, against the nearest rating
    table[3] = rated(3, 40, 500, 300)
    pairs = pick_pairs(active[:4], table, {}, 1, random.Random(1))
    assert pairs == [(3, 2)]
    # a pair that met often is passed over for a slightly farther one
    pairs = pick_pairs(active[:4], table, {(2, 3): 10}, 1, random.Random(1))
    assert pairs == [(3, 1)]


# ------------------------------------------------------------------ one owner's entrants never meet
OWNERS_TABLE = [
    # (entrants as (id, owner, kind)), every pair (lower id first) that may be picked
    ([(1, "ann", "module"), (2, "ann", "module")], set()),                        # two bots: they wait
    ([(1, "ann", "module"), (2, "ann", "program")], set()),                       # two versions of one bot
    ([(1, "ann", "module"), (2, "ann", "module"), (3, "bob", "module")], {(1, 3), (2, 3)}),
    ([(1, "ann", "module"), (2, "ann", "module"), (3, "bob", "module"), (4, "bob", "folder")],
     {(1, 3), (1, 4), (2, 3), (2, 4)}),
    ([(1, "ann", "module"), (2, "ann", "module"), (3, "ann", "builtin")], {(1, 3), (2, 3)}),   # the ladder's own
    ([(1, "admin", "builtin"), (2, "admin", "builtin")], {(1, 2)}),
    ([(1, "ann", "module")], set()),
]


@pytest.mark.parametrize("rows, allowed", OWNERS_TABLE)
def test_pick_pairs_never_seats_two_submissions_of_one_owner(rows, allowed) -> None:
    from arena.ladder.store import EntrantRow

    active = [EntrantRow(i, f"e{i}", 1, owner, kind, "x", "h", "", 0.0, None) for i, owner, kind in rows]
    seen = set()
    for seed in range(20):
        for count in (1, 3, 8):
            pairs = pick_pairs(active, {}, {}, count, random.Random(seed), deals={1: seed % 3})
            assert len(pairs) == (count if allowed else 0), (rows, pairs)
            seen |= {(min(p), max(p)) for p in pairs}
    assert seen == allowed, (rows, seen)          # every allowed pairing is tried, no other


def test_a_ladder_of_one_owners_entrants_says_why_nothing_plays(tmp_path: Path) -> None:
    lad = new_ladder(tmp_path, players=5)
    for name, text in (("randomish", RANDOMISH), ("low", LOW)):
        lad.submit(str(write(tmp_path / f"ann_{name}.py", text)), name=f"ann-{name}", owner="ann")
    with pytest.raises(ArenaError, match="no two of its 2 active entrants may meet"):
        run_ladder(lad, rounds=1, seed=1)


def test_a_ladder_run_never_stores_a_game_between_one_owners_entrants(tmp_path: Path) -> None:
    lad = new_ladder(tmp_path, players=5)
    owner = {}
    for who in ("ann", "bob"):
        for name, text in (("randomish", RANDOMISH), ("low", LOW)):
            row = lad.submit(str(write(tmp_path / f"{who}_{name}.py", text)), name=f"{who}-{name}", owner=who)
            owner[row.id] = who
    summary = run_ladder(lad, rounds=3, groups_per_round=3, seed=11)
    assert summary.games >= 3 * 5 and summary.failed == 0, summary
    with lad.store(read_only=True) as st:
        pairs = [g.pair for g in st.games()]
    assert len(pairs) == summary.games
    assert all(owner[a] != owner[b] for a, b in pairs), sorted({(owner[a], owner[b]) for a, b in pairs})
    assert {e for p in pairs for e in p} == set(owner)         # every entrant played
    assert replay_checked(lad) == summary.games
    assert my_bots_left() == []


def my_bots_left(grace: float = 5.0) -> list[int]:
    """Bot processes whose fork server this test process started (its
    command line ends with the referee's pid), after ``grace`` seconds:
    other jobs on the machine may be running bots of their own."""
    deadline = time.monotonic() + grace
    while True:
        left = [pid for pid, (uid, cmd) in procs().items()
                if uid >= UID_BASE and cmd.split()[-1:] == [str(os.getpid())]]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


# ------------------------------------------------------------------ bad input
def one_line(p: subprocess.CompletedProcess) -> str:
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("pengyou: error:") and "Traceback" not in p.stderr, p.stderr
    return lines[0]


def test_bad_input_gets_one_line_and_loses_nothing(tmp_path: Path) -> None:
    lad = new_ladder(tmp_path, players=5)
    lad.submit_builtin("random", name="rnd", owner="admin")
    ok = lad.submit(str(write(tmp_path / "ok.py", LOW)), name="mine", owner="ann")
    folder = lad.folder
    before = tree_hash(Path(folder) / "bots")
    entrants_before = [e.to_json() for e in lad.entrants()]

    assert "no ladder at" in one_line(_cli("ladder", "standings", "--ladder", str(tmp_path / "nope")))
    assert "belongs to another owner" in one_line(
        _cli("ladder", "submit", str(tmp_path / "ok.py"), "--name", "mine", "--owner", "bob", "--ladder", folder))
    crash = write(tmp_path / "crash.py", """
        class Crash:
            def restart(self, rules, seat, rng):
                pass

            def step(self, view):
                raise ValueError("no idea")
        """)
    msg = one_line(_cli("ladder", "submit", str(crash), "--name", "crashy", "--owner", "bob", "--ladder", folder))
    assert "refused" in msg and "crash" in msg and "no idea" in msg
    never = write(tmp_path / "never.py", """
        class Never:
            def restart(self, rules, seat, rng):
                pass

            def step(self, view):
                acts = list(view.legal_actions())
                passes = [a for a in acts if str(a) == "pass"]
                return (passes or acts)[0]  # "pass" whenever it may: never makes trump
        """)
    msg = one_line(_cli("ladder", "submit", str(never), "--name", "never", "--owner", "bob", "--ladder", folder))
    assert "refused" in msg
    syntax = tmp_path / "syntax.py"
    syntax.write_text("class Broken(:\n")
    assert "syntax.py: line 1" in one_line(
        _cli("ladder", "submit", str(syntax), "--name", "broken", "--owner", "bob", "--ladder", folder))
    two = write(tmp_path / "two.py", RANDOMISH + RANDOMISH.replace("Randomish", "Other"))
    assert "name the bot class" in one_line(
        _cli("ladder", "submit", str(two), "--name", "two", "--owner", "bob", "--ladder", folder))
    assert "no such file" in one_line(
        _cli("ladder", "submit", str(tmp_path / "absent.py"), "--name", "x", "--owner", "bob", "--ladder", folder))
    assert "use 1 to 40 letters" in one_line(
        _cli("ladder", "submit", "--builtin", "random", "--name", "../evil", "--ladder", folder))
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as zf:
        zf.writestr("bot.py", LOW)
        zf.writestr("../outside.py", "x = 1\n")
    assert "is not allowed" in one_line(
        _cli("ladder", "submit", str(evil), "--name", "evil", "--owner", "bob", "--ladder", folder))
    assert not (Path(folder) / "outside.py").exists() and not (tmp_path / "outside.py").exists()
    many = tmp_path / "many"
    many.mkdir()
    (many / "bot.py").write_text(LOW)
    for i in range(MAX_FILES + 1):
        (many / f"data{i}.txt").write_text("x")
    assert "more than" in one_line(
        _cli("ladder", "submit", str(many), "--name", "many", "--owner", "bob", "--ladder", folder))
    assert "say how long" in one_line(_cli("ladder", "run", "--ladder", folder))
    assert tree_hash(Path(folder) / "bots") == before          # nothing of a refused submission is kept
    assert [e.to_json() for e in lad.entrants()] == entrants_before
    assert sorted(os.listdir(Path(folder) / "bots")) == sorted(os.path.basename(lad.files_of(e))
                                                               for e in lad.entrants() if e.kind != "builtin")
    assert ok.id in {e.id for e in lad.entrants()}

    # a corrupt database: one line, and the file is left as it was
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "ladder.db").write_bytes(b"SQLite format 3\x00" + os.urandom(4000))
    raw = (bad / "ladder.db").read_bytes()
    msg = one_line(_cli("ladder", "standings", "--ladder", str(bad)))
    assert "ladder.db" in msg
    assert (bad / "ladder.db").read_bytes() == raw
    # a results database is not a ladder's
    other = tmp_path / "other"
    other.mkdir()
    from arena.store import Store

    Store(str(other / "ladder.db")).close()
    assert "not a pengyou ladder database" in one_line(_cli("ladder", "standings", "--ladder", str(other)))


def test_a_folder_submission_reads_its_own_data_only(tmp_path: Path) -> None:
    """A zip with a data file: the bot reads it in the sandbox (a bot folder),
    but not the files of another entrant."""
    lad = new_ladder(tmp_path, players=5)
    lad.submit_builtin("random", name="rnd", owner="admin")
    first = lad.submit(str(write(tmp_path / "low.py", LOW)), name="low", owner="bob")
    other_file = Path(lad.folder) / "bots" / str(first.id) / "low.py"
    code = f'''
import os

HERE = os.path.dirname(os.path.abspath(__file__))


class DataBot:
    def restart(self, rules, seat, rng):
        self.rng = rng
        with open(os.path.join(HERE, "table.json")) as fh:
            self.table = fh.read()
        try:
            open({str(other_file)!r}).read()
            self.leak = True
        except OSError:
            self.leak = False

    def step(self, view):
        if self.table != '{{"k": 1}}':
            raise RuntimeError("its own data file could not be read")
        if self.leak:
            raise RuntimeError("ATTACK WORKED: read another entrant's code")
        return view.random_action(self.rng)
'''
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("bot.py", code)
        zf.writestr("table.json", '{"k": 1}')
    buf.seek(0)
    row = lad.submit_zip(buf, name="data", owner="ann")
    assert row.kind == "module"
    summary = run_ladder(lad, rounds=1, seed=4)
    with lad.store(read_only=True) as st:
        assert st.faults_of(row.id) == [] and summary.games > 0


def test_a_program_entrant(tmp_path: Path) -> None:
    """The stand-alone example (a program that does not import pengyou) enters and plays."""
    lad = new_ladder(tmp_path, players=5)
    lad.submit_builtin("random", name="rnd", owner="admin")
    row = lad.submit(str(EXAMPLES / "standalone_bot.py"), name="solo", owner="ann")
    assert row.kind == "program"
    run_ladder(lad, rounds=1, seed=1)
    with lad.store(read_only=True) as st:
        assert st.games_of(row.id) and st.faults_of(row.id) == []


def test_only_one_runner(tmp_path: Path) -> None:
    lad = new_ladder(tmp_path, players=5)
    lad.submit_builtin("random", name="a", owner="admin")
    lad.submit_builtin("random", name="b", owner="admin")
    proc = subprocess.Popen([PENGYOU, "ladder", "run", "--ladder", lad.folder, "--until-stopped"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _wait(lambda: len(_games(Path(lad.db))) > 0, 60, "the first game")
        with pytest.raises(ArenaError, match="is being run by process"):
            run_ladder(lad, rounds=1)
    finally:
        _stop(proc)
    proc.communicate()
    run_ladder(lad, rounds=1)                # free again once it stopped


def test_ladder_json_standings(tmp_path: Path) -> None:
    lad = new_ladder(tmp_path, players=5)
    lad.submit_builtin("random", name="a", owner="admin")
    lad.submit_builtin("heuristic", name="b", owner="admin")
    run_ladder(lad, rounds=1, seed=1)
    p = _cli("ladder", "standings", "--ladder", lad.folder, "--json")
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    games, rows = ratings(lad)
    assert data["games"] == games and [r["label"] for r in data["rows"]] == [r.label for r in rows]
