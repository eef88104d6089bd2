"""The bots' seccomp filter: the system calls a sandboxed bot may not make.

Each refused call closes a class of kernel state that one bot process could
change and another observe (now, or later through state that outlives it),
or a door into kernel code that a bot has no use for (``docs/arena.md``,
"Threat model"):

- the network and io_uring (``socket``, ``io_uring_*``);
- leaving its process group, which the referee stops between turns
  (``setsid``, ``setpgid``);
- probes and evictions of the page cache of files every bot may read:
  ``mincore``, ``fadvise64``, ``readahead``, ``cachestat``,
  ``process_madvise``, ``madvise`` with ``MADV_COLD`` / ``MADV_PAGEOUT``, and
  ``preadv2`` / ``pwritev2`` with ``RWF_NOWAIT`` (a read that says whether a
  page is cached without caching it);
- the kernel's keyrings (``add_key``, ``request_key``, ``keyctl``), which
  outlive the process and are shared by uid or by session;
- new namespaces: ``unshare``, ``setns``, ``clone`` with ``CLONE_NEWUSER``;
  ``clone3`` (its flags live in memory a filter cannot read) fails with
  ``ENOSYS``, so the C library falls back to ``clone``;
- system-wide counters (``sysinfo``: free memory, process count);
- file locks and change notices on shared files (``flock``, ``fcntl`` locks
  and ``F_NOTIFY``, ``inotify``, ``fanotify``);
- ``perf_event_open``, ``userfaultfd`` and ``bpf``;
- without a control group, the calls that make memory the address-space
  limit does not count (``memfd_create``, ``shmget``, ``shmat``).

:func:`program` builds the classic-BPF program; :func:`install` loads it.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import platform
import struct
from dataclasses import dataclass
from typing import Optional

__all__ = ["Rule", "rules", "program", "compiled", "install"]

_LIBC = ctypes.CDLL(None, use_errno=True)

_EPERM = 0x00050000 | errno.EPERM
_EACCES = 0x00050000 | errno.EACCES
_ENOSYS = 0x00050000 | errno.ENOSYS
_ALLOW, _KILL = 0x7FFF0000, 0x80000000
_LD, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06

RWF_NOWAIT = 0x08
CLONE_NEWUSER = 0x10000000
MADV_COLD, MADV_PAGEOUT = 20, 21
#: fcntl commands refused: F_GETLK, F_SETLK, F_SETLKW, the OFD locks, F_NOTIFY.
FCNTL_REFUSED = (5, 6, 7, 36, 37, 38, 1026)


@dataclass(frozen=True)
class Rule:
    """One refused call: ``nr`` its number, ``ret`` the filter's answer;
    with ``arg`` set, refused only when that argument (its low 32 bits) has
    a bit of ``mask`` set, or equals one of ``values``."""

    nr: int
    ret: int = _EPERM
    arg: Optional[int] = None
    mask: int = 0
    values: tuple[int, ...] = ()


#: Per architecture: the audit value, whether x32 calls must be refused, and
#: the numbers of the calls named in this module's docstring.
_NR: dict[str, tuple[int, bool, dict[str, int]]] = {
    "x86_64": (0xC000003E, True, {
        "socket": 41, "setpgid": 109, "setsid": 112, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "mincore": 27, "madvise": 28, "fadvise64": 221, "readahead": 187,
        "cachestat": 451, "process_madvise": 440, "preadv2": 327, "pwritev2": 328, "add_key": 248,
        "request_key": 249, "keyctl": 250, "unshare": 272, "setns": 308, "clone": 56, "clone3": 435,
        "sysinfo": 99, "flock": 73, "fcntl": 72, "inotify_init": 253, "inotify_init1": 294,
        "inotify_add_watch": 254, "fanotify_init": 300, "fanotify_mark": 301, "perf_event_open": 298,
        "userfaultfd": 323, "bpf": 321, "memfd_create": 319, "shmget": 29, "shmat": 30}),
    "aarch64": (0xC00000B7, False, {
        "socket": 198, "setpgid": 154, "setsid": 157, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "mincore": 232, "madvise": 233, "fadvise64": 223, "readahead": 213,
        "cachestat": 451, "process_madvise": 440, "preadv2": 286, "pwritev2": 287, "add_key": 217,
        "request_key": 218, "keyctl": 219, "unshare": 97, "setns": 268, "clone": 220, "clone3": 435,
        "sysinfo": 179, "flock": 32, "fcntl": 25, "inotify_init1": 26, "inotify_add_watch": 27,
        "fanotify_init": 262, "fanotify_mark": 263, "perf_event_open": 241, "userfaultfd": 282,
        "bpf": 280, "memfd_create": 279, "shmget": 194, "shmat": 196}),
}

_WHOLE_EACCES = ("socket", "setpgid", "setsid", "io_uring_setup", "io_uring_enter", "io_uring_register")
_WHOLE_EPERM = ("mincore", "fadvise64", "readahead", "cachestat", "process_madvise", "add_key", "request_key",
                "keyctl", "unshare", "setns", "flock", "inotify_init", "inotify_init1", "inotify_add_watch",
                "fanotify_init", "fanotify_mark", "perf_event_open", "userfaultfd", "bpf")
_SHARED = ("memfd_create", "shmget", "shmat")


def rules(machine: str, shared: bool = True) -> Optional[tuple[int, bool, list[Rule]]]:
    """The audit value, the x32 flag and the rules for ``machine`` (None:
    no filter for it); ``shared=False`` refuses the calls of :data:`_SHARED`."""
    arch = _NR.get(machine)
    if arch is None:
        return None
    audit, x32, nr = arch
    out = [Rule(nr[n], _EACCES) for n in _WHOLE_EACCES]
    out += [Rule(nr[n]) for n in _WHOLE_EPERM if n in nr]
    out += [Rule(nr["sysinfo"], _ENOSYS), Rule(nr["clone3"], _ENOSYS),
            Rule(nr["madvise"], arg=2, values=(MADV_COLD, MADV_PAGEOUT)),
            Rule(nr["preadv2"], arg=5, mask=RWF_NOWAIT), Rule(nr["pwritev2"], arg=5, mask=RWF_NOWAIT),
            Rule(nr["clone"], arg=0, mask=CLONE_NEWUSER),
            Rule(nr["fcntl"], _EACCES, arg=1, values=FCNTL_REFUSED)]
    if not shared:
        out += [Rule(nr[n], _EACCES) for n in _SHARED]
    return audit, x32, out


def _block(rule: Rule) -> list[tuple[int, int, int, int]]:
    """The instructions after a match of the call's number (each path ends in a return)."""
    if rule.arg is None:
        return [(_RET, 0, 0, rule.ret)]
    load = (_LD, 0, 0, 16 + 8 * rule.arg)         # low 32 bits of the argument (little-endian)
    if rule.values:
        n = len(rule.values)
        tests = [(_JEQ, n - j, 0, v) for j, v in enumerate(rule.values)]
        return [load, *tests, (_RET, 0, 0, _ALLOW), (_RET, 0, 0, rule.ret)]
    return [load, (_JSET, 1, 0, rule.mask), (_RET, 0, 0, _ALLOW), (_RET, 0, 0, rule.ret)]


def program(audit: int, x32: bool, refused: list[Rule]) -> bytes:
    """The filter as classic BPF: a wrong architecture is killed, x32 calls
    are refused, each rule answers for its call, everything else is allowed."""
    prog: list[tuple[int, int, int, int]] = [(_LD, 0, 0, 4)]
    body: list[tuple[int, int, int, int]] = [(_LD, 0, 0, 0)]
    if x32:
        body += [(_JGE, 0, 1, 0x40000000), (_RET, 0, 0, _EACCES)]
    for rule in refused:
        block = _block(rule)
        body.append((_JEQ, 0, len(block), rule.nr))
        body += block
    body.append((_RET, 0, 0, _ALLOW))
    prog += [(_JEQ, 1, 0, audit), (_RET, 0, 0, _KILL)]      # wrong architecture: kill
    prog += body
    if len(prog) > 4096:
        raise ValueError("seccomp filter too long")
    return b"".join(struct.pack("HBBI", *ins) for ins in prog)


@functools.cache
def compiled(shared: bool = True) -> tuple[str, Optional[bytes]]:
    """This machine's name and its filter (None where there is none), made
    once per process: a fork server makes both before it forks any bot."""
    machine = platform.machine()
    found = rules(machine, shared)
    return machine, None if found is None else program(*found)


def install(missing: list[str], shared: bool = True) -> None:
    """Load the filter into this process (and all it starts); a system that
    refuses it is named in ``missing``."""
    machine, raw = compiled(shared)
    if raw is None:
        missing.append(f"seccomp (no filter for {machine})")
        return
    libc = _LIBC
    filt = ctypes.create_string_buffer(raw, len(raw))
    fprog = struct.pack("HxxxxxxP", len(raw) // 8, ctypes.addressof(filt))
    fbuf = ctypes.create_string_buffer(fprog, len(fprog))
    if libc.prctl(22, 2, fbuf, 0, 0) != 0:     # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
        import os

        missing.append(f"seccomp ({os.strerror(ctypes.get_errno())})")
