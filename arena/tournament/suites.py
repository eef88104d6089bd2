"""Deal-seed suites: fixed, checksummed lists of deal seeds.

A suite is a text file ``seeds/<name>.seeds``: a header of ``#`` lines, then
one seed per line (a whole number from 0 to 2**63 - 1)::

    # pengyou deal-seed suite
    # name: dev
    # count: 64
    # generator: pengyou seeds generate dev --count 64 --master pengyou-dev
    # sha256: <sha256 of the seed lines, each as decimal text and "\\n">
    1234567890123
    ...

Seed ``i`` of a suite generated from the text ``master`` is the first eight
bytes of ``sha256(f"{master}:{i}")`` read big-endian, shifted right by one,
so anyone can regenerate a suite from its header. Tournaments on the same
suite play the same deals, which is what makes their results comparable.

>>> suite = generate_suite("demo", 3, "example")
>>> suite.seeds == generate_suite("demo", 3, "example").seeds
True
>>> all(0 <= s < 2 ** 63 for s in suite.seeds), len(suite.seeds)
(True, 3)
>>> print(format_suite(suite).splitlines()[3])
# generator: pengyou seeds generate demo --count 3 --master example
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "demo.seeds")
>>> load_suite(write_suite(suite, path).path).seeds == suite.seeds
True
>>> write_suite(suite, path)                # doctest: +ELLIPSIS
Traceback (most recent call last):
...
arena.types.ArenaError: ...demo.seeds: already exists; refusing to overwrite it
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shlex
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

import seeds as _shipped

from ..types import ArenaError

__all__ = [
    "SEEDS_DIR", "Suite", "generate_suite", "format_suite", "write_suite", "load_suite",
    "available_suites", "suite_checksum", "suite_file",
]

#: Where suites named without a path live: the folder of the :mod:`seeds`
#: package (``seeds/`` in a checkout, installed with the package otherwise).
SEEDS_DIR = Path(_shipped.__file__).resolve().parent

_MAGIC = "# pengyou deal-seed suite"
_SUFFIX = ".seeds"
_MAX_SEED = 2 ** 63
_SEED_RE = re.compile(r"0|[1-9][0-9]*")
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_HEADER_RE = re.compile(r"#\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*?)\s*")
_HEX_RE = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Suite:
    """A deal-seed suite: its name, seeds in order, checksum and file.

    ``path`` is the file the suite was read from or written to (``""`` for a
    suite only generated in memory). ``generator`` is the command that made
    it, as shown in the header (``""`` if unknown); it does not take part in
    equality.
    """

    name: str
    seeds: tuple[int, ...]
    sha256: str
    path: str = ""
    generator: str = field(default="", compare=False)


def suite_checksum(seeds: Sequence[int]) -> str:
    """The sha256 hex digest of the seed lines (decimal text, each ending in ``"\\n"``).

    >>> suite_checksum([1, 2]) == hashlib.sha256(b"1\\n2\\n").hexdigest()
    True
    """
    h = hashlib.sha256()
    for s in seeds:
        h.update(f"{s}\n".encode("ascii"))
    return h.hexdigest()


def _seed(master: str, i: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{master}:{i}".encode()).digest()[:8], "big") >> 1


#: A suite named ``gen:TEXT`` is not a file: its seeds are generated from ``TEXT``
#: (seed ``i`` as in a suite generated from the master text ``TEXT``), as many as asked.
GENERATED = "gen:"


def generated_seeds(name: str, count: int) -> list[int]:
    """The first ``count`` seeds of the generated suite ``gen:TEXT``.

    >>> generated_seeds("gen:example", 3) == list(generate_suite("demo", 3, "example").seeds)
    True
    >>> generated_seeds("gen:", 3)
    Traceback (most recent call last):
    ...
    arena.types.ArenaError: suite 'gen:': give the text to generate seeds from after gen:
    """
    master = name[len(GENERATED):] if name.startswith(GENERATED) else ""
    if not master.strip():
        raise ArenaError(f"suite {name!r}: give the text to generate seeds from after {GENERATED}")
    if count < 1:
        raise ArenaError(f"suite {name!r}: a generated suite needs a number of deals (at least 1)")
    return [_seed(master, i) for i in range(count)]


def generated_seed(name: str, i: int) -> int:
    """Seed ``i`` (from 0) of the generated suite ``gen:TEXT``.

    >>> generated_seed("gen:example", 2) == generated_seeds("gen:example", 3)[2]
    True
    """
    generated_seeds(name, 1)                       # the same checks of the name
    return _seed(name[len(GENERATED):], i)


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name) or name.endswith(_SUFFIX):
        raise ArenaError(f"suite name {name!r}: use letters, digits, '_', '-' or '.', "
                         f"starting with a letter or digit, without {_SUFFIX!r}")
    return name


def _generator_line(name: str, count: int, master: str) -> str:
    return (f"pengyou seeds generate {shlex.quote(name)} --count {count} "
            f"--master {shlex.quote(master)}")


def generate_suite(name: str, count: int, master: str) -> Suite:
    """Generate ``count`` seeds from the text ``master`` (deterministic).

    The suite is not written; see :func:`write_suite`.
    """
    _check_name(name)
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise ArenaError(f"--count: {count!r} is not a whole number of at least 1")
    if not isinstance(master, str) or not master or any(c in master for c in "\r\n"):
        raise ArenaError(f"--master: {master!r} is not a non-empty one-line text")
    seeds = tuple(_seed(master, i) for i in range(count))
    if len(set(seeds)) != count:          # 63-bit hashes: never seen, but checked
        raise ArenaError(f"--master {master!r}: the generated seeds repeat; choose another master")
    return Suite(name, seeds, suite_checksum(seeds), "", _generator_line(name, count, master))


def format_suite(suite: Suite) -> str:
    """The text of a suite file (header, then one seed per line)."""
    _check_name(suite.name)
    if not suite.seeds:
        raise ArenaError(f"suite {suite.name!r}: empty suite: no seeds")
    for i, seed in enumerate(suite.seeds):
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < _MAX_SEED:
            raise ArenaError(f"suite {suite.name!r}: seed {i} ({seed!r}) is not a whole number "
                             "from 0 to 2**63 - 1")
    if len(set(suite.seeds)) != len(suite.seeds):
        raise ArenaError(f"suite {suite.name!r}: seeds repeat")
    lines = [_MAGIC, f"# name: {suite.name}", f"# count: {len(suite.seeds)}"]
    if suite.generator:
        lines.append(f"# generator: {' '.join(suite.generator.split())}")
    lines.append(f"# sha256: {suite_checksum(suite.seeds)}")
    lines.extend(str(s) for s in suite.seeds)
    return "\n".join(lines) + "\n"


def write_suite(suite: Suite, path: str | os.PathLike[str], *, overwrite: bool = False) -> Suite:
    """Write ``suite`` to ``path``; returns it with ``path`` set.

    An existing file is replaced (atomically) only with ``overwrite=True``;
    otherwise :class:`ArenaError`.
    """
    p = Path(path)
    text = format_suite(suite)
    if p.exists() and not overwrite:
        raise ArenaError(f"{p}: already exists; refusing to overwrite it")
    if not p.parent.is_dir():
        raise ArenaError(f"{p}: cannot write: no such directory {str(p.parent)!r}")
    try:
        if overwrite:
            fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", dir=p.parent)
            try:
                with os.fdopen(fd, "w", encoding="ascii", newline="\n") as fh:
                    fh.write(text)
                os.chmod(tmp, 0o644)
                os.replace(tmp, p)
            except BaseException:
                if os.path.exists(tmp):
                    os.unlink(tmp)
                raise
        else:
            with open(p, "x", encoding="ascii", newline="\n") as fh:
                fh.write(text)
    except FileExistsError:
        raise ArenaError(f"{p}: already exists; refusing to overwrite it") from None
    except OSError as exc:
        raise ArenaError(f"{p}: cannot write: {exc.strerror or exc}") from None
    return dataclasses.replace(suite, path=str(p))


def available_suites() -> list[str]:
    """Names of the suites in :data:`SEEDS_DIR`, sorted."""
    if not SEEDS_DIR.is_dir():
        return []
    return sorted(p.name[: -len(_SUFFIX)] for p in SEEDS_DIR.glob(f"*{_SUFFIX}") if p.is_file())


def suite_file(name: str) -> Path:
    """The file of the suite named ``name`` (bare, as ``dev``) in :data:`SEEDS_DIR`.

    >>> suite_file("dev") == SEEDS_DIR / "dev.seeds"
    True
    """
    return SEEDS_DIR / f"{name}{_SUFFIX}"


def _suite_path(name_or_path: str) -> tuple[Path, bool]:
    """The file of a suite, and whether it was named bare (``dev``)."""
    if "/" not in name_or_path and os.sep not in name_or_path and not name_or_path.endswith(_SUFFIX):
        return suite_file(name_or_path), True
    return Path(name_or_path), False


def load_suite(name_or_path: str) -> Suite:
    """Read and verify a suite: a bare name (``dev``) means ``seeds/dev.seeds``
    in the repository, anything else is a path.

    Every problem is an :class:`ArenaError` naming the file: missing or
    unreadable, a bad header, a line that is not a seed, a count or checksum
    that does not match, a repeated seed, or no seeds at all.
    """
    if not isinstance(name_or_path, str) or not name_or_path.strip():
        raise ArenaError(f"seed suite {name_or_path!r}: give a suite name (such as dev) or a path")
    path, bare = _suite_path(name_or_path.strip())
    if not path.exists():
        have = available_suites()
        known = f"suites in {SEEDS_DIR}: {', '.join(have)}" if have else f"no suites in {SEEDS_DIR}"
        raise ArenaError(f"{path}: no such seed suite ({known})")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ArenaError(f"{path}: cannot read: not a text file") from None
    except OSError as exc:
        raise ArenaError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return _parse(text, path, bare, name_or_path.strip())


def _fail(path: Path, msg: str) -> NoReturn:
    raise ArenaError(f"{path}: {msg}")


def _parse(text: str, path: Path, bare: bool, asked: str) -> Suite:
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines or lines[0].strip() != _MAGIC:
        _fail(path, f"bad header: line 1 is not {_MAGIC!r} (not a seed suite?)")
    header: dict[str, str] = {}
    n = 1
    while n < len(lines) and lines[n].lstrip().startswith("#"):
        m = _HEADER_RE.fullmatch(lines[n].strip())
        if m is None:
            _fail(path, f"bad header: line {n + 1} is not '# key: value'")
        key = m.group(1).lower()
        if key in header:
            _fail(path, f"bad header: line {n + 1} repeats {key!r}")
        header[key] = m.group(2)
        n += 1
    missing = [k for k in ("name", "count", "sha256") if k not in header]
    if missing:
        _fail(path, f"bad header: no {', '.join(repr(k) for k in missing)} line")
    name = header["name"]
    if not _NAME_RE.fullmatch(name):
        _fail(path, f"bad header: name {name!r} is not a suite name")
    if bare and name != asked:
        _fail(path, f"bad header: the file names suite {name!r}, not {asked!r}")
    if not _SEED_RE.fullmatch(header["count"]):
        _fail(path, f"bad header: count {header['count']!r} is not a whole number")
    count = int(header["count"])
    checksum = header["sha256"].lower()
    if not _HEX_RE.fullmatch(checksum):
        _fail(path, f"bad header: sha256 {header['sha256']!r} is not 64 hex digits")
    seeds: list[int] = []
    first: dict[int, int] = {}
    for i in range(n, len(lines)):
        word = lines[i].strip()
        if not _SEED_RE.fullmatch(word) or int(word) >= _MAX_SEED:
            shown = word if len(word) <= 40 else word[:37] + "..."
            _fail(path, f"line {i + 1}: {shown!r} is not a seed (a whole number from 0 to 2**63 - 1)")
        seed = int(word)
        if seed in first:
            _fail(path, f"line {i + 1}: seed {seed} repeats line {first[seed]}")
        first[seed] = i + 1
        seeds.append(seed)
    if not seeds:
        _fail(path, "empty suite: no seeds")
    if len(seeds) != count:
        _fail(path, f"count mismatch: the header says {count} seeds, the file has {len(seeds)}")
    actual = suite_checksum(seeds)
    if actual != checksum:
        _fail(path, f"corrupt: checksum {actual} of the seeds does not match the header's {checksum}")
    return Suite(name, tuple(seeds), actual, str(path), header.get("generator", ""))
