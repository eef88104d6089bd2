"""Numbers as every surface prints them: one owner for the sign of a figure.

A signed figure carries its sign (``+12``, ``-3.5``), except a figure that
rounds to zero, which is printed ``+0`` whatever the sign of what was
rounded: ``-0.0`` reads as a loss that is not there, and the command line
and the pages would print one number two ways.
"""

from __future__ import annotations

import math

__all__ = ["signed"]


def signed(x: float, digits: int = 0, width: int = 0) -> str:
    """``x`` with its sign and ``digits`` decimals, right-aligned in ``width``
    columns; ``+0`` for a figure that rounds to zero; ``-`` for none.

    >>> signed(12.4), signed(-3.456, 2), signed(-0.0001, 2), signed(-0.0, 1)
    ('+12', '-3.46', '+0.00', '+0.0')
    >>> signed(float("nan")), signed(1.5, 1, 6)
    ('-', '  +1.5')
    """
    if not math.isfinite(x):
        return "-".rjust(width)
    text = f"{x:+.{digits}f}"
    if float(text) == 0:
        text = f"{0.0:+.{digits}f}"
    return text.rjust(width)
