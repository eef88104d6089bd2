"""Runs on a real Dask cluster whose workers cannot see the client's folder.

A ``dask scheduler`` and two ``dask worker`` processes, each worker started
in an empty folder of its own inside a private mount namespace where the
client's folder is an empty tmpfs (``tests/arena/cluster.py``). The bots'
files live only in the client's folder, so every bot a worker plays came
with the work. One worker holds a stale copy of the module bot at the
client's path (a bot that raises on every decision): it must never be
played. Results must equal a local run's with the same secret.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.store.results import Store

sys.path.insert(0, os.path.dirname(__file__))
from cluster import Cluster, can_hide_folders  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PENGYOU = str(Path(sys.executable).parent / "pengyou")
PYTHON = os.path.realpath(sys.executable)
WHY = can_hide_folders()
if WHY is not None and os.environ.get("PENGYOU_REQUIRE_CLUSTER") == "1":
    raise RuntimeError(f"PENGYOU_REQUIRE_CLUSTER=1 but the cluster tests cannot run here: {WHY}")
pytestmark = pytest.mark.skipif(WHY is not None, reason=f"cluster tests need hidden folders: {WHY}")

MODULE = '''
class Mine:
    """A user's bot in a file of its own."""

    def __init__(self, eps: float = 0.5) -> None:
        self.eps = eps

    def restart(self, rules, seat, rng):
        self.rng = rng

    def step(self, view):
        return view.random_action(self.rng)
'''

STALE = '''
class Mine:
    """The stale copy a worker holds at the client's path: never to be played."""

    def __init__(self, eps: float = 0.5) -> None:
        raise RuntimeError("STALE COPY PLAYED")
'''

FOLDER_BOT = '''
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from helper import pick  # noqa: E402  (a sibling module of the bot folder)


class Folded:
    """A bot folder: a module, a sibling module and a data file."""

    def restart(self, rules, seat, rng):
        with open(os.path.join(HERE, "data", "table.json")) as fh:
            self.table = json.load(fh)
        self.rng = rng

    def step(self, view):
        if self.table != {"k": 1}:
            raise RuntimeError("its data file did not travel")
        return pick(view, self.rng)
'''

HELPER = '''
def pick(view, rng):
    return view.random_action(rng)
'''


def make_client(top: Path) -> Path:
    client = top / "client"
    (client / "fbot" / "data").mkdir(parents=True)
    (client / "mine.py").write_text(MODULE)
    (client / "fbot" / ".pengyou-bot").write_text("")
    (client / "fbot" / "bot.py").write_text(FOLDER_BOT)
    (client / "fbot" / "helper.py").write_text(HELPER)
    (client / "fbot" / "data" / "table.json").write_text('{"k": 1}')
    shutil.copy(ROOT / "docs" / "examples" / "standalone_bot.py", client / "solo.py")
    return client


def specs(client: Path) -> dict[str, str]:
    return {"mod": f"{client / 'mine.py'}:Mine", "fold": f"{client / 'fbot' / 'bot.py'}:Folded",
            "prog": f"cmd:{PYTHON} {client / 'solo.py'}"}


def cli(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([PENGYOU, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def stored(db: Path) -> tuple[dict, list]:
    """Each job's deals (by key) and the run's faults."""
    with Store(str(db), read_only=True) as st:
        run = st.runs()[0].id
        deals = {r.key: [d.to_json() for d in r.deals] for r in st.results(run)}
        return deals, st.faults(run)


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cluster")


@pytest.fixture(scope="module")
def client(place: Path) -> Path:
    return make_client(place)


@pytest.fixture(scope="module")
def cluster(place: Path, client: Path):
    stale = place / "stale"
    stale.mkdir()
    (stale / "mine.py").write_text(STALE)
    with Cluster(place / "machines", hide=[client], stale={"w1": (client, stale)}) as c:
        yield c


def arena_run(client: Path, db: str, *extra: str) -> subprocess.CompletedProcess:
    bots = [f"{k}={v}" for k, v in specs(client).items()]
    return cli("arena", "run", "--bots", *bots, "random", "--players", "5", "--deals", "3", "--secret", "s1",
               "--db", db, "--no-progress", *extra, cwd=client)


def test_module_folder_and_program_bots_travel_to_workers_that_cannot_see_them(cluster, client):
    """Every kind of bot plays on the workers as it does here (the same
    stored deals as a local run), with no fault, though no worker can read
    the client's folder and one holds a stale copy of the module."""
    far = arena_run(client, "far.db", "--cluster", cluster.address)
    assert far.returncode == 0, far.stderr[-2000:]
    near = arena_run(client, "near.db", "--workers", "2")
    assert near.returncode == 0, near.stderr[-2000:]
    far_deals, far_faults = stored(client / "far.db")
    near_deals, near_faults = stored(client / "near.db")
    assert far_faults == [] and near_faults == []
    assert far_deals == near_deals and len(far_deals) > 0
    # both workers took part, and each unpacked what it played into its own cache
    assert all(os.listdir(cluster.top / f"w{i}" / "cache") for i in range(2))
    assert "STALE" not in far.stderr


def test_duel_sprt_tune_and_ladder_on_the_cluster(cluster, client):
    """Each command plays the three kinds of bots on the cluster as it does
    here: duel (module against folder), sprt (folder against program), tune
    (module tuned against the program), ladder (all three)."""
    kinds = specs(client)
    far = cli("duel", kinds["mod"], kinds["fold"], "--deals", "3", "--secret", "d", "--json",
              "--cluster", cluster.address, cwd=client)
    near = cli("duel", kinds["mod"], kinds["fold"], "--deals", "3", "--secret", "d", "--json", cwd=client)
    assert far.returncode == 0 and near.returncode == 0, far.stderr[-2000:] + near.stderr[-2000:]
    assert json.loads(far.stdout)["difference"] == json.loads(near.stdout)["difference"]

    sprt = cli("sprt", kinds["fold"], kinds["prog"], "--max-deals", "6", "--batch", "2", "--db", "sprt.db",
               "--json", "--secret", "t", "--cluster", cluster.address, cwd=client)
    assert sprt.returncode == 0, sprt.stderr[-2000:]
    test = json.loads(sprt.stdout)
    assert test["verdict"] is not None and test["groups"] >= 1
    _, faults = stored(client / "sprt.db")
    assert faults == []

    tune = cli("tune", f"{kinds['mod']}?eps=0.5", "--param", "eps=0.5,0,1,0.1,0.05", "--iterations", "3",
               "--against", kinds["prog"], "--db", "tune.db", "--no-sprt", "--no-progress", "--secret", "u",
               "--cluster", cluster.address, cwd=client)
    assert tune.returncode == 0, tune.stderr[-2000:]
    with Store(str(client / "tune.db"), read_only=True) as st:
        tuned = st.tune(1)
        assert tuned is not None and len(tuned[3]) >= 3

    lad = client / "lad"
    assert cli("ladder", "create", str(lad), "--players", "5", cwd=client).returncode == 0
    shutil.copytree(client / "fbot", client / "fsub", ignore=shutil.ignore_patterns(".pengyou-bot"))
    for args in (["--builtin", "random", "--name", "rnd"], [str(client / "mine.py") + ":Mine", "--name", "mine"],
                 [str(client / "fsub"), "--name", "fold"], [str(client / "solo.py"), "--name", "solo"]):
        sub = cli("ladder", "submit", "--ladder", str(lad), *args, cwd=client)
        assert sub.returncode == 0, sub.stderr
    run = cli("ladder", "run", "--ladder", str(lad), "--rounds", "2", "--cluster", cluster.address, cwd=client)
    assert run.returncode == 0, run.stderr[-2000:]
    import sqlite3

    con = sqlite3.connect(f"file:{lad / 'ladder.db'}?mode=ro", uri=True)
    try:
        games = con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        faults = con.execute("SELECT COUNT(*) FROM faults").fetchone()[0]
    finally:
        con.close()
    assert games > 0 and faults == 0


def test_a_worker_with_another_pengyou_is_refused_in_one_line(place, client, tmp_path):
    """A worker whose pengyou differs (one changed source file) plays
    nothing: with a good worker beside it the run completes there and the
    client says which worker was refused and why; alone, the run stops
    with one line."""
    other = tmp_path / "other"
    for pkg in ("core", "bots", "arena"):
        shutil.copytree(ROOT / pkg, other / pkg, ignore=shutil.ignore_patterns("__pycache__", "*.c"))
    with open(other / "arena" / "__init__.py", "a") as fh:
        fh.write("\n# another build\n")
    env = {"PYTHONPATH": str(other)}
    with Cluster(tmp_path / "m1", hide=[client], workers=0) as c:
        c.add_worker("odd", env=env, wait=True)
        alone = arena_run(client, str(tmp_path / "alone.db"), "--cluster", c.address)
        assert alone.returncode != 0
        lines = [ln for ln in alone.stderr.splitlines() if ln.startswith("pengyou: error")]
        assert len(lines) == 1 and "no worker can play" in lines[0] and "runs pengyou" in lines[0], alone.stderr
        assert "Traceback" not in alone.stderr
        c.add_worker("good", wait=True)
        both = arena_run(client, str(tmp_path / "both.db"), "--cluster", c.address)
        assert both.returncode == 0, both.stderr[-2000:]
        assert sum("refused: it runs pengyou" in ln for ln in both.stderr.splitlines()) == 1
        deals, faults = stored(tmp_path / "both.db")
        assert faults == [] and len(deals) > 0


def test_a_worker_whose_sandbox_cannot_start_charges_no_bot(client, tmp_path):
    """A worker in a user namespace (as in a rootless container) cannot
    start the sandbox: no bot is charged; the run moves its jobs to the
    good worker, or stops with one line naming the machine and why."""
    with Cluster(tmp_path / "m2", hide=[client], workers=0) as c:
        c.add_worker("rootless", prefix=("unshare", "--user", "--map-root-user"), wait=True)
        alone = arena_run(client, str(tmp_path / "alone.db"), "--cluster", c.address)
        assert alone.returncode != 0
        assert "rootless" in alone.stderr or "tcp://" in alone.stderr
        line = [ln for ln in alone.stderr.splitlines() if ln.startswith("pengyou: error")]
        assert len(line) == 1 and "sandbox cannot start" in line[0], alone.stderr
        # the worker's own warning about its sandbox reached the client's terminal
        assert "sandbox: this system refuses some walls" in alone.stderr
        if (tmp_path / "alone.db").exists():
            assert stored(tmp_path / "alone.db") == ({}, [])
        c.add_worker("good", wait=True)
        both = arena_run(client, str(tmp_path / "both.db"), "--cluster", c.address)
        assert both.returncode == 0, both.stderr[-2000:]
        deals, faults = stored(tmp_path / "both.db")
        assert faults == [] and len(deals) > 0


@pytest.mark.parametrize("how", ["kill", "stop"])
def test_a_worker_killed_or_frozen_mid_run_costs_no_bot_anything(client, tmp_path, how):
    """kill -9 of a worker's whole process group, or SIGSTOP of it for 60 s,
    in the middle of a run: the run completes, every job once, no fault,
    within two minutes of the stop."""
    with Cluster(tmp_path / "m3", hide=[client]) as c:
        db = tmp_path / "r.db"
        mine = specs(client)["mod"]
        proc = subprocess.Popen([PENGYOU, "arena", "run", "--bots", f"mod={mine}", "heuristic", "random",
                                 "--players", "5", "--deals", "40", "--secret", "k", "--db", str(db),
                                 "--no-progress", "--cluster", c.address],
                                cwd=client, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                if db.exists():
                    with Store(str(db), read_only=True) as st:
                        runs = st.runs()
                        if runs and len(st.done_keys(runs[0].id)) >= 10:
                            break
                time.sleep(0.5)
            victim = c.workers[1]
            stopped = time.monotonic()
            c.signal(victim, signal.SIGKILL if how == "kill" else signal.SIGSTOP)
            try:
                out, err = proc.communicate(timeout=120)
            finally:
                c.signal(victim, signal.SIGCONT)
            took = time.monotonic() - stopped
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        assert proc.returncode == 0, err[-2000:]
        assert took < 120
        with Store(str(db), read_only=True) as st:
            run = st.runs()[0]
            assert run.status == "complete"
            keys = [r.key for r in st.results(run.id)]
            assert len(keys) == len(set(keys)) == run.jobs
            assert st.faults(run.id) == []


def test_a_local_run_whose_sandbox_cannot_start_stops_in_one_line(client, tmp_path):
    """Without a cluster the same check holds: this machine's broken sandbox
    (a user namespace, as in a rootless container) stops the run with one
    line and stores no fault (every seat used to die with exit code 126)."""
    db = tmp_path / "x.db"
    proc = subprocess.run(["unshare", "--user", "--map-root-user", PENGYOU, "arena", "run", "--bots", "random",
                           "heuristic", "--players", "5", "--deals", "2", "--db", str(db), "--no-progress"],
                          cwd=client, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("pengyou: error")]
    assert len(errors) == 1 and "this machine cannot play the jobs" in errors[0], proc.stderr
    assert "Traceback" not in proc.stderr
    if db.exists():
        _, faults = stored(db)
        assert faults == []
