"""Test collection settings: the package entry point is not a module to doctest."""

import importlib.util

collect_ignore = ["arena/__main__.py", "setup.py"]

# the OpenSpiel adapter's modules import pyspiel: without the optional dependency they are not doctested
# (tests/adapters skips itself then; `make test` installs it)
if importlib.util.find_spec("pyspiel") is None:
    collect_ignore += ["arena/adapters/openspiel.py", "arena/adapters/openspiel_bots.py"]
