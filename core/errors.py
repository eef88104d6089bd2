"""Error types of the rules engine.

Every error a user can cause is a :class:`ValueError` subclass whose message is
one line a player understands.

>>> issubclass(IllegalActionError, ValueError)
True
"""

from __future__ import annotations

__all__ = ["PengyouError", "RulesError", "InvalidActionError", "IllegalActionError", "SamplingError"]


class PengyouError(ValueError):
    """Base class of every error raised for bad input."""


class RulesError(PengyouError):
    """A rule setting or preset is invalid (the message names the setting)."""


class InvalidActionError(PengyouError):
    """Text or a value could not be understood as cards or an action."""


class IllegalActionError(PengyouError):
    """A well-formed action breaks a rule (the message says which)."""


class SamplingError(PengyouError):
    """No deal of the unseen cards agrees with the view (or none was found)."""
