"""Hostile bots for tests/arena/test_hostile.py: each one attacks the sandbox.

Every bot here plays random legal actions apart from its attack. An attack
that works is betrayed by behaviour the referee records: the bot raises
``RuntimeError("ATTACK WORKED: ...")`` (a ``crash`` fault naming what
worked) and/or writes a marker file at a path the test chose. The tests
assert that neither happened.
"""
