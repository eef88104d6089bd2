"""The deal-seed suites that ship with pengyou (``dev.seeds``, ``bench.seeds``).

This package holds data only; :mod:`arena.seeds` reads and writes suites. It is
a package so that the suites are installed with the wheel and found through
the import system, wherever pengyou is installed:

>>> from pathlib import Path
>>> import seeds
>>> sorted(p.name for p in Path(seeds.__file__).parent.glob("*.seeds"))
['bench.seeds', 'dev.seeds']
"""
