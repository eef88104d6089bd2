"""The ``>>>`` examples in the compiled modules run too (pytest's doctest
collection only reads ``.py`` files)."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["core._kernel", "core._play", "core._deal", "bots.search._policy", "bots.search._tree",
                                  "bots.search._belief"])
def test_compiled_examples_hold(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{name}: {result.failed} example(s) failed"
    if name != "core._play":       # the engine's API is shown in core.state's examples
        assert result.attempted > 0, f"{name} has no examples"
