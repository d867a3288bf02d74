"""`bench.kafka_local_probe` counts what the worker does, not more: it decides under the worker's
process setting (`streams.process.settled_gc`), places its inputs before the count, and encodes
only the outputs the loop keeps (`coalesced`: one liveness record per table and batch)."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from bench import kafka_local_probe as probe
from streams.process import YOUNG
from streams.scaleout.batch import decide
from streams.scaleout.heard import Heard
from streams.scaleout.local_apply import key_partition

EVENTS = 600


def test_the_probe_decides_under_the_workers_collector_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every batch is decided with the young threshold the worker runs with, and the collector
    is given back as it was."""
    seen: list[int] = []

    def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.get_threshold()[0])
        return decide(*args, **kwargs)

    monkeypatch.setattr("bench.kafka_local_probe.decide", watched)
    before = gc.get_threshold()
    probe.run("local", EVENTS)
    assert seen
    assert set(seen) == {YOUNG}
    assert gc.get_threshold() == before


def test_inputs_are_placed_by_kafkas_hash_before_the_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each input goes to the partition Kafka's hash gives its key, found before the batches
    start: no `key_partition` call inside the counted loop."""
    placed: list[tuple[bytes, int]] = []
    counting = [False]

    def watched(messages: list[Any], *args: Any, **kwargs: Any) -> Any:
        counting[0] = True
        if messages and messages[0].topic() == probe.NAMES.table_events:
            placed.extend((m.key(), m.partition()) for m in messages)
        return decide(messages, *args, **kwargs)

    def hashed(key: bytes, partitions: int) -> int:
        assert not counting[0], "key_partition called inside the counted loop"
        return key_partition(key, partitions)

    monkeypatch.setattr("bench.kafka_local_probe.decide", watched)
    monkeypatch.setattr("bench.kafka_local_probe.key_partition", hashed)
    probe.run("local", EVENTS)
    assert len(placed) == EVENTS
    assert all(part == key_partition(key, probe.PARTS) for key, part in placed)


def test_one_liveness_record_per_table_and_batch_is_encoded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As the loop writes them (`TxLoop._transact` keeps the last per table of a batch)."""
    encoded: list[str] = []
    value = vars(Heard)["value"]  # the property (`Heard.value` reads as the slot's type)

    def counted(self: Heard) -> bytes:
        encoded.append(self.key)
        written: bytes = value.fget(self)
        return written

    monkeypatch.setattr(Heard, "value", property(counted))
    batches = -(-EVENTS // probe.BATCH)
    probe.run("local", EVENTS)
    tables = len(set(encoded))
    assert 0 < len(encoded) <= tables * batches
