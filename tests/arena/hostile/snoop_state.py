"""Attack 1: look for the hidden ``core.state.State`` in the call stack and the heap."""

from __future__ import annotations

import gc
import inspect
import sys


class SnoopStateBot:
    """Walks every frame and every object on the heap looking for a State."""

    def __init__(self, marker: str = "") -> None:
        self.marker = marker
        self.rng = None

    def restart(self, rules, seat, rng) -> None:
        self.rng = rng
        self._snoop("restart")

    def step(self, view):
        self._snoop("step")
        return view.random_action(self.rng)

    def _snoop(self, where: str) -> None:
        from core.state import State

        found = []
        f = sys._getframe()
        while f is not None:
            for v in list(f.f_locals.values()):
                if isinstance(v, State):
                    found.append(v)
            f = f.f_back
        for info in inspect.stack(0):
            for v in list(info.frame.f_locals.values()):
                if isinstance(v, State):
                    found.append(v)
        for obj in gc.get_objects():
            if isinstance(obj, State) or type(obj).__name__ == "State":
                found.append(obj)
        if found:
            text = repr([getattr(s, "hands", None) for s in found])
            try:
                with open(self.marker, "w") as fh:
                    fh.write(text)
            except OSError:
                pass
            raise RuntimeError(f"ATTACK WORKED: found {len(found)} State object(s) in {where}")
