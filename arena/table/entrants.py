"""A bot reference read once: what a bot spec names and where its code is.

Every entrant is a spec text (what the store keeps and a user types): a
built-in bot (``random``, ``ismcts:iterations=200``), a user's Python module
(``path/to/bot.py:Class?key=value``) or a program (``cmd:PROGRAM ARGS``).
:meth:`BotRef.parse` reads it once into a :class:`BotRef`, and everything
else asks the reference: which kind it is, whether it may run inside the
referee, what the sandbox starts for it and which files it may read, and
the hash of its code that names a run.

>>> BotRef.parse("ismcts:iterations=200").kind, BotRef.parse("ismcts").name
('builtin', 'ismcts')
>>> ref = BotRef.parse("bots/mine.py:MyBot?depth=3")
>>> ref.kind, ref.path, ref.name, ref.params
('module', 'bots/mine.py', 'MyBot', 'depth=3')
>>> ref = BotRef.parse("cmd:python3 bot.py --fast")
>>> ref.kind, ref.command
('program', 'python3 bot.py --fast')
>>> BotRef.parse("random").runs_here("builtins"), ref.runs_here("builtins")
(True, False)
"""

from __future__ import annotations

import functools
import hashlib
import os
import shlex
import shutil
from dataclasses import dataclass
from typing import Any, Optional

from bots.base import FAMILIES, BotError, bot_class, parse_spec, reads_state
from core.errors import PengyouError

__all__ = ["BotRef", "KINDS", "BOT_FOLDER", "bot_folder"]

#: What a bot spec can name.
KINDS = ("builtin", "module", "program")

#: A file of this name makes its folder a bot folder: a bot whose module,
#: program or argument file is in it (or in a folder below it) may read every
#: file in it (its data), not only its own.
BOT_FOLDER = ".pengyou-bot"


def bot_folder(path: str) -> Optional[str]:
    """The bot folder that holds the file ``path``: the nearest folder above
    it holding :data:`BOT_FOLDER` (a ladder marks a submission's root so,
    whatever folder its entry is in), if any.

    >>> import tempfile
    >>> top = tempfile.mkdtemp()
    >>> os.makedirs(os.path.join(top, "bots", "7", "src"))
    >>> open(os.path.join(top, "bots", "7", BOT_FOLDER), "w").close()
    >>> mine = os.path.join(top, "bots", "7")
    >>> bot_folder(os.path.join(mine, "src", "bot.py")) == os.path.realpath(mine)
    True
    >>> bot_folder(os.path.join(top, "bots", "8", "bot.py")) is None
    True
    >>> import shutil; shutil.rmtree(top)
    """
    folder = os.path.dirname(os.path.realpath(path))
    while True:
        if os.path.isfile(os.path.join(folder, BOT_FOLDER)):
            return folder
        up = os.path.dirname(folder)
        if up == folder:
            return None
        folder = up


def _with_folder(files: tuple[str, ...]) -> tuple[str, ...]:
    """``files``, and the bot folder of each that is in one (the program's
    own folder when the program is a script run by an interpreter)."""
    out = list(files)
    for f in files:
        folder = bot_folder(f)
        if folder is not None and folder not in out:
            out.append(folder)
    return tuple(out)


def _file_digest(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True)
class BotRef:
    """A bot spec, read: ``kind`` (one of :data:`KINDS`) and its parts.

    A built-in: ``name`` (its registered name) and ``params`` (the text
    after ``:``; after ``?`` for a family's name such as ``openspiel:ismcts``). A module: ``path`` (the module file as written), ``name``
    (the class) and ``params`` (the text after ``?``). A program:
    ``command`` (the command line after ``cmd:``). ``text`` is the spec as
    given.
    """

    text: str
    kind: str
    name: str = ""
    path: str = ""
    params: str = ""
    command: str = ""

    @staticmethod
    def parse(text: str) -> BotRef:
        """Read a bot spec (reading never fails: a bad one fails when it is
        built or started, with its own one-line reason)."""
        return _parse(text)

    # ---------------------------------------------------------------- where it runs
    def runs_here(self, trusted: str) -> bool:
        """Whether the bot runs inside the referee's process under
        ``trusted``: a built-in, when built-ins are trusted or it reads the
        state (it must be shown it); modules and programs never do."""
        return self.kind == "builtin" and (trusted == "builtins" or reads_state(self.text))

    def argv(self) -> list[str]:
        """A program's argument list: the program found on ``PATH`` (or as
        given) and every argument that is a file made absolute; a
        ``ValueError`` if there is no program or it cannot be run.

        >>> BotRef.parse("cmd:python3 bot.py --depth 2").argv()[1:]
        ['bot.py', '--depth', '2']
        """
        words = shlex.split(self.command)
        if not words:
            raise ValueError(f"bot spec {self.text!r}: no program after cmd:")
        prog = words[0]
        found = shutil.which(prog) if os.sep not in prog else (prog if os.path.exists(prog) else None)
        if found is None:
            raise ValueError(f"bot program {prog!r}: no such program")
        found = os.path.realpath(found)
        if not os.access(found, os.X_OK) or os.path.isdir(found):
            raise ValueError(f"bot program {prog!r}: not an executable file")
        return [found] + [os.path.realpath(w) if os.path.isfile(w) else w for w in words[1:]]

    def target(self) -> tuple[dict[str, Any], tuple[str, ...]]:
        """What the sandbox's fork server runs for the bot, and the files it
        may read (with the whole folder of a bot folder, :data:`BOT_FOLDER`);
        a ``ValueError`` for a program that cannot be run."""
        if self.kind == "program":
            argv = self.argv()
            return {"argv": argv}, _with_folder(tuple(a for a in argv if os.path.isfile(a)))
        if self.kind == "module":
            real = os.path.realpath(self.path)         # the bot's working directory is not ours
            q = "?" if "?" in self.text else ""
            return {"spec": f"{real}:{self.name}{q}{self.params}"}, _with_folder((real,))
        return {"spec": self.text}, ()

    # ---------------------------------------------------------------- its code
    def code_files(self) -> list[str]:
        """The files of the bot's code: the module file, the program and
        every file among its arguments, the source file of a built-in's class."""
        import inspect

        if self.kind == "program":
            return [a for a in self.argv() if os.path.isfile(a)]
        if self.kind == "module":
            return [os.path.realpath(self.path)]
        try:
            cls = bot_class(parse_spec(self.text).name)
        except BotError:                    # an unknown name, or a family without its dependency
            cls = None
        source = inspect.getsourcefile(cls) if cls is not None else None
        return [source] if source else []

    def code_hash(self) -> str:
        """A sha256 of the bot's code files (:meth:`code_files`): editing
        any of them changes it, and so the identity of every run it is in;
        ``"missing"`` where a file cannot be read (the spec's check reports why).

        >>> BotRef.parse("random").code_hash() == BotRef.parse("random:").code_hash()
        True
        >>> BotRef.parse("random").code_hash() != BotRef.parse("heuristic").code_hash()
        True
        """
        try:
            files = self.code_files()
            h = hashlib.sha256()
            for f in files:
                h.update(_file_digest(f).encode() + b"\n")
            return h.hexdigest() if files else "missing"
        except (OSError, ValueError, TypeError, PengyouError):
            return "missing"


@functools.lru_cache(maxsize=1024)
def _parse(text: str) -> BotRef:
    if text.startswith("cmd:"):
        return BotRef(text, "program", command=text[4:])
    if ".py:" in text:
        head, _, params = text.partition("?")
        path, _, cls = head.rpartition(":")
        return BotRef(text, "module", name=cls, path=path, params=params)
    if any(text.startswith(f) for f in FAMILIES):   # a family's name holds a colon: parameters after "?"
        name, _, params = text.partition("?")
    else:
        name, _, params = text.partition(":")
    return BotRef(text, "builtin", name=name.strip(), params=params)
