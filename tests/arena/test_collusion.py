"""Collusion through the kernel: the seats of one entrant try to tell each
other their hands (``tests/arena/hostile/colluder.py``) in a real
``pengyou arena run``; each writes what it learned into its own log, and
no hidden card may be learned (compared with the stored records: the hand
each seat held at its first turn of the play phase).

Linux only, as root (the walls need it), like ``test_hostile.py``.
"""

from __future__ import annotations

import os
import re
import shutil
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


def sysinfo_answers(db: Path, run_id: int) -> int:
    folder = Path(f"{db}.bots") / f"run-{run_id}"
    return sum(log.read_text(errors="replace").count("SYSINFO answered") for log in folder.glob("*/seat-*.log"))


def overlap(a: Counter, b: Counter) -> float:
    return sum((a & b).values()) / max(1, sum((a | b).values()))


@pytest.mark.parametrize("channels", ["pagecache", "keyring", "flock", "atime", "sysinfo"])
def test_no_hand_crosses_between_seats(tmp_path: Path, channels: str) -> None:
    folder = colluder_folder(tmp_path)
    spec = f"{folder / 'colluder.py'}:ColluderBot?channels={channels}"
    db = tmp_path / "collusion.db"
    proc = run(arena_args(db, ["random", spec], 1, 0), timeout=300)
    info = assert_complete(proc, db)
    run_id = int(info["id"])
    claims = learned(db, run_id)
    hits = []
    for job, reader, seat, channel, cards in claims:
        out = tmp_path / f"{job}.jsonl"
        if not out.exists():
            p = run([PENGYOU, "arena", "record", job, "--db", str(db), "--out", str(out)], timeout=60)
            assert p.returncode == 0, p.stderr
        truth = hands_at_first_play(out).get(seat)
        if truth is not None and overlap(cards, truth) >= 0.8:
            hits.append((job, reader, seat, channel))
    assert not hits, f"hidden hands learned through the kernel: {hits[:5]} (of {len(claims)} claims)"
    assert sysinfo_answers(db, run_id) == 0, "sysinfo() answered a bot"
    assert not show(db)["faults"] or all(f["entrant"] != 1 for f in show(db)["faults"])
