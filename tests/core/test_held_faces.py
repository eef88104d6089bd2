"""The held-faces bit set the compiled loops iterate over (``core/_kernel.pxd``):
eight counts are read at a time, so every byte position and value is checked,
the last, partial word (faces 48 to 53, the jokers) included."""

import random

import pytest

from core._kernel import _held_faces


def _plain(counts: list[int]) -> int:
    return sum(1 << f for f, c in enumerate(counts) if c)


@pytest.mark.parametrize("face", range(54))
@pytest.mark.parametrize("count", [1, 2, 127, 128, 255])
def test_one_face_alone(face: int, count: int) -> None:
    counts = [0] * 54
    counts[face] = count
    assert _held_faces(counts) == 1 << face


@pytest.mark.parametrize("seed", range(20))
def test_random_hands(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(200):
        density = rng.random()
        counts = [rng.choice([1, 2, 3, 128, 255]) if rng.random() < density else 0 for _ in range(54)]
        assert _held_faces(counts) == _plain(counts)


def test_none_and_all() -> None:
    assert _held_faces([0] * 54) == 0
    assert _held_faces([255] * 54) == (1 << 54) - 1


def test_a_wrong_length_is_refused() -> None:
    with pytest.raises(ValueError, match="54 counts"):
        _held_faces([1] * 53)
