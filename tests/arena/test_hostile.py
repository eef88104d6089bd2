"""Hostile bots against the sandbox: every attack of ``tests/arena/hostile/``.

Each test runs the real command line (``pengyou arena run`` / ``duel``) with
one hostile bot against ``random`` and checks what the referee recorded: an
attack that worked shows as a ``crash`` fault whose message starts with
``ATTACK WORKED`` (the bots raise it on purpose), as a marker file, as a
connection to the test's listener, as a process that survives the run, or
as a run that does not complete. Without the sandbox (bots in the
referee's process) every one of these assertions fails.

Linux only, and meant to run as root (CI does): the namespaces and the
bots' own users need it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "arena" / "hostile"
PENGYOU = str(ROOT / ".venv" / "bin" / "pengyou")
PYTHON = os.path.realpath(sys.executable)
from arena.sandbox.jail import CGROUP_WALL, UID_BASE, Cgroups  # noqa: E402  (the bots' users start here)

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox is Linux only"),
]
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the full sandbox needs root")


def bot(module: str, cls: str, **params: object) -> str:
    """An absolute spec for a hostile bot (relative module paths do not load in the sandbox)."""
    spec = f"{HOSTILE / module}:{cls}"
    if params:
        spec += "?" + ",".join(f"{k}={v}" for k, v in params.items())
    return spec


def suite_seeds(n: int) -> list[int]:
    lines = (ROOT / "seeds" / "dev.seeds").read_text().splitlines()
    return [int(x) for x in lines if x.strip() and not x.startswith("#")][:n]


def arena_args(db: Path, bots: list[str], deals: int = 1, rotations: int = 1, *extra: str) -> list[str]:
    args = [PENGYOU, "arena", "run", "--bots", *bots, "--deals", str(deals), "--players", "5",
            "--db", str(db), "--workers", "1", "--no-progress", "--time-limit", "1", "--overage", "2"]
    if rotations:
        args += ["--rotations", str(rotations)]
    return args + list(extra)


def run(args: list[str], timeout: float = 120, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=ROOT, **kw)


def arena(tmp_path: Path, bots: list[str], deals: int = 1, rotations: int = 1, *extra: str,
          timeout: float = 120) -> tuple[subprocess.CompletedProcess, Path]:
    db = tmp_path / "hostile.db"
    proc = run(arena_args(db, bots, deals, rotations, *extra), timeout=timeout)
    return proc, db


def show(db: Path) -> dict:
    p = run([PENGYOU, "arena", "show", "--db", str(db), "--json"], timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def standings(db: Path) -> dict:
    p = run([PENGYOU, "arena", "standings", "--db", str(db), "--json"], timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def faults(db: Path, entrant: int = 1) -> list[dict]:
    return [f for f in show(db)["faults"] if f["entrant"] == entrant]


def assert_complete(proc: subprocess.CompletedProcess, db: Path) -> dict:
    assert proc.returncode == 0, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    info = show(db)["run"]
    assert info["status"] == "complete" and info["done"] == info["jobs"] > 0, info
    return info


def assert_no_attack(db: Path, entrant: int = 1) -> None:
    """The hostile entrant made no fault at all (a working attack crashes on purpose)."""
    got = faults(db, entrant)
    assert got == [], f"the hostile bot faulted (an attack worked?): {got[:3]}"


def one_line_error(stderr: str) -> str:
    """The error line of a command that stopped (progress bars use \\r)."""
    lines = [ln for ln in re.split(r"[\r\n]+", stderr) if ln.strip()]
    assert lines, "no error message"
    assert "Traceback" not in stderr, stderr[-2000:]
    errors = [ln for ln in lines if ln.startswith("pengyou: error:")]
    assert len(errors) == 1, lines[-5:]
    return errors[0]


def replay_checks(tmp_path: Path, db: Path) -> None:
    """Every stored result equals what its record replays to (unforfeited
    deals), and the results are exactly one per job with the faults they name."""
    con = sqlite3.connect(db)
    try:
        jobs = con.execute("SELECT key FROM jobs").fetchall()
        results = con.execute("SELECT key, result_json FROM results").fetchall()
        nfaults = con.execute("SELECT COUNT(*) FROM faults").fetchone()[0]
        runs = con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    finally:
        con.close()
    assert runs == 1
    assert sorted(k for k, in jobs) == sorted(k for k, _ in results)
    assert nfaults == sum(len(json.loads(t)["faults"]) for _, t in results)
    for key, text in results:
        res = json.loads(text)
        out = tmp_path / f"{key}.jsonl"
        p = run([PENGYOU, "arena", "record", key, "--db", str(db), "--out", str(out)], timeout=60)
        assert p.returncode == 0, p.stderr
        r = run([PENGYOU, "replay", str(out)], timeout=60)
        assert r.returncode == 0, r.stderr
        deal = res["deals"][0]
        if deal.get("forfeit") is None:
            m = re.search(r"opponents' points: (\d+) of (\d+)", r.stdout)
            assert m, r.stdout[-500:]
            assert int(m.group(1)) == deal["opponents_points"], (key, m.group(0), deal)


def procs() -> dict[int, tuple[int, str]]:
    """pid -> (uid, command line) of every process."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/status") as fh:
                uid = next(int(ln.split()[1]) for ln in fh if ln.startswith("Uid:"))
            with open(f"/proc/{d}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except (OSError, StopIteration, ValueError):
            continue
        out[int(d)] = (uid, cmd)
    return out


def _live_pool(cmd: str) -> bool:
    """A bot of another, still running referee (a concurrent test run): not ours."""
    m = re.search(r"-m arena\.sandbox \d+ (\d+)", cmd)
    return bool(m) and os.path.exists(f"/proc/{m.group(1)}") and int(m.group(1)) != os.getpid()


def survivors(before: dict[int, tuple[int, str]], marker: str, grace: float = 3.0) -> dict:
    """Bot-user processes started since ``before``, or carrying ``marker``, still alive."""
    deadline = time.monotonic() + grace
    while True:
        left = {p: v for p, v in procs().items()
                if (marker in v[1] and p != os.getpid())
                or (v[0] >= UID_BASE and p not in before and not _live_pool(v[1]))}
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


# ------------------------------------------------------------------ 1. hidden hands
def test_snoop_detector_works_in_process() -> None:
    """Control: in the referee's process the snooping bot does find the State."""
    import importlib.util
    import random

    from core.rules import Rules
    from core.state import State

    spec = importlib.util.spec_from_file_location("hostile_snoop", HOSTILE / "snoop_state.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    state = State(Rules.preset("pagat", players=5), seed=1)
    b = mod.SnoopStateBot(marker="")
    with pytest.raises(RuntimeError, match="ATTACK WORKED"):
        b.restart(state.rules, 0, random.Random(0))


@as_root
def test_no_state_in_frames_or_heap(tmp_path: Path) -> None:
    marker = tmp_path / "hands.txt"
    proc, db = arena(tmp_path, ["random", bot("snoop_state.py", "SnoopStateBot", marker=marker)], deals=2)
    assert_complete(proc, db)
    assert_no_attack(db)
    assert not marker.exists()


# ------------------------------------------------------------------ 2. cheats = True
@as_root
@pytest.mark.parametrize("allow", [False, True])
def test_peek_is_never_called(tmp_path: Path, allow: bool) -> None:
    marker = tmp_path / "peeked.txt"
    extra = ["--allow-cheating"] if allow else []
    proc, db = arena(tmp_path, ["random", bot("cheater.py", "CheaterBot", marker=marker)], 2, 1, *extra)
    assert not marker.exists()
    if proc.returncode == 2:                  # refused up front: fine too
        one_line_error(proc.stderr)
        return
    assert_complete(proc, db)
    assert_no_attack(db)


# ------------------------------------------------------------------ 3. seeds
def test_bot_seed_is_keyed_by_the_secret() -> None:
    from arena.table.remote import bot_seed

    for deal in suite_seeds(3):
        parts = (deal, 0, 0, 0, 2)
        a, b = bot_seed(b"secret-one", *parts), bot_seed(b"secret-two", *parts)
        assert a != b
        assert deal not in (a, b)
        assert a == bot_seed(b"secret-one", *parts)
        assert 0 <= a < 2 ** 63


@as_root
def test_rng_does_not_give_the_deal_seed(tmp_path: Path) -> None:
    seeds = "/".join(map(str, suite_seeds(2)))
    proc, db = arena(tmp_path, ["random", bot("rederive_seed.py", "RederiveSeedBot", seeds=seeds)], deals=2)
    assert_complete(proc, db)
    assert_no_attack(db)


@as_root
def test_bot_streams_differ_between_runs(tmp_path: Path) -> None:
    """Two runs with two secrets of the same suite seed deal other cards (the
    secret keys the shuffle); a run with the first secret again repeats it."""
    records = []
    for i, secret in enumerate(("s0", "s1", "s0")):
        d = tmp_path / f"run{i}"
        d.mkdir()
        proc, db = arena(d, ["random", "heuristic"], 1, 1, "--trusted", "none", "--secret", secret)
        assert_complete(proc, db)
        out = d / "rec.jsonl"
        p = run([PENGYOU, "arena", "record", "g0-l0-r0", "--db", str(db), "--out", str(out)], timeout=60)
        assert p.returncode == 0, p.stderr
        records.append([json.loads(ln) for ln in out.read_text().splitlines() if ln.strip()])
    assert records[0][0]["seed"] != records[1][0]["seed"] and records[0] != records[1]
    assert records[0] == records[2]


@as_root
def test_public_suite_seed_does_not_give_the_deal(tmp_path: Path) -> None:
    seeds = "/".join(map(str, suite_seeds(64)))
    proc, db = arena(tmp_path, ["random", bot("rederive_seed.py", "PublicSuiteBot", seeds=seeds)], deals=1)
    assert_complete(proc, db)
    assert_no_attack(db)


# ------------------------------------------------------------------ 4. results
@as_root
def test_results_cannot_be_changed(tmp_path: Path) -> None:
    db = tmp_path / "hostile.db"
    marker = Path("/tmp") / f"hostile-marker-{os.getpid()}-{tmp_path.name}"
    outside = [marker, ROOT / "hostile-was-here", ROOT / "tests" / "hostile-was-here",
               Path(str(db) + "-journal")]
    shared = Path("/tmp/hostile-was-here")
    shared_before = shared.exists()
    spec = bot("tamper.py", "TamperBot", db=db, marker=marker, project=ROOT)
    proc = run(arena_args(db, ["random", spec], 2, 1))
    try:
        assert_complete(proc, db)
        assert_no_attack(db)
        for p in outside:
            assert not p.exists(), f"{p} was created"
        if not shared_before:
            assert not shared.exists(), f"{shared} was created"
        replay_checks(tmp_path, db)
    finally:
        for p in outside:
            if p.exists() and p != Path(str(db) + "-journal"):
                p.unlink()


# ------------------------------------------------------------------ 5. slippery Action
@as_root
def test_action_subclass_with_changing_cards(tmp_path: Path) -> None:
    proc, db = arena(tmp_path, ["random", bot("slippery_action.py", "SlipperyBot")], deals=2)
    assert_complete(proc, db)
    kinds = {f["kind"] for f in faults(db)}
    assert kinds <= {"illegal"}, faults(db)
    replay_checks(tmp_path, db)


# ------------------------------------------------------------------ 6. memory
@as_root
def test_three_gib_is_a_memory_fault(tmp_path: Path) -> None:
    proc, db = arena(tmp_path, ["random", bot("memory_hog.py", "MemoryHogBot", gib=3)])
    assert_complete(proc, db)
    got = faults(db)
    assert got and {f["kind"] for f in got} == {"memory"}, got


# ------------------------------------------------------------------ 6b. memory the address space does not count
def _shmem_mib() -> int:
    with open("/proc/meminfo") as fh:
        return next(int(ln.split()[1]) for ln in fh if ln.startswith("Shmem:")) >> 10


def server_cgroups() -> dict[str, int]:
    """Every fork server's folder of control groups this process can see: its pid."""
    out = {}
    for parent in Cgroups.parents():
        out.update(Cgroups.servers(parent))
    return out


def stale_cgroups(grace: float = 5.0) -> list[str]:
    """Folders of control groups whose fork server is gone (after ``grace`` s)."""
    deadline = time.monotonic() + grace
    while True:
        left = [d for d, pid in server_cgroups().items() if not os.path.exists(f"/proc/{pid}")]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


@as_root
@pytest.mark.parametrize("how", ["memfd", "sysv", "devshm", "fork"])
def test_memory_outside_the_address_space_is_capped(tmp_path: Path, how: str) -> None:
    """A bot that holds 2 GiB where ``RLIMIT_AS`` does not look (memfd,
    System V segments, /dev/shm files, child processes) under a 256 MiB
    limit: the kernel ends it as a ``memory`` fault, or the call is refused,
    and the host never holds much more than the limit."""
    marker = f"hostile-shm-{os.getpid()}-{how}"
    spec = bot("shared_memory.py", "SharedMemoryBot", how=how, mib=2048, cap=256, marker=marker)
    base, peak, stop = _shmem_mib(), [0], threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], _shmem_mib())
            time.sleep(0.02)

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    try:
        proc, db = arena(tmp_path, ["random", spec], 1, 1, "--memory", "256", "--time-limit", "10")
    finally:
        stop.set()
        t.join(5)
        written = list(Path("/dev/shm").glob(marker + "-*"))
        for f in written:
            f.unlink()
    assert_complete(proc, db)
    walled = CGROUP_WALL not in proc.stderr
    if how == "fork" and not walled:
        pytest.skip("no control group here: a bot can spread memory over its processes (docs/arena.md)")
    got = faults(db)
    assert not [f for f in got if "ATTACK WORKED" in f["message"]], got
    assert {f["kind"] for f in got} <= {"memory"}, got
    assert not written, f"the bot wrote the host's /dev/shm: {written[:3]}"
    if walled and how in ("memfd", "sysv"):
        assert got, "the bot held its shared memory and was not stopped"
    assert peak[0] - base < 1024, f"the host's shared memory grew by {peak[0] - base} MiB"
    assert stale_cgroups() == []


def test_without_a_control_group_shared_memory_is_refused(tmp_path: Path) -> None:
    """The wall where no control group counts a bot's memory: ``memfd_create``
    and ``shmget`` are refused (in a process walled in by hand)."""
    from arena.sandbox import jail

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(r)
            jail.enter(str(tmp_path / "home"), jail.Walls(), os.getppid(), None)
            got = []
            try:
                os.memfd_create("x")
                got.append("memfd")
            except OSError:
                pass
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.shmget(0, ctypes.c_size_t(1 << 20), 0o1600) >= 0:
                got.append("shmget")
            os.write(w, json.dumps(got).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    with os.fdopen(r, "rb") as fh:
        data = fh.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert json.loads(data) == [], f"made without a control group: {data!r}"


@as_root
def test_a_bot_over_its_control_group_is_killed_and_counted(tmp_path: Path) -> None:
    """In its control group a process that writes 512 MiB of memfds under a
    128 MiB wall (64 + 64 for its directory) is killed, and it is counted."""
    from arena.sandbox import jail

    groups, why = Cgroups.make(os.getpid())
    if groups is None:
        pytest.skip(f"no control group here: {why}")
    try:
        path = groups.create("t", jail.Walls(memory_mb=64))
        pid = os.fork()
        if pid == 0:
            try:
                jail.enter(str(tmp_path / "home"), jail.Walls(memory_mb=64), os.getppid(), path)
                chunk = b"\1" * (1 << 20)
                for i in range(16):
                    fd = os.memfd_create(f"m{i}")
                    for _ in range(32):
                        os.write(fd, chunk)
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == 9, status
        assert groups.ooms(path) >= 1
        assert groups.remove(path)
    finally:
        assert groups.close()
    assert not os.path.exists(groups.base)


def test_cgroup_v2_groups_go_where_memory_is_delegated(tmp_path: Path) -> None:
    """cgroup v2 (a fake tree): the fork server's folder goes in the nearest
    of its own group and the ancestors that give children the memory
    controller, never above the mount; none: no group."""
    from arena.sandbox.cgroups import _delegated

    point = tmp_path / "cg"
    own = point / "system.slice" / "ci.service"
    own.mkdir(parents=True)
    for d, ctl in ((point, "cpu memory pids"), (point / "system.slice", "cpu pids"), (own, "")):
        (d / "cgroup.subtree_control").write_text(ctl + "\n")
    assert _delegated(str(point), str(own)) == str(point)
    (point / "system.slice" / "cgroup.subtree_control").write_text("memory pids\n")
    assert _delegated(str(point), str(own)) == str(point / "system.slice")
    assert _delegated(str(point / "system.slice"), str(own)) == str(point / "system.slice")
    (point / "system.slice" / "cgroup.subtree_control").write_text("\n")
    assert _delegated(str(point / "system.slice"), str(own)) is None


@as_root
def test_control_groups_go_when_the_referee_is_killed(tmp_path: Path) -> None:
    """``kill -9`` of the referee's whole process group (fork server
    included) while bots play: the janitor removes every bot's control
    group and working folder, and nothing of the run is left."""
    if not Cgroups.parents():
        pytest.skip("no control groups here")
    before = set(server_cgroups())
    db = tmp_path / "killed.db"
    args = arena_args(db, ["random", "heuristic"], 40, 1, "--trusted", "none")
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    mine: dict[str, int] = {}
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            for d, pid in server_cgroups().items():
                try:
                    if d not in before and os.getsid(pid) == proc.pid and any(
                            e.is_dir() for e in os.scandir(d)):
                        mine[d] = pid
                except OSError:
                    pass
            if mine:
                break
            time.sleep(0.05)
        assert mine, "no bot's control group was seen"
        servers = {procs().get(pid, (0, ""))[1] for pid in mine.values()}
    finally:
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass
        proc.wait()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        left = [d for d in mine if os.path.exists(d)]
        folders = [f"/tmp/pengyou-sandbox-0-{pid}" for pid in mine.values()
                   if os.path.exists(f"/tmp/pengyou-sandbox-0-{pid}")]
        janitors = [p for p, (_, c) in procs().items() if c in servers]   # same command line
        if not left and not folders and not janitors:
            break
        time.sleep(0.1)
    assert not left, f"control groups left: {left}"
    assert not folders, f"working folders left: {folders}"
    assert not janitors, f"processes of the fork server left: {janitors}"


# ------------------------------------------------------------------ 7. processes left behind
@as_root
def test_no_process_outlives_the_run(tmp_path: Path) -> None:
    marker = f"hostile-fork-{os.getpid()}-{int(time.time())}"
    before = procs()
    proc, db = arena(tmp_path, ["random", bot("forker.py", "ForkerBot", marker=marker)], deals=2)
    left = survivors(before, marker)
    for pid in left:                           # ours to clean up (then fail)
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    assert_complete(proc, db)
    assert not left, f"processes survived the run: {left}"


# ------------------------------------------------------------------ 8. network
@as_root
def test_no_network(tmp_path: Path) -> None:
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(8)
    tcp.settimeout(0.2)
    port = tcp.getsockname()[1]
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", port))
    udp.settimeout(0.2)
    got: list[str] = []
    stop = threading.Event()

    def listen() -> None:
        while not stop.is_set():
            for s, what in ((tcp, "tcp"), (udp, "udp")):
                try:
                    if what == "tcp":
                        c, _ = s.accept()
                        got.append("tcp")
                        c.close()
                    else:
                        s.recvfrom(100)
                        got.append("udp")
                except OSError:
                    pass

    t = threading.Thread(target=listen, daemon=True)
    t.start()
    try:
        proc, db = arena(tmp_path, ["random", bot("network.py", "NetworkBot", port=port)], deals=1)
    finally:
        stop.set()
        t.join(5)
        tcp.close()
        udp.close()
    assert got == [], f"the bot reached the test's listener: {got}"
    assert_complete(proc, db)
    assert_no_attack(db)


# ------------------------------------------------------------------ 9. killing
@as_root
def test_bot_cannot_kill_the_referee(tmp_path: Path) -> None:
    db = tmp_path / "hostile.db"
    prefix = bot("killer.py", "KillerBot") + f"?pids={os.getpid()}/"
    args = arena_args(db, ["random", "SPEC"], 2, 1)
    # the shell's pid ($$) becomes pengyou's when it execs: the bot is told the referee's pid
    script = "exec " + " ".join(shlex.quote(prefix) + "$$" if a == "SPEC" else shlex.quote(a) for a in args)
    proc = subprocess.run(["/bin/sh", "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert_complete(proc, db)
    got = faults(db)
    # killpg(0) kills the bot's own group: it may die (and forfeit), nothing else
    assert {f["kind"] for f in got} <= {"died"}, got
    spec = show(db)["spec"]["entrants"][1]["spec"]
    assert re.search(rf"pids={os.getpid()}/\d+$", spec), spec


# ------------------------------------------------------------------ 10. hangs
@as_root
@pytest.mark.parametrize("how", ["spin", "noalarm", "stop", "sleep"])
def test_hang_is_a_timeout(tmp_path: Path, how: str) -> None:
    start = time.monotonic()
    proc, db = arena(tmp_path, ["random", bot("hang.py", "HangBot", how=how)], timeout=60)
    took = time.monotonic() - start
    assert_complete(proc, db)
    got = faults(db)
    assert got and {f["kind"] for f in got} == {"timeout"}, got
    assert took < 30, took


# ------------------------------------------------------------------ 11. exits
@as_root
@pytest.mark.parametrize("how,kind", [("interrupt", "crash"), ("exit", "died"), ("sysexit", "crash")])
def test_exits_are_faults_and_the_run_resumes(tmp_path: Path, how: str, kind: str) -> None:
    db = tmp_path / "hostile.db"
    args = arena_args(db, ["random", bot("exits.py", "ExitBot", how=how)], 2, 1)
    first = run(args + ["--max-jobs", "1"])
    assert first.returncode == 0, first.stderr
    assert "Traceback" not in first.stderr
    assert show(db)["run"]["done"] == 1
    again = run(args)
    assert_complete(again, db)
    got = faults(db)
    assert got and {f["kind"] for f in got} == {kind}, got
    n = show(db)["run"]["jobs"]
    assert len(got) == n                       # one fault in every job, none lost
    third = run(args)
    assert_complete(third, db)
    assert re.search(r"\b0 job\(s\) played now\b", third.stdout), third.stdout
    assert len(faults(db)) == n


# ------------------------------------------------------------------ 11b. thinking between turns
@as_root
def test_no_cpu_between_turns(tmp_path: Path) -> None:
    """A bot is stopped between its turns: its threads and its children
    (even one that tried to leave its process group) use no CPU while the
    other seats decide (here searches of some tens of milliseconds)."""
    start = time.monotonic()
    proc, db = arena(tmp_path, ["ismcts:iterations=400", bot("ponder.py", "PonderBot")], 2, 1)
    assert_complete(proc, db)
    assert_no_attack(db)
    assert time.monotonic() - start < 100


# ------------------------------------------------------------------ 12. faults rank last
@as_root
def test_always_faulting_bot_ranks_below_random(tmp_path: Path) -> None:
    proc, db = arena(tmp_path, ["random", bot("exits.py", "ExitBot", how="crash")], deals=2, rotations=0)
    assert_complete(proc, db)
    rows = {r["index"]: r for r in standings(db)["standings"]["rows"]}
    assert rows[1]["elo"] < rows[0]["elo"]
    assert rows[1]["dup"]["mean"] < rows[0]["dup"]["mean"]
    assert rows[1]["faults"]["crash"] == rows[1]["deals"] > 0
    assert rows[0]["faults"]["crash"] == 0


# ------------------------------------------------------------------ 13. bad programs
def _program(how: str) -> str:
    return f"cmd:{PYTHON} {HOSTILE / 'bad_program.py'} {how}"


@as_root
@pytest.mark.parametrize("which,expect", [
    ("nonexistent", "no such program"),
    ("not-executable", "not an executable"),
    ("junk-hello", "not UTF-8|not a JSON"),
    ("flood-hello", "line over"),
])
def test_bad_program_is_one_line_error(tmp_path: Path, which: str, expect: str) -> None:
    if which == "nonexistent":
        spec = "cmd:/nonexistent/hostile-bot"
    elif which == "not-executable":
        f = tmp_path / "bot.sh"
        f.write_text("#!/bin/sh\necho hi\n")
        f.chmod(0o644)
        spec = f"cmd:{f}"
    else:
        spec = _program(which)
    proc, db = arena(tmp_path, ["random", spec], timeout=90)
    assert proc.returncode == 2, (proc.stdout[-1000:], proc.stderr[-1000:])
    line = one_line_error(proc.stderr)
    assert re.search(expect, line), line
    if db.exists():                            # nothing half-written
        con = sqlite3.connect(db)
        try:
            assert con.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 0
        finally:
            con.close()


@as_root
def test_program_that_never_says_hello(tmp_path: Path) -> None:
    """``cmd:sleep 100`` (slow: the start-up check waits 30 s for hello)."""
    start = time.monotonic()
    proc, _ = arena(tmp_path, ["random", "cmd:sleep 100"], timeout=90)
    assert proc.returncode == 2
    line = one_line_error(proc.stderr)
    assert "hello" in line and "sleep" in line, line
    assert time.monotonic() - start < 60
    assert not [p for p, (_, c) in procs().items() if c.startswith(("/usr/bin/sleep 100", "/bin/sleep 100"))]


@as_root
@pytest.mark.parametrize("how,kind", [("junk", "protocol"), ("flood", "protocol"), ("mute", "timeout"),
                                      ("close", "died")])
def test_program_breaking_the_protocol_is_a_fault(tmp_path: Path, how: str, kind: str) -> None:
    proc, db = arena(tmp_path, ["random", _program(how)], timeout=90)
    assert_complete(proc, db)
    got = faults(db)
    assert got and {f["kind"] for f in got} == {kind}, got
    replay_checks(tmp_path, db)


# ------------------------------------------------------------------ duels
@as_root
@pytest.mark.parametrize("spec,kind", [
    (bot("exits.py", "ExitBot", how="interrupt"), "crash"),
    (bot("exits.py", "ExitBot", how="exit"), "died"),
    (bot("hang.py", "HangBot", how="spin"), "timeout"),
    (bot("memory_hog.py", "MemoryHogBot", gib=3), "memory"),
    (_program("junk"), "protocol"),
])
def test_duel_stops_with_one_line(spec: str, kind: str) -> None:
    proc = run([PENGYOU, "duel", spec, "random", "--deals", "2", "--players", "5",
                "--time-limit", "1", "--overage", "2"], timeout=60)
    assert proc.returncode == 2, (proc.stdout[-500:], proc.stderr[-500:])
    line = one_line_error(proc.stderr)
    assert f": {kind}:" in line, line
    assert spec[:30] in line, line


@as_root
def test_relative_module_path_loads() -> None:
    proc = run([PENGYOU, "duel", "docs/examples/high_card_bot.py:HighCardBot", "random", "--deals", "1",
                "--players", "5"], timeout=60)
    assert proc.returncode == 0, proc.stderr[-300:]


# ------------------------------------------------------------------ 15. stalling the deal
@as_root
def test_bots_that_never_make_trump_fault_as_stall_and_the_run_completes(tmp_path: Path) -> None:
    """Every seat passes every chance to make trump: the deal is redealt
    until one more would end it, then each seat that passed every chance
    faults (``stall``), the deal is forfeited and finished, and every
    record (with its fifty-one decks) replays. Before, the engine gave up,
    the job failed outside the bots and every retry failed the same way."""
    a, b = bot("never_expose.py", "NeverExposeBot"), bot("never_expose.py", "NeverExposeToo")
    proc, db = arena(tmp_path, [a, b], 1, 1, timeout=600)
    assert_complete(proc, db)
    found = show(db)["faults"]
    assert found and {f["kind"] for f in found} == {"stall"}, found[:3]
    assert all("chances to make trump" in f["message"] for f in found)
    jobs = show(db)["run"]["jobs"]
    assert len({f["job"] for f in found}) == jobs
    replay_checks(tmp_path, db)
    table = standings(db)
    assert sum(sum(row["faults"].values()) for row in table["standings"]["rows"]) == len(found)


@as_root
def test_a_bot_that_never_makes_trump_with_one_that_does_is_just_weak(tmp_path: Path) -> None:
    proc, db = arena(tmp_path, [bot("never_expose.py", "NeverExposeBot"), "random"], 1, 1)
    assert_complete(proc, db)
    assert faults(db, 0) == [] and faults(db, 1) == []


# ------------------------------------------------------------------ 16. bot folders
@pytest.fixture
def open_tmp():
    """A fresh folder that every user may enter (so that Landlock alone, not a
    folder only root may enter, decides what a bot reads); removed after."""
    d = Path(tempfile.mkdtemp(prefix="pengyou-hostile-"))
    d.chmod(0o755)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _bot_folders(top: Path, source: str, entry: str) -> Path:
    """``top/bots``: bot folder 1 (``data.txt``, ``src/data.txt`` and
    ``source`` as ``entry``), bot folder 2 (``secret.txt``), ``outside.txt``."""
    root = top / "bots"
    own, other = root / "1", root / "2"
    (own / "src").mkdir(parents=True)
    other.mkdir()
    for folder in (own, other):
        (folder / ".pengyou-bot").write_text("a bot folder\n")
    (own / "data.txt").write_text("mine\n")
    (own / "src" / "data.txt").write_text("mine too\n")
    (other / "secret.txt").write_text("another entrant's\n")
    (root / "outside.txt").write_text("nobody's\n")
    shutil.copy(HOSTILE / source, own / entry)
    if source == "folder_reader.py":                 # the program's check, beside it
        shutil.copy(HOSTILE / "folder_reader_bot.py", (own / entry).parent)
    for p in [root, *root.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    return root


@as_root
@pytest.mark.parametrize("kind", ["module", "program"])
@pytest.mark.parametrize("entry", ["bot.py", "src/bot.py"])
def test_a_bot_reads_its_whole_folder_and_nothing_else(open_tmp: Path, tmp_path: Path, kind: str,
                                                       entry: str) -> None:
    """A bot folder's bot reads every file of its folder, whether its entry
    is a module or a ``.py`` program run by the interpreter, at the
    folder's top or in a sub-folder; it reads no other bot folder, and
    nothing above its own."""
    if kind == "module":
        root = _bot_folders(open_tmp, "folder_reader_bot.py", entry)
        spec = f"{root / '1' / entry}:FolderReaderBot?root={root}"
    else:
        root = _bot_folders(open_tmp, "folder_reader.py", entry)
        spec = f"cmd:{PYTHON} {root / '1' / entry} {root}"
    proc, db = arena(tmp_path, ["random", spec], 1, 1)
    assert_complete(proc, db)
    assert_no_attack(db)


@as_root
@pytest.mark.parametrize("source,entry", [("folder_reader.py", "bot.py"), ("folder_reader_bot.py", "src/bot.py")])
def test_a_ladder_submission_reads_its_own_files(tmp_path: Path, source: str, entry: str) -> None:
    """The ladder's own way: a folder whose entry is a Python program, or a
    module in a sub-folder (``--entry src/bot.py``), is validated by a deal
    in which it reads every file it was submitted with."""
    lad = tmp_path / "lad"
    p = run([PENGYOU, "ladder", "create", str(lad), "--players", "5", "--time-limit", "1"], timeout=60)
    assert p.returncode == 0, p.stderr
    sub = tmp_path / "sub"
    (sub / "src").mkdir(parents=True)
    (sub / "data.txt").write_text("mine\n")
    (sub / "src" / "data.txt").write_text("mine too\n")
    shutil.copy(HOSTILE / source, sub / entry)
    if source == "folder_reader.py":                 # the program's check, beside it
        shutil.copy(HOSTILE / "folder_reader_bot.py", (sub / entry).parent)
    args = [PENGYOU, "ladder", "submit", str(sub), "--name", "reader", "--ladder", str(lad)]
    if entry != "bot.py":
        args += ["--entry", entry]
    p = run(args, timeout=120)
    assert p.returncode == 0, (p.stdout[-1000:], p.stderr[-1000:])
    assert "accepted" in p.stdout and ("program" if source == "folder_reader.py" else "module") in p.stdout


@as_root
def test_the_fork_server_ends_quietly_when_its_referee_is_gone() -> None:
    """A referee that stops while its last request is in flight (a ladder
    runner stopped by Ctrl-C) leaves a fork server whose answer cannot be
    sent: it ends, cleans up, and writes no traceback."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "PYTHONPATH", "HOME")}
    proc = subprocess.Popen([sys.executable, "-m", "arena.sandbox", str(theirs.fileno()), str(os.getpid())],
                            pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=str(ROOT))
    theirs.close()
    try:
        mine.settimeout(60)
        assert b"missing" in mine.recv(1 << 16)          # its hello
        mine.send(b'{"not": "a request"}')               # answered with an error it cannot send
        mine.close()
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Traceback" not in err, err
