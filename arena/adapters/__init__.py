"""Adapters that put the game into other frameworks (each one an optional
dependency, imported only when asked for): :mod:`arena.adapters.pettingzoo`
(one deal as a PettingZoo AEC environment), :mod:`arena.adapters.openspiel`
(every preset registered as an OpenSpiel game) and
:mod:`arena.adapters.openspiel_bots` (OpenSpiel's bots as arena entrants,
``openspiel:ismcts?sims=100``, and ours as OpenSpiel bots). See
``docs/adapters.md``.
"""
