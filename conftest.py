"""Test collection settings: the package entry point is not a module to doctest."""

collect_ignore = ["arena/__main__.py", "setup.py"]
