"""The example bots of docs/examples play whole deals through the real referee.

`standalone_bot.py` is written from docs/protocol.md alone and runs as a `cmd:` program;
`high_card_bot.py:HighCardBot` is a Python class run by the built-in host.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
STANDALONE = EXAMPLES / "standalone_bot.py"
HIGH_CARD = EXAMPLES / "high_card_bot.py"
# The sandbox lets a bot read only the system, the Python installation and the files named on
# its command line, so name the real interpreter (not a venv link or a version manager's shim).
PYTHON = os.path.realpath(sys.executable)


def pengyou() -> str:
    here = Path(sys.executable).parent / "pengyou"
    if here.exists():
        return str(here)
    found = shutil.which("pengyou")
    if found:
        return found
    return str(ROOT / ".venv" / "bin" / "pengyou")


def standalone_spec(*extra: str) -> str:
    return " ".join(["cmd:" + PYTHON, str(STANDALONE), *extra])


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([pengyou(), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def assert_clean(proc: subprocess.CompletedProcess) -> None:
    report = f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr[-4000:]}"
    assert proc.returncode == 0, report
    # A fault ends a duel with "pengyou: error: bot ... <kind>: ..." and a non-zero status.
    assert "pengyou: error" not in proc.stderr, report
    for kind in ("illegal:", "protocol:", "timeout:", "crash:", "died:", "memory:"):
        assert kind not in proc.stderr, report


@pytest.mark.parametrize("players,deals", [(5, 3), (6, 2), (12, 2)])
def test_standalone_duel(players: int, deals: int) -> None:
    proc = run("duel", standalone_spec(), "random", "--deals", str(deals),
               "--players", str(players), "--json")
    assert_clean(proc)
    result = json.loads(proc.stdout)
    assert result["players"] == players
    assert result["a"]["bot"].startswith("cmd:")


@pytest.mark.parametrize("players", [5, 8, 12])
def test_standalone_duel_without_legal_lists(players: int) -> None:
    # --no-legal: the bot does not ask for `legal` and works out every action from section 8.
    proc = run("duel", standalone_spec("--no-legal"), "random", "--deals", "2",
               "--players", str(players))
    assert_clean(proc)


@pytest.mark.parametrize("players", [5, 12])
def test_standalone_duel_coalesced(players: int) -> None:
    # --coalesce: its view changes only by the update before each request; a stale or wrong
    # view would make the bot (which works out its own actions here) play illegally.
    proc = run("duel", standalone_spec("--no-legal", "--coalesce"), "random", "--deals", "2",
               "--players", str(players))
    assert_clean(proc)


def test_standalone_in_arena(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    spec = standalone_spec()
    proc = run("arena", "run", "--bots", spec, "random", "--deals", "2", "--players", "5",
               "--db", str(db), "--no-progress", "--workers", "1")
    assert_clean(proc)
    proc = run("arena", "standings", "--db", str(db), "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["run"]["faults"] == 0
    rows = {row["spec"]: row for row in data["standings"]["rows"]}
    assert spec in rows, sorted(rows)
    mine = rows[spec]
    assert mine["deals"] > 0
    assert sum(mine["faults"].values()) == 0, mine["faults"]


def test_standalone_imports_nothing_of_the_project() -> None:
    tree = ast.parse(STANDALONE.read_text(encoding="utf-8"))
    project = {"core", "bots", "arena", "pengyou"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative import"
            names = [node.module or ""]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
            raise AssertionError("dynamic import")
        else:
            continue
        for name in names:
            assert name.split(".")[0] not in project, name
            assert name.split(".")[0] in sys.stdlib_module_names, name


def test_high_card_bot_duel() -> None:
    proc = run("duel", f"{HIGH_CARD}:HighCardBot", "random", "--deals", "2")
    assert_clean(proc)
