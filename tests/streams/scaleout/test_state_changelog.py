"""Both lanes' state in one changelog (`streams.scaleout.store.changelogs`): each lane's keys
behind a tag of its own and a progress mark per lane, so a table and a meter of the same name,
or the two lanes' marks of partition ``p``, never overwrite each other; a deployment with the
two changelogs of before keeps them. The restore and the loop's writes are checked with fakes
standing in for the clients (the real-broker proofs are the ``test_kafka_*`` integration tests,
which now run on the shared changelog)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from streams.adapters.kafka.topics import Layout, TopicNames, state_partitions, topic_specs
from streams.adapters.prometheus.worker import WorkerMetrics
from streams.scaleout import store
from streams.scaleout.batch import Batch
from streams.scaleout.records import Processed
from streams.scaleout.store import METER_TAG, ROUND_TAG, Lane, changelogs, restore
from streams.scaleout.txloop import TxLoop
from tests.streams.scaleout.test_txloop_migrated import FakeConsumer, FakeProducer

NAMES = TopicNames("p")
SHARED = NAMES.state_changelog


def lane(name: str, source: str, tag: bytes) -> Lane[int]:
    return Lane(name, source, SHARED, lambda *a: Processed("", None), b"%d".__mod__, int, tag)


ROUNDS = lane("round", NAMES.table_events, ROUND_TAG)
METERS = lane("meter", NAMES.meter_claims, METER_TAG)


def test_a_new_deployment_has_one_changelog_and_one_of_before_keeps_its_two() -> None:
    specs = {s.name: s.partitions for s in topic_specs(NAMES, Layout(6, 4, 6))}
    assert specs[SHARED] == 6 == state_partitions(Layout(6, 4, 6))
    assert NAMES.changelog("rounds") not in specs
    assert NAMES.changelog("meters") not in specs
    fresh = changelogs(NAMES, {SHARED: 6})
    assert fresh == {"round": (SHARED, ROUND_TAG), "meter": (SHARED, METER_TAG)}
    before = {NAMES.changelog("rounds"): 6, NAMES.changelog("meters"): 6, SHARED: 6}
    assert changelogs(NAMES, before) == {
        "round": (NAMES.changelog("rounds"), b""),
        "meter": (NAMES.changelog("meters"), b""),
    }


def test_the_lanes_keys_and_marks_never_meet() -> None:
    assert ROUNDS.stored(b"tcp-1") != METERS.stored(b"tcp-1")
    assert ROUNDS.mark(3) != METERS.mark(3)
    assert METERS.key_of(ROUNDS.stored(b"tcp-1")) is None
    assert ROUNDS.key_of(ROUNDS.stored(b"tcp-1")) == b"tcp-1"
    assert ROUNDS.key_of(METERS.mark(3)) is None  # a mark is no record of either lane


class Record:
    """A changelog record as the restore reads it."""

    def __init__(self, partition: int, key: bytes, value: bytes | None) -> None:
        self._at = (partition, key, value)

    def partition(self) -> int:
        return self._at[0]

    def key(self) -> bytes:
        return self._at[1]

    def value(self) -> bytes | None:
        return self._at[2]


def shared_partition(monkeypatch: pytest.MonkeyPatch, records: list[Record]) -> None:
    """Partition 0 of the shared changelog holds ``records``."""

    class Reader:
        def close(self) -> None:
            pass

    def read(consumer: Any, topic: str, starts: Any, timeout: float) -> Iterator[Record]:
        assert topic == SHARED
        return iter(records)

    monkeypatch.setattr(store, "reader", lambda bootstrap: Reader())
    monkeypatch.setattr(store, "read_partitions", read)


def test_each_lane_restores_only_its_own_records_and_mark(monkeypatch: pytest.MonkeyPatch) -> None:
    shared_partition(
        monkeypatch,
        [
            Record(0, ROUNDS.stored(b"same-name"), b"1"),
            Record(0, METERS.stored(b"same-name"), b"2"),
            Record(0, ROUNDS.mark(0), b"40"),
            Record(0, METERS.mark(0), b"7"),
            Record(0, METERS.stored(b"m-2"), b"5"),
            Record(0, METERS.stored(b"m-2"), None),  # a tombstone deletes it
        ],
    )
    rounds, meters = restore("fake:9092", ROUNDS, [0])[0], restore("fake:9092", METERS, [0])[0]
    assert (rounds.records, rounds.progress) == ({b"same-name": 1}, 40)
    assert (meters.records, meters.progress) == ({b"same-name": 2}, 7)


def test_the_loop_writes_each_lanes_records_and_mark_under_its_tag() -> None:
    class Producer(FakeProducer):
        def __init__(self) -> None:
            super().__init__([], None)
            self.written: list[tuple[str, bytes, int]] = []

        def produce(self, topic: str, value: bytes, key: bytes, part: int = -1, **kw: Any) -> None:
            self.written.append((topic, key, part))

    producer = Producer()
    loop = TxLoop("fake:9092", FakeConsumer([]), producer, [ROUNDS, METERS], WorkerMetrics())  # type: ignore[arg-type]
    states = {(NAMES.table_events, 2): {b"t": 1}, (NAMES.meter_claims, 2): {b"t": 2}}
    progress = {(NAMES.table_events, 2): 10, (NAMES.meter_claims, 2): 4}
    loop._writes.state(Batch(time.monotonic(), states=states, progress=progress))
    assert sorted(producer.written) == sorted(
        [
            (SHARED, b"r/t", 2),
            (SHARED, b"m/t", 2),
            (SHARED, ROUNDS.mark(2), 2),
            (SHARED, METERS.mark(2), 2),
        ]
    )
