"""Many jobs: a spec, its schedule of duplicate deals, workers (local or a
Dask cluster), the store; and the drivers built on them: the run, the
duel, the sequential test and the tuner."""
