"""Adapters to other game-AI frameworks (optional dependencies, imported only
when asked for): :mod:`arena.adapters.openspiel` registers every preset as an
OpenSpiel game, and :mod:`arena.adapters.openspiel_bots` makes OpenSpiel's bots
arena entrants (``openspiel:ismcts?sims=100``) and ours OpenSpiel bots.
See ``docs/adapters.md``.
"""
