"""Deal-seed suites: generation, the file format, the shipped suites, every error."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.tournament import suites as seeds_mod
from arena.commands import main
from arena.tournament.suites import (SEEDS_DIR, Suite, available_suites, format_suite, generate_suite,
                                     load_suite, suite_checksum, suite_file, write_suite)
from arena.types import ArenaError

ROOT = Path(__file__).resolve().parents[2]

SHIPPED = [
    # name, count, master, checksum (as in seeds/README.md)
    ("dev", 64, "pengyou-dev", "ec3eac8bf7aa1e9b878971a2f1075a64aa0730d43e45b61abaedfeb939790156"),
    ("bench", 1000, "pengyou-bench", "dbf94908097957e325d19c00bd430210db057a8b6ec52e8b16be0bc42df052da"),
]


def one_line_error(excinfo: pytest.ExceptionInfo) -> str:
    msg = str(excinfo.value)
    assert "\n" not in msg and msg.strip() == msg and msg
    return msg


# --------------------------------------------------------------------------
# generation and the format


def test_seed_formula():
    suite = generate_suite("x", 5, "m")
    for i, s in enumerate(suite.seeds):
        digest = hashlib.sha256(f"m:{i}".encode()).digest()
        assert s == int.from_bytes(digest[:8], "big") >> 1
        assert 0 <= s < 2 ** 63


def test_generation_is_deterministic():
    a, b = generate_suite("x", 50, "master"), generate_suite("x", 50, "master")
    assert a == b and a.seeds == b.seeds and a.sha256 == b.sha256
    assert generate_suite("x", 20, "master").seeds == a.seeds[:20]     # a prefix, not a reshuffle
    other = generate_suite("x", 50, "master2")
    assert not set(other.seeds) & set(a.seeds)


def test_checksum_is_of_the_seed_lines():
    suite = generate_suite("x", 3, "m")
    text = "".join(f"{s}\n" for s in suite.seeds).encode()
    assert suite.sha256 == suite_checksum(suite.seeds) == hashlib.sha256(text).hexdigest()


def test_format_header_and_lines():
    suite = generate_suite("demo", 4, "some master")
    lines = format_suite(suite).split("\n")
    assert lines[:5] == [
        "# pengyou deal-seed suite",
        "# name: demo",
        "# count: 4",
        "# generator: pengyou seeds generate demo --count 4 --master 'some master'",
        f"# sha256: {suite.sha256}",
    ]
    assert lines[5:] == [str(s) for s in suite.seeds] + [""]


def test_round_trip(tmp_path):
    suite = generate_suite("rt", 17, "round-trip")
    path = tmp_path / "rt.seeds"
    written = write_suite(suite, path)
    assert written.path == str(path)
    loaded = load_suite(str(path))
    assert loaded == written
    assert (loaded.name, loaded.seeds, loaded.sha256) == (suite.name, suite.seeds, suite.sha256)
    assert loaded.generator == suite.generator
    assert format_suite(loaded) == path.read_text()


def test_write_refuses_to_overwrite(tmp_path):
    path = tmp_path / "w.seeds"
    write_suite(generate_suite("w", 3, "a"), path)
    before = path.read_bytes()
    with pytest.raises(ArenaError) as ei:
        write_suite(generate_suite("w", 4, "b"), path)
    assert "already exists" in one_line_error(ei) and str(path) in str(ei.value)
    assert path.read_bytes() == before
    write_suite(generate_suite("w", 4, "b"), path, overwrite=True)
    assert load_suite(str(path)).seeds == generate_suite("w", 4, "b").seeds
    assert sorted(os.listdir(tmp_path)) == ["w.seeds"]        # no temporary file left
    assert path.stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize("suite, fragment", [
    (Suite("e", (), suite_checksum([])), "empty suite"),
    (Suite("d", (1, 1), suite_checksum([1, 1])), "seeds repeat"),
    (Suite("n", (-1,), suite_checksum([-1])), "seed 0 (-1)"),
    (Suite("b", (2 ** 63,), suite_checksum([2 ** 63])), "seed 0"),
    (Suite("a/b", (1,), suite_checksum([1])), "suite name"),
])
def test_unwritable_suites(tmp_path, suite, fragment):
    with pytest.raises(ArenaError) as ei:
        write_suite(suite, tmp_path / "x.seeds")
    assert fragment in one_line_error(ei)
    assert not (tmp_path / "x.seeds").exists()


def test_write_into_a_missing_directory(tmp_path):
    with pytest.raises(ArenaError) as ei:
        write_suite(generate_suite("w", 3, "a"), tmp_path / "nope" / "w.seeds")
    assert "cannot write" in one_line_error(ei)


@pytest.mark.parametrize("name, count, master, fragment", [
    ("", 3, "m", "suite name"),
    ("a/b", 3, "m", "suite name"),
    ("x.seeds", 3, "m", "suite name"),
    ("x", 0, "m", "--count"),
    ("x", -2, "m", "--count"),
    ("x", True, "m", "--count"),
    ("x", 3, "", "--master"),
    ("x", 3, "two\nlines", "--master"),
])
def test_generate_errors(name, count, master, fragment):
    with pytest.raises(ArenaError) as ei:
        generate_suite(name, count, master)
    assert fragment in one_line_error(ei)


# --------------------------------------------------------------------------
# the shipped suites


@pytest.mark.parametrize("name, count, master, checksum", SHIPPED, ids=[s[0] for s in SHIPPED])
def test_shipped_suites(name, count, master, checksum):
    assert name in available_suites()
    suite = load_suite(name)
    assert (suite.name, len(suite.seeds), suite.sha256) == (name, count, checksum)
    assert Path(suite.path) == SEEDS_DIR / f"{name}.seeds"
    assert load_suite(str(SEEDS_DIR / f"{name}.seeds")) == suite        # by path too
    # the file is exactly what the generator in its header writes
    regenerated = generate_suite(name, count, master)
    assert format_suite(regenerated) == Path(suite.path).read_text()
    assert f"--master {master}" in suite.generator


def test_shipped_checksums_are_in_the_readme():
    readme = (SEEDS_DIR / "README.md").read_text()
    for name, count, master, checksum in SHIPPED:
        assert checksum in readme
        assert f"pengyou seeds generate {name} --count {count} --master {master}" in readme


def test_seeds_dir_is_the_repository_folder():
    assert SEEDS_DIR == ROOT / "seeds"


# --------------------------------------------------------------------------
# every load error: one line naming the file, the file untouched

GOOD = generate_suite("t", 4, "errors")
S = list(GOOD.seeds)
HEAD = ["# pengyou deal-seed suite", "# name: t", "# count: 4", f"# sha256: {GOOD.sha256}"]


def _text(head=HEAD, body=None) -> str:
    body = [str(s) for s in S] if body is None else body
    return "\n".join(list(head) + list(body)) + "\n"


def _replace(head, i, line):
    out = list(head)
    out[i] = line
    return out


BAD_FILES = [
    # id, file text (str) or bytes, fragment of the message
    ("no-magic-line", _text(head=HEAD[1:]), "bad header"),
    ("wrong-magic-line", _text(head=_replace(HEAD, 0, "# some other file")), "bad header"),
    ("not-a-suite-at-all", "hello\n", "bad header"),
    ("empty-file", "", "bad header"),
    ("header-line-not-key-value", _text(head=HEAD[:2] + ["# just words"] + HEAD[2:]), "bad header: line 3"),
    ("no-count", _text(head=[h for h in HEAD if "count" not in h]), "no 'count' line"),
    ("no-sha256", _text(head=HEAD[:3]), "no 'sha256' line"),
    ("no-name", _text(head=[h for h in HEAD if "name" not in h]), "no 'name' line"),
    ("count-not-a-number", _text(head=_replace(HEAD, 2, "# count: four")), "bad header: count"),
    ("sha-not-hex", _text(head=_replace(HEAD, 3, "# sha256: xyz")), "bad header: sha256"),
    ("repeated-key", _text(head=HEAD + ["# count: 4"]), "repeats"),
    ("word-line", _text(body=[str(S[0]), "abc", str(S[2]), str(S[3])]), "line 6: 'abc' is not a seed"),
    ("negative", _text(body=[str(S[0]), str(S[1]), "-5", str(S[3])]), "line 7: '-5' is not a seed"),
    ("too-big", _text(body=[str(S[0]), str(S[1]), str(S[2]), str(2 ** 63)]), "line 8:"),
    ("leading-zero", _text(body=["007"] + [str(s) for s in S[1:]]), "line 5: '007' is not a seed"),
    ("float", _text(body=["1.5"] + [str(s) for s in S[1:]]), "line 5:"),
    ("blank-line-inside", _text(body=[str(S[0]), "", str(S[2]), str(S[3])]), "line 6: '' is not a seed"),
    ("comment-after-seeds", _text(body=[str(s) for s in S] + ["# more"]), "line 9:"),
    ("count-mismatch", _text(body=[str(s) for s in S[:3]]), "count mismatch"),
    ("count-mismatch-more", _text(head=_replace(HEAD, 2, "# count: 3")), "count mismatch"),
    ("checksum", _text(body=[str(S[0] + 1)] + [str(s) for s in S[1:]]),
     "corrupt: checksum"),
    ("checksum-swapped-order", _text(body=[str(S[1]), str(S[0]), str(S[2]), str(S[3])]),
     "corrupt: checksum"),
    ("duplicate", _text(body=[str(S[0]), str(S[1]), str(S[0]), str(S[3])]),
     f"line 7: seed {S[0]} repeats line 5"),
    ("empty-suite", _text(head=_replace(HEAD, 2, "# count: 0"), body=[]), "empty suite"),
    ("not-text", b"\xff\xfe\x00binary", "cannot read"),
]


@pytest.mark.parametrize("content, fragment", [c[1:] for c in BAD_FILES], ids=[c[0] for c in BAD_FILES])
def test_load_errors(tmp_path, content, fragment):
    path = tmp_path / "bad.seeds"
    data = content if isinstance(content, bytes) else content.encode()
    path.write_bytes(data)
    with pytest.raises(ArenaError) as ei:
        load_suite(str(path))
    msg = one_line_error(ei)
    assert msg.startswith(f"{path}: ")
    assert fragment in msg
    assert path.read_bytes() == data


def test_the_good_text_loads(tmp_path):
    """The base of BAD_FILES is itself fine, so each case fails for its own reason."""
    path = tmp_path / "good.seeds"
    path.write_text(_text())
    assert load_suite(str(path)).seeds == GOOD.seeds
    path.write_text(_text() + "\n\n")               # trailing blank lines are harmless
    assert load_suite(str(path)).seeds == GOOD.seeds


def test_checksum_message_names_both_sums(tmp_path):
    path = tmp_path / "c.seeds"
    body = [str(S[0] + 1)] + [str(s) for s in S[1:]]
    path.write_text(_text(body=body))
    with pytest.raises(ArenaError) as ei:
        load_suite(str(path))
    msg = one_line_error(ei)
    assert "does not match" in msg and GOOD.sha256 in msg
    assert suite_checksum([int(b) for b in body]) in msg


def test_missing_file_lists_the_suites(tmp_path, monkeypatch):
    with pytest.raises(ArenaError) as ei:
        load_suite("no-such-suite")
    msg = one_line_error(ei)
    assert "no-such-suite.seeds" in msg and "no such seed suite" in msg
    assert "bench" in msg and "dev" in msg
    with pytest.raises(ArenaError) as ei:
        load_suite(str(tmp_path / "x.seeds"))
    assert str(tmp_path / "x.seeds") in one_line_error(ei)
    monkeypatch.setattr(seeds_mod, "SEEDS_DIR", tmp_path / "empty")
    with pytest.raises(ArenaError) as ei:
        load_suite("dev")
    assert "no suites in" in one_line_error(ei)


def test_unreadable_path(tmp_path):
    d = tmp_path / "dir.seeds"
    d.mkdir()
    with pytest.raises(ArenaError) as ei:
        load_suite(str(d))
    assert "cannot read" in one_line_error(ei)


def test_bare_names_resolve_in_the_seeds_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(seeds_mod, "SEEDS_DIR", tmp_path)
    write_suite(generate_suite("mine", 3, "m"), tmp_path / "mine.seeds")
    assert available_suites() == ["mine"]
    assert load_suite("mine").seeds == generate_suite("mine", 3, "m").seeds
    # a file whose header names another suite is refused under a bare name
    (tmp_path / "other.seeds").write_text((tmp_path / "mine.seeds").read_text())
    with pytest.raises(ArenaError) as ei:
        load_suite("other")
    assert "names suite 'mine', not 'other'" in one_line_error(ei)
    assert load_suite(str(tmp_path / "other.seeds")).name == "mine"     # by path it is fine


@pytest.mark.parametrize("bad", ["", "   ", None])
def test_load_needs_a_name(bad):
    with pytest.raises(ArenaError) as ei:
        load_suite(bad)
    one_line_error(ei)


# --------------------------------------------------------------------------
# the command


def seeds_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """Run ``pengyou seeds ARGV``, which must fail: its one line on stderr, after ``pengyou: error: ``."""
    assert main(["seeds", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("pengyou: error: "), captured.err
    return lines[0][len("pengyou: error: "):]


def test_main_generate_and_verify(tmp_path, capsys):
    out = tmp_path / "cli.seeds"
    assert main(["seeds", "generate", "cli", "--count", "10", "--master", "cli-test", "--out", str(out)]) == 0
    assert load_suite(str(out)).seeds == generate_suite("cli", 10, "cli-test").seeds
    assert main(["seeds", "verify", str(out), "dev"]) == 0
    lines = capsys.readouterr().out.splitlines()
    sha = generate_suite("cli", 10, "cli-test").sha256
    assert lines[0].startswith(f"wrote {out}") and sha in lines[0]
    assert lines[1].startswith("cli: 10 seeds") and sha in lines[1]
    assert lines[2].startswith("dev: 64 seeds") and SHIPPED[0][3] in lines[2]
    before = out.read_bytes()
    assert "already exists" in seeds_error(capsys, ["generate", "cli", "--count", "5", "--master", "x",
                                                    "--out", str(out)])
    assert out.read_bytes() == before
    assert main(["seeds", "generate", "cli", "--count", "5", "--master", "x", "--out", str(out), "--force"]) == 0
    assert len(load_suite(str(out)).seeds) == 5


def test_generate_writes_into_the_suites_folder_by_default(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(seeds_mod, "SEEDS_DIR", tmp_path)
    assert main(["seeds", "generate", "mine", "--count", "3", "--master", "m"]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {tmp_path / 'mine.seeds'}: suite mine, 3 seeds")
    assert suite_file("mine") == tmp_path / "mine.seeds" and load_suite("mine").seeds == generate_suite(
        "mine", 3, "m").seeds


@pytest.mark.parametrize("argv, message", [
    ([], "pengyou seeds: the following arguments are required: action"),
    (["generate", "x"], "pengyou seeds generate: the following arguments are required: --count, --master"),
    (["generate", "x", "--count", "ten", "--master", "m"],
     "pengyou seeds generate: argument --count: invalid int value: 'ten'"),
    (["generate", "x", "--count", "0", "--master", "m", "--out", "/nonexistent-dir/x.seeds"],
     "--count: 0 is not a whole number of at least 1"),
    (["generate", "x", "y", "--count", "1", "--master", "m"], "pengyou seeds: unrecognized arguments: y"),
    (["verify"], "pengyou seeds verify: the following arguments are required: NAME_OR_PATH"),
    (["verify", "dev", "--force"], "pengyou seeds: unrecognized arguments: --force"),
    (["verify", "no-such-suite"], "no-such-suite.seeds: no such seed suite"),
    (["shuffle"], "pengyou seeds: argument action: invalid choice: 'shuffle' (choose from 'generate', 'verify')"),
])
def test_main_errors(argv, message, capsys):
    assert message in seeds_error(capsys, argv)


def test_module_command_prints_one_line(tmp_path):
    bad = tmp_path / "bad.seeds"
    bad.write_text(_text(body=["abc"]))
    proc = subprocess.run([sys.executable, "-m", "arena", "seeds", "verify", str(bad)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [f"pengyou: error: {bad}: line 5: 'abc' is not a seed "
                                        "(a whole number from 0 to 2**63 - 1)"]
    ok = subprocess.run([sys.executable, "-m", "arena", "seeds", "verify", "dev"], cwd=ROOT,
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and ok.stdout.startswith("dev: 64 seeds")


def test_suite_is_frozen():
    s = Suite("a", (1, 2), suite_checksum([1, 2]))
    with pytest.raises(AttributeError):
        s.name = "b"  # type: ignore[misc]
