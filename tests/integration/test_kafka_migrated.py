"""A batch in flight while the group moves to a new generation is "migrated", not fenced: the
broker refuses its offsets (ILLEGAL_GENERATION), the loop aborts it, reads its partitions' state
again from the changelog and consumes them again from their committed progress, with the same
consumer and producer (no rebuild, so no further rebalance for the others), and every input
still counts exactly once.

Deterministic: a second member joins (a real cooperative rebalance: the loop gives partitions
up), and exactly one batch with records is then committed with the group metadata the loop's
consumer had *before* that rebalance, as a batch begun before it and committed after it would
carry. The broker's refusal, the abort, the changelog restore and the seek are all real. The
lane sums a number per key; the changelog's sums and the outputs read ``read_committed`` must
be exact: the aborted batch's records were already in the in-memory sums, so going on without
the restore counts them twice, and the batch decided meanwhile (dropped) would be lost without
the seek.
"""

from __future__ import annotations

import re
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.cimpl import NewTopic

from streams.adapters.kafka.read import as_bytes, header, read_topic
from streams.adapters.kafka.topics import admin_client
from streams.adapters.kafka.transactions import group_consumer, transactional_producer
from streams.adapters.prometheus.worker import WorkerMetrics
from streams.codec import DEDUPE_HEADER, Output
from streams.scaleout.batch import Batch
from streams.scaleout.records import Processed, SourcePos
from streams.scaleout.store import Lane, restore
from streams.scaleout.txloop import TxLoop
from tests.integration.services import require_kafka

pytestmark = pytest.mark.integration

PARTS = 3
KEYS = [f"k{i}" for i in range(12)]
PHASES = (600, 300, 300)  # records before the join, while two members share, after it
STEP_TIMEOUT_S = 60.0
Sum = Processed[int]


def sum_lane(prefix: str) -> Lane[int]:
    """Per key: the running sum of the inputs' numbers; one output per input with it."""

    def process(
        record: int | None, key: str | None, value: bytes, pos: SourcePos
    ) -> Processed[int]:
        total = (record or 0) + int(value)
        out = Output(f"{prefix}.out", key or "", b"%d" % total, pos.label)
        return Processed("ok", total, (out,))

    return Lane("sum", f"{prefix}.in", f"{prefix}-changelog", process, b"%d".__mod__, int)


def create_topics(bootstrap: str, prefix: str) -> None:
    compact = {"cleanup.policy": "compact"}
    topics = [
        NewTopic(f"{prefix}.in", PARTS, 1),
        NewTopic(f"{prefix}-changelog", PARTS, 1, config=compact),
        NewTopic(f"{prefix}.out", 1, 1),
    ]
    admin = admin_client(bootstrap)  # kept: its futures fail once it is collected
    for future in admin.create_topics(topics).values():
        future.result(30)


def feed(bootstrap: str, prefix: str, start: int, count: int) -> None:
    """Inputs ``start+1 .. start+count`` (the number is the value), keys round robin."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for n in range(start + 1, start + count + 1):
        producer.produce(f"{prefix}.in", b"%d" % n, KEYS[n % len(KEYS)].encode())
    assert producer.flush(30) == 0


class Member(threading.Thread):
    """A second member of the group: joins, holds what it is given, leaves on `stop`."""

    def __init__(self, bootstrap: str, group: str, topic: str) -> None:
        super().__init__(daemon=True)
        self._broker, self._group, self._topic = bootstrap, group, topic
        self.holding = 0
        self._stopping = threading.Event()

    def run(self) -> None:
        consumer = group_consumer(self._broker, self._group, 6000, "migrated-other")
        consumer.subscribe([self._topic])
        while not self._stopping.is_set():
            consumer.poll(0.1)
            self.holding = len(consumer.assignment())
        consumer.close()

    def stop(self) -> None:
        self._stopping.set()
        self.join(30)


class StaleMetadata:
    """The loop's consumer, but with the group metadata of an earlier generation."""

    def __init__(self, consumer: Consumer, metadata: Any) -> None:
        self._consumer, self._metadata = consumer, metadata

    def consumer_group_metadata(self) -> Any:
        return self._metadata

    def __getattr__(self, name: str) -> Any:
        return getattr(self._consumer, name)


def steps_until(loop: TxLoop, done: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + STEP_TIMEOUT_S
    while not done():
        if time.monotonic() > deadline:
            pytest.fail(f"not {what} within {STEP_TIMEOUT_S}s: owned {sorted(loop.owned.states)}")
        loop.step(0.05)


def test_a_generation_change_mid_batch_is_migrated_in_place(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bootstrap = require_kafka()
    prefix = f"mig{uuid.uuid4().hex[:8]}"
    create_topics(bootstrap, prefix)
    lane = sum_lane(prefix)
    consumer = group_consumer(bootstrap, f"{prefix}-group", 6000, "migrated-loop")
    producer = transactional_producer(bootstrap, f"{prefix}-loop")
    loop = TxLoop(bootstrap, consumer, producer, [lane], WorkerMetrics(), batch=50)
    other = Member(bootstrap, f"{prefix}-group", lane.source)
    caplog.set_level("INFO", logger="jackpot.kafka.worker")
    try:
        loop.subscribe()
        feed(bootstrap, prefix, 0, PHASES[0])
        steps_until(loop, lambda: progressed(loop) == PHASES[0], "caught up alone")
        before = consumer.consumer_group_metadata()
        other.start()
        steps_until(loop, lambda: other.holding > 0 and len(loop.owned.states) < PARTS, "shared")
        stale_once(loop, consumer, before)
        feed(bootstrap, prefix, PHASES[0], PHASES[1])
        steps_until(loop, lambda: loop.migrations > 0, "migrated")
        steps_until(loop, lambda: loop.committed > 0 and loop.migrations == 0, "going on")
        other.stop()
        feed(bootstrap, prefix, sum(PHASES[:2]), PHASES[2])
        steps_until(loop, lambda: owns_all_at(loop, sum(PHASES)), "caught up again")
        loop.finish()
    finally:
        if other.is_alive():
            other.stop()
        loop.abandon()
        loop.close()
        consumer.close()
        producer.flush(5)
    migrated = re.findall(r"migrated: ILLEGAL_GENERATION.*?; (\d+) record\(s\)", caplog.text)
    assert migrated, caplog.text[-3000:]
    assert int(migrated[0]) > 0  # a batch of records, already in the in-memory sums
    assert "fenced:" not in caplog.text
    check_exactly_once(bootstrap, prefix, lane)


def stale_once(loop: TxLoop, consumer: Consumer, metadata: Any) -> None:
    """The loop's next batch of records carries the group's earlier generation."""
    transact = loop._transact

    def once(batch: Batch) -> None:
        if batch.records:
            loop._consumer = StaleMetadata(consumer, metadata)  # type: ignore[assignment]
            try:
                transact(batch)
            finally:
                loop._consumer = consumer
                loop._transact = transact  # type: ignore[method-assign]
        else:
            transact(batch)

    loop._transact = once  # type: ignore[method-assign]


def progressed(loop: TxLoop) -> int:
    return sum(state.progress or 0 for state in loop.owned.states.values())


def owns_all_at(loop: TxLoop, total: int) -> bool:
    return len(loop.owned.states) == PARTS and progressed(loop) == total


def check_exactly_once(bootstrap: str, prefix: str, lane: Lane[int]) -> None:
    """Every input once in the outputs (read_committed, by dedupe id), and each key's stored
    sum and last output equal to the sum of its numbers."""
    total = sum(PHASES)
    expected = dict.fromkeys(KEYS, 0)
    for n in range(1, total + 1):
        expected[KEYS[n % len(KEYS)]] += n
    ids, last = [], {}
    for message in read_topic(bootstrap, f"{prefix}.out", timeout=30):
        ids.append(header(message, DEDUPE_HEADER))
        last[as_bytes(message.key()).decode()] = int(as_bytes(message.value()))
    assert len(ids) == len(set(ids)) == total
    assert last == expected
    stored: dict[str, int] = {}
    for state in restore(bootstrap, lane, range(PARTS)).values():
        stored.update({key.decode(): value for key, value in state.records.items()})
    assert stored == expected
