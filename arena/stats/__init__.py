"""Statistics of results, with no I/O: Elo fits and intervals, duplicate
scores, the sequential test and the SPSA steps."""
