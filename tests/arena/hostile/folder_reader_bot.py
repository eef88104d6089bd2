"""Attack 16 as a module bot, and the check ``folder_reader.py`` (the
program) runs too: at its first step; ``root`` as that file's ROOT."""

from __future__ import annotations

import os

MARK = ".pengyou-bot"


def problem(me: str, root: str = "") -> str:
    folder = os.path.dirname(os.path.abspath(me))
    while not os.path.isfile(os.path.join(folder, MARK)):
        if os.path.dirname(folder) == folder:
            return f"CANNOT READ ITS OWN DATA: no bot folder above {me}"
        folder = os.path.dirname(folder)
    read = 0

    def fail(exc: OSError) -> None:
        raise exc

    try:
        for where, _, files in os.walk(folder, onerror=fail):
            for f in files:
                with open(os.path.join(where, f), "rb") as fh:
                    fh.read()
                read += 1
    except OSError as exc:
        return f"CANNOT READ ITS OWN DATA: {exc}"
    if read < 3:
        return f"CANNOT READ ITS OWN DATA: read {read} files in {folder}"
    for other in (os.path.join(root, "2", "secret.txt"), os.path.join(root, "outside.txt")) if root else ():
        try:
            with open(other, "rb") as fh:
                fh.read()
        except OSError:
            continue
        return f"ATTACK WORKED: read {other}"
    return ""


class FolderReaderBot:
    def __init__(self, root: str = "") -> None:
        self.root = root
        self.checked = False
        self.rng = None

    def restart(self, rules, seat, rng) -> None:
        self.rng = rng

    def step(self, view):
        if not self.checked:
            self.checked = True
            bad = problem(__file__, self.root)
            if bad:
                raise RuntimeError(bad)
        return view.random_action(self.rng)
