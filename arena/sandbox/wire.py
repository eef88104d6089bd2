"""What the referee and its fork server share: the size of their messages,
and a wait for the end of processes that wakes the moment one ends."""

from __future__ import annotations

import math
import os
import select
import time

__all__ = ["MESSAGE_BYTES", "wait_for_end"]

#: The largest message between the referee and its fork server (JSON, one
#: datagram of a ``SOCK_SEQPACKET`` pair each way).
MESSAGE_BYTES = 1 << 16


def wait_for_end(pids: list[int], timeout: float) -> bool:
    """Wait up to ``timeout`` seconds until one of the processes ``pids`` (its
    own children or any it may signal) ends; whether one did. The wait wakes
    the moment one ends (pidfds): polling with sleeps would make every run
    pay their length as it shuts its bots and fork server down. Without
    pidfds it sleeps ``timeout`` at most 10 ms and says False."""
    fds = []
    try:
        for pid in pids:
            try:
                fds.append(os.pidfd_open(pid))
            except ProcessLookupError:
                return True                 # gone already
            except (AttributeError, OSError):
                time.sleep(min(timeout, 0.01))
                return False
        poller = select.poll()
        for fd in fds:
            poller.register(fd, select.POLLIN)
        return bool(poller.poll(max(0, math.ceil(min(timeout, 3600.0) * 1000))))
    finally:
        for fd in fds:
            os.close(fd)
