"""The wall around untrusted bots. It knows nothing of tournaments.

- ``forkserver``: the referee's side: :class:`Zygote` (the handle of one
  fork server) and :class:`BotProcess` (one bot's pipes and process);
- ``server``: the fork server itself (``python -m arena.sandbox``): forks
  the bots, reports their ends, tidies up after them;
- ``jail``: the walls a forked bot enters (namespaces, Landlock, seccomp,
  resource limits, its own user), ``cgroups``: its memory limit as a whole,
  ``walls``: :class:`Walls`, the limits asked for;
- ``host``: the bot side of the wire, and ``protocol``: the messages both
  ends speak.
"""

from __future__ import annotations

from typing import Any

from .walls import Walls

__all__ = ["BotProcess", "SandboxError", "Walls", "Zygote"]


def __getattr__(name: str) -> Any:
    # the referee's side is loaded only where it is used: the fork server, which imports
    # this package for its walls, never needs it (nor subprocess and logging, which it imports)
    if name in ("BotProcess", "SandboxError", "Zygote"):
        from . import forkserver

        return getattr(forkserver, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
