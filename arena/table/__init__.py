"""One job at one table: the referee that deals, asks each seat (a bot in
the sandbox, or in the referee when trusted), times it, records the deal
and turns faults into forfeits. Every mode plays its jobs through
:func:`play_job`."""

from .table import play_job

__all__ = ["play_job"]
