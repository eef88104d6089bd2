"""Bot calls inside the referee's process, under a time limit that a bot
cannot switch off: a SIGALRM interval timer in the main thread, a watchdog
thread that raises into the call elsewhere; the interrupt is raised again
every :data:`REPEAT` seconds for a bot that swallows it.

>>> out = guarded("step", lambda: 42, (), 1.0)
>>> out.value, out.kind
(42, None)
>>> guarded("step", lambda: 1 / 0, (), 1.0).message
'ZeroDivisionError: division by zero'
"""

from __future__ import annotations

import ctypes
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, Optional

from bots.table import exception_line as _exc_line

__all__ = ["CallOutcome", "guarded", "call_with_alarm", "call_with_watchdog", "REPEAT"]

#: After a time limit has passed, how often the interrupt is raised again
#: (for a bot that swallows it).
REPEAT = 0.05


class _Interrupt(BaseException):
    """Raised inside a bot call that has run past its time limit (a
    BaseException, so a bot's ``except Exception`` does not swallow it)."""


class CallOutcome:
    """What one bot call did: ``value``, or a fault ``kind`` and ``message``."""

    __slots__ = ("value", "kind", "message", "seconds")

    def __init__(self, value: Any, kind: Optional[str], message: str, seconds: float) -> None:
        self.value = value
        self.kind = kind
        self.message = message
        self.seconds = seconds


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")


def _call_plain(fn: Callable[..., Any], args: tuple) -> tuple[Any, Optional[BaseException], bool]:
    try:
        return fn(*args), None, False
    except (Exception, SystemExit) as exc:
        return None, exc, False


def call_with_alarm(fn: Callable[..., Any], args: tuple,
                     limit: float) -> tuple[Any, Optional[BaseException], bool]:
    """Call ``fn`` in the main thread under a SIGALRM interval timer.

    The handler raises only while armed and only in a frame other than this
    one, so the interrupt lands in the bot's code and never in the lines
    here that disarm the timer; the previous handler and timer come back.
    """
    here = sys._getframe()
    armed = [False]

    def on_alarm(signum: int, frame: Any) -> None:
        if armed[0] and frame is not here:
            raise _Interrupt()

    value: Any = None
    error: Optional[BaseException] = None
    interrupted = False
    old_handler = signal.signal(signal.SIGALRM, on_alarm)
    old_timer = (0.0, 0.0)
    start = time.perf_counter()
    try:
        try:
            old_timer = signal.setitimer(signal.ITIMER_REAL, limit, REPEAT)
            armed[0] = True
            value = fn(*args)
        except _Interrupt:
            interrupted = True
        except (Exception, SystemExit) as exc:
            error = exc
        finally:
            armed[0] = False
            signal.setitimer(signal.ITIMER_REAL, 0.0)
    finally:
        signal.signal(signal.SIGALRM, signal.SIG_DFL if old_handler is None else old_handler)
        if old_timer[0] > 0.0:         # someone else's timer was running: resume it
            left = old_timer[0] - (time.perf_counter() - start)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), old_timer[1])
    return value, error, interrupted


def _set_async_exc(thread_id: int, exc: Optional[type]) -> None:
    """Raise ``exc`` asynchronously in a thread (``None`` clears a pending one)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc is not None else None)


class _Watchdog:
    """Interrupts one thread that runs past a time limit: a daemon thread
    that raises :class:`_Interrupt` in it (and again every ``REPEAT``
    seconds until disarmed). One per thread, kept for its next calls."""

    def __init__(self) -> None:
        self._owner = threading.current_thread()
        self._target = threading.get_ident()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._deadline: Optional[float] = None   # time.monotonic() while armed
        self._fired = False
        self._thread = threading.Thread(target=self._run, name="pengyou-watchdog", daemon=True)
        self._thread.start()

    @classmethod
    def for_this_thread(cls) -> _Watchdog:
        """This thread's watchdog (a new one after a fork, or the first time)."""
        dog = getattr(_local, "watchdog", None)
        if dog is None or not dog._thread.is_alive() or dog._target != threading.get_ident():
            dog = _local.watchdog = cls()
        return dog

    def arm(self, limit: float) -> None:
        """Interrupt the thread ``limit`` seconds from now unless disarmed."""
        with self._lock:
            self._fired = False
            self._deadline = time.monotonic() + limit
            self._wake.notify()

    def disarm(self) -> bool:
        """Stop the countdown and clear an interrupt that was sent but not
        raised yet; True if one was sent. Nothing is raised in the thread
        once it returns (an interrupt raised while it runs: call it again)."""
        with self._lock:
            self._deadline = None
            fired = self._fired
            if fired:
                _set_async_exc(self._target, None)
        return fired

    def _run(self) -> None:
        with self._lock:
            while True:
                if self._deadline is None:
                    if not self._owner.is_alive():
                        return
                    self._wake.wait(1.0)
                    continue
                left = self._deadline - time.monotonic()
                if left > 0:
                    self._wake.wait(left)
                    continue
                _set_async_exc(self._target, _Interrupt)
                self._fired = True
                self._deadline = time.monotonic() + REPEAT


_local = threading.local()


def call_with_watchdog(fn: Callable[..., Any], args: tuple,
                        limit: float) -> tuple[Any, Optional[BaseException], bool]:
    """Call ``fn`` outside the main thread under the thread's watchdog."""
    dog = _Watchdog.for_this_thread()
    value: Any = None
    error: Optional[BaseException] = None
    interrupted = False
    try:
        try:
            dog.arm(limit)
            value = fn(*args)
        except (Exception, SystemExit) as exc:
            error = exc
    except _Interrupt:
        interrupted = True
    while True:                         # disarm, even if a late interrupt lands meanwhile
        try:
            if dog.disarm():
                interrupted = True
            break
        except _Interrupt:
            interrupted = True
    return value, error, interrupted


def guarded(what: str, fn: Callable[..., Any], args: tuple, limit: float) -> CallOutcome:
    """Call a bot method; a raise is a ``crash``, running past ``limit``
    seconds (when it is positive) a ``timeout``."""
    start = time.perf_counter()
    if limit <= 0:
        value, error, interrupted = _call_plain(fn, args)
    elif _in_main_thread():
        value, error, interrupted = call_with_alarm(fn, args, limit)
    else:
        value, error, interrupted = call_with_watchdog(fn, args, limit)
    seconds = time.perf_counter() - start
    if interrupted or (limit > 0 and seconds > limit):
        # no measured time in the message: a job's result must not depend on the clock
        return CallOutcome(None, "timeout", f"{what}: ran past the time limit of {limit:g} s", seconds)
    if error is not None:
        return CallOutcome(None, "crash", _exc_line(error), seconds)
    return CallOutcome(value, None, "", seconds)
