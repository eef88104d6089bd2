"""The bench's one clock: operations per second of a repeated batch."""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["rate"]


def rate(fn: Callable[[], int], min_time: float) -> float:
    """Operations per second: repeat ``fn`` (which returns its op count)
    until ``min_time`` seconds have passed.

    >>> rate(lambda: 1, 0.001) > 0
    True
    """
    ops = 0
    start = time.perf_counter()
    while True:
        ops += fn()
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            return ops / elapsed
