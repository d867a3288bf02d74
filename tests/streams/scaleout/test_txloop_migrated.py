"""A batch refused because the group moved to a new generation while it was in flight is
"migrated" (Kafka Streams' TaskMigratedException): aborted, its partitions' state read again and
the consumer sought back, and the loop goes on with the same consumer and producer. A real
fencing (a bumped producer epoch, a fatal error) still rebuilds the worker, and so does a
migrated batch whose abort failed or the `MIGRATIONS`-th in a row: when in doubt, rebuild.

The errors are built as librdkafka reports them for ``send_offsets_to_transaction``
(rdkafka_txnmgr.c, ``rd_kafka_txn_handle_TxnOffsetCommit``: ILLEGAL_GENERATION,
UNKNOWN_MEMBER_ID and unhandled codes such as REBALANCE_IN_PROGRESS are abortable, the producer
epoch's are fatal). UNKNOWN_MEMBER_ID stays a fencing: the group dropped this member (a zombie).
Fakes stand in for the client objects: the real-broker proof is
``tests/integration/test_kafka_migrated.py``."""

from __future__ import annotations

import time
from typing import Any

import pytest
from confluent_kafka import OFFSET_BEGINNING, KafkaError, KafkaException, TopicPartition

from controller.model.errors import StoreUnavailable
from streams.adapters.kafka.transactions import fencing, migration
from streams.adapters.prometheus.worker import WorkerMetrics
from streams.scaleout import ownership
from streams.scaleout.batch import Batch
from streams.scaleout.records import Processed
from streams.scaleout.store import Lane, PartitionState
from streams.scaleout.tx_failures import Fenced
from streams.scaleout.txloop import MIGRATIONS, TxLoop

T = "p.table-events"
LANE: Lane[int] = Lane("round", T, "p-cl", lambda *a: Processed("", None), b"%d".__mod__, int)


def refused(code: int, *, fatal: bool = False, abortable: bool = True) -> KafkaException:
    """A transactional call's failure (KafkaError(code, reason, fatal, retriable, abortable))."""
    return KafkaException(KafkaError(code, "refused", fatal, False, abortable))


@pytest.mark.parametrize("code", [KafkaError.ILLEGAL_GENERATION, 27])  # 27: REBALANCE_IN_PROGRESS
def test_a_generation_refusal_is_migrated_not_fenced(code: int) -> None:
    assert KafkaError.REBALANCE_IN_PROGRESS == 27
    error = migration(refused(code))
    assert error is not None
    assert error.code() == code


@pytest.mark.parametrize(
    ("exc", "fenced"),
    [
        (refused(KafkaError.PRODUCER_FENCED, fatal=True), True),
        (refused(KafkaError._FENCED, fatal=True), True),
        (refused(KafkaError.INVALID_PRODUCER_EPOCH, fatal=True), True),
        (refused(KafkaError.UNKNOWN_MEMBER_ID), True),  # the group dropped this member: a zombie
        (refused(KafkaError.FENCED_INSTANCE_ID), True),  # another process took the instance id
        (refused(KafkaError.ILLEGAL_GENERATION, fatal=True), True),  # fatal: never in place
        (refused(KafkaError._STATE), True),  # the coordinator aborted the transaction
        (refused(KafkaError.ILLEGAL_GENERATION, abortable=False), True),
        (refused(KafkaError._TIMED_OUT, abortable=False), False),
        (refused(KafkaError.COORDINATOR_NOT_AVAILABLE, fatal=True), False),
        (KafkaException("no error object"), False),
        (RuntimeError("not Kafka"), False),
    ],
)
def test_everything_else_is_not_migrated(exc: BaseException, fenced: bool) -> None:
    assert migration(exc) is None
    assert (fencing(exc) is not None) is fenced


class FakeProducer:
    """Records the transactional calls; the offsets' commit fails with ``offsets_error``."""

    def __init__(self, calls: list[str], offsets_error: KafkaException | None) -> None:
        self.calls, self.offsets_error = calls, offsets_error
        self.abort_error: KafkaException | None = None

    def begin_transaction(self) -> None:
        self.calls.append("begin")

    def produce(self, *args: Any, **kwargs: Any) -> None:
        self.calls.append("produce")

    def send_offsets_to_transaction(self, *args: Any) -> None:
        self.calls.append("send_offsets")
        if self.offsets_error is not None:
            raise self.offsets_error

    def commit_transaction(self, *args: Any) -> None:
        self.calls.append("commit")

    def abort_transaction(self, *args: Any) -> None:
        self.calls.append("abort")
        if self.abort_error is not None:
            raise self.abort_error


class FakeConsumer:
    """A group member with nothing to consume; its seeks are recorded."""

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls
        self.seeks: list[tuple[str, int, int]] = []
        self.committed_offsets: dict[tuple[str, int], int] = {}

    def consume(self, count: int, timeout: float) -> list[Any]:
        return []

    def poll(self, timeout: float) -> None:
        return None

    def position(self, partitions: list[TopicPartition]) -> list[TopicPartition]:
        return partitions  # offsets unset (-1001): nothing moved

    def consumer_group_metadata(self) -> object:
        return object()

    def seek(self, tp: TopicPartition) -> None:
        self.seeks.append((tp.topic, tp.partition, tp.offset))

    def committed(self, partitions: list[TopicPartition], timeout: float) -> list[TopicPartition]:
        self.calls.append("fetch committed")
        offsets = self.committed_offsets
        return [
            TopicPartition(tp.topic, tp.partition, offsets.get((tp.topic, tp.partition), -1001))
            for tp in partitions
        ]


def loop_with(calls: list[str], error: KafkaException | None) -> tuple[TxLoop, FakeConsumer]:
    """A loop that owns ``T`` partitions 0-2 and committed a batch of partition 0 (5 -> 9),
    which ``error`` (if any) made fail."""
    consumer, producer = FakeConsumer(calls), FakeProducer(calls, error)
    loop = TxLoop("fake:9092", consumer, producer, [LANE], WorkerMetrics())  # type: ignore[arg-type]
    loop.owned.states.update(
        {
            (T, 0): PartitionState({b"tcp-1": 5}, 5),
            (T, 1): PartitionState({}, None),
            (T, 2): PartitionState({b"tcp-3": 7}, 7),
        }
    )
    batch = Batch(time.monotonic(), states={(T, 0): {b"tcp-1": 9}}, progress={(T, 0): 9})
    batch.records = 4
    loop._transact(batch)
    assert loop._committing is not None
    loop._committing.join(5.0)
    return loop, consumer


def restored_from_changelog(monkeypatch: pytest.MonkeyPatch, consumer: FakeConsumer) -> None:
    """Partition 0's changelog and committed offset as its last committed batch left them."""
    consumer.committed_offsets[(T, 0)] = 5

    def restore(bootstrap: str, lane: Any, parts: list[int]) -> dict[int, PartitionState[Any]]:
        assert parts == [0]
        return {0: PartitionState({b"tcp-1": 5}, 5)}

    monkeypatch.setattr(ownership, "restore", restore)
    monkeypatch.setattr(ownership.Ownership, "_restore_agreeing", _agreeing(restore))


def _agreeing(restore: Any) -> Any:
    def restore_agreeing(self: Any, lane: Any, parts: list[int], committed: Any) -> Any:
        return restore("fake:9092", lane, parts)

    return restore_agreeing


def test_a_migrated_batch_is_undone_in_place(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[str] = []
    loop, consumer = loop_with(calls, refused(KafkaError.ILLEGAL_GENERATION))
    assert loop.owned.states[(T, 0)].records == {b"tcp-1": 9}  # taken before the commit
    restored_from_changelog(monkeypatch, consumer)
    assert loop.step(0.0) == 0  # no exception: no rebuild
    assert calls[-3:] == ["send_offsets", "abort", "fetch committed"]
    assert loop.owned.states[(T, 0)].records == {b"tcp-1": 5}  # the aborted batch undone
    assert loop.owned.states[(T, 0)].progress == 5
    # every owned partition is consumed again from what its state reflects
    assert sorted(consumer.seeks) == [(T, 0, 5), (T, 1, OFFSET_BEGINNING), (T, 2, 7)]
    assert "migrated: ILLEGAL_GENERATION" in caplog.text
    assert f"{T}[0] restored" in caplog.text
    assert not loop.in_transaction
    assert loop.migrations == 1


def test_a_migrated_batch_whose_abort_failed_rebuilds() -> None:
    calls: list[str] = []
    loop, consumer = loop_with(calls, None)
    loop.step(0.0)
    producer: FakeProducer = loop._producer  # type: ignore[assignment]
    producer.offsets_error = refused(KafkaError.ILLEGAL_GENERATION)
    producer.abort_error = refused(KafkaError._FENCED, fatal=True)
    loop._transact(Batch(time.monotonic(), progress={(T, 0): 11}, records=2))
    with pytest.raises(Fenced):
        loop.step(0.0)
    assert calls[-2:] == ["send_offsets", "abort"]
    assert consumer.seeks == []


def test_a_fenced_producer_still_rebuilds() -> None:
    calls: list[str] = []
    loop, consumer = loop_with(calls, refused(KafkaError.PRODUCER_FENCED, fatal=True))
    with pytest.raises(Fenced):
        loop.step(0.0)
    assert consumer.seeks == []


def test_migrations_in_a_row_end_in_a_rebuild(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ownership.Ownership, "recover", lambda self, touched: list(touched))
    calls: list[str] = []
    loop, _ = loop_with(calls, refused(KafkaError.ILLEGAL_GENERATION))
    for _ in range(MIGRATIONS - 1):
        assert loop.step(0.0) == 0
        loop._transact(Batch(time.monotonic(), progress={(T, 0): 9}))
    with pytest.raises(StoreUnavailable, match="migrated batches in a row"):
        loop.step(0.0)


def test_a_committed_batch_starts_the_count_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ownership.Ownership, "recover", lambda self, touched: list(touched))
    calls: list[str] = []
    loop, _ = loop_with(calls, refused(KafkaError.ILLEGAL_GENERATION))
    producer: FakeProducer = loop._producer  # type: ignore[assignment]
    for _ in range(3 * MIGRATIONS):
        loop.step(0.0)
        producer.offsets_error = None  # the next batch commits
        loop._transact(Batch(time.monotonic(), progress={(T, 0): 9}, records=1))
        loop.step(0.0)
        producer.offsets_error = refused(KafkaError.ILLEGAL_GENERATION)
        loop._transact(Batch(time.monotonic(), progress={(T, 0): 9}, records=1))
    loop.step(0.0)
    assert loop.migrations == 1


@pytest.mark.parametrize(
    "code",
    [KafkaError.OUT_OF_ORDER_SEQUENCE_NUMBER, KafkaError._TIMED_OUT, KafkaError._MSG_TIMED_OUT],
)
def test_another_abortable_error_is_undone_in_place_too(code: int) -> None:
    """OUT_OF_ORDER_SEQUENCE_NUMBER "requires epoch bump" followed in-place recoveries in the
    rebalance test (the abort bumps the epoch, KIP-360): abortable, not fatal, not a fencing."""
    error = migration(refused(code))
    assert error is not None
    assert error.code() == code
    assert fencing(refused(code)) is None
