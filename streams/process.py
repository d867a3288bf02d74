"""Process settings of a long-running engine process (the Kafka worker, ``jackpot replay``),
applied once its start-up is done. Not ``jackpot serve``: with it, four parallel maximal request
bodies grew the server by 101 MB instead of under 100 (tests/integration/test_serve_money_safety.py;
most likely garbage cycles holding a body, such as a refused request's exception and its frames,
waiting longer for a young collection).

The cyclic garbage collector: an engine keeps a large, long-lived state (meters, tables, rounds,
the configuration, the classification tables) and allocates many short-lived small objects per
event. With CPython's default thresholds (a young collection every 700 allocations, an older one
every tenth of those) the collector keeps walking what start-up built, which costs memory
traffic more than instructions (bench/PROPOSALS.md, "The cyclic collector"). `settle_gc` moves
what start-up built out of its way (``gc.freeze``: never walked again; it lives as long as the
process anyway) and lets `YOUNG` allocations pass between young collections. Nothing is left
uncollected: cycles are still found, later. A process setting, not a change of the fast path:
the bench's core row applies it to the subject and its reference alike.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

__all__ = ["YOUNG", "settle_gc", "settled_gc", "unsettle_gc"]

#: Allocations between young collections (CPython's default: 700).
YOUNG: Final = 50_000


def settle_gc(young: int = YOUNG) -> tuple[int, int, int]:
    """Collect once, freeze what survives and raise the young threshold to ``young`` (the older
    generations' thresholds are kept). Returns the thresholds before, for `unsettle_gc`."""
    before = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(young, before[1], before[2])
    return before


def unsettle_gc(before: tuple[int, int, int]) -> None:
    """Undo `settle_gc`: the frozen objects back in the collector's view, the thresholds
    ``before``."""
    gc.unfreeze()
    gc.set_threshold(*before)


@contextmanager
def settled_gc(young: int = YOUNG) -> Iterator[None]:
    """`settle_gc` for the block, undone after it: a command run in-process (the CLI's tests, a
    host embedding it) gets its collector back as it was."""
    before = settle_gc(young)
    try:
        yield
    finally:
        unsettle_gc(before)
