"""The limits of one bot process, as the referee asks for them and the
fork server applies them (:mod:`arena.sandbox.jail`, :mod:`arena.sandbox.cgroups`)."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Walls"]


@dataclass(frozen=True)
class Walls:
    """The limits of one bot process (sizes in MiB, times in seconds)."""

    memory_mb: int = 1024        #: address space of each process; with disk_mb, the cgroup's memory
    processes: int = 64          #: processes and threads of the bot's user
    files: int = 256             #: open file descriptors
    disk_mb: int = 64            #: its working directory (and any file it writes)
    cpu_seconds: int = 3600      #: CPU time over the process's life
    read: tuple[str, ...] = field(default=())   #: extra paths it may read
