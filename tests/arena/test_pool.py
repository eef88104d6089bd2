"""The pool of sandboxed bot processes keeps few idle, however many bots."""

from __future__ import annotations

import os

from arena.table.entrants import BotRef
from arena.table.remote import close_pool, pool
from arena.table.settings import Limits


def test_idle_processes_are_capped_across_all_bots():
    p = pool()
    try:
        for i in range(24):                       # 24 different bots, one job each
            spec = f"heuristic:throw_risk={i / 100:.2f}"
            item = p.acquire(BotRef.parse(spec), 7, Limits())
            p.release(item, spec, 7, 4)
        kept = [item for items in p._idle.values() for item in items]
        assert len(kept) == 4
        alive = [pid for pid in p.zygote().live if os.path.exists(f"/proc/{pid}")]
        p.zygote().exit_status(-1, wait=1.0)      # let the fork server report the retired ones
        assert len(p.zygote().live) <= 4 + 2, (len(alive), len(p.zygote().live))
        # the kept ones are the most recent, and are handed out again
        spec = "heuristic:throw_risk=0.23"
        again = p.acquire(BotRef.parse(spec), 8, Limits())
        assert again in kept
    finally:
        close_pool()
