"""Bot processes behind walls: started by a clean fork server, talked to over pipes.

A :class:`Zygote` is a fresh Python process (started with ``exec``, so it
holds none of the referee's memory: no state, no secret) that has imported
the engine and the built-in bots once. On request it forks a bot process,
walls it in (:mod:`arena.sandbox.jail`) and runs either the Python host
(:mod:`arena.sandbox.host`, for bot classes) or a program (``cmd:...``). Forking a
ready interpreter takes a millisecond or two, where starting Python and
importing the engine takes a tenth of a second.

The referee holds a :class:`BotProcess` per bot: pipes to its standard
input, output and error, and the process id to kill. Nothing a bot sends is
trusted: lines are read with a size cap and a deadline, and a bot that
stops answering is killed (its whole PID namespace, or its process group
where namespaces are not available). Between its turns a bot is stopped
(``SIGSTOP`` to its process group, which it cannot leave).

Each bot has a control group of its own where the system allows one
(:class:`arena.sandbox.jail.Cgroups`): the kernel kills a bot whose processes
together hold more memory than its limit, and the fork server tells the
referee so (a ``memory`` fault, not ``died``). Groups are removed as their
bots end.

When the referee dies, its zygote sees its socket close and kills every bot
it started; each bot also dies with the zygote (``PR_SET_PDEATHSIG``), and
every process a bot started dies with the bot's PID namespace. A small
process of its own session (the janitor) waits for the zygote to end, however
it ends, and then removes what the zygote could not: the bots' control
groups and working folders.
"""

from __future__ import annotations

import json
import logging
import math
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import asdict
from typing import Any, Optional

from . import jail
from .jail import Walls

__all__ = ["Zygote", "BotProcess", "SandboxError", "Walls", "program_argv"]

log = logging.getLogger("pengyou.arena")

_MSG = 1 << 16


class SandboxError(RuntimeError):
    """The sandbox itself failed (not a bot's fault)."""


def program_argv(spec: str) -> list[str]:
    """The argument list of a ``cmd:PROGRAM ARGS`` bot spec.

    >>> program_argv("cmd:python3 bot.py --depth 2")[1:]
    ['bot.py', '--depth', '2']
    """
    import shlex

    words = shlex.split(spec[4:])
    if not words:
        raise ValueError(f"bot spec {spec!r}: no program after cmd:")
    prog = words[0]
    found = shutil.which(prog) if os.sep not in prog else (prog if os.path.exists(prog) else None)
    if found is None:
        raise ValueError(f"bot program {prog!r}: no such program")
    found = os.path.realpath(found)
    if not os.access(found, os.X_OK) or os.path.isdir(found):
        raise ValueError(f"bot program {prog!r}: not an executable file")
    return [found] + [os.path.realpath(w) if os.path.isfile(w) else w for w in words[1:]]


# ------------------------------------------------------------------ referee side
class Zygote:
    """The fork server of one referee process."""

    def __init__(self) -> None:
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        parent = os.getpid()
        self._sock = mine
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "PYTHONPATH", "HOME")}
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "arena.sandbox", str(theirs.fileno()), str(parent)],
                pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, env=env, close_fds=True)
        finally:
            theirs.close()
        self._exits: dict[int, int] = {}
        self._ooms: set[int] = set()
        hello = self._recv(timeout=60.0)
        if hello is None or "missing" not in hello:
            self.close()
            raise SandboxError("the sandbox's fork server did not start")
        self.missing: list[str] = hello["missing"]
        self.live: set[int] = set()

    def _recv(self, timeout: float) -> Optional[dict[str, Any]]:
        poller = select.poll()
        poller.register(self._sock, select.POLLIN)
        if not poller.poll(max(0, math.ceil(min(timeout, 3600.0) * 1000))):
            return None
        data = self._sock.recv(_MSG)
        if not data:
            raise SandboxError("the sandbox's fork server ended")
        return json.loads(data)

    def _note(self, msg: dict[str, Any]) -> bool:
        if "exit" in msg:
            self._exits[int(msg["exit"])] = int(msg["status"])
            if msg.get("oom"):
                self._ooms.add(int(msg["exit"]))
            self.live.discard(int(msg["exit"]))
            return True
        return False

    def spawn(self, target: dict[str, Any], walls: Walls) -> BotProcess:
        """Start one bot: ``target`` is ``{"spec": ...}`` (a Python bot for the
        host) or ``{"argv": [...]}`` (a program)."""
        fds = [os.pipe(), os.pipe(), os.pipe()]      # stdin, stdout, stderr
        theirs = [fds[0][0], fds[1][1], fds[2][1]]
        req = json.dumps({"spawn": target, "walls": asdict(walls)}).encode()
        try:
            socket.send_fds(self._sock, [req], theirs)
        finally:
            for fd in theirs:
                os.close(fd)
        deadline = time.monotonic() + 30.0
        while True:
            msg = self._recv(max(0.0, deadline - time.monotonic()))
            if msg is None:
                raise SandboxError("the sandbox's fork server did not answer")
            if self._note(msg):
                continue
            break
        if "error" in msg:
            for fd in (fds[0][1], fds[1][0], fds[2][0]):
                os.close(fd)
            raise SandboxError(f"cannot start a bot process: {msg['error']}")
        pid = int(msg["pid"])
        self.live.add(pid)
        return BotProcess(self, pid, fds[0][1], fds[1][0], fds[2][0])

    def exit_status(self, pid: int, wait: float = 0.5) -> Optional[int]:
        """How ``pid`` ended (a wait status), if the fork server has said so."""
        deadline = time.monotonic() + wait
        while pid not in self._exits:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                msg = self._recv(left)
            except SandboxError:
                return None
            if msg is not None:
                self._note(msg)
        return self._exits.pop(pid)

    def killed_for_memory(self, pid: int) -> bool:
        """Whether the kernel killed a process of the ended bot ``pid`` over
        its memory limit (said with its exit: after :meth:`exit_status`)."""
        if pid in self._ooms:
            self._ooms.discard(pid)
            return True
        return False

    def kill(self, pid: int) -> None:
        """Kill a bot (and with it everything it started)."""
        for target in (pid, -pid):
            try:
                (os.killpg if target < 0 else os.kill)(abs(target), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def close(self) -> None:
        """Stop the fork server, which kills every bot it started."""
        try:
            self._sock.close()
        finally:
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()


class BotProcess:
    """One running bot: write lines to it, read its answers with a deadline."""

    def __init__(self, zygote: Zygote, pid: int, stdin: int, stdout: int, stderr: int) -> None:
        self.zygote = zygote
        self.pid = pid
        self._in, self._out, self._err = stdin, stdout, stderr
        os.set_blocking(stdin, False)
        os.set_blocking(stdout, False)
        os.set_blocking(stderr, False)
        self._pending = bytearray()
        self._read = bytearray()
        self.stderr = bytearray()       #: what it wrote to stderr since last taken (capped)
        self.stderr_cap = 1 << 16
        self.stderr_lost = 0
        self.dead = False
        self.paused = False
        # not select(): a referee may hold more than 1024 descriptors; one poller for the process's life
        self._poller = select.poll()
        self._poller.register(stdout, select.POLLIN)
        self._poller.register(stderr, select.POLLIN)
        self._polling_in = False

    def send(self, text: str) -> None:
        """Queue a line and write what the pipe takes now (never blocks)."""
        if not self.dead:
            self._pending += text.encode()
            self._flush()

    def queue(self, text: str) -> None:
        """Queue a line to be written with the next :meth:`send` or while
        waiting for an answer: a bot is not woken for every event, only when
        it is asked to act (its backlog comes first)."""
        if not self.dead:
            self._pending += text.encode()

    def _flush(self) -> None:
        while self._pending:
            try:
                n = os.write(self._in, self._pending)
            except BlockingIOError:
                return
            except (BrokenPipeError, OSError):
                self._pending.clear()
                return
            del self._pending[:n]

    def _drain_err(self) -> None:
        while True:
            try:
                data = os.read(self._err, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                return
            if not data:
                return
            room = self.stderr_cap - len(self.stderr)
            if room > 0:
                self.stderr += data[:room]
            self.stderr_lost += max(0, len(data) - max(room, 0))

    def take_stderr(self) -> bytes:
        """What the bot wrote to stderr since the last call (drained now)."""
        self._drain_err()
        out = bytes(self.stderr)
        if self.stderr_lost:
            out += f"\n[... {self.stderr_lost} more bytes of stderr not kept]\n".encode()
        self.stderr.clear()
        self.stderr_lost = 0
        return out

    def read_line(self, deadline: float, max_line: int) -> tuple[str, bytes]:
        """The next line it writes: ``("line", bytes)``, or ``("timeout", b"")``
        at ``deadline`` (monotonic), ``("eof", b"")`` if its output closed,
        ``("long", b"")`` for a line over ``max_line`` bytes."""
        while True:
            nl = self._read.find(b"\n")
            if nl >= 0:
                line = bytes(self._read[:nl + 1])
                del self._read[:nl + 1]
                return "line", line
            if len(self._read) > max_line:
                return "long", b""
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout", b""
            poller = self._poller
            if bool(self._pending) != self._polling_in:
                if self._pending:
                    poller.register(self._in, select.POLLOUT)
                else:
                    poller.unregister(self._in)
                self._polling_in = not self._polling_in
            try:
                events = dict(poller.poll(max(1, math.ceil(min(left, 3600.0) * 1000))))
            except InterruptedError:
                continue
            if events.get(self._in, 0) & (select.POLLOUT | select.POLLERR | select.POLLHUP):
                self._flush()
            if events.get(self._err, 0):
                self._drain_err()
            if events.get(self._out, 0):
                try:
                    data = os.read(self._out, 1 << 16)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    return "eof", b""
                self._read += data

    def pause(self) -> None:
        """Stop every process of the bot (its process group, which the walls
        keep it in) until :meth:`resume`: a bot uses no CPU between its turns,
        so it can neither think on other seats' time nor slow their bots."""
        if not self.paused and not self.dead:
            self.paused = True
            self._signal(signal.SIGSTOP)

    def resume(self) -> None:
        """Let a paused bot run again (before it is asked to act)."""
        if self.paused and not self.dead:
            self.paused = False
            self._signal(signal.SIGCONT)

    def _signal(self, sig: int) -> None:
        try:
            os.killpg(self.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def kill(self) -> None:
        """Kill it now (idempotent); its pipes are closed."""
        if not self.dead:
            self.dead = True
            self.zygote.kill(self.pid)
            self._drain_err()
            for fd in (self._in, self._out, self._err):
                try:
                    os.close(fd)
                except OSError:
                    pass

    def ending(self, when: str = "") -> tuple[str, str]:
        """The fault of a process that ended (``when``: words to put after
        what happened): ``("memory", text)`` if the kernel killed it over
        its memory limit, else ``("died", text)``."""
        how = self.how_it_ended()
        if self.zygote.killed_for_memory(self.pid):
            return "memory", f"killed for holding more than its memory limit{when} ({how})"
        return "died", f"its process ended{when} ({how})"

    def how_it_ended(self) -> str:
        """The process's end as text (``"exit code 3"``, ``"signal SIGSEGV"``), if known."""
        status = self.zygote.exit_status(self.pid)
        if status is None:
            return "its output closed"
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
        elif os.WEXITSTATUS(status) > 128:
            sig = os.WEXITSTATUS(status) - 128
        else:
            return f"exit code {os.WEXITSTATUS(status)}"
        try:
            return f"signal {signal.Signals(sig).name}"
        except ValueError:
            return f"signal {sig}"


# ------------------------------------------------------------------ the fork server
def _spawn(req: dict[str, Any], fds: list[int], root: str, me: int, n: int,
           groups: Optional[jail.Cgroups]) -> tuple[int, Optional[str]]:
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
        pid = os.fork()
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
        missing, newpid = jail.enter(home, walls, me, cgroup)
        if newpid:
            inner = os.fork()
            if inner:                       # stays outside the namespace; ends as the bot ends
                nul = os.open(os.devnull, os.O_RDWR)
                for i in range(3):
                    os.dup2(nul, i)
                os.closerange(3, 1 << 16)
                _, status = os.waitpid(inner, 0)
                os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
            jail.die_with(0)                # our parent is outside the namespace: getppid() is 0
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

    bots.base.registry()
    me = os.getpid()
    base = "/tmp" if os.access("/tmp", os.W_OK) else os.getcwd()
    _clear_stale(base)
    root = os.path.join(base, f"pengyou-sandbox-{os.getuid()}-{me}")
    os.makedirs(root, mode=0o711, exist_ok=True)
    os.chmod(root, 0o711)
    groups, why = jail.Cgroups.make(me)
    janitor, janitor_fd = _janitor(root, groups)
    missing = _probe(root, me, groups)
    failed = [m for m in missing if m.startswith(jail.CGROUP_WALL)]
    if failed and groups is not None:
        groups.close()
        groups, why = None, failed[0][len(jail.CGROUP_WALL):].strip(" ()")
    missing = [m for m in missing if not m.startswith(jail.CGROUP_WALL)]
    if groups is None:
        missing.append(f"{jail.CGROUP_WALL}: {why}; memfd_create() and System V shared memory are refused instead")
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
                msg, fds, _, _ = socket.recv_fds(sock, _MSG, 8)
            except OSError:
                break
            if not msg:
                break
            try:
                req = json.loads(msg)
                n += 1
                pid, cgroup = _spawn(req, fds, root, me, n, groups)
                live[pid] = (os.path.join(root, f"bot{n}"), cgroup)
                reply: dict[str, Any] = {"pid": pid}
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
            time.sleep(0.01)
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
            time.sleep(0.005)


def _janitor(root: str, groups: Optional[jail.Cgroups]) -> tuple[int, int]:
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
          groups: Optional[jail.Cgroups], ending: list[str]) -> None:
    """Report every bot that ended (and whether the kernel killed it over its
    memory); remove its folder and its control group (or keep the group in
    ``ending`` while the last of its processes go). Orphans (a bot whose
    waiting process was killed first) are reaped too, and not reported."""
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
            shutil.rmtree(home, ignore_errors=True)
            shutil.rmtree(home + ".stage", ignore_errors=True)
        if cgroup is not None and groups is not None:
            oom = groups.ooms(cgroup) > 0
            if not groups.remove(cgroup):
                ending.append(cgroup)
        if sock is not None:
            try:
                sock.send(json.dumps({"exit": pid, "status": status, "oom": oom}).encode())
            except OSError:
                pass


def _probe(root: str, me: int, groups: Optional[jail.Cgroups]) -> list[str]:
    """Which walls this system refuses (tried once in a throwaway process)."""
    cgroup = None
    if groups is not None:
        try:
            cgroup = groups.create("probe", Walls())
        except OSError as exc:
            return [f"{jail.CGROUP_WALL} (making one: {exc.strerror})"] + _probe(root, me, None)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            missing, _ = jail.enter(os.path.join(root, "probe"), Walls(), me, cgroup)
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
