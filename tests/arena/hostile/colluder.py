"""Attack 13: the seats of one entrant tell each other their hands through
kernel state (``tests/arena/test_collusion.py``).

At its first turn of the play phase each process writes its hand (108 bits:
two per card kind, for the two packs) into a slot of its seat in every
channel; at each turn it reads the slots of the other seats and logs, on
stderr, ``LEARNED seat=T via=CHANNEL cards=...`` the first time it could
decode that seat's slot in that channel. Slots
outlive the deal, so a later rotation of the same deal reads the hands its
opponents now hold. Channels (``DATA`` is the bot's own folder, which the
test fills, or the folder named in its file ``data-folder.txt``: on a
ladder each entrant has a copy of its files, so two colluding entrants meet
in a folder every bot may read):

- ``pagecache``: page ``i`` of ``DATA/pages.bin`` cached or not
  (``posix_fadvise(DONTNEED)`` to clear, a read to set,
  ``preadv2(RWF_NOWAIT)`` to look without caching);
- ``keyring``: a ``user`` key in the session keyring;
- ``flock``: a shared lock on ``DATA/lock-i`` (tested with ``LOCK_EX | LOCK_NB``);
- ``atime``: ``DATA/atime-i`` read (its access time moves);
- ``sysinfo``: whether ``sysinfo()`` answers at all (logged as ``SYSINFO``).
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import sys

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
KINDS = [r + s for s in "CDHS" for r in RANKS] + ["BJ", "RJ"]
BITS = 2 * len(KINDS)
PAGE = 4096
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_X86 = os.uname().machine == "x86_64"
ADD_KEY, KEYCTL, SYSINFO = (248, 250, 99) if _X86 else (217, 219, 179)


def encode(cards: list[str]) -> list[int]:
    """A hand as bits: two a card kind (the first copy, the second)."""
    bits = [0] * BITS
    for c in cards:
        i = 2 * KINDS.index(c)
        bits[i + 1 if bits[i] else i] = 1
    return bits


def decode(bits: list[int]) -> list[str]:
    """The cards that :func:`encode` made ``bits`` of."""
    return [k for i, k in enumerate(KINDS) for j in (0, 1) if bits[2 * i + j]]


class ColluderBot:
    """Writes its hand into every channel, reads the other seats' (see above)."""

    def __init__(self, channels: str = "pagecache+keyring+flock+atime+sysinfo") -> None:
        self.channels = channels.split("+")
        self.data = os.path.dirname(os.path.abspath(__file__))
        named = os.path.join(self.data, "data-folder.txt")
        if os.path.exists(named):
            with open(named) as fh:
                self.data = fh.read().strip()
        self.rng = None
        self.seat = 0
        self.wrote = False
        self.told: set[tuple[int, str]] = set()
        self.locks: list[int] = []

    def restart(self, rules, seat, rng) -> None:
        """A new deal: nothing written or learned yet."""
        self.rng, self.seat, self.wrote, self.told = rng, seat, False, set()

    def log(self, text: str) -> None:
        """One line to stderr (the arena keeps it in the seat's log)."""
        print(text, file=sys.stderr, flush=True)

    # ------------------------------------------------------------ channels
    def _pages(self, seat: int) -> range:
        return range(seat * BITS, (seat + 1) * BITS)

    def write_pagecache(self, bits: list[int]) -> None:
        """A page of the seat's slot cached for each 1 bit, dropped for each 0."""
        fd = os.open(os.path.join(self.data, "pages.bin"), os.O_RDONLY)
        try:
            for page, bit in zip(self._pages(self.seat), bits):
                try:
                    os.posix_fadvise(fd, page * PAGE, PAGE, os.POSIX_FADV_DONTNEED)
                except OSError:
                    pass
                if bit:
                    os.pread(fd, PAGE, page * PAGE)
        finally:
            os.close(fd)

    def read_pagecache(self, seat: int) -> list[int] | None:
        """Which pages of ``seat``'s slot are cached, looked at without caching them."""
        fd = os.open(os.path.join(self.data, "pages.bin"), os.O_RDONLY)
        buf = bytearray(PAGE)
        bits = []
        try:
            for page in self._pages(seat):
                try:
                    os.preadv(fd, [buf], page * PAGE, os.RWF_NOWAIT)
                    bits.append(1)
                except BlockingIOError:
                    bits.append(0)
                except OSError:
                    return None
        finally:
            os.close(fd)
        return bits

    def write_keyring(self, bits: list[int]) -> None:
        """The bits as a key in the session keyring and the user's."""
        payload = bytes(bits)
        for ring in (-3, -4):               # the session keyring, and the user's (which outlives the bot)
            key = _libc.syscall(ADD_KEY, b"user", f"pengyou-slot-{self.seat}".encode(), payload, len(payload),
                                ctypes.c_long(ring))
            err = errno.errorcode.get(ctypes.get_errno(), "?") if key < 0 else "ok"
            self.log(f"KEYRING ring={ring} uid={os.getuid()} seat={self.seat} add_key={err}")

    def read_keyring(self, seat: int) -> list[int] | None:
        """``seat``'s key from the session keyring, if any."""
        key = _libc.syscall(KEYCTL, 10, ctypes.c_long(-3), b"user", f"pengyou-slot-{seat}".encode(), 0)
        if key < 0:
            return None
        buf = ctypes.create_string_buffer(BITS)
        n = _libc.syscall(KEYCTL, 11, ctypes.c_long(key), buf, BITS)
        return list(buf.raw[:BITS]) if n == BITS else None

    def write_flock(self, bits: list[int]) -> None:
        """A shared lock held on the lock file of each 1 bit."""
        for fd in self.locks:
            os.close(fd)
        self.locks = []
        for i, bit in zip(self._pages(self.seat), bits):
            if bit:
                fd = os.open(os.path.join(self.data, f"lock-{i}"), os.O_RDONLY)
                try:
                    fcntl.flock(fd, fcntl.LOCK_SH)
                except OSError:
                    os.close(fd)
                    return
                self.locks.append(fd)

    def read_flock(self, seat: int) -> list[int] | None:
        """Which lock files of ``seat``'s slot someone holds locked."""
        bits = []
        for i in self._pages(seat):
            fd = os.open(os.path.join(self.data, f"lock-{i}"), os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                bits.append(0)
            except BlockingIOError:
                bits.append(1)
            except OSError:
                return None
            finally:
                os.close(fd)
        return bits

    def write_atime(self, bits: list[int]) -> None:
        """The access-time file of each 1 bit read."""
        for i, bit in zip(self._pages(self.seat), bits):
            if bit:
                with open(os.path.join(self.data, f"atime-{i}"), "rb") as fh:
                    fh.read()

    def read_atime(self, seat: int) -> list[int] | None:
        """Which access-time files of ``seat``'s slot were read today."""
        return [int(os.stat(os.path.join(self.data, f"atime-{i}")).st_atime > os.stat(
            os.path.join(self.data, f"atime-{i}")).st_mtime + 3600) for i in self._pages(seat)]

    # ------------------------------------------------------------ play
    def step(self, view):
        """Write the hand once in the play phase, read the others' at each turn; a random action."""
        if view.phase == "play":
            if not self.wrote:
                self.wrote = True
                cards = str(view.hand).split()
                self.log(f"HAND seat={self.seat} cards={','.join(sorted(cards))}")
                bits = encode(cards)
                for ch in self.channels:
                    if ch != "sysinfo":
                        getattr(self, f"write_{ch}")(bits)
                if "sysinfo" in self.channels:
                    buf = ctypes.create_string_buffer(256)
                    r = _libc.syscall(SYSINFO, buf)
                    self.log(f"SYSINFO {'answered' if r == 0 else errno.errorcode.get(ctypes.get_errno())}")
            for seat in range(len(view.hand_sizes)):
                if seat == self.seat:
                    continue
                for ch in self.channels:         # every channel, so that each one's hits are counted
                    if ch == "sysinfo" or (seat, ch) in self.told:
                        continue
                    bits = getattr(self, f"read_{ch}")(seat)
                    if bits and 0 < sum(bits) <= 40:
                        self.told.add((seat, ch))
                        self.log(f"LEARNED seat={seat} via={ch} cards={','.join(decode(bits))}")
        return view.random_action(self.rng)
