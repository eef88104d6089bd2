"""Bots' files as parcels for workers on other machines (arena.tournament.carry)."""

from __future__ import annotations

import dataclasses
import os
import shlex
import sys
from pathlib import Path

import pytest

from arena.table.entrants import BOT_FOLDER, BotRef
from arena.tournament.carry import Parcel, Part, carry, identity, unpack
from arena.tournament.jobs import Cargo, JobItem, Infra, play_carried
from arena.table.settings import TableSettings
from arena.types import ArenaError, Entrant, Job
from core.rules import Rules

PYTHON = os.path.realpath(sys.executable)


def test_a_module_in_a_bot_folder_carries_the_folder(tmp_path: Path) -> None:
    top = tmp_path / "mybot"
    (top / "src").mkdir(parents=True)
    (top / BOT_FOLDER).write_text("")
    (top / "src" / "bot.py").write_text("class B: pass\n")
    (top / "weights.bin").write_bytes(b"\x00\x01" * 100)
    (top / "src" / "__pycache__").mkdir()
    (top / "src" / "__pycache__" / "x.pyc").write_bytes(b"junk")
    carried, parcel = carry(f"{top / 'src' / 'bot.py'}:B?depth=2")
    assert parcel is not None
    names = sorted(rel for rel, _, _ in parcel.parts[0].files)
    assert names == [BOT_FOLDER, "src/bot.py", "weights.bin"]
    root = unpack(parcel, str(tmp_path / "cache"))
    spec = carried.local_spec(root)
    assert spec == os.path.join(root, "p0", "src", "bot.py") + ":B?depth=2"
    assert BotRef.parse(spec).code_hash() == carried.code_hash
    # the folder is a bot folder where it lands too: the bot may read its data there
    assert (Path(root) / "p0" / BOT_FOLDER).exists()
    assert (Path(root) / "p0" / "weights.bin").read_bytes() == b"\x00\x01" * 100


def test_a_program_carries_its_files_not_the_machines(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text("print('hi')\n")
    (tmp_path / "book.txt").write_text("opening\n")
    carried, parcel = carry(f"cmd:{PYTHON} {tmp_path / 'prog.py'} --book {tmp_path / 'book.txt'} -v")
    assert parcel is not None
    assert sorted(rel for part in parcel.parts for rel, _, _ in part.files) == ["book.txt", "prog.py"]
    root = unpack(parcel, str(tmp_path / "cache"))
    words = shlex.split(carried.local_spec(root)[4:])
    assert words[0] == PYTHON                          # the machine's interpreter stays where it is
    assert words[1].startswith(root) and words[3].startswith(root) and words[2:5:2] == ["--book", "-v"]
    assert BotRef.parse(carried.local_spec(root)).code_hash() == carried.code_hash
    _, none = carry("cmd:python3 -m bots.stdio random")
    assert none is None


def test_builtins_travel_as_their_spec() -> None:
    carried, parcel = carry("ismcts:iterations=50")
    assert parcel is None and carried.local_spec("/anywhere") == "ismcts:iterations=50"


def test_unpack_refuses_bytes_that_do_not_match_and_names_that_climb(tmp_path: Path) -> None:
    (tmp_path / "b.py").write_text("x = 1\n")
    _, parcel = carry(f"{tmp_path / 'b.py'}:X")
    assert parcel is not None
    forged = Parcel(parcel.digest, (Part((("b.py", 0o644, b"x = 2\n"),)),))
    with pytest.raises(ValueError, match="do not match"):
        unpack(forged, str(tmp_path / "cache"))
    from arena.tournament import carry as carry_module

    part = Part((("../../evil.py", 0o644, b"boom"),))
    climbing = Parcel(carry_module._digest((part,)), (part,))     # a digest that matches its bytes
    with pytest.raises(ValueError, match="a file named"):
        unpack(climbing, str(tmp_path / "cache"))
    assert not (tmp_path / "evil.py").exists()


def test_a_damaged_cache_is_replaced(tmp_path: Path) -> None:
    (tmp_path / "b.py").write_text("x = 1\n")
    _, parcel = carry(f"{tmp_path / 'b.py'}:X")
    assert parcel is not None
    root = unpack(parcel, str(tmp_path / "cache"))
    Path(root, "p0", "b.py").write_text("tampered\n")
    again = unpack(parcel, str(tmp_path / "cache"))
    assert again == root and Path(root, "p0", "b.py").read_text() == "x = 1\n"


def test_a_worker_with_another_identity_plays_nothing(tmp_path: Path) -> None:
    settings = TableSettings(Rules.preset("pagat", players=5), trusted="builtins")
    pair = (Entrant("a", "random"), Entrant("b", "random"))
    item = JobItem(Job(0, "g0-r0", 0, 7, 0, 0, (0, 1, 0, 1, 0)), pair, None)
    cargo = Cargo.of([item], settings)
    assert cargo.identity == identity()
    out = play_carried(item, dataclasses.replace(cargo, identity=("0.0.1", "0" * 64)))
    assert isinstance(out, Infra) and "runs pengyou" in out.reason
    played = play_carried(item, cargo)
    assert type(played).__name__ == "Played" and played.item is item


def test_a_bot_whose_file_is_missing_is_one_line_before_anything_runs(tmp_path: Path) -> None:
    settings = TableSettings(Rules.preset("pagat", players=5))
    item = JobItem(Job(0, "g0-r0", 0, 7, 0, 0, (0, 1, 0, 1, 0)),
                   (Entrant("a", f"{tmp_path / 'gone.py'}:X"), Entrant("b", "random")), None)
    with pytest.raises(ArenaError, match="cannot be sent to the workers"):
        Cargo.of([item], settings)
