"""Collusion through the kernel: the seats of one entrant try to tell each
other their hands (``tests/arena/hostile/colluder.py``) in a real
``pengyou arena run``; each writes what it learned into its own log, and
no hidden card may be learned (compared with the stored records: the hand
each seat held at its first turn of the play phase).

The keyring channel is also tried across time, as a later bot that got
the same uid would (bot uids were ``UID_BASE + pid`` and pids wrap): after
the run the test reads, as each colluder's uid, the keys it added to its
user keyrings, and counts any hand found there as learned; it then clears
those keyrings so that nothing of the test stays in the kernel.

The ladder variant does the same between two colluding entrants of two
owners and two honest ones, submitted with ``ladder submit`` and played by
a sandboxed ``ladder run``; the truth is each stored game's record.

Linux only, as root (the walls need it), like ``test_hostile.py``.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import sqlite3
import time
from collections import Counter
from pathlib import Path

import pytest
from test_hostile import HOSTILE, PENGYOU, arena_args, as_root, assert_complete, procs, run, show, survivors

from core.phases import PLAY_PHASE
from core.records import read_records, replay_deal


pytestmark = [pytest.mark.skipif(not os.sys.platform.startswith("linux"), reason="the sandbox is Linux only"), as_root]

SLOTS = 5 * 108


def colluder_folder(tmp_path: Path) -> Path:
    """The colluder's own folder (a bot folder: it may read all of it), with
    the files its channels use (:func:`fill_channels`)."""
    folder = tmp_path / "colluder"
    folder.mkdir()
    (folder / ".pengyou-bot").write_text("")
    shutil.copy(HOSTILE / "colluder.py", folder / "colluder.py")
    return fill_channels(folder)


def fill_channels(folder: Path) -> Path:
    """The files of the colluder's channels in ``folder``: one page a bit, a
    lock file and an access-time file a bit, readable by every user; access
    times set two days back (as on a machine whose files nobody read today)."""
    with open(folder / "pages.bin", "wb") as fh:
        fh.write(os.urandom(SLOTS * 4096))
        fh.flush()
        os.fsync(fh.fileno())                               # clean pages: they can be dropped
    for i in range(SLOTS):
        for kind in ("lock", "atime"):
            f = folder / f"{kind}-{i}"
            f.write_bytes(b"x")
            f.chmod(0o644)
    (folder / "pages.bin").chmod(0o644)
    age_access_times(folder)
    fd = os.open(folder / "pages.bin", os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)     # nothing of it cached yet
    os.close(fd)
    return folder


def age_access_times(folder: Path) -> None:
    """Every access-time file of ``folder`` last read and changed two days
    ago: the channel's bits cleared (a read only ever sets one)."""
    old = time.time() - 2 * 86400
    for i in range(SLOTS):
        os.utime(folder / f"atime-{i}", (old, old))


def hands_at_first_play(record: Path) -> dict[int, Counter]:
    """Each seat's hand at its first turn of the play phase, from a stored record."""
    out: dict[int, Counter] = {}

    def seen(state) -> None:
        if state.phase == PLAY_PHASE:
            seat = state.current_player()
            if seat not in out:
                out[seat] = Counter(str(state.hand(seat)).split())

    replay_deal(read_records(record), seen)
    return out


def run_logs(db: Path, run_id: int) -> Path:
    """Where an arena run keeps its bots' stderr (``ENTRANT/seat-S.log``)."""
    return Path(f"{db}.bots") / f"run-{run_id}"


def learned(folder: Path) -> list[tuple[str, int, int, str, Counter]]:
    """Every claim in the colluders' logs below ``folder`` (``ENTRANT/seat-S.log``):
    (job key, reader's seat, seat, channel, cards)."""
    out = []
    for log in folder.glob("*/seat-*.log"):
        job = None
        for line in log.read_text(errors="replace").splitlines():
            m = re.match(r"--- job (\S+) ---", line)
            if m:
                job = m.group(1)
            m = re.match(r"LEARNED seat=(\d+) via=(\w+) cards=(\S*)", line)
            if m and job is not None:
                reader = int(re.search(r"seat-(\d+)", log.name).group(1))
                out.append((job, reader, int(m.group(1)), m.group(2), Counter(m.group(3).split(","))))
    return out


_X86 = os.uname().machine == "x86_64"
KEYCTL = 250 if _X86 else 219
USER_RINGS = (-4, -5)                   # KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING


def keyring_uids(folder: Path) -> set[int]:
    """The uids the colluders ran as (they log them when they add keys)."""
    return {int(m) for log in folder.glob("*/seat-*.log")
            for m in re.findall(r"KEYRING ring=\S+ uid=(\d+)", log.read_text(errors="replace"))}


def _uids_with_keys() -> set[int]:
    """The uids that hold keys now (``/proc/key-users``)."""
    try:
        text = Path("/proc/key-users").read_text()
    except OSError:
        return set()
    return {int(line.split(":")[0]) for line in text.splitlines() if line.strip()}


def _as_uid(uid: int, seats: int, clear: bool) -> dict[int, list[int]]:
    """In a child that takes ``uid`` (a later bot with that uid): the slots
    (``pengyou-slot-SEAT`` keys) its user keyrings hold, as bits; with
    ``clear``, those keyrings are then emptied and invalidated."""
    import json

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                                    # pragma: no cover (the child)
        os.close(r)
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.syscall.restype = ctypes.c_long
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            found: dict[int, list[int]] = {}
            for seat in range(seats):
                for ring in USER_RINGS:
                    key = libc.syscall(KEYCTL, 10, ctypes.c_long(ring), b"user", f"pengyou-slot-{seat}".encode(), 0)
                    if key >= 0:
                        buf = ctypes.create_string_buffer(4096)
                        n = libc.syscall(KEYCTL, 11, ctypes.c_long(key), buf, 4096)
                        if n > 0:
                            found[seat] = list(buf.raw[:n])
            if clear:                               # by serial: naming one again would make it anew
                serials = [libc.syscall(KEYCTL, 0, ctypes.c_long(ring), 0) for ring in USER_RINGS]
                for serial in serials:
                    if serial > 0:
                        libc.syscall(KEYCTL, 7, ctypes.c_long(serial))    # KEYCTL_CLEAR
                        libc.syscall(KEYCTL, 21, ctypes.c_long(serial))   # KEYCTL_INVALIDATE
            os.write(w, json.dumps(found).encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as fh:
        data = fh.read()
    os.waitpid(pid, 0)
    return {int(k): v for k, v in json.loads(data or b"{}").items()}


def keys_left(folder: Path, seats: int = 5) -> list[tuple[int, int, Counter]]:
    """What a later bot given a colluder's uid reads from its user keyrings:
    (uid, seat, cards); the keyrings are cleared as they are read."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("colluder", HOSTILE / "colluder.py")
    colluder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(colluder)
    holding = _uids_with_keys()
    out = []
    for uid in sorted(keyring_uids(folder) & holding):
        for seat, bits in _as_uid(uid, seats, clear=True).items():
            if len(bits) == colluder.BITS:
                out.append((uid, seat, Counter(colluder.decode(bits))))
    return out


def sysinfo_answers(folder: Path) -> int:
    """How many times ``sysinfo()`` answered a colluder."""
    return sum(log.read_text(errors="replace").count("SYSINFO answered") for log in folder.glob("*/seat-*.log"))


def overlap(a: Counter, b: Counter) -> float:
    """Shared cards over all cards of two hands (1.0: the same hand)."""
    return sum((a & b).values()) / max(1, sum((a | b).values()))


def hands_logged(folder: Path) -> int:
    """How many times a colluder reached the play phase and wrote its hand."""
    return sum(log.read_text(errors="replace").count("HAND seat=") for log in folder.glob("*/seat-*.log"))


@pytest.mark.parametrize("channels", ["pagecache", "keyring", "flock", "atime", "sysinfo"])
def test_no_hand_crosses_between_seats(tmp_path: Path, channels: str) -> None:
    folder = colluder_folder(tmp_path)
    spec = f"{folder / 'colluder.py'}:ColluderBot?channels={channels}"
    db = tmp_path / "collusion.db"
    proc = run(arena_args(db, ["random", spec], 1, 0), timeout=300)
    try:
        info = assert_complete(proc, db)
        run_id = int(info["id"])
        assert hands_logged(run_logs(db, run_id)) >= 4, "the colluders never wrote their hands: the test tried nothing"
        claims = learned(run_logs(db, run_id))
    finally:
        later = keys_left(run_logs(db, int(show(db)["run"]["id"]))) if db.exists() else []
    truths: dict[str, dict[int, Counter]] = {}

    def truth(job: str) -> dict[int, Counter]:
        if job not in truths:
            out = tmp_path / f"{job}.jsonl"
            p = run([PENGYOU, "arena", "record", job, "--db", str(db), "--out", str(out)], timeout=60)
            assert p.returncode == 0, p.stderr
            truths[job] = hands_at_first_play(out)
        return truths[job]

    hits = []
    for job, reader, seat, channel, cards in claims:
        held = truth(job).get(seat)
        if held is not None and overlap(cards, held) >= 0.8:
            hits.append((job, reader, seat, channel))
    con = sqlite3.connect(db)
    try:
        jobs = [k for (k,) in con.execute("SELECT key FROM jobs WHERE run_id = ?", (run_id,))]
    finally:
        con.close()
    for uid, seat, cards in later:            # a later bot with that uid: any hand that seat held
        if any(overlap(cards, truth(job).get(seat, Counter())) >= 0.8 for job in jobs):
            hits.append((f"uid {uid}", "later", seat, "keyring left behind"))
    assert not hits, f"hidden hands learned through the kernel: {hits[:5]} (of {len(claims) + len(later)} claims)"
    assert sysinfo_answers(run_logs(db, run_id)) == 0, "sysinfo() answered a bot"
    assert not show(db)["faults"] or all(f["entrant"] != 1 for f in show(db)["faults"])


# ------------------------------------------------------------------ on a ladder
HONEST = '''
class Honest:
    """A random legal action."""

    def restart(self, rules, seat, rng):
        self.rng = rng

    def step(self, view):
        return view.random_action(self.rng)
'''


@pytest.fixture
def shared_channels():
    """The colluders' channel files in a folder every bot may read (below
    the Python install, as a system file would be), removed afterwards: each
    ladder entrant has its own copy of its files, so two colluding entrants
    can meet only in a file outside them."""
    import sys
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix=".pengyou-collusion-", dir=sys.prefix))
    try:
        folder.chmod(0o755)
        yield fill_channels(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _ladder_hands(lad: Path) -> tuple[dict[str, dict[int, Counter]], list[tuple[int, int]], list]:
    """(each stored game's hands at first play by job key ``gGROUP-rROT``,
    each game's pair of entrant ids, each game's faults as (entrant id, kind))."""
    import io

    from arena.ladder import Ladder

    hands, pairs, faults = {}, [], []
    with Ladder(str(lad)).store(read_only=True) as st:
        for g in st.games():
            _, text = st.game(g.id)
            hands[f"g{g.group_id}-r{g.rotation}"] = hands_at_first_play(io.StringIO(text))
            pairs.append(g.pair)
            faults.extend((g.pair[f.entrant], f.kind) for f in g.result.faults if 0 <= f.entrant < 2)
    return hands, pairs, faults


def test_no_hand_crosses_between_colluding_ladder_entrants(tmp_path: Path, shared_channels: Path) -> None:
    """Two owners' colluders and two honest entrants on a sandboxed ladder
    (``ladder create --trusted none``, files submitted by ``ladder submit``,
    played by ``ladder run``): no colluder learns a hidden hand, of its own
    entrant's other seats, of the other colluder's, of this rotation or an
    earlier one, nor leaves one in a keyring for a later bot of its uid."""
    lad = tmp_path / "lad"

    def ladder(*args: str, timeout: float = 300):
        p = run([PENGYOU, "ladder", *args, "--ladder", str(lad)], timeout=timeout)
        assert p.returncode == 0 and "Traceback" not in p.stderr, (args, p.stdout[-2000:], p.stderr[-2000:])
        return p

    ladder("create", "--players", "5", "--trusted", "none", "--time-limit", "1", "--overage", "5")
    for who in ("ann", "bob"):
        sub = tmp_path / f"{who}-colluder"
        sub.mkdir()
        shutil.copy(HOSTILE / "colluder.py", sub / "colluder.py")
        (sub / "data-folder.txt").write_text(str(shared_channels))
        ladder("submit", str(sub), "--entry", "colluder.py", "--name", f"{who}-colluder", "--owner", who)
    for who in ("carol", "dave"):
        (tmp_path / f"{who}.py").write_text(HONEST)
        ladder("submit", str(tmp_path / f"{who}.py"), "--name", f"{who}-honest", "--owner", who)
    age_access_times(shared_channels)          # what the validation deals wrote there is gone
    from arena.ladder import Ladder

    ids = {e.name: e.id for e in Ladder(str(lad)).entrants()}
    colluders = {ids["ann-colluder"], ids["bob-colluder"]}
    before = procs()
    for _ in range(5):           # until the colluders met each other and each met an honest entrant
        ladder("run", "--rounds", "2", "--groups", "3", "--workers", "1", timeout=900)
        hands, pairs, faults = _ladder_hands(lad)
        met = {frozenset(p) for p in pairs}
        if colluders in met and all(any(c in p and p != colluders for p in met) for c in colluders):
            break
    assert colluders in met, f"the colluders never met at a table: {met}"
    assert survivors(before, "never-a-marker") == {}, "bot processes outlived the ladder runs"
    logs = lad / "logs"
    assert hands_logged(logs) >= 8, "the colluders never wrote their hands: the test tried nothing"
    jobs = {m for log in logs.glob("*/seat-*.log") for m in re.findall(r"--- job (\S+) ---", log.read_text())}
    assert jobs and jobs <= set(hands), "the logs do not name the stored games: the check would compare nothing"
    claims = learned(logs)
    later = keys_left(logs)
    hits = [(job, reader, seat, channel) for job, reader, seat, channel, cards in claims
            if overlap(cards, hands.get(job, {}).get(seat, Counter())) >= 0.8]
    for uid, seat, cards in later:            # a later bot with that uid: any hand that seat held
        if any(overlap(cards, h.get(seat, Counter())) >= 0.8 for h in hands.values()):
            hits.append((f"uid {uid}", "later", seat, "keyring left behind"))
    by_channel = Counter(h[3] for h in hits)
    assert not hits, f"hidden hands learned through the kernel, by channel: {dict(by_channel)}; {hits[:3]}"
    assert sysinfo_answers(logs) == 0, "sysinfo() answered a bot"
    assert [f for f in faults if f[0] in colluders] == []
