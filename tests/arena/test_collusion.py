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
from test_hostile import HOSTILE, PENGYOU, arena_args, as_root, assert_complete, run, show

from core.phases import PLAY_PHASE
from core.records import read_records, replay_deal


pytestmark = [pytest.mark.skipif(not os.sys.platform.startswith("linux"), reason="the sandbox is Linux only"), as_root]

SLOTS = 5 * 108


def colluder_folder(tmp_path: Path) -> Path:
    """The colluder's own folder (a bot folder: it may read all of it), with
    the files its channels use: one page a bit, a lock file and an
    access-time file a bit; access times set two days back (as on a machine
    whose files nobody read today)."""
    folder = tmp_path / "colluder"
    folder.mkdir()
    (folder / ".pengyou-bot").write_text("")
    shutil.copy(HOSTILE / "colluder.py", folder / "colluder.py")
    with open(folder / "pages.bin", "wb") as fh:
        fh.write(os.urandom(SLOTS * 4096))
        fh.flush()
        os.fsync(fh.fileno())                               # clean pages: they can be dropped
    old = time.time() - 2 * 86400
    for i in range(SLOTS):
        for kind in ("lock", "atime"):
            f = folder / f"{kind}-{i}"
            f.write_bytes(b"x")
            os.utime(f, (old, old))
    fd = os.open(folder / "pages.bin", os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)     # nothing of it cached yet
    os.close(fd)
    return folder


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


def learned(db: Path, run_id: int) -> list[tuple[str, int, int, str, Counter]]:
    """Every claim in the colluders' logs: (job key, reader's seat, seat, channel, cards)."""
    out = []
    folder = Path(f"{db}.bots") / f"run-{run_id}"
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


def keyring_uids(db: Path, run_id: int) -> set[int]:
    """The uids the colluders ran as (they log them when they add keys)."""
    folder = Path(f"{db}.bots") / f"run-{run_id}"
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


def keys_left(db: Path, run_id: int, seats: int = 5) -> list[tuple[int, int, Counter]]:
    """What a later bot given a colluder's uid reads from its user keyrings:
    (uid, seat, cards); the keyrings are cleared as they are read."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("colluder", HOSTILE / "colluder.py")
    colluder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(colluder)
    holding = _uids_with_keys()
    out = []
    for uid in sorted(keyring_uids(db, run_id) & holding):
        for seat, bits in _as_uid(uid, seats, clear=True).items():
            if len(bits) == colluder.BITS:
                out.append((uid, seat, Counter(colluder.decode(bits))))
    return out


def sysinfo_answers(db: Path, run_id: int) -> int:
    folder = Path(f"{db}.bots") / f"run-{run_id}"
    return sum(log.read_text(errors="replace").count("SYSINFO answered") for log in folder.glob("*/seat-*.log"))


def overlap(a: Counter, b: Counter) -> float:
    return sum((a & b).values()) / max(1, sum((a | b).values()))


def hands_logged(db: Path, run_id: int) -> int:
    """How many times a colluder reached the play phase and wrote its hand."""
    folder = Path(f"{db}.bots") / f"run-{run_id}"
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
        assert hands_logged(db, run_id) >= 4, "the colluders never wrote their hands: the test tried nothing"
        claims = learned(db, run_id)
    finally:
        later = keys_left(db, int(show(db)["run"]["id"])) if db.exists() else []
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
    assert sysinfo_answers(db, run_id) == 0, "sysinfo() answered a bot"
    assert not show(db)["faults"] or all(f["entrant"] != 1 for f in show(db)["faults"])
