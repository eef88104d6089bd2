"""The users sandboxed bots run as (when the arena runs as root).

Each bot process gets a uid no bot had before: ``UID_BASE + n`` for a
counter ``n`` kept in one root-only file per machine, advanced under a file
lock, so that fork servers of concurrent runs and workers never hand out
the same uid. A uid carries kernel state that can outlive its processes
(a user keyring, a per-user pipe-buffer and process count, a process stuck
in the kernel after a kill); a uid derived from a pid (which wraps after
``pid_max`` processes) would let a later bot inherit it. The counter wraps
only after :data:`UID_SPAN` bots.
"""

from __future__ import annotations

import fcntl
import os
import stat
from typing import Optional

__all__ = ["UID_BASE", "UID_SPAN", "next_uid", "counter_dir"]

#: Sandboxed bots run as uids from ``UID_BASE`` to ``UID_BASE + UID_SPAN - 1``.
UID_BASE = 200000
#: How many bots get a uid before the counter starts again.
UID_SPAN = 1 << 30
_DIR_NAME = "pengyou-sandbox-uids"
_PLACES = ("/run", "/var/run", "/var/lib", "/tmp")


def _safe_dir(path: str) -> bool:
    """A directory only root may change (not a link someone else planted)."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == 0 and not st.st_mode & 0o022


def counter_dir() -> Optional[str]:
    """The folder of the uid counter (made if need be), or None if no place
    fits (not root, nothing writable)."""
    if os.geteuid() != 0:
        return None
    for place in _PLACES:
        path = os.path.join(place, _DIR_NAME)
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        except OSError:
            continue
        if _safe_dir(path):
            return path
    return None


def next_uid(pid: int) -> int:
    """A uid no earlier bot had (``pid``, the caller's, is the fallback's
    offset where no counter can be kept, as before)."""
    folder = counter_dir()
    if folder is None:
        return UID_BASE + pid
    try:
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return UID_BASE + pid
    try:
        fd = os.open("next", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dfd)
    except OSError:
        os.close(dfd)
        return UID_BASE + pid
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        n = int(text) if text.isdigit() else 0
        os.pwrite(fd, f"{(n + 1) % UID_SPAN:<20d}\n".encode(), 0)
        return UID_BASE + n % UID_SPAN
    finally:
        os.close(fd)                    # the lock goes with the file
        os.close(dfd)
