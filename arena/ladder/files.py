"""A submission's files, taken into the ladder's storage safely.

A submission is one Python module, one program, a folder, or a zip
archive of a folder. Its files are copied (or extracted) into a fresh
folder under the ladder's ``bots/`` and never anywhere else: every name is
checked part by part (letters, digits, ``. _ -``; no ``..``, no hidden or
absolute names), links and special files are refused, and the number of
files and their total size are capped, counted as they are written (a zip
that lies about its sizes is stopped at the cap). The folder is marked a
bot folder (:data:`arena.table.entrants.BOT_FOLDER`), so the bot may read its own
data files in the sandbox, and made read-only.

>>> import os, tempfile
>>> src = tempfile.mkdtemp(); dst = tempfile.mkdtemp()
>>> with open(os.path.join(src, "mybot.py"), "w") as f:
...     _ = f.write("class Mine:\\n    def step(self, view):\\n        return view.random_action(None)\\n")
>>> taken = take(os.path.join(src, "mybot.py"), os.path.join(dst, "7"))
>>> taken.entry, taken.kind, bot_classes(os.path.join(dst, "7", "mybot.py"))
('mybot.py', 'module', ['Mine'])
>>> safe_name("../etc/passwd")
Traceback (most recent call last):
...
arena.types.ArenaError: the file name '../etc/passwd' is not allowed: use letters, digits and . _ - in each part
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import zipfile
from dataclasses import dataclass
from typing import IO, BinaryIO, Optional

from ..table.entrants import BOT_FOLDER
from ..types import ArenaError

__all__ = ["Taken", "take", "take_stream", "take_zip", "safe_name", "bot_classes", "folder_hash", "folder_size",
           "MAX_FILES", "MAX_BYTES"]

#: Most files a submission may hold.
MAX_FILES = 200
#: Most bytes a submission may hold, all files together (after extraction).
MAX_BYTES = 32 << 20

_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,99}")


@dataclass(frozen=True)
class Taken:
    """A submission in its folder: the entry file (relative) and its kind."""

    folder: str
    entry: str
    kind: str            #: ``"module"`` (a ``.py`` file) or ``"program"``
    files: int
    size: int


def safe_name(name: str) -> str:
    """``name`` (a relative path with ``/``) if every part is allowed, else
    :class:`ArenaError`; the normalised name."""
    parts = name.replace("\\", "/").split("/")
    if name.endswith("/"):
        parts = parts[:-1]
    if not parts or any(not _PART.fullmatch(p) or p in (".", "..") for p in parts) or len(parts) > 8:
        shown = name if len(name) <= 60 else name[:57] + "..."
        raise ArenaError(f"the file name {shown!r} is not allowed: use letters, digits and . _ - in each part")
    return "/".join(parts)


#: What reading a module's classes may take: memory (bytes) and time (seconds). A module's syntax
#: tree is parsed in a child process under these, never in the ladder's process or its server:
#: a small file can make the parser take gigabytes or recurse too deep.
PARSE_MEMORY = 1 << 30
PARSE_SECONDS = 20.0

_PARSE = """
import ast, json, resource, sys
limit = int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
try:
    with open(sys.argv[1], "rb") as fh:
        tree = ast.parse(fh.read(), filename=sys.argv[3])
except SyntaxError as exc:
    print(json.dumps({"syntax": [exc.lineno, exc.msg]}))
except (MemoryError, RecursionError) as exc:
    print(json.dumps({"big": type(exc).__name__}))
except (OSError, ValueError) as exc:
    print(json.dumps({"unreadable": str(exc)}))
else:
    print(json.dumps({"classes": [n.name for n in tree.body if isinstance(n, ast.ClassDef) and any(
        isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name == "step" for f in n.body)]}))
"""


def bot_classes(path: str, optional: bool = False) -> Optional[list[str]]:
    """The top-level classes of a Python file that define ``step``, read
    from its syntax (the file is never run: it is parsed in a child process
    with its memory and time capped). A file too large or too deeply nested
    to parse within them is refused, or, with ``optional``, gives None
    (the caller names the class; the validation deal tells the rest)."""
    import subprocess
    import sys

    base = os.path.basename(path)
    try:
        done = subprocess.run([sys.executable, "-I", "-S", "-c", _PARSE, path, str(PARSE_MEMORY), base],
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=PARSE_SECONDS)
        answer = json.loads(done.stdout.decode("utf-8", "replace").strip().splitlines()[-1])
    except subprocess.TimeoutExpired:
        answer = {"big": "timeout"}
    except (OSError, ValueError, IndexError):
        answer = {"big": "no answer"}
    if "classes" in answer:
        return [str(c) for c in answer["classes"]]
    if "syntax" in answer:
        line, msg = answer["syntax"]
        raise ArenaError(f"{base}: line {line}: {msg}")
    if "unreadable" in answer:
        raise ArenaError(f"cannot read {base}: {answer['unreadable']}")
    if optional:
        return None
    raise ArenaError(f"{base} is too large or too deeply nested to read its classes here: name the bot class "
                     "(FILE:Class)")


class _Budget:
    def __init__(self) -> None:
        self.files = 0
        self.size = 0

    def file(self, name: str) -> None:
        self.files += 1
        if self.files > MAX_FILES:
            raise ArenaError(f"the submission has more than {MAX_FILES} files")

    def bytes(self, n: int) -> None:
        self.size += n
        if self.size > MAX_BYTES:
            raise ArenaError(f"the submission holds more than {MAX_BYTES >> 20} MiB")


def _copy_stream(src: IO[bytes], dst_path: str, budget: _Budget, mode: int) -> None:
    fd = os.open(dst_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as out:
        while True:
            block = src.read(1 << 16)
            if not block:
                break
            budget.bytes(len(block))
            out.write(block)
    os.chmod(dst_path, 0o555 if mode & 0o111 else 0o444)


def _place(folder: str, name: str) -> str:
    rel = safe_name(name)
    path = os.path.join(folder, *rel.split("/"))
    real = os.path.realpath(path)
    if not real.startswith(os.path.realpath(folder) + os.sep):
        raise ArenaError(f"the file name {name!r} leads out of the submission")
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    except OSError as exc:                  # a part of the path is a file already
        raise ArenaError(f"the file name {name!r} cannot be placed: {exc.strerror or exc}") from None
    return path


def _finish(folder: str, entry: Optional[str], budget: _Budget) -> Taken:
    if entry is None:
        entry = "bot.py" if os.path.isfile(os.path.join(folder, "bot.py")) else None
        if entry is None:
            raise ArenaError("a folder or zip needs its entry: bot.py, or name one with --entry")
    entry = safe_name(entry)
    path = os.path.join(folder, *entry.split("/"))
    if not os.path.isfile(path):
        raise ArenaError(f"the entry {entry!r} is not a file of the submission")
    kind = "module" if entry.endswith(".py") else "program"
    if kind == "program":
        os.chmod(path, 0o555)
    with open(os.path.join(folder, BOT_FOLDER), "w", encoding="utf-8") as fh:
        fh.write("a ladder submission: the bot may read every file here\n")
    for root, dirs, _files in os.walk(folder):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o555)
    os.chmod(folder, 0o555)
    return Taken(folder, entry, kind, budget.files, budget.size)


def take(source: str, folder: str, entry: Optional[str] = None) -> Taken:
    """Copy a file or a folder (or extract a ``.zip``) into the new
    ``folder``; its entry is the file itself, or ``entry``, or ``bot.py``."""
    if not os.path.exists(source):
        raise ArenaError(f"no such file or folder: {source}")
    if source.endswith(".zip") and os.path.isfile(source):
        with open(source, "rb") as fh:
            return take_zip(fh, folder, entry)
    if not os.path.isdir(source):
        st = os.stat(source)
        if not stat.S_ISREG(st.st_mode):
            raise ArenaError(f"{source} is not a plain file")
        with open(source, "rb") as src:
            return take_stream(src, os.path.basename(source), folder, st.st_mode)
    os.makedirs(folder)
    budget = _Budget()
    try:
        for root, dirs, files in os.walk(source):
            dirs.sort()
            for d in dirs:
                if os.path.islink(os.path.join(root, d)):
                    raise ArenaError(f"the submission holds a link ({d}); links are not allowed")
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for f in sorted(files):
                full = os.path.join(root, f)
                rel = os.path.relpath(full, source).replace(os.sep, "/")
                st = os.lstat(full)
                if not stat.S_ISREG(st.st_mode):
                    raise ArenaError(f"the submission holds {rel!r}, which is not a plain file")
                if f.endswith(".pyc"):
                    continue
                budget.file(rel)
                with open(full, "rb") as src:
                    _copy_stream(src, _place(folder, rel), budget, st.st_mode)
        return _finish(folder, entry, budget)
    except BaseException:
        remove(folder)
        raise


def take_stream(data: IO[bytes], name: str, folder: str, mode: int = 0) -> Taken:
    """One file, read from the stream ``data``, as the entry of the new
    ``folder`` (``mode``: its permission bits; an entry that is not a
    ``.py`` file is made executable either way)."""
    os.makedirs(folder)
    budget = _Budget()
    try:
        budget.file(name)
        _copy_stream(data, _place(folder, name), budget, mode)
        return _finish(folder, name, budget)
    except BaseException:
        remove(folder)
        raise


def take_zip(data: BinaryIO, folder: str, entry: Optional[str] = None) -> Taken:
    """Extract a zip archive (a seekable binary stream) into the new ``folder``."""
    os.makedirs(folder)
    budget = _Budget()
    try:
        try:
            archive = zipfile.ZipFile(data)
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise ArenaError(f"the upload is not a readable zip archive ({exc})") from None
        with archive:
            for info in archive.infolist():
                if info.is_dir():
                    safe_name(info.filename)
                    continue
                kind = (info.external_attr >> 16) & 0o170000
                if kind and kind != stat.S_IFREG:
                    raise ArenaError(f"the archive holds {info.filename!r}, which is not a plain file")
                if info.filename.endswith(".pyc") or "__pycache__/" in info.filename:
                    continue
                budget.file(info.filename)
                target = _place(folder, info.filename)
                try:
                    with archive.open(info) as src:
                        _copy_stream(src, target, budget, (info.external_attr >> 16) & 0o777)
                except (zipfile.BadZipFile, OSError, NotImplementedError, RuntimeError, EOFError) as exc:
                    raise ArenaError(f"the archive's {info.filename!r} cannot be read ({exc})") from None
        return _finish(folder, entry, budget)
    except BaseException:
        remove(folder)
        raise


def folder_hash(folder: str) -> str:
    """A sha256 over every file's relative name and contents."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for f in sorted(files):
            full = os.path.join(root, f)
            h.update(os.path.relpath(full, folder).replace(os.sep, "/").encode() + b"\0")
            with open(full, "rb") as fh:
                h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()


def folder_size(folder: str) -> int:
    """The bytes of every file under ``folder`` (0 for "" or a missing one)."""
    total = 0
    for root, _dirs, files in os.walk(folder) if folder else ():
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


def remove(folder: str) -> None:
    """Delete a submission's folder (made writable first)."""
    if not os.path.exists(folder):
        return
    for root, dirs, _files in os.walk(folder):
        os.chmod(root, 0o755)
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o755)
    shutil.rmtree(folder, ignore_errors=True)
