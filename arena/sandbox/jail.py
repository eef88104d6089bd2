"""The walls around one bot process (Linux): what a sandboxed bot may touch.

:func:`enter` is called in a freshly forked child, before any of the bot's
code runs, and applies every layer the system allows, in this order:

1. its own session and process group; it is killed when its parent dies;
2. as root: new PID, network, IPC and mount namespaces (the bot is the first
   process of its PID namespace, so when it dies every process it started
   dies with it; no network interface exists; System V IPC is private), a
   size-capped tmpfs as its working directory, and directories that only
   root may enter (``/root`` holding the Python install) replaced by a
   tmpfs through which only the allowed paths show;
3. its own control group (:class:`Cgroups`, made by the fork server), which
   caps the memory of all its processes together: their own pages, the
   shared memory they create (``memfd_create``, System V, tmpfs files),
   kernel memory such as pipe buffers; resource limits: address space,
   processes, open files, file size, CPU seconds, no core files; a high
   ``oom_score_adj`` (the host's OOM killer takes bots first);
4. as root: an unprivileged user of its own (uid ``UID_BASE + pid``), so
   it can neither signal nor read other processes and its process limit
   counts only its own processes;
5. ``no_new_privs``; Landlock: reading only the Python install, the
   engine's packages and system libraries, writing only in its directory,
   no TCP, and (ABI 6) no signals or abstract sockets outside itself;
6. a seccomp filter refusing ``socket()`` and ``io_uring`` (no network
   or Unix-socket channel even where a namespace is missing), and
   ``setsid()`` / ``setpgid()``: no process of the bot leaves its process
   group, which the referee stops between the bot's turns; without a
   control group, also ``memfd_create()`` and System V shared memory,
   whose pages the address-space limit does not count.

A layer the kernel refuses is skipped and named in the list :func:`enter`
returns, so the caller can warn; nothing here ever raises for that.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import re
import resource
import signal
import stat
import struct
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

__all__ = ["Walls", "enter", "die_with", "adopt_orphans", "UID_BASE", "read_paths", "Cgroups", "CGROUP_PREFIX", "CGROUP_WALL"]

#: Sandboxed bots run as ``UID_BASE + pid`` when started by root.
UID_BASE = 200000

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWPID, CLONE_NEWNET = 0x00020000, 0x08000000, 0x20000000, 0x40000000
MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE, MS_NOSUID, MS_NODEV = 4096, 8192, 16384, 1 << 18, 2, 4
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, PR_SET_DUMPABLE = 1, 38, 22, 4
PR_SET_CHILD_SUBREAPER = 36


@dataclass(frozen=True)
class Walls:
    """The limits of one bot process (sizes in MiB, times in seconds)."""

    memory_mb: int = 1024        #: address space of each process; with disk_mb, the cgroup's memory
    processes: int = 64          #: processes and threads of the bot's user
    files: int = 256             #: open file descriptors
    disk_mb: int = 64            #: its working directory (and any file it writes)
    cpu_seconds: int = 3600      #: CPU time over the process's life
    read: tuple[str, ...] = field(default=())   #: extra paths it may read


def _err() -> str:
    return os.strerror(ctypes.get_errno())


def read_paths(extra: Sequence[str] = ()) -> list[str]:
    """The paths a bot may read: the Python install, the engine's packages,
    system libraries and ``extra`` (never the project's root or its data)."""
    import bots
    import core

    # the arena's folder from this file's place in it (arena/sandbox/jail.py): the
    # sandbox sits below the arena's top and does not import it
    arena_init = os.path.join(os.path.dirname(os.path.dirname(__file__)), "__init__.py")
    out = ["/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/sys/devices/system/cpu"]
    for p in {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable))}:
        out.append(os.path.realpath(p))
    for entry in sys.path:
        if entry and ("site-packages" in entry or "dist-packages" in entry or entry.startswith(sys.base_prefix)):
            out.append(os.path.realpath(entry))
    for init in (core.__file__, bots.__file__, arena_init):
        assert init is not None                     # regular packages: each has an __init__.py
        out.append(os.path.dirname(os.path.realpath(init)))
    out.extend(os.path.realpath(p) for p in extra)
    seen: list[str] = []
    for p in out:
        if os.path.exists(p) and p not in seen:
            seen.append(p)
    return seen


# ------------------------------------------------------------------ namespaces
def _mount(src: Optional[str], target: str, fstype: Optional[str], flags: int, data: Optional[str]) -> bool:
    def enc(s: Optional[str]) -> Optional[bytes]:
        return None if s is None else s.encode()

    return _libc.mount(enc(src), target.encode(), enc(fstype), flags, enc(data)) == 0


def _closed_ancestor(path: str) -> Optional[str]:
    """The first ancestor of ``path`` that others may not enter, if any."""
    parts = Path(path).parts
    for i in range(2, len(parts) + 1):
        p = str(Path(*parts[:i]))
        try:
            mode = os.stat(p).st_mode
        except OSError:
            return None
        if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
            return p
    return None


def _mount_point(path: str, is_dir: bool) -> None:
    """An empty directory or file at ``path`` to mount on."""
    if is_dir:
        os.makedirs(path, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "a").close()


def _open_closed_dirs(paths: Sequence[str], stage: str) -> None:
    """In a private mount namespace: over each directory that only its owner
    may enter, put a tmpfs through which only the allowed paths show."""
    groups: dict[str, list[str]] = {}
    for p in paths:
        a = _closed_ancestor(p)
        if a is not None and a != p:
            groups.setdefault(a, []).append(p)
    for i, (top, inside) in enumerate(groups.items()):
        inside = [p for p in inside if not any(p != q and p.startswith(q + "/") for q in inside)]
        staged = []
        for j, p in enumerate(inside):
            s = os.path.join(stage, f"{i}-{j}")
            _mount_point(s, os.path.isdir(p))
            if _mount(p, s, None, MS_BIND | MS_REC, None):
                staged.append((s, p))
        if not _mount("tmpfs", top, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=64k"):
            continue
        for s, p in staged:
            _mount_point(p, os.path.isdir(s))
            _mount(s, p, None, MS_MOVE, None)


def _namespaces(home: str, disk_mb: int, uid: int, paths: Sequence[str], missing: list[str]) -> bool:
    """New namespaces, the private tmpfs home; True if the PID namespace is new
    (the caller must fork once more: the child is its first process)."""
    flags = CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWNS
    if _libc.unshare(flags) != 0:
        missing.append(f"namespaces ({_err()})")
        return False
    _mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    if not _mount("tmpfs", home, "tmpfs", MS_NOSUID | MS_NODEV,
                  f"mode=0700,uid={uid},gid={uid},size={disk_mb}m"):
        missing.append(f"a size-capped working directory ({_err()})")
    stage = home + ".stage"
    try:
        os.makedirs(stage, exist_ok=True)
        _open_closed_dirs(paths, stage)
    except OSError as exc:
        missing.append(f"reading the Python install ({exc.strerror})")
    return True


# ------------------------------------------------------------------ control groups
#: The folder of a fork server's control groups is ``CGROUP_PREFIX + "PID-TOKEN"``
#: (its pid, and a random token: servers in two PID namespaces may share a pid).
CGROUP_PREFIX = "pengyou-sandbox-"
#: How the wall is named when it is missing (:func:`enter`, the fork server's probe).
CGROUP_WALL = "a memory limit on the whole bot (cgroup)"


def _read(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read()


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _unescape(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def _hierarchies() -> list[tuple[int, str, str]]:
    """(cgroup version, mount point, this process's group's folder) of each
    mounted hierarchy that can hold the memory controller, version 2 first."""
    own: dict[str, str] = {}
    for line in _read("/proc/self/cgroup").splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            own[parts[1]] = parts[2]
    v1 = next((p for c, p in own.items() if "memory" in c.split(",")), None)
    out = []
    for line in _read("/proc/self/mountinfo").splitlines():
        left, _, right = line.partition(" - ")
        f, r = left.split(), right.split()
        if len(f) < 5 or len(r) < 3:
            continue
        root, point, fstype = _unescape(f[3]), _unescape(f[4]), r[0]
        if fstype == "cgroup2":
            version, path = 2, own.get("")
        elif fstype == "cgroup" and "memory" in r[2].split(","):
            version, path = 1, v1
        else:
            continue
        if path is None:
            continue
        rel = os.path.relpath(path, root)
        if rel == ".." or rel.startswith("../"):
            continue                                # this mount does not show our group
        out.append((version, point, os.path.normpath(os.path.join(point, rel))))
    return sorted(out, key=lambda t: -t[0])


def _delegated(point: str, own: str) -> Optional[str]:
    """cgroup v2: the nearest of our group and its ancestors (within the
    mount) that gives the memory controller to its children."""
    d = own
    while True:
        try:
            if "memory" in _read(os.path.join(d, "cgroup.subtree_control")).split():
                return d
        except OSError:
            pass
        if len(d) <= len(point) or d == os.path.dirname(d):
            return None
        d = os.path.dirname(d)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


class Cgroups:
    """The control groups of one fork server's bots: a folder
    ``pengyou-sandbox-PID-TOKEN`` in the server's own group (cgroup v1), or in the
    nearest ancestor that delegates the memory controller (v2), holding one
    group per bot. A bot's group caps the memory of all its processes
    together at ``memory_mb + disk_mb`` (its tmpfs directory is charged to
    it), with no swap, and (v2) its processes at ``processes``; the kernel
    kills the bot (v2: all of it) when it goes over, and :meth:`ooms` says so.
    """

    def __init__(self, version: int, base: str) -> None:
        self.version = version
        self.base = base
        #: Parts of the wall this system lacks (for the fork server's warning).
        self.notes: list[str] = []

    @staticmethod
    def _places() -> list[tuple[int, Optional[str], str]]:
        """(version, the folder to make a server's folder in or None, our group)."""
        return [(v, _delegated(point, own) if v == 2 else own, own) for v, point, own in _hierarchies()]

    @classmethod
    def parents(cls) -> list[str]:
        """The folders in which fork servers started by this process (or one
        in its group) make theirs."""
        try:
            return [p for _, p, _ in cls._places() if p is not None]
        except OSError:
            return []

    @classmethod
    def make(cls, pid: int) -> tuple[Optional[Cgroups], str]:
        """The folder of the fork server ``pid``, made now (and folders of
        servers that died, removed if empty); or None and why not."""
        try:
            found = cls._places()
        except OSError as exc:
            return None, f"cannot read this process's cgroups ({exc.strerror})"
        why = "no cgroup hierarchy with the memory controller is mounted"
        for version, parent, own in found:
            if parent is None:
                why = f"no group from {own} up gives the memory controller to its children"
                continue
            cls.sweep(parent)
            base = os.path.join(parent, f"{CGROUP_PREFIX}{pid}-{os.urandom(4).hex()}")
            try:
                os.mkdir(base)
            except FileExistsError:
                pass
            except OSError as exc:
                why = f"cannot make a group in {parent} ({exc.strerror})"
                continue
            groups = cls(version, base)
            try:
                if not groups._delegate():
                    groups.notes.append("a process limit on the whole bot (no pids controller)")
            except OSError as exc:
                groups.close(0)
                why = f"cannot give the memory controller to the groups in {base} ({exc.strerror})"
                continue
            swap = "memory.swap.max" if version == 2 else "memory.memsw.limit_in_bytes"
            if not os.path.exists(os.path.join(base, swap)) and _has_swap():
                groups.notes.append(f"a swap limit on the whole bot (no {swap})")
            return groups, ""
        return None, why

    def _delegate(self) -> bool:
        """cgroup v2: give the bots' groups the memory controller (and the
        pids controller: False where there is none)."""
        if self.version == 1:
            return True
        _write(os.path.join(self.base, "cgroup.subtree_control"), "+memory")
        if "pids" not in _read(os.path.join(self.base, "cgroup.controllers")).split():
            return False
        _write(os.path.join(self.base, "cgroup.subtree_control"), "+pids")
        return True

    def create(self, name: str, walls: Walls) -> str:
        """A new group ``name`` for one bot with these walls; its folder."""
        path = os.path.join(self.base, name)
        try:
            os.mkdir(path)
        except FileNotFoundError:                   # swept away meanwhile: make the folder again
            os.mkdir(self.base)
            self._delegate()
            os.mkdir(path)
        limit = str((walls.memory_mb + walls.disk_mb) << 20)
        try:
            if self.version == 2:
                settings = [("memory.max", limit, True), ("memory.swap.max", "0", False),
                            ("memory.oom.group", "1", False), ("pids.max", str(walls.processes), False)]
            else:
                settings = [("memory.limit_in_bytes", limit, True), ("memory.memsw.limit_in_bytes", limit, False)]
            for fname, value, needed in settings:
                try:
                    _write(os.path.join(path, fname), value)
                except FileNotFoundError:
                    if needed:
                        raise
        except OSError:
            self.remove(path)
            raise
        return path

    def ooms(self, path: str) -> int:
        """How many processes of the group the kernel killed for its memory."""
        try:
            text = _read(os.path.join(path, "memory.events" if self.version == 2 else "memory.oom_control"))
        except OSError:
            return 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
        return 0

    def _kill(self, path: str) -> None:
        if self.version == 2:
            try:
                _write(os.path.join(path, "cgroup.kill"), "1")
                return
            except OSError:
                pass
        try:
            pids = _read(os.path.join(path, "cgroup.procs")).split()
        except OSError:
            return
        for p in pids:
            try:
                os.kill(int(p), signal.SIGKILL)
            except (OSError, ValueError):
                pass

    def remove(self, path: str) -> bool:
        """Remove a bot's group, killing what is still in it; False while
        its processes are still ending (call again)."""
        for attempt in range(2):
            try:
                os.rmdir(path)
                return True
            except FileNotFoundError:
                return True
            except OSError:
                if attempt == 0:
                    self._kill(path)
        return False

    def close(self, wait: float = 5.0) -> bool:
        """Remove every bot's group and the folder, waiting up to ``wait``
        seconds for processes to end; True if nothing is left."""
        import time

        deadline = time.monotonic() + wait
        while True:
            try:
                names = [n for n in os.listdir(self.base) if os.path.isdir(os.path.join(self.base, n))]
            except FileNotFoundError:
                return True
            except OSError:
                names = []
            left = [n for n in names if not self.remove(os.path.join(self.base, n))]
            if not left:
                try:
                    os.rmdir(self.base)
                    return True
                except FileNotFoundError:
                    return True
                except OSError:
                    pass
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)

    @staticmethod
    def server_pid(name: str) -> Optional[int]:
        """The pid of the fork server whose folder is named ``name``, if it is one.

        >>> Cgroups.server_pid("pengyou-sandbox-123-0a1b2c3d"), Cgroups.server_pid("user.slice")
        (123, None)
        """
        m = re.fullmatch(re.escape(CGROUP_PREFIX) + r"(\d+)-[0-9a-f]+", name)
        return int(m.group(1)) if m else None

    @staticmethod
    def sweep(parent: str) -> None:
        """Remove the empty folders of fork servers that are gone (killed
        with everything that could tidy up after them)."""
        try:
            names = os.listdir(parent)
        except OSError:
            return
        for name in names:
            pid = Cgroups.server_pid(name)
            if pid is None or _alive(pid):
                continue
            base = os.path.join(parent, name)
            try:
                for sub in os.listdir(base):
                    if os.path.isdir(os.path.join(base, sub)):
                        os.rmdir(os.path.join(base, sub))
                os.rmdir(base)
            except OSError:
                pass


def _has_swap() -> bool:
    try:
        return len(_read("/proc/swaps").splitlines()) > 1
    except OSError:
        return False


def _join(cgroup: str, missing: list[str]) -> bool:
    """Move this process into its group (before any of the bot's code runs)."""
    try:
        _write(os.path.join(cgroup, "cgroup.procs"), "0")
        return True
    except OSError as exc:
        missing.append(f"{CGROUP_WALL} (joining it: {exc.strerror})")
        return False


# ------------------------------------------------------------------ landlock
_LL_CREATE, _LL_ADD, _LL_RESTRICT = 444, 445, 446
_FS_EXEC, _FS_WRITE, _FS_READ, _FS_READDIR = 1, 2, 4, 8
_FILE_RIGHTS = {1: 0b111, 2: 0b111, 3: 0b111 | (1 << 14), 4: 0b111 | (1 << 14),
                5: 0b111 | (1 << 14) | (1 << 15)}


def _landlock(home: str, paths: Sequence[str], missing: list[str]) -> None:
    abi = _libc.syscall(_LL_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 1:
        missing.append(f"Landlock ({_err()})")
        return
    fs = (1 << 13) - 1
    if abi >= 2:
        fs |= 1 << 13
    if abi >= 3:
        fs |= 1 << 14
    if abi >= 5:
        fs |= 1 << 15
    net = 0b11 if abi >= 4 else 0
    scoped = 0b11 if abi >= 6 else 0
    attr = struct.pack("QQQ", fs, net, scoped)
    size = 8 if abi < 4 else (16 if abi < 6 else 24)
    buf = ctypes.create_string_buffer(attr[:size], size)
    rs = _libc.syscall(_LL_CREATE, buf, ctypes.c_size_t(size), ctypes.c_uint32(0))
    if rs < 0:
        missing.append(f"Landlock ({_err()})")
        return
    file_rights = _FILE_RIGHTS.get(abi, _FILE_RIGHTS[5])

    def allow(path: str, rights: int) -> None:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return
        try:
            if not os.path.isdir(path):
                rights &= file_rights
            rule = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd), 12)
            _libc.syscall(_LL_ADD, rs, 1, rule, 0)
        finally:
            os.close(fd)

    for p in paths:
        allow(p, _FS_EXEC | _FS_READ | _FS_READDIR)
    for dev in ("/dev/null", "/dev/zero"):
        allow(dev, _FS_READ | _FS_WRITE)
    for dev in ("/dev/urandom", "/dev/random"):
        allow(dev, _FS_READ)
    allow(home, fs)
    if _libc.syscall(_LL_RESTRICT, rs, 0) != 0:
        missing.append(f"Landlock ({_err()})")
    os.close(rs)
    if abi < 6:
        missing.append("Landlock signal scoping (needs Landlock ABI 6)")


# ------------------------------------------------------------------ seccomp
_ARCH = {"x86_64": (0xC000003E, {"socket": 41, "setpgid": 109, "setsid": 112}, True),
         "aarch64": (0xC00000B7, {"socket": 198, "setpgid": 154, "setsid": 157}, False)}
_IO_URING = (425, 426, 427)
#: Calls that make memory the address-space limit does not count: refused
#: where no control group counts it (``memfd_create``, ``shmget``, ``shmat``).
_SHARED = {"x86_64": (319, 29, 30), "aarch64": (279, 194, 196)}


def _seccomp(missing: list[str], shared: bool = True) -> None:
    """The filter; ``shared=False`` refuses the calls of :data:`_SHARED` too."""
    arch = _ARCH.get(platform.machine())
    if arch is None:
        missing.append(f"seccomp (no filter for {platform.machine()})")
        return
    audit, calls, x32 = arch
    deny = list(calls.values()) + list(_IO_URING)
    if not shared:
        deny += _SHARED[platform.machine()]
    LD, JEQ, JGE, RET = 0x20, 0x15, 0x35, 0x06
    allow, refuse, kill = 0x7FFF0000, 0x00050000 | errno.EACCES, 0x80000000
    prog = [(LD, 0, 0, 4)]
    body = [(LD, 0, 0, 0)]
    if x32:
        body.append((JGE, 0, 0, 0x40000000))       # patched below: x32 calls are refused
    for nr in deny:
        body.append((JEQ, 0, 0, nr))
    body += [(RET, 0, 0, allow), (RET, 0, 0, refuse)]
    # jumps: every test jumps to 'refuse' (the last) when it matches
    last = len(body) - 1
    fixed = []
    for i, (code, jt, jf, k) in enumerate(body):
        if code in (JEQ, JGE):
            jt = last - i - 1
        fixed.append((code, jt, jf, k))
    prog.append((JEQ, 0, len(fixed), audit))       # wrong architecture: kill
    prog += fixed + [(RET, 0, 0, kill)]
    raw = b"".join(struct.pack("HBBI", *ins) for ins in prog)
    filt = ctypes.create_string_buffer(raw, len(raw))
    fprog = struct.pack("HxxxxxxP", len(prog), ctypes.addressof(filt))
    fbuf = ctypes.create_string_buffer(fprog, len(fprog))
    if _libc.prctl(PR_SET_SECCOMP, 2, fbuf, 0, 0) != 0:
        missing.append(f"seccomp ({_err()})")


# ------------------------------------------------------------------ all of it
def die_with(parent: int) -> None:
    """Be killed when the parent ``parent`` dies (or end now if it already has)."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def adopt_orphans() -> None:
    """Become the parent of this process's orphaned descendants (a bot whose
    waiting parent died first), so that this process, not the system's
    init, reaps them."""
    _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _limits(w: Walls, uid_own: bool, missing: list[str]) -> None:
    mb = 1 << 20
    lims = [(resource.RLIMIT_AS, w.memory_mb * mb), (resource.RLIMIT_NOFILE, w.files),
            (resource.RLIMIT_FSIZE, w.disk_mb * mb), (resource.RLIMIT_CORE, 0),
            (resource.RLIMIT_CPU, w.cpu_seconds)]
    if uid_own:
        lims.append((resource.RLIMIT_NPROC, w.processes))
    for which, value in lims:
        try:
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError) as exc:
            missing.append(f"resource limit {which} ({exc})")


def enter(home: str, walls: Walls, parent: int, cgroup: Optional[str] = None) -> tuple[list[str], bool]:
    """Wall in this (just forked) process; ``home`` is its working directory
    (created here), ``parent`` the pid whose death must kill it, ``cgroup``
    the folder of its control group (:meth:`Cgroups.create`): without one,
    or if it cannot be joined, the calls that make shared memory are refused.

    Returns (the layers that could not be applied, whether the caller must
    fork once more to enter the new PID namespace: the child is the bot).
    """
    missing: list[str] = []
    counted = cgroup is not None and _join(cgroup, missing)
    try:                                # the host's OOM killer takes bots before anything else
        _write("/proc/self/oom_score_adj", "1000")
    except OSError:
        pass
    os.setsid()
    die_with(parent)
    root = os.geteuid() == 0
    uid = UID_BASE + os.getpid()
    os.makedirs(home, mode=0o700, exist_ok=True)
    paths = read_paths(walls.read)
    newpid = False
    if root:
        os.chown(home, uid, uid)
        newpid = _namespaces(home, walls.disk_mb, uid, paths, missing)
    else:
        missing.append("namespaces and a user of its own (not started as root)")
    os.chdir(home)
    _limits(walls, root, missing)
    if root:
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        except OSError as exc:
            missing.append(f"a user of its own ({exc.strerror})")
    die_with(parent)                    # a change of user clears the parent-death signal
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        missing.append(f"no_new_privs ({_err()})")
    _landlock(home, paths, missing)
    _seccomp(missing, shared=counted)
    os.environ.clear()
    os.environ.update({"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "TMPDIR": home,
                       "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": "1",
                       "OPENBLAS_NUM_THREADS": "1"})
    return missing, newpid
