"""The house rules, read from the sources.

The layers import one way only: core <- bots <- arena, and inside the arena
its parts in the order of ``ARENA_ORDER``. No module imports another in a
circle, no private name crosses a module, and no module grows past what one
reader holds at once (``MAX_LINES``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = {"core": {"bots", "arena"}, "bots": {"arena"}, "arena": set(), "seeds": {"core", "bots", "arena"}}
PACKAGES = ("core", "bots", "arena", "seeds")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_reverse_imports(package):
    files = list((ROOT / package).glob("**/*.py")) + list((ROOT / package).glob("**/*.pyx"))
    assert files, f"no sources found in {package}"
    for f in files:
        if f.suffix == ".pyx":
            text = f.read_text(encoding="utf-8")
            bad = [b for b in FORBIDDEN[package] if f"import {b}" in text or f"from {b}" in text]
        else:
            bad = sorted(_imports(f) & FORBIDDEN[package])
        assert not bad, f"{f.relative_to(ROOT)} imports {bad}: layers go core <- bots <- arena"


SEARCH_WORDS = ("SearchTree", "greedy_follow", "greedy_lead", "greedy_single", "policy_play", "TNode", "ucb", "UCB",
                "rollout")


def test_the_search_lives_in_bots_and_core_holds_only_the_game():
    """No tree, no playout policy, no choice of what to play in core: the
    compiled search in bots/search reaches the engine through _play.pxd."""
    for f in sorted((ROOT / "core").glob("*.py*")):
        if f.suffix not in (".py", ".pyx", ".pxd"):
            continue
        text = f.read_text(encoding="utf-8")
        found = [w for w in SEARCH_WORDS if w in text]
        assert not found, f"{f.relative_to(ROOT)} mentions {found}: search belongs in bots/search"
    tree = (ROOT / "bots" / "search" / "_tree.pyx").read_text(encoding="utf-8")
    assert "from core._play cimport" in tree and "cdef class SearchTree" in tree
    policy = (ROOT / "bots" / "search" / "_policy.pyx").read_text(encoding="utf-8")
    assert "from core._play cimport" in policy and "cdef void playout_with" in policy


# ------------------------------------------------------------------ the module graph
#: Compiled modules whose ``import`` / ``cimport`` lines are read as edges too.
COMPILED = ("core/_kernel.pyx", "core/_play.pyx", "core/_deal.pyx", "bots/search/_policy.pyx", "bots/search/_tree.pyx",
            "bots/search/_belief.pyx")


@dataclass(frozen=True)
class Edge:
    """One import of one project module by another, where it is written."""

    importer: str           #: dotted name of the importing module
    target: str             #: dotted name of the imported module
    name: str               #: the name taken (``from X import name``), or "" for ``import X``
    path: Path              #: the importer's file
    line: int
    text: str               #: the import as written (one name of it)
    type_checking: bool     #: under ``if TYPE_CHECKING:`` (annotations only)

    @property
    def where(self) -> str:
        """``file:line  statement``, for messages."""
        return f"{self.path.relative_to(ROOT)}:{self.line}  `{self.text}`"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    """Every module of the project: dotted name -> file."""
    out: dict[str, Path] = {}
    for pkg in PACKAGES:
        for f in sorted((ROOT / pkg).rglob("*.py")):
            if "__pycache__" not in f.parts:
                out[_module_name(f)] = f
    for rel in COMPILED:
        out[_module_name(ROOT / rel)] = ROOT / rel
    return out


MODULES = _sources()


def _owner(name: str) -> str | None:
    """The project module ``name`` lands in (its longest prefix that is one)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        if ".".join(parts[:i]) in MODULES:
            return ".".join(parts[:i])
    return None


def _absolute(importer: str, path: Path, level: int, module: str | None) -> str:
    """A relative import's module as a dotted name (``from ..x import y`` in ``a.b.c`` -> ``a.x``)."""
    if level == 0:
        return module or ""
    parts = importer.split(".")
    if path.stem != "__init__":
        parts = parts[:-1]
    parts = parts[:len(parts) - (level - 1)]
    return ".".join(parts + ([module] if module else []))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement, at any depth (function-level ones too), and
    whether it sits under ``if TYPE_CHECKING:``."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, checking = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, checking
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend((n, True) for n in node.body)
            stack.extend((n, checking) for n in node.orelse)
            continue
        stack.extend((n, checking) for n in ast.iter_child_nodes(node))


def _edge(importer: str, path: Path, line: int, module: str, name: str, text: str, checking: bool) -> Edge | None:
    """The edge of ``from module import name`` (or ``import module`` when
    ``name`` is empty): to the submodule ``module.name`` if there is one."""
    full = f"{module}.{name}" if name and name != "*" else module
    target = full if full in MODULES else _owner(module)
    if target is None:
        return None
    return Edge(importer, target, name, path, line, text, checking)


def _python_edges(importer: str, path: Path) -> Iterator[Edge]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node, checking in _import_nodes(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                e = _edge(importer, path, node.lineno, a.name, "", f"import {a.name}", checking)
                if e is not None:
                    yield e
            continue
        module = _absolute(importer, path, node.level, node.module)
        written = "." * node.level + (node.module or "")
        for a in node.names:
            e = _edge(importer, path, node.lineno, module, a.name, f"from {written} import {a.name}", checking)
            if e is not None:
                yield e


_PYX_IMPORT = re.compile(r"^\s*(?:from\s+(\.*)([\w.]*)\s+c?import\s+(.*)|c?import\s+([\w.]+))")


def _compiled_edges(importer: str, path: Path) -> Iterator[Edge]:
    """A Cython module's ``import`` / ``cimport`` lines (one per line; the
    names of a parenthesised list are not needed: they are not modules)."""
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = _PYX_IMPORT.match(line)
        if m is None:
            continue
        if m.group(4):
            e = _edge(importer, path, i, m.group(4), "", line.strip(), False)
            if e is not None:
                yield e
            continue
        module = _absolute(importer, path, len(m.group(1)), m.group(2) or None)
        names = [n.split(" as ")[0].strip() for n in m.group(3).strip("() \\").split(",")]
        for n in [n for n in names if n.isidentifier()] or [""]:
            e = _edge(importer, path, i, module, n, line.strip(), False)
            if e is not None:
                yield e


def _all_edges() -> list[Edge]:
    out = []
    for name, path in MODULES.items():
        found = _compiled_edges(name, path) if path.suffix == ".pyx" else _python_edges(name, path)
        out.extend(e for e in found if e.target != name)
    return sorted(out, key=lambda e: (str(e.path), e.line))


EDGES = _all_edges()


def test_the_graph_sees_the_imports_it_must():
    """The reader of imports works: a few edges known to exist are found."""
    found = {(e.importer, e.target) for e in EDGES}
    for edge in [("core.kernel", "core._kernel"), ("core._play", "core._kernel"), ("bots.search", "bots.search._tree"),
                 ("bots.search._tree", "core._play"), ("bots.search._tree", "bots.search._policy"),
                 ("arena.sandbox", "arena.sandbox.forkserver")]:
        assert edge in found, f"the import graph lacks {edge[0]} -> {edge[1]}: fix the reader in tests/test_layers.py"


# ------------------------------------------------------------------ no circles
def _circles(edges: list[Edge]) -> list[list[str]]:
    """The strongly connected parts of the graph with more than one module
    (Tarjan), each as one shortest circle through its first module."""
    graph: dict[str, set[str]] = {}
    for e in edges:
        graph.setdefault(e.importer, set()).add(e.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    parts: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                parts.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    circles = []
    for part in parts:
        inside = set(part)
        start = part[0]
        came: dict[str, str] = {}
        frontier = [start]
        while frontier and start not in came:
            nxt = []
            for v in frontier:
                for w in sorted(graph[v] & inside):
                    if w not in came:
                        came[w] = v
                        nxt.append(w)
            frontier = nxt
        path = [start]
        v = came[start]
        while v != start:
            path.append(v)
            v = came[v]
        circles.append([start] + path[1:][::-1] + [start])
    return sorted(circles)


def _statements(edges: list[Edge]) -> list[str]:
    """``file:line`` of each import statement among ``edges``, with the names it takes."""
    names: dict[tuple[Path, int], list[Edge]] = {}
    for e in edges:
        names.setdefault((e.path, e.line), []).append(e)
    out = []
    for (path, line), group in names.items():
        taken = ", ".join(dict.fromkeys(e.name for e in group if e.name))
        out.append(f"{path.relative_to(ROOT)}:{line}  imports {group[0].target}" + (f" ({taken})" if taken else ""))
    return out


def test_no_import_circles():
    """No module imports itself through others. Imports under
    ``if TYPE_CHECKING:`` never run and are set aside; an import inside a
    function runs and counts."""
    edges = [e for e in EDGES if not e.type_checking]
    found = _circles(edges)
    lines = []
    for circle in found:
        lines.append("import circle: " + " -> ".join(circle))
        for a, b in zip(circle, circle[1:]):
            lines.extend(f"    {where}" for where in _statements([e for e in edges if e.importer == a and e.target == b]))
    assert not found, "\n".join(lines) + (
        "\nBreak each circle at one of these imports: move what the lower module takes from the higher one into "
        "it or into a new module both import, so that imports go one way (an import needed only for annotations "
        "may go under `if TYPE_CHECKING:`).")


def test_the_circle_finder_finds_circles():
    def e(a: str, b: str) -> Edge:
        return Edge(a, b, "", ROOT / "x.py", 1, f"import {b}", False)

    assert _circles([e("a", "b"), e("b", "c"), e("c", "a"), e("c", "d")]) == [["a", "b", "c", "a"]]
    assert _circles([e("a", "b"), e("b", "c")]) == []


# ------------------------------------------------------------------ the arena's layers
#: The arena's parts, lowest first: each may import only itself and the parts
#: before it (``arena/__init__.py`` and ``arena/__main__.py`` are above them all).
ARENA_ORDER = (
    "types",        # the values the parts pass to each other
    "sandbox",      # untrusted processes: the fork server, the walls, the bot side of the wire
    "table",        # one job at one table: the referee, its seats and faults
    "store",        # the results file and every table in it
    "stats",        # pure functions of results: ratings, SPRT, SPSA
    "render",       # text and pages from values: no I/O
    "adapters",     # the game in other frameworks (PettingZoo, OpenSpiel): optional dependencies, core and bots only
    "tournament",   # many jobs: spec, schedule, workers, the runner and its drivers
    "ladder",       # the ladder's store, rounds and web server
    "report",       # one page of a run, a ladder, an SPRT or a tuning run
    "human",        # a person at the referee's table
    "bench",        # timing the engine and the search
    "commands",     # the command line
)
_TOP = len(ARENA_ORDER)


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] != "__main__" else "(top)"


def _rank(module: str) -> int:
    part = _part(module)
    return _TOP if part == "(top)" else ARENA_ORDER.index(part)


def test_every_part_of_the_arena_has_its_place():
    parts = {_part(m) for m in MODULES if m.startswith("arena.")} - {"(top)"}
    missing = sorted(parts - set(ARENA_ORDER))
    assert not missing, (f"arena parts {missing} are not in ARENA_ORDER (tests/test_layers.py): add each at its "
                         "place, after every part it imports and before every part that imports it")
    gone = sorted(set(ARENA_ORDER) - parts)
    assert not gone, f"ARENA_ORDER names parts that no longer exist: {gone}; take them out of the table"


def test_the_arena_imports_down_its_order():
    """Every import between the arena's parts goes down ``ARENA_ORDER``
    (those under ``TYPE_CHECKING`` too: an annotation is a dependency)."""
    bad = []
    for e in EDGES:
        if not (e.importer.startswith("arena.") and (e.target == "arena" or e.target.startswith("arena."))):
            continue
        if _rank(e.target) > _rank(e.importer):
            bad.append(f"{e.where}: {_part(e.importer)!r} imports {e.target} of the later part {_part(e.target)!r}")
    assert not bad, "\n".join(bad) + (
        "\nA part may import only itself and the parts before it in ARENA_ORDER (tests/test_layers.py): move the "
        "code it needs down into its own part or an earlier one, or have the caller pass it in.")


# ------------------------------------------------------------------ private names
#: A package's public face may take private names from its own compiled module.
OWN_COMPILED = {("core.kernel", "core._kernel"), ("core.play", "core._play"), ("core.dealing", "core._deal"), ("bots.search", "bots.search._tree"),
                ("bots.search", "bots.search._policy"), ("bots.search", "bots.search._belief")}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_no_private_name_crosses_a_module():
    """``from X import _name`` (or a private module ``X._m``) is read only by
    its own module. Attribute reads (``module._name``) are not checked here."""
    bad = []
    for e in EDGES:
        if e.path.suffix != ".py":
            continue
        private = [p for p in e.target.split(".") + [e.name] if _private(p)]
        if private and (e.importer, e.target) not in OWN_COMPILED:
            bad.append(f"{e.where}: takes the private {'.'.join(private)!s} of {e.target}")
    assert not bad, "\n".join(bad) + (
        "\nA private name is its module's own: make it public (drop the underscore, give it a docstring) if other "
        "modules need it, or move the code that uses it into its module.")


# ------------------------------------------------------------------ module size
MAX_LINES = 600
#: One C translation unit: the kernel's C owners call each other inline (docs/architecture.md).
LONG_ALLOWED = {"core/_kernel.pyx"}


def test_no_module_is_too_long():
    bad = []
    for pkg in PACKAGES:
        for f in sorted((ROOT / pkg).rglob("*.py")) + sorted((ROOT / pkg).rglob("*.pyx")):
            rel = str(f.relative_to(ROOT))
            n = len(f.read_text(encoding="utf-8").splitlines())
            if n > MAX_LINES and rel not in LONG_ALLOWED and "__pycache__" not in f.parts:
                bad.append(f"{rel} has {n} lines (at most {MAX_LINES})")
    assert not bad, "\n".join(bad) + (
        "\nSplit each by responsibility into modules of its package, each under the limit, keeping its public "
        "names importable where they are imported today.")
