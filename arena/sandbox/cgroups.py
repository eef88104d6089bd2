"""Control groups: a memory limit on the whole of each bot.

The fork server makes a folder of groups for its bots (:meth:`Cgroups.make`)
and one group per bot (:meth:`Cgroups.create`); the bot joins its group
(:func:`join_group`, called by :func:`arena.sandbox.jail.enter`) before any
of its code runs. The kernel then counts every page of all the bot's
processes together (their own memory, the shared memory they create, their
tmpfs directory, kernel memory such as pipe buffers) and kills the bot when
it goes over; :meth:`Cgroups.ooms` says so afterwards. Groups are removed as
their bots end, and folders of fork servers that were killed are swept.
"""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Iterator
from typing import Optional

from .walls import Walls

__all__ = ["Cgroups", "CGROUP_PREFIX", "CGROUP_WALL", "join_group", "read_file", "write_file"]

#: The folder of a fork server's control groups is ``CGROUP_PREFIX + "PID-TOKEN"``
#: (its pid, and a random token: servers in two PID namespaces may share a pid).
CGROUP_PREFIX = "pengyou-sandbox-"
#: How the wall is named when it is missing (:func:`arena.sandbox.jail.enter`, the fork server's probe).
CGROUP_WALL = "a memory limit on the whole bot (cgroup)"


def read_file(path: str) -> str:
    """The whole text of a kernel file (a control group's or one in ``/proc``)."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read()


def write_file(path: str, text: str) -> None:
    """Write ``text`` to a kernel file (a control group's or one in ``/proc``)
    in one ``write``, as such files take a value."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _unescape(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def _hierarchies(controller: str = "memory") -> list[tuple[int, str, str]]:
    """(cgroup version, mount point, this process's group's folder) of each
    mounted hierarchy that can hold ``controller``, version 2 first."""
    own: dict[str, str] = {}
    for line in read_file("/proc/self/cgroup").splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            own[parts[1]] = parts[2]
    v1 = next((p for c, p in own.items() if controller in c.split(",")), None)
    out = []
    for line in read_file("/proc/self/mountinfo").splitlines():
        left, _, right = line.partition(" - ")
        f, r = left.split(), right.split()
        if len(f) < 5 or len(r) < 3:
            continue
        root, point, fstype = _unescape(f[3]), _unescape(f[4]), r[0]
        if fstype == "cgroup2":
            version, path = 2, own.get("")
        elif fstype == "cgroup" and controller in r[2].split(","):
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
            if "memory" in read_file(os.path.join(d, "cgroup.subtree_control")).split():
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
        #: cgroup v1: (controllers, folder) of the bots' groups in the cpu and cpuacct hierarchies.
        self.extra: list[tuple[tuple[str, ...], str]] = []
        #: Whether each bot gets a CPU share of its own: a group in the cpu
        #: controller, weighted as every other bot's (the default weight). No
        #: quota: a CFS quota doubled the cost of stopping and waking a bot at
        #: each decision, and the CPU-time charge already bounds what a bot
        #: may use in a turn (all its processes count against its budget).
        self.cpu = False

    @staticmethod
    def _places() -> list[tuple[int, Optional[str], str]]:
        """(version, the folder to make a server's folder in or None, our group)."""
        return [(v, _delegated(point, own) if v == 2 else own, own) for v, point, own in _hierarchies()]

    @staticmethod
    def _cpu_places() -> list[tuple[tuple[str, ...], str]]:
        """cgroup v1: (controllers, this process's group) of the cpu and cpuacct
        hierarchies (one entry where they are mounted together)."""
        out: list[tuple[tuple[str, ...], str]] = []
        for controller in ("cpu", "cpuacct"):
            for version, _, own in _hierarchies(controller):
                if version != 1:
                    continue
                same = [i for i, (_, o) in enumerate(out) if o == own]
                if same:
                    out[same[0]] = (out[same[0]][0] + (controller,), own)
                else:
                    out.append(((controller,), own))
                break
        return out

    @classmethod
    def parents(cls) -> list[str]:
        """The folders in which fork servers started by this process (or one
        in its group) make theirs (cgroup v1: in every hierarchy they use)."""
        try:
            found = [p for _, p, _ in cls._places() if p is not None]
            if found and os.path.exists(os.path.join(found[0], "memory.limit_in_bytes")):
                found += [own for _, own in cls._cpu_places() if own not in found]
            return found
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
            groups._cpu_setup()
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
        write_file(os.path.join(self.base, "cgroup.subtree_control"), "+memory")
        if "pids" not in read_file(os.path.join(self.base, "cgroup.controllers")).split():
            return False
        write_file(os.path.join(self.base, "cgroup.subtree_control"), "+pids")
        return True

    def _cpu_setup(self) -> None:
        """Give each bot a CPU share and bound of its own: v2, the cpu
        controller in the folder; v1, a folder in the cpu (and cpuacct)
        hierarchies named as the memory one. What is missing is noted."""
        if self.version == 2:
            try:
                if "cpu" in read_file(os.path.join(self.base, "cgroup.controllers")).split():
                    write_file(os.path.join(self.base, "cgroup.subtree_control"), "+cpu")
                    self.cpu = True
            except OSError:
                pass
        else:
            try:
                places = self._cpu_places()
            except OSError:
                places = []
            for controllers, own in places:
                Cgroups.sweep(own)
                base = os.path.join(own, os.path.basename(self.base))
                try:
                    os.mkdir(base)
                except FileExistsError:
                    pass
                except OSError:
                    continue
                self.extra.append((controllers, base))
                self.cpu = self.cpu or "cpu" in controllers
        if not self.cpu:
            self.notes.append("a CPU share of its own for each bot (no cpu controller)")

    def members(self, path: str) -> list[str]:
        """The groups of the bot whose memory group is ``path`` in the other
        hierarchies (cgroup v1's cpu and cpuacct; none in v2)."""
        name = os.path.basename(path)
        return [os.path.join(base, name) for _, base in self.extra]

    def cpu_file(self, path: str) -> Optional[str]:
        """The file holding the CPU time of the bot whose memory group is
        ``path``: ``cpu.stat`` (v2, microseconds) or ``cpuacct.usage`` (v1,
        nanoseconds); None where no group counts it."""
        if self.version == 2:
            return os.path.join(path, "cpu.stat")
        for controllers, base in self.extra:
            if "cpuacct" in controllers:
                return os.path.join(base, os.path.basename(path), "cpuacct.usage")
        return None

    def _create_extra(self, name: str) -> None:
        for _, base in self.extra:
            path = os.path.join(base, name)
            try:
                os.mkdir(path)
            except FileNotFoundError:
                os.mkdir(base)
                os.mkdir(path)
            except FileExistsError:
                pass

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
                self._create_extra(name)
            for fname, value, needed in settings:
                try:
                    write_file(os.path.join(path, fname), value)
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
            text = read_file(os.path.join(path, "memory.events" if self.version == 2 else "memory.oom_control"))
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
                write_file(os.path.join(path, "cgroup.kill"), "1")
                return
            except OSError:
                pass
        try:
            pids = read_file(os.path.join(path, "cgroup.procs")).split()
        except OSError:
            return
        for p in pids:
            try:
                os.kill(int(p), signal.SIGKILL)
            except (OSError, ValueError):
                pass

    def remove(self, path: str) -> bool:
        """Remove a bot's group (in every hierarchy), killing what is still
        in it; False while its processes are still ending (call again)."""
        gone = self._remove_one(path)
        for extra in self.members(path):
            gone = self._remove_one(extra) and gone
        return gone

    def _remove_one(self, path: str) -> bool:
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
        bases = [self.base] + [b for _, b in self.extra]
        while True:
            left = []
            for base in bases:
                try:
                    names = [n for n in os.listdir(base) if os.path.isdir(os.path.join(base, n))]
                except FileNotFoundError:
                    continue
                except OSError:
                    names = []
                if [n for n in names if not self._remove_one(os.path.join(base, n))]:
                    left.append(base)
                    continue
                try:
                    os.rmdir(base)
                except FileNotFoundError:
                    pass
                except OSError:
                    left.append(base)
            if not left:
                return True
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
    def servers(parent: str) -> Iterator[tuple[str, int]]:
        """The fork servers' folders under ``parent`` (one it cannot list has
        none): each folder's path and its server's pid."""
        try:
            names = os.listdir(parent)
        except OSError:
            return
        for name in names:
            pid = Cgroups.server_pid(name)
            if pid is not None:
                yield os.path.join(parent, name), pid

    @staticmethod
    def sweep(parent: str) -> None:
        """Remove the empty folders of fork servers that are gone (killed
        with everything that could tidy up after them)."""
        for base, pid in Cgroups.servers(parent):
            if _alive(pid):
                continue
            try:
                for sub in os.listdir(base):
                    if os.path.isdir(os.path.join(base, sub)):
                        os.rmdir(os.path.join(base, sub))
                os.rmdir(base)
            except OSError:
                pass


def _has_swap() -> bool:
    try:
        return len(read_file("/proc/swaps").splitlines()) > 1
    except OSError:
        return False


def join_group(cgroup: str, missing: list[str], wall: str = CGROUP_WALL) -> bool:
    """Move this process into its group (before any of the bot's code runs);
    False, with the reason (``wall`` and why) added to ``missing``, if it cannot.

    The process must have one thread (a child just forked by the
    single-threaded fork server): under cgroup v1 it moves that thread
    through the group's ``tasks`` file, which then moves all of it, and
    whatever it starts later is born inside. Moving a whole process
    through ``cgroup.procs`` makes the kernel wait for a grace period
    (4 to 16 ms here) on every start of a bot after a pause; the thread's
    move does not. Cgroup v2 has no ``tasks`` file outside threaded
    groups: there it is ``cgroup.procs``."""
    try:
        try:
            write_file(os.path.join(cgroup, "tasks"), "0")
        except FileNotFoundError:
            write_file(os.path.join(cgroup, "cgroup.procs"), "0")
        return True
    except OSError as exc:
        missing.append(f"{wall} (joining it: {exc.strerror})")
        return False
