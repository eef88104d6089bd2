"""The wall around untrusted bots: a fork server per referee, the jail each
bot process enters (namespaces, Landlock, seccomp, rlimits, control
groups), the bot side of the wire (``host``) and the protocol both ends
speak. It knows nothing of tournaments."""

from .forkserver import BotProcess, SandboxError, Walls, Zygote, program_argv

__all__ = ["BotProcess", "SandboxError", "Walls", "Zygote", "program_argv"]
