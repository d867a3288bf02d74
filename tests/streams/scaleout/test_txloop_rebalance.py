"""A commit that fails on a rebalance's new group generation (ILLEGAL_GENERATION) ends the batch
(`Migrated`: the loop recovers in place, `test_txloop_migrated.py`), and the rebalance around it
must not hold the worker: a failed
transaction is aborted by the rebalance callbacks (revoke, and an assignment before its *stable*
committed-offset fetch, which an open transaction with the group's offsets would hold), and an
assignment the closing consumer still delivers is not restored (in the rebalance test its
offset fetch timed out 30 s after 30 s under ``consumer.close``, the partitions held). The next
`TxLoop.finish` still raises `Migrated` without aborting twice.

Fakes stand in for the client objects here: what is checked is the loop's order of calls, not
Kafka (the real-broker proof is ``tests/integration/test_kafka_rebalance.py``)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException, TopicPartition

from streams.adapters.prometheus.worker import WorkerMetrics
from streams.scaleout.batch import Batch
from streams.scaleout.tx_failures import Migrated
from streams.scaleout.txloop import TxLoop


class Stop(Exception):
    """Ends the assign callback once the offset fetch was reached."""


class FakeProducer:
    """Records the transactional calls; the offsets' commit fails as on a new generation."""

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    def begin_transaction(self) -> None:
        self.calls.append("begin")

    def send_offsets_to_transaction(self, *args: Any) -> None:
        self.calls.append("send_offsets")
        error = KafkaError(KafkaError.ILLEGAL_GENERATION, "stale generation", False, False, True)
        raise KafkaException(error)

    def commit_transaction(self, *args: Any) -> None:
        self.calls.append("commit")

    def abort_transaction(self, *args: Any) -> None:
        self.calls.append("abort")


class FakeConsumer:
    """A group member whose committed-offset fetch is where the test stops."""

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    def consumer_group_metadata(self) -> object:
        return object()

    def committed(self, partitions: list[TopicPartition], timeout: float) -> None:
        self.calls.append("fetch committed")
        raise Stop


def failed_commit(calls: list[str]) -> TxLoop:
    """A loop whose last batch's commit failed (its thread is done)."""
    loop = TxLoop("fake:9092", FakeConsumer(calls), FakeProducer(calls), [], WorkerMetrics())  # type: ignore[arg-type]
    loop._transact(Batch(time.monotonic()))
    assert loop._committing is not None
    loop._committing.join(5.0)
    return loop


def test_an_assignment_aborts_a_failed_transaction_before_it_fetches_offsets() -> None:
    calls: list[str] = []
    loop = failed_commit(calls)
    with pytest.raises(Stop):
        loop.owned._assigned(loop._consumer, [TopicPartition("p.table-events", 1)])
    assert calls == ["begin", "send_offsets", "abort", "fetch committed"]
    assert not loop.in_transaction
    with pytest.raises(Migrated):  # nothing of the batch committed: its partitions restored
        loop.finish()
    assert calls.count("abort") == 1


def test_a_revoke_aborts_a_failed_transaction_once() -> None:
    calls: list[str] = []
    loop = failed_commit(calls)
    loop.abandon()
    loop.abandon()  # e.g. revoke, then the loop's own shutdown
    assert calls == ["begin", "send_offsets", "abort"]
    with pytest.raises(Migrated):
        loop.finish()
    assert calls.count("abort") == 1


def test_without_a_failure_finish_aborts_nothing() -> None:
    calls: list[str] = []
    loop = TxLoop("fake:9092", FakeConsumer(calls), FakeProducer(calls), [], WorkerMetrics())  # type: ignore[arg-type]
    loop.abandon()
    loop.finish()
    assert calls == []


def test_an_assignment_delivered_while_the_consumer_closes_is_not_restored() -> None:
    """A worker that leaves (or rebuilds after a fenced batch) mid-rebalance: its consumer's
    close delivered a pending assignment, whose committed-offset fetch then timed out for
    minutes (the rebalance test's 'no progress after the rebalance to a and c')."""
    calls: list[str] = []
    loop = TxLoop("fake:9092", FakeConsumer(calls), FakeProducer(calls), [], WorkerMetrics())  # type: ignore[arg-type]
    loop.close()
    loop.owned._assigned(loop._consumer, [TopicPartition("p.table-events", 1)])
    assert calls == []
    assert loop.owned.states == {}
