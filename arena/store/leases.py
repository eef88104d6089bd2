"""Who plays which job: a runner's identity (host, process, a random part),
and whether the holder of a lease may still be alive."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from typing import Optional

__all__ = ["Owner"]


@dataclass(frozen=True)
class Owner:
    """A runner holding leases: this host, this process, and a random part
    (a pid can be reused)."""

    host: str
    pid: int
    id: str

    @classmethod
    def me(cls) -> Owner:
        """The owner that is this process."""
        import socket

        host = socket.gethostname()
        return cls(host, os.getpid(), f"{host}:{os.getpid()}:{secrets.token_hex(6)}")

    def kept_from(self, owner: str, host: str, pid: int, expires: float, now: float) -> bool:
        """Whether a lease (its owner's id, host, pid and end) keeps its job
        from this owner at ``now``: another owner's, not run out, and that
        owner not known to be gone."""
        return owner != self.id and expires > now and self.alive(host, pid)

    def alive(self, host: str, pid: int) -> bool:
        """Whether the owner on ``host`` with ``pid`` may still be running
        (always true of another host's: only its lease's time says)."""
        if host != self.host:
            return True
        if pid == self.pid:
            return True
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return _is_zombie(pid) is not True


def _is_zombie(pid: int) -> Optional[bool]:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (OSError, IndexError):
        return None
