"""`streams.scaleout.batch.decide` offers the GIL every `YIELD_EVERY` records: the previous
batch's offsets and commit run in a thread of their own and, measured, could not finish while
the loop decided (docs/kafka.md, "Speed", issue 13). The offer is ``os.sched_yield()``, never a
timer sleep (``time.sleep(0)`` sleeps until the next tick: ~85 µs of wall a call). What is
decided is unchanged."""

from __future__ import annotations

import os
import time
from typing import Any

import pytest

from bench.kafka_local_probe import Consumed
from streams.scaleout import batch
from streams.scaleout.batch import YIELD_EVERY, decide
from streams.scaleout.records import Processed, SourcePos
from streams.scaleout.store import Lane, PartitionState

TOPIC = "t.table-events"


def _world(seen: list[int]) -> tuple[dict[str, Lane[Any]], dict[tuple[str, int], Any]]:
    """One lane that counts what it decides (into ``seen``) and keeps each key's count."""

    def process(record: int | None, key: str | None, raw: bytes, pos: SourcePos) -> Processed[int]:
        seen.append(pos.offset)
        return Processed("accepted", (record or 0) + 1, ())

    lane: Lane[Any] = Lane("round", TOPIC, "", process, lambda r: b"%d" % r, int)
    return {TOPIC: lane}, {(TOPIC, 0): PartitionState(progress=0)}


def _records(count: int) -> list[Any]:
    return [Consumed((TOPIC, 0), offset, b"k%d" % (offset % 3), b"{}") for offset in range(count)]


@pytest.mark.parametrize("count", [1, YIELD_EVERY - 1, YIELD_EVERY, 3 * YIELD_EVERY + 5])
def test_the_gil_is_offered_every_yield_every_records(
    monkeypatch: pytest.MonkeyPatch, count: int
) -> None:
    """``sched_yield`` once per `YIELD_EVERY` records, before the record that completes them;
    no sleep."""
    seen: list[int] = []
    offered: list[int] = []
    slept: list[float] = []
    monkeypatch.setattr(os, "sched_yield", lambda: offered.append(len(seen)))
    monkeypatch.setattr(time, "sleep", slept.append)
    lanes, states = _world(seen)
    done = decide(_records(count), lanes, states)
    expected = [n * YIELD_EVERY - 1 for n in range(1, count // YIELD_EVERY + 1)]
    assert offered == expected
    assert slept == []
    assert done.records == count
    assert done.outcomes == {"round": ["accepted"] * count}
    assert done.progress == {(TOPIC, 0): count}


def test_what_is_decided_does_not_depend_on_the_offers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same records and states with the offers and with none."""
    count = 2 * YIELD_EVERY + 7
    lanes, states = _world([])
    offered = decide(_records(count), lanes, states)
    monkeypatch.setattr(batch, "YIELD_EVERY", count + 1)  # interpreted: never offered
    lanes, states = _world([])
    plain = decide(_records(count), lanes, states)
    assert offered.states == plain.states
    assert offered.outcomes == plain.outcomes
    assert offered.progress == plain.progress
