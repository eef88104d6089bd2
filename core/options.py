"""``key=value`` settings as users type them: one reading for rule overrides
(``--set``) and bot parameters (``ismcts:iterations=1000,c=0.7``).

A value is read as a boolean (``true``/``yes``/``on``, ``false``/``no``/``off``,
any case), then a whole number, then a decimal number, else it stays text:

>>> parse_assignments(["follow_ladder=yes", "throw_penalty=10", "c=0.7", "reward=points"])
{'follow_ladder': True, 'throw_penalty': 10, 'c': 0.7, 'reward': 'points'}
>>> parse_assignments(["c"])
Traceback (most recent call last):
...
core.options.NotAssignmentError: 'c' is not key=value
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Union

from .errors import PengyouError

__all__ = ["Value", "NotAssignmentError", "parse_value", "parse_assignments"]

#: What a typed setting value becomes.
Value = Union[bool, int, float, str]

_TRUE = ("true", "yes", "on")
_FALSE = ("false", "no", "off")


class NotAssignmentError(PengyouError):
    """An item is not ``key=value`` (``item`` holds it, for the caller's own message)."""

    def __init__(self, item: str) -> None:
        super().__init__(f"{item!r} is not key=value")
        self.item = item


def parse_value(text: str) -> Value:
    """One typed value (see the module's rules).

    >>> [parse_value(t) for t in ("On", "3", "-2", "2.5", "1e3", "double")]
    [True, 3, -2, 2.5, 1000.0, 'double']
    """
    low = text.lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def parse_assignments(items: Iterable[str]) -> dict[str, Value]:
    """``key=value`` items as a dict, keys and values stripped, later items winning.

    Raises :class:`NotAssignmentError` for an item without ``=`` or without a key.
    """
    out: dict[str, Value] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise NotAssignmentError(item)
        out[key.strip()] = parse_value(value.strip())
    return out
