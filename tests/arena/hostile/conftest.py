"""The hostile bots are loaded by the arena in its sandbox, never imported by pytest."""

collect_ignore_glob = ["*.py"]
