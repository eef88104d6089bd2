"""The fork server: the process a :class:`~arena.sandbox.forkserver.Zygote`
starts (``python -m arena.sandbox SOCKET_FD PARENT_PID``).

It is an exec'd interpreter that has imported the engine and the built-in
bots once and holds nothing of the referee's. On each request it forks a bot
process, walls it in (:mod:`arena.sandbox.jail`, in its own control group
where the system allows one: :mod:`arena.sandbox.cgroups`) and runs the
Python host (:mod:`arena.sandbox.host`) or a program; it reports each bot's
end (and whether the kernel killed it over its memory) and removes its
folder and group.

When the referee dies, the server sees its socket close and kills every bot
it started; each bot also dies with the server (``PR_SET_PDEATHSIG``), and
every process a bot started dies with the bot's PID namespace. A small
process of its own session (the janitor) waits for the server to end, however
it ends, and then removes what the server could not: the bots' control
groups and working folders.

The loop, the reaper and the janitor share the server's bookkeeping (the
live bots, their folders and groups), so they are kept together here.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socket
import time
from typing import Any, Optional

from . import jail
from .cgroups import CGROUP_WALL, Cgroups
from .wire import MESSAGE_BYTES, wait_for_end
from .walls import Walls

__all__ = ["run_server"]


def _spawn(req: dict[str, Any], fds: list[int], root: str, me: int, n: int,
           groups: Optional[Cgroups]) -> tuple[int, Optional[str]]:
    """In the fork server: fork one bot; returns its pid and control group."""
    fields: dict[str, Any] = {k: (tuple(v) if k == "read" else v) for k, v in req["walls"].items()}
    walls = Walls(**fields)
    target = req["spawn"]
    home = os.path.join(root, f"bot{n}")
    cgroup = None
    if groups is not None:
        try:
            cgroup = groups.create(f"bot{n}", walls)
        except OSError:                     # the bot runs without one: its shared memory is refused
            cgroup = None
    try:
        pid, alone = jail.fork_alone()
    except OSError:
        if cgroup is not None and groups is not None:
            groups.remove(cgroup)
        raise
    if pid:
        return pid, cgroup
    code = 127
    try:
        for i, fd in enumerate(fds):
            os.dup2(fd, i)
        also = groups.members(cgroup) if groups is not None and cgroup is not None else []
        jail.enter(home, walls, me, cgroup, also, alone)
        os.closerange(3, 1 << 16)
        if "argv" in target:
            argv = target["argv"]
            os.execve(argv[0], argv, dict(os.environ))
        from .host import run_sandboxed

        code = run_sandboxed(target["spec"])
    except BaseException:                   # nothing of the bot's may reach the fork server
        code = 126
    finally:
        os._exit(code)


def run_server(sock_fd: int, parent: int) -> None:
    """The fork server's loop: spawn on request, report exits, and kill
    every bot when the referee goes."""
    jail.die_with(parent)
    jail.adopt_orphans()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    sock = socket.socket(fileno=sock_fd)
    import bots.base
    import core.observe  # noqa: F401  (ready in every fork)
    from . import host  # noqa: F401

    _warm(bots.base)
    jail.prepare()
    me = os.getpid()
    base = "/tmp" if os.access("/tmp", os.W_OK) else os.getcwd()
    _clear_stale(base)
    root = os.path.join(base, f"pengyou-sandbox-{os.getuid()}-{me}")
    os.makedirs(root, mode=0o711, exist_ok=True)
    os.chmod(root, 0o711)
    groups, why = Cgroups.make(me)
    janitor, janitor_fd = _janitor(root, groups)
    missing = _probe(root, me, groups)
    failed = [m for m in missing if m.startswith(CGROUP_WALL)]
    if failed and groups is not None:
        groups.close()
        groups, why = None, failed[0][len(CGROUP_WALL):].strip(" ()")
    missing = [m for m in missing if not m.startswith(CGROUP_WALL)]
    if groups is None:
        missing.append(f"{CGROUP_WALL}: {why}; memfd_create() and System V shared memory are refused instead")
    else:
        missing += groups.notes
    serving = True
    try:
        sock.send(json.dumps({"missing": missing}).encode())
    except OSError:                         # the referee is gone already: nothing to serve
        serving = False
    live: dict[int, tuple[str, Optional[str]]] = {}
    ending: list[str] = []                  # groups of ended bots whose processes are still going
    n = 0
    try:
        while serving:
            r, _, _ = select.select([sock], [], [], 0.2)
            _reap(sock, live, groups, ending)
            if ending and groups is not None:
                ending[:] = [g for g in ending if not groups.remove(g)]
            if not r:
                continue
            try:
                msg, fds, _, _ = socket.recv_fds(sock, MESSAGE_BYTES, 8)
            except OSError:
                break
            if not msg:
                break
            try:
                req = json.loads(msg)
                n += 1
                pid, cgroup = _spawn(req, fds, root, me, n, groups)
                live[pid] = (os.path.join(root, f"bot{n}"), cgroup)
                cpu = groups.cpu_file(cgroup) if groups is not None and cgroup is not None else None
                reply: dict[str, Any] = {"pid": pid, "cpu": cpu}
            except Exception as exc:
                reply = {"error": f"{type(exc).__name__}: {exc}"}
            finally:
                for fd in fds:
                    os.close(fd)
            try:
                sock.send(json.dumps(reply).encode())
            except OSError:                 # the referee is gone: end as if it had said so
                break
    finally:
        for pid in list(live):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 5
        while live and time.monotonic() < deadline:
            _reap(None, live, groups, ending)
            if live:
                wait_for_end(list(live), deadline - time.monotonic())
        if groups is not None:
            groups.close(max(0.5, deadline - time.monotonic()))
        _reap(None, live, groups, ending)   # the orphans that ended meanwhile
        shutil.rmtree(root, ignore_errors=True)
        os.close(janitor_fd)                # it finds nothing left to do, and ends
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            try:
                if os.waitpid(janitor, os.WNOHANG)[0]:
                    break
            except ChildProcessError:
                break
            wait_for_end([janitor], deadline - time.monotonic())


def _warm(base: Any) -> None:
    """Import the built-in bots and build each once, here, so that every bot
    process forked later finds what their first construction loads or caches
    (a parameter check's signatures, a fallback's spec) ready and only its own
    bot is built after the fork: a start costs about a millisecond less."""
    for name in base.registry():
        try:
            base.make_bot(name)
        except Exception:                   # a bot that cannot be built here fails in its own process
            pass


def _janitor(root: str, groups: Optional[Cgroups]) -> tuple[int, int]:
    """Start the process that tidies up after this fork server however it
    ends (with its referee, by ``kill -9`` of their whole process group):
    a session of its own, holding nothing of the server's but a pipe, that
    waits for the pipe to close (the server is gone), then removes the
    bots' control groups (killing what is left in them) and ``root``.
    Returns its pid and the pipe's end to keep open (bots close it)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid:
        os.close(r)
        return pid, w
    try:
        os.setsid()
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        nul = os.open(os.devnull, os.O_RDWR)
        for i in range(3):                  # never hold the referee's output open
            os.dup2(nul, i)
        os.closerange(3, r)
        os.closerange(r + 1, 1 << 16)
        while True:
            try:
                if not os.read(r, 1):
                    break
            except InterruptedError:
                continue
        if groups is not None:
            groups.close(10.0)
        shutil.rmtree(root, ignore_errors=True)
    finally:
        os._exit(0)


def _clear_stale(base: str) -> None:
    """Remove the folders of fork servers that were killed (they cannot tidy up)."""
    prefix = f"pengyou-sandbox-{os.getuid()}-"
    try:
        names = os.listdir(base)
    except OSError:
        return
    for name in names:
        if name.startswith(prefix) and name[len(prefix):].isdigit():
            pid = int(name[len(prefix):])
            try:
                os.kill(pid, 0)
                continue                    # its server is alive
            except ProcessLookupError:
                shutil.rmtree(os.path.join(base, name), ignore_errors=True)
            except PermissionError:
                continue


def _reap(sock: Optional[socket.socket], live: dict[int, tuple[str, Optional[str]]],
          groups: Optional[Cgroups], ending: list[str]) -> None:
    """Report every bot that ended (and whether the kernel killed it over its
    memory); remove its folder and its control group (or keep the group in
    ``ending`` while the last of its processes go). Any other child that
    ended (the probe) is reaped too, and not reported."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if pid not in live:
            continue
        home, cgroup = live.pop(pid)
        oom = False
        if home is not None:
            _remove_home(home)
        if cgroup is not None and groups is not None:
            oom = groups.ooms(cgroup) > 0
            if not groups.remove(cgroup):
                ending.append(cgroup)
        if sock is not None:
            try:
                sock.send(json.dumps({"exit": pid, "status": status, "oom": oom}).encode())
            except OSError:
                pass


def _remove_home(home: str) -> None:
    """Remove an ended bot's folder: empty on this side of its tmpfs (an
    ``rmdir``), unless it had to do without one."""
    try:
        os.rmdir(home)
    except FileNotFoundError:
        pass
    except OSError:
        shutil.rmtree(home, ignore_errors=True)


def _probe(root: str, me: int, groups: Optional[Cgroups]) -> list[str]:
    """Which walls this system refuses (tried once in a throwaway process)."""
    cgroup = None
    if groups is not None:
        try:
            cgroup = groups.create("probe", Walls())
        except OSError as exc:
            return [f"{CGROUP_WALL} (making one: {exc.strerror})"] + _probe(root, me, None)
    r, w = os.pipe()
    try:
        pid, alone = jail.fork_alone()
    except OSError as exc:
        for fd in (r, w):
            os.close(fd)
        if cgroup is not None and groups is not None:
            groups.remove(cgroup)
        return [f"every wall (the probe could not start: {exc.strerror})"]
    if pid == 0:
        os.close(r)
        try:
            also = groups.members(cgroup) if groups is not None and cgroup is not None else []
            missing = jail.enter(os.path.join(root, "probe"), Walls(), me, cgroup, also, alone)
            os.write(w, json.dumps(missing).encode())
        finally:
            os._exit(0)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 1 << 16)
        if not chunk:
            break
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    shutil.rmtree(os.path.join(root, "probe"), ignore_errors=True)
    if cgroup is not None and groups is not None:
        groups.remove(cgroup)
    try:
        return list(json.loads(data))
    except ValueError:
        return ["every wall (the probe process failed)"]
