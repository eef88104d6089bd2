"""The referee's side of sandboxed bots: their processes, seeds and logs.

A job's table (:mod:`arena.table.table`) seats each untrusted bot as a
:class:`RemoteSeat`: a bot process from this process's :class:`BotPool`,
spoken to over :mod:`arena.sandbox.protocol`. The pool keeps finished bots' processes
for later jobs of the same entrant (starting one costs a few milliseconds,
a deal of random bots about as much), but never hands a process a deal seed
it has played before: a process that saw one hand of a duplicate deal never
plays another hand of it.

Each bot's random seed is :func:`bot_seed`: a keyed hash of a secret that
only the referee holds (one per run, kept in the store) and the deal, so
runs are reproducible and resumable while nothing a bot sees gives the
shuffle away.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import re
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Optional

from core.actions import Action
from core.errors import InvalidActionError

from ..sandbox import protocol
from ..sandbox.forkserver import BotProcess, SandboxError, Zygote
from .entrants import BotRef
from .settings import Limits

__all__ = ["bot_seed", "deal_seed", "BotPool", "RemoteSeat", "StartFault", "pool", "close_pool", "check_startable",
           "log_name", "parse_action", "WALL_FACTOR", "WALL_SLACK", "SLICE", "LATE"]

log = logging.getLogger("pengyou.arena")


def deal_seed(secret: bytes, seed: int) -> int:
    """The shuffle's seed for a suite seed: the suite seed itself without a
    secret, else keyed by it, so that a bot that knows the (public) suite
    cannot re-deal the cards from the hand it holds.

    >>> deal_seed(b"", 7), deal_seed(b"k", 7) == deal_seed(b"k", 7) != 7
    (7, True)
    """
    return seed if not secret else bot_seed(secret, "deal", seed)


def bot_seed(secret: bytes, *parts: Any) -> int:
    """A bot's random seed: HMAC-SHA256 of the referee's ``secret`` and the
    deal's coordinates, as a 63-bit integer.

    >>> bot_seed(b"k", 7, 0, 1, 0, 3) == bot_seed(b"k", 7, 0, 1, 0, 3) != bot_seed(b"j", 7, 0, 1, 0, 3)
    True
    """
    msg = ":".join(str(p) for p in parts).encode()
    return int.from_bytes(hmac.new(secret, msg, hashlib.sha256).digest()[:8], "big") >> 1


class _Idle:
    __slots__ = ("proc", "seen", "deals", "want")

    def __init__(self, proc: BotProcess, want: tuple[str, ...]) -> None:
        self.proc = proc
        self.seen: set[int] = set()
        self.deals = 0
        self.want = want


class StartFault(Exception):
    """A bot process that could not be brought to ``ready``: ``kind``, message."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class BotPool:
    """This process's bot processes, started on demand and kept between jobs."""

    #: A process is retired after this many deals (bounds what one process can grow to).
    MAX_DEALS = 500

    def __init__(self) -> None:
        self._zygote: Optional[Zygote] = None
        self._idle: dict[str, list[_Idle]] = {}
        self._order: deque[tuple[str, _Idle]] = deque()   # idle processes, longest idle first
        self.warned = False
        self.last_stderr = b""          # what the last bot that failed to start wrote to stderr

    def zygote(self) -> Zygote:
        if self._zygote is None:
            self._zygote = Zygote()
            if self._zygote.missing and not self.warned:
                self.warned = True
                log.warning("sandbox: this system refuses some walls around bots: %s",
                            "; ".join(self._zygote.missing))
        return self._zygote

    def acquire(self, ref: BotRef, seed: int, limits: Limits) -> _Idle:
        """A ready process for the bot ``ref`` that has not played ``seed``;
        a failed start raises :class:`StartFault`."""
        idle = self._idle.setdefault(ref.text, [])
        for i, item in enumerate(idle):
            if seed not in item.seen and not item.proc.dead:
                self._order = deque(x for x in self._order if x[1] is not item)
                return idle.pop(i)
        return self.start(ref, limits)

    def start(self, ref: BotRef, limits: Limits) -> _Idle:
        """A new process for the bot ``ref``, walled in under ``limits`` and
        ready (it answered ``hello``); a failed start raises :class:`StartFault`."""
        try:
            target, read = ref.target()
        except ValueError as exc:
            raise StartFault("crash", str(exc)) from None
        try:
            proc = self.zygote().spawn(target, limits.walls(read))
        except SandboxError:
            self.close()                # a broken fork server: start a new one next time
            raise
        proc.stderr_cap = limits.stderr_bytes
        proc.send(protocol.hello(limits.to_hello()))
        status, line = proc.read_line(time.monotonic() + limits.startup, protocol.MAX_LINE)
        try:
            if status == "timeout":
                raise StartFault("timeout", f"did not answer hello within {limits.startup:g} s")
            if status == "eof":
                raise StartFault(*proc.ending(" before answering hello"))
            if status == "long":
                raise StartFault("protocol", f"wrote a line over {protocol.MAX_LINE} bytes")
            try:
                kind, value = protocol.read_ready(line)
            except protocol.ProtocolError as exc:
                raise StartFault("protocol", str(exc)) from None
            if kind != "ready":
                raise StartFault(kind, value)
        except StartFault:
            self.last_stderr = proc.take_stderr()
            proc.kill()
            raise
        proc.pause()                    # it runs only when asked to act
        return _Idle(proc, value["want"])

    def release(self, item: _Idle, spec: str, seed: int, cap: int) -> None:
        """Give back a healthy process after a job on ``seed``; at most
        ``cap`` processes are kept idle in all (the longest idle go first),
        however many different bots the jobs had."""
        item.seen.add(seed)
        item.deals += 1
        idle = self._idle.setdefault(spec, [])
        if item.proc.dead or item.deals >= self.MAX_DEALS or len(idle) >= cap:
            self.retire(item)
            return
        idle.append(item)
        self._order.append((spec, item))
        while len(self._order) > cap:
            old_spec, old = self._order.popleft()
            waiting = self._idle.get(old_spec, [])
            if old in waiting:
                waiting.remove(old)
                self.retire(old)

    def retire(self, item: _Idle) -> None:
        """End a process for good."""
        item.proc.send(protocol.quit_())
        item.proc.kill()

    def close(self) -> None:
        """Kill every process (and the fork server)."""
        for items in self._idle.values():
            for item in items:
                item.proc.kill()
        self._idle.clear()
        self._order.clear()
        z, self._zygote = self._zygote, None
        if z is not None:
            try:
                z.close()
            except Exception:           # already gone
                pass


_POOL: dict[int, BotPool] = {}


def pool() -> BotPool:
    """This process's pool (a forked child gets a new one)."""
    pid = os.getpid()
    p = _POOL.get(pid)
    if p is None:
        _POOL.clear()                   # a parent's pool is not ours to use
        p = _POOL[pid] = BotPool()
    return p


def close_pool() -> None:
    """Stop this process's bot processes, if any."""
    p = _POOL.pop(os.getpid(), None)
    if p is not None:
        p.close()


def check_startable(ref: BotRef, limits: Optional[Limits] = None) -> Optional[str]:
    """Start the bot ``ref`` once in the sandbox: None if it answers
    ``ready``, else one line saying why not."""
    limits = limits or Limits()
    p = pool()
    spec = ref.text
    try:
        item = p.start(ref, limits)
    except StartFault as exc:
        tail = p.last_stderr.decode("utf-8", "replace").strip().splitlines()
        hint = f" (its stderr: {tail[-1][:120]})" if tail and exc.kind == "died" else ""
        return f"bot {spec!r}: {exc}{hint}"
    except SandboxError as exc:
        return f"bot {spec!r}: {exc}"
    p.retire(item)
    return None


#: The wall clock's outer bound on a decision: this many times its budget ...
WALL_FACTOR = 3.0
#: ... plus this many seconds (a bot that sleeps is charged only then).
WALL_SLACK = 5.0
#: The longest single wait for a bot's answer, in seconds ...
SLICE = 0.5
#: ... and how late one may return before the excess counts as the referee's stall.
LATE = 0.25

_SAFE = re.compile(r"[^A-Za-z0-9_.=-]+")


def log_name(text: str) -> str:
    """A file-name-safe form of an entrant's name."""
    return _SAFE.sub("_", text)[:80] or "bot"


class RemoteSeat:
    """One seat played by a sandboxed bot process for one job."""

    def __init__(self, item: _Idle, limits: Limits) -> None:
        self.item = item
        self.proc = item.proc
        self.limits = limits
        self.bank = limits.overage
        self.rid = 0
        self.legal = "legal" in item.want
        self.coalesce = protocol.COALESCE in item.want
        self.pending = protocol.Pending()

    def send(self, line: str) -> None:
        """Queue a message; it reaches the bot before its next request."""
        self.proc.queue(line)

    def new_deal(self) -> None:
        self.bank = self.limits.overage
        self.pending = protocol.Pending()

    def catch_up(self, view: Callable[[], Mapping[str, Any]]) -> None:
        """Before a request to a coalescing bot: queue its pending ``update``
        (``view()`` is its whole view, for when that is due)."""
        line = self.pending.take(view)
        if line is not None:
            self.proc.queue(line)

    def decide(self, legal: Optional[Sequence[str]],
               complete: bool = True) -> tuple[Optional[str], Optional[str], str, float]:
        """Ask for an action: (text, fault kind, message, seconds).

        A bot is charged for the CPU time its processes used (its control
        group's, or ``/proc``'s), not for the wall clock: a busy neighbour, a
        stalled referee or a stopped machine never makes its time run out.
        The wall clock is only an outer bound, :data:`WALL_FACTOR` times the
        budget plus :data:`WALL_SLACK` seconds, counted while the referee
        itself was running (for a bot that sleeps instead of thinking)."""
        self.rid += 1
        move = self.limits.move
        budget = (move + self.bank) if move > 0 else 1e9
        self.proc.send(protocol.request(self.rid, move if move > 0 else 0.0, self.bank,
                                        legal if self.legal else None, complete))
        cpu0 = self.proc.cpu_seconds() if move > 0 else None
        self.proc.resume()
        status, line, took, used = self._wait(budget, cpu0)
        if status == "line":
            # stopped again until its next request (not a process that ended: the
            # process that waits for it must stay free to report how it ended)
            self.proc.pause()
        if move > 0 and took > move:
            if used is None and cpu0 is not None:
                now = self.proc.cpu_seconds()
                used = None if now is None else now - cpu0
            charged = took if used is None else min(took, used)
            self.bank = max(0.0, self.bank - max(0.0, charged - move))
        if status == "timeout":
            return None, "timeout", f"no answer within {move:g} s and {self.limits.overage:g} s of overage", took
        if status == "eof":
            kind, how = self.proc.ending()
            return None, kind, how, took
        if status == "long":
            return None, "protocol", f"wrote a line over {protocol.MAX_LINE} bytes", took
        try:
            kind, text = protocol.read_answer(line, self.rid)
        except protocol.ProtocolError as exc:
            return None, "protocol", str(exc), took
        if kind != "action":
            return None, kind, text, took
        return text, None, "", took

    def _wait(self, budget: float, cpu0: Optional[float]) -> tuple[str, bytes, float, Optional[float]]:
        """Wait for the answer: (status of :meth:`BotProcess.read_line`, the
        line, the wall time counted, the CPU time used if it was read).

        Each wait lasts at most :data:`SLICE` seconds; one that returns more
        than :data:`LATE` seconds after its time was a stall of this process
        (stopped, or the machine was), and only its expected length counts."""
        start = time.monotonic()
        outer = budget * WALL_FACTOR + WALL_SLACK
        deadline = start + budget
        counted = 0.0
        used: Optional[float] = None
        while True:
            before = time.monotonic()
            status, line = self.proc.read_line(min(deadline, before + SLICE), protocol.MAX_LINE)
            after = time.monotonic()
            counted += min(after - before, SLICE + LATE)
            if status != "timeout":
                return status, line, counted, used
            if after < deadline and counted < outer:
                continue
            now = self.proc.cpu_seconds() if cpu0 is not None else None
            if now is None or cpu0 is None:
                return status, line, counted, used   # no CPU clock: the wall clock is the limit
            used = now - cpu0
            if used >= budget or counted >= outer:
                return status, line, counted, used
            deadline = time.monotonic() + max(0.01, min(budget - used, outer - counted))

    def kill(self, kind: str, message: str) -> None:
        """Stop the bot for a fault (it is told why first, best effort)."""
        self.proc.send(protocol.stop(kind, message))
        self.proc.kill()


#: Texts already read (an Action is an immutable value, so one text reads as one Action);
#: a table of random bots answers with a few hundred distinct texts in a whole run.
_PARSED: dict[str, Action] = {}
_PARSED_MAX = 1 << 14


def parse_action(text: str) -> tuple[Optional[Action], str]:
    """A bot's action text as an Action, or None and why not.

    >>> parse_action("play as as")[0] == parse_action("play AS AS")[0] == Action.from_str("AS AS")
    True
    >>> parse_action("shout")[1]
    "bad action 'shout': bad card 'shout': expected rank 2-10, J, Q, K or A then suit C, D, H or S (or BJ / RJ)"
    """
    action = _PARSED.get(text)
    if action is not None:
        return action, ""
    if len(text) > 400:
        return None, "wrote an action of over 400 characters"
    try:
        action = Action.from_str(text)
    except InvalidActionError as exc:
        return None, str(exc)
    if len(text) <= 80:
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        _PARSED[text] = action
    return action, ""
