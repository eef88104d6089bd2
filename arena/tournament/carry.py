"""What a job takes to a worker on another machine: its bots' code, as
bytes, and the pengyou it expects to find there.

A worker of a cluster shares no folder with the client that sends it work.
So the client never sends a path: for each entrant whose code is a file of
the user's (a module, a program, the files on a program's command line, and
the whole bot folder any of them is in, :data:`~arena.table.entrants.BOT_FOLDER`)
it sends a :class:`Parcel`, the files' bytes named by the sha256 of their
content, and a :class:`Carried` that says how to rewrite the spec around
wherever the parcel lands. The worker writes a parcel once into a cache of
its own (:func:`unpack`, checked against its digest), rewrites the spec
(:meth:`Carried.local_spec`) and checks that the bot's code hash there equals
the one the client computed, before any bot runs. Built-ins travel as their
spec: the worker's pengyou, which :func:`identity` names, must be the
client's.

Programs the machine provides (an interpreter on ``PATH``, or a file under
a system or Python prefix, such as ``/usr`` or the environment pengyou runs
in) are not carried: every worker must have them, and the code hash, which
covers them, tells when one has another build.

>>> import tempfile, os
>>> top = tempfile.mkdtemp()
>>> path = os.path.join(top, "mine.py")
>>> with open(path, "w") as fh:
...     _ = fh.write("from bots.random_bot import RandomBot as Mine\\n")
>>> carried, parcel = carry(f"{path}:Mine?x=1")
>>> [name for name, _, _ in parcel.parts[0].files]
['mine.py']
>>> root = unpack(parcel, os.path.join(top, "cache"))
>>> carried.local_spec(root) == os.path.join(root, "p0", "mine.py") + ":Mine?x=1"
True
>>> import shutil; shutil.rmtree(top)
"""

from __future__ import annotations

import functools
import hashlib
import os
import shlex
import shutil
import stat
import sys
import tempfile
from dataclasses import dataclass
from typing import Optional

from ..table.entrants import BotRef, bot_folder

__all__ = ["Part", "Parcel", "Carried", "carry", "unpack", "identity", "cache_root", "SYSTEM_PREFIXES"]

#: Files under these folders (and under the Python environments pengyou runs
#: in) belong to the machine, not to a bot: they are not carried.
SYSTEM_PREFIXES = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/opt", "/etc", "/nix")

#: At most this many bytes are carried for one bot (a cap against carrying a
#: user's home by mistake; a ladder caps submissions far below it).
MAX_PARCEL_BYTES = 512 << 20


@dataclass(frozen=True)
class Part:
    """One folder or one file of a bot's: ``files`` are (relative path,
    mode bits 0o644 or 0o755, bytes)."""

    files: tuple[tuple[str, int, bytes], ...]


@dataclass(frozen=True)
class Parcel:
    """A bot's code as bytes: its parts, named by the sha256 of their content."""

    digest: str
    parts: tuple[Part, ...]


@dataclass(frozen=True)
class Carried:
    """How one entrant's spec reads on a worker: ``spec`` and ``code_hash``
    as the client has them, ``parcel`` the digest of its files, and
    ``words``: the spec's pieces, each literal text or a file of the parcel
    (``("file", "p0/bot.py")``)."""

    spec: str
    code_hash: str
    parcel: str
    kind: str
    words: tuple[tuple[str, str], ...]

    def local_spec(self, root: str) -> str:
        """The spec with the parcel unpacked at ``root``."""
        parts = [os.path.join(root, *text.split("/")) if what == "file" else text for what, text in self.words]
        if self.kind == "program":
            return "cmd:" + shlex.join(parts)
        return "".join(parts)


def _prefixes() -> tuple[str, ...]:
    here = (sys.prefix, sys.base_prefix, sys.exec_prefix)
    mine = {os.path.realpath(p) for p in here} | {os.path.abspath(p) for p in here}
    return tuple(sorted(mine)) + SYSTEM_PREFIXES


def _machine_file(path: str) -> bool:
    """Whether ``path`` (absolute) belongs to the machine rather than to a bot."""
    places = {os.path.realpath(path), os.path.abspath(path)}
    return any(place == p or place.startswith(p.rstrip("/") + "/")
               for place in places for p in _prefixes())


def _mode(st: os.stat_result) -> int:
    return 0o755 if st.st_mode & stat.S_IXUSR else 0o644


@functools.lru_cache(maxsize=4096)
def _file_part(real: str, mtime: int, size: int) -> Part:
    with open(real, "rb") as fh:
        data = fh.read()
    return Part(((os.path.basename(real), _mode(os.stat(real)), data),))


def _folder_part(folder: str) -> Part:
    files: list[tuple[str, int, bytes]] = []
    total = 0
    for top, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not os.path.islink(os.path.join(top, d)))
        for name in sorted(names):
            path = os.path.join(top, name)
            st = os.lstat(path)
            if not stat.S_ISREG(st.st_mode):
                continue
            total += st.st_size
            if total > MAX_PARCEL_BYTES:
                raise ValueError(f"bot folder {folder}: over {MAX_PARCEL_BYTES >> 20} MiB to carry to workers")
            with open(path, "rb") as fh:
                files.append((os.path.relpath(path, folder).replace(os.sep, "/"), _mode(st), fh.read()))
    return Part(tuple(files))


def _digest(parts: tuple[Part, ...]) -> str:
    h = hashlib.sha256()
    for i, part in enumerate(parts):
        for rel, mode, data in part.files:
            h.update(f"{i}\0{rel}\0{mode:o}\0{hashlib.sha256(data).hexdigest()}\n".encode())
    return h.hexdigest()


class _Packer:
    """Gathers the parts of one bot: a bot folder once, a lone file once."""

    def __init__(self) -> None:
        self.parts: list[Part] = []
        self._where: dict[str, int] = {}

    def file(self, path: str) -> str:
        """The file ``path`` (a real path) inside the parcel: ``pN/rel``."""
        folder = bot_folder(path)
        key = folder or path
        if key not in self._where:
            self._where[key] = len(self.parts)
            if folder is not None:
                self.parts.append(_folder_part(folder))
            else:
                st = os.stat(path)
                self.parts.append(_file_part(path, st.st_mtime_ns, st.st_size))
        n = self._where[key]
        rel = os.path.relpath(path, folder).replace(os.sep, "/") if folder else os.path.basename(path)
        return f"p{n}/{rel}"

    def parcel(self) -> Parcel:
        parts = tuple(self.parts)
        return Parcel(_digest(parts), parts)


def carry(spec: str) -> tuple[Carried, Optional[Parcel]]:
    """What a worker needs to play the bot ``spec``: the spec's
    :class:`Carried` form and its :class:`Parcel` (None for a built-in or a
    program of the machine's). A file that cannot be read raises
    ``ValueError`` (the spec's own check says why first)."""
    ref = BotRef.parse(spec)
    code_hash = ref.code_hash()
    if ref.kind == "builtin":
        return Carried(spec, code_hash, "", ref.kind, (("text", spec),)), None
    pack = _Packer()
    words: list[tuple[str, str]] = []
    if ref.kind == "module":
        real = os.path.realpath(ref.path)
        if not os.path.isfile(real):
            raise ValueError(f"bot module {ref.path!r}: no such file")
        words.append(("file", pack.file(real)))
        tail = ":" + ref.name + ("?" + ref.params if "?" in spec else "")
        words.append(("text", tail))
    else:
        for i, word in enumerate(shlex.split(ref.command)):
            is_path = os.sep in word or i > 0
            if is_path and os.path.isfile(word) and not _machine_file(os.path.abspath(word)):
                words.append(("file", pack.file(os.path.realpath(word))))
            elif i == 0 and os.sep in word:
                words.append(("text", os.path.abspath(word)))   # the machine's program, where it is here
            else:
                words.append(("text", word))
    parcel = pack.parcel() if pack.parts else None
    return Carried(spec, code_hash, parcel.digest if parcel else "", ref.kind, tuple(words)), parcel


def cache_root() -> str:
    """Where a worker keeps the parcels it has unpacked: ``PENGYOU_BOT_CACHE``,
    or a folder of this user's under the system's temporary folder."""
    return os.environ.get("PENGYOU_BOT_CACHE") or os.path.join(tempfile.gettempdir(), f"pengyou-bots-{os.getuid()}")


def unpack(parcel: Parcel, cache: Optional[str] = None) -> str:
    """Write ``parcel`` into ``cache`` (once: a parcel already there is
    kept) and return its folder; a parcel whose bytes do not match its
    digest raises ``ValueError``. Folders may be entered and files read by
    every user (sandboxed bots run as users of their own; their walls
    decide what each may read), written by this user only."""
    if _digest(parcel.parts) != parcel.digest:
        raise ValueError(f"parcel {parcel.digest[:12]}: its bytes do not match its digest")
    cache = cache or cache_root()
    os.makedirs(cache, mode=0o711, exist_ok=True)
    final = os.path.join(cache, parcel.digest)
    if os.path.isdir(final) and _digest(_read_back(final, parcel)) == parcel.digest:
        return final
    work = tempfile.mkdtemp(prefix=".unpack-", dir=cache)
    try:
        os.chmod(work, 0o755)
        for i, part in enumerate(parcel.parts):
            for rel, mode, data in part.files:
                path = os.path.join(work, f"p{i}", *rel.split("/"))
                if ".." in rel.split("/") or rel.startswith("/"):
                    raise ValueError(f"parcel {parcel.digest[:12]}: a file named {rel!r}")
                os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
                with open(path, "wb") as fh:
                    fh.write(data)
                os.chmod(path, mode)
        for top, dirs, _ in os.walk(work):
            for d in dirs:
                os.chmod(os.path.join(top, d), 0o755)
        if os.path.isdir(final):
            shutil.rmtree(final, ignore_errors=True)     # a damaged copy: replaced whole
        try:
            os.rename(work, final)
        except OSError:
            if not os.path.isdir(final):                  # another worker's rename won: theirs is the same bytes
                raise
    finally:
        if os.path.isdir(work):
            shutil.rmtree(work, ignore_errors=True)
    return final


def _read_back(folder: str, parcel: Parcel) -> tuple[Part, ...]:
    """The parts as they are now on disk, in the parcel's file order."""
    out = []
    for i, part in enumerate(parcel.parts):
        files = []
        for rel, _m, _ in part.files:
            path = os.path.join(folder, f"p{i}", *rel.split("/"))
            try:
                with open(path, "rb") as fh:
                    files.append((rel, _mode(os.stat(path)), fh.read()))
            except OSError:
                return ()
        out.append(Part(tuple(files)))
    return tuple(out)


@functools.lru_cache(maxsize=1)
def identity() -> tuple[str, str]:
    """This pengyou: its version and a sha256 of its source files (the
    ``.py``, ``.pyx`` and ``.pxd`` files of ``core``, ``bots`` and
    ``arena``). A worker whose pair differs from the client's is refused.

    >>> version, digest = identity()
    >>> len(digest)
    64
    """
    from importlib import metadata

    try:
        version = metadata.version("pengyou")
    except metadata.PackageNotFoundError:
        version = "unknown"
    base = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    h = hashlib.sha256()
    for pkg in ("core", "bots", "arena"):
        top = os.path.join(base, pkg)
        found = []
        for folder, dirs, names in os.walk(top):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            found += [os.path.join(folder, n) for n in names if n.endswith((".py", ".pyx", ".pxd"))]
        for path in sorted(found):
            with open(path, "rb") as fh:
                h.update(os.path.relpath(path, base).encode() + b"\0" + hashlib.sha256(fh.read()).digest())
    return version, h.hexdigest()
