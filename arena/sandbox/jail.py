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
3. its own control group (:mod:`arena.sandbox.cgroups`: made by the fork
   server, joined here first of all), which caps the memory of all its
   processes together: their own pages, the shared memory they create
   (``memfd_create``, System V, tmpfs files), kernel memory such as pipe
   buffers; resource limits: address space,
   processes, open files, file size, CPU seconds, no core files; a high
   ``oom_score_adj`` (the host's OOM killer takes bots first);
4. as root: an unprivileged user of its own, never one an earlier bot had
   (:mod:`arena.sandbox.uids`), so it can neither signal nor read other
   processes, its process limit counts only its own processes and nothing
   an earlier bot left with its uid is its; every mount it sees is
   ``noatime`` (reading a file changes nothing another bot could see) and
   it has a fresh session keyring of its own;
5. ``no_new_privs``; Landlock: reading only the Python install, the
   engine's packages and system libraries, writing only in its directory,
   no TCP, and (ABI 6) no signals or abstract sockets outside itself;
6. a seccomp filter (:mod:`arena.sandbox.filter`) refusing the network,
   leaving its process group, probes of the page cache, keyrings, new
   namespaces, ``sysinfo``, file locks and change notices; without a
   control group, also ``memfd_create()`` and System V shared memory,
   whose pages the address-space limit does not count.

A layer the kernel refuses is skipped and named in the list :func:`enter`
returns, so the caller can warn; nothing here ever raises for that.

The names of the control groups' module that callers read with the walls
(:class:`Cgroups`, :data:`CGROUP_PREFIX`, :data:`CGROUP_WALL`) are
importable from here too, as is :class:`~arena.sandbox.walls.Walls`.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import resource
import signal
import stat
import struct
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

from .cgroups import CGROUP_PREFIX, CGROUP_WALL, Cgroups, join_group, write_file
from .filter import compiled as compiled_filter
from .filter import install as install_filter
from .uids import UID_BASE, next_uid
from .walls import Walls

__all__ = ["Walls", "enter", "prepare", "fork_alone", "die_with", "adopt_orphans", "UID_BASE", "read_paths",
           "Cgroups", "CGROUP_PREFIX", "CGROUP_WALL"]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWPID, CLONE_NEWNET = 0x00020000, 0x08000000, 0x20000000, 0x40000000
MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE, MS_NOSUID, MS_NODEV = 4096, 8192, 16384, 1 << 18, 2, 4
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, PR_SET_DUMPABLE = 1, 38, 22, 4
PR_SET_CHILD_SUBREAPER = 36


def _err() -> str:
    return os.strerror(ctypes.get_errno())


def read_paths(extra: Sequence[str] = ()) -> list[str]:
    """The paths a bot may read: the Python install, the engine's packages,
    system libraries and ``extra`` (never the project's root or its data)."""
    seen = list(_base_paths())
    for p in extra:
        real = os.path.realpath(p)
        if os.path.exists(real) and real not in seen:
            seen.append(real)
    return seen


@functools.lru_cache(maxsize=1)
def _base_paths() -> tuple[str, ...]:
    """:func:`read_paths` without the extras (found once a process)."""
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
    seen: list[str] = []
    for p in out:
        if os.path.exists(p) and p not in seen:
            seen.append(p)
    return tuple(seen)


def prepare() -> None:
    """Find, once, what :func:`enter` needs for every bot (the paths bots
    may read and which of their folders only root may enter, the seccomp
    filters): a fork server calls this before it forks any bot, so each
    forked bot finds them made."""
    _closed_plan(tuple(read_paths()))
    for shared in (True, False):
        compiled_filter(shared)


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


@functools.lru_cache(maxsize=8)
def _closed_plan(paths: tuple[str, ...]) -> tuple[tuple[str, tuple[tuple[str, bool], ...]], ...]:
    """Each directory among ``paths``' ancestors that only its owner may
    enter, with the outermost allowed paths inside it (and whether each is
    a directory)."""
    groups: dict[str, list[str]] = {}
    for p in paths:
        a = _closed_ancestor(p)
        if a is not None and a != p:
            groups.setdefault(a, []).append(p)
    plan = []
    for top, inside in groups.items():
        outer = [p for p in inside if not any(p != q and p.startswith(q + "/") for q in inside)]
        plan.append((top, tuple((p, os.path.isdir(p)) for p in outer)))
    return tuple(plan)


def _stage(home: str) -> str:
    """Where a bot whose folder is ``home`` stages its mounts: beside the
    folders of the others, and shared with them."""
    return os.path.join(os.path.dirname(home), ".stage")


def _open_closed_dirs(paths: Sequence[str], stage: str) -> None:
    """In a private mount namespace: over each directory that only its owner
    may enter, put a tmpfs through which only the allowed paths show.

    The allowed paths are bound first to places in ``stage``, a folder the
    bots of one fork server share (made by the first, found by the others:
    what each binds there is in its own namespace only, and is moved away)."""
    for i, (top, inside) in enumerate(_closed_plan(tuple(paths))):
        staged = []
        for j, (p, is_dir) in enumerate(inside):
            # a directory and a file can never share a mount point, and bots
            # with other read paths share this folder: the name says which
            s = os.path.join(stage, f"{i}-{j}-{'dir' if is_dir else 'file'}")
            bound = _mount(p, s, None, MS_BIND | MS_REC, None)
            if not bound and ctypes.get_errno() == errno.ENOENT:
                _mount_point(s, is_dir)
                bound = _mount(p, s, None, MS_BIND | MS_REC, None)
            if bound:
                staged.append((s, p))
        if not _mount("tmpfs", top, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=64k"):
            continue
        for s, p in staged:
            _mount_point(p, os.path.isdir(s))
            _mount(s, p, None, MS_MOVE, None)


MS_REMOUNT, MS_NOEXEC, MS_RDONLY, MS_NOATIME = 32, 8, 1, 1024
_MOUNT_FLAGS = {"ro": MS_RDONLY, "nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC}


def _no_atime(home: str, missing: list[str]) -> None:
    """In the bot's mount namespace: every mount but its home ``noatime``,
    so that reading a file (whose access time ``relatime`` would otherwise
    set once a day) leaves nothing another bot can ``stat``."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError as exc:
        missing.append(f"noatime mounts ({exc.strerror})")
        return
    failed = 0
    for line in lines:
        f = line.split(" - ")[0].split()
        if len(f) < 6:
            continue
        point = f[4].replace("\\040", " ")
        if point == home or point.startswith(_stage(home) + "/"):
            continue
        flags = MS_REMOUNT | MS_BIND | MS_NOATIME
        for opt in f[5].split(","):
            flags |= _MOUNT_FLAGS.get(opt, 0)
        if not _mount(None, point, None, flags, None):
            failed += 1
    if failed:
        missing.append(f"noatime mounts ({failed} refused)")


def _fresh_keyring() -> None:
    """A new, empty session keyring (nothing inherited from the referee's session)."""
    _libc.syscall(250 if os.uname().machine == "x86_64" else 219, 1, None)   # KEYCTL_JOIN_SESSION_KEYRING


def _namespaces(home: str, disk_mb: int, uid: int, paths: Sequence[str], missing: list[str]) -> None:
    """New network, IPC and mount namespaces, the private tmpfs home."""
    if _libc.unshare(CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWNS) != 0:
        missing.append(f"namespaces ({_err()})")
        return
    _mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    if not _mount("tmpfs", home, "tmpfs", MS_NOSUID | MS_NODEV,
                  f"mode=0700,uid={uid},gid={uid},size={disk_mb}m"):
        missing.append(f"a size-capped working directory ({_err()})")
    stage = _stage(home)
    try:
        try:
            os.mkdir(stage, 0o700)
        except FileExistsError:
            pass
        _open_closed_dirs(paths, stage)
    except OSError as exc:
        missing.append(f"reading the Python install ({exc.strerror})")
    _no_atime(home, missing)


_PID_NS: list[int] = []                 # this process's own PID namespace, opened once (fork_alone)


def fork_alone() -> tuple[int, bool]:
    """``fork()`` with the child as the first process of a new PID namespace
    (as root): when it dies, every process it started dies with it, and it
    sees no process outside. Returns what ``fork()`` does and whether the
    child is alone in its namespace.

    The namespace is made here, in the parent, for its next child only
    (``unshare(CLONE_NEWPID)``), and the parent's own is restored for its
    later children (``setns``): the child needs no second fork to enter it,
    and no process has to stay outside to wait for it."""
    alone = False
    if os.geteuid() == 0:
        if not _PID_NS:
            _PID_NS.append(_returnable_pid_ns())
        alone = _PID_NS[0] >= 0 and _libc.unshare(CLONE_NEWPID) == 0
    try:
        pid = os.fork()
    except BaseException:
        if alone:
            _own_pid_ns()
        raise
    if pid and alone:
        try:
            _own_pid_ns()
        except OSError:
            os.kill(pid, signal.SIGKILL)    # a child nobody will wait for must not run
            os.waitpid(pid, 0)
            raise
    return pid, alone


def _returnable_pid_ns() -> int:
    """A descriptor of this process's PID namespace if it may ``setns`` back
    into it (not in a user namespace of its own, where root is not the
    host's), else -1: then bots get no PID namespace (named as missing)."""
    try:
        fd = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return -1
    if _libc.setns(fd, CLONE_NEWPID) != 0:
        os.close(fd)
        return -1
    return fd


def _own_pid_ns() -> None:
    """In the parent after :func:`fork_alone`: its next children are born in its own namespace again."""
    if _libc.setns(_PID_NS[0], CLONE_NEWPID) != 0:
        raise OSError(ctypes.get_errno(), f"cannot return to this process's PID namespace ({_err()})")


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


def enter(home: str, walls: Walls, parent: int, cgroup: Optional[str] = None,
          also: Sequence[str] = (), alone: bool = False) -> list[str]:
    """Wall in this (just forked) process; ``home`` is its working directory
    (created here), ``parent`` the pid whose death must kill it, ``cgroup``
    the folder of its control group (:meth:`Cgroups.create`): without one,
    or if it cannot be joined, the calls that make shared memory are refused;
    ``also``: its groups in other hierarchies (cgroup v1's cpu, cpuacct);
    ``alone``: whether this process is the first of a PID namespace of its
    own (forked by :func:`fork_alone`; its parent is outside, so the
    parent's death is watched without checking ``getppid()``, which is 0).

    Returns the layers that could not be applied.
    """
    missing: list[str] = []
    counted = cgroup is not None and join_group(cgroup, missing)
    for extra in also:
        join_group(extra, missing, "a CPU share of its own (cgroup)")
    try:                                # the host's OOM killer takes bots before anything else
        write_file("/proc/self/oom_score_adj", "1000")
    except OSError:
        pass
    os.setsid()
    watched = 0 if alone else parent        # outside the namespace, the parent's pid reads as 0
    die_with(watched)
    root = os.geteuid() == 0
    uid = next_uid(_host_pid()) if root else os.getuid()
    try:
        os.mkdir(home, 0o700)
    except FileExistsError:
        pass
    except FileNotFoundError:
        os.makedirs(home, mode=0o700, exist_ok=True)
    paths = read_paths(walls.read)
    if root:
        os.chown(home, uid, uid)
        if not alone:
            missing.append("a PID namespace of its own")
        _namespaces(home, walls.disk_mb, uid, paths, missing)
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
    die_with(watched)                   # a change of user clears the parent-death signal
    _fresh_keyring()
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        missing.append(f"no_new_privs ({_err()})")
    _landlock(home, paths, missing)
    install_filter(missing, shared=counted)
    os.environ.clear()
    os.environ.update({"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "TMPDIR": home,
                       "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": "1",
                       "OPENBLAS_NUM_THREADS": "1"})
    return missing


def _host_pid() -> int:
    """This process's pid as the host sees it (``/proc`` is the host's), also
    inside a PID namespace of its own, where ``getpid()`` is 1."""
    try:
        return int(os.readlink("/proc/self"))
    except (OSError, ValueError):
        return os.getpid()
