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
(:mod:`arena.sandbox.cgroups`): the kernel kills a bot whose processes
together hold more memory than its limit, and the fork server tells the
referee so (a ``memory`` fault, not ``died``). Groups are removed as their
bots end.

This module is the referee's side; the fork server's own loop, which forks
and walls in the bots, reports their ends and tidies up after them, is
:mod:`arena.sandbox.server` (started as ``python -m arena.sandbox``).
"""

from __future__ import annotations

import json
import logging
import math
import os
import select
import signal
import socket
import subprocess
import sys
import time
from dataclasses import asdict
from typing import Any, Optional

from .walls import Walls
from .wire import MESSAGE_BYTES, wait_for_end

__all__ = ["Zygote", "BotProcess", "SandboxError", "Walls", "MESSAGE_BYTES"]

log = logging.getLogger("pengyou.arena")



class SandboxError(RuntimeError):
    """The sandbox itself failed (not a bot's fault)."""


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
        data = self._sock.recv(MESSAGE_BYTES)
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
        return BotProcess(self, pid, fds[0][1], fds[1][0], fds[2][0], msg.get("cpu"))

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
            if not _ended(self._proc, 10.0):
                self._proc.kill()
            self._proc.wait()


def _ended(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for ``proc`` to end; whether it did."""
    deadline = time.monotonic() + timeout
    while proc.poll() is None:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        wait_for_end([proc.pid], left)
    return True


class BotProcess:
    """One running bot: write lines to it, read its answers with a deadline."""

    def __init__(self, zygote: Zygote, pid: int, stdin: int, stdout: int, stderr: int,
                 cpu_file: Optional[str] = None) -> None:
        self.zygote = zygote
        self.pid = pid
        self._cpu_file = cpu_file       # its control group's CPU time, if it has a group
        self._cpu_fd: Optional[int] = None
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
            if not self._pending:       # an answer is often there already: read before waiting
                try:
                    data = os.read(self._out, 1 << 16)
                except BlockingIOError:
                    data = None
                except OSError:
                    data = b""
                if data is not None:
                    if not data:
                        return "eof", b""
                    self._read += data
                    continue
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

    def cpu_seconds(self) -> Optional[float]:
        """The CPU time all the bot's processes have used so far, in seconds:
        from its control group where it has one, else from ``/proc`` (its
        process and their direct children); None if it cannot be read."""
        if self._cpu_file is not None:
            try:
                if self._cpu_fd is None:
                    self._cpu_fd = os.open(self._cpu_file, os.O_RDONLY | os.O_CLOEXEC)
                data = os.pread(self._cpu_fd, 512, 0)
            except OSError:
                return None
            if self._cpu_file.endswith("cpuacct.usage"):
                return int(data) / 1e9
            for line in data.split(b"\n"):
                if line.startswith(b"usage_usec "):
                    return int(line.split()[1]) / 1e6
            return None
        return _proc_cpu(self.pid)

    def kill(self) -> None:
        """Kill it now (idempotent); its pipes are closed."""
        if not self.dead:
            self.dead = True
            self.zygote.kill(self.pid)
            if self._cpu_fd is not None:
                os.close(self._cpu_fd)
                self._cpu_fd = None
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


def _proc_cpu(pid: int) -> Optional[float]:
    """User and system time of the bot ``pid`` and its direct children (the
    processes it started), from ``/proc`` (where it has no control group)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", "rb") as fh:
            pids = [pid] + [int(c) for c in fh.read().split()]
    except (OSError, ValueError):
        return None
    ticks = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
        except (OSError, ValueError, IndexError):
            continue
    return ticks / os.sysconf("SC_CLK_TCK")
