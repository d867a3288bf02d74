"""`streams.process.settle_gc`: what start-up built leaves the collector's view, a young
collection waits for `YOUNG` allocations, cycles made after it are still collected, and
`unsettle_gc` gives the process back its settings."""

from __future__ import annotations

import gc
import weakref

from streams.process import YOUNG, settle_gc, unsettle_gc


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def test_settle_freezes_raises_the_young_threshold_and_unsettle_undoes_it() -> None:
    start = gc.get_threshold()
    built = [_Node() for _ in range(10)]  # start-up's state
    before = settle_gc()
    try:
        assert before == start
        assert gc.get_threshold() == (YOUNG, start[1], start[2])
        assert gc.get_freeze_count() >= len(built)
        # a cycle made after start-up is still found by a collection
        first, second = _Node(), _Node()
        first.other, second.other = second, first
        gone = weakref.ref(first)
        del first, second
        gc.collect()
        assert gone() is None
    finally:
        unsettle_gc(before)
    assert gc.get_threshold() == start
    assert gc.get_freeze_count() == 0
