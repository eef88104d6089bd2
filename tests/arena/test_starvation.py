"""CPU starvation: an honest bot beside a burner (``hostile/burner.py``, 40
spinning processes per seat from its first turn) in a real ``pengyou arena
run`` with two workers and a tight time limit, the whole run inside a cpu
control group of its own limited to the machine's CPUs (as in a container
or a service, where the kernel's autogroups do not share the CPUs out).

A referee that charged the wall clock made the honest bot time out; this
one charges each bot the CPU time of its own group, so the honest bot must
make no fault over many decisions (counted from the stored results). The
test's group is removed afterwards, and no process of the run is left.

Linux only, as root (cgroups and the walls need it).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_hostile import PENGYOU, ROOT, as_root, assert_complete, bot, show

pytestmark = [pytest.mark.skipif(not os.sys.platform.startswith("linux"), reason="the sandbox is Linux only"),
              as_root]

V1_CPU = Path("/sys/fs/cgroup/cpu")
V2 = Path("/sys/fs/cgroup")
PERIOD = 100_000


def _own_group(controller: str) -> str:
    """This process's group in the hierarchy holding ``controller`` ("" for v2)."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if controller in names.split(",") or (controller == "" and names == ""):
            return path
    raise LookupError(controller)


def make_cpu_group(name: str) -> tuple[Path, str]:
    """A cpu control group limited to the machine's CPUs, beside this
    process's own: (its folder, the file that moves a process into it).
    cgroup v1's cpu hierarchy where it is mounted, else v2's."""
    cpus = os.cpu_count() or 1
    if (V1_CPU / "cpu.cfs_quota_us").exists():
        folder = V1_CPU / _own_group("cpu").lstrip("/") / name
        folder.mkdir()
        (folder / "cpu.cfs_period_us").write_text(str(PERIOD))
        (folder / "cpu.cfs_quota_us").write_text(str(cpus * PERIOD))
        return folder, "cgroup.procs"
    if (V2 / "cgroup.controllers").exists():
        parent = V2 / _own_group("").lstrip("/")
        if "cpu" not in (parent / "cgroup.subtree_control").read_text().split():
            pytest.skip("no cpu controller delegated to this process's cgroup v2 group")
        folder = parent / name
        folder.mkdir()
        (folder / "cpu.max").write_text(f"{cpus * PERIOD} {PERIOD}")
        return folder, "cgroup.procs"
    pytest.skip("no cpu cgroup hierarchy on this host")


def remove_group(folder: Path) -> None:
    """Remove the group once its processes and sub-groups are gone (waiting a little)."""
    deadline = time.monotonic() + 20
    while True:
        try:
            for sub in sorted((p for p in folder.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
                sub.rmdir()
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@pytest.fixture()
def cpu_group() -> Iterator[tuple[Path, str]]:
    """A cpu group of the test's own, removed afterwards."""
    folder, procs = make_cpu_group(f"pengyou-starvation-{os.getpid()}")
    try:
        yield folder, procs
    finally:
        remove_group(folder)
    assert not folder.exists()


def decisions(db: Path, entrant: int) -> int:
    """The decisions an entrant's seats made, from the stored results."""
    con = sqlite3.connect(db)
    try:
        rows = [json.loads(r[0]) for r in con.execute("SELECT result_json FROM results")]
    finally:
        con.close()
    return sum(d for r in rows for s, d in enumerate(r["decisions"]) if r["seats"][s] == entrant)


def test_a_burner_never_makes_the_honest_bot_time_out(tmp_path: Path, cpu_group: tuple[Path, str]) -> None:
    folder, procs = cpu_group
    db = tmp_path / "starve.db"
    # the honest bot thinks ~40 ms a decision (0.1 s at most over 855 five-player decisions):
    # far within 0.5 s of its own CPU, far beyond it with a fortieth of the machine. Not the
    # default search: reading the maker makes its worst decisions three times as long (0.31 s),
    # too near the budget for a test of the referee rather than of the bot
    honest_bot = "ismcts:iterations=1000,infer=none"
    args = [PENGYOU, "arena", "run", "--bots", honest_bot, bot("burner.py", "BurnerBot", children=40),
            "--deals", "2", "--rotations", "2", "--players", "5", "--db", str(db), "--workers", "2",
            "--no-progress", "--time-limit", "0.5", "--overage", "0"]

    def join() -> None:                     # in the child, before the arena starts
        with open(folder / procs, "w") as fh:
            fh.write(str(os.getpid()))

    proc = subprocess.run(args, capture_output=True, text=True, timeout=600, cwd=ROOT, preexec_fn=join)
    assert_complete(proc, db)
    left = (folder / procs).read_text().split()
    assert left == [], f"processes of the run left in its cpu group: {left}"
    faults = show(db)["faults"]
    honest = [f for f in faults if f["entrant"] == 0]
    assert honest == [], f"the honest bot faulted beside the burner: {honest[:3]}"
    assert decisions(db, 0) >= 20
    assert decisions(db, 1) >= 20, "the burner left the tables early: the honest bot was hardly tested"


def _results(db: Path) -> int:
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    except sqlite3.OperationalError:
        return 0
    try:
        return con.execute("SELECT count(*) FROM results").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


FREEZER = Path("/sys/fs/cgroup/freezer")


@pytest.fixture()
def freezer() -> Iterator[Path]:
    """A cgroup v1 freezer group of the test's own (everything in it can be
    stopped at once, bots included, as when the machine stops), removed afterwards."""
    if not (FREEZER / "freezer.state").exists() and not FREEZER.is_dir():
        pytest.skip("no cgroup v1 freezer hierarchy on this host")
    folder = FREEZER / _own_group("freezer").lstrip("/") / f"pengyou-stall-{os.getpid()}"
    folder.mkdir()
    try:
        yield folder
    finally:
        (folder / "freezer.state").write_text("THAWED")
        remove_group(folder)
    assert not folder.exists()


@pytest.mark.parametrize("how", ["group", "machine"])
def test_a_stall_charges_no_bot(tmp_path: Path, how: str, request: pytest.FixtureRequest) -> None:
    """The run is stopped in the middle for longer than the wall clock's
    outer bound on a decision, then continued: ``group``, its process group
    (referee, workers, fork servers: the bots, in groups of their own, go on);
    ``machine``, every process of it, bots included (a freezer group, as a
    suspended machine or container). The stall is not the bots': none may be
    charged a timeout for it, and the run completes."""
    from arena.table.remote import WALL_FACTOR, WALL_SLACK

    frozen = request.getfixturevalue("freezer") if how == "machine" else None
    # a limit the search's slowest decisions keep well inside on a slow machine (its worst
    # positions, where few sampled worlds agree with the view, cost it up to 0.3 s of CPU here
    # at 100 iterations), and the same cards every time
    limit = 1.0
    stall = limit * WALL_FACTOR + WALL_SLACK + 2
    db = tmp_path / "stall.db"
    args = [PENGYOU, "arena", "run", "--bots", "ismcts:iterations=100", "random", "--deals", "4", "--rotations", "2",
            "--players", "5", "--db", str(db), "--workers", "1", "--no-progress", "--time-limit", str(limit),
            "--overage", "0", "--secret", "stall-test"]

    def join() -> None:                     # in the child, before the arena starts
        if frozen is not None:
            with open(frozen / "cgroup.procs", "w") as fh:
                fh.write(str(os.getpid()))

    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=join)
    try:
        deadline = time.monotonic() + 120
        while _results(db) < 1 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.7)                     # into the next job: a bot may be thinking
        before = _results(db)
        if frozen is not None:
            (frozen / "freezer.state").write_text("FROZEN")
            time.sleep(stall)
            (frozen / "freezer.state").write_text("THAWED")
        else:
            os.killpg(proc.pid, signal.SIGSTOP)
            time.sleep(stall)
            os.killpg(proc.pid, signal.SIGCONT)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert_complete(subprocess.CompletedProcess(args, proc.returncode, out, err), db)
    jobs = show(db)["run"]["jobs"]
    assert 1 <= before < jobs, f"the stop came at {before} of {jobs} jobs, not in the middle of the run"
    assert show(db)["faults"] == [], "a bot was charged for the stall"
