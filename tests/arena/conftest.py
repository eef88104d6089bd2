"""Arena tests may register test bots under ``test-*`` names to run them in
the referee's process; each is removed again after its test."""

from __future__ import annotations

import pytest

from bots.base import _REGISTRY


@pytest.fixture(autouse=True)
def _forget_test_bots():
    yield
    for name in [k for k in _REGISTRY if k.startswith("test-")]:
        del _REGISTRY[name]
