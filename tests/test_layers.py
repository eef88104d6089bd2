"""The layers import one way only: core <- bots <- arena."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = {"core": {"bots", "arena"}, "bots": {"arena"}, "arena": set(), "seeds": {"core", "bots", "arena"}}


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
